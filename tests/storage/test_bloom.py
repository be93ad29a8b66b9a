"""BloomFilter: the bits it sets follow its definition, it never forgets a value, and its
false-positive rate is what the sizing promises."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import StorageError
from neardup.fingerprints.hashing import splitmix64
from neardup.storage.bloom import BloomFilter


def _reference_bits(values: list[int], n_bits: int, k: int) -> bytes:
    bits = bytearray(n_bits // 8)
    for v in values:
        h = splitmix64(v)
        h1, h2 = h & 0xFFFFFFFF, (h >> 32) | 1
        for j in range(k):
            pos = (h1 + j * h2) % 2**64 % n_bits
            bits[pos // 8] |= 1 << (pos % 8)
    return bytes(bits)


def test_bits_follow_the_definition() -> None:
    values = [0, 1, 2**63, 2**64 - 1, 12345678901234567890, 42]
    f = BloomFilter.of(np.array(values, dtype=np.uint64), bits_per_value=20, k=5)
    assert f.bits.nbytes * 8 == 128
    assert f.to_bytes() == _reference_bits(values, 128, 5)
    # pinned: a change of the bit layout would make the filters stored in files lie
    assert f.to_bytes().hex() == "2045aa0803c002101208000c88013050"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), max_size=300))
def test_no_false_negatives(values: list[int]) -> None:
    arr = np.array(values, dtype=np.uint64)
    f = BloomFilter.of(arr)
    assert f.maybe(arr).all()
    g = BloomFilter.from_bytes(f.to_bytes(), f.k)
    assert g.maybe(arr).all()


def test_false_positive_rate_is_near_the_promise() -> None:
    rng = np.random.default_rng(5)
    held = rng.integers(0, 2**64, 200_000, dtype=np.uint64)
    f = BloomFilter.of(held, bits_per_value=12, k=6)
    bits_per_value = f.bits.nbytes * 8 / held.shape[0]
    promised = (1 - np.exp(-6 / bits_per_value)) ** 6
    others = rng.integers(0, 2**64, 400_000, dtype=np.uint64)
    rate = f.maybe(others).mean()
    assert rate < 1.5 * promised + 0.0005


def test_bad_shapes_are_refused() -> None:
    with pytest.raises(StorageError, match="power-of-two"):
        BloomFilter(np.zeros(12, dtype=np.uint8), 3)
    with pytest.raises(StorageError, match="k"):
        BloomFilter(np.zeros(8, dtype=np.uint8), 0)

"""Tests for the numba XXH3-64 kernels (bit-exactness with the reference xxhash)."""

from __future__ import annotations

import numpy as np
import pytest

from neardup._kernels.xxh3 import (
    XXH3_DEFAULT_SECRET,
    XXH3_SECRET_SIZE,
    xxh3_64,
    xxh3_64_bytes,
    xxh3_64_spans,
)

SEEDS = [0, 1, 2**32 + 7, 2**63 + 12345, 2**64 - 1]
LENGTHS = list(range(0, 601)) + [1000, 1023, 1024, 1025, 2047, 2048, 2049, 3333, 4096, 5000]

# A fixed, generator-free pattern so the golden values need nothing but this file.
_PATTERN = bytes(i * 7 % 251 for i in range(2000))

# Literal golden values, obtained once from xxhash.xxh3_64_intdigest (xxHash 0.8.x).
GOLDEN = [
    (b"", 0, 3244421341483603138),
    (b"neardup", 0, 8834954865944120900),
    (b"neardup", 2**63 + 12345, 3883133969346660445),
    (b"abc", 1, 7729416884403528232),
    (_PATTERN[:100], 0, 1162965074742209221),
    (_PATTERN[:200], 2**64 - 1, 5950242160739012594),
    (_PATTERN, 0, 841137259864770249),
    (_PATTERN, 2**32 + 7, 7253742289054022926),
]


@pytest.fixture(scope="module")
def data() -> np.ndarray:
    rng = np.random.default_rng(20240601)
    return rng.integers(0, 256, size=max(LENGTHS) + 64, dtype=np.uint8)


def test_default_secret_constant() -> None:
    assert XXH3_DEFAULT_SECRET.dtype == np.uint8
    assert XXH3_DEFAULT_SECRET.shape == (XXH3_SECRET_SIZE,) == (192,)
    assert bytes(XXH3_DEFAULT_SECRET[:8]) == bytes.fromhex("b8fe6c3923a44bbe")
    assert bytes(XXH3_DEFAULT_SECRET[-8:]) == bytes.fromhex("afd7fbcabb4b407e")


@pytest.mark.slow
@pytest.mark.parametrize(("payload", "seed", "expected"), GOLDEN)
def test_golden_values(payload: bytes, seed: int, expected: int) -> None:
    assert xxh3_64_bytes(payload, seed) == expected
    arr = np.frombuffer(payload, dtype=np.uint8).copy()
    assert int(xxh3_64(arr, 0, len(payload), np.uint64(seed))) == expected


@pytest.mark.parametrize("seed", SEEDS)
def test_matches_xxhash_all_lengths(data: np.ndarray, seed: int) -> None:
    xxhash = pytest.importorskip("xxhash")
    useed = np.uint64(seed)
    mismatches = []
    for n in LENGTHS:
        for off in (0, 5):  # aligned and unaligned start
            expected = xxhash.xxh3_64_intdigest(data[off : off + n].tobytes(), seed=seed)
            got = int(xxh3_64(data, off, n, useed))
            if got != expected:
                mismatches.append((n, off, got, expected))
    assert not mismatches, mismatches[:10]


@pytest.mark.parametrize("payload", [b"", b"x", b"neardup", _PATTERN[:17], _PATTERN])
def test_bytes_wrapper_matches_xxhash(payload: bytes) -> None:
    xxhash = pytest.importorskip("xxhash")
    for seed in SEEDS:
        expected = xxhash.xxh3_64_intdigest(payload, seed=seed)
        assert xxh3_64_bytes(payload, seed) == expected
        assert xxh3_64_bytes(bytearray(payload), seed) == expected
        assert xxh3_64_bytes(memoryview(payload), seed) == expected


def test_int64_seed_types(data: np.ndarray) -> None:
    # Seeds may also arrive as Python ints < 2**63 or as int64 (numba types both as
    # int64); an int64 seed is reinterpreted as its uint64 bit pattern.
    for seed in SEEDS:
        signed = seed - 2**64 if seed >= 2**63 else seed
        for n in (0, 3, 8, 16, 100, 200, 1500):
            expected = xxh3_64(data, 1, n, np.uint64(seed))
            assert xxh3_64(data, 1, n, np.int64(signed)) == expected
            if seed < 2**63:
                assert xxh3_64(data, 1, n, seed) == expected
    lengths = np.array([0, 5, 50, 500], np.int64)
    starts = np.zeros(4, np.int64)
    np.testing.assert_array_equal(
        xxh3_64_spans(data, starts, lengths, np.int64(-1)),
        xxh3_64_spans(data, starts, lengths, np.uint64(2**64 - 1)),
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_spans_match_scalar(data: np.ndarray, seed: int) -> None:
    rng = np.random.default_rng(7)
    m = 3000
    lengths = np.concatenate(
        [
            np.arange(0, 300, dtype=np.int64),
            rng.integers(0, 2500, size=m - 300).astype(np.int64),
        ]
    )
    starts = rng.integers(0, data.size - lengths.max(), size=m).astype(np.int64)
    useed = np.uint64(seed)
    out = xxh3_64_spans(data, starts, lengths, useed)
    assert out.dtype == np.uint64
    assert out.shape == (m,)
    expected = np.array(
        [xxh3_64(data, int(s), int(n), useed) for s, n in zip(starts, lengths)], dtype=np.uint64
    )
    np.testing.assert_array_equal(out, expected)


def test_spans_empty(data: np.ndarray) -> None:
    empty = np.empty(0, dtype=np.int64)
    out = xxh3_64_spans(data, empty, empty, np.uint64(0))
    assert out.shape == (0,) and out.dtype == np.uint64


def test_out_of_bounds_raises(data: np.ndarray) -> None:
    with pytest.raises(ValueError):
        xxh3_64(data, data.size - 3, 4, np.uint64(0))
    with pytest.raises(ValueError):
        xxh3_64(data, -1, 4, np.uint64(0))
    with pytest.raises(ValueError):
        xxh3_64_spans(
            data, np.array([0, data.size], np.int64), np.array([1, 1], np.int64), np.uint64(0)
        )
    with pytest.raises(ValueError):
        xxh3_64_spans(data, np.array([0], np.int64), np.array([1, 2], np.int64), np.uint64(0))


def test_bad_seed_raises() -> None:
    with pytest.raises(ValueError):
        xxh3_64_bytes(b"abc", -1)
    with pytest.raises(ValueError):
        xxh3_64_bytes(b"abc", 2**64)

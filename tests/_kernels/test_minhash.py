"""The MinHash, band-key and sampling kernels against plain-Python definitions."""

from __future__ import annotations

import numpy as np
import pytest

from neardup._kernels import minhash as k
from neardup.fingerprints.hashing import splitmix64
from neardup.sketch.minhash import function_seeds, pack, reference_signature

MASK = (1 << 64) - 1


def test_splitmix64_matches_the_python_definition() -> None:
    xs = [0, 1, 2, 12345, 2**63, MASK, 0x9E3779B97F4A7C15]
    got = k.splitmix64_array(np.array(xs, dtype=np.uint64)).tolist()
    assert got == [splitmix64(x) for x in xs]
    # SplitMix64's published first output for state 0 (Vigna's reference implementation)
    assert splitmix64(0) == 0xE220A8397B1DCDAF


def test_function_seeds_are_the_splitmix64_stream() -> None:
    seeds = function_seeds(7, 5).tolist()
    gamma = 0x9E3779B97F4A7C15
    assert seeds == [splitmix64((7 + i * gamma) & MASK) for i in range(5)]
    assert function_seeds(7, 3).tolist() == seeds[:3]


def test_minhash_flat_equals_reference_on_random_sets() -> None:
    rng = np.random.default_rng(1)
    docs = [rng.integers(0, 2**64 - 1, size=n, dtype=np.uint64) for n in (1, 2, 17, 300, 0, 5)]
    flat, offsets = pack(docs)
    seeds = function_seeds(3, 40)
    out = k.minhash_flat(flat, offsets, seeds)
    assert out.shape == (6, 40) and out.dtype == np.uint64
    for row, doc in zip(out, docs):
        assert row.tolist() == reference_signature(doc.tolist(), 40, seed=3)
    assert out[4].tolist() == [MASK] * 40  # the empty document


def test_repeats_and_order_do_not_change_a_signature() -> None:
    rng = np.random.default_rng(2)
    doc = rng.integers(0, 2**64 - 1, size=50, dtype=np.uint64)
    messy = np.concatenate([doc[::-1], doc[:10]])
    seeds = function_seeds(0, 16)
    a = k.minhash_flat(*pack([doc]), seeds)
    b = k.minhash_flat(*pack([messy]), seeds)
    assert a.tolist() == b.tolist()


def test_multiset_kernel_is_minhash_of_the_expanded_set() -> None:
    values = np.array([5, 99, 2**40 + 3], dtype=np.uint64)
    counts = np.array([1, 3, 2], dtype=np.int64)
    seeds = function_seeds(0, 24)
    got = k.minhash_flat_multiset(values, counts, np.array([0, 3], dtype=np.int64), seeds)
    gamma = 0x9E3779B97F4A7C15
    expanded = []
    for x, c in zip(values.tolist(), counts.tolist()):
        for j in range(c):
            expanded.append(x if j == 0 else splitmix64(x ^ splitmix64((j * gamma) & MASK)))
    assert got[0].tolist() == reference_signature(expanded, 24)
    # counts of one are the plain set signature
    ones = k.minhash_flat_multiset(
        values, np.ones(3, dtype=np.int64), np.array([0, 3], dtype=np.int64), seeds
    )
    assert ones.tolist() == k.minhash_flat(values, np.array([0, 3], dtype=np.int64), seeds).tolist()


def _band_key_reference(values: list[int], band_seed: int) -> int:
    h = band_seed
    for v in values:
        h = splitmix64(h ^ v)
    return h


def test_band_keys_match_reference_and_accept_uint32() -> None:
    rng = np.random.default_rng(3)
    sigs = rng.integers(0, 2**64 - 1, size=(3, 12), dtype=np.uint64)
    seeds = np.array([11, 22, 33, 44], dtype=np.uint64)
    keys = k.band_keys(sigs, 4, 3, seeds)
    for d in range(3):
        for b in range(4):
            assert int(keys[d, b]) == _band_key_reference(
                sigs[d, 3 * b : 3 * b + 3].tolist(), int(seeds[b])
            )
    small = (sigs >> np.uint64(32)).astype(np.uint32)
    keys32 = k.band_keys(small, 4, 3, seeds)
    assert int(keys32[1, 2]) == _band_key_reference(small[1, 6:9].tolist(), 33)


def test_pair_keys_cover_every_pair_in_order() -> None:
    keys = np.array([[1, 2, 3, 4]], dtype=np.uint64)
    seed = np.uint64(9)
    out = k.pair_keys(keys, seed)
    assert out.shape == (1, 6)
    expected = [
        splitmix64(splitmix64(i ^ 9) ^ j)
        for i, j in ((1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4))
    ]
    assert out[0].tolist() == expected


def test_equal_share_and_the_empty_rule() -> None:
    a = np.array([[1, 2, 3, 4], [MASK] * 4, [5, 6, 7, 8]], dtype=np.uint64)
    b = np.array([[1, 2, 0, 4], [MASK] * 4, [MASK] * 4], dtype=np.uint64)
    assert k.equal_share(a, b, np.uint64(MASK)).tolist() == [0.75, 0.0, 0.0]
    one = np.array([[1, 2, 3, 4]], dtype=np.uint64)
    assert k.equal_share(a, one, np.uint64(MASK)).tolist() == [1.0, 0.0, 0.0]


def test_mod_sample_keeps_values_whose_remix_divides() -> None:
    rng = np.random.default_rng(4)
    docs = [rng.integers(0, 2**64 - 1, size=n, dtype=np.uint64) for n in (500, 0, 300)]
    flat, offsets = pack(docs)
    kept, out_off = k.mod_sample_flat(flat, offsets, np.uint64(7), np.uint64(123))
    for d, doc in enumerate(docs):
        expected = [x for x in doc.tolist() if splitmix64(x ^ 123) % 7 == 0]
        assert kept[out_off[d] : out_off[d + 1]].tolist() == expected


def test_bottom_k_flat_takes_the_k_smallest_distinct_keys() -> None:
    rng = np.random.default_rng(5)
    doc = rng.integers(0, 2**64 - 1, size=40, dtype=np.uint64)
    docs = [np.concatenate([doc, doc[:5]]), doc[:3], np.zeros(0, dtype=np.uint64)]
    keys, lengths = k.bottom_k_flat(*pack(docs), 8, np.uint64(77))
    expected = sorted({splitmix64(x ^ 77) for x in doc.tolist()})[:8]
    assert keys[0].tolist() == expected and lengths.tolist() == [8, 3, 0]
    assert keys[1, :3].tolist() == sorted(splitmix64(x ^ 77) for x in doc[:3].tolist())
    assert keys[1, 3:].tolist() == [MASK] * 5


def test_bottom_k_union_shared() -> None:
    a = np.array([1, 3, 5, 7], dtype=np.uint64)
    b = np.array([1, 2, 5, 9], dtype=np.uint64)
    # union's 4 smallest: 1 2 3 5 → in both: 1, 5
    assert k.bottom_k_union_shared(a, 4, b, 4, 4) == (4, 2)
    assert k.bottom_k_union_shared(a, 2, b, 0, 4) == (2, 0)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_pack_offsets(n: int) -> None:
    arrays = [np.arange(i, dtype=np.uint64) for i in range(n)]
    flat, offsets = pack(arrays)
    assert offsets.tolist() == [0] + np.cumsum([a.shape[0] for a in arrays]).tolist()
    assert flat.dtype == np.uint64 and flat.shape[0] == offsets[-1]

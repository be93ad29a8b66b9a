"""The Bloom kernels against plain-NumPy references."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup._kernels import pmbf

MASK = (1 << 64) - 1


def _splitmix64(x: int) -> int:
    z = (x + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def _positions(values: list[int], k: int, m: int, seed: int) -> list[int]:
    s = _splitmix64(seed)
    out: list[int] = []
    for v in values:
        h1 = _splitmix64(v ^ s)
        h2 = _splitmix64(h1) | 1
        out.extend(((h1 + j * h2) & MASK) % m for j in range(k))
    return out


def _row(values: list[int], k: int, m: int, seed: int) -> np.ndarray:
    bits = np.zeros(-(-m // 64) * 64, dtype=np.uint8)
    bits[_positions(values, k, m, seed)] = 1
    return np.packbits(bits, bitorder="little").view(np.uint64)


def _popcount(words: np.ndarray) -> np.ndarray:
    return np.unpackbits(words.view(np.uint8), axis=-1).sum(axis=-1).astype(np.int64)


def test_positions_golden() -> None:
    values = np.array([0, 1, 2**63, MASK], dtype=np.uint64)
    got = pmbf.positions(values, 3, 1000, 7).tolist()
    assert got == _positions(values.tolist(), 3, 1000, 7)
    assert got == pmbf.positions(values, 3, 1000, 7).tolist()  # deterministic
    assert got != pmbf.positions(values, 3, 1000, 8).tolist()  # the seed matters


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, MASK), max_size=60, unique=True),
    st.integers(1, 6),
    st.integers(1, 700),
    st.integers(0, 2**32),
)
def test_set_and_test_bits(values: list[int], k: int, m: int, seed: int) -> None:
    arr = np.array(sorted(values), dtype=np.uint64)
    words = np.zeros(-(-m // 64), dtype=np.uint64)
    pmbf.set_bits(words, arr, k, m, seed)
    ref = _row(sorted(values), k, m, seed)
    assert np.array_equal(words, ref)
    assert pmbf.test_bits(words, arr, k, m, seed).all()
    assert pmbf.popcount_words(words) == int(_popcount(ref))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 9), st.integers(1, 40), st.integers(0, 2**32))
def test_and_popcount_matches_numpy(n_rows: int, width: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, 2**63, size=(n_rows + 2, width), dtype=np.uint64) * np.uint64(2)
    rows ^= rng.integers(0, 2, size=rows.shape, dtype=np.uint64)
    query = rng.integers(0, 2**63, size=width, dtype=np.uint64) | np.uint64(2**63)
    got = pmbf.and_popcount(rows, query, n_rows)
    assert got.tolist() == _popcount(rows[:n_rows] & query).tolist()
    assert pmbf.popcount_rows(rows, n_rows).tolist() == _popcount(rows[:n_rows]).tolist()


def test_popcount_extremes() -> None:
    words = np.array([0, MASK, 1, 2**63, 0x5555555555555555], dtype=np.uint64)
    assert [int(pmbf.popcount64(w)) for w in words] == [0, 64, 1, 1, 32]


def test_counting_kernel_sticks_at_255() -> None:
    counters = np.full(10, 254, dtype=np.uint8)
    values = np.array([5], dtype=np.uint64)
    pos = sorted(set(pmbf.positions(values, 2, 10, 0).tolist()))
    assert pmbf.add_counts(counters, values, 2, 10, 0, 1) == 0
    assert counters[pos].tolist() == [255] * len(pos)
    assert pmbf.add_counts(counters, values, 2, 10, 0, -1) == 2  # both stuck, none decremented
    assert counters[pos].tolist() == [255] * len(pos)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 150), st.integers(1, 300), st.integers(1, 5), st.integers(0, 2**32))
def test_sliced_member_counts_equal_row_major(n_rows: int, m: int, k: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    words = -(-m // 64)
    bits = rng.random((n_rows, words * 64)) < 0.6
    bits[:, m:] = False
    rows = np.packbits(bits, axis=1, bitorder="little").view(np.uint64).copy()
    values = np.unique(rng.integers(0, 2**63, size=40, dtype=np.uint64))
    pos = pmbf.positions(values, k, m, seed)
    sliced = np.zeros((m, -(-n_rows // 64)), dtype=np.uint64)
    pmbf.slice_rows(rows, np.arange(n_rows, dtype=np.int64), m, sliced, False)
    # bit b of row r is bit r % 64 of sliced[b, r // 64]; the transposing build gives the same
    unpacked = np.unpackbits(sliced.view(np.uint8), axis=1, bitorder="little")[:, :n_rows]
    assert np.array_equal(unpacked, bits[:, :m].T)
    whole = np.full((m, -(-n_rows // 64) + 1), 7, dtype=np.uint64)
    whole[:, -1] = 0
    pmbf.slice_all(rows, n_rows, m, whole)
    assert np.array_equal(whole[:, :-1], sliced) and not whole[:, -1].any()
    expected = [int(b[pos.astype(np.int64).reshape(-1, k)].all(axis=1).sum()) for b in bits]
    assert pmbf.member_counts(rows, pos, k, n_rows).tolist() == expected
    assert pmbf.sliced_member_counts(sliced, pos, k, n_rows).tolist() == expected
    # rewriting one row after a change clears its old bits
    rows[n_rows - 1] = 0
    pmbf.slice_rows(rows, np.array([n_rows - 1], dtype=np.int64), m, sliced, True)
    assert pmbf.sliced_member_counts(sliced, pos, k, n_rows)[-1] == 0

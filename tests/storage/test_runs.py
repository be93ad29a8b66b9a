"""SortedRuns: lookups and the sorted view agree with a plain list of postings."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import StorageError
from neardup.storage.runs import SortedRuns

batches = st.lists(
    st.lists(st.tuples(st.integers(0, 40), st.integers(1, 3)), max_size=30), max_size=25
)


def _fill(spec: list[list[tuple[int, int]]]) -> tuple[SortedRuns, list[tuple[int, int]]]:
    """Batches of (value, postings per doc) → runs and the same postings as a plain list."""
    runs = SortedRuns()
    plain: list[tuple[int, int]] = []
    key = 0
    for batch in spec:
        values, keys = [], []
        for value, n_docs in batch:
            for _ in range(n_docs):
                values.append(value)
                keys.append(key)
                key += 1
        runs.add(np.array(values, dtype=np.uint64), np.array(keys, dtype=np.int64))
        plain += list(zip(values, keys))
    return runs, plain


@settings(max_examples=150, deadline=None)
@given(batches, st.sets(st.integers(0, 45), max_size=10))
def test_lookup_and_arrays_match_a_plain_list(
    spec: list[list[tuple[int, int]]], wanted: set[int]
) -> None:
    runs, plain = _fill(spec)
    values, keys = runs.arrays()
    assert list(zip(values.tolist(), keys.tolist())) == sorted(plain)
    assert runs.size == len(plain)
    assert len(runs.runs) <= max(1, 2 * int(np.log2(max(len(plain), 1))) + 2)
    want = np.array(sorted(wanted), dtype=np.uint64)
    fv, fk = runs.lookup(want)
    assert sorted(zip(fv.tolist(), fk.tolist())) == sorted(p for p in plain if p[0] in wanted)


@settings(max_examples=60, deadline=None)
@given(batches, st.sets(st.integers(0, 200), max_size=20))
def test_without_drops_exactly_those_keys_and_leaves_the_original(
    spec: list[list[tuple[int, int]]], gone: set[int]
) -> None:
    runs, plain = _fill(spec)
    before = runs.arrays()
    rest = runs.without(np.array(sorted(gone), dtype=np.int64))
    values, keys = rest.arrays()
    assert list(zip(values.tolist(), keys.tolist())) == sorted(p for p in plain if p[1] not in gone)
    assert all((a == b).all() for a, b in zip(runs.arrays(), before))


def test_a_copy_is_a_snapshot() -> None:
    runs = SortedRuns()
    runs.add(np.array([5, 1], dtype=np.uint64), np.array([0, 1], dtype=np.int64))
    snap = runs.copy()
    runs.add(np.array([1, 9], dtype=np.uint64), np.array([2, 3], dtype=np.int64))
    assert snap.size == 2 and runs.size == 4
    assert runs.arrays()[1].tolist() == [1, 2, 0, 3]  # equal values: older key first


def test_keys_must_grow() -> None:
    runs = SortedRuns()
    runs.add(np.array([3], dtype=np.uint64), np.array([7], dtype=np.int64))
    with pytest.raises(StorageError, match="increasing key order"):
        runs.add(np.array([4], dtype=np.uint64), np.array([7], dtype=np.int64))
    assert runs.size == 1

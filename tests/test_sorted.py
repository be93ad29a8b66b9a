"""neardup._sorted gives what np.unique gives."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup._sorted import distinct, distinct_counts


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), max_size=60), st.booleans())
def test_same_as_np_unique(values: list[int], small: bool) -> None:
    arr = np.array([v % 7 if small else v for v in values], dtype=np.uint64)
    np.testing.assert_array_equal(distinct(arr), np.unique(arr))
    got, counts = distinct_counts(arr)
    want, want_counts = np.unique(arr, return_counts=True)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(counts, want_counts)
    assert got.dtype == np.uint64 and counts.dtype == np.int64


def test_signed_keys() -> None:
    keys = np.array([5, -3, 5, 0, -3, -3], dtype=np.int64)
    assert distinct(keys).tolist() == [-3, 0, 5]
    assert [c.tolist() for c in distinct_counts(keys)] == [[-3, 0, 5], [3, 1, 2]]

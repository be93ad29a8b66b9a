"""Merges of sorted arrays: the intersection sizes behind every exact measure, in O(m + n)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit


@njit(cache=True, nogil=True)
def intersection_size(a: npt.NDArray[np.uint64], b: npt.NDArray[np.uint64]) -> int:
    """``|A ∩ B|`` for two sorted arrays of distinct values."""
    i = 0
    j = 0
    shared = 0
    while i < a.shape[0] and j < b.shape[0]:
        if a[i] < b[j]:
            i += 1
        elif a[i] > b[j]:
            j += 1
        else:
            shared += 1
            i += 1
            j += 1
    return shared


@njit(cache=True, nogil=True)
def multiset_overlap(
    a: npt.NDArray[np.uint64],
    a_counts: npt.NDArray[np.int64],
    b: npt.NDArray[np.uint64],
    b_counts: npt.NDArray[np.int64],
) -> int:
    """``Σ min(count_A(x), count_B(x))`` for two sorted arrays of distinct values with counts."""
    i = 0
    j = 0
    shared = 0
    while i < a.shape[0] and j < b.shape[0]:
        if a[i] < b[j]:
            i += 1
        elif a[i] > b[j]:
            j += 1
        else:
            shared += min(a_counts[i], b_counts[j])
            i += 1
            j += 1
    return shared

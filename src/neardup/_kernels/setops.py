"""Merges of sorted arrays: the intersection sizes behind every exact measure, in O(m + n);
and the sorted sets they merge, made from raw hashes."""

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


@njit(cache=True, nogil=True)
def distinct_segments(
    values: npt.NDArray[np.uint64], starts: npt.NDArray[np.int64], ends: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.int64]]:
    """The sorted distinct values of each segment ``values[starts[d]:ends[d]]``, end to end,
    and how many each has (``np.unique`` per segment, in one call)."""
    n = starts.shape[0]
    total = 0
    for d in range(n):
        total += ends[d] - starts[d]
    out = np.empty(total, dtype=np.uint64)
    sizes = np.zeros(n, dtype=np.int64)
    at = 0
    for d in range(n):
        if ends[d] == starts[d]:
            continue
        ordered = np.sort(values[starts[d] : ends[d]])
        out[at] = ordered[0]
        kept = 1
        for i in range(1, ordered.shape[0]):
            if ordered[i] != ordered[i - 1]:
                out[at + kept] = ordered[i]
                kept += 1
        at += kept
        sizes[d] = kept
    return out[:at], sizes

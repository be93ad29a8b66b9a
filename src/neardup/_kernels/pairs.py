"""Overlaps of many pairs of fingerprint sets in one call (the evaluation's hot loop).

The sets of all documents sit end to end in one array (CSR layout: document ``d`` owns
``values[offsets[d]:offsets[d + 1]]``, sorted and distinct); a batch of pairs is two index
arrays. One compiled loop merges every pair, so scoring 10^5 pairs costs no Python per pair.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from neardup._kernels.setops import intersection_size, multiset_overlap

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


@njit(cache=True, nogil=True)
def pair_overlaps(values: U64, offsets: I64, a: I64, b: I64) -> I64:
    """``|A_p ∩ B_p|`` for each pair ``p`` of documents ``a[p]``, ``b[p]``."""
    out = np.empty(a.shape[0], dtype=np.int64)
    for p in range(a.shape[0]):
        i = a[p]
        j = b[p]
        out[p] = intersection_size(
            values[offsets[i] : offsets[i + 1]], values[offsets[j] : offsets[j + 1]]
        )
    return out


@njit(cache=True, nogil=True)
def pair_multiset_overlaps(values: U64, counts: I64, offsets: I64, a: I64, b: I64) -> I64:
    """``Σ min(count_A, count_B)`` for each pair of multisets."""
    out = np.empty(a.shape[0], dtype=np.int64)
    for p in range(a.shape[0]):
        i = a[p]
        j = b[p]
        out[p] = multiset_overlap(
            values[offsets[i] : offsets[i + 1]],
            counts[offsets[i] : offsets[i + 1]],
            values[offsets[j] : offsets[j + 1]],
            counts[offsets[j] : offsets[j + 1]],
        )
    return out


@njit(cache=True, nogil=True)
def pair_term_products(
    values: U64, counts: I64, offsets: I64, a: I64, b: I64
) -> npt.NDArray[np.float64]:
    """For each pair of term-count vectors: ``Σ tf_A·tf_B``, ``Σ tf_A²`` and ``Σ tf_B²`` over
    the shared terms, and ``Σ tf_A²``, ``Σ tf_B²`` over all terms — shape ``(pairs, 5)``, what
    a cosine with any per-pair term weighting is made of."""
    out = np.zeros((a.shape[0], 5), dtype=np.float64)
    for p in range(a.shape[0]):
        i0 = offsets[a[p]]
        i1 = offsets[a[p] + 1]
        j0 = offsets[b[p]]
        j1 = offsets[b[p] + 1]
        for x in range(i0, i1):
            out[p, 3] += counts[x] * counts[x]
        for y in range(j0, j1):
            out[p, 4] += counts[y] * counts[y]
        x = i0
        y = j0
        while x < i1 and y < j1:
            if values[x] < values[y]:
                x += 1
            elif values[y] < values[x]:
                y += 1
            else:
                out[p, 0] += counts[x] * counts[y]
                out[p, 1] += counts[x] * counts[x]
                out[p, 2] += counts[y] * counts[y]
                x += 1
                y += 1
    return out


@njit(cache=True, nogil=True)
def component_minima(n: int, a: I64, b: I64) -> I64:
    """Each of ``n`` nodes' component (edges ``a[e]``–``b[e]``) as its smallest node: a
    union–find whose root is always the smaller one, so a root is its component's minimum."""
    parent = np.arange(n, dtype=np.int64)
    for e in range(a.shape[0]):
        x = a[e]
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        y = b[e]
        while parent[y] != y:
            parent[y] = parent[parent[y]]
            y = parent[y]
        if x < y:
            parent[y] = x
        elif y < x:
            parent[x] = y
    for i in range(n):
        parent[i] = parent[parent[i]]  # a parent is below its node: its root is final
    return parent

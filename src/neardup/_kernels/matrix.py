"""Hot loop of the similarity matrix: every pairwise intersection size of n sorted sets at once.

The sets come packed: ``values[offsets[d]:offsets[d + 1]]`` is set ``d`` (sorted, distinct
``uint64``) with ``counts`` of each value (all ones for plain sets, the multiplicities for
multisets). One call fills the whole symmetric ``(n, n)`` matrix of ``Σ min(count_i, count_j)``
over the shared values — ``|S_i ∩ S_j|`` for sets.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from neardup._kernels.setops import multiset_overlap

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]


@njit(cache=True, nogil=True)
def pairwise_intersections(values: U64, counts: I64, offsets: I64) -> I64:
    """``out[i, j] = Σ min`` of the counts of shared values (the diagonal holds each size),
    by one merge per pair."""
    n = offsets.shape[0] - 1
    out = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        size = 0
        for t in range(offsets[i], offsets[i + 1]):
            size += counts[t]
        out[i, i] = size
        for j in range(i + 1, n):
            shared = multiset_overlap(
                values[offsets[i] : offsets[i + 1]],
                counts[offsets[i] : offsets[i + 1]],
                values[offsets[j] : offsets[j + 1]],
                counts[offsets[j] : offsets[j + 1]],
            )
            out[i, j] = shared
            out[j, i] = shared
    return out

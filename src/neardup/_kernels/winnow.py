"""Hot loops of the collection (neardup.index): winnowing and batched exact verification.

Winnowing (Schleimer, Wilkerson, Aiken 2003) keeps, from every window of ``w`` consecutive
shingle fingerprints, the one whose *remixed* value is smallest. The remix is the SplitMix64
finalizer, so the choice does not depend on the bias of a hash family's low bits (CRC32,
narrow Rabin–Karp). Two texts that share a run of at least ``w`` consecutive shingles have a
window in common, so they share its minimum: every shared run of ``w + k - 1`` words is found.

Verification merges one query's sorted fingerprints against many candidates' sorted
fingerprints (concatenated, with offsets) in one call: the shared count of each candidate and
a mask of the query values found in any of them (for the uniqueness %).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


@njit(cache=True, nogil=True)
def remix(x: np.uint64) -> np.uint64:
    """The SplitMix64 finalizer: a fixed bijection of uint64 that mixes every bit."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, nogil=True)
def winnow(hashes: U64, window: int) -> U64:
    """The fingerprint chosen in each window of ``window`` consecutive shingles (text order).

    The choice in a window is the value with the smallest remix (on a tie, the rightmost, as in
    robust winnowing). A text shorter than one window gives the minimum of the whole text.
    Consecutive windows usually choose the same value; each choice is written once when it
    changes, so the result is short but may still repeat a value (callers take ``np.unique``).
    """
    n = hashes.shape[0]
    out = np.empty(n, dtype=np.uint64)
    if n == 0:
        return out[:0]
    w = min(n, window)
    keys = np.empty(n, dtype=np.uint64)
    for i in range(n):
        keys[i] = remix(hashes[i])
    # a monotone deque of positions with increasing keys (rightmost minimum first)
    dq = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    m = 0
    last = -1
    for i in range(n):
        while tail > head and keys[dq[tail - 1]] >= keys[i]:
            tail -= 1
        dq[tail] = i
        tail += 1
        if dq[head] <= i - w:
            head += 1
        if i >= w - 1:
            pos = dq[head]
            if pos != last:
                out[m] = hashes[pos]
                m += 1
                last = pos
    return out[:m]


@njit(cache=True, nogil=True)
def verify_many(
    query: U64,
    query_counts: I64,
    values: U64,
    counts: I64,
    offsets: I64,
    multiset: bool,
) -> tuple[I64, npt.NDArray[np.bool_]]:
    """Shared count of the query with each candidate, and which query values any of them has.

    Candidate ``j`` is ``values[offsets[j]:offsets[j + 1]]`` (sorted, distinct). With
    ``multiset`` the shared count is ``Σ min`` of the counts (``query_counts``, ``counts``);
    otherwise it is the size of the intersection.
    """
    n_cand = offsets.shape[0] - 1
    shared = np.zeros(n_cand, dtype=np.int64)
    found = np.zeros(query.shape[0], dtype=np.bool_)
    nq = query.shape[0]
    for j in range(n_cand):
        i = 0
        p = offsets[j]
        end = offsets[j + 1]
        s = 0
        # a merge with few branches: both sides advance on equality
        while i < nq and p < end:
            a = query[i]
            b = values[p]
            if a == b:
                found[i] = True
                if multiset:
                    s += min(query_counts[i], counts[p])
                else:
                    s += 1
            i += a <= b
            p += b <= a
        shared[j] = s
    return shared, found


@njit(cache=True, nogil=True)
def shared_pairs(
    a_values: U64,
    a_counts: I64,
    a_offsets: I64,
    b_values: U64,
    b_counts: I64,
    b_offsets: I64,
    pair_a: I64,
    pair_b: I64,
    multiset: bool,
) -> I64:
    """Shared count of each pair ``(pair_a[t], pair_b[t])`` of sets from two concatenations.

    Set ``i`` of side A is ``a_values[a_offsets[i]:a_offsets[i + 1]]`` (sorted, distinct), the
    same for B. With ``multiset`` the count is ``Σ min`` of the counts.
    """
    out = np.zeros(pair_a.shape[0], dtype=np.int64)
    for t in range(pair_a.shape[0]):
        i = a_offsets[pair_a[t]]
        i_end = a_offsets[pair_a[t] + 1]
        p = b_offsets[pair_b[t]]
        p_end = b_offsets[pair_b[t] + 1]
        s = 0
        while i < i_end and p < p_end:
            x = a_values[i]
            y = b_values[p]
            if x == y:
                if multiset:
                    s += min(a_counts[i], b_counts[p])
                else:
                    s += 1
            i += x <= y
            p += y <= x
        out[t] = s
    return out

"""The kernels of :class:`~neardup.lsh.LSHIndex`: its bucket table, bucket lookup and merge,
candidate counting and the similarity estimate of every candidate, a batch per call.

The band keys come from :func:`neardup._kernels.minhash.band_keys` (band ``b``'s seed is
hashed into its key, so the keys of every band share ONE table). The table is open
addressing with linear probing over a power-of-two array: ``table_keys[t]`` holds a band key
and ``table_head[t]`` the newest entry of its bucket (``-1``: a free place). An entry is one
(document slot, band): entry ``e = slot · bands + band``, and ``entry_next[e]`` is the entry
added before it to the same bucket (``-1``: the last), so a bucket is a linked list through
``entry_next`` and adding a document never moves anything. Removed documents stay in their
buckets, flagged dead in ``alive``, until the index is rebuilt (the caller does it when the
dead outnumber the live).

Every kernel is ``nogil``; none allocates per entry.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
B1 = npt.NDArray[np.bool_]

_SHIFT = np.uint64(32)


@njit(cache=True, nogil=True, inline="always")
def _place(key: np.uint64, mask: int) -> int:
    """The first place to probe for a key (band keys are already mixed; the high half is
    folded in so tables smaller than 2^32 see every bit)."""
    return np.int64((key ^ (key >> _SHIFT)) & np.uint64(mask))


@njit(cache=True, nogil=True)
def table_insert(
    table_keys: U64,
    table_head: I64,
    entry_next: I64,
    keys: U64,
    slots: I64,
) -> int:
    """Add documents: row ``i`` of ``keys`` (``(n, bands)`` band keys) is document slot
    ``slots[i]``; its entries join the front of their buckets. Returns the number of buckets
    made (the caller keeps the table at most half full)."""
    mask = table_keys.shape[0] - 1
    bands = keys.shape[1]
    made = 0
    for i in range(keys.shape[0]):
        base = slots[i] * bands
        for b in range(bands):
            key = keys[i, b]
            e = base + b
            t = _place(key, mask)
            while True:
                head = table_head[t]
                if head < 0:
                    table_keys[t] = key
                    table_head[t] = e
                    entry_next[e] = -1
                    made += 1
                    break
                if table_keys[t] == key:
                    entry_next[e] = head
                    table_head[t] = e
                    break
                t = (t + 1) & mask
    return made


@njit(cache=True, nogil=True, inline="always")
def _find(table_keys: U64, table_head: I64, key: np.uint64) -> int:
    """The head entry of a key's bucket, or ``-1``."""
    mask = table_keys.shape[0] - 1
    t = _place(key, mask)
    while True:
        head = table_head[t]
        if head < 0:
            return -1
        if table_keys[t] == key:
            return head
        t = (t + 1) & mask


@njit(cache=True, nogil=True, inline="always")
def _share(a: npt.NDArray[np.uint64], b: npt.NDArray[np.uint64], empty: np.uint64) -> float:
    """The share of equal positions of two signatures; 0.0 when either is an empty set's."""
    num = a.shape[0]
    same = 0
    a_empty = True
    b_empty = True
    for i in range(num):
        x = a[i]
        y = b[i]
        if x != empty:
            a_empty = False
        if y != empty:
            b_empty = False
        if x == y:
            same += 1
    if a_empty or b_empty:
        return 0.0
    return same / num


@njit(cache=True, nogil=True)
def query(
    table_keys: U64,
    table_head: I64,
    entry_next: I64,
    alive: B1,
    signatures: npt.NDArray[np.uint64],
    query_keys: U64,
    query_signatures: npt.NDArray[np.uint64],
    exclude: I64,
    min_bands: int,
    min_similarity: float,
    empty: np.uint64,
    seen: I64,
    count: I64,
    met: I64,
    stamp: int,
) -> tuple[I64, I64, I64, F64]:
    """Candidates of a batch of queries: every live slot sharing at least ``min_bands`` band
    keys with query ``i`` (row ``i`` of ``query_keys``), except slot ``exclude[i]``, whose
    estimated similarity (share of equal minhashes, rows of ``signatures`` against
    ``query_signatures``) is at least ``min_similarity`` (give a negative one for all).

    ``seen``, ``count`` and ``met`` are scratch arrays of the slots' length that the caller
    keeps between calls (so a query of one costs no allocation of the index's size); query
    ``i`` marks the slots it meets in ``seen`` with ``stamp + i``, so ``seen`` must hold no
    value ≥ ``stamp`` (the caller passes a stamp past every earlier call's).

    Returns ``(offsets, slots, shared_bands, similarities)`` in CSR form: query ``i``'s
    candidates are ``slots[offsets[i]:offsets[i+1]]``, in the order first met.
    """
    n = query_keys.shape[0]
    bands = query_keys.shape[1]
    size = 1024
    out_slots = np.empty(size, dtype=np.int64)
    out_shared = np.empty(size, dtype=np.int64)
    out_sims = np.empty(size, dtype=np.float64)
    offsets = np.zeros(n + 1, dtype=np.int64)
    m = 0
    for i in range(n):
        mark = stamp + i
        found = 0
        for b in range(bands):
            e = _find(table_keys, table_head, query_keys[i, b])
            while e >= 0:
                s = e // bands
                if alive[s]:
                    if seen[s] != mark:
                        seen[s] = mark
                        count[s] = 1
                        met[found] = s
                        found += 1
                    else:
                        count[s] += 1
                e = entry_next[e]
        for j in range(found):
            s = met[j]
            if s == exclude[i] or count[s] < min_bands:
                continue
            sim = _share(signatures[s], query_signatures[i], empty)
            if sim == 0.0 or sim < min_similarity:
                continue
            if m == size:
                size *= 2
                grown_slots = np.empty(size, dtype=np.int64)
                grown_shared = np.empty(size, dtype=np.int64)
                grown_sims = np.empty(size, dtype=np.float64)
                grown_slots[:m] = out_slots[:m]
                grown_shared[:m] = out_shared[:m]
                grown_sims[:m] = out_sims[:m]
                out_slots = grown_slots
                out_shared = grown_shared
                out_sims = grown_sims
            out_slots[m] = s
            out_shared[m] = count[s]
            out_sims[m] = sim
            m += 1
        offsets[i + 1] = m
    return offsets, out_slots[:m].copy(), out_shared[:m].copy(), out_sims[:m].copy()


@njit(cache=True, nogil=True)
def bucket_sizes(table_head: I64, entry_next: I64, alive: B1, bands: int) -> I64:
    """The number of live documents in every non-empty bucket (for statistics)."""
    out = np.empty(table_head.shape[0], dtype=np.int64)
    m = 0
    for t in range(table_head.shape[0]):
        e = table_head[t]
        if e < 0:
            continue
        size = 0
        while e >= 0:
            if alive[e // bands]:
                size += 1
            e = entry_next[e]
        out[m] = size
        m += 1
    return out[:m].copy()

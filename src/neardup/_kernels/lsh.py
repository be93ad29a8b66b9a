"""The kernels of :class:`~neardup.lsh.LSHIndex`: its bucket table, bucket lookup and merge,
candidate counting and the similarity estimate of every candidate, a batch per call.

The band keys are those of :func:`neardup._kernels.minhash.band_keys` (band ``b``'s seed is
hashed into its key, so the keys of every band share ONE table; :func:`query` makes them
inline). The table is open addressing with linear probing over a power-of-two ``(T, 2)``
``uint64`` array: ``table[t, 0]`` holds a band key and ``table[t, 1]`` its bucket's newest
entry plus one (``0``: a free place), with the top bit :data:`MORE` set when the bucket holds
more than that entry, so the common bucket of one document costs one cache line. An entry is
one (document slot, band): entry ``e = slot · bands + band``, and ``entry_next[e]`` is the
entry added before it to the same bucket (``-1``: the last), so a bucket is a linked list
through ``entry_next`` and adding a document never moves anything. Removed documents stay in
their buckets, flagged dead in ``alive``, until the index is rebuilt (the caller does it when
the dead outnumber the live).

Every kernel is ``nogil``; none allocates per entry.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from neardup._kernels.minhash import agreeing, splitmix64

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
B1 = npt.NDArray[np.bool_]

_SHIFT = np.uint64(32)


#: The bit of ``table[t, 1]`` telling that the bucket holds more than its newest entry.
MORE = np.uint64(1 << 63)
_ENTRY = np.uint64((1 << 63) - 1)


@njit(cache=True, nogil=True, inline="always")
def _place(key: np.uint64, mask: int) -> int:
    """The first place to probe for a key (band keys are already mixed; the high half is
    folded in so tables smaller than 2^32 see every bit)."""
    return np.int64((key ^ (key >> _SHIFT)) & np.uint64(mask))


@njit(cache=True, nogil=True)
def table_insert(table: U64, entry_next: I64, keys: U64, slots: I64) -> int:
    """Add documents: row ``i`` of ``keys`` (``(n, bands)`` band keys) is document slot
    ``slots[i]``; its entries join the front of their buckets. Returns the number of buckets
    made (the caller keeps the table at most 3/4 full)."""
    mask = table.shape[0] - 1
    bands = keys.shape[1]
    made = 0
    for i in range(keys.shape[0]):
        base = slots[i] * bands
        for b in range(bands):
            key = keys[i, b]
            e = base + b
            t = _place(key, mask)
            while True:
                head = table[t, 1]
                if head == 0:
                    table[t, 0] = key
                    table[t, 1] = np.uint64(e + 1)
                    entry_next[e] = -1
                    made += 1
                    break
                if table[t, 0] == key:
                    entry_next[e] = np.int64(head & _ENTRY) - 1
                    table[t, 1] = np.uint64(e + 1) | MORE
                    break
                t = (t + 1) & mask
    return made


@njit(cache=True, nogil=True, inline="always")
def _find(table: U64, key: np.uint64) -> np.uint64:
    """A key's ``table[t, 1]`` (its newest entry plus one, with :data:`MORE`), or ``0``."""
    mask = table.shape[0] - 1
    t = _place(key, mask)
    while True:
        head = table[t, 1]
        if head == 0 or table[t, 0] == key:
            return head
        t = (t + 1) & mask


@njit(cache=True, nogil=True, inline="always")
def _band_key(
    signature: npt.NDArray[np.uint64], band: int, rows: int, seed: np.uint64
) -> np.uint64:
    """Band ``band``'s key, as :func:`neardup._kernels.minhash.band_keys` makes it."""
    h = seed
    base = band * rows
    for r in range(rows):
        h = splitmix64(h ^ np.uint64(signature[base + r]))
    return h


@njit(cache=True, nogil=True, inline="always")
def _meet(
    table: U64,
    entry_next: I64,
    alive: B1,
    query: npt.NDArray[np.uint64],
    band_seeds: U64,
    rows: int,
    scratch: npt.NDArray[np.int64],
    heads: U64,
    mark: int,
) -> int:
    """The live slots sharing a band key with ``query``, each once, into ``scratch[1]``;
    returns how many. ``scratch[0]`` marks the slots met with ``mark``, ``scratch[2]`` counts
    the bands each shares; ``heads`` (one place per band) is room for the probes' answers."""
    seen = scratch[0]
    met = scratch[1]
    shared = scratch[2]
    bands = band_seeds.shape[0]
    # every band's probe first, then the buckets: the probes do not wait on one another, so
    # their cache misses overlap
    for b in range(bands):
        heads[b] = _find(table, _band_key(query, b, rows, band_seeds[b]))
    found = 0
    for b in range(bands):
        head = heads[b]
        if head == 0:
            continue
        e = np.int64(head & _ENTRY) - 1
        while e >= 0:
            s = e // bands
            if alive[s]:
                if seen[s] != mark:
                    seen[s] = mark
                    shared[s] = 1
                    met[found] = s
                    found += 1
                else:
                    shared[s] += 1
            if head & MORE == 0:  # a bucket of one entry: entry_next is not read
                break
            e = entry_next[e]
    return found


@njit(cache=True, nogil=True, inline="always")
def _score(
    signatures: npt.NDArray[np.uint64],
    query: npt.NDArray[np.uint64],
    scratch: npt.NDArray[np.int64],
    found: int,
    exclude: int,
    min_bands: int,
    floor: int,
    empty: np.uint64,
    out: I64,
    m: int,
) -> int:
    """Append to ``out`` from ``m`` the codes of the ``found`` slots met (``scratch[1]``),
    but ``exclude``, that share at least ``min_bands`` bands and at least ``floor`` equal
    minhashes with the query, sorted; returns the new end. A code is ``(num_perm − equal) ·
    slots + slot``: one integer orders the results (fewer differing minhashes, then the lower
    slot)."""
    met = scratch[1]
    shared = scratch[2]
    num = query.shape[0]
    capacity = signatures.shape[0]
    first = m
    for j in range(found):
        s = met[j]
        if s == exclude or shared[s] < min_bands:
            continue
        same = agreeing(signatures[s], query, empty)
        if same < floor:
            continue
        out[m] = (num - same) * capacity + s
        m += 1
    if m - first > 1:
        out[first:m] = np.sort(out[first:m])
    return m


@njit(cache=True, nogil=True)
def query(
    table: U64,
    entry_next: I64,
    alive: B1,
    signatures: npt.NDArray[np.uint64],
    queries: npt.NDArray[np.uint64],
    band_seeds: U64,
    rows: int,
    exclude: I64,
    min_bands: int,
    min_same: int,
    empty: np.uint64,
    scratch: npt.NDArray[np.int64],
    stamp: int,
) -> tuple[I64, I64]:
    """Candidates of a batch of query signatures (rows of ``queries``): every live slot that
    shares at least ``min_bands`` band keys with query ``i`` (snapy's "sensitivity"; the keys
    made here, band ``b`` from ``band_seeds[b]`` and minhashes ``b·rows … b·rows + rows -
    1``), except slot ``exclude[i]``, and at least ``min_same`` (and at least one) minhashes;
    a signature whose every position is ``empty`` (an empty set's) agrees with none.

    ``scratch`` is a ``(4, slots)`` array the caller keeps between calls (so a query of one
    allocates nothing of the index's size): row 0 marks the slots query ``i`` meets with
    ``stamp + i`` (it must hold no value ≥ ``stamp``), row 1 lists them, row 2 counts their
    shared bands, row 3 is :func:`query_one`'s output.

    Returns ``(offsets, codes)`` in CSR form: query ``i``'s candidates are
    ``codes[offsets[i]:offsets[i+1]]``, best first, each ``(num_perm − equal minhashes) ·
    slots + slot``.
    """
    n = queries.shape[0]
    out = np.empty(64, dtype=np.int64)
    offsets = np.zeros(n + 1, dtype=np.int64)
    floor = max(1, min_same)
    heads = np.empty(band_seeds.shape[0], dtype=np.uint64)
    m = 0
    for i in range(n):
        found = _meet(
            table, entry_next, alive, queries[i], band_seeds, rows, scratch, heads, stamp + i
        )
        if m + found > out.shape[0]:
            grown = np.empty(max(2 * out.shape[0], m + found), dtype=np.int64)
            grown[:m] = out[:m]
            out = grown
        m = _score(
            signatures, queries[i], scratch, found, exclude[i], min_bands, floor, empty, out, m
        )
        offsets[i + 1] = m
    return offsets, out[:m].copy()


@njit(cache=True, nogil=True)
def query_one(
    table: U64,
    entry_next: I64,
    alive: B1,
    signatures: npt.NDArray[np.uint64],
    query: npt.NDArray[np.uint64],
    band_seeds: U64,
    rows: int,
    min_bands: int,
    min_same: int,
    empty: np.uint64,
    scratch: npt.NDArray[np.int64],
    stamp: int,
) -> int:
    """:func:`query` for one signature, into the caller's buffer: the codes are written to
    ``scratch[3, :count]`` and the count returned, so the call allocates nothing."""
    heads = np.empty(band_seeds.shape[0], dtype=np.uint64)
    found = _meet(table, entry_next, alive, query, band_seeds, rows, scratch, heads, stamp)
    floor = max(1, min_same)
    return _score(signatures, query, scratch, found, -1, min_bands, floor, empty, scratch[3], 0)


@njit(cache=True, nogil=True)
def bucket_sizes(table: U64, entry_next: I64, alive: B1, bands: int) -> I64:
    """The number of live documents in every non-empty bucket (for statistics)."""
    out = np.empty(table.shape[0], dtype=np.int64)
    m = 0
    for t in range(table.shape[0]):
        head = table[t, 1]
        if head == 0:
            continue
        e = np.int64(head & _ENTRY) - 1
        size = 0
        while e >= 0:
            if alive[e // bands]:
                size += 1
            e = entry_next[e]
        out[m] = size
        m += 1
    return out[:m].copy()

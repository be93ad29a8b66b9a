"""The kernels of :class:`~neardup.lsh.LSHIndex`: its bucket table, bucket lookup and merge,
candidate counting and the similarity estimate of every candidate, a batch per call.

The band keys are those of :func:`neardup._kernels.minhash.band_keys` (band ``b``'s seed is
hashed into its key, so the keys of every band share ONE table; the signature queries make
them inline). The table is open addressing with linear probing over a power-of-two ``uint64``
array: a place holds the high 32 bits of a band key (its tag) over its bucket's newest entry
plus one (``0``: a free place), with bit :data:`MORE` set when the bucket holds more than that
entry. The place probed first is given by the key's low 32 bits, so two keys meet in a place
only when all 64 bits agree but for the place's own bits beyond the table's mask: at the
sizes an index holds, about one query in 10⁸ meets a foreign bucket, whose documents the
similarity check drops. Eight bytes a place (the key itself is kept by document, for queries
by key and rebuilds) keep the table small, and the probes of one key stay in a cache line.

An entry is one (document slot, band): entry ``e = slot · bands + band``, and
``entry_next[e]`` is the entry added before it to the same bucket (``-1``: the last), so a
bucket is a linked list through ``entry_next`` and adding a document never moves anything.
Removed documents stay in their buckets, flagged dead in ``alive``, until the index is rebuilt
(the caller does it when the dead outnumber the live).

A candidate's similarity is estimated from the low 16 bits of every minhash (b-bit minwise
hashing, Li and König): the stored ``sketch`` is ``(slots, num_perm)`` ``uint16``, a quarter
of 64-bit signatures, and two different minhashes agree in their low 16 bits by chance with
probability 2⁻¹⁶, so the share of agreeing positions is the share of equal minhashes plus at
most ``(1 − s) / 65536`` on average.

``alive`` is ``0`` for a dead slot, ``1`` for a live one and :data:`EMPTY_SET` for a live
empty set's signature (every position the empty value), which agrees with nothing.

Every kernel is ``nogil``; none allocates per entry.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from neardup._kernels.minhash import splitmix64

U64 = npt.NDArray[np.uint64]
U16 = npt.NDArray[np.uint16]
U8 = npt.NDArray[np.uint8]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]

_TAG_SHIFT = np.uint64(32)
_LOW16 = np.uint64(0xFFFF)

#: The bit of a place telling that the bucket holds more than its newest entry.
MORE = np.uint64(1 << 31)
_ENTRY = np.uint64((1 << 31) - 1)
#: The most entries (documents × bands) a table can address.
MAX_ENTRIES = (1 << 31) - 2
#: ``alive`` of a live document whose signature is an empty set's.
EMPTY_SET = 2


@njit(cache=True, nogil=True, inline="always")
def _place(key: np.uint64, mask: int) -> int:
    """The first place to probe for a key: its low bits (band keys are already mixed)."""
    return np.int64(key & np.uint64(mask))


@njit(cache=True, nogil=True)
def table_insert(table: U64, entry_next: I32, keys: U64, slots: I64) -> int:
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
            tag = key >> _TAG_SHIFT << _TAG_SHIFT
            e = base + b
            t = _place(key, mask)
            while True:
                here = table[t]
                if here == 0:
                    table[t] = tag | np.uint64(e + 1)
                    entry_next[e] = -1
                    made += 1
                    break
                if here >> _TAG_SHIFT << _TAG_SHIFT == tag:
                    entry_next[e] = np.int32(np.int64(here & _ENTRY) - 1)
                    table[t] = tag | np.uint64(e + 1) | MORE
                    break
                t = (t + 1) & mask
    return made


@njit(cache=True, nogil=True, inline="always")
def _find(table: U64, key: np.uint64) -> np.uint64:
    """A key's place (its bucket's newest entry plus one, with :data:`MORE`), or ``0``."""
    mask = table.shape[0] - 1
    tag = key >> _TAG_SHIFT
    t = _place(key, mask)
    while True:
        here = table[t]
        if here == 0 or here >> _TAG_SHIFT == tag:
            return here
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
    entry_next: I32,
    alive: U8,
    heads: U64,
    scratch: npt.NDArray[np.int64],
    mark: int,
) -> int:
    """The live slots in the buckets ``heads`` (one table place per band, as :func:`_find`
    gives), each once, into ``scratch[1]``; returns how many. ``scratch[0]`` marks the slots
    met with ``mark``, ``scratch[2]`` counts the bands each shares."""
    seen = scratch[0]
    met = scratch[1]
    shared = scratch[2]
    bands = heads.shape[0]
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
            e = np.int64(entry_next[e])
    return found


@njit(cache=True, nogil=True, inline="always")
def _probe_signature(
    table: U64, query: npt.NDArray[np.uint64], band_seeds: U64, rows: int, heads: U64
) -> None:
    # every band's probe first, then the buckets: the probes do not wait on one another, so
    # their cache misses overlap
    for b in range(band_seeds.shape[0]):
        heads[b] = _find(table, _band_key(query, b, rows, band_seeds[b]))


@njit(cache=True, nogil=True, inline="always")
def _is_empty(query: npt.NDArray[np.uint64], empty: np.uint64) -> bool:
    for i in range(query.shape[0]):
        if np.uint64(query[i]) != empty:
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _score(
    sketch: U16,
    query: npt.NDArray[np.uint64],
    scratch: npt.NDArray[np.int64],
    found: int,
    exclude: int,
    min_bands: int,
    floor: int,
    out: I64,
    m: int,
) -> int:
    """Append to ``out`` from ``m`` the codes of the ``found`` slots met (``scratch[1]``),
    but ``exclude``, that share at least ``min_bands`` bands and at least ``floor`` minhashes
    (their low 16 bits) with the query, sorted; returns the new end. A code is ``(num_perm −
    equal) · slots + slot``: one integer orders the results (fewer differing minhashes, then
    the lower slot)."""
    met = scratch[1]
    shared = scratch[2]
    num = query.shape[0]
    capacity = sketch.shape[0]
    first = m
    for j in range(found):
        s = met[j]
        if s == exclude or shared[s] < min_bands:
            continue
        row = sketch[s]
        same = 0
        for i in range(num):
            if np.uint64(row[i]) == np.uint64(query[i]) & _LOW16:
                same += 1
        if same < floor:
            continue
        out[m] = (num - same) * capacity + s
        m += 1
    if m - first > 1:
        out[first:m] = np.sort(out[first:m])
    return m


@njit(cache=True, nogil=True, inline="always")
def _grow(out: I64, m: int, found: int) -> I64:
    if m + found <= out.shape[0]:
        return out
    grown = np.empty(max(2 * out.shape[0], m + found), dtype=np.int64)
    grown[:m] = out[:m]
    return grown


@njit(cache=True, nogil=True)
def query(
    table: U64,
    entry_next: I32,
    alive: U8,
    sketch: U16,
    queries: npt.NDArray[np.uint64],
    band_seeds: U64,
    rows: int,
    min_bands: int,
    min_same: int,
    empty: np.uint64,
    scratch: npt.NDArray[np.int64],
    stamp: int,
) -> tuple[I64, I64]:
    """Candidates of a batch of query signatures (rows of ``queries``): every live slot that
    shares at least ``min_bands`` band keys with query ``i`` (snapy's "sensitivity"; the keys
    made here, band ``b`` from ``band_seeds[b]`` and minhashes ``b·rows … b·rows + rows -
    1``) and at least ``min_same`` (and at least one) minhashes; a signature whose every
    position is ``empty`` (an empty set's) agrees with none.

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
        q = queries[i]
        if not _is_empty(q, empty):
            _probe_signature(table, q, band_seeds, rows, heads)
            found = _meet(table, entry_next, alive, heads, scratch, stamp + i)
            out = _grow(out, m, found)
            m = _score(sketch, q, scratch, found, -1, min_bands, floor, out, m)
        offsets[i + 1] = m
    return offsets, out[:m].copy()


@njit(cache=True, nogil=True)
def query_one(
    table: U64,
    entry_next: I32,
    alive: U8,
    sketch: U16,
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
    if _is_empty(query, empty):
        return 0
    heads = np.empty(band_seeds.shape[0], dtype=np.uint64)
    _probe_signature(table, query, band_seeds, rows, heads)
    found = _meet(table, entry_next, alive, heads, scratch, stamp)
    floor = max(1, min_same)
    return _score(sketch, query, scratch, found, -1, min_bands, floor, scratch[3], 0)


@njit(cache=True, nogil=True)
def query_slots(
    table: U64,
    entry_next: I32,
    alive: U8,
    sketch: U16,
    keys: U64,
    slots: I64,
    min_bands: int,
    min_same: int,
    scratch: npt.NDArray[np.int64],
    stamp: int,
) -> tuple[I64, I64]:
    """:func:`query` for stored documents (each left out of its own candidates): their band
    keys are ``keys[slot]`` and their minhashes' low bits ``sketch[slot]``."""
    n = slots.shape[0]
    bands = keys.shape[1]
    out = np.empty(64, dtype=np.int64)
    offsets = np.zeros(n + 1, dtype=np.int64)
    floor = max(1, min_same)
    heads = np.empty(bands, dtype=np.uint64)
    m = 0
    for i in range(n):
        s = slots[i]
        if alive[s] != EMPTY_SET:
            for b in range(bands):
                heads[b] = _find(table, keys[s, b])
            found = _meet(table, entry_next, alive, heads, scratch, stamp + i)
            out = _grow(out, m, found)
            m = _score(sketch, sketch[s], scratch, found, s, min_bands, floor, out, m)
        offsets[i + 1] = m
    return offsets, out[:m].copy()


@njit(cache=True, nogil=True)
def bucket_sizes(table: U64, entry_next: I32, alive: U8, bands: int) -> I64:
    """The number of live documents in every non-empty bucket (for statistics)."""
    out = np.empty(table.shape[0], dtype=np.int64)
    m = 0
    for t in range(table.shape[0]):
        here = table[t]
        if here == 0:
            continue
        e = np.int64(here & _ENTRY) - 1
        size = 0
        while e >= 0:
            if alive[e // bands]:
                size += 1
            if here & MORE == 0:
                break
            e = np.int64(entry_next[e])
        out[m] = size
        m += 1
    return out[:m].copy()

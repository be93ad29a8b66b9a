"""Token filters compiled into kernels: each token's form looked up in a static table of the
dictionary's forms and in an in-process table of the forms met before, and the canonical
stream written from what they hold, with no Python per token.

A form is named by two 64-bit hashes of its UTF-8 bytes (:func:`form_hashes`): ``h1`` places
it (a sorted array with a bucket index for the static table, open addressing for the growing
one) and ``h2`` must match too, so an unknown token is taken for a known form only if both
agree (about ``n / 2**128`` per token for ``n`` forms; the builder refuses a table where two
forms share both).

The static table is one flat ``uint64`` array of records, two words per form, so a probe
reads one cache line: ``h1``, then the top 32 bits of ``h2`` over the form's term id (its lemma)
in the low 32 bits. A chain's decision to drop a form is one bit per form (``drop_bits``, a few
hundred KB that stay in cache).

A token's *code* after :func:`resolve`: ``s >= 0`` is term ``s`` of the static table, ``DROP``
(-2) a token dropped, ``-3 - r`` result ``r`` of the in-process table, ``MISS`` (-1) not known
yet, ``SELF`` a token that is its own term (a form of ASCII lowercase letters and digits
under a chain whose rule for them is that, see :mod:`neardup.analysis.compiled`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

U8 = npt.NDArray[np.uint8]
U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

MISS = -1
DROP = -2
SELF = -(2**62)
EMPTY_SLOT = -1
_LOW32 = np.uint64(0xFFFFFFFF)
_HIGH32 = np.uint64(0xFFFFFFFF00000000)

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_POLY_SEED = np.uint64(0x243F6A8885A308D3)
_POLY_MULT = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True)
def _mix(x: np.uint64, c: np.uint64) -> np.uint64:
    # splitmix64's finalizer with the first multiplier chosen per hash
    x = (x ^ (x >> np.uint64(30))) * c
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, nogil=True)
def hash_pair(buf: U8, start: int, end: int) -> tuple[np.uint64, np.uint64]:
    """``(h1, h2)`` of ``buf[start:end]``: FNV-1a and a multiplicative polynomial hash, each
    finished by a different splitmix64 mix; both depend on every byte and on the length."""
    h1 = _FNV_OFFSET
    h2 = _POLY_SEED ^ np.uint64(end - start)
    for i in range(start, end):
        b = np.uint64(buf[i])
        h1 = (h1 ^ b) * _FNV_PRIME
        h2 = (h2 + b + np.uint64(1)) * _POLY_MULT
    return _mix(h1, np.uint64(0xBF58476D1CE4E5B9)), _mix(h2, np.uint64(0xD6E8FEB86659FD93))


@njit(cache=True, nogil=True)
def form_hashes(buf: U8, starts: I64, ends: I64) -> tuple[U64, U64]:
    """:func:`hash_pair` of every token ``buf[starts[t]:ends[t]]``."""
    n = starts.shape[0]
    h1 = np.empty(n, dtype=np.uint64)
    h2 = np.empty(n, dtype=np.uint64)
    for t in range(n):
        a, b = hash_pair(buf, starts[t], ends[t])
        h1[t] = a
        h2[t] = b
    return h1, h2


@njit(cache=True, nogil=True)
def bucket_starts(hashes: U64, bits: int) -> npt.NDArray[np.int32]:
    """For sorted ``hashes``: where each of the ``2**bits`` buckets (the top ``bits`` bits)
    starts, and the end of the last one."""
    count = 1 << bits
    shift = np.uint64(64 - bits)
    out = np.empty(count + 1, dtype=np.int32)
    j = 0
    n = hashes.shape[0]
    for b in range(count):
        while j < n and (hashes[j] >> shift) < np.uint64(b):
            j += 1
        out[b] = j
    out[count] = n
    return out


@njit(cache=True, nogil=True)
def static_find(
    h1: np.uint64, h2: np.uint64, buckets: npt.NDArray[np.int32], bits: int, records: U64
) -> int:
    """The entry of the form hashed ``(h1, h2)`` in a static table, or ``MISS``."""
    b = h1 >> np.uint64(64 - bits)
    high = h2 & _HIGH32
    for j in range(buckets[b], buckets[b + 1]):
        if records[2 * j] == h1 and (records[2 * j + 1] & _HIGH32) == high:
            return j
    return MISS


@njit(cache=True, nogil=True)
def find_entries(h1: U64, h2: U64, buckets: npt.NDArray[np.int32], bits: int, records: U64) -> I64:
    """:func:`static_find` of every form."""
    out = np.empty(h1.shape[0], dtype=np.int64)
    for t in range(h1.shape[0]):
        out[t] = static_find(h1[t], h2[t], buckets, bits, records)
    return out


@njit(cache=True, nogil=True)
def overlay_find(
    h1: np.uint64, h2: np.uint64, keys1: U64, keys2: U64, values: I64, known: int
) -> int:
    """The result stored for ``(h1, h2)`` in an open-addressing table, or ``MISS``; a result
    numbered ``known`` or above counts as ``MISS`` (stored after the caller's snapshot of the
    table: a thread may be adding it, see :mod:`neardup.analysis.compiled`)."""
    mask = np.uint64(keys1.shape[0] - 1)
    slot = h1 & mask
    while True:
        value = values[slot]
        if value == EMPTY_SLOT:
            return MISS
        if keys1[slot] == h1 and keys2[slot] == h2:
            return value if value < known else MISS
        slot = (slot + np.uint64(1)) & mask


@njit(cache=True, nogil=True)
def overlay_insert(
    keys1: U64, keys2: U64, values: I64, new1: U64, new2: U64, new_values: I64
) -> None:
    """Store ``new_values[i]`` under ``(new1[i], new2[i])`` unless that key holds a result
    already (the same form learned twice gives the same result; a slot, once written, never
    changes, so a thread reading the table meanwhile sees a key with its result or an empty
    slot). The caller keeps the load under one half, so a free slot is always found."""
    mask = np.uint64(keys1.shape[0] - 1)
    for i in range(new1.shape[0]):
        slot = new1[i] & mask
        while values[slot] != EMPTY_SLOT:
            if keys1[slot] == new1[i] and keys2[slot] == new2[i]:
                break
            slot = (slot + np.uint64(1)) & mask
        if values[slot] != EMPTY_SLOT:
            continue
        keys1[slot] = new1[i]
        keys2[slot] = new2[i]
        values[slot] = new_values[i]


@njit(cache=True, nogil=True)
def resolve(
    h1: U64,
    h2: U64,
    codes: I64,
    use_static: bool,
    buckets: npt.NDArray[np.int32],
    bits: int,
    records: U64,
    drop_bits: U8,
    keys1: U64,
    keys2: U64,
    values: I64,
    known: int,
    rule_forms: bool,
    buf: U8,
    byte_starts: I64,
    byte_ends: I64,
) -> int:
    """Fill ``codes`` for every token whose code is ``MISS`` (all of them on the first call):
    the static table first (when ``use_static``; ``drop_bits`` bit ``e`` set drops entry
    ``e``), then (when ``rule_forms``) ``SELF`` for a token ``buf[byte_starts[t]:byte_ends[t]]``
    of ASCII lowercase letters and digits only, then the in-process table's first ``known``
    results. Returns how many are still ``MISS``."""
    misses = 0
    for t in range(h1.shape[0]):
        if codes[t] != MISS:
            continue
        code = MISS
        if use_static:
            e = static_find(h1[t], h2[t], buckets, bits, records)
            if e != MISS:
                if (drop_bits[e >> 3] >> (e & 7)) & 1:
                    code = DROP
                else:
                    code = np.int64(records[2 * e + 1] & _LOW32)
        if code == MISS and rule_forms and byte_ends[t] > byte_starts[t]:
            ascii_word = True
            for i in range(byte_starts[t], byte_ends[t]):
                b = buf[i]
                if not ((b >= 97 and b <= 122) or (b >= 48 and b <= 57)):
                    ascii_word = False
                    break
            if ascii_word:
                code = SELF
        if code == MISS:
            r = overlay_find(h1[t], h2[t], keys1, keys2, values, known)
            if r != MISS:
                code = -3 - r
        if code == MISS:
            misses += 1
        codes[t] = code
    return misses


@njit(cache=True, nogil=True)
def first_misses(h1: U64, h2: U64, codes: I64) -> I64:
    """The tokens whose code is ``MISS`` and whose form has not missed earlier in the list:
    one token per distinct unknown form, in order of first appearance."""
    n = h1.shape[0]
    count = 0
    for t in range(n):
        if codes[t] == MISS:
            count += 1
    size = 4
    while size < 2 * count + 2:
        size *= 2
    seen1 = np.zeros(size, dtype=np.uint64)
    seen2 = np.zeros(size, dtype=np.uint64)
    used = np.zeros(size, dtype=np.bool_)
    out = np.empty(count, dtype=np.int64)
    k = 0
    mask = np.uint64(size - 1)
    for t in range(n):
        if codes[t] != MISS:
            continue
        slot = h1[t] & mask
        fresh = True
        while used[slot]:
            if seen1[slot] == h1[t] and seen2[slot] == h2[t]:
                fresh = False
                break
            slot = (slot + np.uint64(1)) & mask
        if fresh:
            used[slot] = True
            seen1[slot] = h1[t]
            seen2[slot] = h2[t]
            out[k] = t
            k += 1
    return out[:k]


@njit(cache=True, nogil=True)
def emit(
    codes: I64,
    starts: I64,
    ends: I64,
    term_offsets: I64,
    term_bytes: U8,
    result_offsets: I64,
    result_bytes: U8,
    buf_in: U8,
    token_starts: I64,
    token_ends: I64,
) -> tuple[U8, I64, I64, I64, I64]:
    """The canonical stream of resolved tokens: a code ``s >= 0`` is written as static term
    ``s`` (``term_bytes`` between ``term_offsets[s]`` and ``[s + 1]``), ``DROP`` is dropped,
    ``-3 - r`` is in-process result ``r`` (``result_bytes`` between ``result_offsets[r]``
    and ``[r + 1]``), dropped when empty, ``SELF`` is the token itself (``buf_in`` between
    ``token_starts[t]`` and ``token_ends[t]``). Terms are joined by single spaces; returns the
    buffer, the terms' byte spans and the kept tokens' character spans.

    Each token's bytes are located once (no array is passed around per token: a numba array
    value costs two atomic reference-count updates, which threads sharing the tables would
    fight over)."""
    n = codes.shape[0]
    # per token: where its bytes are (0: static terms, 1: the token itself, 2: results;
    # -1: dropped) and their span there
    source = np.empty(n, dtype=np.int8)
    first = np.empty(n, dtype=np.int64)
    last = np.empty(n, dtype=np.int64)
    size = 0
    kept = 0
    for t in range(n):
        c = codes[t]
        if c >= 0:
            source[t] = 0
            first[t] = term_offsets[c]
            last[t] = term_offsets[c + 1]
        elif c == SELF:
            source[t] = 1
            first[t] = token_starts[t]
            last[t] = token_ends[t]
        elif c == DROP:
            source[t] = -1
            continue
        else:
            r = -3 - c
            first[t] = result_offsets[r]
            last[t] = result_offsets[r + 1]
            if first[t] == last[t]:  # the filters dropped it
                source[t] = -1
                continue
            source[t] = 2
        size += last[t] - first[t]
        kept += 1
    if kept > 0:
        size += kept - 1
    buf = np.empty(size, dtype=np.uint8)
    byte_starts = np.empty(kept, dtype=np.int64)
    byte_ends = np.empty(kept, dtype=np.int64)
    out_starts = np.empty(kept, dtype=np.int64)
    out_ends = np.empty(kept, dtype=np.int64)
    pos = 0
    k = 0
    for t in range(n):
        where = source[t]
        if where < 0:
            continue
        if k > 0:
            buf[pos] = 32
            pos += 1
        byte_starts[k] = pos
        a = first[t]
        b = last[t]
        if where == 0:
            for i in range(a, b):
                buf[pos] = term_bytes[i]
                pos += 1
        elif where == 1:
            for i in range(a, b):
                buf[pos] = buf_in[i]
                pos += 1
        else:
            for i in range(a, b):
                buf[pos] = result_bytes[i]
                pos += 1
        byte_ends[k] = pos
        out_starts[k] = starts[t]
        out_ends[k] = ends[t]
        k += 1
    return buf, byte_starts, byte_ends, out_starts, out_ends

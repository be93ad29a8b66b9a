"""Token filters compiled into kernels: each token's form looked up in a static table of the
dictionary's forms and in an in-process table of the forms met before, and the canonical
stream written from what they hold, with no Python per token.

A form is named by two 64-bit hashes of its UTF-8 bytes (:func:`form_hashes`): ``h1`` places
it (a sorted array with a bucket index for the static table, open addressing for the growing
one) and ``h2`` must match too, so an unknown token is taken for a known form only if both
agree (about ``n / 2**128`` per token for ``n`` forms; the builder refuses a table where two
forms share both).

A token's *code* after :func:`resolve`: ``e >= 0`` is entry ``e`` of the static table, ``-2 -
r`` is result ``r`` of the in-process table, ``MISS`` (-1) is not known yet.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

U8 = npt.NDArray[np.uint8]
U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

MISS = -1
EMPTY_SLOT = -1

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
    h1: np.uint64,
    h2: np.uint64,
    buckets: npt.NDArray[np.int32],
    bits: int,
    hashes: U64,
    checks: U64,
) -> int:
    """The entry of the form hashed ``(h1, h2)`` in a static table, or ``MISS``."""
    b = h1 >> np.uint64(64 - bits)
    for j in range(buckets[b], buckets[b + 1]):
        if hashes[j] == h1 and checks[j] == h2:
            return j
    return MISS


@njit(cache=True, nogil=True)
def overlay_find(h1: np.uint64, h2: np.uint64, keys1: U64, keys2: U64, values: I64) -> int:
    """The result stored for ``(h1, h2)`` in an open-addressing table, or ``MISS``."""
    mask = np.uint64(keys1.shape[0] - 1)
    slot = h1 & mask
    while True:
        value = values[slot]
        if value == EMPTY_SLOT:
            return MISS
        if keys1[slot] == h1 and keys2[slot] == h2:
            return value
        slot = (slot + np.uint64(1)) & mask


@njit(cache=True, nogil=True)
def overlay_insert(
    keys1: U64, keys2: U64, values: I64, new1: U64, new2: U64, new_values: I64
) -> None:
    """Store ``new_values[i]`` under ``(new1[i], new2[i])`` (the caller keeps the load under
    one half, so a free slot is always found)."""
    mask = np.uint64(keys1.shape[0] - 1)
    for i in range(new1.shape[0]):
        slot = new1[i] & mask
        while values[slot] != EMPTY_SLOT and not (
            keys1[slot] == new1[i] and keys2[slot] == new2[i]
        ):
            slot = (slot + np.uint64(1)) & mask
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
    hashes: U64,
    checks: U64,
    keys1: U64,
    keys2: U64,
    values: I64,
) -> int:
    """Fill ``codes`` for every token whose code is ``MISS`` (all of them on the first call):
    the static table first (when ``use_static``), then the in-process one. Returns how many
    are still ``MISS``."""
    misses = 0
    for t in range(h1.shape[0]):
        if codes[t] != MISS:
            continue
        code = MISS
        if use_static:
            code = static_find(h1[t], h2[t], buckets, bits, hashes, checks)
        if code == MISS:
            r = overlay_find(h1[t], h2[t], keys1, keys2, values)
            if r != MISS:
                code = -2 - r
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
    static_drop: npt.NDArray[np.bool_],
    static_terms: npt.NDArray[np.int32],
    term_offsets: I64,
    term_bytes: U8,
    result_offsets: I64,
    result_bytes: U8,
) -> tuple[U8, I64, I64, I64, I64]:
    """The canonical stream of resolved tokens: a static entry ``e`` is dropped when
    ``static_drop[e]``, else written as term ``static_terms[e]`` (``term_bytes`` between
    ``term_offsets``); an in-process result ``r`` is ``result_bytes`` between
    ``result_offsets[r]`` and ``[r + 1]``, dropped when empty. Terms are joined by single
    spaces; returns the buffer, the terms' byte spans and the kept tokens' character spans."""
    n = codes.shape[0]
    size = 0
    kept = 0
    for t in range(n):
        c = codes[t]
        if c >= 0:
            if static_drop[c]:
                continue
            s = static_terms[c]
            length = term_offsets[s + 1] - term_offsets[s]
        else:
            r = -2 - c
            length = result_offsets[r + 1] - result_offsets[r]
            if length == 0:
                continue
        size += length
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
        c = codes[t]
        if c >= 0:
            if static_drop[c]:
                continue
            if k > 0:
                buf[pos] = 32
                pos += 1
            byte_starts[k] = pos
            s = static_terms[c]
            for i in range(term_offsets[s], term_offsets[s + 1]):
                buf[pos] = term_bytes[i]
                pos += 1
        else:
            r = -2 - c
            if result_offsets[r] == result_offsets[r + 1]:
                continue
            if k > 0:
                buf[pos] = 32
                pos += 1
            byte_starts[k] = pos
            for i in range(result_offsets[r], result_offsets[r + 1]):
                buf[pos] = result_bytes[i]
                pos += 1
        byte_ends[k] = pos
        out_starts[k] = starts[t]
        out_ends[k] = ends[t]
        k += 1
    return buf, byte_starts, byte_ends, out_starts, out_ends

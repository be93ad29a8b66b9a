"""Hash kernels over byte spans of the canonical stream.

Every kernel takes the canonical bytes (tokens joined by single spaces, UTF-8) and the spans
to hash, and returns one ``uint64`` per span. All arithmetic is on ``np.uint64``; products of
two 64-bit numbers are formed from 32-bit halves, since numba has no 128-bit integer.

Rabin–Karp: ``RK(b_0..b_{n-1}) = sum(b_i * B^(n-1-i)) mod p`` with ``p = 2^w - c`` the largest
prime below ``2^w`` and the base ``B`` drawn from the seed. For word shingles it rolls: the next
shingle's value comes from the previous one by taking out the leading words and appending the
next ones, so each byte is touched a bounded number of times whatever the shingle length.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]

_MASK32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)


@njit(cache=True, nogil=True)
def mul128(a: np.uint64, b: np.uint64) -> tuple[np.uint64, np.uint64]:
    """The full 128-bit product ``a * b`` as ``(high, low)`` 64-bit halves."""
    a_lo = a & _MASK32
    a_hi = a >> _SHIFT32
    b_lo = b & _MASK32
    b_hi = b >> _SHIFT32
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    hi_hi = a_hi * b_hi
    cross = (lo_lo >> _SHIFT32) + (hi_lo & _MASK32) + lo_hi
    high = (hi_lo >> _SHIFT32) + (cross >> _SHIFT32) + hi_hi
    low = (cross << _SHIFT32) | (lo_lo & _MASK32)
    return high, low


@njit(cache=True, nogil=True)
def reduce128(high: np.uint64, low: np.uint64, bits: int, c: np.uint64) -> np.uint64:
    """``(high * 2^64 + low) mod (2^bits - c)`` for a value below ``2^(bits + 64)``."""
    p = (np.uint64(1) << np.uint64(bits)) - c if bits < 64 else np.uint64(0) - c
    while True:
        if bits == 64:
            top = high
            rest = low
        else:
            top = (high << np.uint64(64 - bits)) | (low >> np.uint64(bits))
            rest = low & ((np.uint64(1) << np.uint64(bits)) - np.uint64(1))
        if top == 0:
            break
        # x = top * 2^bits + rest = top * c + rest (mod p)
        high, low = mul128(top, c)
        new_low = low + rest
        if new_low < low:
            high += np.uint64(1)
        low = new_low
    while low >= p:
        low -= p
    return low


@njit(cache=True, nogil=True)
def mulmod(a: np.uint64, b: np.uint64, bits: int, c: np.uint64) -> np.uint64:
    high, low = mul128(a, b)
    return reduce128(high, low, bits, c)


@njit(cache=True, nogil=True)
def addmod(a: np.uint64, b: np.uint64, p: np.uint64) -> np.uint64:
    """``(a + b) mod p`` for ``a, b < p``, safe when ``p`` is close to ``2^64``."""
    if a >= p - b:
        return a - (p - b)
    return a + b


@njit(cache=True, nogil=True)
def submod(a: np.uint64, b: np.uint64, p: np.uint64) -> np.uint64:
    if a >= b:
        return a - b
    return p - (b - a)


@njit(cache=True, nogil=True)
def _powers(base: np.uint64, count: int, bits: int, c: np.uint64) -> U64:
    out = np.empty(count + 1, dtype=np.uint64)
    out[0] = np.uint64(1)
    for i in range(1, count + 1):
        out[i] = mulmod(out[i - 1], base, bits, c)
    return out


@njit(cache=True, nogil=True)
def _rk_bytes(buf: U8, start: int, end: int, base: np.uint64, bits: int, c: np.uint64) -> np.uint64:
    p = (np.uint64(1) << np.uint64(bits)) - c if bits < 64 else np.uint64(0) - c
    h = np.uint64(0)
    for i in range(start, end):
        h = addmod(mulmod(h, base, bits, c), np.uint64(buf[i]), p)
    return h


@njit(cache=True, nogil=True)
def rabin_spans(
    buf: U8, starts: I64, ends: I64, base: np.uint64, bits: int, c: np.uint64
) -> U64:
    """Rabin–Karp of each byte span, computed from scratch (char n-grams, any spans)."""
    out = np.empty(starts.shape[0], dtype=np.uint64)
    for i in range(starts.shape[0]):
        out[i] = _rk_bytes(buf, starts[i], ends[i], base, bits, c)
    return out


@njit(cache=True, nogil=True)
def rabin_word_shingles(
    buf: U8,
    byte_starts: I64,
    byte_ends: I64,
    first_tokens: I64,
    k: int,
    base: np.uint64,
    bits: int,
    c: np.uint64,
) -> U64:
    """Rabin–Karp of word shingles ``tokens[f .. f+k-1]`` for each ``f`` in ``first_tokens``.

    ``first_tokens`` ascends. Where the next shingle overlaps the current one, its value rolls
    from the current one: the leading words are taken out (``H - RK(lead) * B^len(rest)``) and
    the new words appended (``H * B^(1+len(word)) + RK(" " word)``).
    """
    p = (np.uint64(1) << np.uint64(bits)) - c if bits < 64 else np.uint64(0) - c
    m = first_tokens.shape[0]
    out = np.empty(m, dtype=np.uint64)
    if m == 0:
        return out
    n_tok = byte_starts.shape[0]
    token_hash = np.empty(n_tok, dtype=np.uint64)
    longest = 0
    for t in range(n_tok):
        token_hash[t] = _rk_bytes(buf, byte_starts[t], byte_ends[t], base, bits, c)
    for j in range(m):
        last = min(first_tokens[j] + k, n_tok) - 1
        span = byte_ends[last] - byte_starts[first_tokens[j]]
        if span > longest:
            longest = span
    power = _powers(base, longest + 1, bits, c)
    space = np.uint64(32)

    cur_first = -1
    cur_last = -1
    h = np.uint64(0)
    for j in range(m):
        first = first_tokens[j]
        last = min(first + k, n_tok) - 1
        if cur_first < 0 or first > cur_last:
            h = token_hash[first]
            for t in range(first + 1, last + 1):
                length = byte_ends[t] - byte_starts[t]
                h = mulmod(h, power[1 + length], bits, c)
                h = addmod(h, addmod(mulmod(space, power[length], bits, c), token_hash[t], p), p)
        else:
            # take out tokens cur_first .. first-1 together with the space after each
            for t in range(cur_first, first):
                rest = byte_ends[cur_last] - byte_ends[t] - 1
                lead = addmod(mulmod(token_hash[t], base, bits, c), space, p)
                h = submod(h, mulmod(lead, power[rest], bits, c), p)
            for t in range(cur_last + 1, last + 1):
                length = byte_ends[t] - byte_starts[t]
                h = mulmod(h, power[1 + length], bits, c)
                h = addmod(h, addmod(mulmod(space, power[length], bits, c), token_hash[t], p), p)
        cur_first = first
        cur_last = last
        out[j] = h
    return out


def _crc_table(poly: int, width: int) -> npt.NDArray[np.uint64]:
    """The byte table of a reflected CRC with the given (reflected) polynomial."""
    table = np.zeros(256, dtype=np.uint64)
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
        table[byte] = crc & ((1 << width) - 1)
    return table


CRC32_TABLE = _crc_table(0xEDB88320, 32)  # CRC-32/ISO-HDLC, as zlib.crc32
CRC64_TABLE = _crc_table(0xC96C5795D7870F42, 64)  # CRC-64/XZ (ECMA-182 polynomial, reflected)


@njit(cache=True, nogil=True)
def crc_spans(buf: U8, starts: I64, ends: I64, table: npt.NDArray[np.uint64], width: int) -> U64:
    """A reflected CRC with all-ones init and final xor of each span (CRC-32, CRC-64/XZ)."""
    mask = np.uint64(0xFFFFFFFF) if width == 32 else np.uint64(0xFFFFFFFFFFFFFFFF)
    out = np.empty(starts.shape[0], dtype=np.uint64)
    eight = np.uint64(8)
    for i in range(starts.shape[0]):
        crc = mask
        for j in range(starts[i], ends[i]):
            crc = table[(crc ^ np.uint64(buf[j])) & np.uint64(0xFF)] ^ (crc >> eight)
        out[i] = crc ^ mask
    return out

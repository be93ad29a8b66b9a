"""Hash kernels over byte spans of the canonical stream.

Every kernel takes the canonical bytes (tokens joined by single spaces, UTF-8) and the spans
to hash, and returns one ``uint64`` per span. All arithmetic is on ``np.uint64``; products of
two 64-bit numbers are formed from 32-bit halves, since numba has no 128-bit integer.

Rabin–Karp: ``RK(b_0..b_{n-1}) = sum(b_i * B^(n-1-i)) mod p`` with ``p = 2^w - c`` the largest
prime below ``2^w`` and the base ``B`` drawn from the seed.

RK is linear in the bytes, so the hash of a short byte string is a sum of table entries: with
``T[j, b] = b * B^j mod p`` (:func:`rabin_table`, ``RK_TABLE_ROWS`` rows, 128 KB per family),
``RK(b_0..b_{n-1}) = sum(T[n-1-i, b_i])`` — one table load and one modular addition per byte
instead of a 64×64→128-bit product and its reduction. Longer strings go by chunks of
``RK_TABLE_ROWS`` bytes, one product per chunk (``RK(X Y) = RK(X) * B^len(Y) + RK(Y)``).

Word shingles (:func:`rabin_word_shingles_table`) come from prefix values of the stream of
tokens joined by single spaces, ``P_t = RK(tok_0 " " … " " tok_t)``: each token adds one product
(``P_t = P_(t-1) * B^(1+len) + 32 * B^len + RK(tok_t)``) and each shingle takes one more
(``RK(tok_f … tok_l) = P_l - P_(f-1) * B^(len+1) - 32 * B^len``). Every value is reduced into
``[0, p)``, so the results equal the definition exactly, whatever the order of operations.
:func:`rabin_spans` and :func:`rabin_word_shingles` are the byte-by-byte forms, kept as the
reference the table kernels are tested against.
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
    """``a * b mod p`` for ``a, b < p = 2^bits - c``."""
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
def rabin_spans(buf: U8, starts: I64, ends: I64, base: np.uint64, bits: int, c: np.uint64) -> U64:
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
        longest = max(longest, span)
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


#: Rows of the Rabin–Karp byte table: byte strings up to this length hash by table lookups alone.
RK_TABLE_ROWS = 64
#: Entries of the precomputed power tables (``B^x`` and ``32 * B^x`` for ``x < RK_POWERS``).
RK_POWERS = 1024


@njit(cache=True, nogil=True)
def rabin_table(base: np.uint64, bits: int, c: np.uint64) -> U64:
    """``T[j, b] = b * B^j mod p`` for ``j < RK_TABLE_ROWS`` and every byte value ``b``, flat:
    entry ``j * 256 + b``."""
    power = _powers(base, RK_TABLE_ROWS, bits, c)
    table = np.empty(RK_TABLE_ROWS * 256, dtype=np.uint64)
    for j in range(RK_TABLE_ROWS):
        for b in range(256):
            table[j * 256 + b] = mulmod(np.uint64(b), power[j], bits, c)
    return table


@njit(cache=True, nogil=True)
def rabin_powers(base: np.uint64, count: int, bits: int, c: np.uint64) -> tuple[U64, U64]:
    """``(B^x mod p, 32 * B^x mod p)`` for ``x < count``: the powers a shingle's value needs."""
    power = _powers(base, count - 1, bits, c)
    space = np.empty(count, dtype=np.uint64)
    for x in range(count):
        space[x] = mulmod(np.uint64(32), power[x], bits, c)
    return power, space


@njit(cache=True, nogil=True)
def _reduce_sum(high: np.uint64, low: np.uint64, bits: int, c: np.uint64) -> np.uint64:
    """``(high * 2^64 + low) mod p`` for a sum of at most ``RK_TABLE_ROWS`` values below
    ``2^64`` (so ``high < 64``): a few additions, where :func:`reduce128` multiplies."""
    if bits == 64:
        t = high * c
        low += t
        if low < t:  # wrapped past 2^64 = c (mod p): low is small now
            low += c
        p = np.uint64(0) - c
        if low >= p:
            low -= p
        return low
    if high != 0:
        return reduce128(high, low, bits, c)
    p = (np.uint64(1) << np.uint64(bits)) - c
    mask = (np.uint64(1) << np.uint64(bits)) - np.uint64(1)
    top = low >> np.uint64(bits)
    while top != 0:  # top * c < 2^(64 - bits) * 2^bits: no overflow
        low = top * c + (low & mask)
        top = low >> np.uint64(bits)
    while low >= p:
        low -= p
    return low


@njit(cache=True, nogil=True)
def _table_sum(buf: U8, start: int, end: int, table: U64, bits: int, c: np.uint64) -> np.uint64:
    """``RK(buf[start:end]) = sum(T[j, buf[end-1-j]]) mod p`` for ``end - start <=
    RK_TABLE_ROWS``; ``table`` is the flat ``(RK_TABLE_ROWS * 256,)`` view. Summed into a
    (high, low) pair without a branch per byte (a data-dependent ``if`` mispredicts),
    reduced once."""
    low = np.uint64(0)
    high = np.uint64(0)
    row = 0
    last = end - 1
    for i in range(end - start):
        v = table[row + buf[last - i]]
        row += 256
        low += v
        high += np.uint64(low < v)
    return _reduce_sum(high, low, bits, c)


@njit(cache=True, nogil=True)
def _rk_long(
    buf: U8,
    start: int,
    end: int,
    table: U64,
    power_rows: np.uint64,
    bits: int,
    c: np.uint64,
    p: np.uint64,
) -> np.uint64:
    """RK of ``buf[start:end]`` by table lookups (``table`` flat) for spans longer than
    ``RK_TABLE_ROWS``, by chunks of that many bytes; ``power_rows`` is ``B^RK_TABLE_ROWS mod
    p``. (Callers test the length and call :func:`_table_sum` themselves for short spans: kept
    apart, the short path stays small enough for the compiler to inline.)"""
    # the leading (n % rows) bytes, or a whole chunk, then whole chunks
    head = (end - start) % RK_TABLE_ROWS
    if head == 0:
        head = RK_TABLE_ROWS
    h = _table_sum(buf, start, start + head, table, bits, c)
    pos = start + head
    while pos < end:
        chunk = _table_sum(buf, pos, pos + RK_TABLE_ROWS, table, bits, c)
        h = addmod(mulmod(h, power_rows, bits, c), chunk, p)
        pos += RK_TABLE_ROWS
    return h


@njit(cache=True, nogil=True)
def rabin_spans_table(
    buf: U8, starts: I64, ends: I64, table: U64, power_rows: np.uint64, bits: int, c: np.uint64
) -> U64:
    """:func:`rabin_spans` by table lookups (char n-grams, any spans); same values."""
    p = (np.uint64(1) << np.uint64(bits)) - c if bits < 64 else np.uint64(0) - c
    out = np.empty(starts.shape[0], dtype=np.uint64)
    for i in range(starts.shape[0]):
        a = starts[i]
        b = ends[i]
        if b - a <= RK_TABLE_ROWS:
            out[i] = _table_sum(buf, a, b, table, bits, c)
        else:
            out[i] = _rk_long(buf, a, b, table, power_rows, bits, c, p)
    return out


@njit(cache=True, nogil=True)
def rabin_word_shingles_table(
    buf: U8,
    byte_starts: I64,
    byte_ends: I64,
    first_tokens: I64,
    k: int,
    table: U64,
    power: U64,
    space_power: U64,
    bits: int,
    c: np.uint64,
) -> U64:
    """:func:`rabin_word_shingles` from prefix values and table lookups; same values.

    A shingle is the RK of its ``k`` tokens joined by single spaces (tokens ``f .. f+k-1``,
    fewer at the end of the stream). ``first_tokens`` ascends; ``power`` and ``space_power``
    are :func:`rabin_powers` (extended here when a shingle or a token is longer).
    """
    p = (np.uint64(1) << np.uint64(bits)) - c if bits < 64 else np.uint64(0) - c
    m = first_tokens.shape[0]
    out = np.empty(m, dtype=np.uint64)
    if m == 0:
        return out
    n_tok = byte_starts.shape[0]
    t0 = first_tokens[0]
    t1 = min(first_tokens[m - 1] + k, n_tok)  # tokens t0 .. t1-1 are used
    # virtual offsets of the tokens in the stream joined by single spaces, from t0
    vstart = np.empty(t1 - t0 + 1, dtype=np.int64)
    pos = 0
    longest = 0
    for t in range(t0, t1):
        vstart[t - t0] = pos
        length = byte_ends[t] - byte_starts[t]
        longest = max(longest, length)
        pos += length + 1
    vstart[t1 - t0] = pos
    for j in range(m):
        last = min(first_tokens[j] + k, n_tok)
        span = vstart[last - t0] - vstart[first_tokens[j] - t0]  # shingle length + 1
        longest = max(longest, span)
    if longest + 1 >= power.shape[0]:
        power, space_power = rabin_powers(power[1], longest + 2, bits, c)
    power_rows = power[RK_TABLE_ROWS]
    # prefix values P_t over tokens t0 .. t1-1
    prefix = np.empty(t1 - t0, dtype=np.uint64)
    h = np.uint64(0)
    for t in range(t0, t1):
        a = byte_starts[t]
        b = byte_ends[t]
        if b - a <= RK_TABLE_ROWS:
            tok = _table_sum(buf, a, b, table, bits, c)
        else:
            tok = _rk_long(buf, a, b, table, power_rows, bits, c, p)
        if t == t0:
            h = tok
        else:
            length = b - a
            h = addmod(
                addmod(mulmod(h, power[1 + length], bits, c), space_power[length], p), tok, p
            )
        prefix[t - t0] = h
    for j in range(m):
        first = first_tokens[j]
        last = min(first + k, n_tok) - 1
        h = prefix[last - t0]
        if first > t0:
            length = vstart[last + 1 - t0] - 1 - vstart[first - t0]
            lead = addmod(
                mulmod(prefix[first - 1 - t0], power[length + 1], bits, c), space_power[length], p
            )
            h = submod(h, lead, p)
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

"""MD5 (RFC 1321) of byte spans, as numba kernels: the 128-bit fingerprints of the web-articles
compilation.

Written from the algorithm as RFC 1321 states it (four rounds of sixteen operations on a
128-bit state, per 64-byte block of the message padded with ``0x80``, zeros and its length in
bits); bit-exact with :func:`hashlib.md5`, which the tests check. MD5 is no longer a
cryptographic hash, and that does not matter here: a shingle fingerprint needs only to spread
distinct inputs evenly, and 128 bits make a collision among any realistic number of shingles
practically impossible (the birthday bound; docs/collisions.md).

A digest is returned as two ``uint64`` halves read big-endian: ``hi`` holds bytes 0–7 of the
digest and ``lo`` bytes 8–15, so ``hi << 64 | lo == int.from_bytes(digest, "big")`` (the
number the hex digest spells) and sorting by ``(hi, lo)`` sorts the digests.

Every operation is on ``np.uint64`` masked to 32 bits, so numba never mixes signed and
unsigned integers.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from numba import njit

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]

_MASK32 = np.uint64(0xFFFFFFFF)
#: ``K[i] = floor(|sin(i + 1)| · 2^32)`` (RFC 1321, 3.4).
K = np.array([int(abs(math.sin(i + 1)) * 2**32) for i in range(64)], dtype=np.uint64)
#: Left-rotation amounts per operation (RFC 1321, 3.4).
SHIFTS = np.array(
    [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + [6, 10, 15, 21] * 4,
    dtype=np.uint64,
)
#: The message word each operation reads.
WORD = np.array(
    list(range(16))
    + [(5 * i + 1) % 16 for i in range(16, 32)]
    + [(3 * i + 5) % 16 for i in range(32, 48)]
    + [(7 * i) % 16 for i in range(48, 64)],
    dtype=np.int64,
)


@njit(cache=True, nogil=True, inline="always")
def _rotl32(x: np.uint64, r: np.uint64) -> np.uint64:
    return ((x << r) | (x >> (np.uint64(32) - r))) & _MASK32


@njit(cache=True, nogil=True)
def _block(state: U64, block: U8, words: U64, k: U64, shifts: U64, word: I64) -> None:
    """Fold one 64-byte block into ``state`` (A, B, C, D)."""
    for w in range(16):
        p = 4 * w
        words[w] = (
            np.uint64(block[p])
            | (np.uint64(block[p + 1]) << np.uint64(8))
            | (np.uint64(block[p + 2]) << np.uint64(16))
            | (np.uint64(block[p + 3]) << np.uint64(24))
        )
    a = state[0]
    b = state[1]
    c = state[2]
    d = state[3]
    for i in range(64):
        if i < 16:
            f = (b & c) | ((~b & _MASK32) & d)
        elif i < 32:
            f = (d & b) | ((~d & _MASK32) & c)
        elif i < 48:
            f = b ^ c ^ d
        else:
            f = c ^ (b | (~d & _MASK32))
        f = (f + a + k[i] + words[word[i]]) & _MASK32
        a = d
        d = c
        c = b
        b = (b + _rotl32(f, shifts[i])) & _MASK32
    state[0] = (state[0] + a) & _MASK32
    state[1] = (state[1] + b) & _MASK32
    state[2] = (state[2] + c) & _MASK32
    state[3] = (state[3] + d) & _MASK32


@njit(cache=True, nogil=True)
def _bswap32(x: np.uint64) -> np.uint64:
    return (
        ((x & np.uint64(0xFF)) << np.uint64(24))
        | ((x & np.uint64(0xFF00)) << np.uint64(8))
        | ((x >> np.uint64(8)) & np.uint64(0xFF00))
        | ((x >> np.uint64(24)) & np.uint64(0xFF))
    )


@njit(cache=True, nogil=True)
def md5_span(
    buf: U8,
    start: int,
    end: int,
    state: U64,
    block: U8,
    words: U64,
    k: U64,
    shifts: U64,
    word: I64,
) -> tuple[np.uint64, np.uint64]:
    """The MD5 digest of ``buf[start:end]`` as ``(hi, lo)`` (see the module); ``state``,
    ``block`` and ``words`` are scratch space."""
    state[0] = np.uint64(0x67452301)
    state[1] = np.uint64(0xEFCDAB89)
    state[2] = np.uint64(0x98BADCFE)
    state[3] = np.uint64(0x10325476)
    n = end - start
    full = n // 64
    for blk in range(full):
        base = start + 64 * blk
        for j in range(64):
            block[j] = buf[base + j]
        _block(state, block, words, k, shifts, word)
    # the tail, 0x80, zeros, and the length in bits (little-endian) in one or two blocks
    rest = n - 64 * full
    tail_blocks = 1 if rest < 56 else 2
    bits = np.uint64(n) * np.uint64(8)
    for t in range(tail_blocks):
        for j in range(64):
            pos = 64 * t + j
            if pos < rest:
                block[j] = buf[start + 64 * full + pos]
            elif pos == rest:
                block[j] = 0x80
            elif t == tail_blocks - 1 and j >= 56:
                block[j] = np.uint8((bits >> np.uint64(8 * (j - 56))) & np.uint64(0xFF))
            else:
                block[j] = 0
        _block(state, block, words, k, shifts, word)
    # digest bytes: A, B, C, D each little-endian; read big-endian as two 64-bit halves
    hi = (_bswap32(state[0]) << np.uint64(32)) | _bswap32(state[1])
    lo = (_bswap32(state[2]) << np.uint64(32)) | _bswap32(state[3])
    return hi, lo


@njit(cache=True, nogil=True)
def md5_spans_kernel(
    buf: U8, starts: I64, ends: I64, k: U64, shifts: U64, word: I64
) -> tuple[U64, U64]:
    """``(hi, lo)`` of the MD5 digest of every span ``buf[starts[i]:ends[i]]``."""
    n = starts.shape[0]
    hi = np.empty(n, dtype=np.uint64)
    lo = np.empty(n, dtype=np.uint64)
    state = np.empty(4, dtype=np.uint64)
    block = np.empty(64, dtype=np.uint8)
    words = np.empty(16, dtype=np.uint64)
    for i in range(n):
        hi[i], lo[i] = md5_span(buf, starts[i], ends[i], state, block, words, k, shifts, word)
    return hi, lo


def md5_spans(buf: U8, starts: I64, ends: I64) -> tuple[U64, U64]:
    """``(hi, lo)`` of the MD5 digest of every span ``buf[starts[i]:ends[i]]``: ONE call."""
    return md5_spans_kernel(buf, starts, ends, K, SHIFTS, WORD)


def md5_bytes(data: bytes) -> int:
    """The digest of ``data`` as one 128-bit integer (``int(hashlib.md5(data).hexdigest(),
    16)``), through the kernel."""
    buf = np.frombuffer(data, dtype=np.uint8) if data else np.zeros(0, dtype=np.uint8)
    hi, lo = md5_spans(buf, np.zeros(1, dtype=np.int64), np.full(1, len(data), dtype=np.int64))
    return (int(hi[0]) << 64) | int(lo[0])

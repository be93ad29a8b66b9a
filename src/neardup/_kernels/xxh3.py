"""XXH3-64 with a 64-bit seed, as numba kernels.

This module is an independent implementation, written from the published XXH3
algorithm description (``doc/xxhash_spec.md`` of the xxHash project), of the
64-bit XXH3 hash with a 64-bit seed.  It is bit-exact with ``XXH3_64bits_withSeed``
of xxHash >= 0.8 (and hence with ``xxhash.xxh3_64_intdigest(data, seed=seed)`` of
the ``xxhash`` Python package) for every input length and every seed in
``[0, 2**64)``, covering all code paths: empty input, 1-3, 4-8, 9-16, 17-128 and
129-240 bytes, and the long (> 240 bytes) path with stripes, blocks, accumulation,
scrambling and, for a non-zero seed, the custom secret derived from the seed.

All arithmetic is done in ``np.uint64`` (every constant is an ``np.uint64`` so
numba never mixes signed and unsigned integers, which would promote to float64).
The 64x64 -> 128-bit multiplication is emulated with 32-bit halves.

Kernel API (callable from other numba code and from Python):

* :func:`xxh3_64` -- hash of ``buf[start:start + length]``;
* :func:`xxh3_64_spans` -- one hash per ``(start, length)`` span, loop in numba.

Python convenience wrapper: :func:`xxh3_64_bytes`.
"""

from __future__ import annotations

from typing import Final

import numba
import numpy as np
from numpy.typing import NDArray

__all__ = [
    "XXH3_DEFAULT_SECRET",
    "XXH3_SECRET_SIZE",
    "xxh3_64",
    "xxh3_64_bytes",
    "xxh3_64_spans",
]

# --------------------------------------------------------------------------------------
# Constants (all np.uint64 so numba types every expression as uint64)
# --------------------------------------------------------------------------------------

_PRIME32_1: Final = np.uint64(0x9E3779B1)
_PRIME32_2: Final = np.uint64(0x85EBCA77)
_PRIME32_3: Final = np.uint64(0xC2B2AE3D)
_PRIME64_1: Final = np.uint64(0x9E3779B185EBCA87)
_PRIME64_2: Final = np.uint64(0xC2B2AE3D27D4EB4F)
_PRIME64_3: Final = np.uint64(0x165667B19E3779F9)
_PRIME64_4: Final = np.uint64(0x85EBCA77C2B2AE63)
_PRIME64_5: Final = np.uint64(0x27D4EB2F165667C5)
_PRIME_MX1: Final = np.uint64(0x165667919E3779F9)
_PRIME_MX2: Final = np.uint64(0x9FB21C651E98DF25)

_M8: Final = np.uint64(0xFF)
_M32: Final = np.uint64(0xFFFFFFFF)
_S8: Final = np.uint64(8)
_S16: Final = np.uint64(16)
_S24: Final = np.uint64(24)
_S28: Final = np.uint64(28)
_S29: Final = np.uint64(29)
_S32: Final = np.uint64(32)
_S33: Final = np.uint64(33)
_S35: Final = np.uint64(35)
_S37: Final = np.uint64(37)
_S40: Final = np.uint64(40)
_S47: Final = np.uint64(47)
_S48: Final = np.uint64(48)
_S56: Final = np.uint64(56)
_S64: Final = np.uint64(64)
_R24: Final = np.uint64(24)
_U1: Final = np.uint64(1)
_U2: Final = np.uint64(2)
_U3: Final = np.uint64(3)
_U4: Final = np.uint64(4)
_U5: Final = np.uint64(5)
_U6: Final = np.uint64(6)
_U7: Final = np.uint64(7)
_R49: Final = np.uint64(49)

#: Size in bytes of the default XXH3 secret.
XXH3_SECRET_SIZE: Final = 192

_STRIPE_LEN: Final = 64
_SECRET_CONSUME_RATE: Final = 8
_STRIPES_PER_BLOCK: Final = (XXH3_SECRET_SIZE - _STRIPE_LEN) // _SECRET_CONSUME_RATE  # 16
_BLOCK_LEN: Final = _STRIPE_LEN * _STRIPES_PER_BLOCK  # 1024
_SCRAMBLE_OFFSET: Final = XXH3_SECRET_SIZE - _STRIPE_LEN  # 128
_LAST_STRIPE_OFFSET: Final = XXH3_SECRET_SIZE - _STRIPE_LEN - 7  # 121
_MERGE_OFFSET: Final = 11
_MID_START_OFFSET: Final = 3
_MID_LAST_OFFSET: Final = 136 - 17  # 119
_MAX_MIDSIZE: Final = 240

_SEED_MAX: Final = (1 << 64) - 1

# The published default XXH3 secret, byte by byte.
_DEFAULT_SECRET_BYTES: Final = (
    0xB8, 0xFE, 0x6C, 0x39, 0x23, 0xA4, 0x4B, 0xBE, 0x7C, 0x01, 0x81, 0x2C, 0xF7, 0x21, 0xAD, 0x1C,
    0xDE, 0xD4, 0x6D, 0xE9, 0x83, 0x90, 0x97, 0xDB, 0x72, 0x40, 0xA4, 0xA4, 0xB7, 0xB3, 0x67, 0x1F,
    0xCB, 0x79, 0xE6, 0x4E, 0xCC, 0xC0, 0xE5, 0x78, 0x82, 0x5A, 0xD0, 0x7D, 0xCC, 0xFF, 0x72, 0x21,
    0xB8, 0x08, 0x46, 0x74, 0xF7, 0x43, 0x24, 0x8E, 0xE0, 0x35, 0x90, 0xE6, 0x81, 0x3A, 0x26, 0x4C,
    0x3C, 0x28, 0x52, 0xBB, 0x91, 0xC3, 0x00, 0xCB, 0x88, 0xD0, 0x65, 0x8B, 0x1B, 0x53, 0x2E, 0xA3,
    0x71, 0x64, 0x48, 0x97, 0xA2, 0x0D, 0xF9, 0x4E, 0x38, 0x19, 0xEF, 0x46, 0xA9, 0xDE, 0xAC, 0xD8,
    0xA8, 0xFA, 0x76, 0x3F, 0xE3, 0x9C, 0x34, 0x3F, 0xF9, 0xDC, 0xBB, 0xC7, 0xC7, 0x0B, 0x4F, 0x1D,
    0x8A, 0x51, 0xE0, 0x4B, 0xCD, 0xB4, 0x59, 0x31, 0xC8, 0x9F, 0x7E, 0xC9, 0xD9, 0x78, 0x73, 0x64,
    0xEA, 0xC5, 0xAC, 0x83, 0x34, 0xD3, 0xEB, 0xC3, 0xC5, 0x81, 0xA0, 0xFF, 0xFA, 0x13, 0x63, 0xEB,
    0x17, 0x0D, 0xDD, 0x51, 0xB7, 0xF0, 0xDA, 0x49, 0xD3, 0x16, 0x55, 0x26, 0x29, 0xD4, 0x68, 0x9E,
    0x2B, 0x16, 0xBE, 0x58, 0x7D, 0x47, 0xA1, 0xFC, 0x8F, 0xF8, 0xB8, 0xD1, 0x7A, 0xD0, 0x31, 0xCE,
    0x45, 0xCB, 0x3A, 0x8F, 0x95, 0x16, 0x04, 0x28, 0xAF, 0xD7, 0xFB, 0xCA, 0xBB, 0x4B, 0x40, 0x7E,
)  # fmt: skip

#: The default 192-byte XXH3 secret (published constant of the algorithm), read-only.
XXH3_DEFAULT_SECRET: Final[NDArray[np.uint8]] = np.array(_DEFAULT_SECRET_BYTES, dtype=np.uint8)
XXH3_DEFAULT_SECRET.setflags(write=False)
assert XXH3_DEFAULT_SECRET.shape == (XXH3_SECRET_SIZE,)

# Module-global alias used inside kernels (numba freezes global arrays as constants).
_SECRET = XXH3_DEFAULT_SECRET

_jit = numba.njit(cache=True, nogil=True)


# --------------------------------------------------------------------------------------
# Primitive helpers
# --------------------------------------------------------------------------------------


@_jit
def _r64(a: NDArray[np.uint8], i: int) -> np.uint64:
    """Little-endian 64-bit read of ``a[i:i + 8]`` (``i >= 0``).

    The index is made unsigned so numba emits no negative-index wraparound; that lets
    LLVM fuse the eight byte loads into a single 64-bit load.
    """
    j = np.uint64(i)
    return (
        np.uint64(a[j])
        | (np.uint64(a[j + _U1]) << _S8)
        | (np.uint64(a[j + _U2]) << _S16)
        | (np.uint64(a[j + _U3]) << _S24)
        | (np.uint64(a[j + _U4]) << _S32)
        | (np.uint64(a[j + _U5]) << _S40)
        | (np.uint64(a[j + _U6]) << _S48)
        | (np.uint64(a[j + _U7]) << _S56)
    )


@_jit
def _r32(a: NDArray[np.uint8], i: int) -> np.uint64:
    """Little-endian 32-bit read of ``a[i:i + 4]`` (``i >= 0``), zero-extended to uint64."""
    j = np.uint64(i)
    return (
        np.uint64(a[j])
        | (np.uint64(a[j + _U1]) << _S8)
        | (np.uint64(a[j + _U2]) << _S16)
        | (np.uint64(a[j + _U3]) << _S24)
    )


@_jit
def _w64(a: NDArray[np.uint8], i: int, v: np.uint64) -> None:
    """Little-endian 64-bit write of ``v`` into ``a[i:i + 8]``."""
    for k in range(8):
        a[i + k] = np.uint8((v >> np.uint64(8 * k)) & _M8)


@_jit
def _rotl64(x: np.uint64, r: np.uint64) -> np.uint64:
    return (x << r) | (x >> (_S64 - r))


@_jit
def _bswap32(x: np.uint64) -> np.uint64:
    """Byte swap of the low 32 bits of ``x`` (result < 2**32)."""
    return (
        ((x & _M8) << _S24)
        | (((x >> _S8) & _M8) << _S16)
        | (((x >> _S16) & _M8) << _S8)
        | ((x >> _S24) & _M8)
    )


@_jit
def _bswap64(x: np.uint64) -> np.uint64:
    return (
        ((x & _M8) << _S56)
        | (((x >> _S8) & _M8) << _S48)
        | (((x >> _S16) & _M8) << _S40)
        | (((x >> _S24) & _M8) << _S32)
        | (((x >> _S32) & _M8) << _S24)
        | (((x >> _S40) & _M8) << _S16)
        | (((x >> _S48) & _M8) << _S8)
        | (x >> _S56)
    )


@_jit
def _mul128_fold64(a: np.uint64, b: np.uint64) -> np.uint64:
    """``lo ^ hi`` of the full 128-bit product ``a * b`` (emulated with 32-bit halves)."""
    a_lo = a & _M32
    a_hi = a >> _S32
    b_lo = b & _M32
    b_hi = b >> _S32
    ll = a_lo * b_lo
    lh = a_lo * b_hi
    hl = a_hi * b_lo
    hh = a_hi * b_hi
    # cannot overflow: (2^32-1)^2 + 2*(2^32-1) == 2^64-1
    cross = (ll >> _S32) + (lh & _M32) + hl
    hi = hh + (lh >> _S32) + (cross >> _S32)
    lo = a * b  # wrapping product == low 64 bits
    return lo ^ hi


@_jit
def _avalanche(h: np.uint64) -> np.uint64:
    """XXH3 final mix."""
    h = h ^ (h >> _S37)
    h = h * _PRIME_MX1
    return h ^ (h >> _S32)


@_jit
def _avalanche_xxh64(h: np.uint64) -> np.uint64:
    """XXH64-style final mix, used by XXH3 for 0-3 byte inputs."""
    h = h ^ (h >> _S33)
    h = h * _PRIME64_2
    h = h ^ (h >> _S29)
    h = h * _PRIME64_3
    return h ^ (h >> _S32)


# --------------------------------------------------------------------------------------
# Short inputs (0-16 bytes) -- default secret, seed applied directly
# --------------------------------------------------------------------------------------


@_jit
def _len_1to3(buf: NDArray[np.uint8], p: int, n: int, seed: np.uint64) -> np.uint64:
    c1 = np.uint64(buf[p])
    c2 = np.uint64(buf[p + (n >> 1)])
    c3 = np.uint64(buf[p + n - 1])
    combined = (c1 << _S16) | (c2 << _S24) | c3 | (np.uint64(n) << _S8)
    bitflip = (_r32(_SECRET, 0) ^ _r32(_SECRET, 4)) + seed
    return _avalanche_xxh64(combined ^ bitflip)


@_jit
def _len_4to8(buf: NDArray[np.uint8], p: int, n: int, seed: np.uint64) -> np.uint64:
    seed2 = seed ^ (_bswap32(seed & _M32) << _S32)
    in_first = _r32(buf, p)
    in_last = _r32(buf, p + n - 4)
    bitflip = (_r64(_SECRET, 8) ^ _r64(_SECRET, 16)) - seed2
    h = (in_last | (in_first << _S32)) ^ bitflip
    # rrmxmx
    h = h ^ _rotl64(h, _R49) ^ _rotl64(h, _R24)
    h = h * _PRIME_MX2
    h = h ^ ((h >> _S35) + np.uint64(n))
    h = h * _PRIME_MX2
    return h ^ (h >> _S28)


@_jit
def _len_9to16(buf: NDArray[np.uint8], p: int, n: int, seed: np.uint64) -> np.uint64:
    bitflip1 = (_r64(_SECRET, 24) ^ _r64(_SECRET, 32)) + seed
    bitflip2 = (_r64(_SECRET, 40) ^ _r64(_SECRET, 48)) - seed
    lo = _r64(buf, p) ^ bitflip1
    hi = _r64(buf, p + n - 8) ^ bitflip2
    acc = np.uint64(n) + _bswap64(lo) + hi + _mul128_fold64(lo, hi)
    return _avalanche(acc)


@_jit
def _len_0to16(buf: NDArray[np.uint8], p: int, n: int, seed: np.uint64) -> np.uint64:
    if n > 8:
        return _len_9to16(buf, p, n, seed)
    if n >= 4:
        return _len_4to8(buf, p, n, seed)
    if n > 0:
        return _len_1to3(buf, p, n, seed)
    return _avalanche_xxh64(seed ^ (_r64(_SECRET, 56) ^ _r64(_SECRET, 64)))


# --------------------------------------------------------------------------------------
# Medium inputs (17-240 bytes) -- default secret, seed applied directly
# --------------------------------------------------------------------------------------


@_jit
def _mix16(buf: NDArray[np.uint8], p: int, so: int, seed: np.uint64) -> np.uint64:
    """Mix 16 input bytes at ``buf[p]`` with 16 default-secret bytes at offset ``so``."""
    lo = _r64(buf, p)
    hi = _r64(buf, p + 8)
    return _mul128_fold64(lo ^ (_r64(_SECRET, so) + seed), hi ^ (_r64(_SECRET, so + 8) - seed))


@_jit
def _len_17to128(buf: NDArray[np.uint8], p: int, n: int, seed: np.uint64) -> np.uint64:
    acc = np.uint64(n) * _PRIME64_1
    e = p + n
    if n > 32:
        if n > 64:
            if n > 96:
                acc += _mix16(buf, p + 48, 96, seed)
                acc += _mix16(buf, e - 64, 112, seed)
            acc += _mix16(buf, p + 32, 64, seed)
            acc += _mix16(buf, e - 48, 80, seed)
        acc += _mix16(buf, p + 16, 32, seed)
        acc += _mix16(buf, e - 32, 48, seed)
    acc += _mix16(buf, p, 0, seed)
    acc += _mix16(buf, e - 16, 16, seed)
    return _avalanche(acc)


@_jit
def _len_129to240(buf: NDArray[np.uint8], p: int, n: int, seed: np.uint64) -> np.uint64:
    acc = np.uint64(n) * _PRIME64_1
    for i in range(8):
        acc += _mix16(buf, p + 16 * i, 16 * i, seed)
    acc = _avalanche(acc)
    n_chunks = n >> 4
    for i in range(8, n_chunks):
        acc += _mix16(buf, p + 16 * i, 16 * (i - 8) + _MID_START_OFFSET, seed)
    acc += _mix16(buf, p + n - 16, _MID_LAST_OFFSET, seed)
    return _avalanche(acc)


# --------------------------------------------------------------------------------------
# Long inputs (> 240 bytes) -- seed enters only through the derived secret
# --------------------------------------------------------------------------------------


@_jit
def _derive_secret(seed: np.uint64) -> NDArray[np.uint8]:
    """Custom secret for the long path: default secret with ``+seed`` / ``-seed`` on
    alternating 64-bit little-endian words.  ``seed == 0`` yields the default secret."""
    out = np.empty(XXH3_SECRET_SIZE, dtype=np.uint8)
    for i in range(XXH3_SECRET_SIZE // 16):
        _w64(out, 16 * i, _r64(_SECRET, 16 * i) + seed)
        _w64(out, 16 * i + 8, _r64(_SECRET, 16 * i + 8) - seed)
    return out


@_jit
def _accumulate_stripe(
    acc: NDArray[np.uint64], buf: NDArray[np.uint8], p: int, sec: NDArray[np.uint8], so: int
) -> None:
    for i in range(8):
        v = _r64(buf, p + 8 * i)
        k = v ^ _r64(sec, so + 8 * i)
        acc[i ^ 1] += v
        acc[i] += (k & _M32) * (k >> _S32)


@_jit
def _scramble(acc: NDArray[np.uint64], sec: NDArray[np.uint8]) -> None:
    for i in range(8):
        a = acc[i]
        a = a ^ (a >> _S47)
        a = a ^ _r64(sec, _SCRAMBLE_OFFSET + 8 * i)
        acc[i] = a * _PRIME32_1


@_jit
def _len_long(buf: NDArray[np.uint8], p: int, n: int, sec: NDArray[np.uint8]) -> np.uint64:
    acc = np.empty(8, dtype=np.uint64)
    acc[0] = _PRIME32_3
    acc[1] = _PRIME64_1
    acc[2] = _PRIME64_2
    acc[3] = _PRIME64_3
    acc[4] = _PRIME64_4
    acc[5] = _PRIME32_2
    acc[6] = _PRIME64_5
    acc[7] = _PRIME32_1

    n_blocks = (n - 1) // _BLOCK_LEN
    for b in range(n_blocks):
        base = p + b * _BLOCK_LEN
        for s in range(_STRIPES_PER_BLOCK):
            _accumulate_stripe(acc, buf, base + s * _STRIPE_LEN, sec, s * _SECRET_CONSUME_RATE)
        _scramble(acc, sec)

    # last (possibly full) block, without its last stripe
    base = p + n_blocks * _BLOCK_LEN
    n_stripes = ((n - 1) - n_blocks * _BLOCK_LEN) // _STRIPE_LEN
    for s in range(n_stripes):
        _accumulate_stripe(acc, buf, base + s * _STRIPE_LEN, sec, s * _SECRET_CONSUME_RATE)
    # last 64 bytes of input (may overlap the previous stripe)
    _accumulate_stripe(acc, buf, p + n - _STRIPE_LEN, sec, _LAST_STRIPE_OFFSET)

    # merge accumulators
    result = np.uint64(n) * _PRIME64_1
    for i in range(4):
        so = _MERGE_OFFSET + 16 * i
        result += _mul128_fold64(acc[2 * i] ^ _r64(sec, so), acc[2 * i + 1] ^ _r64(sec, so + 8))
    return _avalanche(result)


# --------------------------------------------------------------------------------------
# Dispatch and public kernels
# --------------------------------------------------------------------------------------


@_jit
def _hash_span(
    buf: NDArray[np.uint8], p: int, n: int, seed: np.uint64, long_secret: NDArray[np.uint8]
) -> np.uint64:
    """XXH3-64 of ``buf[p:p + n]``; ``long_secret`` must be ``_derive_secret(seed)``."""
    if n <= 16:
        return _len_0to16(buf, p, n, seed)
    if n <= 128:
        return _len_17to128(buf, p, n, seed)
    if n <= _MAX_MIDSIZE:
        return _len_129to240(buf, p, n, seed)
    return _len_long(buf, p, n, long_secret)


@_jit
def xxh3_64(buf: NDArray[np.uint8], start: int, length: int, seed: np.uint64) -> np.uint64:
    """XXH3-64 of ``buf[start:start + length]`` with 64-bit ``seed``.

    ``buf`` must be a 1-D uint8 array.  ``seed`` should be an ``np.uint64`` (numba types
    plain Python ints as int64, so ints >= 2**63 cannot be passed as such; an int64
    seed is reinterpreted as its uint64 bit pattern).  Raises ``ValueError`` if the
    span does not lie inside ``buf``.
    """
    s = np.uint64(seed)
    p = np.int64(start)
    n = np.int64(length)
    if p < 0 or n < 0 or p + n > buf.shape[0]:
        raise ValueError("xxh3_64: span out of bounds")
    if n <= _MAX_MIDSIZE:
        if n <= 16:
            return _len_0to16(buf, p, n, s)
        if n <= 128:
            return _len_17to128(buf, p, n, s)
        return _len_129to240(buf, p, n, s)
    return _len_long(buf, p, n, _derive_secret(s))


@_jit
def xxh3_64_spans(
    buf: NDArray[np.uint8],
    starts: NDArray[np.int64],
    lengths: NDArray[np.int64],
    seed: np.uint64,
) -> NDArray[np.uint64]:
    """XXH3-64 of every span ``buf[starts[i]:starts[i] + lengths[i]]`` with one ``seed``.

    Returns a uint64 array with one hash per span (``seed`` as in :func:`xxh3_64`);
    the seed-derived long-input secret is computed once per call.  Raises
    ``ValueError`` if the two span arrays differ in length or a span does not lie
    inside ``buf``.
    """
    s = np.uint64(seed)
    m = starts.shape[0]
    if lengths.shape[0] != m:
        raise ValueError("xxh3_64_spans: starts and lengths differ in length")
    size = buf.shape[0]
    for j in range(m):
        p = np.int64(starts[j])
        n = np.int64(lengths[j])
        if p < 0 or n < 0 or p + n > size:
            raise ValueError("xxh3_64_spans: span out of bounds")
    long_secret = _derive_secret(s)
    out = np.empty(m, dtype=np.uint64)
    for j in range(m):
        out[j] = _hash_span(buf, np.int64(starts[j]), np.int64(lengths[j]), s, long_secret)
    return out


# --------------------------------------------------------------------------------------
# Python convenience wrapper
# --------------------------------------------------------------------------------------


def xxh3_64_bytes(data: bytes | bytearray | memoryview | NDArray[np.uint8], seed: int = 0) -> int:
    """XXH3-64 of a bytes-like object, as a Python ``int`` (same as
    ``xxhash.xxh3_64_intdigest(data, seed=seed)``).  ``seed`` must be in ``[0, 2**64)``."""
    if not 0 <= seed <= _SEED_MAX:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    if isinstance(data, np.ndarray):
        arr = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    else:
        arr = np.frombuffer(data, dtype=np.uint8)
    return int(xxh3_64(arr, 0, arr.shape[0], np.uint64(seed)))

"""Hot loops of the Bloom filter (neardup.storage.bloom): setting and testing bits.

Bit positions come from one SplitMix64 of the value by double hashing, ``h1 + i * h2`` for
``i < k`` (Kirsch and Mitzenmacher 2006), modulo the bit count, a power of two. SplitMix64 adds
its gamma before mixing, so the positions do not depend on the winnowing remix that chose the
values (which leaves sample values with small remixes).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from neardup._kernels.minhash import splitmix64

U8 = npt.NDArray[np.uint8]
U64 = npt.NDArray[np.uint64]
B = npt.NDArray[np.bool_]

_LOW = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_ONE = np.uint64(1)
_S3 = np.uint64(3)
_SEVEN = np.uint64(7)


@njit(cache=True, nogil=True)
def bloom_add(bits: U8, values: U64, k: int) -> None:
    """Set the ``k`` bits of every value (``bits.shape[0] * 8`` is a power of two)."""
    mask = np.uint64(bits.shape[0] * 8 - 1)
    for i in range(values.shape[0]):
        h = splitmix64(values[i])
        h1 = h & _LOW
        h2 = (h >> _S32) | _ONE
        for j in range(k):
            pos = (h1 + np.uint64(j) * h2) & mask
            bits[pos >> _S3] |= np.uint8(1) << np.uint8(pos & _SEVEN)


@njit(cache=True, nogil=True)
def bloom_test(bits: U8, values: U64, k: int) -> B:
    """For each value: True when all its ``k`` bits are set (it may have been added)."""
    mask = np.uint64(bits.shape[0] * 8 - 1)
    out = np.empty(values.shape[0], dtype=np.bool_)
    for i in range(values.shape[0]):
        h = splitmix64(values[i])
        h1 = h & _LOW
        h2 = (h >> _S32) | _ONE
        present = True
        for j in range(k):
            pos = (h1 + np.uint64(j) * h2) & mask
            if not (bits[pos >> _S3] >> np.uint8(pos & _SEVEN)) & np.uint8(1):
                present = False
                break
        out[i] = present
    return out

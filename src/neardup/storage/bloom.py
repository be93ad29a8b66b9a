"""A Bloom filter over posting values: "certainly absent" answers that spare a B-tree seek.

Most samples of a new document are posted by no stored document, so before the SQLite backend
looks values up in its postings table it drops the ones a filter proves absent. One filter is
made per merge of postings into the table (sized for the values that merge adds, never resized
or rebuilt); a value may be in the table if any filter says so. A removed posting leaves its
bits set: the filter can only err towards a useless lookup, never a missed posting.

``bits_per_value`` 12 and ``k`` 6 give a false-positive rate of about 0.4 % per filter
(``(1 - e^(-k/b))^k``, b bits per value); with the bit count rounded up to a power of two the
rate is at most that.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from neardup._kernels.bloom import bloom_add, bloom_test
from neardup.errors import StorageError

U64 = npt.NDArray[np.uint64]
B = npt.NDArray[np.bool_]

BITS_PER_VALUE = 12
HASHES = 6


class BloomFilter:
    """``k`` bit positions per value over ``len(bits) * 8`` bits (a power of two, at least 64)."""

    __slots__ = ("bits", "k")

    def __init__(self, bits: npt.NDArray[np.uint8], k: int) -> None:
        n_bits = bits.shape[0] * 8
        if n_bits < 64 or n_bits & (n_bits - 1) or not 1 <= k <= 32:
            raise StorageError(
                f"a Bloom filter needs a power-of-two bit count ≥ 64 and 1 ≤ k ≤ 32, "
                f"got {n_bits} bits and k = {k}"
            )
        self.bits = bits
        self.k = k

    @classmethod
    def of(
        cls, values: U64, *, bits_per_value: int = BITS_PER_VALUE, k: int = HASHES
    ) -> BloomFilter:
        """A filter holding ``values``."""
        n_bits = 64
        while n_bits < bits_per_value * values.shape[0]:
            n_bits *= 2
        out = cls(np.zeros(n_bits // 8, dtype=np.uint8), k)
        bloom_add(out.bits, np.ascontiguousarray(values, dtype=np.uint64), k)
        return out

    def maybe(self, values: U64) -> B:
        """False where a value was certainly never added."""
        return bloom_test(self.bits, np.ascontiguousarray(values, dtype=np.uint64), self.k)

    def to_bytes(self) -> bytes:
        return self.bits.tobytes()

    @classmethod
    def from_bytes(cls, data: bytes, k: int) -> BloomFilter:
        return cls(np.frombuffer(data, dtype=np.uint8), k)

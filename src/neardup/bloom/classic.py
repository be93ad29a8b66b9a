"""The classic and the counting Bloom filter (the pseudo-matrix Bloom filter paper's starting
points).

Both take fingerprints — the pipeline's sorted distinct ``uint64`` arrays — and hash them into
``m`` positions with ``k`` seeded functions (:mod:`neardup._kernels.pmbf`): the same text under
the same spec and seed sets the same bits on any machine.

* :class:`BloomFilter` — ``m`` bits; membership with false positives, no deletion (the
  paper's point 2: deleting means rebuilding).
* :class:`CountingBloomFilter` — one byte per position (8× the memory, the paper's example):
  deletion by decrement; a counter that reaches 255 stays there (it may have overflowed).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from neardup._arguments import public
from neardup._kernels import pmbf
from neardup.bloom.sizing import bloom_size, false_positive_rate
from neardup.errors import InputError

U64 = npt.NDArray[np.uint64]
U8 = npt.NDArray[np.uint8]
B = npt.NDArray[np.bool_]


def as_fingerprints(values: object, *, what: str = "fingerprints") -> U64:
    """A 1-d ``uint64`` array of sorted distinct values, or :class:`InputError`."""
    raw = getattr(
        values, "values", values
    )  # a neardup.fingerprints.similarity.Fingerprints passes through
    arr = np.asarray(raw)
    if arr.ndim != 1:
        raise InputError(f"{what} must be a 1-d array, got shape {arr.shape}")
    if arr.size and arr.dtype != np.uint64:
        if not np.issubdtype(arr.dtype, np.integer) or (arr < 0).any():
            raise InputError(f"{what} must be unsigned 64-bit integers, got dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr, dtype=np.uint64)
    if arr.size > 1 and not bool(np.all(arr[1:] > arr[:-1])):
        raise InputError(f"{what} must be sorted and distinct (the pipeline's fingerprint sets)")
    return arr


#: The most bits a filter in memory may have (32 GiB of words): past it, a size is a mistake.
MAX_BITS = 1 << 38


def _words(m: int) -> U64:
    """The zeroed words of a filter of ``m`` bits, or an InputError saying what it would take."""
    if m > MAX_BITS:
        raise InputError(f"m must be at most {MAX_BITS:,} bits (32 GiB), got {m:,}")
    try:
        return np.zeros(-(-m // 64), dtype=np.uint64)
    except MemoryError:
        raise InputError(
            f"a filter of {m:,} bits needs {m / 8 / 2**30:.1f} GiB, more memory than is free; "
            "choose a smaller m"
        ) from None


def _check_int(value: object, what: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < low:
        raise InputError(f"{what} must be a whole number ≥ {low}, got {value!r}")
    return int(value)


@public
class BloomFilter:
    """A classic Bloom filter of ``m`` bits and ``k`` hash functions (seeded)."""

    def __init__(self, *, m: int, k: int, seed: int = 0) -> None:
        self.m = _check_int(m, "m", 1)
        self.k = _check_int(k, "k", 1)
        self.seed = _check_int(seed, "seed", 0)
        if self.seed > 2**64 - 1:
            raise InputError(f"seed must be below 2^64, got {seed!r}")
        self.words: U64 = _words(self.m)
        self.count = 0

    @property
    def seed_word(self) -> np.uint64:
        """The seed as the kernels take it (always ``uint64``: one specialization)."""
        return np.uint64(self.seed)

    @classmethod
    def for_capacity(cls, n: int, p: float, *, seed: int = 0) -> BloomFilter:
        """A filter sized by formula (2) for ``n`` elements at risk ``p``."""
        size = bloom_size(n, p)
        return cls(m=size.m, k=size.k, seed=seed)

    def add(self, fingerprints: object) -> None:
        values = as_fingerprints(fingerprints)
        pmbf.set_bits(self.words, values, self.k, self.m, self.seed_word)
        self.count += int(values.shape[0])

    def contains(self, fingerprints: object) -> B:
        """For each value: True when it may have been added, False when it was not."""
        values = as_fingerprints(fingerprints)
        return pmbf.test_bits(self.words, values, self.k, self.m, self.seed_word)

    @property
    def ones(self) -> int:
        """1-bits set."""
        return pmbf.popcount_words(self.words)

    def expected_fp_rate(self) -> float:
        """Formula (1) at the elements added so far."""
        return false_positive_rate(self.m, self.count, self.k)

    def shared_bits(self, other: BloomFilter) -> int:
        """1-bits set in both filters (same ``m``, ``k`` and seed): the paper's similarity."""
        if (self.m, self.k, self.seed) != (other.m, other.k, other.seed):
            raise InputError("filters of different m, k or seed cannot be compared")
        return int(pmbf.and_popcount(self.words[None, :], other.words, 1)[0])


@public
class CountingBloomFilter:
    """A counting Bloom filter: a byte counter per position, so elements can be removed."""

    def __init__(self, *, m: int, k: int, seed: int = 0) -> None:
        self.m = _check_int(m, "m", 1)
        self.k = _check_int(k, "k", 1)
        self.seed = _check_int(seed, "seed", 0)
        if self.seed > 2**64 - 1:
            raise InputError(f"seed must be below 2^64, got {seed!r}")
        if self.m > MAX_BITS:
            raise InputError(f"m must be at most {MAX_BITS:,} counters, got {self.m:,}")
        try:
            self.counters: U8 = np.zeros(self.m, dtype=np.uint8)
        except MemoryError:
            raise InputError(
                f"a counting filter of {self.m:,} counters needs {self.m / 2**30:.1f} GiB, more "
                "memory than is free; choose a smaller m"
            ) from None
        self.stuck = 0

    @property
    def seed_word(self) -> np.uint64:
        """The seed as the kernels take it (always ``uint64``: one specialization)."""
        return np.uint64(self.seed)

    @classmethod
    def for_capacity(cls, n: int, p: float, *, seed: int = 0) -> CountingBloomFilter:
        size = bloom_size(n, p)
        return cls(m=size.m, k=size.k, seed=seed)

    def add(self, fingerprints: object) -> None:
        values = as_fingerprints(fingerprints)
        self.stuck += pmbf.add_counts(self.counters, values, self.k, self.m, self.seed_word, 1)

    def remove(self, fingerprints: object) -> None:
        """Decrement the counters of values that were added (removing others corrupts it)."""
        values = as_fingerprints(fingerprints)
        pmbf.add_counts(self.counters, values, self.k, self.m, self.seed_word, -1)

    def contains(self, fingerprints: object) -> B:
        values = as_fingerprints(fingerprints)
        return pmbf.test_bits(self.to_bloom().words, values, self.k, self.m, self.seed_word)

    def to_bloom(self) -> BloomFilter:
        """The classic filter of the same elements (a bit for every non-zero counter)."""
        out = BloomFilter(m=self.m, k=self.k, seed=self.seed)
        nz = np.flatnonzero(self.counters).astype(np.uint64)
        np.bitwise_or.at(out.words, nz >> np.uint64(6), np.uint64(1) << (nz & np.uint64(63)))
        return out

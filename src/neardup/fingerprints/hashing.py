"""Hash families for shingle fingerprints, and the birthday bound on their collisions.

A family is named, seeded and versioned by the :class:`~neardup.spec.FingerprintSpec`; it maps
the canonical UTF-8 text of each shingle (its terms joined by single spaces) to a ``uint64``
below ``2^bits``. The same text and spec give the same value on every machine and release:
golden vectors in the tests pin them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from neardup._kernels import hashing
from neardup.spec import FingerprintSpec

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]


def _is_prime(n: int) -> bool:
    """Deterministic Miller–Rabin for n < 3.3e24 (the first 13 primes as bases)."""
    if n < 2:
        return False
    bases = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for q in bases:
        if n % q == 0:
            return n == q
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in bases:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


@lru_cache(maxsize=64)
def rabin_modulus(bits: int) -> tuple[int, int]:
    """``(p, c)``: the largest prime ``p = 2^bits - c`` below ``2^bits``."""
    c = 1
    while not _is_prime((1 << bits) - c):
        c += 1
    return (1 << bits) - c, c


def splitmix64(x: int) -> int:
    """One step of SplitMix64: a fixed, well-mixed 64-bit function of ``x`` for deriving seeds."""
    x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return x ^ (x >> 31)


def rabin_base(seed: int, bits: int) -> int:
    """The Rabin–Karp base for a seed: in ``[256, p)``, so every byte value is a digit."""
    p, _ = rabin_modulus(bits)
    return 256 + splitmix64(seed) % (p - 256)


@dataclass(frozen=True)
class RabinTables:
    """The precomputed tables of a Rabin–Karp family, as the batch kernels take them.

    ``table`` holds ``b * B^j mod p`` for every byte value ``b`` and ``j <
    RK_TABLE_ROWS``; ``power`` and ``space_power`` hold ``B^x`` and ``32 * B^x`` for ``x <
    RK_POWERS``; ``p = 2^bits - c``.
    """

    table: U64
    power: U64
    space_power: U64
    bits: int
    c: np.uint64


class HashFamily:
    """Hashes byte spans of a canonical stream under a :class:`FingerprintSpec`."""

    def __init__(self, spec: FingerprintSpec) -> None:
        self.spec = spec
        self.bits = spec.bits
        self.mask = np.uint64((1 << spec.bits) - 1) if spec.bits < 64 else np.uint64(2**64 - 1)
        if spec.family == "rabin":
            _, c = rabin_modulus(spec.bits)
            self._c = np.uint64(c)
            self._base = np.uint64(rabin_base(spec.seed, spec.bits))
            # byte table and powers, so that the kernels multiply per shingle, not per byte
            self._table = hashing.rabin_table(self._base, self.bits, self._c)
            self._power, self._space_power = hashing.rabin_powers(
                self._base, hashing.RK_POWERS, self.bits, self._c
            )
            self._power_rows = self._power[hashing.RK_TABLE_ROWS]

    @property
    def rabin_tables(self) -> RabinTables | None:
        """The Rabin–Karp tables (shared, not to be written), or ``None`` for another family."""
        if self.spec.family != "rabin":
            return None
        return RabinTables(self._table, self._power, self._space_power, self.bits, self._c)

    def spans(self, buf: U8, starts: I64, ends: I64) -> U64:
        """The fingerprint of each byte span ``buf[starts[i]:ends[i]]``."""
        family = self.spec.family
        if family == "rabin":
            return hashing.rabin_spans_table(
                buf, starts, ends, self._table, self._power_rows, self.bits, self._c
            )
        if family == "crc32":
            return hashing.crc_spans(buf, starts, ends, hashing.CRC32_TABLE, 32)
        if family == "crc64":
            values = hashing.crc_spans(buf, starts, ends, hashing.CRC64_TABLE, 64)
        else:
            from neardup._kernels.xxh3 import xxh3_64_spans

            values = xxh3_64_spans(buf, starts, ends - starts, np.uint64(self.spec.seed))
        return values & self.mask if self.bits < 64 else values

    def word_shingles(
        self, buf: U8, byte_starts: I64, byte_ends: I64, first_tokens: I64, k: int
    ) -> U64:
        """Fingerprints of the word shingles starting at ``first_tokens`` (``k`` tokens each)."""
        if self.spec.family == "rabin":
            return hashing.rabin_word_shingles_table(
                buf,
                byte_starts,
                byte_ends,
                first_tokens,
                k,
                self._table,
                self._power,
                self._space_power,
                self.bits,
                self._c,
            )
        last = np.minimum(first_tokens + k, byte_starts.shape[0]) - 1
        return self.spans(buf, byte_starts[first_tokens], byte_ends[last])


def reference_fingerprint(spec: FingerprintSpec, data: bytes) -> int:
    """The fingerprint of one byte string, in plain Python: the definition the kernels meet."""
    if spec.family == "rabin":
        p, _ = rabin_modulus(spec.bits)
        base = rabin_base(spec.seed, spec.bits)
        h = 0
        for byte in data:
            h = (h * base + byte) % p
        return h
    if spec.family == "crc32":
        import zlib

        return zlib.crc32(data)
    mask = (1 << spec.bits) - 1
    if spec.family == "crc64":
        crc = 0xFFFFFFFFFFFFFFFF
        for byte in data:
            crc ^= byte
            for _ in range(8):
                crc = (crc >> 1) ^ 0xC96C5795D7870F42 if crc & 1 else crc >> 1
        return (crc ^ 0xFFFFFFFFFFFFFFFF) & mask
    import xxhash

    return xxhash.xxh3_64_intdigest(data, seed=spec.seed) & mask


# --- 128-bit fingerprints (the web-articles compilation: "32, 64 or 128 bits")
# -----------------------------------

#: Wide hash families and the widths they allow: their values do not fit the ``uint64``
#: fingerprint arrays of the pipeline, so they serve the collision count
# (neardup.research.collisions).
WIDE_FAMILY_WIDTHS: dict[str, tuple[int, int]] = {"md5": (32, 128)}


@dataclass(frozen=True)
class WideFamilySpec:
    """A wide hash family kept to ``bits`` of its output: ``md5`` (RFC 1321) of the same
    canonical shingle bytes the 64-bit families hash, its value the first ``bits`` bits of the
    digest (``int(hexdigest, 16) >> (128 - bits)``). Unseeded: ``seed`` must be 0."""

    family: str = "md5"
    bits: int = 128
    seed: int = 0

    def __post_init__(self) -> None:
        from neardup.errors import SpecError

        if self.family not in WIDE_FAMILY_WIDTHS:
            raise SpecError(
                f"unknown wide hash family {self.family!r}; expected one of "
                f"{', '.join(WIDE_FAMILY_WIDTHS)}"
            )
        low, high = WIDE_FAMILY_WIDTHS[self.family]
        if isinstance(self.bits, bool) or not isinstance(self.bits, int):
            raise SpecError(f"{self.family} takes a width in bits, got {self.bits!r}")
        if not low <= self.bits <= high:
            raise SpecError(f"{self.family} takes a width of {low} to {high} bits, got {self.bits}")
        if self.seed:
            raise SpecError(f"{self.family} is a fixed standard function and takes no seed")


class WideHashFamily:
    """Hashes byte spans like :class:`HashFamily`, returning each value as two ``uint64``
    halves ``(hi, lo)`` with ``value = hi·2^64 + lo`` (``hi`` is 0 for 64 bits or fewer)."""

    def __init__(self, spec: WideFamilySpec) -> None:
        self.spec = spec
        self.bits = spec.bits

    def spans(self, buf: U8, starts: I64, ends: I64) -> tuple[U64, U64]:
        """The value of each byte span ``buf[starts[i]:ends[i]]`` as ``(hi, lo)``."""
        from neardup._kernels.md5 import md5_spans

        return self.truncate(*md5_spans(buf, starts, ends))

    def truncate(self, hi: U64, lo: U64) -> tuple[U64, U64]:
        """Full 128-bit values ``(hi, lo)`` kept to this family's ``bits`` (the top bits)."""
        shift = 128 - self.bits
        if shift == 0:
            return hi, lo
        if shift < 64:
            return hi >> np.uint64(shift), (lo >> np.uint64(shift)) | (hi << np.uint64(64 - shift))
        return np.zeros_like(hi), hi >> np.uint64(shift - 64)

    def word_shingles(
        self, buf: U8, byte_starts: I64, byte_ends: I64, first_tokens: I64, k: int
    ) -> tuple[U64, U64]:
        """Values of the word shingles starting at ``first_tokens`` (``k`` tokens each)."""
        last = np.minimum(first_tokens + k, byte_starts.shape[0]) - 1
        return self.spans(buf, byte_starts[first_tokens], byte_ends[last])


def reference_wide_fingerprint(spec: WideFamilySpec, data: bytes) -> int:
    """The value of one byte string under a wide family, in plain Python (``hashlib``)."""
    import hashlib

    return int(hashlib.md5(data).hexdigest(), 16) >> (128 - spec.bits)


# --- the birthday bound (the shingle-method paper, Table 2)
# -------------------------------------------------


def collision_probability(distinct: float, bits: int) -> float:
    """Probability of at least one collision among ``distinct`` values in ``2^bits``:
    ``1 - exp(-n^2 / (2 * 2^bits))``."""
    return -math.expm1(-(distinct**2) / (2.0 * 2.0**bits))


def shingles_for_probability(probability: float, bits: int) -> float:
    """How many distinct shingles make a collision as likely as ``probability``:
    ``sqrt(2 * 2^bits * ln(1 / (1 - P)))``."""
    if not 0.0 < probability < 1.0:
        raise ValueError(f"probability must be in (0, 1), got {probability}")
    return math.sqrt(2.0 * 2.0**bits * -math.log1p(-probability))


def expected_collisions(distinct: float, bits: int) -> float:
    """Expected number of colliding pairs among ``distinct`` values: ``n(n-1) / 2^(bits+1)``."""
    return distinct * (distinct - 1) / 2.0 ** (bits + 1)

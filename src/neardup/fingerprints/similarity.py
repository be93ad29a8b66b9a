"""Exact similarity of two fingerprint sets (the shingle-method paper): resemblance, Sørensen–Dice,
containment.

Sets are sorted arrays of distinct ``uint64`` values; multisets add a count per value. Every
measure comes from one merge of the two arrays, O(m + n).

Empty input: a text with no shingles (empty, or only stop words) shares nothing, so every
measure against it is 0.0 — also for two empty texts; there is no evidence that they are alike.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import numpy.typing as npt

from neardup._arguments import public
from neardup._kernels import setops
from neardup._sorted import distinct, distinct_counts
from neardup.errors import InputError, SpecMismatchError, WrongTypeError

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


@public
@dataclass(frozen=True)
class Fingerprints:
    """A document's sorted distinct shingle fingerprints (with counts for multisets)."""

    values: U64
    counts: I64 | None = None
    spec_fingerprint: str = ""

    def __post_init__(self) -> None:
        values = self.values
        if not isinstance(values, np.ndarray) or values.dtype != np.uint64 or values.ndim != 1:
            raise WrongTypeError(
                f"fingerprint values must be a 1-d uint64 array, got {_kind(values)}"
            )
        if self.counts is not None:
            if not isinstance(self.counts, np.ndarray) or self.counts.dtype != np.int64:
                raise WrongTypeError(
                    f"fingerprint counts must be an int64 array, got {_kind(self.counts)}"
                )
            if self.counts.shape != values.shape:
                raise InputError(
                    f"fingerprint counts have shape {self.counts.shape}, values {values.shape}"
                )
        if not isinstance(self.spec_fingerprint, str):
            raise WrongTypeError(
                f"spec_fingerprint must be a str, got {type(self.spec_fingerprint).__name__}"
            )

    def __len__(self) -> int:
        return int(self.values.shape[0])

    @property
    def size(self) -> int:
        """The set size, or the multiset size (sum of counts) when counts are kept."""
        return int(self.counts.sum()) if self.counts is not None else len(self)

    @classmethod
    def from_hashes(
        cls, hashes: U64, *, multiset: bool = False, spec_fingerprint: str = ""
    ) -> Fingerprints:
        """The sorted distinct values of ``hashes`` (what ``np.unique`` gives, with counts
        for a multiset; :mod:`neardup._sorted`, several times faster than ``np.unique``)."""
        try:
            hashes = np.asarray(hashes, dtype=np.uint64)
        except (OverflowError, ValueError) as exc:
            raise InputError(f"hashes must be unsigned 64-bit integers: {exc}") from None
        if multiset:
            values, counts = distinct_counts(hashes)
            return cls(values, counts, spec_fingerprint)
        return cls(distinct(hashes), None, spec_fingerprint)


@dataclass(frozen=True)
class Measures:
    """The measures between A and B and the counts they come from."""

    resemblance: float
    sorensen: float
    containment_ab: float
    containment_ba: float
    shingles_a: int
    shingles_b: int
    shared: int

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


def _kind(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"a {value.ndim}-d {value.dtype} array"
    return type(value).__name__


def _ratio(num: int, den: int) -> float:
    return num / den if den else 0.0


def measures_from_counts(size_a: int, size_b: int, shared: int) -> Measures:
    """All measures from ``|A|``, ``|B|`` and ``|A ∩ B|`` (multiset sizes for multisets)."""
    return Measures(
        resemblance=_ratio(shared, size_a + size_b - shared),
        sorensen=_ratio(2 * shared, size_a + size_b),
        containment_ab=_ratio(shared, size_a),
        containment_ba=_ratio(shared, size_b),
        shingles_a=size_a,
        shingles_b=size_b,
        shared=shared,
    )


def overlap(a: Fingerprints, b: Fingerprints) -> int:
    """``|A ∩ B|``, or ``Σ min`` of the counts for two multisets."""
    if a.spec_fingerprint and b.spec_fingerprint and a.spec_fingerprint != b.spec_fingerprint:
        raise SpecMismatchError(
            f"fingerprints made under spec {a.spec_fingerprint} and {b.spec_fingerprint} "
            "cannot be compared"
        )
    if (a.counts is None) != (b.counts is None):
        raise SpecMismatchError("cannot compare a set with a multiset")
    if a.counts is not None and b.counts is not None:
        return int(setops.multiset_overlap(a.values, a.counts, b.values, b.counts))
    return int(setops.intersection_size(a.values, b.values))


def compare(a: Fingerprints, b: Fingerprints) -> Measures:
    """Resemblance, Sørensen and containment both ways of two fingerprint sets or multisets."""
    return measures_from_counts(a.size, b.size, overlap(a, b))


def resemblance(a: Fingerprints, b: Fingerprints) -> float:
    """Jaccard: ``|A ∩ B| / |A ∪ B|`` (multisets: ``Σ min / Σ max``)."""
    return compare(a, b).resemblance


def sorensen(a: Fingerprints, b: Fingerprints) -> float:
    """Sørensen–Dice: ``2c / (a + b)``."""
    return compare(a, b).sorensen


def containment(a: Fingerprints, b: Fingerprints) -> float:
    """How much of A is in B: ``|A ∩ B| / |A|``."""
    return compare(a, b).containment_ab

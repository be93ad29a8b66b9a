"""Bloom filter sizing as the pseudo-matrix Bloom filter paper does it.

Formula (1) of the paper, the false-positive probability of a filter of ``m`` bits holding ``n``
elements with ``k`` hash functions::

    p = (1 − e^(−k·n/m))^k

and formula (2), the bits for ``n`` elements at an accepted risk ``p`` (with the best ``k``)::

    m = −n · ln p / (ln 2)²,        k = (m / n) · ln 2

``m`` is rounded up to a whole bit; ``k`` is the integer next to ``(m / n) ln 2`` (below or
above) that gives the smaller ``p`` by formula (1). For ``n = 123,000`` and ``p = 0.05``:
``m = 766,933`` bits (≈ 94 KiB) and ``k = 4`` — the paper's Table 1.

For a corpus (Table 1's last rows), a pseudo-matrix filter of rows sized for ``n`` needs
``d = ceil(total shingles / n)`` rows (documents are packed; the paper: d = 4,489 rows for the
14,428 PAN-PC-09 documents, ≈ 411 MB), where a matrix filter of one row per document needs one
row per document (14,428 rows: 1 : 3.2).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from neardup.errors import InputError

#: the pseudo-matrix Bloom filter paper, Table 1: the row capacity (words), the accepted risk, the
#: rows, the documents
PAPER_N = 123_000
PAPER_P = 0.05
PAPER_M = 766_933
PAPER_ROWS = 4_489
PAPER_DOCUMENTS = 14_428
PAPER_TOTAL_MB = 411
#: the paper's block: 14,428 documents of about 38,000 words on average; d = 4,489 rows of
#: 123,000 words means about 552.1 million words in all
PAPER_TOTAL_SHINGLES = PAPER_ROWS * PAPER_N


def _check_n(n: int, what: str = "n") -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"{what} must be a whole number ≥ 1, got {n!r}")


def _check_p(p: float) -> None:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 < p < 1.0:
        raise InputError(f"p must be a probability strictly between 0 and 1, got {p!r}")


def false_positive_rate(m: int, n: int, k: int) -> float:
    """Formula (1): the chance that an element not added tests present, ``(1 − e^(−kn/m))^k``."""
    _check_n(m, "m")
    _check_n(k, "k")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InputError(f"n must be a whole number ≥ 0, got {n!r}")
    return float((1.0 - math.exp(-k * n / m)) ** k)


def optimal_bits(n: int, p: float) -> int:
    """Formula (2): the bits ``m = ceil(−n ln p / (ln 2)²)`` for ``n`` elements at risk ``p``."""
    _check_n(n)
    _check_p(p)
    return math.ceil(-n * math.log(p) / (math.log(2) ** 2))


def optimal_hashes(m: int, n: int) -> int:
    """The hash count for ``m`` bits and ``n`` elements: the integer next to ``(m/n) ln 2``
    (floor or ceiling, at least 1) with the smaller false-positive rate."""
    _check_n(m, "m")
    _check_n(n)
    best = m / n * math.log(2)
    low = max(1, math.floor(best))
    high = max(1, math.ceil(best))
    return min((low, high), key=lambda k: (false_positive_rate(m, n, k), k))


@dataclass(frozen=True)
class BloomSize:
    """The size of one Bloom filter (one row of a pseudo-matrix filter) for ``n`` and ``p``."""

    n: int
    p: float
    m: int
    k: int
    fp_rate: float

    @property
    def words(self) -> int:
        """``uint64`` words holding the ``m`` bits."""
        return -(-self.m // 64)

    @property
    def bytes(self) -> int:
        """Bytes of one filter as stored (whole ``uint64`` words)."""
        return self.words * 8

    @property
    def bits_per_element(self) -> float:
        return self.m / self.n

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.update(words=self.words, bytes=self.bytes, bits_per_element=self.bits_per_element)
        return out


def bloom_size(n: int, p: float, *, k: int | None = None) -> BloomSize:
    """``m`` and ``k`` for ``n`` elements at risk ``p`` (formula 2); ``fp_rate`` is formula (1)
    at the rounded ``m`` and the integer ``k`` (a given ``k`` is used as it is)."""
    m = optimal_bits(n, p)
    if k is None:
        k = optimal_hashes(m, n)
    _check_n(k, "k")
    return BloomSize(n=n, p=float(p), m=m, k=k, fp_rate=false_positive_rate(m, n, k))


@dataclass(frozen=True)
class CorpusSize:
    """Table 1 for a corpus: the pseudo-matrix filter's rows and bytes beside the matrix
    filter's (one row per document)."""

    row: BloomSize
    documents: int
    total_shingles: int

    @property
    def rows(self) -> int:
        """``d``: rows of the pseudo-matrix filter, ``ceil(total shingles / n)`` (packed)."""
        return -(-self.total_shingles // self.row.n)

    @property
    def bytes(self) -> int:
        """``M``: the pseudo-matrix filter's bytes (``d`` rows of whole words)."""
        return self.rows * self.row.bytes

    @property
    def matrix_rows(self) -> int:
        """Rows of a matrix filter with one document per row."""
        return self.documents

    @property
    def matrix_bytes(self) -> int:
        return self.matrix_rows * self.row.bytes

    @property
    def compression(self) -> float:
        """How many times fewer rows than the matrix filter (the paper: 1 : 3.2)."""
        return self.matrix_rows / self.rows if self.rows else 0.0

    @property
    def mean_shingles(self) -> float:
        return self.total_shingles / self.documents if self.documents else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "row": self.row.to_dict(),
            "documents": self.documents,
            "total_shingles": self.total_shingles,
            "mean_shingles": self.mean_shingles,
            "rows": self.rows,
            "bytes": self.bytes,
            "matrix_rows": self.matrix_rows,
            "matrix_bytes": self.matrix_bytes,
            "compression": self.compression,
        }


def corpus_size(
    n: int, p: float, *, documents: int, total_shingles: int, k: int | None = None
) -> CorpusSize:
    """Rows and bytes of a pseudo-matrix filter for a corpus (the paper's Table 1)."""
    _check_n(documents, "documents")
    _check_n(total_shingles, "total shingles")
    return CorpusSize(bloom_size(n, p, k=k), documents, total_shingles)

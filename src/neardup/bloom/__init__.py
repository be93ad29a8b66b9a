"""Bloom filters for fast text comparison (the pseudo-matrix Bloom filter paper): sizing, the
classic, counting and matrix filters, and the pseudo-matrix filter as a candidate stage for partial
copies.

Every filter takes the pipeline's fingerprints (sorted distinct ``uint64`` arrays) and hashes
them with seeded functions, so the same text under the same spec and seed sets the same bits
everywhere. See ``docs/bloom.md``.
"""

from __future__ import annotations

from neardup.bloom.classic import BloomFilter, CountingBloomFilter
from neardup.bloom.pseudo_matrix import (
    Candidates,
    MatrixBloomFilter,
    Part,
    PseudoMatrixBloomFilter,
    RowScores,
)
from neardup.bloom.search import Verified, mark_fragments, verify
from neardup.bloom.sizing import (
    BloomSize,
    CorpusSize,
    bloom_size,
    corpus_size,
    false_positive_rate,
    optimal_bits,
    optimal_hashes,
)

__all__ = [
    "BloomFilter",
    "BloomSize",
    "Candidates",
    "CorpusSize",
    "CountingBloomFilter",
    "MatrixBloomFilter",
    "Part",
    "PseudoMatrixBloomFilter",
    "RowScores",
    "Verified",
    "bloom_size",
    "corpus_size",
    "false_positive_rate",
    "mark_fragments",
    "optimal_bits",
    "optimal_hashes",
    "verify",
]

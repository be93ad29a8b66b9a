"""Sizing against formulas (1) and (2) of seed 001 and its Table 1."""

from __future__ import annotations

import math

import pytest

from neardup.bloom import bloom_size, corpus_size, false_positive_rate, optimal_bits
from neardup.bloom.sizing import PAPER_DOCUMENTS, PAPER_ROWS, PAPER_TOTAL_SHINGLES
from neardup.errors import InputError


def test_paper_table_1_row() -> None:
    size = bloom_size(123_000, 0.05)
    assert size.m == 766_933  # the paper's figure
    assert size.k == 4  # (m/n) ln 2 = 4.32; 4 gives the smaller p by formula (1)
    assert size.words == 11_984
    assert size.bytes == 95_872  # "about 94 KB"
    assert size.fp_rate == pytest.approx((1 - math.exp(-4 * 123_000 / 766_933)) ** 4)
    assert size.fp_rate == pytest.approx(0.05, abs=0.002)


def test_optimal_bits_is_the_formula_rounded_up() -> None:
    for n, p in [(1, 0.5), (1000, 0.01), (123_000, 0.05), (7, 1e-9)]:
        assert optimal_bits(n, p) == math.ceil(-n * math.log(p) / math.log(2) ** 2)
    assert optimal_bits(1000, 0.01) == 9586


def test_k_is_the_better_neighbour() -> None:
    size = bloom_size(1000, 0.01)
    best = size.m / size.n * math.log(2)  # 6.64
    assert size.k == 7
    assert false_positive_rate(size.m, 1000, 7) < false_positive_rate(size.m, 1000, 6)
    assert math.floor(best) <= size.k <= math.ceil(best)


def test_false_positive_rate_values() -> None:
    assert false_positive_rate(100, 0, 3) == 0.0
    assert false_positive_rate(8, 8, 1) == pytest.approx(1 - math.exp(-1))


def test_paper_corpus() -> None:
    corpus = corpus_size(
        123_000, 0.05, documents=PAPER_DOCUMENTS, total_shingles=PAPER_TOTAL_SHINGLES
    )
    assert corpus.rows == PAPER_ROWS == 4489
    assert corpus.bytes == 4489 * 95_872
    assert round(corpus.bytes / 2**20) == 410  # the paper: "M ≈ 411 MB" (4,489 × 766,933 bits)
    assert corpus.compression == pytest.approx(14_428 / 4_489)
    assert round(corpus.compression, 1) == 3.2
    assert corpus_size(10, 0.1, documents=3, total_shingles=21).rows == 3


@pytest.mark.parametrize(
    ("n", "p"), [(0, 0.05), (-1, 0.05), (10, 0.0), (10, 1.0), (10, 1.5), (True, 0.1)]
)
def test_bad_values(n: int, p: float) -> None:
    with pytest.raises(InputError):
        bloom_size(n, p)

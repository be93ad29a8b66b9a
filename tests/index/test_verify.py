"""Verification gives exactly the measures of neardup.fingerprints.similarity.compare, and the
uniqueness."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.fingerprints.similarity import Fingerprints, compare
from neardup.index.verify import verify


def _random_set(rng: np.random.Generator, n: int, universe: int) -> np.ndarray:
    return np.unique(rng.integers(0, universe, n).astype(np.uint64))


def test_sets_equal_compare() -> None:
    rng = np.random.default_rng(1)
    q = _random_set(rng, 300, 2000)
    cands = [_random_set(rng, n, 2000) for n in (0, 1, 50, 300, 1500)]
    result = verify(q, None, [(c, None) for c in cands])
    for c, m in zip(cands, result.measures):
        assert m == compare(Fingerprints(q), Fingerprints(c))
    union = np.unique(np.concatenate(cands))
    assert result.uniqueness == pytest.approx(1 - np.isin(q, union).mean())


def test_multisets_equal_compare() -> None:
    rng = np.random.default_rng(2)
    q = _random_set(rng, 100, 300)
    qc = rng.integers(1, 4, q.shape[0]).astype(np.int64)
    cands = []
    for n in (10, 100, 200):
        v = _random_set(rng, n, 300)
        cands.append((v, rng.integers(1, 4, v.shape[0]).astype(np.int64)))
    result = verify(q, qc, cands)
    for (v, c), m in zip(cands, result.measures):
        assert m == compare(Fingerprints(q, qc), Fingerprints(v, c))


def test_no_candidates_and_empty_query() -> None:
    q = np.array([1, 2, 3], dtype=np.uint64)
    r = verify(q, None, [])
    assert r.measures == [] and r.uniqueness == 1.0
    r = verify(np.zeros(0, dtype=np.uint64), None, [(q, None)])
    assert r.measures[0].resemblance == 0.0 and r.uniqueness == 1.0

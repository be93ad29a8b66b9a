"""benchmarks/fit_combined.py, the one fit of the combined model, on pairs made up here: the
noisy OR learns either kind of evidence within its bounds, the calibration puts 0.5 where each
set's F1 is best, and the same pairs give the same model."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from neardup.score.combined import MEASURES

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def fit_combined() -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location("fit_combined", BENCHMARKS / "fit_combined.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fit_combined"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _measures(shared5: float, terms: float, tokens: int) -> list[float]:
    """One pair's raw measures: ``shared5`` word 5-shingles and ``terms`` word 1-grams shared
    by two texts of ``tokens`` canonical tokens each (and as many written 3-grams)."""
    row = dict.fromkeys(MEASURES, 0.0)
    row.update(
        word5_shared=shared5,
        word5_a=tokens - 4,
        word5_b=tokens - 4,
        terms_shared=terms,
        terms_a=tokens,
        terms_b=tokens,
        written3_shared=terms * 3,
        written3_a=tokens * 3,
        written3_b=tokens * 3,
        tfidf_pair=terms / tokens,
        tokens_a=tokens,
        tokens_b=tokens,
    )
    return [row[m] for m in MEASURES]


def _pairs(module: ModuleType, name: str, rows: list[tuple[float, float, int, int]]) -> object:
    sets = module.cs
    pairs = sets.Pairs(
        name,
        [],
        np.zeros(len(rows), np.int64),
        np.zeros(len(rows), np.int64),
        np.array([r[3] for r in rows], np.int8),
    )
    pairs.measures = np.array([_measures(s, t, n) for s, t, n, _ in rows])
    return pairs


def _documents(module: ModuleType, seed: int) -> object:
    """Documents of 200 tokens: copies share a passage (verbatim) or most words (a rewrite);
    others share a few words and no passage."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(60):
        rows.append((float(rng.integers(15, 60)), float(rng.integers(20, 60)), 200, 1))
        rows.append((0.0, float(rng.integers(130, 190)), 200, 1))
        rows.append((0.0, float(rng.integers(10, 70)), 200, 0))
        rows.append((float(rng.integers(0, 2)), float(rng.integers(10, 60)), 200, 0))
    return _pairs(module, f"documents {seed}", rows)


def test_the_noisy_or_learns_each_kind_of_evidence_within_its_bounds(
    fit_combined: ModuleType,
) -> None:
    config = fit_combined.Config()
    x, _ = fit_combined.rows_of(_documents(fit_combined, 1), config)
    y = np.tile([1, 1, 0, 0], 60)
    regime = config.regimes.index("document")
    bounds = [config.bounds(regime, 0), config.bounds(regime, 1)]
    weights, intercepts = fit_combined._noisy_or(x, y, np.ones(len(y)), 30.0, bounds)
    verbatim, vocabulary = (dict(zip(config.features, w, strict=True)) for w in weights)
    assert verbatim["shared_word5"] > 1.0  # a passage in common is evidence
    assert max(vocabulary["tfidf_pair"], vocabulary["containment_word1"]) > 1.0  # so are words
    for low_high, w in zip(bounds, weights, strict=True):
        for (low, high), value in zip(low_high, w, strict=True):
            assert (low is None or value >= low - 1e-9) and (high is None or value <= high + 1e-9)
    assert all(verbatim[f] == 0.0 for f in config.features if f not in config.verbatim)
    assert intercepts.shape == (2,)


def test_the_thresholds_bring_each_set_to_its_best_f1(fit_combined: ModuleType) -> None:
    # one regime, two sets: the first is cut right in (-1, 0.5], the second in (0.3, 1.5]
    z = np.array([-2.0, -1.0, 0.5, 1.0, 2.0, -2.0, -1.5, 0.3, 1.5, 3.0])
    y = np.array([0, 0, 1, 1, 1, 0, 0, 0, 1, 1])
    group = np.array([0] * 5 + [1] * 5)
    thresholds, gaps = fit_combined.choose_thresholds(z, y, np.zeros(10, np.int64), group, 1)
    assert 0.3 < thresholds[0] <= 0.5
    assert gaps == {0: pytest.approx(0.0), 1: pytest.approx(0.0)}


def test_a_fit_calibrates_its_sets_and_is_repeatable(fit_combined: ModuleType) -> None:
    sets = [_documents(fit_combined, 1), _documents(fit_combined, 2)]
    model = fit_combined.fit(sets)
    assert [r.name for r in model.regimes] == ["part", "sentence", "paragraph", "document"]
    for p in sets:
        scores = fit_combined.scores(model, p)
        said = scores >= 0.5
        assert (said == (p.y == 1)).mean() > 0.95  # type: ignore[attr-defined]
    again = fit_combined.fit(sets)
    assert again.to_dict() == model.to_dict()
    assert set(model.fit["out_of_fold_f1_gap_at_0.5"]) == {p.name for p in sets}  # type: ignore[attr-defined]

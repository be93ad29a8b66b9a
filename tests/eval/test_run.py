"""Reports of a method over a dataset: pairs, clusters, fragments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from neardup.eval import formats, methods, run
from neardup.eval.formats import ClusterDataset, Fragment, LabelledText
from neardup.fingerprints.pipeline import make_spec
from tests.eval.texts import EN

PLAIN = make_spec("plain", k=3)


def test_pair_report_shape_and_breakdowns() -> None:
    labels = [1, 1, 1, 1, 0, 0, 0]
    scores = [0.9, 0.7, 0.4, 0.2, 0.3, 0.1, 0.0]
    kinds = ["a", "a", "b", "b", "random", "random", "hard"]
    levels = [0.1, 0.3, 0.1, 0.3, float("nan"), float("nan"), float("nan")]
    report = run.pair_report(labels, scores, kinds, levels, threshold=0.5, min_precision=0.99)
    assert {"auc", "best_f1", "best_threshold", "n"} <= report.keys()
    assert report["n"] == 7 and report["positives"] == 4
    assert report["precision"] == 1.0 and report["recall"] == 0.5
    # F1 is 6/7 at 0.4 (3 of 4 found, no false positive) but 8/9 at 0.2 (4 found, 1 false)
    assert report["best_threshold"] == 0.2 and report["best_f1"] == pytest.approx(8 / 9, abs=1e-6)
    assert report["recall_at_min_precision"] == 0.75 and report["threshold_at_min_precision"] == 0.4
    assert report["auc"] == pytest.approx(11 / 12, abs=1e-6)
    assert report["by_kind"]["a"]["auc"] == 1.0 and report["by_kind"]["b"]["recall"] == 0.0
    assert report["by_level"]["b"]["0.1"]["recall_at_best"] == 1.0
    assert report["by_level"]["b"]["0.3"]["recall_at_best"] == 1.0
    assert report["by_level"]["b"]["0.3"]["recall_at_min_precision"] == 0.0
    assert report["negatives_by_kind"]["random"]["max_score"] == 0.3


def test_pair_report_without_kinds_is_flat() -> None:
    report = run.pair_report([1, 0], [0.8, 0.1])
    assert "by_kind" not in report and "negatives_by_kind" not in report
    assert report["auc"] == 1.0


def test_given_scores(tmp_path: Any) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(
        '{"a": "x", "b": "y", "label": 1, "score": 0.9}\n{"a": "x", "b": "z", "label": 0}\n'
    )
    data = formats.read_pairs(path)
    with pytest.raises(formats.DatasetError, match="pair 2 .* has none"):
        run.evaluate_pairs(data, None)


def _clusters() -> ClusterDataset:
    docs = []
    for i, text in enumerate(EN):
        docs.append(LabelledText(f"d{i}", text, f"c{i}"))
    docs.append(LabelledText("dup0", EN[0], "c0"))
    docs.append(LabelledText("dup0b", "  " + EN[0] + "\n", "c0"))
    docs.append(LabelledText("dup3", EN[3], "c3"))
    return ClusterDataset("mem", docs)


@pytest.mark.parametrize("name", ["resemblance", "tfidf", "minhash"])
def test_exact_duplicate_clusters_are_recovered(name: str) -> None:
    scorer = methods.build(name, PLAIN)
    report, predicted = run.evaluate_clusters(_clusters(), scorer, PLAIN, threshold=0.9)
    assert (
        report["ari"] == 1.0
        and report["pair_recall"] == 1.0
        and report["direct_pair_recall"] == 1.0
    )
    assert (
        report["true_groups"] == 2 and report["groups_recovered"] == 2 and report["true_pairs"] == 4
    )
    assert len(set(predicted.tolist())) == len(EN)


class _NoNeighbours:
    """A scorer without ``neighbours``: the evaluation must find candidates itself."""

    def __init__(self) -> None:
        self.inner = methods.build("resemblance", PLAIN)

    def features(self, texts: Sequence[str], progress: Any = None) -> Any:
        return self.inner.features(texts, progress)

    def score(self, features: Any, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self.inner.score(features, a, b)


@pytest.mark.parametrize("limit", [2, 10_000])
def test_clusters_without_neighbours(monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
    monkeypatch.setattr(run, "ALL_PAIRS_LIMIT", limit)
    report, _ = run.evaluate_clusters(_clusters(), _NoNeighbours(), PLAIN, threshold=0.9)
    assert report["ari"] == 1.0 and report["links"] == 4


@pytest.mark.parametrize("threshold", [0.0, 0.01, 0.05])
def test_low_thresholds_give_the_same_clusters_on_every_path(
    monkeypatch: pytest.MonkeyPatch, threshold: float
) -> None:
    scorer = methods.build("resemblance", PLAIN)
    with_neighbours, _ = run.evaluate_clusters(_clusters(), scorer, PLAIN, threshold=threshold)
    brute, _ = run.evaluate_clusters(_clusters(), _NoNeighbours(), PLAIN, threshold=threshold)
    monkeypatch.setattr(run, "ALL_PAIRS_LIMIT", 2)
    candidates, _ = run.evaluate_clusters(_clusters(), _NoNeighbours(), PLAIN, threshold=threshold)
    assert with_neighbours == brute == candidates
    assert with_neighbours["pair_recall"] == 1.0


def test_fragment_report_by_level() -> None:
    truth = [
        Fragment("s", "u1", 0, 10, 0, 10, "partial", 0.1),
        Fragment("s", "u2", 0, 20, 5, 20, "partial", 0.3),
    ]
    detections = [Fragment("s", "u1", 0, 10, 0, 10)]
    report = run.fragment_report(truth, detections, pairs_examined=2)
    assert report["recall"] == 0.5 and report["precision"] == 1.0
    assert report["by_level"]["partial"]["0.1"]["plagdet"] == 1.0
    assert report["by_level"]["partial"]["0.3"]["recall"] == 0.0


def test_detect_all_runs_the_detector_on_each_pair() -> None:
    detector = methods.build_fragments("shingle-spans", PLAIN)
    source = EN[1]
    suspicious = EN[4] + " " + source
    found = run.detect_all(
        detector, {"s": source, "u": suspicious, "x": EN[2]}, [("s", "u"), ("x", "u")]
    )
    assert [(f.source_id, f.suspicious_id) for f in found] == [("s", "u")]
    assert suspicious[found[0].suspicious_offset :].startswith("The central bank")

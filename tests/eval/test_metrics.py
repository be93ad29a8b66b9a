"""The measures: hand-computed values, and scikit-learn's where it has the same measure."""

from __future__ import annotations

import math

import numpy as np
import pytest

from neardup.eval import metrics
from neardup.eval.formats import Fragment

sklearn_metrics = pytest.importorskip("sklearn.metrics")


def test_auc_hand_values() -> None:
    assert metrics.roc_auc([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9]) == 1.0
    assert metrics.roc_auc([0, 0, 1, 1], [0.9, 0.8, 0.2, 0.1]) == 0.0
    # one positive ties one negative: counts one half
    assert metrics.roc_auc([0, 1], [0.5, 0.5]) == 0.5
    assert metrics.roc_auc([0, 0, 1], [0.1, 0.5, 0.5]) == 0.75
    assert math.isnan(metrics.roc_auc([1, 1], [0.1, 0.2]))


def test_auc_matches_sklearn_with_ties() -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, size=500)
    s = np.round(rng.random(500) * 0.5 + 0.4 * y, 2)  # rounding makes many ties
    assert metrics.roc_auc(y, s) == pytest.approx(sklearn_metrics.roc_auc_score(y, s), abs=1e-12)


def test_threshold_counts() -> None:
    y = [1, 1, 1, 0, 0, 0]
    s = [0.9, 0.6, 0.3, 0.6, 0.2, 0.1]
    c = metrics.at_threshold(y, s, 0.5)
    assert (c.tp, c.fp, c.fn, c.tn) == (2, 1, 1, 2)
    assert (
        c.precision == pytest.approx(2 / 3)
        and c.recall == pytest.approx(2 / 3)
        and c.f1 == pytest.approx(2 / 3)
    )
    nothing = metrics.at_threshold(y, s, 0.95)
    assert (nothing.precision, nothing.recall, nothing.f1) == (0.0, 0.0, 0.0)


def test_best_threshold_and_recall_at_precision() -> None:
    y = [1, 1, 1, 0, 0, 0]
    s = [0.9, 0.6, 0.3, 0.6, 0.2, 0.1]
    best = metrics.best_threshold(y, s)
    # candidates: 0.9 → F1 0.5, 0.6 → 0.667, 0.3 → 0.857, 0.2 → 0.75, 0.1 → 0.667
    assert best.threshold == 0.3 and best.f1 == pytest.approx(6 / 7)
    at_p1 = metrics.recall_at_precision(y, s, 1.0)
    assert at_p1.threshold == 0.9 and at_p1.recall == pytest.approx(1 / 3)
    at_p07 = metrics.recall_at_precision(y, s, 0.7)
    assert at_p07.threshold == 0.3 and at_p07.recall == 1.0
    none = metrics.recall_at_precision([0, 0], [0.1, 0.2], 0.5)
    assert none.recall == 0.0 and math.isinf(none.threshold)


def test_curve_matches_sklearn_precision_recall() -> None:
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, size=300)
    s = np.round(rng.random(300) + 0.3 * y, 2)
    c = metrics.curve(y, s)
    precision, recall, thresholds = sklearn_metrics.precision_recall_curve(y, s)
    ours = dict(zip(c.thresholds.tolist(), zip(c.precision.tolist(), c.recall.tolist())))
    for p, r, t in zip(precision[:-1], recall[:-1], thresholds):
        assert ours[float(t)] == pytest.approx((p, r))
    best = metrics.best_threshold(y, s)
    f1 = sklearn_metrics.f1_score(y, s >= best.threshold)
    assert best.f1 == pytest.approx(f1)


def test_bad_inputs() -> None:
    with pytest.raises(ValueError, match="finite"):
        metrics.roc_auc([0, 1], [0.1, float("nan")])
    with pytest.raises(ValueError, match="0 or 1"):
        metrics.roc_auc([0, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="one length"):
        metrics.curve([0, 1], [0.1])


def test_ari_matches_sklearn() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        truth = rng.integers(0, 6, size=60)
        pred = np.where(rng.random(60) < 0.7, truth, rng.integers(0, 8, size=60))
        assert metrics.adjusted_rand_index(truth.tolist(), pred.tolist()) == pytest.approx(
            sklearn_metrics.adjusted_rand_score(truth, pred), abs=1e-12
        )


def test_ari_special_cases() -> None:
    assert metrics.adjusted_rand_index(["a", "a", "b"], [5, 5, 9]) == 1.0
    assert metrics.adjusted_rand_index(["a", "b", "c"], [1, 2, 3]) == 1.0
    assert metrics.adjusted_rand_index(["a", "a", "b", "b"], [1, 2, 3, 4]) == 0.0
    c = metrics.pair_confusion(["a", "a", "a", "b"], [1, 1, 2, 2])
    assert (c.together_both, c.together_true_only, c.together_pred_only, c.apart_both) == (
        1,
        2,
        1,
        2,
    )
    assert c.precision == 0.5 and c.recall == pytest.approx(1 / 3)


def _case(s0: int, s1: int, u0: int, u1: int, src: str = "s", susp: str = "u") -> Fragment:
    return Fragment(src, susp, s0, s1 - s0, u0, u1 - u0)


def test_fragments_perfect() -> None:
    truth = [_case(10, 60, 100, 150)]
    scores = metrics.fragment_scores(truth, truth)
    assert (scores.precision, scores.recall, scores.granularity, scores.plagdet) == (
        1.0,
        1.0,
        1.0,
        1.0,
    )


def test_fragments_split_detection_has_granularity_two() -> None:
    truth = [_case(0, 100, 200, 300)]
    detections = [_case(0, 50, 200, 250), _case(50, 100, 250, 300)]
    scores = metrics.fragment_scores(truth, detections)
    assert scores.precision == 1.0 and scores.recall == 1.0 and scores.granularity == 2.0
    assert scores.plagdet == pytest.approx(1 / math.log2(3))


def test_fragments_partial_and_spurious_detections() -> None:
    truth = [_case(0, 100, 0, 100), _case(0, 40, 500, 540, src="t")]
    detections = [
        _case(50, 150, 50, 150),  # half inside the first case, in both documents
        _case(0, 100, 0, 100, src="x"),  # another source document: detects nothing
    ]
    scores = metrics.fragment_scores(truth, detections)
    # precision: (100/200 + 0) / 2; recall: (100/200 + 0) / 2
    assert scores.precision == pytest.approx(0.25)
    assert scores.recall == pytest.approx(0.25)
    assert scores.granularity == 1.0 and scores.detected_cases == 1
    assert scores.plagdet == pytest.approx(0.25)


def test_fragments_overlap_in_one_document_only_is_no_detection() -> None:
    truth = [_case(0, 100, 0, 100)]
    scores = metrics.fragment_scores(truth, [_case(500, 600, 0, 100)])
    assert scores.recall == 0.0 and scores.precision == 0.0 and scores.detected_cases == 0


def test_fragments_overlapping_detections_are_not_counted_twice() -> None:
    truth = [_case(0, 100, 0, 100)]
    detections = [_case(0, 80, 0, 80), _case(20, 100, 20, 100)]
    scores = metrics.fragment_scores(truth, detections)
    assert scores.recall == 1.0 and scores.precision == 1.0 and scores.granularity == 2.0


def test_fragments_nothing_detected() -> None:
    scores = metrics.fragment_scores([_case(0, 10, 0, 10)], [])
    assert (scores.precision, scores.recall, scores.granularity, scores.plagdet) == (
        0.0,
        0.0,
        1.0,
        0.0,
    )


def _reuse(s0: int, s1: int, r0: int, r1: int, susp: str = "d", src: str = "s") -> Fragment:
    """A detection or case: suspicious span [s0, s1) taken from source span [r0, r1)."""
    return Fragment(src, susp, r0, r1 - r0, s0, s1 - s0)


def test_pan_a_perfect_detection_scores_one() -> None:
    truth = [_reuse(10, 60, 100, 150)]
    scores = metrics.fragment_scores(truth, [_reuse(10, 60, 100, 150)])
    assert (scores.precision, scores.recall, scores.granularity, scores.plagdet) == (
        1.0,
        1.0,
        1.0,
        1.0,
    )


def test_pan_partial_overlap_counts_characters_in_both_documents() -> None:
    truth = [_reuse(0, 100, 0, 100)]  # 200 characters in all
    det = [_reuse(50, 150, 50, 150)]  # shares 50 + 50 of its 200
    scores = metrics.fragment_scores(truth, det)
    assert scores.precision == pytest.approx(0.5)
    assert scores.recall == pytest.approx(0.5)
    assert scores.plagdet == pytest.approx(0.5)


def test_pan_granularity_penalizes_split_detections() -> None:
    truth = [_reuse(0, 100, 0, 100)]
    det = [_reuse(0, 50, 0, 50), _reuse(50, 100, 50, 100)]
    scores = metrics.fragment_scores(truth, det)
    assert scores.precision == 1.0 and scores.recall == 1.0
    assert scores.granularity == 2.0
    assert scores.plagdet == pytest.approx(1.0 / math.log2(3.0))


def test_pan_detection_must_overlap_in_both_documents_and_name_the_pair() -> None:
    truth = [_reuse(0, 100, 0, 100)]
    wrong_source_span = [_reuse(0, 100, 500, 600)]
    wrong_source_doc = [_reuse(0, 100, 0, 100, src="other")]
    for det in (wrong_source_span, wrong_source_doc):
        scores = metrics.fragment_scores(truth, det)
        assert scores.precision == 0.0 and scores.recall == 0.0 and scores.plagdet == 0.0
        assert scores.detected_cases == 0 and scores.granularity == 1.0


def test_pan_macro_averages_over_cases_and_detections() -> None:
    truth = [_reuse(0, 100, 0, 100), _reuse(200, 300, 200, 300)]
    det = [_reuse(0, 100, 0, 100), _reuse(1000, 1100, 1000, 1100)]  # one hit, one false alarm
    scores = metrics.fragment_scores(truth, det)
    assert scores.precision == pytest.approx(0.5)
    assert scores.recall == pytest.approx(0.5)
    assert scores.cases == 2 and scores.detections == 2 and scores.detected_cases == 1


def test_pan_overlapping_detections_are_not_counted_twice() -> None:
    truth = [_reuse(0, 100, 0, 100)]
    det = [_reuse(0, 80, 0, 80), _reuse(20, 100, 20, 100)]
    scores = metrics.fragment_scores(truth, det)
    assert scores.recall == pytest.approx(1.0)  # the union covers the case once
    assert scores.precision == pytest.approx(1.0)

"""The PAN measures on cases worked out by hand."""

from __future__ import annotations

import math

import pytest

from neardup.align_metrics import Reuse, plagdet
from neardup.errors import InputError


def case(s0: int, s1: int, r0: int, r1: int, susp: str = "d", src: str = "s") -> Reuse:
    return Reuse(susp, s0, s1, src, r0, r1)


def test_a_perfect_detection_scores_one() -> None:
    truth = [case(10, 60, 100, 150)]
    scores = plagdet(truth, [case(10, 60, 100, 150)])
    assert (scores.precision, scores.recall, scores.granularity, scores.plagdet) == (1.0, 1.0, 1.0, 1.0)


def test_partial_overlap_counts_characters_in_both_documents() -> None:
    truth = [case(0, 100, 0, 100)]  # 200 characters in all
    det = [case(50, 150, 50, 150)]  # shares 50 + 50 of its 200
    scores = plagdet(truth, det)
    assert scores.precision == pytest.approx(0.5)
    assert scores.recall == pytest.approx(0.5)
    assert scores.plagdet == pytest.approx(0.5)


def test_granularity_penalizes_split_detections() -> None:
    truth = [case(0, 100, 0, 100)]
    det = [case(0, 50, 0, 50), case(50, 100, 50, 100)]
    scores = plagdet(truth, det)
    assert scores.precision == 1.0 and scores.recall == 1.0
    assert scores.granularity == 2.0
    assert scores.plagdet == pytest.approx(1.0 / math.log2(3.0))


def test_detection_must_overlap_in_both_documents_and_name_the_pair() -> None:
    truth = [case(0, 100, 0, 100)]
    wrong_source_span = [case(0, 100, 500, 600)]
    wrong_source_doc = [case(0, 100, 0, 100, src="other")]
    for det in (wrong_source_span, wrong_source_doc):
        scores = plagdet(truth, det)
        assert scores.precision == 0.0 and scores.recall == 0.0 and scores.plagdet == 0.0
        assert scores.detected_cases == 0 and scores.granularity == 1.0


def test_macro_averages_over_cases_and_detections() -> None:
    truth = [case(0, 100, 0, 100), case(200, 300, 200, 300)]
    det = [case(0, 100, 0, 100), case(1000, 1100, 1000, 1100)]  # one hit, one false alarm
    scores = plagdet(truth, det)
    assert scores.precision == pytest.approx(0.5)
    assert scores.recall == pytest.approx(0.5)
    assert scores.cases == 2 and scores.detections == 2 and scores.detected_cases == 1


def test_overlapping_detections_are_not_counted_twice() -> None:
    truth = [case(0, 100, 0, 100)]
    det = [case(0, 80, 0, 80), case(20, 100, 20, 100)]
    scores = plagdet(truth, det)
    assert scores.recall == pytest.approx(1.0)  # the union covers the case once
    assert scores.precision == pytest.approx(1.0)


def test_empty_inputs() -> None:
    assert plagdet([], []).plagdet == 1.0
    assert plagdet([case(0, 10, 0, 10)], []).plagdet == 0.0
    assert plagdet([], [case(0, 10, 0, 10)]).precision == 0.0
    with pytest.raises(InputError):
        case(10, 5, 0, 1)

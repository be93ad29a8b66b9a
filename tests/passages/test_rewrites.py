"""Rewritten passages (neardup.passages.rewrites): hand rewrites found with their spans, unrelated
text on
the same topic not, spans into the original input (HTML too), determinism, the API's edges."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.errors import ConfigurationError
from neardup.passages.align import Aligner
from neardup.passages.rewrites import (
    DEFAULT_THRESHOLD,
    RewriteFinder,
    RewrittenPassage,
    find_rewrites,
    find_rewrites_many,
    sentence_scores,
    sentence_spans,
    similarity_matrix,
)

pytest.importorskip("pymorphy3")

# written for these tests: a news paragraph, the same facts reworded, and another paragraph on
# the same topic with other facts
RU_SOURCE = (
    "В понедельник в Казани открылась новая линия метро. Она соединила центр города с "
    "аэропортом и жилым районом Салмачи. Строительство заняло пять лет и обошлось "
    "республиканскому бюджету в сорок два миллиарда рублей. В первый день бесплатно проехать по "
    "новой ветке смогли все желающие. Городские власти рассчитывают, что поток машин на "
    "Оренбургском тракте снизится на треть."
)
RU_REWRITE = (
    "Новую ветку метрополитена запустили в Казани в понедельник. Линия связала аэропорт и жилой "
    "район Салмачи с центром города. На стройку ушло пять лет, а бюджет республики потратил на "
    "неё сорок два миллиарда рублей. Все желающие в первый день могли прокатиться по новой линии "
    "бесплатно. По расчётам городских властей, машин на Оренбургском тракте станет на треть "
    "меньше."
)
RU_SAME_TOPIC = (
    "Власти Екатеринбурга снова отложили строительство второй ветки метро. Проект оценивается в "
    "восемьдесят миллиардов рублей, а денег в городском бюджете пока нет. Жители северных "
    "районов по-прежнему добираются до центра на автобусах и трамваях. Мэр пообещал вернуться "
    "к вопросу после выборов."
)
RU_BEFORE = "Синоптики обещают в выходные тёплую погоду без осадков. "
RU_AFTER = " В субботу на набережной пройдёт фестиваль уличной еды."

EN_SOURCE = (
    "The city council approved a new budget for public libraries on Tuesday. The plan adds "
    "twelve million dollars for longer opening hours and new computers. Three branches in the "
    "eastern districts will be renovated next year. Critics said the money should have gone to "
    "road repairs instead."
)
EN_REWRITE = (
    "On Tuesday, a new budget for the public libraries was approved by the city council. Twelve "
    "million dollars are added by the plan for new computers and for opening hours that are "
    "longer. Next year three branches in the eastern districts are to be renovated. According "
    "to critics, the money should instead have been spent on repairing roads."
)
EN_SAME_TOPIC = (
    "Library visits fell sharply last year as more readers switched to electronic books. "
    "Librarians in several towns now organise chess clubs and language courses to attract young "
    "people. A survey found that most visitors come to the library on weekends."
)
EN_BEFORE = "Heavy snow closed two airports in the north on Monday. "
EN_AFTER = " The football season opens next Saturday with a derby."


@pytest.fixture(scope="module")
def finder() -> RewriteFinder:
    return RewriteFinder()


def test_russian_rewrite_found_with_its_spans(finder: RewriteFinder) -> None:
    query = RU_BEFORE + RU_REWRITE + RU_AFTER
    passages = finder.find(query, RU_SOURCE)
    assert len(passages) == 1
    p = passages[0]
    assert (p.a_start, p.a_end) == (len(RU_BEFORE), len(RU_BEFORE) + len(RU_REWRITE))
    assert (p.b_start, p.b_end) == (0, len(RU_SOURCE))
    assert p.a_text == RU_REWRITE and p.b_text == RU_SOURCE
    assert p.kind == "rewritten" and p.source == "B" and p.number == 1
    assert p.a_sentences == (1, 6) and p.b_sentences == (0, 5)
    assert [(i, j) for i, j, _ in p.pairs] == [(1, 0), (2, 1), (3, 2), (4, 3), (5, 4)]
    assert DEFAULT_THRESHOLD / 2 <= p.similarity < 1.0


def test_without_the_extension_only_the_closest_sentences_match() -> None:
    """The hand rewrite's sentences score 0.42–0.78: with no extension to the neighbours only
    the four that reach the threshold are marked; the first (0.42) is left out."""
    finder = RewriteFinder(extend_threshold=1.0)
    passages = finder.find(RU_BEFORE + RU_REWRITE + RU_AFTER, RU_SOURCE)
    assert [[(i, j) for i, j, _ in p.pairs] for p in passages] == [[(2, 1), (3, 2), (4, 3), (5, 4)]]
    assert finder.params["extend_threshold"] == 1.0
    assert RewriteFinder().params["extend_threshold"] == DEFAULT_THRESHOLD / 2


def test_the_verbatim_aligner_does_not_find_the_russian_rewrite() -> None:
    """The case this mode exists for: nothing verbatim to chain."""
    assert Aligner().pair(RU_BEFORE + RU_REWRITE + RU_AFTER, RU_SOURCE).passages == []


def test_unrelated_paragraph_on_the_same_topic_is_not_found(finder: RewriteFinder) -> None:
    assert finder.find(RU_BEFORE + RU_SAME_TOPIC + RU_AFTER, RU_SOURCE) == []
    assert finder.find(EN_BEFORE + EN_SAME_TOPIC + EN_AFTER, EN_SOURCE) == []


def test_english_rewrite_found_with_its_spans(finder: RewriteFinder) -> None:
    query = EN_BEFORE + EN_REWRITE + EN_AFTER
    passages = finder.find(query, EN_SOURCE, source_id="lib")
    assert len(passages) == 1
    p = passages[0]
    assert (p.a_start, p.a_end) == (len(EN_BEFORE), len(EN_BEFORE) + len(EN_REWRITE))
    assert (p.b_start, p.b_end) == (0, len(EN_SOURCE))
    assert p.source == "lib"
    assert [(i, j) for i, j, _ in p.pairs] == [(1, 0), (2, 1), (3, 2), (4, 3)]


def test_spans_point_into_html_input(finder: RewriteFinder) -> None:
    html = (
        "<html><head><title>Новости</title></head><body>"
        f"<p>{RU_BEFORE.strip()}</p>\n<p>{RU_REWRITE}</p>\n<p>{RU_AFTER.strip()}</p>"
        "</body></html>"
    )
    passages = finder.find(html, RU_SOURCE)
    assert len(passages) == 1
    p = passages[0]
    start = html.index(RU_REWRITE)
    assert (p.a_start, p.a_end) == (start, start + len(RU_REWRITE))
    assert html[p.a_start : p.a_end] == RU_REWRITE


def test_sentences_already_found_verbatim_are_skipped(finder: RewriteFinder) -> None:
    query = RU_BEFORE + RU_REWRITE + RU_AFTER
    start = len(RU_BEFORE)
    first_two = RU_REWRITE.index("На стройку")
    passages = finder.find(query, RU_SOURCE, skip_a_spans=[(start, start + first_two)])
    assert len(passages) == 1
    assert passages[0].a_start == start + first_two
    assert passages[0].a_end == start + len(RU_REWRITE)
    assert [i for i, _, _ in passages[0].pairs] == [3, 4, 5]


def test_reordered_sentences_stay_one_passage(finder: RewriteFinder) -> None:
    sentences = [RU_REWRITE[a:b] for a, b in sentence_spans(RU_REWRITE)]
    moved = " ".join([sentences[1], sentences[0], *sentences[2:]])
    passages = finder.find(moved, RU_SOURCE)
    assert len(passages) == 1
    assert (passages[0].a_start, passages[0].a_end) == (0, len(moved))
    assert [(i, j) for i, j, _ in passages[0].pairs] == [(0, 1), (1, 0), (2, 2), (3, 3), (4, 4)]


def test_deterministic_and_json_ready(finder: RewriteFinder) -> None:
    query = RU_BEFORE + RU_REWRITE + RU_AFTER
    first = [p.to_dict() for p in finder.find(query, RU_SOURCE)]
    again = [p.to_dict() for p in RewriteFinder().find(query, RU_SOURCE)]
    assert first == again
    from_bytes = [p.to_dict() for p in finder.find(query.encode("utf-8"), RU_SOURCE)]
    assert from_bytes == first
    d = first[0]
    assert d["kind"] == "rewritten"
    assert d["length"] == len(RU_REWRITE)
    assert [row[:2] for row in d["pairs"]] == [[1, 0], [2, 1], [3, 2], [4, 3], [5, 4]]


def test_batch_form_and_one_call_forms_agree(finder: RewriteFinder) -> None:
    query = RU_BEFORE + RU_REWRITE + RU_AFTER
    many = finder.find_many(query, {"metro": RU_SOURCE, "other": RU_SAME_TOPIC})
    assert list(many) == ["metro", "other"]
    assert many["other"] == []
    assert [p.to_dict() for p in many["metro"]] == [
        p.to_dict() for p in find_rewrites(query, RU_SOURCE, source_id="metro")
    ]
    pairs = find_rewrites_many(query, [("metro", RU_SOURCE)], skip_a_spans={"metro": [(0, 10**6)]})
    assert pairs == {"metro": []}
    no_source = finder.find_many(
        query, [("metro", RU_SOURCE)], skip_b_spans={"metro": [(0, 10**6)]}
    )
    assert no_source == {"metro": []}
    other_id = finder.find_many(query, [("metro", RU_SOURCE)], skip_b_spans={"x": [(0, 10**6)]})
    assert len(other_id["metro"]) == 1


def test_prepared_texts_of_the_aligner_are_reused(finder: RewriteFinder) -> None:
    aligner = Aligner()
    query = RU_BEFORE + RU_REWRITE + RU_AFTER
    from_prepared = finder.find(aligner.prepare(query), aligner.prepare(RU_SOURCE))
    assert from_prepared == finder.find(query, RU_SOURCE)


def test_sentence_spans_keep_initials_abbreviations_and_wrapped_lines() -> None:
    text = "А. С. Пушкин родился в Москве, т. е. не в Петербурге. Mr. Smith agreed.\nNext line"
    assert sentence_spans(text) == [(0, 53), (54, 71), (72, 81)]
    wrapped = "Showers continued throughout the week in\nthe cocoa zone. Dry weather returned."
    assert sentence_spans(wrapped) == [(0, 56), (57, 78)]
    assert sentence_spans("<p>One two.</p><p>Three</p>") == [(3, 11), (18, 23)]


def test_sentence_scores() -> None:
    a = [["кошка", "сидеть", "окно"], ["собака", "лаять"]]
    b = [["окно", "кошка", "сидеть"], ["дождь"]]
    matrix = similarity_matrix(a, b)
    assert matrix.shape == (2, 2)
    assert matrix[0, 0] == pytest.approx(1.0)
    assert matrix[0, 1] == 0.0 and matrix[1, 0] == 0.0 and matrix[1, 1] == 0.0
    i, j, s = sentence_scores([["a", "b"]], [["a", "c"], ["a", "b"]])
    # df: a 3, b 2, c 1 over N = 3 sentences; idf = ln(4 / (1 + df)) + 1
    ia, ib, ic = 1.0, np.log(4 / 3) + 1, np.log(2) + 1
    expected = ia**2 / (np.hypot(ia, ib) * np.hypot(ia, ic))
    assert i.tolist() == [0, 0] and j.tolist() == [0, 1]
    assert s.tolist() == pytest.approx([expected, 1.0])


def test_empty_texts(finder: RewriteFinder) -> None:
    assert finder.find("", RU_SOURCE) == []
    assert finder.find(RU_REWRITE, "   ") == []


@pytest.mark.parametrize(
    "options",
    [
        {"threshold": 0.0},
        {"threshold": 1.5},
        {"threshold": "high"},
        {"window": -1},
        {"min_tokens": 0},
        {"extend_threshold": 0.0},
        {"extend_threshold": True},
    ],
)
def test_bad_settings_are_configuration_errors(options: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        RewriteFinder(**options)  # type: ignore[arg-type]


def test_passage_fields() -> None:
    p = RewrittenPassage(
        "B", 1, 5, 15, 0, 8, (1, 3), (0, 2), (0, 1), (0, 1), ((0, 0, 0.7),), 0.7, "x" * 10, "y" * 8
    )
    assert p.length == 10 and p.tokens_a == 2 and p.tokens_b == 2 and p.kind == "rewritten"


def _benchmark() -> object:
    """benchmarks/quality_rewrites.py, where the PAN measures are implemented."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "quality_rewrites.py"
    spec = importlib.util.spec_from_file_location("quality_rewrites", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pan_measures_follow_their_definitions() -> None:
    measures = _benchmark().pan_measures  # type: ignore[attr-defined]
    case = [(0, 0, 100, 0, 100)]
    half = measures(case, [(0, 0, 50, 0, 50)])
    assert half["precision"] == 1.0 and half["recall"] == 0.5 and half["granularity"] == 1.0
    assert half["plagdet"] == pytest.approx(2 / 3)
    split = measures(case, [(0, 0, 50, 0, 50), (0, 50, 100, 50, 100)])
    assert split["recall"] == 1.0 and split["granularity"] == 2.0
    assert split["plagdet"] == pytest.approx(1 / np.log2(3))
    # a detection in another pair detects nothing: precision is the mean over detections
    stray = measures(case, [(0, 0, 100, 0, 100), (1, 0, 100, 0, 100)])
    assert stray["precision"] == 0.5 and stray["recall"] == 1.0
    # a detection twice as long as the case in the suspicious text only
    wide = measures(case, [(0, 0, 200, 0, 100)])
    assert wide["precision"] == pytest.approx(200 / 300)
    assert measures(case, [])["plagdet"] == 0.0

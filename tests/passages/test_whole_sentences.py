"""A whole sentence copied end to end is a passage however few canonical tokens it keeps
after stop words are dropped; a run of the same words that is not a whole sentence on both
sides, or a sentence of fewer than eight words, is not."""

from __future__ import annotations

import pytest

from neardup.fingerprints.pipeline import default_spec
from neardup.passages.align import Aligner

EN_SENTENCE = "I do not know whether that means two years or four years."
EN_SOURCE = (
    "Markets were calm on Monday after a long week of heavy trading in the capital. "
    + EN_SENTENCE
    + " Shares rose slightly after the news and analysts expect more gains in the coming months."
)
EN_HOST = (
    "My essay is about industry in our region and its future and the people who work there "
    "every day. {} I think this is good for workers and for the town where I live and for my "
    "family too."
)
RU_SENTENCE = "Мы не знаем, значит ли это два года или все четыре года."
RU_SOURCE = (
    "Рынки в понедельник были спокойны после долгой недели торгов в столице. "
    + RU_SENTENCE
    + " Акции немного выросли после новостей, аналитики ждут дальнейшего роста."
)
RU_HOST = (
    "Моё сочинение о промышленности нашего края и о людях, которые там работают каждый день. "
    "{} Я думаю, что это хорошо для рабочих и для города, где я живу со своей семьёй."
)


@pytest.fixture(scope="module")
def aligner() -> Aligner:
    return Aligner(default_spec())


def _passages(aligner: Aligner, query: str, source: str) -> list[str]:
    alignment = aligner.align(query, [("s", source)])
    return [p.a_text for s in alignment.sources for p in s.passages]


@pytest.mark.parametrize(
    ("host", "sentence", "source"),
    [(EN_HOST, EN_SENTENCE, EN_SOURCE), (RU_HOST, RU_SENTENCE, RU_SOURCE)],
    ids=["en", "ru"],
)
def test_a_copied_sentence_with_few_canonical_tokens_is_a_passage(
    aligner: Aligner, host: str, sentence: str, source: str
) -> None:
    query = host.format(sentence)
    canonical = aligner.pipeline.analyze(sentence).canonical
    assert aligner.k <= len(canonical) < aligner.min_tokens  # the case the rule is for
    (passage,) = _passages(aligner, query, source)
    assert sentence.rstrip(".").endswith(passage)


def test_the_same_words_inside_a_longer_source_sentence_are_not(aligner: Aligner) -> None:
    source = EN_SOURCE.replace("I do not know", "He told us that he did not know")
    assert _passages(aligner, EN_HOST.format(EN_SENTENCE), source) == []


def test_the_same_words_inside_a_longer_query_sentence_are_not(aligner: Aligner) -> None:
    query = EN_HOST.format(EN_SENTENCE.replace("I do not know", "Nobody told me, so I do not know"))
    assert _passages(aligner, query, EN_SOURCE) == []


def test_a_sentence_of_fewer_than_eight_words_is_not(aligner: Aligner) -> None:
    short = "Prices rose two years and four years."  # 7 words
    source = EN_SOURCE.replace(EN_SENTENCE, short)
    assert _passages(aligner, EN_HOST.format(short), source) == []

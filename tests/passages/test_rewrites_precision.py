"""Rewrite precision (neardup.passages.rewrites): a rewritten passage needs more than shared facts.
Two stories about one event (two decrees signed the same day, one film at two award ceremonies)
restate the same names and facts, and an embedded post's signature line differs only in its
date; none is a rewrite. A true rewrite placed inside longer unrelated texts still is."""

from __future__ import annotations

import pytest

from neardup.errors import ConfigurationError
from neardup.passages.align import Aligner
from neardup.passages.rewrites import (
    DEFAULT_MIN_MARGIN,
    SINGLE_EXTRA_MARGIN,
    RewriteFinder,
    boilerplate,
)

from .test_rewrites import EN_REWRITE, EN_SOURCE, RU_REWRITE, RU_SOURCE

pytest.importorskip("pymorphy3")

# written for these tests
DECREE_A = (
    "Президент подписал указ о создании Национального центра исторической памяти. "
    "Указ опубликован в пятницу и вступает в силу со дня его подписания. "
    "Согласно указу, новый центр будет собирать архивные документы о событиях двадцатого века "
    "и передавать их копии в школы и музеи. "
    "Руководить центром будет Анна Мельникова, ранее возглавлявшая Государственный архив. "
    "Правительству поручено за три месяца утвердить устав центра и выделить ему здание в Москве."
)
DECREE_B = (
    "В пятницу президент подписал указ о переносе выходных дней в следующем году. "
    "Указ вступает в силу со дня его официального опубликования. "
    "Согласно указу, выходной с субботы четвёртого января переносится на пятницу второго мая. "
    "Руководителям регионов рекомендовано учесть изменения при планировании работы школ и больниц. "
    "Правительству поручено за месяц подготовить разъяснения для работодателей и утвердить новый "
    "календарь."
)
OSCAR = (
    "Драма «Тихий берег» и актёр Майкл Роуэн стали главными победителями «Оскара». "
    "Церемония прошла в воскресенье в Лос-Анджелесе в театре «Долби». "
    "Приз за лучшую мужскую роль достался Майклу Роуэну, сыгравшему в «Тихом береге» "
    "старого смотрителя маяка. "
    "Режиссёр Эмма Кларк поблагодарила жителей приморского городка, где шли съёмки. "
    "Лучшей актрисой академики назвали Лауру Бейн."
)
GLOBE = (
    "Майкл Роуэн и драма «Тихий берег» получили «Золотой глобус». "
    "Награды вручили в ночь на понедельник в Беверли-Хиллз. "
    "Лучшим актёром драмы стал Майкл Роуэн, сыгравший смотрителя маяка в «Тихом береге». "
    "Премию за лучший сценарий получил фильм «Город без окон». "
    "Ведущим вечера в третий раз стал комик Джо Мартин."
)
TWEET_A = (
    "Мэр города открыл новый каток в парке у набережной. Лёд залили за две ночи, коньки можно "
    "взять напрокат у входа.\n"
    "— Пресс-служба мэрии города (@press_meria_goroda) 5 декабря 2019 г.\n"
    "Каток будет работать до конца февраля, вход для школьников бесплатный."
)
TWEET_B = (
    "В городе начали ремонт главного моста через реку, движение по нему ограничат на три месяца. "
    "Объезд организуют по соседнему мосту.\n"
    "— Пресс-служба мэрии города (@press_meria_goroda) 6 декабря 2019 г.\n"
    "Автобусы пустят в объезд, расписание опубликуют на сайте перевозчика."
)
RU_HOST_BEFORE = (
    "Осенью в городском парке высадили двести молодых лип. Садовники обещают, что через пять лет "
    "аллея станет тенистой.\n"
)
RU_HOST_AFTER = "\nВечером в филармонии выступит камерный оркестр из Вологды."
RU_SOURCE_BEFORE = "Хоккейный клуб подписал контракт с молодым вратарём из Омска.\n"
RU_SOURCE_AFTER = "\nНа выходных в регионе ожидаются сильные снегопады и гололёд."
EN_HOST_BEFORE = "The river flooded two villages after a week of rain. Volunteers came.\n"
EN_HOST_AFTER = "\nA new bakery opened on the main square and sold out by noon."
EN_SOURCE_BEFORE = "The school choir won a regional contest with a programme of folk songs.\n"
EN_SOURCE_AFTER = "\nTicket prices for the museum will not change this year."


def _rewritten(a: str, b: str, finder: RewriteFinder | None = None) -> list[tuple[int, int]]:
    """The spans of ``a`` the product marks as rewritten from ``b`` (verbatim passages first)."""
    aligner = Aligner()
    if finder is not None:
        aligner._finder = finder
    match = aligner.align(a, {"b": b}).sources[0]
    return [(p.a_start, p.a_end) for p in match.rewritten]


@pytest.mark.parametrize(
    ("a", "b"), [(DECREE_A, DECREE_B), (OSCAR, GLOBE)], ids=["decrees", "oscar-vs-globe"]
)
def test_stories_sharing_facts_are_not_rewrites(a: str, b: str) -> None:
    assert _rewritten(a, b) == []
    # without the margin over rivals a sentence restating the shared facts is marked
    assert len(_rewritten(a, b, RewriteFinder(min_margin=-1.0))) == 1


def test_the_decrees_pass_on_score_and_fail_on_margin() -> None:
    (passage,) = RewriteFinder(min_margin=-1.0).find(DECREE_A, DECREE_B)
    assert [(i, j, round(s, 3)) for i, j, s in passage.pairs] == [(0, 0, 0.272), (1, 1, 0.502)]
    assert RewriteFinder().find(DECREE_A, DECREE_B) == []


@pytest.mark.parametrize(
    ("rewrite", "source", "before", "after", "source_before", "source_after"),
    [
        (RU_REWRITE, RU_SOURCE, RU_HOST_BEFORE, RU_HOST_AFTER, RU_SOURCE_BEFORE, RU_SOURCE_AFTER),
        (EN_REWRITE, EN_SOURCE, EN_HOST_BEFORE, EN_HOST_AFTER, EN_SOURCE_BEFORE, EN_SOURCE_AFTER),
    ],
    ids=["ru", "en"],
)
def test_a_true_rewrite_in_context_is_still_marked(
    rewrite: str, source: str, before: str, after: str, source_before: str, source_after: str
) -> None:
    query = before + rewrite + after
    spans = _rewritten(query, source_before + source + source_after)
    start = len(before)
    assert spans == [(start, start + len(rewrite))]


def test_an_embed_line_differing_in_a_date_is_not_a_rewrite() -> None:
    assert RewriteFinder().find(TWEET_A, TWEET_B) == []
    # the margin is not what stops it: the line is never matched
    assert RewriteFinder(min_margin=-1.0).find(TWEET_A, TWEET_B) == []
    # the same words outside an embed's signature are matched
    a, b = (
        t.replace("— П", "Пишет п").replace("(@press_meria_goroda)", "") for t in (TWEET_A, TWEET_B)
    )
    assert len(RewriteFinder(min_margin=-1.0).find(a, b)) == 1


@pytest.mark.parametrize(
    "line",
    [
        "— Donald Duck (@donaldduck) December 5, 2019",
        "Скоро старт! pic.twitter.com/AbC123xyz",
        "Фото: Иван Петров / пресс-служба",
        "Photo: Reuters",
        "Источник: ТАСС",
        "By John Smith",
        "Reporting by Jane Doe; Editing by Tom Brown",
        "Читайте также: как выбрать коньки",
        "14 ноября 2019, 12:30",
        "Москва. 14 ноября.",
    ],
)
def test_boilerplate_lines(line: str) -> None:
    assert boilerplate(line)


@pytest.mark.parametrize(
    "line",
    [
        "By 2020 the firm will double its output.",
        "Byron said he was happy with the result.",
        "Источник: вертолёт разбился на севере страны.",
        "Фотографии опубликованы на сайте музея.",
        "В 2019 году выручка компании выросла на 5 %.",
        "Authorities said 5 people died in the fire.",
    ],
)
def test_sentences_that_are_not_boilerplate(line: str) -> None:
    assert not boilerplate(line)


def test_margin_in_params_and_checked() -> None:
    assert RewriteFinder().params["min_margin"] == DEFAULT_MIN_MARGIN == 0.33
    assert SINGLE_EXTRA_MARGIN == 0.22
    for bad in (True, "0.3", 1.5, -2.0):
        with pytest.raises(ConfigurationError):
            RewriteFinder(min_margin=bad)  # type: ignore[arg-type]

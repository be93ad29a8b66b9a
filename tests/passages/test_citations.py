from __future__ import annotations

import pytest

from neardup.errors import SpecError
from neardup.passages.citations import (
    Citation,
    CitationKind,
    CitationStatus,
    find_citations,
    passage_statuses,
    quoted_share,
    unresolved_notes,
)

CITED, UNRESOLVED, UNATTRIBUTED = "cited", "unresolved", "unattributed"


def spans(text: str, **kwargs: int) -> list[tuple[str, str]]:
    return [(c.kind.value, text[c.start : c.end]) for c in find_citations(text, **kwargs)]


def statuses(text: str, **kwargs: int) -> list[tuple[str, str, str]]:
    """Each citation as (kind, status, its text)."""
    return [
        (c.kind.value, c.status.value, text[c.start : c.end])
        for c in find_citations(text, **kwargs)
    ]


def test_guillemets_are_a_quote_with_their_marks() -> None:
    text = "Он сказал: «Мы пойдём в парк завтра утром». Потом ушёл."
    assert spans(text) == [("quote", "«Мы пойдём в парк завтра утром»")]


def test_straight_and_low_high_and_english_quotes() -> None:
    text = (
        'A "short quote of five words" and „цитата в лапках из пяти слов“ '
        "and “curly one two three”."
    )
    assert spans(text) == [
        ("quote", '"short quote of five words"'),
        ("quote", "„цитата в лапках из пяти слов“"),
        ("quote", "“curly one two three”"),
    ]


def test_nested_quotes_give_the_outer_span() -> None:
    text = "Так: «он назвал это „нашим общим делом“ и ушёл домой». Конец."
    assert spans(text) == [("quote", "«он назвал это „нашим общим делом“ и ушёл домой»")]
    text = "Так: «раз «два три» четыре пять». Конец."
    assert spans(text) == [("quote", "«раз «два три» четыре пять»")]


def test_an_unbalanced_quote_never_swallows_the_rest() -> None:
    text = "Открыл «кавычку и не закрыл её никогда\n\nНовый абзац, а в нём «четыре слова тут есть»."
    assert spans(text) == [("quote", "«четыре слова тут есть»")]
    # within one paragraph, an opening mark that never closes is ignored
    text = 'Одна " кавычка без пары, и дальше идёт обычный текст до конца абзаца.'
    assert spans(text) == []
    long_tail = "Начало «" + "слово " * 2000 + "» конец"
    assert spans(long_tail, max_quote_chars=500) == []


def test_short_quotes_are_names_not_citations() -> None:
    assert spans("Компания «Газпром» и газета «Новая жизнь» сообщили.") == []
    assert spans("Компания «Газпром» сообщила.", min_words=1) == [("quote", "«Газпром»")]


def test_referenced_sentences() -> None:
    text = (
        "Первое предложение. Шинглы описаны давно [3]. Далее текст (Иванов, 2010). И ещё. "
        "Words end here. [5] As shown (Smith et al. 2019, p. 4). Конец [4, с. 12]"
    )
    assert spans(text) == [
        ("reference", "Шинглы описаны давно [3]"),
        ("reference", "Далее текст (Иванов, 2010)"),
        ("reference", "Words end here. [5]"),
        ("reference", "As shown (Smith et al. 2019, p. 4)"),
        ("reference", "Конец [4, с. 12]"),
    ]


def test_a_parenthesis_that_is_not_a_reference() -> None:
    assert spans("Мы пришли (как обычно) вовремя. В 2010 году (в мае) было тепло.") == []


def test_block_quotes_in_mail_and_html() -> None:
    text = "Ответ:\n> первая строка письма\n> вторая строка\nмой текст"
    assert spans(text) == [("block", "> первая строка письма\n> вторая строка")]
    html = "<p>Текст</p><BLOCKQUOTE class=q>чужие слова</blockquote><p>ещё</p>"
    assert spans(html) == [("block", "<BLOCKQUOTE class=q>чужие слова</blockquote>")]


def test_overlaps_merge_keeping_the_first_kind() -> None:
    text = (
        "Он писал: «слова эти были сказаны давно» [2]. Конец.\n\n"
        "[1] Книга. 2001.\n[2] Статья. 2002."
    )
    found = find_citations(text)
    assert found == [Citation(0, text.index("]") + 1, CitationKind.REFERENCE)]
    # without the list, the same span: its reference is not found
    text = text[: text.index("\n")]
    assert find_citations(text) == [
        Citation(0, text.index("]") + 1, CitationKind.REFERENCE, CitationStatus.UNRESOLVED)
    ]


def test_quoted_share_counts_non_space_characters() -> None:
    text = "ab «c d e f» gh"
    citations = find_citations(text)
    assert [(c.start, c.end) for c in citations] == [(3, 12)]
    assert quoted_share(text, citations) == pytest.approx(6 / 10)
    assert quoted_share("   ", []) == 0.0


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(SpecError):
        find_citations("x", min_words=0)
    with pytest.raises(SpecError):
        find_citations("x", max_quote_chars=0)


def test_a_reference_list_cites_nothing_above_it() -> None:
    # the loophole of issue #23: a blank line and a list entry "[1] …" after a copied sentence
    text = (
        "Свой текст автора. Скопированное предложение без кавычек и без ссылки.\n\n"
        "[1] Иванов И. И. Шинглы и их применение. — М., 2010."
    )
    assert spans(text) == []
    text = "My own words. A copied sentence with no quotes.\n[1] Smith J. Shingles. 2019.\n"
    assert spans(text) == []
    # a list of several entries, indented, and an author–year label on its own line
    text = "Текст работы.\n\nСписок литературы\n  [1] Первая книга.\n  [2] Вторая книга."
    assert spans(text) == []
    assert spans("Copied sentence here.\n(Smith, 2019) Shingles, a book.") == []


def test_a_sentence_with_its_own_marker_is_cited_before_a_reference_list() -> None:
    text = "Шинглы описаны давно [1]. Мой вывод другой.\n\n[1] Иванов И. И. Шинглы. — М., 2010."
    assert spans(text) == [("reference", "Шинглы описаны давно [1]")]
    text = "As shown (Smith, 2019), it works. Words end here.[2] Mine.\n\n[1] Smith J. 2019."
    assert spans(text) == [
        ("reference", "As shown (Smith, 2019)"),
        ("reference", "Words end here.[2]"),
    ]


# --- references that resolve (or not) to the text's own reference list ----------------------

LIST_RU = (
    "\n\nСписок литературы\n"
    "1. Иванов И. И. Шинглы в поиске дубликатов. — М.: Наука, 2010. — 200 с.\n"
    "2. Лёвин П. П. Поиск заимствований. — СПб., 2012.\n"
    "3. Smith J. Shingles. — London, 2019.\n"
)
BODY_RU = "Шинглы описаны давно [1]. Метод точен [2, с. 14]. Он быстр [1–3]. Всё это известно [7]."


def test_made_up_references_with_no_list_are_unresolved() -> None:
    text = "Первое скопированное предложение [7]. Второе скопированное (Иванов, 2010). Конец."
    assert statuses(text) == [
        ("reference", UNRESOLVED, "Первое скопированное предложение [7]"),
        ("reference", UNRESOLVED, "Второе скопированное (Иванов, 2010)"),
    ]
    text = "A copied sentence [3]. Another copied one (Smith 2010). The end."
    assert statuses(text) == [
        ("reference", UNRESOLVED, "A copied sentence [3]"),
        ("reference", UNRESOLVED, "Another copied one (Smith 2010)"),
    ]


def test_numbered_references_resolve_to_the_list_numbers() -> None:
    assert statuses(BODY_RU + LIST_RU) == [
        ("reference", CITED, "Шинглы описаны давно [1]"),
        ("reference", CITED, "Метод точен [2, с. 14]"),
        ("reference", CITED, "Он быстр [1–3]"),
        ("reference", UNRESOLVED, "Всё это известно [7]"),  # a list of three
    ]
    # a range reaching past the list is not found either
    assert statuses("Так и есть [2–4]." + LIST_RU)[0][1] == UNRESOLVED


@pytest.mark.parametrize(
    "heading",
    [
        "Список литературы",
        "СПИСОК ИСПОЛЬЗОВАННЫХ ИСТОЧНИКОВ",
        "Литература",
        "Источники:",
        "Библиографический список",
        "References",
        "Bibliography",
        "Works cited",
    ],
)
def test_every_usual_heading_starts_a_list(heading: str) -> None:
    text = (
        "Copied sentence number one [2]. Copied by name (Иванов, 2010). And (Smith 2019).\n\n"
        f"{heading}\n"
        "Иванов И. И. Шинглы. — М.: Наука, 2010.\n"
        "Smith J. Shingles in practice. London, 2019.\n"
    )
    assert [s for _, s, _ in statuses(text)] == [CITED, CITED, CITED]


def test_a_trailing_numbered_list_without_a_heading() -> None:
    text = (
        "Шинглы описаны давно [2]. Ссылка мимо [3].\n\n"
        "1. Иванов И. И. Шинглы. — М., 2010.\n"
        "2. Петров П. П. Поиск. — СПб., 2012.\n"
    )
    assert statuses(text) == [
        ("reference", CITED, "Шинглы описаны давно [2]"),
        ("reference", UNRESOLVED, "Ссылка мимо [3]"),
    ]


def test_author_year_references_resolve_by_name_and_year() -> None:
    text = (
        "Первое (Иванов, 2010). Второе (Левин, 2012). Третье (ИВАНОВ, 2011). "
        "Иванов И. И. (2010) пишет, что шинглы работают. По мнению Ивановой (2010), это так. "
        "As Smith (2019) shows, it works. Also (Smith et al. 2019, p. 4). "
        "Both (Иванов, 2010; Smith, 2019). Not both (Иванов, 2010; Петров, 2010)."
    )
    assert statuses(text + LIST_RU) == [
        ("reference", CITED, "Первое (Иванов, 2010)"),
        ("reference", CITED, "Второе (Левин, 2012)"),  # ё and е are one letter
        ("reference", UNRESOLVED, "Третье (ИВАНОВ, 2011)"),  # the name, but not the year
        ("reference", CITED, "Иванов И. И. (2010) пишет, что шинглы работают."),
        ("reference", CITED, "По мнению Ивановой (2010), это так."),
        ("reference", CITED, "As Smith (2019) shows, it works."),
        ("reference", CITED, "Also (Smith et al. 2019, p. 4)"),
        ("reference", CITED, "Both (Иванов, 2010; Smith, 2019)"),
        ("reference", UNRESOLVED, "Not both (Иванов, 2010; Петров, 2010)"),
    ]


def test_a_bare_name_and_year_is_a_reference_only_beside_a_list() -> None:
    text = "Олимпиада в Ванкувере (2010) прошла зимой и запомнилась всем."
    assert statuses(text) == []
    # with initials it is a reference wherever it stands
    assert statuses("Как показал Иванов И. И. (2010), это так.") == [
        ("reference", UNRESOLVED, "Как показал Иванов И. И. (2010), это так.")
    ]


def test_nothing_inside_the_reference_list_is_a_citation() -> None:
    text = (
        "Мой текст без ссылок.\n\nReferences\n"
        'Smith J. (2019). "Shingles and their use in practice". Journal, 3.\n'
        "Brown K. (2018). Hashing. Press [2].\n"
    )
    assert statuses(text) == []


def test_a_quote_takes_its_references_status() -> None:
    quote = "Он писал: «слова эти были сказаны очень давно»"
    assert statuses(f"{quote} [1]." + LIST_RU)[0][:2] == ("reference", CITED)
    assert statuses(f"{quote} [9]." + LIST_RU)[0][:2] == ("reference", UNRESOLVED)
    # an attribution in words does not save a reference that is not found
    assert statuses(f"{quote} [1].")[0][:2] == ("reference", UNRESOLVED)
    # the name before the quote, its year resolving: the sentence is cited, quote and all
    text = "Иванов И. И. (2010) пишет: «шинглы придуманы для поиска дубликатов»." + LIST_RU
    assert statuses(text) == [
        (
            "reference",
            CITED,
            "Иванов И. И. (2010) пишет: «шинглы придуманы для поиска дубликатов».",
        )
    ]


@pytest.mark.parametrize(
    ("text", "status"),
    [
        # said whose in the clause before it
        ("Как писал Пушкин, «я помню чудное мгновенье передо мной».", CITED),
        ("По словам директора, «работы начнутся весной и закончатся осенью».", CITED),
        ("Автор отмечает: «город меняется быстрее, чем мы думаем».", CITED),
        ("In the words of the mayor, “the park will open next spring”.", CITED),
        ("According to the report, “the park will open next spring”.", CITED),
        ('Smith writes: "the park will open next spring".', CITED),
        # or in the clause after it
        ("«Это всё давно известно всем нам», — писал Лотман.", CITED),
        ("“The park will open next spring,” the mayor wrote.", CITED),
        # or a signature under it
        ("«Я помню чудное мгновенье, передо мной явилась ты»\n— А. С. Пушкин", CITED),
        # the dialogue of a story, a quote with nobody named: borrowed with its paragraph
        ("«Пойдём домой скорее, уже поздно», — сказал он.", UNATTRIBUTED),
        ("Он говорил о «больших и важных делах нашей страны» и ушёл.", UNATTRIBUTED),
        ('"We will open the park next spring," he said.', UNATTRIBUTED),
        ('In the United States "the park will open next spring" too.', UNATTRIBUTED),
        ('The report states: "the park will open next spring".', CITED),
        ("Он сказал: «Мы пойдём в парк завтра утром». Потом писал письма.", UNATTRIBUTED),
    ],
)
def test_a_quote_without_a_reference_counts_only_with_an_attribution(
    text: str, status: str
) -> None:
    assert [s for _, s, _ in statuses(text)] == [status]


def test_block_quotes_need_an_attribution_too() -> None:
    assert statuses("Ответ:\n> первая строка письма\n> вторая строка\nмой текст")[0][1] == (
        UNATTRIBUTED
    )
    text = "Пушкин писал:\n> первая строка письма\n> вторая строка\nмой текст"
    assert statuses(text)[0][1] == CITED


def test_passage_status_and_where_the_notes_go() -> None:
    text = (
        "Свой текст. Скопировано раз [7]. Скопировано два (Иванов, 2010). «Цитата из четырёх слов»."
    )
    found = find_citations(text)
    first, second, quote = found
    passages = [(0, 10), (first.start, second.end), (quote.start, quote.end)]
    # the last one: an unattributed quote is no citation
    assert passage_statuses(passages, iter(found)) == [None, UNRESOLVED, None]
    cited = [Citation(0, 10, CitationKind.QUOTE)]
    assert passage_statuses([(5, 20), (10, 20)], cited) == [CITED, None]
    both = [Citation(12, 20, CitationKind.REFERENCE, CitationStatus.UNRESOLVED), *cited]
    assert passage_statuses([(5, 20), (0, 3), (19, 30)], both) == [UNRESOLVED, CITED, UNRESOLVED]
    # a note after each unresolved reference that overlaps a copied passage, once
    spans = [(c.start, c.end, c.status.value) for c in found]
    assert unresolved_notes(spans, [(first.start + 2, first.end)]) == [first.end]
    assert unresolved_notes(spans, [(0, len(text)), (3, 9)]) == [first.end, second.end]
    assert unresolved_notes(spans, [(0, 10)]) == []
    # a long passage that starts first still reaches a later reference
    assert unresolved_notes(spans, [(0, len(text)), (1, 2), (3, 4)]) == [first.end, second.end]

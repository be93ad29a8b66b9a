from __future__ import annotations

import pytest

from neardup.errors import SpecError
from neardup.passages.citations import Citation, CitationKind, find_citations, quoted_share


def spans(text: str, **kwargs: int) -> list[tuple[str, str]]:
    return [(c.kind.value, text[c.start : c.end]) for c in find_citations(text, **kwargs)]


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
    text = "Он писал: «слова эти были сказаны давно» [2]. Конец."
    found = find_citations(text)
    assert found == [Citation(0, text.index("]") + 1, CitationKind.REFERENCE)]


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

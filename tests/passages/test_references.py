"""The text's own reference list and the markers that point into it."""

from __future__ import annotations

import pytest

from neardup.passages.references import (
    MAX_RANGE,
    Marker,
    find_markers,
    find_reference_list,
    fold_name,
)


def entries(text: str) -> list[tuple[int, str]]:
    found = find_reference_list(text)
    assert found is not None
    return [(e.number, text[e.start : e.end]) for e in found.entries]


def test_a_headed_numbered_list_with_continuation_lines() -> None:
    text = (
        "Текст работы [1].\n\n"
        "Список литературы\n"
        "1. Иванов И. И. Шинглы в поиске\n"
        "   дубликатов. — М., 2010.\n"
        "2. Петров П. П. Поиск. — СПб., 2012.\n"
    )
    found = find_reference_list(text)
    assert found is not None and text[found.start :].startswith("Список литературы")
    assert entries(text) == [
        (1, "1. Иванов И. И. Шинглы в поиске\n   дубликатов. — М., 2010."),
        (2, "2. Петров П. П. Поиск. — СПб., 2012."),
    ]
    first = found.entries[0]
    assert {"иванов", "шинглы"} <= first.names and first.years == {"2010"}


def test_an_unnumbered_list_is_numbered_by_place_by_lines_or_by_blocks() -> None:
    lines = "Text.\n\nReferences\nSmith J. Shingles. 2019.\nBrown K. Hashing. 2018.\n"
    assert entries(lines) == [(1, "Smith J. Shingles. 2019."), (2, "Brown K. Hashing. 2018.")]
    blocks = "Text.\n\nReferences\n\nSmith J. Shingles,\nvol. 2. 2019.\n\nBrown K. Hashing. 2018.\n"
    assert entries(blocks) == [
        (1, "Smith J. Shingles,\nvol. 2. 2019."),
        (2, "Brown K. Hashing. 2018."),
    ]


def test_the_last_heading_wins_and_an_appendix_ends_the_list() -> None:
    text = (
        "Литература\n\nЭто сочинение о литературе.\n\nЛитература\n"
        "1. Толстой Л. Н. Война и мир. — М., 1869.\n\nПриложение 1\nТаблица 2010 года.\n"
    )
    assert entries(text) == [(1, "1. Толстой Л. Н. Война и мир. — М., 1869.")]


def test_prose_under_a_heading_is_no_list() -> None:
    paragraph = "Это обычный абзац сочинения о книгах, которые я прочитала летом. " * 10
    assert find_reference_list(f"Литература\n\n{paragraph}\n\n{paragraph}\n") is None
    # short lines, but nothing in them looks like an entry: no label, year, URL or "//"
    assert find_reference_list("Текст.\n\nИсточники\nмама\nпапа\nбабушка\n") is None


def test_a_trailing_numbered_list_numbered_from_one() -> None:
    text = (
        "Мои пункты:\n1. Первый пункт.\n2. Второй пункт.\n\nТекст [2].\n\n"
        "[1] Книга, 2001.\n[2] Статья // Журнал.\n"
    )
    assert entries(text) == [(1, "[1] Книга, 2001."), (2, "[2] Статья // Журнал.")]
    # the text's own numbered points just above the list are not part of it
    text = "Вывод:\n1. Раз, 1999.\n2. Два, 2000.\n1. Книга, 2001.\n2. Статья, 2002.\n"
    assert entries(text) == [(1, "1. Книга, 2001."), (2, "2. Статья, 2002.")]
    # numbered out of order, or ending with prose: no list
    assert find_reference_list("Текст.\n\n2. Книга, 2001.\n3. Статья, 2002.\n") is None
    assert find_reference_list("Текст.\n\n1. Книга, 2001.\n\nКонец текста.\n") is None


def test_an_html_list() -> None:
    text = (
        "<p>Текст работы [2].</p><h2>Список литературы</h2>"
        "<ol><li>Иванов И. И. Шинглы. 2010.</li><li>Петров П. П. Поиск. 2012.</li></ol>"
    )
    assert [number for number, _ in entries(text)] == [1, 2]
    assert entries(text)[1][1] == "Петров П. П. Поиск. 2012."


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("[7]", (7,)),
        ("[7, с. 12]", (7,)),
        ("[7, С. 12–15]", (7,)),
        ("[3; 5]", (3, 5)),
        ("[3, 5]", (3, 5)),
        ("[3–5]", (3, 4, 5)),
        ("[5-3, 8]", (3, 4, 5, 8)),
        (f"[1–{MAX_RANGE + 5}]", (1, MAX_RANGE + 5)),
    ],
)
def test_numbers_in_brackets(text: str, numbers: tuple[int, ...]) -> None:
    assert find_markers(f"Слова {text}.") == [Marker(6, 6 + len(text), numbers=numbers)]


def test_author_year_markers() -> None:
    text = "A (Smith, 2010a) b (Иванов и др., 2010, с. 4) c Иванов И. И. (2010) d Smith (2010)."
    found = find_markers(text)
    assert [(text[m.start : m.end], m.authors, m.narrative, m.weak) for m in found] == [
        ("(Smith, 2010a)", (("smith", "2010"),), False, False),
        ("(Иванов и др., 2010, с. 4)", (("иванов", "2010"),), False, False),
        ("Иванов И. И. (2010)", (("иванов", "2010"),), True, False),
        ("Smith (2010)", (("smith", "2010"),), True, True),
    ]
    assert [
        m.authors for m in find_markers("И. И. Иванов (2010) и (Иванов, 2010; Петров, 2012)")
    ] == [
        (("иванов", "2010"),),
        (("иванов", "2010"), ("петров", "2012")),
    ]
    assert find_markers("Мы пришли (как обычно) вовремя. В 2010 году (в мае) было тепло.") == []


def test_names_are_folded_and_russian_ones_match_in_another_case() -> None:
    assert fold_name("Лёвин") == "левин" and fold_name("Smith’s") == "smith"
    found = find_reference_list("Т.\n\nЛитература\n1. Достоевский Ф. М. Бесы. — СПб., 1872.\n")
    assert found is not None
    assert found.has_author("достоевского", "1872") and found.has_author("достоевский", "1872")
    assert not found.has_author("достоевский", "1873") and not found.has_author("бес", "1872")
    assert found.has_number(1) and not found.has_number(2)


def test_no_list_resolves_nothing_and_an_empty_marker_never_resolves() -> None:
    assert find_reference_list("Просто текст [1] без списка.") is None
    found = find_reference_list("Т.\n\nReferences\n1. Smith J. 2019.\n")
    assert found is not None and not found.resolves(Marker(0, 1))

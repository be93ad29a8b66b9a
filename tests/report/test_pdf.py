"""The PDF report's pieces: offsets kept, marks drawn as the page draws them, any text printed."""

from __future__ import annotations

import io

import pytest

from neardup.report.check_record import Source, Span
from neardup.report.fragments import HTML_COLOURS, MORE_COLOUR

fpdf = pytest.importorskip("fpdf", reason="the report extra is missing")
pypdf = pytest.importorskip("pypdf", reason="the office extra is missing")

from neardup.report.pdf import Piece, check_pdf, find_font, pieces, printable  # noqa: E402


def _record(spans: list[dict]) -> dict:
    return {
        "uniqueness": 0.4,
        "borrowed": 0.5,
        "cited": 0.1,
        "words": 12,
        "matches": [{"id": "doc"}],
        "source_info": {"doc": {"title": "Заголовок источника", "url": "https://example.org/a"}},
        "fragments": {
            "sources": [
                {"id": "doc", "borrowed": 0.5, "source_used": 0.3, "text": "", "passages": spans}
            ]
        },
    }


def test_printable_keeps_every_offset() -> None:
    text = "a\tb\x00c\u200bd\ud800e🙂\r\n"
    safe = printable(text)
    assert len(safe) == len(text)
    assert safe == "a b c d?e🙂 \n"


def test_pieces_draw_copied_over_rewritten_and_mark_edits_and_citations() -> None:
    copied = Span("1", 0, 10, 0, 10, 0.9, False, ((4, 6),))
    rewritten = Span("r1", 5, 20, 0, 15, 0.7, True)
    src = Source(0, "doc", "", "", 0.5, 0.5, "", (copied, rewritten))
    colour = HTML_COLOURS[0]
    got = pieces(25, [src], [(18, 22)])
    assert got == [
        Piece(0, 4, colour, False, False, False),
        Piece(4, 5, colour, False, True, False),
        Piece(5, 6, colour, False, True, False),  # the rewritten one starts under the copy
        Piece(6, 10, colour, False, False, False),
        Piece(10, 18, colour, True, False, False),
        Piece(18, 20, colour, True, False, True),
        Piece(20, 22, None, False, False, True),
        Piece(22, 25, None, False, False, False),
    ]


def test_words_found_only_in_sources_not_listed_are_on_the_neutral_colour() -> None:
    copied = Span("1", 0, 10, 0, 10, 1.0, False)
    src = Source(0, "doc", "", "", 0.5, 0.5, "", (copied,))
    got = pieces(30, [src], [(22, 30)], neutral=[(5, 15), (20, 25)])
    assert got == [
        Piece(0, 5, HTML_COLOURS[0], False, False, False),
        Piece(5, 10, HTML_COLOURS[0], False, False, False),  # a listed source's over it
        Piece(10, 15, MORE_COLOUR, False, False, False),
        Piece(15, 20, None, False, False, False),
        Piece(20, 22, MORE_COLOUR, False, False, False),
        Piece(22, 25, MORE_COLOUR, False, False, True),
        Piece(25, 30, None, False, False, True),
    ]


def test_a_report_of_any_text_and_its_cut() -> None:
    word = "Длинноесловобезпробелов" * 12  # longer than a line: cut across lines
    text = f"Начало\tтекста\x00 с NUL и 🙂.\n\n{word}\nКонец текста " * 3
    spans = [{"number": 1, "a_start": 0, "a_end": 20, "b_start": 0, "b_end": 20, "similarity": 0.9}]
    data = check_pdf(text, _record(spans), created=86400.0, collection="демо", spec="abc")
    assert data.startswith(b"%PDF")
    shown = "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages)
    # Russian: the decimal comma and the plural forms (12 words: "12 слов"), as the page says
    assert "Уникальность 40,0 %" in shown and "заимствовано 50,0 %" in shown
    assert "12 слов" in shown and "цитируется 10,0 %" in shown
    assert "Заголовок источника" in shown and "https://example.org/a" in shown
    assert "1970-01-02 00:00 UTC" in shown and "Коллекция: демо" in shown
    cut = check_pdf(text, _record(spans), max_text=30, lang="en")
    words = "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(cut)).pages)
    assert f"not shown: {len(text) - 30:,} characters" in words
    assert "Uniqueness 40.0 %" in words and "12 words" in words
    assert "Конец текста" not in words


def test_the_font_is_found_or_named() -> None:
    assert find_font().suffix == ".ttf"


@pytest.mark.parametrize(
    ("words", "lang", "said"),
    [
        (1, "ru", "1 слово"),
        (3, "ru", "3 слова"),
        (11, "ru", "11 слов"),
        (21, "ru", "21 слово"),
        (1, "en", "1 word"),
        (3, "en", "3 words"),
    ],
)
def test_counts_take_their_plural_form(words: int, lang: str, said: str) -> None:
    record = {**_record([]), "words": words}
    data = check_pdf("Текст", record, lang=lang, max_text=2)
    shown = "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages)
    assert f"· {said}" in shown
    cut = {"ru": "не показано: 3 символа", "en": "not shown: 3 characters"}[lang]
    assert cut in shown

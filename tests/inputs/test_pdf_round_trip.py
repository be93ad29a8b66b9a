"""A quotation with its reference survives a round trip through a PDF: written by fpdf2 (the
project's report writer, with the report's font) and by Chromium's print-to-PDF (Skia), read
back by :func:`neardup.inputs.office.extract_text`, it is found cited as in the plain text —
the same citation, the same borrowed and cited shares — even where the quotation runs onto the
next page. The texts are written for this test."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from html import escape
from pathlib import Path

import pytest

from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec
from neardup.passages.citations import find_citations
from tests._chromium import ARGS, CHROMIUM

fpdf = pytest.importorskip("fpdf", reason="fpdf2 (the report extra) is missing")
pypdf = pytest.importorskip("pypdf", reason="the office extra is missing")

from neardup.inputs.office import extract_text  # noqa: E402
from neardup.report.pdf import find_font  # noqa: E402

OWN = (
    "Каждую осень наш класс выбирает тему для большого сочинения о родном крае. В этот раз я "
    "решила написать о старом парке у реки, о том, как он менялся и что о нём помнят люди, "
    "которые гуляли там ещё детьми. Я расспросила соседей и дедушку, сходила в районную "
    "библиотеку и нашла там книгу о нашем городе."
)
QUOTE_BEFORE = (
    "Краевед Пётр Соколов вспоминает об этом так: «набережная старого парка всегда была "
    "местом, где горожане встречались по вечерам,"
)
QUOTE_AFTER = (
    "гуляли вдоль реки до самой пристани и подолгу обсуждали новости» [1]. Мне кажется, с "
    "тех пор мало что изменилось: по вечерам там по-прежнему много людей."
)
CLOSING = (
    "Весной парк обещают привести в порядок: починить скамейки, посадить новые липы и "
    "открыть летнюю сцену у воды, где по выходным будут играть школьные оркестры."
)
REFERENCES = "Список литературы\n1. Соколов П. И. Город у реки. Тверь, 2019."
ESSAY = f"{OWN}\n\n{QUOTE_BEFORE} {QUOTE_AFTER}\n\n{CLOSING}\n\n{REFERENCES}\n"

#: The book the quotation is taken from, as the collection holds it (written for this test).
BOOK = (
    "Глава первая. Город у реки строился вокруг пристани. Набережная старого парка всегда была "
    "местом, где горожане встречались по вечерам, гуляли вдоль реки до самой пристани и подолгу "
    "обсуждали новости. Летом здесь играл духовой оркестр, а зимой заливали каток для детей."
)


def _fpdf2(text: str, *, break_inside_quote: bool) -> bytes:
    """The essay as fpdf2 writes it with the report's font; a page ends inside the quotation
    when asked (as a long essay's page may)."""
    pdf = fpdf.FPDF()
    pdf.add_font("body", "", str(find_font()))
    pdf.set_font("body", size=11)
    pdf.add_page()
    paragraphs = text.split("\n\n")
    if break_inside_quote:
        at = paragraphs.index(f"{QUOTE_BEFORE} {QUOTE_AFTER}")
        paragraphs[at : at + 1] = [QUOTE_BEFORE, "\f", QUOTE_AFTER]
    for paragraph in paragraphs:
        if paragraph == "\f":
            pdf.add_page()
            continue
        for line in paragraph.split("\n"):
            pdf.multi_cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def _chromium(text: str, folder: Path) -> bytes:
    """The essay as Chromium prints it, in letters large enough that it runs over pages."""
    browser = CHROMIUM if os.path.isfile(CHROMIUM) else shutil.which("chromium")
    if browser is None:
        pytest.skip(f"no chromium at {CHROMIUM} nor on PATH: the second writer did NOT run")
    page, out = folder / "essay.html", folder / "essay.pdf"
    body = "".join(f"<p>{escape(p)}</p>" for p in text.split("\n") if p.strip())
    page.write_text(
        '<!DOCTYPE html><html lang="ru"><meta charset="utf-8"><style>'
        f"body{{font:28pt/2 sans-serif}}</style><body>{body}</body></html>",
        encoding="utf-8",
    )
    subprocess.run(
        [browser, *ARGS, "--no-pdf-header-footer", f"--print-to-pdf={out}", page.as_uri()],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return out.read_bytes()


def _citations(text: str) -> list[str]:
    """The text's citations that count, each as its words (white space folded)."""
    return [" ".join(text[c.start : c.end].split()) for c in find_citations(text) if c.counts]


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Collection:
    db = str(tmp_path_factory.mktemp("pdf") / "books.db")
    col = Collection.create(db, make_spec("ru"), IndexSpec(policy="allow"))
    col.add_many([("book.txt", BOOK, {})])
    return col


def _shares(collection: Collection, text: str) -> tuple[float, float]:
    alignment = collection.check(text, fragments=True).alignment
    assert alignment is not None
    return round(alignment.borrowed, 6), round(alignment.cited, 6)


def _same_as_the_text(collection: Collection, data: bytes) -> None:
    read = extract_text(data, ".pdf")
    assert " ".join(read.split()) == " ".join(ESSAY.split())  # every word, in order
    assert _citations(read) == _citations(ESSAY)
    assert any("«набережная старого парка" in c and "[1]" in c for c in _citations(read))
    borrowed, cited = _shares(collection, read)
    assert (borrowed, cited) == _shares(collection, ESSAY)
    assert borrowed == 0.0 and cited > 0.1  # the quotation is cited, not borrowed


def _pages(data: bytes) -> int:
    return len(pypdf.PdfReader(io.BytesIO(data)).pages)


def test_the_plain_text_cites_the_quotation(collection: Collection) -> None:
    quoted = [c for c in _citations(ESSAY) if "«набережная" in c]
    assert len(quoted) == 1 and "новости» [1]" in quoted[0]
    assert _shares(collection, ESSAY)[0] == 0.0


@pytest.mark.parametrize("break_inside_quote", [False, True])
def test_round_trip_through_fpdf2(collection: Collection, break_inside_quote: bool) -> None:
    data = _fpdf2(ESSAY, break_inside_quote=break_inside_quote)
    assert _pages(data) == (2 if break_inside_quote else 1)
    _same_as_the_text(collection, data)


def test_round_trip_through_chromium(collection: Collection, tmp_path: Path) -> None:
    data = _chromium(ESSAY, tmp_path)
    assert _pages(data) > 1  # the essay runs over pages
    _same_as_the_text(collection, data)

"""What a reader does not see of a .docx is kept out of ``office.extract`` and reported
(issue 24, its .docx part): hidden runs (``w:vanish``), white text on nothing darker, text of
1 pt or less, text placed off the page."""

from __future__ import annotations

import io
from typing import Any

import pytest

from neardup.inputs.office import Dropped, extract, extract_text


def _save(document: Any) -> bytes:
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _docx() -> bytes:
    docx = pytest.importorskip("docx")
    from docx.shared import Pt, RGBColor

    document = docx.Document()
    paragraph = document.add_paragraph("Видимый текст. ")
    hidden = paragraph.add_run("скрытый")
    hidden.font.hidden = True
    paragraph.add_run(" снова видно ")
    white = paragraph.add_run("белый")
    white.font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
    tiny = paragraph.add_run("мелкий")
    tiny.font.size = Pt(1)
    document.add_paragraph("Второй абзац.")
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text = "ячейка"
    cell_run = table.rows[0].cells[1].paragraphs[0].add_run("невидимая ячейка")
    cell_run.font.hidden = True
    return _save(document)


def test_invisible_runs_are_dropped_and_counted() -> None:
    data = _docx()
    got = extract(data, ".docx")
    assert got.text == "Видимый текст.  снова видно \nВторой абзац.\nячейка\t"
    assert got.dropped == (
        Dropped("hidden", len("скрытый") + len("невидимаяячейка"), 3),
        Dropped("tiny", len("мелкий"), 1),
        Dropped("white", len("белый"), 1),
    )
    trick = got.tricks.get("hidden_text")
    assert trick is not None
    assert trick.chars == 7 + 15 + 6 + 5 and trick.words == 5
    assert dict(trick.by) == {"hidden": 22, "tiny": 6, "white": 5}
    seen = sum(1 for c in got.text if not c.isspace())
    assert trick.share == pytest.approx(33 / (33 + seen))
    assert got.tricks.suspicious  # 33 characters, a third of the text
    # extract_text still gives all of it
    assert "скрытый" in extract_text(data, ".docx") and "белый" in extract_text(data, ".docx")


def test_a_document_without_invisible_text_reads_as_before() -> None:
    from tests.web._files import docx_bytes

    data = docx_bytes(["Первый абзац.", "Второй, с <тегом>."])
    got = extract(data, ".docx")
    assert got.text == extract_text(data, ".docx")
    assert got.dropped == ()
    assert not got.tricks


def test_white_text_on_a_dark_shading_or_highlight_is_read() -> None:
    docx = pytest.importorskip("docx")
    from docx.enum.text import WD_COLOR_INDEX
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn
    from docx.shared import RGBColor

    document = docx.Document()
    shaded = document.add_paragraph()
    shading = OxmlElement("w:shd")
    shading.set(qn("w:val"), "clear")
    shading.set(qn("w:fill"), "1F3864")
    shaded._p.get_or_add_pPr().append(shading)
    run = shaded.add_run("Заголовок на синем")
    run.font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
    marked = document.add_paragraph().add_run("на чёрном маркере")
    marked.font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
    marked.font.highlight_color = WD_COLOR_INDEX.BLACK
    table = document.add_table(rows=1, cols=1)
    cell = table.rows[0].cells[0]
    cell_shading = OxmlElement("w:shd")
    cell_shading.set(qn("w:val"), "clear")
    cell_shading.set(qn("w:fill"), "000000")
    cell._tc.get_or_add_tcPr().append(cell_shading)
    cell_run = cell.paragraphs[0].add_run("в тёмной ячейке")
    cell_run.font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
    # a run of white space in white changes nothing a reader sees: kept, not counted
    plain = document.add_paragraph("слово")
    space = plain.add_run(" ")
    space.font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
    plain.add_run("слово")
    got = extract(_save(document), ".docx")
    assert got.text == "Заголовок на синем\nна чёрном маркере\nв тёмной ячейке\nслово слово"
    assert got.dropped == ()


def test_text_placed_off_the_page_is_dropped() -> None:
    docx = pytest.importorskip("docx")
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn
    from docx.shared import Inches

    document = docx.Document()
    document.add_paragraph("Текст на странице.")
    far = document.add_paragraph("Абзац далеко слева за полем")
    far.paragraph_format.left_indent = Inches(-30)
    lowered = document.add_paragraph("Видно. ")
    run = lowered.add_run("опущено за край")
    position = OxmlElement("w:position")
    position.set(qn("w:val"), "-3200")  # half-points: 1,600 pt down, past a page of 792
    run._r.get_or_add_rPr().append(position)
    raised = lowered.add_run(" и чуть выше")
    small = OxmlElement("w:position")
    small.set(qn("w:val"), "6")  # 3 pt: a superscript's rise, seen
    raised._r.get_or_add_rPr().append(small)
    got = extract(_save(document), ".docx")
    assert got.text == "Текст на странице.\n\nВидно.  и чуть выше"
    assert got.dropped == (Dropped("offpage", len("Абзацдалекослевазаполем") + 13, 8),)

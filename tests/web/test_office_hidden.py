"""What a reader does not see of a .docx is kept out of ``office.extract`` and reported
(issue 24, its .docx part): hidden runs (``w:vanish``), white text, text of 1 pt or less."""

from __future__ import annotations

import io

import pytest

from neardup.office import Dropped, extract, extract_text


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
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_invisible_runs_are_dropped_and_counted() -> None:
    data = _docx()
    got = extract(data, ".docx")
    assert got.text == "Видимый текст.  снова видно \nВторой абзац.\nячейка\t"
    assert got.dropped == (
        Dropped("hidden", len("скрытый") + len("невидимая ячейка")),
        Dropped("tiny", len("мелкий")),
        Dropped("white", len("белый")),
    )
    # the reader's text is unchanged: all of it, as before
    assert "скрытый" in extract_text(data, ".docx") and "белый" in extract_text(data, ".docx")


def test_a_document_without_invisible_text_reads_as_before() -> None:
    from tests.web._files import docx_bytes

    data = docx_bytes(["Первый абзац.", "Второй, с <тегом>."])
    got = extract(data, ".docx")
    assert got.text == extract_text(data, ".docx")
    assert got.dropped == ()

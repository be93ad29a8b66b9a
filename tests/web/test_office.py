"""neardup.inputs.office: text out of .docx and .pdf, for the CLI's inputs and the service's
uploads."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from neardup.errors import InputError
from neardup.inputs import iter_inputs
from neardup.inputs.office import extract_text, is_office, read_file
from tests.web._files import docx_bytes, pdf_bytes


def test_docx_paragraphs_and_tables_in_order() -> None:
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_paragraph("Первый абзац.")
    table = document.add_table(rows=2, cols=2)
    for r, row in enumerate(table.rows):
        for c, cell in enumerate(row.cells):
            cell.text = f"ячейка {r}{c}"
    document.add_paragraph("Последний <script>абзац</script>.")
    out = io.BytesIO()
    document.save(out)
    assert extract_text(out.getvalue(), ".DOCX") == (
        "Первый абзац.\nячейка 00\tячейка 01\nячейка 10\tячейка 11\n"
        "Последний <script>абзац</script>."
    )


def test_pdf_pages_text() -> None:
    text = extract_text(pdf_bytes(["Привет, мир: первая строка.", "Вторая строка."]), "pdf")
    assert text.split() == ["Привет,", "мир:", "первая", "строка.", "Вторая", "строка."]


@pytest.mark.parametrize(
    ("data", "suffix", "message"),
    [
        (b"", ".docx", "not a readable .docx file (it is not a ZIP package)"),
        (b"PK\x03\x04" + b"\x00" * 40, ".docx", "not a readable .docx file (BadZipFile"),
        (b"%PDF-1.7\n%%EOF", ".pdf", "not a readable .pdf file"),
        (b"GIF89a", ".pdf", "not a readable .pdf file (no %PDF- header)"),
        (
            b"x",
            ".xls",
            "cannot extract text from '.xls' files; expected one of .docx, .pdf, .odt, .rtf, .doc",
        ),
    ],
)
def test_corrupt_files_are_input_errors(data: bytes, suffix: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        extract_text(data, suffix)
    assert str(info.value).startswith(message)


def test_a_zip_that_is_no_docx() -> None:
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("hello.txt", "hi")
    with pytest.raises(InputError, match="not a readable .docx file"):
        extract_text(out.getvalue(), ".docx")


def test_the_readers_take_office_files(tmp_path: Path) -> None:
    (tmp_path / "a.docx").write_bytes(docx_bytes(["Текст из документа Word."]))
    (tmp_path / "b.pdf").write_bytes(pdf_bytes(["Текст из PDF."]))
    (tmp_path / "c.txt").write_text("Простой текст.", encoding="cp1251")
    docs = list(iter_inputs([tmp_path]))
    assert [(d.id, d.text.strip()) for d in docs] == [
        ("a.docx", "Текст из документа Word."),
        ("b.pdf", "Текст из PDF."),
        ("c.txt", "Простой текст."),
    ]
    assert docs[0].meta["format"] == "docx"
    assert is_office("X.PDF") and not is_office("x.txt")
    (tmp_path / "bad.pdf").write_bytes(b"%PDF-1.4 garbage")
    with pytest.raises(InputError, match=r"bad\.pdf: not a readable \.pdf file"):
        read_file(tmp_path / "bad.pdf")

"""Office files made in the tests: .docx with python-docx, .pdf with fpdf2 (a Unicode font)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

#: A TrueType font with Cyrillic for fpdf2 (Debian's fonts-dejavu-core, which chromium pulls in).
FONTS = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/dejavu/DejaVuSans.ttf"),
)


def docx_bytes(paragraphs: list[str]) -> bytes:
    docx = pytest.importorskip(
        "docx", reason="python-docx is missing: pip install 'neardup[office]'"
    )
    document = docx.Document()
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def pdf_bytes(paragraphs: list[str]) -> bytes:
    fpdf = pytest.importorskip("fpdf", reason="fpdf2 is missing: pip install 'neardup[dev]'")
    font = next((f for f in FONTS if f.is_file()), None)
    if font is None:
        pytest.fail(
            f"no DejaVuSans.ttf at {', '.join(map(str, FONTS))} (apt-get install fonts-dejavu-core)"
        )
    pdf = fpdf.FPDF()
    pdf.add_page()
    pdf.add_font("dejavu", fname=str(font))
    pdf.set_font("dejavu", size=11)
    for paragraph in paragraphs:
        pdf.multi_cell(0, 6, paragraph)
        pdf.ln(3)
    return bytes(pdf.output())

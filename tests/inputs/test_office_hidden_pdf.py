"""What a reader does not see of a PDF is kept out of ``office.extract`` and reported (issue 24):
text in render mode 3, white text on nothing painted, text of 1 pt or less, text off the page
(files made with fpdf2)."""

from __future__ import annotations

from typing import Any

import pytest

from neardup.errors import InputTooLargeError
from neardup.inputs.office import Dropped, OfficeLimits, extract, extract_text

VISIBLE = "Видимый текст первого абзаца."


def _pdf() -> Any:
    fpdf = pytest.importorskip("fpdf")
    from tests.web._files import FONTS

    font = next((f for f in FONTS if f.is_file()), None)
    if font is None:
        pytest.fail("no DejaVuSans.ttf (apt-get install fonts-dejavu-core)")
    pdf = fpdf.FPDF()
    pdf.add_page()
    pdf.add_font("dejavu", fname=str(font))
    pdf.set_font("dejavu", size=11)
    return pdf


def _line(pdf: Any, text: str, height: float = 6) -> None:
    pdf.multi_cell(0, height, text, new_x="LMARGIN", new_y="NEXT")


def _hidden_pdf() -> bytes:
    from fpdf.enums import TextMode

    pdf = _pdf()
    _line(pdf, VISIBLE)
    with pdf.local_context(text_mode=TextMode.INVISIBLE):
        _line(pdf, "невидимый режим")
    with pdf.local_context(text_color=(255, 255, 255)):
        _line(pdf, "белый текст")
    with pdf.local_context(text_color=(250, 250, 250)):
        _line(pdf, "почти белый")
    pdf.set_font_size(1)  # points
    _line(pdf, "крошечный текст", 1)
    pdf.set_font_size(11)
    _line(pdf, "Снова видно.")
    pdf.text(-500, -500, "за страницей")
    # white on a dark box is seen
    with pdf.local_context(fill_color=(0, 0, 80), text_color=(255, 255, 255)):
        pdf.multi_cell(0, 8, "белый на синем", fill=True, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def test_hidden_pdf_text_is_dropped_and_counted_by_kind() -> None:
    data = _hidden_pdf()
    got = extract(data, ".pdf")
    assert got.text == f"{VISIBLE}\nСнова видно.\nбелый на синем"
    assert got.dropped == (
        Dropped("invisible", len("невидимыйрежим"), 2),
        Dropped("offpage", len("застраницей"), 2),
        Dropped("tiny", len("крошечныйтекст"), 2),
        Dropped("white", len("белыйтекст") + len("почтибелый"), 4),
    )
    trick = got.tricks.get("hidden_text")
    assert trick is not None and trick.chars == 14 + 11 + 14 + 20 and trick.spans == ()
    assert got.tricks.suspicious
    # all of the text, hidden or not, is still there for extract_text
    everything = extract_text(data, ".pdf")
    for piece in ("невидимый режим", "белый текст", "крошечный текст", "за страницей"):
        assert piece in everything


def test_a_pdf_with_nothing_hidden_reads_as_extract_text() -> None:
    from tests.web._files import pdf_bytes

    data = pdf_bytes(["Первый абзац о погоде.", "Второй абзац, на английском: the weather."])
    got = extract(data, ".pdf")
    assert got.text == extract_text(data, ".pdf")
    assert got.dropped == ()
    assert not got.tricks


def test_grey_and_coloured_text_is_read() -> None:
    pdf = _pdf()
    with pdf.local_context(text_color=(200, 200, 200)):  # light grey: seen
        _line(pdf, "светло-серый")
    with pdf.local_context(text_color=(255, 255, 0)):  # yellow: one channel is low
        _line(pdf, "жёлтый")
    got = extract(bytes(pdf.output()), ".pdf")
    assert got.text == "светло-серый\nжёлтый"
    assert got.dropped == ()


def test_pdf_hidden_text_keeps_the_time_budget() -> None:
    data = _hidden_pdf()
    with pytest.raises(InputTooLargeError, match="max_seconds"):
        extract(data, ".pdf", limits=OfficeLimits(max_seconds=-1.0))


def test_pdf_hidden_text_counts_towards_the_character_limit() -> None:
    data = _hidden_pdf()
    visible = len(extract(data, ".pdf").text)
    with pytest.raises(InputTooLargeError, match="max_chars"):
        extract(data, ".pdf", limits=OfficeLimits(max_chars=visible + 5))

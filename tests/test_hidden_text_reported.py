"""Text hidden in a .docx or PDF (issue 24) is kept out of what is compared and reported as a
``hidden_text`` trick at every door: the reader's documents, compare (library, CLI, JSON),
``index check`` (CLI, JSON), the API's uploads and the page; ``--no-fold`` reads all of it."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

import neardup
from neardup.cli.main import main
from neardup.fingerprints.pipeline import default_spec
from neardup.index import Collection
from neardup.inputs import CorpusReader, hidden_in, hidden_of, text_from_bytes

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SOURCE = (EXAMPLES / "original.txt").read_text(encoding="utf-8")
#: What is stuffed into the copies, unseen: another text, to make the copy look unique.
STUFFING = (EXAMPLES / "unrelated.txt").read_text(encoding="utf-8").strip()
#: The source a sentence a paragraph.
PARAGRAPHS = re.split(r"(?<=[.!?])\s+", SOURCE.strip())


def _docx_copy() -> bytes:
    docx = pytest.importorskip("docx")
    from docx.shared import Pt, RGBColor

    document = docx.Document()
    for number, text in enumerate(PARAGRAPHS):
        paragraph = document.add_paragraph(text)
        run = paragraph.add_run(" " + STUFFING)
        if number % 2:
            run.font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
        else:
            run.font.hidden = True
        paragraph.add_run(" ")
        paragraph.add_run("крошка").font.size = Pt(1)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _pdf_copy() -> bytes:
    pytest.importorskip("fpdf")
    from fpdf.enums import TextMode

    from tests.inputs.test_office_hidden_pdf import _line, _pdf

    pdf = _pdf()
    for text in PARAGRAPHS:
        _line(pdf, text)
        with pdf.local_context(text_mode=TextMode.INVISIBLE):
            _line(pdf, STUFFING)
    with pdf.local_context(text_color=(255, 255, 255)):
        _line(pdf, STUFFING)
    return bytes(pdf.output())


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hidden")
    out = {"source": folder / "source.txt", "docx": folder / "copy.docx"}
    out["source"].write_text(SOURCE, encoding="utf-8")
    out["docx"].write_bytes(_docx_copy())
    out["pdf"] = folder / "copy.pdf"
    out["pdf"].write_bytes(_pdf_copy())
    return out


def _hidden(tricks: dict[str, Any]) -> dict[str, Any]:
    [trick] = [t for t in tricks["tricks"] if t["kind"] == "hidden_text"]
    return trick


def test_the_reader_keeps_hidden_text_out_and_says_so(files: dict[str, Path]) -> None:
    [doc] = list(CorpusReader([files["docx"]]))
    assert STUFFING[:20] not in doc.text and "крошка" not in doc.text
    assert " ".join(doc.text.split()) == " ".join(SOURCE.split())
    letters = sum(1 for c in STUFFING if not c.isspace())
    n = len(PARAGRAPHS)
    assert n >= 2
    hidden, white = letters * ((n + 1) // 2), letters * (n // 2)
    assert doc.meta["hidden_text"]["chars"] == {"hidden": hidden, "tiny": 6 * n, "white": white}
    trick = hidden_of(doc).get("hidden_text")
    assert trick is not None and trick.suspicious and trick.chars == hidden + white + 6 * n
    [everything] = list(CorpusReader([files["docx"]], visible_only=False))
    assert STUFFING[:20] in everything.text and "hidden_text" not in everything.meta
    decoded = text_from_bytes(files["pdf"].read_bytes(), "copy.pdf")
    assert STUFFING[:20] not in decoded.text
    assert dict(hidden_in(decoded).found[0].by).keys() == {"invisible", "white"}


def test_compare_reports_hidden_text(files: dict[str, Path]) -> None:
    decoded = text_from_bytes(files["docx"].read_bytes(), "copy.docx")
    clean = neardup.compare(SOURCE, decoded.text)
    result = neardup.compare(SOURCE, decoded.text, hidden_b=hidden_in(decoded))
    assert result.resemblance == clean.resemblance > 0.9
    assert result.suspicious and not clean.suspicious
    trick = _hidden(result.to_dict()["suspicious"]["b"])
    assert trick["spans"] == [] and trick["suspicious"] is True
    assert set(trick["by"]) == {"hidden", "white", "tiny"}


def test_the_cli_compares_what_a_reader_sees(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["compare", str(files["docx"]), str(files["pdf"]), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["resemblance"] > 0.9 and out["suspicious"]["flag"] is True
    assert set(_hidden(out["suspicious"]["a"])["by"]) == {"hidden", "white", "tiny"}
    assert set(_hidden(out["suspicious"]["b"])["by"]) == {"invisible", "white"}
    assert main(["compare", str(files["source"]), str(files["pdf"]), "--json", "--no-fold"]) == 0
    raw = json.loads(capsys.readouterr().out)
    assert raw["resemblance"] < 0.6 and raw["suspicious"]["flag"] is False
    assert main(["compare", str(files["source"]), str(files["docx"])]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "SUSPICIOUS, made to evade a checker (text hidden in the file, kept out:" in text
    assert "(hidden " in text and "tiny " in text and "white " in text


def test_index_check_reports_hidden_text(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "c.db")
    with Collection.create(db, default_spec()) as col:
        col.add("source", SOURCE)
    capsys.readouterr()
    assert main(["index", "check", db, str(files["pdf"]), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["matches"][0]["id"] == "source" and out["matches"][0]["resemblance"] > 0.9
    assert out["suspicious"]["flag"] is True
    assert set(_hidden(out["suspicious"])["by"]) == {"invisible", "white"}
    assert main(["index", "check", db, str(files["docx"])]) == 0
    assert "text hidden in the file" in " ".join(capsys.readouterr().out.split())


def test_the_api_and_the_page_report_hidden_text(files: dict[str, Path], tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="the web extra is missing")
    from fastapi.testclient import TestClient

    from neardup.web.app import create_app
    from neardup.web.service import ServiceConfig

    db = str(tmp_path / "c.db")
    with Collection.create(db, default_spec()) as col:
        col.add("source", SOURCE)
    docx, pdf = files["docx"].read_bytes(), files["pdf"].read_bytes()
    with TestClient(create_app(ServiceConfig(db=db))) as client:
        checked = client.post("/api/check/file", files={"file": ("copy.docx", docx)}).json()
        assert checked["suspicious"]["flag"] is True
        assert _hidden(checked["suspicious"])["chars"] > 100
        assert STUFFING[:20] not in checked["text"]
        compared = client.post(
            "/api/compare/files", files={"a": ("s.txt", SOURCE.encode()), "b": ("c.pdf", pdf)}
        ).json()
        assert compared["suspicious"]["flag"] is True and compared["resemblance"] > 0.9
        assert compared["suspicious"]["a"]["tricks"] == []
        page = client.post("/check", files={"file": ("copy.pdf", pdf)}).text
        assert 'class="suspicious" id="suspicious"' in page
        assert "скрытый в файле текст" in page

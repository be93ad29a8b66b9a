""".odt, .rtf and .doc at every door: the suffix table, the reader, compare (a Word-made RTF
scores as its text does, not 0), hidden text reported as for .docx, and the service's uploads
(its accepted list names them)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import neardup
from neardup.cli.main import main
from neardup.inputs import SUFFIXES, CorpusReader, format_for, hidden_in, text_from_bytes
from tests.inputs._office_files import (
    HIDDEN,
    HIDDEN_CHARS,
    HIDDEN_DOC,
    PARAGRAPHS,
    odt_bytes,
    odt_paragraphs,
    rtf_bytes,
)

TEXT = "\n".join(PARAGRAPHS)


def test_the_suffixes_name_the_new_formats() -> None:
    for suffix in (".odt", ".rtf", ".doc"):
        found = format_for(f"Essay{suffix.upper()}")
        assert found is SUFFIXES[suffix] and found.name == suffix[1:]
        assert found.extract is not None and found.visible is not None and not found.records
    assert format_for("a.docx") is SUFFIXES[".docx"]  # the longest suffix, not .doc
    assert format_for("a.html").name == "text" and format_for("a.xls") is None


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "plain.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "word.rtf").write_bytes(rtf_bytes(PARAGRAPHS))
    (tmp_path / "writer.odt").write_bytes(odt_bytes(odt_paragraphs(PARAGRAPHS)))
    (tmp_path / "page.html").write_text(f"<p>{PARAGRAPHS[0]}</p>", encoding="utf-8")
    (tmp_path / "stuffed.rtf").write_bytes(rtf_bytes(PARAGRAPHS, hidden={2: HIDDEN}))
    return tmp_path


def test_the_reader_reads_them_as_their_text(folder: Path) -> None:
    docs = {d.id: d for d in CorpusReader([folder])}
    assert docs["word.rtf"].text == docs["writer.odt"].text == docs["plain.txt"].text == TEXT
    assert docs["word.rtf"].meta["format"] == "rtf" and docs["writer.odt"].meta["format"] == "odt"
    assert "hidden_text" not in docs["word.rtf"].meta
    assert docs["stuffed.rtf"].meta["hidden_text"] == {
        "chars": {"hidden": HIDDEN_CHARS},
        "words": len(HIDDEN.split()),
    }
    assert "<p>" in docs["page.html"].text  # HTML is still read as text (the analyzer strips it)


def test_a_word_rtf_scores_as_the_same_text(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rtf = text_from_bytes((folder / "word.rtf").read_bytes(), "word.rtf")
    assert neardup.compare(TEXT, rtf.text).resemblance == 1.0
    capsys.readouterr()
    assert main(["compare", str(folder / "word.rtf"), str(folder / "plain.txt"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["resemblance"] == 1.0
    assert main(["compare", str(folder / "writer.odt"), str(folder / "word.rtf"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["resemblance"] == 1.0


def test_hidden_text_is_reported_as_for_docx(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stuffed = text_from_bytes((folder / "stuffed.rtf").read_bytes(), "stuffed.rtf")
    assert HIDDEN not in stuffed.text
    result = neardup.compare(TEXT, stuffed.text, hidden_b=hidden_in(stuffed))
    assert result.resemblance == 1.0 and result.suspicious
    capsys.readouterr()
    assert main(["compare", str(folder / "plain.txt"), str(folder / "stuffed.rtf"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["resemblance"] == 1.0 and out["suspicious"]["flag"] is True
    [trick] = [t for t in out["suspicious"]["b"]["tricks"] if t["kind"] == "hidden_text"]
    assert trick["by"] == {"hidden": HIDDEN_CHARS}
    [everything] = list(CorpusReader([folder / "stuffed.rtf"], visible_only=False))
    assert HIDDEN in everything.text


def test_the_service_takes_them(folder: Path) -> None:
    pytest.importorskip("fastapi", reason="the web extra is missing")
    from neardup.web.service import UPLOAD_SUFFIXES, upload

    assert {".odt", ".rtf", ".doc", ".docx", ".pdf", ".html", ".txt"} <= set(UPLOAD_SUFFIXES)
    text, tricks = upload((folder / "stuffed.rtf").read_bytes(), "работа.rtf")
    assert HIDDEN not in text and tricks.get("hidden_text") is not None
    assert upload((folder / "writer.odt").read_bytes(), "работа.odt")[0] == TEXT
    if shutil.which("antiword") is not None:
        text, tricks = upload(HIDDEN_DOC.read_bytes(), "работа.doc")
        assert HIDDEN not in text and tricks.get("hidden_text") is not None

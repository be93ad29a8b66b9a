"""``neardup index check --pdf`` and ``--exclude``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.cli._run import run
from tests.web._kept import TITLES, copied_text, make_titled_collection

pypdf = pytest.importorskip("pypdf", reason="the office extra is missing")
pytest.importorskip("fpdf", reason="the report extra is missing: pip install 'neardup[report]'")


@pytest.fixture
def db(tmp_path: Path) -> str:
    return make_titled_collection(tmp_path)


@pytest.fixture
def text_file(tmp_path: Path) -> Path:
    path = tmp_path / "заметка.txt"
    path.write_text(copied_text(), encoding="utf-8")
    return path


def test_pdf_report_of_a_check(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    db: str,
    text_file: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NEARDUP_LANG", "ru")  # the report is in the CLI's language
    out = tmp_path / "report.pdf"
    code, stdout, err = run(
        capsys, "index", "check", db, str(text_file), "--json", "--pdf", str(out)
    )
    assert code == 0, err
    result = json.loads(stdout)
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    text = "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages)
    percent = f"{result['uniqueness_percent']:.1f}".replace(".", ",")  # the decimal comma
    assert f"Уникальность {percent} %" in text
    assert TITLES["school.txt"][0] in text and TITLES["bakery.txt"][0] in text
    assert "Коллекция: районные новости" in text  # the name, not the folder
    assert str(tmp_path) not in text
    assert "заметка.txt" in text


def test_exclude_leaves_sources_out(
    capsys: pytest.CaptureFixture[str], db: str, text_file: Path
) -> None:
    def check(*extra: str) -> dict:
        code, stdout, err = run(capsys, "index", "check", db, str(text_file), "--json", *extra)
        assert code == 0, err
        return json.loads(stdout)

    full = check()
    assert {"school.txt", "bakery.txt"} <= {m["id"] for m in full["matches"]}
    less = check("--exclude", "school.txt")
    assert "school.txt" not in {m["id"] for m in less["matches"]}
    assert less["uniqueness"] > full["uniqueness"] + 0.2
    none = check("--exclude", "school.txt", "--exclude", "bakery.txt", "--exclude", "nobody")
    assert none["uniqueness"] == 1.0 and none["matches"] == []


def test_no_cyrillic_font_is_a_clear_error(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    db: str,
    text_file: Path,
) -> None:
    out = tmp_path / "report.pdf"
    monkeypatch.setenv("NEARDUP_PDF_FONT", str(tmp_path / "missing.ttf"))
    code, _, err = run(capsys, "index", "check", db, str(text_file), "--pdf", str(out))
    assert code != 0
    assert "NEARDUP_PDF_FONT" in err and "is not a file" in err
    not_a_font = tmp_path / "font.ttf"
    not_a_font.write_bytes(b"not a font at all")
    monkeypatch.setenv("NEARDUP_PDF_FONT", str(not_a_font))
    code, _, err = run(capsys, "index", "check", db, str(text_file), "--pdf", str(out))
    assert code != 0 and "not a TrueType font" in err
    assert not out.exists()

"""Tracebacks the CLI printed, each now one line saying what to do, with a non-zero exit: a
.docx whose compressed bytes are damaged, a report written to a full disk, and paths under a
folder the user may not search (run as a user who is held to the files' modes: under root, the
child drops the capabilities that let root read and write anywhere)."""

from __future__ import annotations

import ctypes
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import neardup
from neardup.errors import InputError
from tests.cli._run import run

TEXT = "парк город река дом улица школа учитель ученик книга газета новость власть зима лето"
SRC = str(Path(neardup.__file__).resolve().parents[1])
_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2


def _damaged_docx(path: Path) -> Path:
    """A .docx whose main part's deflated bytes are overwritten mid-stream."""
    docx = pytest.importorskip("docx")
    document = docx.Document()
    for _ in range(20):
        document.add_paragraph(TEXT)
    buffer = io.BytesIO()
    document.save(buffer)
    data = bytearray(buffer.getvalue())
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("word/document.xml")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for i in range(start + 10, start + 40):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    return path


@pytest.fixture
def collection(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    db = str(tmp_path / "c.db")
    assert run(capsys, "index", "create", db)[0] == 0
    return db


def _one_line(err: str) -> str:
    """The one line an error printed (a progress bar drawn before it aside)."""
    lines = [line for line in err.strip().splitlines() if "━" not in line]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert len(lines[0]) < 300, lines[0]
    return lines[0]


def test_a_damaged_docx_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], collection: str
) -> None:
    bad = _damaged_docx(tmp_path / "bad.docx")
    (tmp_path / "a.txt").write_text(TEXT, encoding="utf-8")
    for args in (
        ("compare", str(bad), str(tmp_path / "a.txt")),
        ("index", "check", collection, str(bad)),
    ):
        code, _, err = run(capsys, *args)
        assert code == 2, err
        assert "not a readable .docx file (damaged compressed data" in _one_line(err)
    # index add says first how far it got, then the error
    code, _, err = run(capsys, "index", "add", collection, str(bad))
    assert code == 2 and "Traceback" not in err
    assert "not a readable .docx file (damaged compressed data" in err.strip().splitlines()[-1]
    from neardup.inputs.office import extract_text

    with pytest.raises(InputError, match="damaged compressed data"):
        extract_text(bad.read_bytes(), ".docx")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("report", ["--pdf", "--html"])
def test_a_report_to_a_full_disk_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], collection: str, report: str
) -> None:
    if report == "--pdf":
        pytest.importorskip("fpdf")
    (tmp_path / "a.txt").write_text(TEXT, encoding="utf-8")
    code, _, err = run(
        capsys, "index", "check", collection, str(tmp_path / "a.txt"), report, "/dev/full"
    )
    assert code == 2
    assert _one_line(err) == "Error: cannot write the report to /dev/full: No space left on device"


def _held_to_modes() -> None:
    """In the child, before exec: root loses what lets it ignore the files' modes."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def _neardup(*args: str, lang: str = "en") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=SRC, NEARDUP_LANG=lang)
    return subprocess.run(
        [sys.executable, "-m", "neardup.cli.main", *args],
        env=env,
        capture_output=True,
        text=True,
        preexec_fn=_held_to_modes,
        timeout=600,
    )


@pytest.fixture
def closed(tmp_path: Path) -> Path:
    """A folder of mode 0 holding a text, and, beside it, a corpus and a collection."""
    folder = tmp_path / "closed"
    folder.mkdir()
    (folder / "a.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "in.jsonl").write_text('{"id": "x", "text": "' + TEXT + '"}\n', encoding="utf-8")
    folder.chmod(0)
    probe = subprocess.run(
        [sys.executable, "-c", f"open({str(folder / 'a.txt')!r})"],
        preexec_fn=_held_to_modes,
        capture_output=True,
    )
    if probe.returncode == 0:
        folder.chmod(0o755)
        pytest.skip("this user reads a folder of mode 0 (the capabilities could not be dropped)")
    yield folder
    folder.chmod(0o755)


def test_paths_under_a_closed_folder_are_one_line(closed: Path, tmp_path: Path) -> None:
    made = _neardup("index", "create", str(tmp_path / "c.db"))
    assert made.returncode == 0, made.stderr
    cases = {
        ("index", "create", str(closed / "new.db")): "cannot open the collection at",
        ("index", "add", str(tmp_path / "c.db"), str(closed / "a.txt")): "cannot read",
        (
            "dedup",
            str(tmp_path / "in.jsonl"),
            "--out",
            str(closed / "out"),
        ): "cannot write the output",
        ("dedup", str(closed / "a.txt"), "--out", str(tmp_path / "out")): "cannot read",
        ("sign", str(tmp_path / "in.jsonl"), "--output", str(closed / "sig")): "cannot write",
    }
    for args, says in cases.items():
        done = _neardup(*args)
        line = _one_line(done.stderr)
        assert done.returncode == 2, done.stderr
        assert line.startswith(f"Error: {says}") and "Permission denied" in line, line
    russian = _neardup("index", "create", str(closed / "new.db"), lang="ru")
    assert russian.returncode == 2
    line = _one_line(russian.stderr)
    assert line == (
        f"Ошибка: {closed / 'new.db'}: Permission denied. Проверьте, что у вас есть права на эту "
        "папку, или выберите другой путь."
    )


def test_an_os_error_nothing_foresaw_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI's last net: an OSError that escapes a command is one line, exit 1."""
    from neardup.cli import main as cli_main

    def fails() -> None:
        raise PermissionError(13, "Permission denied", "/somewhere/x")

    command = cli_main.click.Command("boom", callback=fails)
    cli_main.cli.add_command(command)
    try:
        code, _, err = run(capsys, "boom")
    finally:
        cli_main.cli.commands.pop("boom")
    assert code == 1
    assert _one_line(err) == (
        "Error: /somewhere/x: Permission denied. Check the path, your permissions on it and the "
        "free space."
    )


# --- messages: one line, short, saying what to do --------------------------------------------
def test_a_csv_header_without_the_column_is_named_briefly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], collection: str
) -> None:
    table = tmp_path / "wide.csv"
    table.write_text("x" * 10_000 + "\nvalue\n", encoding="utf-8")
    code, _, err = run(capsys, "index", "add", collection, str(table))
    assert code == 2
    line = err.strip().splitlines()[-1]
    assert "the header has no column 'id' (columns: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxx…')" in line
    assert len(line) < 300 + len(str(table)), line
    wide = tmp_path / "many.csv"
    wide.write_text(",".join(f"c{i}" for i in range(50)) + "\n" + ",".join("v" * 50) + "\n")
    code, _, err = run(capsys, "index", "add", collection, str(wide))
    assert "'c6', 'c7' and 42 more); choose with --id-field/--text-field" in err


def test_serve_refuses_an_address_it_cannot_listen_on(
    capsys: pytest.CaptureFixture[str], collection: str
) -> None:
    pytest.importorskip("uvicorn")
    code, _, err = run(capsys, "serve", collection, "--host", "999.1.1.1")
    assert code == 2
    line = _one_line(err)
    assert line.startswith("Error: --host '999.1.1.1': not an address of this machine")
    assert line.endswith("give one such as 127.0.0.1, or 0.0.0.0 for every interface")
    code, _, err = run(capsys, "serve", collection, "--keep-checks-days", str(2**63))
    assert code == 2 and "is not in the range 0<=x<=36500" in err


def test_a_damaged_pdf_prints_no_log_line_of_pypdf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pypdf")
    pdf = tmp_path / "cut.pdf"
    pdf.write_bytes(
        b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]"
        b"/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/Contents 4 0 R>>endobj\n4 0 obj"
        b"<</Length 5>>stream\nBT ET\nendstream endobj\ntrailer<</Root 1 0 R>>\n"
    )
    (tmp_path / "a.txt").write_text(TEXT, encoding="utf-8")
    code, _, err = run(capsys, "compare", str(pdf), str(tmp_path / "a.txt"))
    assert code == 2
    assert _one_line(err).startswith(f"Error: {pdf}: not a readable .pdf file")


def test_a_pdf_report_says_nothing_of_missing_glyphs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], collection: str
) -> None:
    pytest.importorskip("fpdf")
    text = tmp_path / "glyphs.txt"
    text.write_text(TEXT + " 𝔸𝔹ℂ 漢字 ☃", encoding="utf-8")
    report = tmp_path / "report.pdf"
    code, _, err = run(capsys, "index", "check", collection, str(text), "--pdf", str(report))
    assert code == 0, err
    assert report.read_bytes().startswith(b"%PDF")
    assert "glyph" not in err and "Font" not in err, err

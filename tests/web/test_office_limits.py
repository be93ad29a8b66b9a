"""Office files past the reader's limits are refused before extraction (issue 27).

A 1 MB .docx that unpacks to 10 million paragraphs drove ``compare``, ``index add`` and
``index check`` past 5.5 GB of memory. Now every limit of :class:`OfficeLimits` (bytes,
unpacked size, XML elements, paragraphs, pages, characters, time) refuses such a file with an
``InputTooLargeError`` before python-docx or pypdf builds it; the commands exit 2 with one line
and their memory stays bounded (measured in a child process, not timed).
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from neardup.errors import InputError, InputTooLargeError
from neardup.inputs.office import DEFAULT_LIMITS, OfficeLimits, extract_text, read_file
from tests.web._files import docx_bytes, pdf_bytes

#: A command's peak memory must stay under this (the bomb unpacked as python-docx would build
#: it: several gigabytes).
MEMORY_BOUND = 1024**3

WORDS = "парк город река дом улица школа учитель ученик книга газета"


def _with_document(template: bytes, body: bytes) -> bytes:
    """``template`` (a .docx python-docx made) with its main part's body replaced."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(template)) as source:
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
            for item in source.infolist():
                content = source.read(item.filename)
                if item.filename == "word/document.xml":
                    head = content[: content.index(b"<w:body>") + len(b"<w:body>")]
                    content = head + body + b"</w:body></w:document>"
                target.writestr(item.filename, content, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


@pytest.fixture(scope="module")
def template() -> bytes:
    return docx_bytes([WORDS])


@pytest.fixture(scope="module")
def bomb(template: bytes, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 1 MB of .docx whose main part holds 10 million paragraphs."""
    paragraph = b"<w:p><w:r><w:t>x</w:t></w:r></w:p>"
    data = _with_document(template, paragraph * 10_000_000)
    assert len(data) < 2 * 1024**2
    path = tmp_path_factory.mktemp("bomb") / "bomb.docx"
    path.write_bytes(data)
    return path


@pytest.mark.slow
def test_the_paragraphs_are_counted_while_streaming_and_refused(bomb: Path) -> None:
    with pytest.raises(InputTooLargeError, match="more than 200,000 paragraphs"):
        extract_text(bomb.read_bytes(), ".docx")
    with pytest.raises(InputTooLargeError, match=r"bomb\.docx: .*max_paragraphs"):
        read_file(bomb)


def test_each_limit_refuses_by_name(template: bytes) -> None:
    body = b"<w:p><w:r><w:t>" + WORDS.encode() + b"</w:t></w:r></w:p>"
    doc = _with_document(template, body * 50)
    assert extract_text(doc, ".docx").splitlines() == [WORDS] * 50
    cases = {
        "max_paragraphs": OfficeLimits(max_paragraphs=49),
        "max_elements": OfficeLimits(max_elements=100),
        "max_unpacked": OfficeLimits(max_unpacked=10_000),
        "max_chars": OfficeLimits(max_chars=1000),
        "max_bytes": OfficeLimits(max_bytes=1000),
        "max_seconds": OfficeLimits(max_seconds=0.0),
    }
    for name, limits in cases.items():
        with pytest.raises(InputTooLargeError, match=name):
            extract_text(doc, ".docx", limits=limits)
    assert extract_text(doc, ".docx", limits=OfficeLimits(max_paragraphs=50)).count("\n") == 49


def test_the_declared_unpacked_size_is_read_before_anything_is_inflated(template: bytes) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(template)) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            target.writestr(item, source.read(item.filename))
        info = zipfile.ZipInfo("word/media/huge.bin")
        info.compress_type = zipfile.ZIP_DEFLATED
        with target.open(info, "w", force_zip64=True) as member:
            for _ in range(40):
                member.write(bytes(16 * 1024**2))  # 640 MiB of zeros, under a MiB packed
    with pytest.raises(InputTooLargeError, match="declares 67[0-9,]+ bytes unpacked"):
        extract_text(out.getvalue(), ".docx")


def test_pdf_pages_characters_and_time(tmp_path: Path) -> None:
    data = pdf_bytes([WORDS] * 200)  # several pages
    assert extract_text(data, ".pdf").split()[:3] == WORDS.split()[:3]
    with pytest.raises(InputTooLargeError, match="pages; the limit \\(max_pages\\) is 1"):
        extract_text(data, ".pdf", limits=OfficeLimits(max_pages=1))
    with pytest.raises(InputTooLargeError, match="max_chars"):
        extract_text(data, ".pdf", limits=OfficeLimits(max_chars=100))
    with pytest.raises(InputTooLargeError, match="max_seconds"):
        extract_text(data, ".pdf", limits=OfficeLimits(max_seconds=0.0))


def test_a_pdf_past_the_page_limit(tmp_path: Path) -> None:
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    for _ in range(DEFAULT_LIMITS.max_pages + 1):
        pdf.add_page()
    with pytest.raises(InputTooLargeError, match="has 5,001 pages"):
        extract_text(bytes(pdf.output()), ".pdf")


def test_an_entity_bomb_is_not_expanded(template: bytes) -> None:
    laughs = (
        b'<!DOCTYPE w [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>'
    )
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(template)) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            content = source.read(item.filename)
            if item.filename == "word/document.xml":
                content = content.replace(b"?>", b"?>" + laughs, 1).replace(WORDS.encode(), b"&d;")
            target.writestr(item.filename, content)
    try:
        text = extract_text(out.getvalue(), ".docx")
    except InputError:
        return
    assert len(text) < 1000


def test_office_does_not_import_the_reader() -> None:
    """The office extractors sit under the reader (the reader's format table calls them), so
    they import none of the reader's modules, only one another: a cycle would load the whole
    reader with them."""
    import ast

    import neardup.inputs.office as office

    readers = {"office", "office_pdf", "office_base", "office_odt", "office_rtf", "office_doc"}
    for name in sorted(readers):
        path = Path(office.__file__).with_name(f"{name}.py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module is not None
        } | {
            f"{node.module}.{alias.name}"
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "neardup.inputs"
            for alias in node.names
        }
        inputs = {m for m in imported if m.startswith("neardup.inputs")} - {"neardup.inputs"}
        assert inputs <= {f"neardup.inputs.{r}" for r in readers}, name


# ---- every entry point, as a process whose memory is measured ------------------------------------

MEASURED = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(__import__("json").dumps({"code": done.returncode, "err": done.stderr, "peak": peak}))
"""


def _measured(*args: str, cwd: Path) -> dict[str, object]:
    """``neardup ARGS`` in a grandchild; its exit code, stderr and peak resident bytes."""
    command = [sys.executable, "-c", MEASURED, sys.executable, "-m", "neardup.cli.main", *args]
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, check=True)
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.mark.slow
def test_every_command_refuses_the_bomb_in_bounded_memory(bomb: Path, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(WORDS, encoding="utf-8")
    db = str(tmp_path / "texts.db")
    assert _measured("index", "create", db, "--preset", "plain", cwd=tmp_path)["code"] == 0
    assert _measured("index", "add", db, "a.txt", cwd=tmp_path)["code"] == 0
    runs = {
        "compare": _measured("compare", str(bomb), "a.txt", cwd=tmp_path),
        "index add": _measured("index", "add", db, str(bomb), cwd=tmp_path),
        "index check": _measured("index", "check", db, str(bomb), cwd=tmp_path),
    }
    for name, run in runs.items():
        err = str(run["err"])
        assert run["code"] == 2, (name, err)
        assert "Traceback" not in err, (name, err)
        assert "more than 200,000 paragraphs" in err, (name, err)
        assert int(run["peak"]) < MEMORY_BOUND, (name, run["peak"])  # type: ignore[call-overload]

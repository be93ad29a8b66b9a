"""Word 97–2003 (``neardup.inputs.office_doc``): antiword's DocBook XML (catdoc for the smallest
files), hidden text reported, the program bounded in output and time, a missing program named
with its Debian package, and damaged files refused as errors.

The .doc files are ``data/hidden.doc`` and ``data/small.doc`` (``data/README.md`` says how they
were made); the bounds of the program are also tried with stand-in programs that never stop
or never stop writing."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from neardup.errors import InputError, InputTooLargeError, MissingDependencyError
from neardup.inputs import iter_inputs
from neardup.inputs.office import Dropped, Extraction, OfficeLimits, extract, extract_text
from neardup.inputs.office_doc import MEMORY
from neardup.messages import error_text
from tests.inputs._office_files import (
    HIDDEN,
    HIDDEN_CHARS,
    HIDDEN_DOC,
    HIDDEN_WORDS,
    PARAGRAPHS,
    RU,
    SMALL,
    SMALL_DOC,
    TABLE_DOC,
    doc_paragraphs,
    rtf_bytes,
    table_lines,
)

ANTIWORD = pytest.mark.skipif(
    shutil.which("antiword") is None,
    reason="Debian's antiword is not installed (scripts/test.sh installs it when run as root: "
    "apt-get install antiword)",
)
CATDOC = pytest.mark.skipif(
    shutil.which("catdoc") is None,
    reason="Debian's catdoc is not installed (scripts/test.sh installs it when run as root: "
    "apt-get install catdoc)",
)


@ANTIWORD
def test_a_word_file_with_hidden_text() -> None:
    data = HIDDEN_DOC.read_bytes()
    got = extract(data, ".doc")
    assert got.text == "\n".join(doc_paragraphs())
    assert got.dropped == (Dropped("hidden", HIDDEN_CHARS, HIDDEN_WORDS),)
    everything = extract_text(data, ".DOC").split("\n")
    assert everything[1] == f"1. {RU[1]} {HIDDEN}"
    assert everything[:1] + everything[2:] == got.text.split("\n")[:1] + got.text.split("\n")[2:]


@ANTIWORD
def test_headings_paragraphs_and_a_table_read_as_a_docx() -> None:
    got = extract(TABLE_DOC.read_bytes(), ".doc")
    assert got.text.split("\n") == table_lines() and got.dropped == ()


@CATDOC
def test_a_file_too_small_for_antiword_is_read_by_catdoc() -> None:
    data = SMALL_DOC.read_bytes()
    assert extract_text(data, ".doc") == "\n".join(SMALL)
    assert extract(data, ".doc") == Extraction("\n".join(SMALL))  # catdoc tells nothing hidden


@ANTIWORD
def test_the_reader_reads_doc_files_in_a_folder(tmp_path: Path) -> None:
    shutil.copyfile(HIDDEN_DOC, tmp_path / "essay.doc")
    [doc] = list(iter_inputs([tmp_path]))
    assert doc.id == "essay.doc" and doc.meta["format"] == "doc"
    assert doc.text == "\n".join(doc_paragraphs())
    assert doc.meta["hidden_text"] == {"chars": {"hidden": HIDDEN_CHARS}, "words": HIDDEN_WORDS}


def test_a_doc_that_is_rtf_or_docx_inside_is_read_as_what_it_is() -> None:
    rtf = rtf_bytes(PARAGRAPHS, hidden={0: HIDDEN})
    got = extract(rtf, ".doc")
    assert got.text.split("\n")[1:] == PARAGRAPHS[1:]
    assert got.dropped == (Dropped("hidden", HIDDEN_CHARS, HIDDEN_WORDS),)
    from tests.web._files import docx_bytes

    assert extract_text(docx_bytes(PARAGRAPHS), ".doc") == "\n".join(PARAGRAPHS)


def _stand_in(folder: Path, script: str) -> None:
    """A program named ``antiword`` that runs ``script`` (POSIX shell), first on the PATH."""
    program = folder / "antiword"
    program.write_text("#!/bin/sh\n" + script + "\n", encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)


def test_the_program_is_bounded_in_time_and_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    data = HIDDEN_DOC.read_bytes()
    _stand_in(tmp_path, "exec sleep 60")
    with pytest.raises(InputTooLargeError, match=r"took longer than the limit of 0\.5 s"):
        extract_text(data, ".doc", limits=OfficeLimits(max_seconds=0.5))
    _stand_in(tmp_path, "exec yes '<para>again</para>'")
    with pytest.raises(InputTooLargeError, match=r"gives more text than the limit.*max_chars"):
        extract_text(data, ".doc", limits=OfficeLimits(max_chars=100_000))
    _stand_in(tmp_path, "echo 'nothing to say' >&2; exit 3")
    with pytest.raises(InputError) as info:
        extract_text(data, ".doc")
    assert str(info.value) == "not a readable .doc file (antiword: nothing to say)"
    _stand_in(tmp_path, "echo '<book><para>a<para>' ")
    with pytest.raises(InputError, match=r"not a readable \.doc file \(antiword's output: "):
        extract_text(data, ".doc")


@pytest.mark.skipif(not Path("/proc/self/limits").is_file(), reason="no /proc (not Linux)")
def test_the_program_runs_with_its_address_space_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    # the cap is set on the started child; it reads its own limits a moment later
    _stand_in(tmp_path, "sleep 0.5; grep 'Max address space' /proc/$$/limits >&2; exit 3")
    with pytest.raises(InputError) as info:
        extract_text(HIDDEN_DOC.read_bytes(), ".doc")
    assert f"Max address space {MEMORY} {MEMORY} bytes" in " ".join(str(info.value).split())


@ANTIWORD
def test_the_bounds_of_a_docx() -> None:
    data = HIDDEN_DOC.read_bytes()
    with pytest.raises(InputTooLargeError, match=r"the \.doc file is [0-9,]+ bytes.*max_bytes"):
        extract_text(data, ".doc", limits=OfficeLimits(max_bytes=10_000))
    with pytest.raises(InputTooLargeError, match=r"more than 10 paragraphs.*max_paragraphs"):
        extract(data, ".doc", limits=OfficeLimits(max_paragraphs=10))
    assert extract(data, ".doc", limits=OfficeLimits(max_paragraphs=24)).text.count("\n") == 23
    with pytest.raises(InputTooLargeError, match=r"more than 20 XML elements.*max_elements"):
        extract_text(data, ".doc", limits=OfficeLimits(max_elements=20))
    with pytest.raises(InputTooLargeError, match="max_chars"):
        extract(data, ".doc", limits=OfficeLimits(max_chars=1000))
    with pytest.raises(InputTooLargeError, match=r"took longer than the limit of 0 s"):
        extract_text(data, ".doc", limits=OfficeLimits(max_seconds=0.0))


@ANTIWORD
@CATDOC
def test_damaged_files_are_neardup_errors() -> None:
    data = HIDDEN_DOC.read_bytes()
    for broken in (b"", b"not a Word file", data[:2000], data[:512] + bytes(4096)):
        with pytest.raises(InputError) as info:
            extract(broken, ".doc")
        assert info.value.code == "unreadable_file" and info.value.params == {"kind": ".doc"}
        assert str(info.value).startswith("not a readable .doc file (")
    with pytest.raises(InputError, match=r"\(it is not a Word 97-2003 compound file\)"):
        extract(b"plain text", ".doc")


def test_a_missing_program_names_its_debian_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(MissingDependencyError) as info:
        extract(HIDDEN_DOC.read_bytes(), ".doc")
    error = info.value
    assert error.code == "missing_tool"
    assert error.params == {"tool": "antiword", "package": "antiword", "kind": ".doc"}
    assert str(error) == (
        "reading .doc files needs the program antiword, which is not installed; install "
        "Debian's package: apt-get install antiword"
    )
    assert error_text(error.code, error.params, "ru", str(error)) == (
        "Для чтения файлов .doc нужна программа antiword, а она не установлена; установите "
        "пакет Debian: apt-get install antiword."
    )
    assert error_text(error.code, error.params, "en", str(error)) == (
        "Reading .doc files needs the program antiword, which is not installed; install "
        "Debian's package: apt-get install antiword."
    )

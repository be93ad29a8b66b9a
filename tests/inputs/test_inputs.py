"""Reading inputs: text files, folders, JSONL(.gz), CSV, Parquet, and their errors."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from neardup.analysis.decode import decode
from neardup.errors import DatasetError, DecodeError, InputError, InputTooLargeError
from neardup.inputs import (
    SUFFIXES,
    CorpusReader,
    Skipped,
    check_thesaurus,
    count_inputs,
    dataset_format,
    describe_skipped,
    document_id,
    format_for,
    iter_inputs,
    read_jsonl,
    read_text_input,
)


def _write_jsonl(path: Path, rows: list[object], *, gz: bool = False) -> Path:
    data = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.write(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


def test_formats_by_name() -> None:
    assert dataset_format("a.jsonl.gz") == "jsonl"
    assert dataset_format("a.CSV") == "csv"
    assert dataset_format("a.parquet") == "parquet"
    assert dataset_format("a.txt") is None


def test_text_files_and_folders(tmp_path: Path) -> None:
    folder = tmp_path / "texts"
    (folder / "sub").mkdir(parents=True)
    (folder / "b.txt").write_text("второй текст", encoding="utf-8")
    (folder / "a.txt").write_bytes("первый текст".encode("cp1251"))
    (folder / "sub" / "c.md").write_text("third", encoding="utf-8")
    (folder / ".hidden").write_text("skip me", encoding="utf-8")
    _write_jsonl(folder / "more.jsonl", [{"id": 7, "text": "seven", "lang": "en"}])
    docs = list(iter_inputs([folder]))
    assert [d.id for d in docs] == ["a.txt", "b.txt", "7", "sub/c.md"]
    assert docs[0].text == "первый текст" and docs[0].meta["encoding"] == "cp1251"
    assert docs[2].meta == {"lang": "en"}
    assert count_inputs([folder]) == ["a.txt", "b.txt", "7", "sub/c.md"]
    single = list(iter_inputs([folder / "b.txt"]))
    assert single[0].id == (folder / "b.txt").as_posix()


def test_jsonl_gz_and_fields(tmp_path: Path) -> None:
    path = _write_jsonl(
        tmp_path / "d.jsonl.gz",
        [{"doc": "x1", "body": "one"}, {"doc": "x2", "body": None}],
        gz=True,
    )
    docs = list(read_jsonl(path, id_field="doc", text_field="body"))
    assert [(d.id, d.text) for d in docs] == [("x1", "one"), ("x2", "")]


@pytest.mark.parametrize(
    ("rows", "match"),
    [
        (['{"id": 1, "text": "a"}', '{"id": 2, "text": '], r"line 2: not valid JSON"),
        (['{"id": 1}'], r"line 1: no text field 'text' \(fields: id\)"),
        (['{"text": "a"}'], r"no id field 'id'"),
        (["[1, 2]"], r"expected a JSON object"),
        (['{"id": 1, "text": 5}'], r"must be a string"),
        (['{"id": true, "text": "a"}'], r"string or an integer"),
    ],
)
def test_jsonl_errors_name_file_and_line(tmp_path: Path, rows: list[str], match: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=match) as info:
        list(read_jsonl(path))
    assert "bad.jsonl" in str(info.value)


def test_csv(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text('id,text,src\n1,"hello, world",a\n2,"multi\nline",b\n', encoding="utf-8")
    docs = list(iter_inputs([path]))
    assert [(d.id, d.text, d.meta) for d in docs] == [
        ("1", "hello, world", {"src": "a"}),
        ("2", "multi\nline", {"src": "b"}),
    ]
    bad = tmp_path / "bad.csv"
    bad.write_text("name,body\nx,y\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="no column 'id'"):
        list(iter_inputs([bad]))


def test_parquet(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow", reason="pyarrow (neardup[parquet]) is not installed")
    import pyarrow.parquet as pq

    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"id": ["a", "b"], "text": ["one", "two"], "n": [1, 2]}), path)
    docs = list(iter_inputs([path]))
    assert [(d.id, d.text, d.meta) for d in docs] == [
        ("a", "one", {"n": 1}),
        ("b", "two", {"n": 2}),
    ]
    with pytest.raises(DatasetError, match="no column 'body'"):
        list(iter_inputs([path], text_field="body"))
    junk = tmp_path / "junk.parquet"
    junk.write_text("nope", encoding="utf-8")
    with pytest.raises(DatasetError, match="not a readable Parquet file"):
        list(iter_inputs([junk]))


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file or directory"):
        list(iter_inputs([tmp_path / "nope"]))
    with pytest.raises(InputError, match="unknown input format"):
        list(iter_inputs([tmp_path], fmt="xml"))


# --- the rules every command shares --------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"),
    [("true", "true"), ("null", "null"), ("1.5", "1.5"), ('""', None), ("[1]", "[1]")],
)
def test_one_id_rule(tmp_path: Path, value: str, shown: str | None) -> None:
    path = tmp_path / "ids.jsonl"
    path.write_text(f'{{"id": 3, "text": "a"}}\n{{"id": {value}, "text": "b"}}\n')
    expected = (
        f"ids.jsonl, line 2: the id field 'id' must be a string or an integer, got {shown}"
        if shown is not None
        else "ids.jsonl, line 2: the id field 'id' is empty"
    )
    with pytest.raises(DatasetError, match=re.escape(expected)):
        list(iter_inputs([path]))
    assert document_id(12, "here", "id") == "12"


def test_files_named_by_themselves_are_read_whatever_their_suffix(tmp_path: Path) -> None:
    odd = tmp_path / "notes.xyz"
    odd.write_text("текст с чужим суффиксом", encoding="utf-8")
    assert [(d.id, d.text) for d in iter_inputs([odd])] == [(odd.as_posix(), odd.read_text())]
    assert format_for("a.jsonl.gz") is SUFFIXES[".jsonl.gz"]
    assert format_for("A.HTML") is SUFFIXES[".html"]
    assert format_for("a.docx") is SUFFIXES[".docx"]
    assert format_for("a.doc") is SUFFIXES[".doc"]
    assert format_for("a.xls") is None


def test_office_documents_in_a_folder_are_read_as_their_text(tmp_path: Path) -> None:
    from tests.web._files import docx_bytes, pdf_bytes

    (tmp_path / "essay.docx").write_bytes(docx_bytes(["Первый абзац эссе.", "Второй абзац."]))
    (tmp_path / "source.pdf").write_bytes(pdf_bytes(["Текст источника в PDF."]))
    docs = {d.id: (d.text, d.meta["format"]) for d in iter_inputs([tmp_path])}
    assert docs["essay.docx"] == ("Первый абзац эссе.\nВторой абзац.", "docx")
    text, kind = docs["source.pdf"]
    assert kind == "pdf" and "Текст источника в PDF." in text


def test_nothing_readable_in_a_folder_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "a.xls").write_bytes(b"\xd0\xcf\x11\xe0")
    (tmp_path / "gone.txt").symlink_to(tmp_path / "missing-target.txt")
    with pytest.raises(InputError) as info:
        list(iter_inputs([tmp_path]))
    assert str(info.value) == (
        f"nothing could be read from {tmp_path}: skipped 1 entry (a suffix that is not read): "
        f"{tmp_path / 'a.xls'}; skipped 1 entry (No such file or directory): "
        f"{tmp_path / 'gone.txt'}"
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    assert list(iter_inputs([empty])) == []


def test_an_unreadable_subfolder_is_skipped_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "x.txt").write_text("не видно", encoding="utf-8")
    (tmp_path / "ok.txt").write_text("видно", encoding="utf-8")
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        if Path(path).name == "locked":  # what a folder without the x permission gives
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    reader = CorpusReader([tmp_path])
    assert [d.id for d in reader] == ["ok.txt"]
    assert reader.skipped == [Skipped(str(tmp_path / "locked"), "Permission denied")]
    assert describe_skipped(reader.skipped) == [
        f"skipped 1 entry (Permission denied): {tmp_path / 'locked'}"
    ]


def test_skipped_summaries_name_the_first_few(tmp_path: Path) -> None:
    entries = [Skipped(f"f{i}.bin", "a suffix that is not read") for i in range(5)]
    assert describe_skipped(entries) == [
        "skipped 5 entries (a suffix that is not read): f0.bin, f1.bin, f2.bin and 2 more"
    ]


def test_progress_counts_on_disk_bytes(tmp_path: Path) -> None:
    rows = [{"id": i, "text": "слово " * 50} for i in range(200)]
    path = _write_jsonl(tmp_path / "d.jsonl.gz", rows, gz=True)
    (tmp_path / "t.txt").write_text("текст", encoding="utf-8")
    reader = CorpusReader([tmp_path])
    seen = []
    for _ in reader:
        seen.append(reader.bytes_read)
    assert seen == sorted(seen) and len(seen) == 201
    assert reader.bytes_read == reader.total_bytes == path.stat().st_size + 10


# --- hostile inputs (issue #11) --------------------------------------------------------------


def test_deeply_nested_json_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text('{"id": 1, "text": "ok"}\n' + "[" * 100_000 + "\n")
    with pytest.raises(DatasetError) as info:
        list(iter_inputs([path]))
    assert str(info.value) == f"{path}, line 2: the JSON is nested too deeply to read"


def test_unterminated_csv_quote_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text('id,text\n1,"fine"\n2,"never closed\n3,more\n', encoding="utf-8")
    with pytest.raises(DatasetError) as info:
        list(iter_inputs([path]))
    assert str(info.value) == (
        f"{path}, line 3: unterminated quote (the quoted field opened on this line runs to "
        "the end of the file)"
    )
    stray = tmp_path / "s.csv"
    stray.write_text('id,text\n1,"closed"after\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"s\.csv, line 2: malformed CSV"):
        list(iter_inputs([stray]))


RUSSIAN = (
    "Старый мельник каждое утро поднимался до рассвета, растапливал печь и слушал, "
    "как шумит вода у плотины. "
)


def test_a_few_invalid_bytes_in_utf8_are_replaced_and_counted(tmp_path: Path) -> None:
    data = RUSSIAN.encode() + b"\xff\xfe\xc3\x28\x80\x80\x80\xe2\x82\x28\xf0\x90\x28" + b"!"
    path = tmp_path / "damaged.txt"
    path.write_bytes(data)
    warnings_seen: list[str] = []
    (doc,) = list(iter_inputs([path], on_warning=warnings_seen.append))
    assert doc.text == RUSSIAN + "\ufffd" * 2 + "\ufffd(" + "\ufffd" * 3 + "\ufffd(\ufffd(!"
    assert doc.meta == {"path": path.as_posix(), "encoding": "utf-8", "replaced": 8}
    assert warnings_seen == [
        f"{path}: 8 invalid UTF-8 byte sequence(s) replaced by U+FFFD (--strict-decoding "
        "refuses such input)"
    ]
    with pytest.raises(DecodeError) as info:
        list(iter_inputs([path], strict_decoding=True))
    assert str(info.value).startswith(f"{path}: not valid UTF-8: 8 invalid byte sequence(s)")
    with pytest.warns(UnicodeWarning, match="8 invalid UTF-8"):
        list(iter_inputs([path]))


@pytest.mark.parametrize("codec", ["cp1251", "koi8-r"])
def test_legacy_encodings_are_still_detected_not_replaced(tmp_path: Path, codec: str) -> None:
    path = tmp_path / "legacy.txt"
    path.write_bytes(RUSSIAN.encode(codec))
    (doc,) = list(iter_inputs([path], strict_decoding=True))
    assert (doc.text, doc.meta["encoding"]) == (RUSSIAN, codec)
    assert "replaced" not in doc.meta


def test_invalid_bytes_in_a_dataset_line(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"id": 1, "text": "ok"}\n{"id": 2, "text": "caf\xe9"}\n')
    warnings_seen: list[str] = []
    docs = list(iter_inputs([path], on_warning=warnings_seen.append))
    assert [d.text for d in docs] == ["ok", "caf\ufffd"]
    assert warnings_seen == [
        f"{path}: 1 invalid UTF-8 byte sequence(s) replaced by U+FFFD, the first on line 2 "
        "(--strict-decoding refuses such input)"
    ]
    with pytest.raises(DecodeError, match=r"d\.jsonl, line 2: not UTF-8 text"):
        list(iter_inputs([path], strict_decoding=True))


def test_size_limit(tmp_path: Path) -> None:
    text = tmp_path / "t.txt"
    text.write_text("x" * 100, encoding="utf-8")
    assert read_text_input(text, max_bytes=100).text == "x" * 100
    with pytest.raises(InputTooLargeError) as info:
        read_text_input(text, max_bytes=99)
    assert str(info.value) == (
        f"{text} (100 bytes) is larger than the limit of 99 bytes; raise it with --max-bytes "
        "(max_bytes in Python)"
    )
    lines = _write_jsonl(tmp_path / "d.jsonl", [{"id": 1, "text": "y" * 50}])
    assert len(list(iter_inputs([lines], max_bytes=90))) == 1
    with pytest.raises(InputTooLargeError, match=r"d\.jsonl, line 1 is larger than the limit"):
        list(iter_inputs([lines], max_bytes=40))
    big_field = tmp_path / "c.csv"
    big_field.write_text('id,text\n1,"' + "z\n" * 30 + '"\n', encoding="utf-8")
    with pytest.raises(InputTooLargeError, match=r"c\.csv, line 2: a field is larger"):
        list(iter_inputs([big_field], max_bytes=40))
    stdin = io.BytesIO(b"a" * 11)
    with pytest.raises(InputTooLargeError, match="standard input is larger than the limit of 10"):
        read_text_input("-", max_bytes=10, stdin=stdin)
    assert read_text_input("-", stdin=io.BytesIO("привет".encode())).text == "привет"
    with pytest.raises(InputError, match="max_bytes must be at least 1"):
        CorpusReader([text], max_bytes=0)


def test_only_regular_files(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        read_text_input("/dev/zero")
    assert str(info.value) == (
        "/dev/zero is not a regular file (a device, FIFO or socket); only regular files are read"
    )
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="is not a regular file"):
        list(iter_inputs([fifo]))
    (tmp_path / "real.txt").write_text("настоящий", encoding="utf-8")
    reader = CorpusReader([tmp_path])
    assert [d.id for d in reader] == ["real.txt"]
    assert reader.skipped == [Skipped(str(fifo), "not a regular file")]


def test_thesaurus_must_be_text(tmp_path: Path) -> None:
    binary = tmp_path / "syn.dat"
    binary.write_bytes(b"UTF-8\n\x00\x01\x02binary")
    with pytest.raises(InputError, match=r"syn\.dat: not a text file \(it holds NUL bytes\)"):
        check_thesaurus(binary)
    latin = tmp_path / "syn.csv"
    latin.write_bytes("caf\xe9,coffee\n".encode("latin-1"))
    with pytest.raises(DecodeError, match=r"syn\.csv: a \.csv thesaurus must be UTF-8"):
        check_thesaurus(latin)
    good = tmp_path / "ok.csv"
    good.write_text("быстрый,скорый\n", encoding="utf-8")
    check_thesaurus(good)


def test_replacement_counts_only_what_was_replaced() -> None:
    valid_fffd = "знак \ufffd уже был в тексте, ".encode()
    decoded = decode(valid_fffd + RUSSIAN.encode() + b"\x80")
    assert (decoded.encoding, decoded.replaced) == ("utf-8", 1)
    assert decoded.text == valid_fffd.decode() + RUSSIAN + "\ufffd"
    # ASCII with one Latin-1 letter is not damaged UTF-8 (no valid multi-byte characters):
    # detection reads it in a single-byte code page, as before
    latin = decode("The café was closed on Sunday.".encode("latin-1"))
    assert latin.replaced == 0 and "\ufffd" not in latin.text

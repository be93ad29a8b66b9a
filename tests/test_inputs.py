"""Reading inputs: text files, folders, JSONL(.gz), CSV, Parquet, and their errors."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from neardup.errors import DatasetError, InputError
from neardup.inputs import count_inputs, dataset_format, iter_inputs, read_jsonl


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

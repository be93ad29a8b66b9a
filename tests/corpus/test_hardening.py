"""Hostile input to dedup (issue #27): every case a clear error through the error tree or a
written output, never a traceback, and nothing written on failure."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from neardup.cli.main import main
from neardup.corpus import MAX_NUM_PERM, DedupOptions, dedup
from neardup.errors import DatasetError, InputError
from tests.corpus._corpus import read_jsonl, records, write


def surrogate_records() -> list[dict[str, Any]]:
    rows = records(9)
    rows[1]["text"] += " \ud800 lone"  # spliced: its bytes are copied as they are
    rows[4] = {"id": 44, "text": rows[4]["text"] + " \udfff", "n": 4}  # re-encoded (a number id)
    rows[7]["id"] = "d7\udc80"  # its id is written in every member's added fields
    rows[8]["text"] = rows[7]["text"]  # so d7's group has a second member
    return rows


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("packed", [False, True])
def test_a_lone_surrogate_is_written_escaped(tmp_path: Path, jobs: int, packed: bool) -> None:
    """Nothing lost: a lone surrogate (escaped in the JSON input) is written as the same
    escape, by the splice of plain JSONL and by the general path (gzipped input)."""
    rows = surrogate_records()
    data = "".join(json.dumps(r) + "\n" for r in rows).encode("ascii")
    path = tmp_path / ("in.jsonl.gz" if packed else "in.jsonl")
    path.write_bytes(gzip.compress(data) if packed else data)
    result = dedup([path], tmp_path / "out", DedupOptions(threshold=0.8), jobs=jobs)
    assert result.documents == 9
    got = read_jsonl(tmp_path / "out" / "documents.jsonl")
    assert [r["text"] for r in got] == [r["text"] for r in rows]
    assert [r["id"] for r in got] == [str(r["id"]) for r in rows]
    assert got[8]["group"] == got[8]["representative"] == "d7\udc80"
    edges = read_jsonl(tmp_path / "out" / "edges.jsonl")
    assert {"a": "d7\udc80", "b": "d8"}.items() <= edges[-1].items()


def test_a_lone_surrogate_in_parquet_output_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in surrogate_records()), "ascii")
    out = tmp_path / "out"
    assert main(["dedup", str(path), "--out", str(out), "--format", "parquet", "-q"]) == 2
    err = capsys.readouterr().err
    assert "lone surrogate" in err and "--format jsonl" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


def test_out_under_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = write(tmp_path / "in.jsonl", records(3))
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    for out in (blocker / "out", blocker / "a" / "b"):
        assert main(["dedup", str(corpus), "--out", str(out), "-q"]) == 2
        err = capsys.readouterr().err
        assert f"{blocker} is a file, not a folder" in err and "Traceback" not in err
        with pytest.raises(InputError, match="is a file, not a folder"):
            dedup([corpus], out)
    # the output itself a file, or a folder that is no dedup output: refused, left alone
    assert main(["dedup", str(corpus), "--out", str(blocker), "-q", "--overwrite"]) == 2
    assert "is a file, not a dedup output folder" in capsys.readouterr().err
    assert blocker.read_text(encoding="utf-8") == "x"
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(InputError, match="holds no dedup output"):
        dedup([corpus], folder, overwrite=True)
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_num_perm_has_a_documented_bound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = write(tmp_path / "in.jsonl", records(3))
    assert MAX_NUM_PERM == 1024
    args = ["dedup", str(corpus), "--out", str(tmp_path / "o"), "-q", "--num-perm"]
    assert main([*args, "65536"]) == 2
    err = capsys.readouterr().err
    assert "65536 is not in the range 1<=x<=1024" in err and "Traceback" not in err
    with pytest.raises(InputError, match="num_perm"):
        DedupOptions(num_perm=MAX_NUM_PERM + 1)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda c, o: dedup([c], o, DedupOptions(keep=1)), "keep must be a string"),  # type: ignore[arg-type]
        (lambda c, o: dedup([c, 7], o), "an input must be a path"),
        (lambda c, o: dedup([c], 7), "the output must be a path"),
        (lambda c, o: dedup([c], o, {"threshold": 0.5}), "options must be DedupOptions"),
        (lambda c, o: dedup([c], o, spec="plain"), "spec must be a neardup Spec"),
        (lambda c, o: dedup([c], o, batch_size=0), "batch size must be an integer"),
        (lambda c, o: dedup([c], o, id_field=3), "id_field must be a non-empty string"),
    ],
)
def test_the_librarys_bad_arguments_are_input_errors(
    tmp_path: Path, call: Any, message: str
) -> None:
    corpus = write(tmp_path / "in.jsonl", records(3))
    with pytest.raises(InputError, match=message):
        call(corpus, tmp_path / "o")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


def test_a_record_id_that_is_not_a_string_or_integer(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"id": [1], "text": "x"}) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"in.jsonl, line 1: the id field 'id' must be"):
        dedup([path], tmp_path / "o")

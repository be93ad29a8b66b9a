"""``neardup dedup --exact/--level`` from the command line: the summary lines, and hostile
inputs (huge lines, one line repeated everywhere, empty documents, lone surrogates) that give
an output or a clear error, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neardup.cli.main import main


def _write(path: Path, texts: list[str]) -> Path:
    rows = [{"id": f"d{i}", "text": t} for i, t in enumerate(texts)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


def _rows(folder: Path, name: str = "documents.jsonl") -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / name).read_text("utf-8").splitlines()]


def test_summary_lines_say_what_was_cleaned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = [
        f"Cookie banner line here\nown text number {i} about rivers and hills\n" for i in range(6)
    ]
    path = _write(tmp_path / "in.jsonl", [*texts, texts[0]])
    args = ["dedup", str(path), "-o", str(tmp_path / "out"), "-q", "--jobs", "1"]
    assert main([*args, "--exact", "raw", "--level", "line", "--span-docs", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "exact copies: 1 (each joined to its first copy's group)"
    assert out[2] == (
        "repeated spans (line): 6 cut, 144 characters, from 6 documents; "
        "0 documents dropped with too little left"
    )
    summary = json.loads((tmp_path / "out" / "summary.json").read_text("utf-8"))
    assert summary["exact_duplicates"] == 1 and summary["spans"]["spans_removed"] == 6


def test_approximate_counting_prints_its_bound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(
        tmp_path / "in.jsonl", [f"same banner\ntext {i} of its own words\n" for i in range(4)]
    )
    args = ["dedup", str(path), "-o", str(tmp_path / "out"), "-q", "--jobs", "1", "--level", "line"]
    assert main([*args, "--span-docs", "2", "--span-counting", "approximate"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == (
        "approximate counting (count-min, 40 MB): a document count is over by at most 1 "
        "with probability 99.3 %"
    )


def test_hostile_inputs_give_an_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    huge = "слово " * 300_000
    texts = [
        "",
        "",
        "\ud800 a lone surrogate in a line\nand another line of words\n",
        huge + "\n" + "tail line of its own\n",
        huge + "\n" + "another tail line here\n",
        *["one line repeated everywhere\n"] * 5,
    ]
    path = _write(tmp_path / "in.jsonl", texts)
    for level in ("line", "paragraph", "sentence"):
        out = tmp_path / level
        args = ["dedup", str(path), "-o", str(out), "-q", "--jobs", "1", "--exact", "canonical"]
        assert main([*args, "--level", level, "--span-docs", "1"]) == 0, level
        rows = {r["id"]: r for r in _rows(out)}
        assert rows["d0"]["text"] == "" and rows["d0"]["kept"]
        assert rows["d2"]["text"] == texts[2]
        assert [rows[f"d{i}"]["kept"] for i in range(5, 10)] == [True, False, False, False, False]
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err


def test_a_corpus_of_one_repeated_line_is_emptied_and_dropped(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "in.jsonl", [f"one line repeated\nown words {i} here\n" for i in range(4)]
    )
    args = ["dedup", str(path), "-o", str(tmp_path / "out"), "-q", "--jobs", "1", "--level", "line"]
    assert main([*args, "--span-docs", "2", "--span-min-tokens", "5"]) == 0
    rows = _rows(tmp_path / "out")
    assert [r["text"] for r in rows] == [f"own words {i} here\n" for i in range(4)]
    assert [r["kept"] for r in rows] == [False] * 4  # 4 tokens left, fewer than 5
    spans = _rows(tmp_path / "out", "spans.jsonl")
    assert [(s["start"], s["end"], s["documents"]) for s in spans] == [(0, 18, 4)] * 4
    same = _write(tmp_path / "same.jsonl", ["one line repeated\n"] * 4)
    args = ["dedup", str(same), "-o", str(tmp_path / "same"), "-q", "--jobs", "1"]
    assert main([*args, "--level", "line", "--span-docs", "2", "--threshold", "1.0"]) == 0
    # the copies go as near-duplicates first; the line is then in one kept document only
    kept = [(r["text"], r["kept"]) for r in _rows(tmp_path / "same")]
    assert kept == [("one line repeated\n", True)] + [("one line repeated\n", False)] * 3


def test_bad_cleaning_options_are_clear_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "in.jsonl", ["a b c"])
    args = ["dedup", str(path), "-o", str(tmp_path / "out"), "-q"]
    assert main([*args, "--level", "word"]) == 2
    assert main([*args, "--span-docs", "0"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "--level" in err and "--span-docs" in err

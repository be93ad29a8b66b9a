"""``neardup index`` against hostile input: markup and escapes in ids, bad paths and URLs,
unstorable texts, and partial runs that say what went in and resume with --skip-existing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from neardup.index import Collection
from tests import _textgen as tg
from tests.cli._run import run


def _jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _ids(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return [r[0] for r in conn.execute("SELECT id FROM docs ORDER BY key")]
    finally:
        conn.close()


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "c.db"
    code, _, err = run(
        capsys, "index", "create", str(path), "--preset", "plain", "--policy", "group"
    )
    assert code == 0, err
    return path


HOSTILE = ["[/b]", "[bold red]x[/]", "esc\x1b[2Jcleared", "bell\x07"]


def test_markup_and_escapes_in_ids_are_printed_as_text(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = tg.text(200, 1)
    records = [{"id": i, "text": tg.edit(base, 0.01, n)} for n, i in enumerate(HOSTILE)]
    code, out, err = run(
        capsys, "index", "add", str(db), str(_jsonl(tmp_path / "in.jsonl", records))
    )
    assert code == 0, err
    assert _ids(db) == HOSTILE
    query = tmp_path / "q.txt"
    query.write_text(base, encoding="utf-8")
    code, out, err = run(capsys, "index", "check", str(db), str(query))
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out
    for shown in ("[/b]", "[bold red]x[/]", "esc\\x1b[2Jcleared", "bell\\x07"):
        assert shown in out
    code, out, err = run(capsys, "index", "groups", str(db))
    assert code == 0, err
    assert out == "group 1 (4): [/b] ← [bold red]x[/], esc\\x1b[2Jcleared, bell\\x07\n"


def test_compare_prints_hostile_file_names_and_terms_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    a = Path("[red]a.txt")
    a.write_text("[/b] слово \x1b[2J текст " + tg.text(30, 1), encoding="utf-8")
    code, out, err = run(capsys, "compare", str(a), str(a), "--preset", "plain")
    assert code == 0, err
    assert "[red]a.txt vs [red]a.txt" in out
    code, out, err = run(capsys, "analyze", str(a), "--preset", "plain")
    assert code == 0, err
    assert "\x1b" not in out and "'слово'" in out


@pytest.mark.parametrize("command", ["check", "compare"])
def test_html_to_a_missing_folder_is_refused_before_the_work(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    text = tmp_path / "t.txt"
    text.write_text(tg.text(50, 1), encoding="utf-8")
    target = tmp_path / "no" / "such" / "r.html"
    args = ["index", "check", str(db)] if command == "check" else ["compare", str(text)]
    code, out, err = run(capsys, *args, str(text), "--html", str(target))
    assert code == 2
    assert out == ""
    assert err == (
        f"Error: cannot write the report to {target}: the folder {target.parent} does not exist\n"
    )


def test_a_bad_postgres_url_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "index", "stats", "postgresql://[bad")
    assert code == 2
    assert err == (
        "Error: the PostgreSQL URL is malformed (Invalid IPv6 URL); expected "
        "postgresql://user@host:port/db?schema=NAME\n"
    )


def test_a_lone_surrogate_id_is_a_usage_error_naming_it(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"id": "a\\ud800", "text": "x y z"}\n', encoding="utf-8")
    code, _, err = run(capsys, "index", "add", str(db), str(path))
    assert code == 2
    assert err == (
        "Error: the document id 'a\\ud800' holds a lone surrogate U+D800 at offset 1; "
        "it cannot be stored\n"
    )
    assert _ids(db) == []


def test_a_failed_run_says_what_went_in_and_resumes_with_skip_existing(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [{"id": f"d{i}", "text": tg.text(80, i)} for i in range(9)]
    bad = [*records[:5], {"id": "d5", "text": "bad \x00 text"}, *records[6:]]
    path = _jsonl(tmp_path / "in.jsonl", bad)
    code, out, err = run(capsys, "index", "add", str(db), str(path), "--batch-size", "2")
    assert code == 2
    assert err.splitlines() == [
        "stopped by an error: 4 documents were committed before (4 added, 0 refused), 5 not; "
        "the same command with --skip-existing adds the rest",
        "Error: the text of the document 'd5' holds a NUL character at offset 4; refused",
    ]
    assert _ids(db) == ["d0", "d1", "d2", "d3"]
    code, out, err = run(capsys, "index", "add", str(db), str(path))
    assert code == 1
    assert "already in" in err and "--skip-existing" in err
    _jsonl(path, records)
    code, out, err = run(capsys, "index", "add", str(db), str(path), "--skip-existing", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert (summary["accepted"], summary["skipped"], summary["documents"]) == (5, 4, 9)
    assert [d["id"] for d in summary["decisions"]] == [f"d{i}" for i in range(4, 9)]
    code, out, err = run(capsys, "index", "add", str(db), str(path), "--skip-existing")
    assert out == ("added 0, refused 0, skipped 9 already stored; the collection has 9 documents\n")


def test_ctrl_c_says_what_was_committed(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = Collection._add_batch
    calls = []

    def interrupted(self: Collection, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Collection, "_add_batch", interrupted)
    records = [{"id": f"d{i}", "text": tg.text(80, i)} for i in range(10)]
    path = _jsonl(tmp_path / "in.jsonl", records)
    code, _, err = run(capsys, "index", "add", str(db), str(path), "--batch-size", "3")
    assert code == 1  # click turns Ctrl-C into "Aborted."
    assert [line for line in err.splitlines() if line] == [
        "interrupted: 6 documents were committed before (6 added, 0 refused), 4 not; "
        "the same command with --skip-existing adds the rest",
        "Aborted.",
    ]
    assert len(_ids(db)) == 6

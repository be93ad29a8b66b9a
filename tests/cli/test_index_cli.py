"""``neardup index``: the whole job from the command line, and every bad input's exit code."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from tests import _textgen as tg
from tests.cli._run import run
from tests.storage._postgres import PG_URL, drop_schemas, postgres_or_fail, unique_schema


def _snapshot(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return [
            conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
            for t in ("meta", "docs", "texts", "postings", "links")
        ]
    finally:
        conn.close()


@pytest.mark.slow
def test_the_main_job(capsys: pytest.CaptureFixture[str], tmp_path: Path, texts: Path) -> None:
    db = str(tmp_path / "c.db")
    code, out, _ = run(
        capsys,
        "index",
        "create",
        db,
        "--preset",
        "plain",
        "--policy",
        "group",
        "--threshold",
        "0.5",
        "--group-cap",
        "5",
    )
    assert code == 0 and "created" in out and "policy group" in out
    code, out, _ = run(capsys, "index", "add", db, str(texts))
    assert code == 0
    assert out.strip() == "added 3 (grouped 1, new 2), refused 0; the collection has 3 documents"
    # a new text: half of base.txt pasted into an unrelated text
    query = tmp_path / "query.txt"
    query.write_text(" ".join(tg.words(300, 9) + tg.text(300, 1).split()[:150]), encoding="utf-8")
    code, out, _ = run(capsys, "index", "check", db, str(query), "--json", "--top", "2")
    assert code == 0
    result = json.loads(out)
    assert {"uniqueness", "matches"} <= set(result)
    assert 0.0 < result["uniqueness"] < 1.0
    assert [m["id"] for m in result["matches"]] == ["base.txt", "near.txt"]
    first = result["matches"][0]
    assert {"resemblance", "containment_query_in_doc", "containment_doc_in_query"} <= set(first)
    strengths = [
        max(m["resemblance"], m["containment_query_in_doc"], m["containment_doc_in_query"])
        for m in result["matches"]
    ]
    assert strengths == sorted(strengths, reverse=True)
    code, out, _ = run(capsys, "index", "check", db, str(query))
    assert code == 0 and "uniqueness" in out and "base.txt" in out
    code, out, _ = run(capsys, "index", "groups", db, "--json")
    assert code == 0
    assert json.loads(out) == {
        "id": 1,
        "representative": "base.txt",
        "size": 2,
        "members": ["base.txt", "near.txt"],
    }
    code, out, _ = run(capsys, "index", "stats", db, "--json")
    assert code == 0 and json.loads(out)["documents"] == 3
    export = tmp_path / "out.csv"
    code, out, _ = run(capsys, "index", "export", db, str(export))
    assert code == 0 and export.read_text(encoding="utf-8").startswith(
        "id,key,group,representative"
    )
    code, out, _ = run(capsys, "index", "remove", db, "near.txt")
    assert code == 0 and "removed 1" in out
    code, out, _ = run(capsys, "index", "groups", db)
    assert out.strip() == "no duplicate groups"


def test_add_jsonl_with_fields_and_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    data = tmp_path / "d.jsonl"
    base = tg.text(200, 5)
    rows = [
        {"doc": "a", "body": base},
        {"doc": "b", "body": base},
        {"doc": "c", "body": tg.text(200, 6)},
    ]
    data.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    assert run(capsys, "index", "create", db, "-p", "plain")[0] == 0
    code, out, _ = run(
        capsys, "index", "add", db, str(data), "--id-field", "doc", "--text-field", "body", "--json"
    )
    assert code == 0
    summary = json.loads(out)
    assert (summary["accepted"], summary["rejected"], summary["reasons"]) == (
        2,
        1,
        {"duplicate": 1, "new": 2},
    )
    assert summary["decisions"][1]["matches"][0]["id"] == "a"


def test_usage_errors_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, texts: Path
) -> None:
    missing = str(tmp_path / "missing.db")
    code, _, err = run(capsys, "index", "stats", missing)
    assert code == 2 and "does not exist" in err and "Traceback" not in err
    assert not os.path.exists(missing)
    code, _, err = run(capsys, "index", "add", missing, str(texts))
    assert code == 2 and not os.path.exists(missing)
    db = str(tmp_path / "c.db")
    assert run(capsys, "index", "create", db, "-p", "plain")[0] == 0
    code, _, err = run(capsys, "index", "create", db, "--policy", "sometimes")
    assert code == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "text": "x"}\n{"id": 2\n', encoding="utf-8")
    before = _snapshot(Path(db))
    code, _, err = run(capsys, "index", "add", db, str(bad))
    assert code == 2 and "line 2" in err
    code, _, err = run(capsys, "index", "add", db, str(tmp_path / "nothing-here"))
    assert code == 2 and "no such file" in err
    assert _snapshot(Path(db)) == before


def test_runtime_errors_exit_1_and_change_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, texts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "c.db"
    assert run(capsys, "index", "create", str(db), "-p", "plain")[0] == 0
    assert run(capsys, "index", "add", str(db), str(texts / "base.txt"))[0] == 0
    before = _snapshot(db)
    # creating over an existing collection
    code, _, err = run(capsys, "index", "create", str(db), "-p", "plain")
    assert code == 1 and "already exists" in err
    # a duplicate id: already there, or twice in the input
    code, _, err = run(
        capsys, "index", "add", str(db), str(texts / "base.txt"), str(texts / "other.txt")
    )
    assert code == 1 and "already in" in err and "nothing was added" in err
    code, _, err = run(
        capsys, "index", "add", str(db), str(texts / "other.txt"), str(texts / "other.txt")
    )
    assert code == 1 and "twice" in err
    # an unknown id to remove
    code, _, err = run(capsys, "index", "remove", str(db), str(texts / "base.txt"), "ghost")
    assert code == 1 and "'ghost'" in err and "nothing was removed" in err
    assert _snapshot(db) == before
    # a read-only file
    os.chmod(db, 0o444)
    try:
        code, _, err = run(capsys, "index", "add", str(db), str(texts / "other.txt"))
        assert code == 1 and "read-only" in err
        assert run(capsys, "index", "stats", str(db))[0] == 0
    finally:
        os.chmod(db, 0o644)
    assert _snapshot(db) == before
    # a locked database (the busy timeout shortened for the test)
    from neardup.storage import sqlite as sqlite_backend

    monkeypatch.setattr(sqlite_backend, "DEFAULT_TIMEOUT", 0.2)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        code, _, err = run(capsys, "index", "add", str(db), str(texts / "other.txt"))
        assert code == 1 and "locked" in err
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert _snapshot(db) == before


def test_unreachable_postgres(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    url = "postgresql://postgres@127.0.0.1:1/test?schema=nothing"
    code, _, err = run(capsys, "index", "stats", url)
    assert code == 1 and "cannot reach the PostgreSQL server" in err and "Traceback" not in err
    code, _, err = run(capsys, "index", "create", url, "-p", "plain")
    assert code == 1 and "cannot reach" in err


def test_postgres_end_to_end(capsys: pytest.CaptureFixture[str], texts: Path) -> None:
    postgres_or_fail()
    schema = unique_schema()
    url = f"{PG_URL}?schema={schema}"
    try:
        assert (
            run(
                capsys,
                "index",
                "create",
                url,
                "-p",
                "plain",
                "--policy",
                "group",
                "--threshold",
                "0.5",
            )[0]
            == 0
        )
        code, out, _ = run(capsys, "index", "add", url, str(texts))
        assert code == 0 and "added 3" in out
        code, out, _ = run(capsys, "index", "check", url, str(texts / "near.txt"), "--json")
        assert json.loads(out)["matches"][0]["id"] == "near.txt"
        code, out, err = run(capsys, "index", "add", url, str(texts))
        assert code == 1 and "already in" in err
    finally:
        drop_schemas(schema)


def test_wrong_spec_flags_exit_2_and_create_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "c.db"
    code, _, err = run(capsys, "index", "create", str(db), "--hash", "crc32", "--bits", "64")
    assert code == 2 and "crc32" in err and "Traceback" not in err
    assert not db.exists()


def test_stored_spec_is_used_and_shown(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    assert run(capsys, "index", "create", db, "-p", "plain", "-k", "3", "--no-store-text")[0] == 0
    code, out, _ = run(capsys, "index", "stats", db, "--json")
    info = json.loads(out)
    assert info["spec"] == "preset plain, word shingles k=3 step=1, rabin 64 bit"
    assert info["index_spec"]["store_text"] is False
    src = tmp_path / "a.txt"
    src.write_text(tg.text(50, 1), encoding="utf-8")
    assert run(capsys, "index", "add", db, str(src))[0] == 0
    code, out, _ = run(capsys, "index", "export", db, "-")
    assert code == 0
    row = json.loads(out.splitlines()[0])
    assert row["text"] is None and row["shingles"] == 48


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_check_fragments_marks_the_quoted_paragraph(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "c.db")
    assert run(capsys, "index", "create", db, "--policy", "group", "--threshold", "0.5")[0] == 0
    assert run(capsys, "index", "add", db, str(EXAMPLES / "collection"))[0] == 0
    essay = EXAMPLES / "essay_with_quote.txt"
    report = tmp_path / "report.html"
    code, out, _ = run(
        capsys,
        "index",
        "check",
        db,
        str(essay),
        "--fragments",
        "--json",
        "--html-report",
        str(report),
    )
    assert code == 0
    result = json.loads(out)
    sources = {s["id"]: s for s in result["fragments"]["sources"]}
    assert "park.txt" in sources
    essay_text = essay.read_text(encoding="utf-8")
    park = (EXAMPLES / "collection" / "park.txt").read_text(encoding="utf-8")
    passage = sources["park.txt"]["passages"][0]
    # the spans point at the same words in the essay and in the stored source
    quoted = essay_text[passage["a_start"] : passage["a_end"]]
    assert quoted == park[passage["b_start"] : passage["b_end"]]
    assert len(quoted.split()) >= 20
    # the essay quotes the paragraph in «…» with a reference: citation, not borrowing
    assert result["borrowed"] == 0.0
    assert 0.0 < result["cited"] < 1.0
    assert result["uniqueness"] == round(1.0 - result["cited"], 6)
    page = report.read_text(encoding="utf-8")
    # each highlighted passage links to its counterpart in a source pane
    assert page.count('class="frag" href="#') >= 2
    assert 'id="source-0"' in page


def test_check_fragments_needs_stored_texts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "c.db")
    assert run(capsys, "index", "create", db, "--no-store-text")[0] == 0
    assert run(capsys, "index", "add", db, str(EXAMPLES / "collection"))[0] == 0
    code, _, err = run(
        capsys, "index", "check", db, str(EXAMPLES / "essay_with_quote.txt"), "--fragments"
    )
    assert code == 1
    assert "keeps no texts" in err


def test_verify_says_consistent_or_lists_the_damage(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, texts: Path
) -> None:
    db = str(tmp_path / "c.db")
    run(capsys, "index", "create", db, "--preset", "plain", "--policy", "allow")
    run(capsys, "index", "add", db, str(texts))
    code, out, _ = run(capsys, "index", "verify", db)
    assert code == 0 and out.strip() == f"{db}: consistent (3 documents)"
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE docs SET grp = 99 WHERE id = 'other.txt'")
    code, out, err = run(capsys, "index", "verify", db)
    assert code == 1
    assert "other.txt" in out and "expected" in out
    assert "1 problem(s)" in err


def test_length_limits_from_the_command_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """index create --min-length/--max-length: stored, a batch refuses only the texts out of
    range (saying why), check reports it; min above max is a usage error."""
    db = str(tmp_path / "c.db")
    code, out, _ = run(
        capsys, "index", "create", db, "-p", "plain", "--min-length", "500", "--max-length", "900"
    )
    assert code == 0 and "texts of 500 to 900 characters" in out
    folder = tmp_path / "in"
    folder.mkdir()
    body = tg.text(400, 5)
    (folder / "short.txt").write_text(body[:499], encoding="utf-8")
    (folder / "fits.txt").write_text(body[:700], encoding="utf-8")
    (folder / "long.txt").write_text(body[-901:], encoding="utf-8")
    code, out, _ = run(capsys, "index", "add", db, str(folder), "--json")
    assert code == 0
    summary = json.loads(out)
    assert (summary["accepted"], summary["rejected"], summary["documents"]) == (1, 2, 1)
    assert summary["reasons"] == {"new": 1, "too_long": 1, "too_short": 1}
    short = next(d for d in summary["decisions"] if d["id"] == "short.txt")
    assert short["detail"] == (
        f"the text of 'short.txt' has 499 characters; the collection {db} admits "
        "texts of 500 to 900 characters"
    )
    code, out, _ = run(capsys, "index", "check", db, str(folder / "short.txt"))
    assert code == 0
    assert "would be refused (too_short: the text has 499 characters;" in " ".join(out.split())
    code, out, _ = run(capsys, "index", "stats", db, "--json")
    assert json.loads(out)["index_spec"]["min_length"] == 500
    code, _, err = run(
        capsys, "index", "create", str(tmp_path / "d.db"), "--min-length", "9", "--max-length", "8"
    )
    assert code == 2 and "min_length 9 is above max_length 8" in err


@pytest.mark.parametrize("method", ["winnow", "pmbf", "both"])
def test_check_add_remove_the_same_whichever_candidates(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, method: str
) -> None:
    db = str(tmp_path / "c.db")
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(12):
        (folder / f"t{i}.txt").write_text(tg.text(250, 40 + i), encoding="utf-8")
    code, out, _ = run(
        capsys, "index", "create", db, "-p", "plain", "--candidates", method, "--pmbf-n", "500"
    )
    assert code == 0 and f"candidates {method}" in out
    code, out, _ = run(capsys, "index", "add", db, str(folder))
    assert code == 0 and out.startswith("added 12 (") and ", refused 0;" in out
    query = tmp_path / "q.txt"
    pasted = " ".join(tg.text(250, 45).split()[60:100])  # 40 words of t5.txt
    query.write_text(f"{tg.text(300, 90)} {pasted} {tg.text(200, 91)}", encoding="utf-8")
    code, out, _ = run(capsys, "index", "check", db, str(query), "--json")
    assert code == 0
    assert [m["id"] for m in json.loads(out)["matches"]] == ["t5.txt"]
    code, out, _ = run(capsys, "index", "remove", db, "t5.txt", "t6.txt")
    assert code == 0 and "removed 2" in out
    code, out, _ = run(capsys, "index", "check", db, str(query), "--json")
    assert code == 0 and json.loads(out)["matches"] == []
    code, out, _ = run(capsys, "index", "stats", db, "--json")
    assert json.loads(out)["index_spec"]["candidates"] == method
    code, out, _ = run(capsys, "index", "verify", db)
    assert code == 0, out


def test_check_and_compare_give_the_same_numbers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The length-adaptive rule of the defaults, applied alike by `index check` and `compare`:
    word 1-grams for a short pair, the spec's 5-shingles for a long one."""
    from tests.storage.test_conformance import SHORT_RU, SHORT_RU_EDITED

    files = {
        "short.txt": SHORT_RU,
        "edited.txt": SHORT_RU_EDITED,
        "long.txt": tg.text(300, 61),
        "long_edited.txt": tg.edit(tg.text(300, 61), 0.05, 62),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    db = str(tmp_path / "c.db")
    assert run(capsys, "index", "create", db, "--policy", "allow")[0] == 0
    info = json.loads(run(capsys, "index", "stats", db, "--json")[1])
    assert "(word 1-grams for pairs below 32 tokens)" in info["spec"]
    assert info["index_spec"]["short_window"] == 8
    for name in ("short.txt", "long.txt"):
        assert run(capsys, "index", "add", db, str(tmp_path / name))[0] == 0
    for query, stored, unit_size in (
        ("edited.txt", "short.txt", 9),  # 9 lemmas: word 1-grams
        ("long_edited.txt", "long.txt", 296),  # 5-shingles of the 300 tokens
    ):
        code, out, _ = run(capsys, "index", "check", db, str(tmp_path / query), "--json")
        assert code == 0
        match = json.loads(out)["matches"][0]
        code, out, _ = run(
            capsys, "compare", str(tmp_path / query), str(tmp_path / stored), "--json"
        )
        compared = json.loads(out)
        assert match["id"].endswith(stored)
        assert match["resemblance"] == compared["resemblance"]
        assert match["containment_query_in_doc"] == compared["containment_ab"]
        assert match["containment_doc_in_query"] == compared["containment_ba"]
        assert match["shingles"] == compared["shingles_b"] == unit_size


def test_add_no_check_stores_every_text_unchecked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "c.db")
    folder = tmp_path / "docs"
    folder.mkdir()
    base = tg.text(250, 70)
    (folder / "a.txt").write_text(base, encoding="utf-8")
    (folder / "b.txt").write_text(base, encoding="utf-8")  # a duplicate, stored all the same
    (folder / "c.txt").write_text(tg.text(250, 71), encoding="utf-8")
    assert run(capsys, "index", "create", db, "-p", "plain", "--candidates", "pmbf")[0] == 0
    code, out, _ = run(capsys, "index", "add", db, str(folder), "--no-check", "--json")
    summary = json.loads(out)
    assert code == 0 and summary["reasons"] == {"unchecked": 3} and summary["documents"] == 3
    assert [d["matches"] for d in summary["decisions"]] == [[], [], []]
    query = tmp_path / "q.txt"
    query.write_text(base, encoding="utf-8")
    code, out, _ = run(capsys, "index", "check", db, str(query), "--json")
    assert sorted(m["id"] for m in json.loads(out)["matches"]) == ["a.txt", "b.txt"]
    code, out, _ = run(capsys, "index", "add", "--help")
    assert "--no-check" in out and "Bulk load" in out

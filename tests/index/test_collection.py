"""The collection beyond the conformance suite: bad input, SQLite errors, multisets, batches."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from neardup.errors import (
    DuplicateIdError,
    InputError,
    NotFoundError,
    SpecMismatchError,
    StorageError,
)
from neardup.fingerprints.pipeline import make_spec
from neardup.fingerprints.similarity import compare
from neardup.index import Collection, IndexSpec
from tests import _textgen as tg

SPEC = make_spec("plain")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "c.db"


def _snapshot(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        out = []
        for table in ("meta", "docs", "texts", "postings", "links"):
            out.append((table, conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()))
        return out
    finally:
        conn.close()


def test_duplicate_id_changes_nothing(db: Path) -> None:
    with Collection.create(db, SPEC) as col:
        col.add("a", tg.text(100, 1))
    before = _snapshot(db)
    with Collection.open(db) as col:
        with pytest.raises(DuplicateIdError, match="'a'"):
            col.add("a", tg.text(100, 2))
        with pytest.raises(DuplicateIdError, match="twice"):
            col.add_many([("b", tg.text(100, 3)), ("b", tg.text(100, 4))])
        with pytest.raises(DuplicateIdError):
            col.add_many([("c", tg.text(100, 5)), ("a", tg.text(100, 6))])
    assert _snapshot(db) == before


def test_unknown_id_to_remove_changes_nothing(db: Path) -> None:
    with Collection.create(db, SPEC) as col:
        col.add_many([("a", tg.text(100, 1)), ("b", tg.text(100, 2))])
    before = _snapshot(db)
    with Collection.open(db) as col:
        with pytest.raises(NotFoundError, match="'zzz'"):
            col.remove(["a", "zzz"])
        with pytest.raises(NotFoundError):
            col.get("zzz")
    assert _snapshot(db) == before


def test_missing_file_and_not_a_database(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        Collection.open(tmp_path / "nope.db")
    assert not (tmp_path / "nope.db").exists()
    junk = tmp_path / "junk.db"
    junk.write_text("this is not a database " * 100, encoding="utf-8")
    with pytest.raises(StorageError, match="not a neardup collection"):
        Collection.open(junk)
    with pytest.raises(StorageError, match="already exists"):
        Collection.create(junk, SPEC)
    assert junk.read_text(encoding="utf-8").startswith("this is not")


def test_read_only_file(db: Path) -> None:
    with Collection.create(db, SPEC) as col:
        col.add("a", tg.text(100, 1))
    before = _snapshot(db)
    os.chmod(db, 0o444)
    try:
        with Collection.open(db) as col:
            assert col.check(tg.text(100, 1)).matches[0].id == "a"
            with pytest.raises(StorageError, match="read-only"):
                col.add("b", tg.text(100, 2))
            with pytest.raises(StorageError, match="read-only"):
                col.remove(["a"])
    finally:
        os.chmod(db, 0o644)
    assert _snapshot(db) == before


def test_locked_database(db: Path) -> None:
    Collection.create(db, SPEC).close()
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with Collection.open(db, timeout=0.2) as col:
            with pytest.raises(StorageError, match="locked"):
                col.add("a", tg.text(50, 1))
            # readers keep working while the writer holds the lock (WAL)
            assert col.check(tg.text(50, 1)).matches == ()
    finally:
        other.execute("ROLLBACK")
        other.close()
    with Collection.open(db) as col:
        assert len(col) == 0
        col.add("a", tg.text(50, 1))


def test_stored_fingerprint_of_another_release(db: Path) -> None:
    Collection.create(db, SPEC).close()
    conn = sqlite3.connect(db)
    conn.execute("UPDATE meta SET value = '0123456789abcdef' WHERE key = 'spec_fingerprint'")
    conn.commit()
    conn.close()
    with pytest.raises(SpecMismatchError, match="rebuild"):
        Collection.open(db)


def test_format_version_is_checked(db: Path) -> None:
    Collection.create(db, SPEC).close()
    conn = sqlite3.connect(db)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'format_version'")
    conn.commit()
    conn.close()
    with pytest.raises(StorageError, match="format version 99"):
        Collection.open(db)


def test_bad_ids_and_items() -> None:
    col = Collection.create("memory:", SPEC)
    with pytest.raises(InputError):
        col.add("", "text")
    with pytest.raises(InputError):
        col.add(5, "text")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="JSON"):
        col.add("x", "text", {"bad": object()})
    with pytest.raises(InputError, match="policy"):
        col.add("x", "text", policy="maybe")
    assert len(col) == 0


def test_multiset_spec() -> None:
    spec = make_spec("plain", multiset=True)
    col = Collection.create("memory:", spec, IndexSpec(threshold=0.5))
    a = " ".join(["alfa beta gamma delta epsilon"] * 20 + tg.words(100, 1))
    b = " ".join(["alfa beta gamma delta epsilon"] * 10 + tg.words(100, 1))
    d = col.add_many([("a", a), ("b", b)])
    fa, fb = col.analyze(a), col.analyze(b)
    assert fa.counts is not None and int(fa.counts.max()) > 1
    r = col.check(b)
    exact = compare(fb.fingerprints, fa.fingerprints)
    m = next(m for m in r.matches if m.id == "a")
    assert (m.resemblance, m.containment_query_in_doc) == (exact.resemblance, exact.containment_ab)
    assert d[1].accepted is (exact.resemblance < 0.5)
    assert col.verify_integrity() == []


def test_empty_and_short_texts() -> None:
    col = Collection.create("memory:", SPEC)
    d = col.add_many([("empty", ""), ("short", "two words"), ("short2", "two words")])
    assert [(x.accepted, x.reason, x.shingles) for x in d] == [
        (True, "new", 0),
        (True, "new", 1),
        (False, "duplicate", 1),
    ]
    assert col.check("").uniqueness == 1.0
    assert col.verify_integrity() == []


def test_iter_add_acknowledges_after_each_batch(db: Path) -> None:
    col = Collection.create(db, SPEC)
    items = [(f"d{i}", tg.text(60, 100 + i)) for i in range(7)]
    seen = []
    for dec in col.iter_add(items, batch_size=3):
        # whatever was yielded is committed: a second connection sees it
        with Collection.open(db) as reader:
            assert dec.id in reader
        seen.append(dec.id)
    assert seen == [i for i, _ in items]
    col.close()


def test_analyzed_input_and_large_removal(db: Path) -> None:
    col = Collection.create(db, SPEC, IndexSpec(policy="allow", threshold=0.3))
    base = tg.text(120, 7)
    items = [(f"d{i}", col.analyze(tg.edit(base, 0.05, i))) for i in range(40)]
    decisions = col.add_many(items, batch_size=16)
    assert all(d.accepted for d in decisions)
    assert decisions[-1].reason == "linked"
    assert col.get("d3").text == tg.edit(base, 0.05, 3)
    assert len(col.groups()) == 1
    removed = col.remove([f"d{i}" for i in range(0, 40, 2)], batch_size=7)
    assert removed == 20 and len(col) == 20
    assert col.verify_integrity() == []
    col.close()


def test_verify_integrity_finds_damage(db: Path) -> None:
    with Collection.create(db, SPEC, IndexSpec(policy="group", threshold=0.5)) as col:
        base = tg.text(100, 1)
        col.add_many([("a", base), ("b", tg.edit(base, 0.02, 2))])
        assert col.verify_integrity() == []
    conn = sqlite3.connect(db)
    # a posting pointing at no document (recent documents keep theirs in docs.samples, the
    # SQLite tail, so damage the postings table by adding one)
    conn.execute("INSERT INTO postings (value, doc) VALUES (12345, 999)")
    conn.execute("UPDATE docs SET grp = key")
    conn.commit()
    conn.close()
    with Collection.open(db) as col:
        problems = col.verify_integrity()
    assert any("postings" in p for p in problems)
    assert any("expected" in p for p in problems)


def test_partial_copy_is_found_by_the_inverted_index() -> None:
    """A 2,000-word essay with one 300-word paragraph of a source finds the source."""
    col = Collection.create("memory:", SPEC, IndexSpec(measure="containment", threshold=0.7))
    sources = [(f"s{i}", tg.text(400, 1000 + i)) for i in range(30)]
    col.add_many(sources)
    src = sources[17][1].split()
    essay = tg.words(2000, 5)
    essay[900:900] = src[50:350]
    result = col.check(" ".join(essay))
    assert result.matches[0].id == "s17"
    assert result.matches[0].containment_doc_in_query > 0.7
    # ~75% of the source is in the essay (13% of the essay is the source): refused on containment
    assert result.would.reason == "duplicate"
    assert [m.id for m in result.would.matches] == ["s17"]


@pytest.mark.parametrize("location", ["memory:", "sqlite"])
def test_boilerplate_sample_brings_only_its_newest_documents(location: str, tmp_path: Path) -> None:
    """A footer shared by every document is capped; a near-duplicate is still found by its own
    samples. (Texts looking up their samples: with every shingle looked up, the default, the
    samples a document chose where its own words meet the footer — posted by it alone — bring
    it too; below.)"""
    footer = tg.text(120, 77)
    docs = [(f"d{i}", tg.text(300, 500 + i) + " " + footer) for i in range(1, 13)]
    where = "memory:" if location == "memory:" else str(tmp_path / "c.db")
    spec = IndexSpec(
        policy="allow",
        max_candidates=50,
        max_postings_per_sample=3,
        lookup="samples",
        sentence_bands=0,  # the postings of samples alone (a sentence key brings its own)
    )
    col = Collection.create(where, SPEC, spec)
    for i in range(
        0, 12, 4
    ):  # several batches (and, on SQLite, several checks learning the footer)
        col.add_many(docs[i : i + 4])
    fresh = tg.text(300, 999) + " " + footer
    for _ in range(2):
        assert {m.id for m in col.check(fresh).matches} == {"d10", "d11", "d12"}
    old_copy = docs[0][1].replace(docs[0][1].split()[5], "заменено", 1)
    result = col.check(old_copy)
    assert result.matches[0].id == "d1" and result.matches[0].resemblance > 0.9
    uncapped = Collection.create("memory:", SPEC, spec.replace(max_postings_per_sample=0))
    uncapped.add_many(docs)
    assert {m.id for m in uncapped.check(fresh, top=None).matches} == {d for d, _ in docs}


def test_boilerplate_with_every_shingle_looked_up() -> None:
    """Looking up every shingle, the footer's own samples (posted by all) still bring only the
    newest 3 documents; a document also comes when a sample it chose at the seam of its text
    and the footer is a footer shingle (posted by that document alone)."""
    footer = tg.text(120, 77)
    docs = [(f"d{i}", tg.text(300, 500 + i) + " " + footer) for i in range(1, 13)]
    # the postings of samples alone (a sentence key brings documents of its own)
    spec = IndexSpec(policy="allow", max_postings_per_sample=3, sentence_bands=0)
    col = Collection.create("memory:", SPEC, spec)
    for i in range(0, 12, 4):
        col.add_many(docs[i : i + 4])
    fresh = tg.text(300, 999) + " " + footer
    ref = col.analyze(footer)
    posted_by = {v: 0 for v in ref.values.tolist()}
    for _, text in docs:
        for v in col.analyze(text).samples.tolist():
            if v in posted_by:
                posted_by[v] += 1
    seams = {
        d
        for d, text in docs
        if any(posted_by.get(v, 99) <= 3 for v in col.analyze(text).samples.tolist())
    }
    found = {m.id for m in col.check(fresh, top=None).matches}
    assert found == {"d10", "d11", "d12"} | seams
    assert len(found) < len(docs)
    col.close()

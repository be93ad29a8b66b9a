"""SQLite-only behaviour: the two-tier postings (tail in docs.samples, merged table) and the
``synchronous`` option. Small ``tail_min`` values force many merges on a few documents."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from neardup.errors import InputError
from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec
from neardup.storage import NewDoc
from neardup.storage.bloom import BloomFilter
from neardup.storage.sqlite import BELOW, EPOCH, ROWS_PER_INSERT, SQLiteStorage, _insert_pairs
from tests import _textgen as tg

SPEC = make_spec("plain")
INDEX = IndexSpec(policy="allow", threshold=0.5)


def _texts(n: int) -> list[tuple[str, str]]:
    out = []
    for i in range(n):
        base = tg.text(120, 1000 + i // 3)
        out.append((f"d{i}", base if i % 3 == 0 else tg.edit(base, 0.03 * (i % 3), i)))
    return out


def _table_rows(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM postings").fetchone()[0])


def _check_summary(col: Collection, text: str) -> list[tuple[str, int, float]]:
    res = col.check(text)
    return [(m.id, m.shared, m.resemblance) for m in res.matches]


def test_tail_merges_keep_results_identical(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    items = _texts(45)
    st = SQLiteStorage(db, create=True, tail_min=4)
    col = Collection.create(st, SPEC, INDEX)
    mem = Collection.create("memory:", SPEC, INDEX)
    for i in range(0, len(items), 4):
        a = col.add_many(items[i : i + 4])
        b = mem.add_many(items[i : i + 4])
        assert [(d.id, d.accepted, d.reason, d.group, [m.id for m in d.matches]) for d in a] == [
            (d.id, d.accepted, d.reason, d.group, [m.id for m in d.matches]) for d in b
        ]
    assert col.verify_integrity() == []
    rows = _table_rows(db)
    below = int(dict(st._q("SELECT key, value FROM meta"))[BELOW])
    # merges happened, and the newest documents are still in the tail
    assert 0 < below < 45 and 0 < rows < col.storage.counts()["postings"]
    assert BELOW not in col.storage.read_meta() and EPOCH not in col.storage.read_meta()
    probe = tg.edit(items[7][1], 0.02, 99)
    assert _check_summary(col, probe) == _check_summary(mem, probe)
    pv, pk = col.storage.all_postings()
    mv, mk = mem.storage.all_postings()
    o, q = np.lexsort((pk, pv)), np.lexsort((mk, mv))
    assert np.array_equal(pv[o], mv[q]) and np.array_equal(pk[o], mk[q])
    col.close()


def test_other_connection_sees_adds_and_removals(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    items = _texts(30)
    writer = Collection.create(SQLiteStorage(db, create=True, tail_min=5), SPEC, INDEX)
    writer.add_many(items[:12], batch_size=4)
    reader = Collection.open(SQLiteStorage(db, tail_min=5))
    probe = items[13][1]  # an edit of items[12]'s source
    before = _check_summary(reader, probe)
    writer.add_many(items[12:], batch_size=4)  # merges and new tail rows after the reader read
    after = _check_summary(reader, probe)
    assert {m[0] for m in after} > {m[0] for m in before}
    writer.remove(["d12", "d13", "d1"])  # tail and merged documents
    gone = _check_summary(reader, probe)
    assert not {"d12", "d13", "d1"} & {m[0] for m in gone}
    assert reader.verify_integrity() == [] and writer.verify_integrity() == []
    assert reader.storage.counts() == writer.storage.counts()
    writer.close()
    reader.close()


def test_file_without_tail_keys_is_read_as_merged(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    items = _texts(20)
    col = Collection.create(SQLiteStorage(db, create=True, tail_min=1000), SPEC, INDEX)
    col.add_many(items[:10])
    col.close()
    # make it look like a file written before the tail existed: every posting in the table
    with sqlite3.connect(db) as conn:
        for key, samples in conn.execute("SELECT key, samples FROM docs").fetchall():
            vals = np.frombuffer(samples, dtype="<u8").astype(np.uint64).view(np.int64).tolist()
            conn.executemany(
                "INSERT INTO postings (value, doc) VALUES (?, ?)", [(v, key) for v in vals]
            )
        conn.execute("DELETE FROM meta WHERE key IN (?, ?)", (BELOW, EPOCH))
        conn.execute("DROP TABLE bloom")  # nor the filters over the table
    col = Collection.open(SQLiteStorage(db, tail_min=1000))
    assert {m[0] for m in _check_summary(col, items[4][1])} >= {"d3", "d4", "d5"}
    assert col.verify_integrity() == []
    col.add_many(items[10:])
    assert col.verify_integrity() == []
    first_new = col.storage.keys_for_ids(["d10"])["d10"]
    assert int(dict(col.storage._q("SELECT key, value FROM meta"))[BELOW]) == first_new
    col.close()


def test_bloom_filters_hold_every_merged_value(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    st = SQLiteStorage(db, create=True, tail_min=4)
    col = Collection.create(st, SPEC, INDEX)
    col.add_many(_texts(40), batch_size=4)
    with sqlite3.connect(db) as conn:
        filters = [
            BloomFilter.from_bytes(bits, k) for bits, k in conn.execute("SELECT bits, k FROM bloom")
        ]
        merged = np.array(
            [v for (v,) in conn.execute("SELECT value FROM postings")], dtype=np.int64
        )
    assert len(filters) >= 3 and merged.size
    values = merged.view(np.uint64)
    held = np.zeros(values.shape[0], dtype=bool)
    for f in filters:
        held |= f.maybe(values)
    assert held.all()
    absent = np.arange(1, 20001, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    maybe = np.zeros(absent.shape[0], dtype=bool)
    for f in filters:
        maybe |= f.maybe(absent)
    assert maybe.mean() < 0.05  # the filters do spare lookups
    assert col.verify_integrity() == []
    with sqlite3.connect(db) as conn:  # a damaged filter would hide postings: the check says so
        conn.execute("UPDATE bloom SET bits = zeroblob(length(bits))")
    damaged = Collection.open(SQLiteStorage(db, tail_min=4))
    assert any("looking every sample up" in problem for problem in damaged.verify_integrity())
    damaged.close()
    col.close()


def test_a_rolled_back_merge_leaves_no_stale_filter(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    items = _texts(24)
    st = SQLiteStorage(db, create=True, tail_min=4)
    col = Collection.create(st, SPEC, INDEX)
    col.add_many(items[:8], batch_size=4)
    with pytest.raises(RuntimeError), st.transaction():  # a merge, then an error: all rolled back
        analyzed = [col.analyze(t) for _, t in items[8:14]]
        st.insert(
            [
                NewDoc(100 + i, f"x{i}", 100 + i, a.size, a.values, a.counts, a.samples)
                for i, a in enumerate(analyzed)
            ]
        )
        st.postings(analyzed[0].samples)  # this connection reads the merge's filter
        raise RuntimeError("stop")
    mem = Collection.create("memory:", SPEC, INDEX)
    mem.add_many(items[:8], batch_size=4)
    for c in (col, mem):
        c.add_many(items[14:], batch_size=6)  # another merge at the same key range
    for _, text in items[14:]:
        assert _check_summary(col, text) == _check_summary(mem, text)
    col.close()


def test_synchronous_option(tmp_path: Path) -> None:
    st = SQLiteStorage(tmp_path / "n.db", create=True, synchronous="normal")
    assert st._q("PRAGMA synchronous")[0][0] == 1  # NORMAL
    st.close()
    st = SQLiteStorage(tmp_path / "f.db", create=True)
    assert st._q("PRAGMA synchronous")[0][0] == 2  # FULL
    st.close()
    with pytest.raises(InputError, match="synchronous"):
        SQLiteStorage(tmp_path / "x.db", create=True, synchronous="off")


@pytest.mark.parametrize("n", [0, 1, ROWS_PER_INSERT, 2 * ROWS_PER_INSERT + 234])
def test_multi_row_inserts_write_every_row_in_order(tmp_path: Path, n: int) -> None:
    conn = sqlite3.connect(tmp_path / "p.db")
    conn.execute("CREATE TABLE t (a INTEGER NOT NULL, b INTEGER NOT NULL)")
    first = np.arange(n, dtype=np.int64) * -7 + 2**62
    second = np.arange(n, dtype=np.int64)
    _insert_pairs(conn, "t (a, b)", first, second)
    assert conn.execute("SELECT a, b FROM t ORDER BY rowid").fetchall() == list(
        zip(first.tolist(), second.tolist())
    )
    conn.close()

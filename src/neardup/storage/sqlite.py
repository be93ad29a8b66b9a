"""The SQLite backend: a collection in one file, with the standard library's sqlite3.

Durability choices, and why:

* ``journal_mode=WAL``: readers keep reading a consistent snapshot while one writer writes, and
  a commit is one append to the write-ahead log.
* ``synchronous=FULL``: the log is fsynced at every commit, so an acknowledged document
  survives a power cut, not only a killed process (NORMAL would only lose the last commits on
  power loss, never corrupt — but we acknowledge documents to callers, so we promise more).
  The collection commits once per batch, not per document, so the fsync costs little.
* ``BEGIN IMMEDIATE`` for every write: writers queue on the database's write lock (for at most
  the busy timeout, 10 s by default) and each decision is taken against the state it commits
  into, so two processes cannot both admit near-duplicates of each other.
* ``cache_size`` 256 MiB and ``mmap_size`` 4 GiB: candidate lookups and fingerprint reads hit
  memory, not ``read`` calls (reads only; writes still go through the WAL).
* A database that stays locked past the timeout, is read-only, or is not a SQLite file becomes
  a :class:`~neardup.errors.StorageError` that says so; nothing is half-written.

Tables (``FORMAT_VERSION`` 1): ``meta(key, value)``; ``docs(key INTEGER PRIMARY KEY, id UNIQUE,
grp, size, fp BLOB, counts BLOB, samples BLOB, meta TEXT)`` with an index on ``grp``;
``texts(key, text)``; ``postings(value, doc)`` as a WITHOUT ROWID table keyed by
``(value, doc)``; ``links(a, b, resemblance, containment_ab, containment_ba)`` keyed by
``(a, b)`` with an index on ``b``. Blobs are little-endian uint64 (fingerprints, samples) and
int64 (counts) arrays.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from neardup.errors import DuplicateIdError, InputError, StorageError
from neardup.storage.base import (
    I64,
    U64,
    DocInfo,
    Link,
    NewDoc,
    StoredFingerprints,
    as_signed,
    as_unsigned,
    dump_meta,
    i64_from_bytes,
    i64_to_bytes,
    load_meta,
    u64_from_bytes,
    u64_to_bytes,
)

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE docs (
    key INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    grp INTEGER NOT NULL,
    size INTEGER NOT NULL,
    fp BLOB NOT NULL,
    counts BLOB,
    samples BLOB NOT NULL,
    meta TEXT NOT NULL
);
CREATE INDEX docs_grp ON docs (grp);
CREATE TABLE texts (key INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE postings (value INTEGER NOT NULL, doc INTEGER NOT NULL, PRIMARY KEY (value, doc)) WITHOUT ROWID;
CREATE TABLE links (
    a INTEGER NOT NULL,
    b INTEGER NOT NULL,
    resemblance REAL NOT NULL,
    containment_ab REAL NOT NULL,
    containment_ba REAL NOT NULL,
    PRIMARY KEY (a, b)
) WITHOUT ROWID;
CREATE INDEX links_b ON links (b);
"""

#: Rows per ``IN (...)`` list (SQLite allows 32,766 variables since 3.32).
CHUNK = 900
#: For the postings lookup, where one long list beats many short ones.
BIG_CHUNK = 30000

DEFAULT_TIMEOUT = 10.0


def _chunks(items: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


class SQLiteStorage:
    """A collection in a SQLite file (``path``); ``timeout`` is the busy timeout in seconds."""

    kind = "sqlite"

    def __init__(self, path: str | os.PathLike[str], *, create: bool = False,
                 timeout: float = DEFAULT_TIMEOUT, readonly: bool | None = None) -> None:
        self.path = Path(path)
        self.location = str(self.path)
        self.timeout = float(timeout)
        self._lock = threading.RLock()
        self._in_tx = False
        self._in_snapshot = False
        if self.path.is_dir():
            raise InputError(f"{self.path} is a directory, not a collection file")
        if not create and not self.path.exists():
            raise InputError(
                f"no collection at {self.path}: the file does not exist "
                f"(make one with `neardup index create {self.path}`)"
            )
        if create and self.path.exists() and self.path.stat().st_size > 0:
            raise StorageError(f"{self.path} already exists; choose a new path or remove it first")
        if readonly is None:
            # a file nobody may write (chmod a-w) is read-only even for root, who may write anyway
            readonly = not create and (
                not os.access(self.path, os.W_OK) or not self.path.stat().st_mode & 0o222
            )
        self.readonly = readonly
        try:
            if readonly:
                self._conn = self._connect_readonly()
            else:
                self._conn = sqlite3.connect(str(self.path), timeout=self.timeout,
                                             isolation_level=None, check_same_thread=False)
            with self._errors():
                if not readonly:
                    mode = self._conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                    if str(mode).lower() != "wal":
                        raise StorageError(f"cannot put {self.path} in WAL mode (got {mode})")
                self._conn.execute("PRAGMA synchronous=FULL")
                self._conn.execute("PRAGMA cache_size=-262144")
                self._conn.execute("PRAGMA mmap_size=4294967296")
                self._conn.execute("PRAGMA temp_store=MEMORY")
                self._conn.execute("PRAGMA foreign_keys=OFF")
                # reading the schema fails here if the file is not a database
                self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            raise self._translate(exc) from None

    def _connect_readonly(self) -> sqlite3.Connection:
        """A read-only connection; a WAL file whose folder we cannot write is opened immutable."""
        base = f"file:{self.path.resolve().as_posix()}"
        conn = sqlite3.connect(f"{base}?mode=ro", uri=True, timeout=self.timeout,
                               isolation_level=None, check_same_thread=False)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            conn.close()
            return sqlite3.connect(f"{base}?mode=ro&immutable=1", uri=True, timeout=self.timeout,
                                   isolation_level=None, check_same_thread=False)

    # --- errors -----------------------------------------------------------------------------
    def _translate(self, exc: sqlite3.Error) -> Exception:
        msg = str(exc)
        low = msg.lower()
        if isinstance(exc, sqlite3.IntegrityError) and "docs.id" in low:
            return DuplicateIdError(f"an id is already in the collection {self.path} ({msg})")
        if "locked" in low or "busy" in low:
            return StorageError(
                f"the database {self.path} is locked: another process is writing to it and did "
                f"not finish within {self.timeout:g} s; try again later ({msg})"
            )
        if "readonly" in low or "read-only" in low:
            return StorageError(
                f"the database {self.path} is read-only: check the file's and its folder's "
                f"permissions ({msg})"
            )
        if "not a database" in low or "malformed" in low or "corrupt" in low:
            return StorageError(f"{self.path} is not a neardup collection (not a SQLite database, "
                                f"or a damaged one): {msg}")
        if "unable to open" in low:
            return StorageError(f"cannot open {self.path}: {msg}")
        return StorageError(f"SQLite error on {self.path}: {msg}")

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise self._translate(exc) from None

    def _q(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._errors():
            return self._conn.execute(sql, params).fetchall()

    # --- lifecycle --------------------------------------------------------------------------
    def exists(self) -> bool:
        with self._lock:
            rows = self._q("SELECT name FROM sqlite_master WHERE type='table' AND name='meta'")
            if not rows:
                return False
            return bool(self._q("SELECT 1 FROM meta WHERE key='format_version'"))

    def create(self, meta: Mapping[str, str]) -> None:
        with self._lock:
            if self.exists():
                raise StorageError(f"a collection already exists at {self.path}")
            with self._errors():
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    for stmt in SCHEMA.strip().split(";"):
                        if stmt.strip():
                            self._conn.execute(stmt)
                    self._conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                                           sorted(meta.items()))
                    self._conn.execute("COMMIT")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise

    def read_meta(self) -> dict[str, str]:
        with self._lock:
            return {k: v for k, v in self._q("SELECT key, value FROM meta")}

    def write_meta(self, items: Mapping[str, str]) -> None:
        self._require_tx()
        with self._errors():
            self._conn.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                sorted(items.items()),
            )

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            if self._in_tx or self._in_snapshot:
                raise StorageError("transactions do not nest")
            if self.readonly:
                raise StorageError(f"the database {self.path} is open read-only (the file is not "
                                   "writable); cannot change it")
            with self._errors():
                self._conn.execute("BEGIN IMMEDIATE")
            self._in_tx = True
            try:
                yield
                with self._errors():
                    self._conn.execute("COMMIT")
            except BaseException:
                try:
                    self._conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                raise
            finally:
                self._in_tx = False

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        with self._lock:
            if self._in_tx or self._in_snapshot:
                yield
                return
            with self._errors():
                self._conn.execute("BEGIN")
            self._in_snapshot = True
            try:
                yield
            finally:
                self._in_snapshot = False
                try:
                    self._conn.execute("COMMIT")
                except sqlite3.Error:
                    pass

    def close(self) -> None:
        with self._lock:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass

    def _require_tx(self) -> None:
        if not self._in_tx:
            raise StorageError("writes must happen inside storage.transaction()")

    # --- reads ------------------------------------------------------------------------------
    def keys_for_ids(self, ids: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        with self._lock:
            for chunk in _chunks(list(ids)):
                marks = ",".join("?" * len(chunk))
                out.update(self._q(f"SELECT id, key FROM docs WHERE id IN ({marks})", chunk))
        return out

    def postings(self, samples: U64) -> tuple[U64, I64]:
        wanted = as_signed(np.unique(np.asarray(samples, dtype=np.uint64))).tolist()
        rows: list[tuple[int, int]] = []
        with self._lock:
            for chunk in _chunks(wanted, BIG_CHUNK):
                marks = ",".join("?" * len(chunk))
                rows.extend(self._q(f"SELECT value, doc FROM postings WHERE value IN ({marks})", chunk))
        if not rows:
            return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
        arr = np.array(rows, dtype=np.int64)
        return as_unsigned(arr[:, 0].copy()), arr[:, 1].copy()

    def fingerprints(self, keys: Sequence[int]) -> list[StoredFingerprints]:
        wanted = sorted({int(k) for k in keys})
        out: list[StoredFingerprints] = []
        with self._lock:
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                for key, fp, counts, samples in self._q(
                    f"SELECT key, fp, counts, samples FROM docs WHERE key IN ({marks}) ORDER BY key", chunk
                ):
                    out.append(StoredFingerprints(key, u64_from_bytes(fp), i64_from_bytes(counts),
                                                  u64_from_bytes(samples)))
        return out

    def docs(self, keys: Sequence[int], *, text: bool = False, meta: bool = True) -> list[DocInfo]:
        wanted = sorted({int(k) for k in keys})
        out: list[DocInfo] = []
        meta_col = "d.meta" if meta else "NULL"
        text_col = "t.text" if text else "NULL"
        join = "LEFT JOIN texts t ON t.key = d.key " if text else ""
        with self._lock:
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                sql = (f"SELECT d.key, d.id, d.grp, d.size, {meta_col}, {text_col} FROM docs d {join}"
                       f"WHERE d.key IN ({marks}) ORDER BY d.key")
                for key, id_, grp, size, meta_json, txt in self._q(sql, chunk):
                    out.append(DocInfo(key, id_, grp, size, load_meta(meta_json), txt))
        return out

    def _iter_keys(self, batch_size: int) -> Iterator[list[int]]:
        last = -(2**63)
        while True:
            with self._lock:
                rows = self._q("SELECT key FROM docs WHERE key > ? ORDER BY key LIMIT ?", (last, batch_size))
            if not rows:
                return
            keys = [r[0] for r in rows]
            last = keys[-1]
            yield keys

    def iter_docs(self, *, text: bool = False, batch_size: int = 1000) -> Iterator[list[DocInfo]]:
        for keys in self._iter_keys(batch_size):
            yield self.docs(keys, text=text)

    def iter_fingerprints(self, *, batch_size: int = 1000) -> Iterator[list[StoredFingerprints]]:
        for keys in self._iter_keys(batch_size):
            yield self.fingerprints(keys)

    def group_members(self, groups: Sequence[int]) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        wanted = sorted({int(g) for g in groups})
        with self._lock:
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                for grp, key in self._q(
                    f"SELECT grp, key FROM docs WHERE grp IN ({marks}) ORDER BY key", chunk
                ):
                    out.setdefault(grp, []).append(key)
        return out

    def group_sizes(self, groups: Sequence[int]) -> dict[int, int]:
        out: dict[int, int] = {}
        wanted = sorted({int(g) for g in groups})
        with self._lock:
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                out.update(self._q(f"SELECT grp, count(*) FROM docs WHERE grp IN ({marks}) GROUP BY grp",
                                   chunk))
        return out

    def links_of(self, keys: Sequence[int]) -> list[Link]:
        wanted = sorted({int(k) for k in keys})
        found: dict[tuple[int, int], Link] = {}
        cols = "a, b, resemblance, containment_ab, containment_ba"
        with self._lock:
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                for row in self._q(f"SELECT {cols} FROM links WHERE a IN ({marks}) "
                                   f"UNION SELECT {cols} FROM links WHERE b IN ({marks})", [*chunk, *chunk]):
                    found[(row[0], row[1])] = Link(*row)
        return [found[p] for p in sorted(found)]

    def iter_links(self) -> Iterator[Link]:
        last = (-(2**63), -(2**63))
        while True:
            with self._lock:
                rows = self._q(
                    "SELECT a, b, resemblance, containment_ab, containment_ba FROM links "
                    "WHERE (a, b) > (?, ?) ORDER BY a, b LIMIT 5000", last)
            if not rows:
                return
            for row in rows:
                yield Link(*row)
            last = (rows[-1][0], rows[-1][1])

    def all_postings(self) -> tuple[U64, I64]:
        with self._lock:
            rows = self._q("SELECT value, doc FROM postings ORDER BY value, doc")
        if not rows:
            return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
        arr = np.array(rows, dtype=np.int64)
        return as_unsigned(arr[:, 0].copy()), arr[:, 1].copy()

    def counts(self) -> dict[str, int]:
        with self.snapshot():
            docs = self._q("SELECT count(*) FROM docs")[0][0]
            postings = self._q("SELECT count(*) FROM postings")[0][0]
            links = self._q("SELECT count(*) FROM links")[0][0]
            groups = self._q("SELECT count(*) FROM (SELECT grp FROM docs GROUP BY grp HAVING count(*) > 1)")[0][0]
        return {"docs": docs, "postings": postings, "links": links, "groups": groups}

    def size_bytes(self) -> int | None:
        total = 0
        for suffix in ("", "-wal"):
            p = Path(str(self.path) + suffix)
            if p.exists():
                total += p.stat().st_size
        return total

    # --- writes -----------------------------------------------------------------------------
    def insert(self, docs: Sequence[NewDoc]) -> None:
        self._require_tx()
        if not docs:
            return
        with self._errors():
            try:
                self._conn.executemany(
                    "INSERT INTO docs (key, id, grp, size, fp, counts, samples, meta) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (d.key, d.id, d.group, d.size, u64_to_bytes(d.values),
                         None if d.counts is None else i64_to_bytes(d.counts),
                         u64_to_bytes(d.samples), dump_meta(d.meta))
                        for d in docs
                    ],
                )
            except sqlite3.IntegrityError as exc:
                ids = [d.id for d in docs]
                taken = self.keys_for_ids(ids)
                dup = next(iter(taken), None) or next((i for i in ids if ids.count(i) > 1), None)
                raise DuplicateIdError(f"the id {dup!r} is already in the collection") from exc
            texts = [(d.key, d.text) for d in docs if d.text is not None]
            if texts:
                self._conn.executemany("INSERT INTO texts (key, text) VALUES (?, ?)", texts)
            values = as_signed(np.concatenate([d.samples for d in docs]).astype(np.uint64))
            keys = np.concatenate([np.full(d.samples.shape[0], d.key, dtype=np.int64) for d in docs])
            order = np.lexsort((keys, values))  # b-tree order: inserts touch neighbouring pages
            self._conn.executemany("INSERT INTO postings (value, doc) VALUES (?, ?)",
                                   zip(values[order].tolist(), keys[order].tolist()))

    def delete(self, keys: Sequence[int]) -> None:
        self._require_tx()
        wanted = sorted({int(k) for k in keys})
        with self._errors():
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                rows = self._conn.execute(
                    f"SELECT key, samples FROM docs WHERE key IN ({marks})", chunk).fetchall()
                pairs = [
                    (v, key)
                    for key, samples in rows
                    for v in as_signed(u64_from_bytes(samples)).tolist()
                ]
                self._conn.executemany("DELETE FROM postings WHERE value = ? AND doc = ?", pairs)
                self._conn.execute(f"DELETE FROM links WHERE a IN ({marks})", chunk)
                self._conn.execute(f"DELETE FROM links WHERE b IN ({marks})", chunk)
                self._conn.execute(f"DELETE FROM texts WHERE key IN ({marks})", chunk)
                self._conn.execute(f"DELETE FROM docs WHERE key IN ({marks})", chunk)

    def add_links(self, links: Sequence[Link]) -> None:
        self._require_tx()
        with self._errors():
            self._conn.executemany(
                "INSERT OR REPLACE INTO links (a, b, resemblance, containment_ab, containment_ba) "
                "VALUES (?, ?, ?, ?, ?)",
                [(lk.a, lk.b, lk.resemblance, lk.containment_ab, lk.containment_ba) for lk in links],
            )

    def set_groups(self, assignments: Mapping[int, int]) -> None:
        self._require_tx()
        with self._errors():
            self._conn.executemany("UPDATE docs SET grp = ? WHERE key = ?",
                                   [(int(g), int(k)) for k, g in assignments.items()])

    def relabel_groups(self, mapping: Mapping[int, int]) -> None:
        self._require_tx()
        with self._errors():
            self._conn.executemany("UPDATE docs SET grp = ? WHERE grp = ?",
                                   [(int(new), int(old)) for old, new in mapping.items()])

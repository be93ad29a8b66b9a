"""The SQLite backend: a collection in one file, with the standard library's sqlite3.

Durability choices, and why:

* ``journal_mode=WAL``: readers keep reading a consistent snapshot while one writer writes, and
  a commit is one append to the write-ahead log.
* ``synchronous=FULL`` (the default): the log is fsynced at every commit, so an acknowledged
  document survives a power cut, not only a killed process. ``synchronous="normal"`` (opt-in)
  fsyncs only at checkpoints: in WAL mode every commit is still atomic and written to the log
  before it is acknowledged, so a killed process (SIGKILL) loses nothing acknowledged and never
  leaves half a batch; an OS crash or power loss may lose the last acknowledged transactions
  (never corrupt the file). That saves one fsync per batch.
* ``BEGIN IMMEDIATE`` for every write: writers queue on the database's write lock (for at most
  the busy timeout, 10 s by default) and each decision is taken against the state it commits
  into, so two processes cannot both admit near-duplicates of each other.
* ``cache_size`` 256 MiB and ``mmap_size`` 4 GiB: candidate lookups and fingerprint reads hit
  memory, not ``read`` calls (reads only; writes still go through the WAL).
* **Postings in two tiers.** A B-tree keyed by ``(value, doc)`` that receives a batch's
  postings (random values) dirties nearly every one of its leaf pages once the batch has more
  postings than the tree has pages, so each commit rewrote the whole postings table and bulk
  insert slowed in proportion to the collection's size. So the newest documents (the *tail*:
  keys at or above ``meta.sqlite_postings_below``) keep their postings only in their own
  ``docs.samples`` (an append at the end of ``docs``); every connection reads the tail into a
  sorted in-memory array (incrementally: only keys past the last one it read) and looks
  candidates up in both tiers. When the tail outgrows ``max(tail_min, merged keys /
  TAIL_SHARE)``, the batch that crossed it also moves the tail's postings, sorted, into the
  ``postings`` table in the same transaction — geometric merges, so each posting is rewritten
  a bounded number of times. ``meta.sqlite_postings_epoch`` changes with every removal, which
  makes other connections re-read their tail. The tail is held as sorted runs
  (:class:`~neardup.storage.runs.SortedRuns`), so reading a batch's new rows never re-sorts it.
* **A Bloom filter per merge** (table ``bloom``): most samples of a new document are posted by
  no stored document; a value that no filter holds is not looked up in the ``postings`` B-tree
  at all (one seek spared per value; the filters cost about 2 bytes per merged posting).
* **Frequent values read capped.** A value once seen with more postings than the lookup's
  ``limit_per_value`` (boilerplate) is read newest first, that many rows only.
* A database that stays locked past the timeout, is read-only, or is not a SQLite file becomes
  a :class:`~neardup.errors.StorageError` that says so; nothing is half-written.

Tables (``FORMAT_VERSION`` 1): ``meta(key, value)`` (with ``sqlite_postings_below`` and
``sqlite_postings_epoch``; a file without them has every posting in ``postings``);
``docs(key INTEGER PRIMARY KEY, id UNIQUE, grp, size, fp BLOB, counts BLOB, samples BLOB,
meta TEXT)`` with an index on ``grp``;
``texts(key, text)``; ``postings(value, doc)`` as a WITHOUT ROWID table keyed by
``(value, doc)``; ``links(a, b, resemblance, containment_ab, containment_ba)`` keyed by
``(a, b)`` with an index on ``b``; ``bloom(below, k, bits)``, one filter per merge (a file
without this table has its merged values uncovered, and is looked up without filters). Blobs
are little-endian uint64 (fingerprints, samples) and int64 (counts) arrays.
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

from neardup._sorted import distinct, distinct_counts
from neardup.errors import DamagedCollectionError, DuplicateIdError, InputError, StorageError
from neardup.storage.base import (
    I64,
    PMBF_PARTS_QUERY,
    PMBF_ROWS_QUERY,
    U64,
    DocInfo,
    FilterState,
    Link,
    NewDoc,
    PackedFingerprints,
    PagedScans,
    StoredFingerprints,
    as_signed,
    as_unsigned,
    dump_meta,
    filter_from_records,
    i64_from_bytes,
    i64_to_bytes,
    load_meta,
    rows_to_bytes,
    sorted_parts,
    u64_from_bytes,
    u64_to_bytes,
)
from neardup.storage.bloom import BloomFilter
from neardup.storage.runs import SortedRuns

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
CREATE TABLE postings (
    value INTEGER NOT NULL, doc INTEGER NOT NULL, PRIMARY KEY (value, doc)
) WITHOUT ROWID;
CREATE TABLE links (
    a INTEGER NOT NULL,
    b INTEGER NOT NULL,
    resemblance REAL NOT NULL,
    containment_ab REAL NOT NULL,
    containment_ba REAL NOT NULL,
    PRIMARY KEY (a, b)
) WITHOUT ROWID;
CREATE INDEX links_b ON links (b);
CREATE TABLE bloom (below INTEGER PRIMARY KEY, k INTEGER NOT NULL, bits BLOB NOT NULL);
"""
#: The pseudo-matrix filter's rows and placement index (made on create; files from before
#: them get them on the first write of a filter, and read as an empty filter until then).
PMBF_SCHEMA = """
CREATE TABLE IF NOT EXISTS pmbf_rows (
    row INTEGER PRIMARY KEY, bits BLOB NOT NULL, free INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS pmbf_parts (
    key INTEGER NOT NULL, row INTEGER NOT NULL, start INTEGER NOT NULL, stop INTEGER NOT NULL,
    PRIMARY KEY (key, start)
) WITHOUT ROWID;
"""
SCHEMA += PMBF_SCHEMA


#: Rows per ``IN (...)`` list (SQLite allows 32,766 variables since 3.32).
CHUNK = 900
#: For the postings lookup, where one long list beats many short ones.
BIG_CHUNK = 30000

DEFAULT_TIMEOUT = 10.0
#: Documents whose postings may stay in the tail (``docs.samples``) before a merge …
TAIL_MIN = 25_000
#: … or this share (1/TAIL_SHARE) of the merged keys, whichever is larger.
TAIL_SHARE = 4
BELOW = "sqlite_postings_below"
EPOCH = "sqlite_postings_epoch"

_NO_U64 = np.zeros(0, dtype=np.uint64)
_NO_I64 = np.zeros(0, dtype=np.int64)


class _Tail:
    """The postings of the documents not merged yet, as read so far (sorted runs)."""

    __slots__ = ("below", "epoch", "last", "runs")

    def __init__(self, below: int, epoch: int) -> None:
        self.below = below
        self.epoch = epoch
        self.last = below - 1  # the largest key read
        self.runs = SortedRuns()

    def extend(self, rows: Sequence[tuple[int, bytes]]) -> None:
        """Add the samples of documents with keys past ``last`` (rows in key order)."""
        if not rows:
            return
        arrays = [u64_from_bytes(samples) for _, samples in rows]
        lengths = np.array([a.shape[0] for a in arrays], dtype=np.int64)
        self.runs.add(
            np.concatenate(arrays),
            np.repeat(np.array([r[0] for r in rows], dtype=np.int64), lengths),
        )
        self.last = int(rows[-1][0])


#: ``synchronous`` settings a connection may ask for (see the module docstring).
SYNCHRONOUS = ("full", "normal")


#: Rows per multi-row ``INSERT … VALUES (?, ?), …`` (two variables a row).
ROWS_PER_INSERT = 500


def _insert_pairs(conn: sqlite3.Connection, table: str, first: I64, second: I64) -> None:
    """Insert the rows ``(first[i], second[i])`` into a two-column table, in order.

    Multi-row statements: about three times faster than ``executemany`` of one row each (2
    million sorted rows into an empty table: 0.63 s against 2.08 s).
    """
    n = int(first.shape[0])
    flat = np.empty(2 * n, dtype=np.int64)
    flat[0::2] = first
    flat[1::2] = second
    params = flat.tolist()
    full = n - n % ROWS_PER_INSERT
    if full:
        stmt = f"INSERT INTO {table} VALUES " + ",".join(["(?,?)"] * ROWS_PER_INSERT)
        step = 2 * ROWS_PER_INSERT
        conn.executemany(stmt, (params[i : i + step] for i in range(0, 2 * full, step)))
    if n > full:
        conn.execute(
            f"INSERT INTO {table} VALUES " + ",".join(["(?,?)"] * (n - full)), params[2 * full :]
        )


def _pair_array(rows: Sequence[tuple[int, int]]) -> I64:
    """Rows of two integers as an ``(n, 2)`` int64 array (also when there are none)."""
    return np.array(rows, dtype=np.int64).reshape(-1, 2)


def _chunks(items: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


class SQLiteStorage(PagedScans):
    """A collection in a SQLite file (``path``); ``timeout`` is the busy timeout in seconds.

    ``synchronous`` is ``"full"`` (fsync at every commit: acknowledged documents survive a power
    cut) or ``"normal"`` (WAL fsynced at checkpoints only: acknowledged documents survive a killed
    process; an OS crash or power loss may lose the last transactions, never half of one).
    ``quick_check`` (default on): SQLite's ``PRAGMA quick_check`` before this connection's first
    write, refusing a damaged file; it reads the whole file once (seconds per GB), so a process
    that writes one document into a very large collection may turn it off.
    """

    kind = "sqlite"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        readonly: bool | None = None,
        synchronous: str = "full",
        tail_min: int = TAIL_MIN,
        quick_check: bool = True,
    ) -> None:
        self.tail_min = int(tail_min)
        self._tail: _Tail | None = None
        #: posting values (signed) once seen with more postings than a lookup's limit per value
        self._frequent: I64 = _NO_I64
        self._has_bloom: bool | None = None
        self._filters: list[BloomFilter] = []
        self._filters_upto = -1  # the ``below`` of the last filter read
        if synchronous.lower() not in SYNCHRONOUS:
            raise InputError(
                f"synchronous must be one of {', '.join(SYNCHRONOUS)}, got {synchronous!r}"
            )
        self.synchronous = synchronous.lower()
        self.path = Path(path)
        self.location = str(self.path)
        self.timeout = float(timeout)
        self._lock = threading.RLock()
        self._in_tx = False
        self._in_snapshot = False
        # PRAGMA quick_check passed (or is not wanted) before this connection's first write
        self._checked = not quick_check
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
                self._conn = sqlite3.connect(
                    str(self.path),
                    timeout=self.timeout,
                    isolation_level=None,
                    check_same_thread=False,
                )
            with self._errors():
                if not readonly:
                    mode = self._conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                    if str(mode).lower() != "wal":
                        raise StorageError(f"cannot put {self.path} in WAL mode (got {mode})")
                self._conn.execute(f"PRAGMA synchronous={self.synchronous.upper()}")
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
        conn = sqlite3.connect(
            f"{base}?mode=ro",
            uri=True,
            timeout=self.timeout,
            isolation_level=None,
            check_same_thread=False,
        )
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            conn.close()
            return sqlite3.connect(
                f"{base}?mode=ro&immutable=1",
                uri=True,
                timeout=self.timeout,
                isolation_level=None,
                check_same_thread=False,
            )

    # --- errors -----------------------------------------------------------------------------
    def _damaged(self, detail: str) -> DamagedCollectionError:
        return DamagedCollectionError(f"the collection at {self.path} is damaged: {detail}")

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
        if "malformed" in low or "corrupt" in low:
            return self._damaged(msg)
        if "not a database" in low:
            return StorageError(
                f"{self.path} is not a neardup collection (not a SQLite database, "
                f"or a damaged one): {msg}"
            )
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
                    self._conn.executemany(
                        "INSERT INTO meta (key, value) VALUES (?, ?)",
                        sorted({BELOW: "0", EPOCH: "0", **meta}.items()),
                    )
                    self._conn.execute("COMMIT")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise

    def read_meta(self) -> dict[str, str]:
        """The collection's meta (without this backend's own ``sqlite_*`` bookkeeping keys)."""
        with self._lock:
            return {
                k: v for k, v in self._q("SELECT key, value FROM meta") if k not in (BELOW, EPOCH)
            }

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
                raise StorageError(
                    f"the database {self.path} is open read-only (the file is not "
                    "writable); cannot change it"
                )
            with self._errors():
                self._conn.execute("BEGIN IMMEDIATE")
            self._in_tx = True
            try:
                if not self._checked:
                    self._quick_check()
                yield
                with self._errors():
                    self._conn.execute("COMMIT")
            except BaseException:
                self._tail = None  # it and the filters may hold rows of the rolled-back transaction
                self._filters, self._filters_upto = [], -1
                try:
                    self._conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                raise
            finally:
                self._in_tx = False

    def _quick_check(self) -> None:
        """Refuse to write into a damaged file: SQLite's ``quick_check`` before the first write.

        It reads every page once (about a second per GB, paid once per connection that
        writes) and finds damaged pages, broken B-trees and records out of place.
        """
        try:
            rows = self._conn.execute("PRAGMA quick_check(5)").fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._damaged(str(exc)) from None
        found = [line for r in rows for line in str(r[0]).splitlines()]
        if found != ["ok"]:
            raise self._damaged("; ".join(found))
        self._checked = True

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

    def _tail_state(self) -> tuple[int, int] | None:
        """``(below, epoch)`` from the meta table; None for a file with every posting merged."""
        got = dict(self._q("SELECT key, value FROM meta WHERE key IN (?, ?)", (BELOW, EPOCH)))
        if BELOW not in got:
            return None
        try:
            return int(got[BELOW]), int(got.get(EPOCH, "0"))
        except ValueError:
            raise self._damaged(f"the postings counters are not integers: {got}") from None

    def _postings_filters(self) -> list[BloomFilter] | None:
        """Filters that together hold every value of the postings table (read incrementally;
        call under the lock); None for a file made before them, whose values they do not cover."""
        if self._has_bloom is None:
            self._has_bloom = bool(
                self._q("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'bloom'")
            )
        if not self._has_bloom:
            return None
        for below, k, bits in self._q(
            "SELECT below, k, bits FROM bloom WHERE below > ? ORDER BY below", (self._filters_upto,)
        ):
            self._filters.append(BloomFilter.from_bytes(bits, k))
            self._filters_upto = below
        return self._filters

    def _read_tail(self) -> _Tail | None:
        """The tail as of the current snapshot, read incrementally (call under the lock)."""
        state = self._tail_state()
        if state is None:
            self._tail = None
            return None
        below, epoch = state
        tail = self._tail
        if tail is None or tail.below != below or tail.epoch != epoch:
            tail = _Tail(below, epoch)
        # keys are given out in increasing order under the write lock, so a snapshot holds a
        # prefix of them: every document not read yet has a key past ``tail.last``
        tail.extend(
            self._q("SELECT key, samples FROM docs WHERE key > ? ORDER BY key", (tail.last,))
        )
        self._tail = tail
        return tail

    def postings(self, samples: U64, *, limit_per_value: int = 0) -> tuple[U64, I64]:
        unique = distinct(np.asarray(samples, dtype=np.uint64))
        signed = as_signed(unique)
        # values seen with more than the limit of postings are read newest first, the limit only
        # (most of a batch's rows would otherwise be a few hundred boilerplate samples')
        capped = (
            np.isin(signed, self._frequent) if limit_per_value else np.zeros(signed.shape[0], bool)
        )
        parts: list[I64] = []  # (value, doc) rows, an array per statement: a lookup of every
        # stored sample (verify_integrity) would hold tens of millions of tuples otherwise
        with self._lock, self.snapshot():
            filters = self._postings_filters()
            if filters is not None:  # values no filter holds are in no posting of the table
                in_table = np.zeros(unique.shape[0], dtype=bool)
                for f in filters:
                    in_table |= f.maybe(unique)
            else:
                in_table = np.ones(unique.shape[0], dtype=bool)
            for chunk in _chunks(signed[in_table & ~capped].tolist(), BIG_CHUNK):
                marks = ",".join("?" * len(chunk))
                parts.append(
                    _pair_array(
                        self._q(f"SELECT value, doc FROM postings WHERE value IN ({marks})", chunk)
                    )
                )
            capped_rows: list[tuple[int, int]] = []
            for value in signed[in_table & capped].tolist():
                capped_rows += self._q(
                    "SELECT value, doc FROM postings WHERE value = ? ORDER BY doc DESC LIMIT ?",
                    (value, limit_per_value),
                )
            parts.append(_pair_array(capped_rows))
            tail = self._read_tail()
        tv, tk = tail.runs.lookup(unique) if tail is not None else (_NO_U64, _NO_I64)
        arr = np.concatenate(parts)
        if not arr.shape[0]:
            return tv, tk
        values = arr[:, 0].copy()
        if limit_per_value:
            seen, counts = distinct_counts(values)
            more = seen[counts > limit_per_value]
            if more.shape[0]:
                self._frequent = np.union1d(self._frequent, more)
        return np.concatenate((as_unsigned(values), tv)), np.concatenate((arr[:, 1].copy(), tk))

    def fingerprints(self, keys: Sequence[int]) -> list[StoredFingerprints]:
        wanted = sorted({int(k) for k in keys})
        out: list[StoredFingerprints] = []
        with self._lock:
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                for key, fp, counts, samples in self._q(
                    "SELECT key, fp, counts, samples FROM docs "
                    f"WHERE key IN ({marks}) ORDER BY key",
                    chunk,
                ):
                    out.append(
                        StoredFingerprints(
                            key, u64_from_bytes(fp), i64_from_bytes(counts), u64_from_bytes(samples)
                        )
                    )
        return out

    def packed_fingerprints(self, keys: Sequence[int]) -> PackedFingerprints:
        wanted = sorted({int(k) for k in keys})
        rows: list[tuple[int, bytes, bytes | None]] = []
        with self._lock:
            for chunk in _chunks(wanted, BIG_CHUNK):
                marks = ",".join("?" * len(chunk))
                rows += self._q(
                    f"SELECT key, fp, counts FROM docs WHERE key IN ({marks}) ORDER BY key", chunk
                )
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        lengths = [len(r[1]) for r in rows]
        if any(n % 8 for n in lengths):
            raise self._damaged("a stored fingerprint array is not a whole number of 8-byte values")
        np.cumsum([n // 8 for n in lengths], out=offsets[1:])
        values = u64_from_bytes(b"".join(r[1] for r in rows))
        counts = None
        if any(r[2] is not None for r in rows):
            counts = np.concatenate(
                [
                    i64_from_bytes(r[2]) if r[2] is not None else np.ones(len(r[1]) // 8, np.int64)
                    for r in rows
                ]
            )
        return PackedFingerprints(
            np.array([r[0] for r in rows], dtype=np.int64), values, counts, offsets
        )

    def docs(self, keys: Sequence[int], *, text: bool = False, meta: bool = True) -> list[DocInfo]:
        wanted = sorted({int(k) for k in keys})
        out: list[DocInfo] = []
        meta_col = "d.meta" if meta else "NULL"
        text_col = "t.text" if text else "NULL"
        join = "LEFT JOIN texts t ON t.key = d.key " if text else ""
        with self._lock:
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                sql = (
                    f"SELECT d.key, d.id, d.grp, d.size, {meta_col}, {text_col} FROM docs d {join}"
                    f"WHERE d.key IN ({marks}) ORDER BY d.key"
                )
                for key, id_, grp, size, meta_json, txt in self._q(sql, chunk):
                    out.append(DocInfo(key, id_, grp, size, load_meta(meta_json), txt))
        return out

    def sizes(self, keys: Sequence[int]) -> dict[int, int]:
        out: dict[int, int] = {}
        wanted = sorted({int(k) for k in keys})
        with self._lock:
            for chunk in _chunks(wanted, BIG_CHUNK):
                marks = ",".join("?" * len(chunk))
                out.update(self._q(f"SELECT key, size FROM docs WHERE key IN ({marks})", chunk))
        return out

    def max_key(self) -> int:
        with self._lock:
            return int(self._q("SELECT coalesce(max(key), 0) FROM docs")[0][0])

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
                out.update(
                    self._q(
                        f"SELECT grp, count(*) FROM docs WHERE grp IN ({marks}) GROUP BY grp", chunk
                    )
                )
        return out

    def links_of(self, keys: Sequence[int]) -> list[Link]:
        wanted = sorted({int(k) for k in keys})
        found: dict[tuple[int, int], Link] = {}
        cols = "a, b, resemblance, containment_ab, containment_ba"
        with self._lock:
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                for row in self._q(
                    f"SELECT {cols} FROM links WHERE a IN ({marks}) "
                    f"UNION SELECT {cols} FROM links WHERE b IN ({marks})",
                    [*chunk, *chunk],
                ):
                    found[(row[0], row[1])] = Link(*row)
        return [found[p] for p in sorted(found)]

    def all_postings(self) -> tuple[U64, I64]:
        parts: list[I64] = []
        with self._lock, self.snapshot(), self._errors():
            cursor = self._conn.execute("SELECT value, doc FROM postings ORDER BY value, doc")
            while rows := cursor.fetchmany(1 << 20):
                parts.append(_pair_array(rows))
            tail = self._read_tail()
        tv, tk = tail.runs.arrays() if tail is not None else (_NO_U64, _NO_I64)
        if not parts:
            return tv.copy(), tk.copy()
        arr = np.concatenate(parts)
        values = np.concatenate((as_unsigned(arr[:, 0].copy()), tv))
        keys = np.concatenate((arr[:, 1].copy(), tk))
        order = np.lexsort((keys, values))
        return values[order], keys[order]

    def counts(self) -> dict[str, int]:
        with self.snapshot():
            docs = self._q("SELECT count(*) FROM docs")[0][0]
            postings = self._q("SELECT count(*) FROM postings")[0][0]
            with self._lock:
                tail = self._read_tail()
            postings += 0 if tail is None else tail.runs.size
            links = self._q("SELECT count(*) FROM links")[0][0]
            groups = self._q(
                "SELECT count(*) FROM (SELECT grp FROM docs GROUP BY grp HAVING count(*) > 1)"
            )[0][0]
        return {"docs": docs, "postings": postings, "links": links, "groups": groups}

    def size_bytes(self) -> int | None:
        total = 0
        for suffix in ("", "-wal"):
            p = Path(str(self.path) + suffix)
            if p.exists():
                total += p.stat().st_size
        return total

    def _has_pmbf(self) -> bool:
        return bool(self._q("SELECT 1 FROM sqlite_master WHERE type='table' AND name='pmbf_rows'"))

    def pmbf_state(self) -> FilterState:
        with self.snapshot():
            if not self._has_pmbf():
                return FilterState.empty()
            return filter_from_records(self._q(PMBF_ROWS_QUERY), self._q(PMBF_PARTS_QUERY))

    # --- writes -----------------------------------------------------------------------------
    def write_pmbf(self, changes: FilterState, *, drop_keys: Sequence[int] = ()) -> None:
        self._require_tx()
        with self._errors():
            if not self._has_pmbf():
                for stmt in PMBF_SCHEMA.strip().split(";"):
                    if stmt.strip():
                        self._conn.execute(stmt)
            self._conn.executemany(
                "INSERT INTO pmbf_rows (row, bits, free) VALUES (?, ?, ?) ON CONFLICT (row) "
                "DO UPDATE SET bits = excluded.bits, free = excluded.free",
                rows_to_bytes(changes),
            )
            wanted = sorted({int(k) for k in drop_keys})
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                self._conn.execute(f"DELETE FROM pmbf_parts WHERE key IN ({marks})", chunk)
            self._conn.executemany(
                "INSERT INTO pmbf_parts (key, row, start, stop) VALUES (?, ?, ?, ?)",
                sorted_parts(changes.parts).tolist(),
            )

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
                        (
                            d.key,
                            d.id,
                            d.group,
                            d.size,
                            u64_to_bytes(d.values),
                            None if d.counts is None else i64_to_bytes(d.counts),
                            u64_to_bytes(d.samples),
                            dump_meta(d.meta),
                        )
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
            state = self._tail_state()
            if state is None:  # a file from before the tail: all its postings are merged
                self.write_meta({BELOW: str(min(d.key for d in docs)), EPOCH: "0"})
                state = self._tail_state()
                assert state is not None
            below = state[0]
            top = max(d.key for d in docs)
            if top - below + 1 > max(self.tail_min, below // TAIL_SHARE):
                self._merge_tail(top + 1)

    def _merge_tail(self, new_below: int) -> None:
        """Move the tail's postings (every key below ``new_below``) into the postings table."""
        with self._lock:
            tail = self._read_tail()
        if tail is None:
            return
        unsigned, keys = tail.runs.arrays()
        keep = keys < new_below
        values, keys = as_signed(unsigned[keep]), keys[keep]
        # sorted by (value, doc): the B-tree is written in one ordered pass
        _insert_pairs(self._conn, "postings (value, doc)", values, keys)
        with self._lock:
            if self._postings_filters() is not None:
                bloom = BloomFilter.of(distinct(as_unsigned(values)))
                self._conn.execute(
                    "INSERT INTO bloom (below, k, bits) VALUES (?, ?, ?)",
                    (new_below, bloom.k, bloom.to_bytes()),
                )
        epoch = tail.epoch
        self.write_meta({BELOW: str(new_below), EPOCH: str(epoch)})
        self._tail = _Tail(new_below, epoch)

    def delete(self, keys: Sequence[int]) -> None:
        self._require_tx()
        wanted = sorted({int(k) for k in keys})
        with self._errors():
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                rows = self._conn.execute(
                    f"SELECT key, samples FROM docs WHERE key IN ({marks})", chunk
                ).fetchall()
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
                if self._has_pmbf():
                    self._conn.execute(f"DELETE FROM pmbf_parts WHERE key IN ({marks})", chunk)
            state = self._tail_state()
            if state is not None and wanted:
                self.write_meta({EPOCH: str(state[1] + 1)})

    def add_links(self, links: Sequence[Link]) -> None:
        self._require_tx()
        with self._errors():
            self._conn.executemany(
                "INSERT OR REPLACE INTO links (a, b, resemblance, containment_ab, containment_ba) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    (lk.a, lk.b, lk.resemblance, lk.containment_ab, lk.containment_ba)
                    for lk in links
                ],
            )

    def set_groups(self, assignments: Mapping[int, int]) -> None:
        self._require_tx()
        with self._errors():
            self._conn.executemany(
                "UPDATE docs SET grp = ? WHERE key = ?",
                [(int(g), int(k)) for k, g in assignments.items()],
            )

    def relabel_groups(self, mapping: Mapping[int, int]) -> None:
        self._require_tx()
        with self._errors():
            self._conn.executemany(
                "UPDATE docs SET grp = ? WHERE grp = ?",
                [(int(new), int(old)) for old, new in mapping.items()],
            )

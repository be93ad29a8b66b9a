"""The PostgreSQL backend: a collection in a schema of a PostgreSQL database (psycopg 3).

For a shared service: many readers and writers on other machines. The location is a URL,
``postgresql://user[:password]@host:port/db?schema=NAME`` (``schema`` defaults to ``neardup``;
other query parameters go to libpq). The tables are those of the SQLite backend (see
:mod:`neardup.storage.sqlite`) with ``BIGINT`` and ``BYTEA`` columns, in that schema.

Writes: every transaction starts by locking the ``next_key`` row of ``meta`` (``SELECT … FOR
UPDATE``), so writers queue one after another (for at most ``timeout`` seconds, then a
StorageError saying the collection is locked) and each batch is decided against the state it
commits into; readers are never blocked (MVCC). Snapshots run at REPEATABLE READ. Postings are
written with a binary ``COPY`` built from numpy arrays in one piece.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np

from neardup._sorted import distinct
from neardup.errors import DuplicateIdError, InputError, StorageError, require
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

SCHEMA_SQL = [
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE docs (
        key BIGINT PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        grp BIGINT NOT NULL,
        size BIGINT NOT NULL,
        fp BYTEA NOT NULL,
        counts BYTEA,
        samples BYTEA NOT NULL,
        meta TEXT NOT NULL
    )""",
    "CREATE INDEX docs_grp ON docs (grp)",
    "CREATE TABLE texts (key BIGINT PRIMARY KEY, text TEXT NOT NULL)",
    "CREATE TABLE postings (value BIGINT NOT NULL, doc BIGINT NOT NULL, PRIMARY KEY (value, doc))",
    """CREATE TABLE links (
        a BIGINT NOT NULL,
        b BIGINT NOT NULL,
        resemblance DOUBLE PRECISION NOT NULL,
        containment_ab DOUBLE PRECISION NOT NULL,
        containment_ba DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (a, b)
    )""",
    "CREATE INDEX links_b ON links (b)",
]
#: The pseudo-matrix filter's rows and placement index (made on create; schemas from before
#: them get them on the first write of a filter, and read as an empty filter until then).
PMBF_SCHEMA_SQL = [
    "CREATE TABLE IF NOT EXISTS pmbf_rows "
    "(row BIGINT PRIMARY KEY, bits BYTEA NOT NULL, free BIGINT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS pmbf_parts (
        key BIGINT NOT NULL, row BIGINT NOT NULL, start BIGINT NOT NULL, stop BIGINT NOT NULL,
        PRIMARY KEY (key, start)
    )""",
]
SCHEMA_SQL += PMBF_SCHEMA_SQL

_SCHEMA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x00"
_COPY_TRAILER = b"\xff\xff"
_COPY_ROW = np.dtype([("n", ">i2"), ("l1", ">i4"), ("v", ">i8"), ("l2", ">i4"), ("k", ">i8")])

DEFAULT_TIMEOUT = 10.0


def first_line(exc: Exception) -> str:
    """What an error says, in one line (its class name when it says nothing)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def connect(url: str) -> tuple[Any, Any, str, str, str]:
    """psycopg, an autocommit connection to the server of ``url``, and :func:`parse_url`'s
    conninfo, schema and location (what every PostgreSQL store opens with); an unreachable
    server is a :class:`StorageError` naming the location, without its password."""
    psycopg: Any = require("psycopg", "postgres")
    conninfo, schema, location = parse_url(url)
    try:
        conn = psycopg.connect(conninfo, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        raise StorageError(
            f"cannot reach the PostgreSQL server of {location}: {first_line(exc)} "
            "(is the server running and the URL right?)"
        ) from None
    return psycopg, conn, conninfo, schema, location


def parse_url(url: str) -> tuple[str, str, str]:
    """``(conninfo for libpq, schema, location to show without a password)``."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a bad port raises here, not in libpq
    except ValueError as exc:
        raise InputError(
            f"the PostgreSQL URL is malformed ({exc}); expected "
            "postgresql://user@host:port/db?schema=NAME"
        ) from None
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = "neardup"
    rest = []
    for key, value in query:
        if key == "schema":
            schema = value
        else:
            rest.append((key, value))
    if not _SCHEMA_NAME.match(schema):
        raise InputError(f"the schema name {schema!r} must be letters, digits and _ (not first)")
    conninfo = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(rest), ""))
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        if ":" in user:
            user = user.split(":", 1)[0] + ":***"
        netloc = f"{user}@{host}"
    shown = urlunsplit(
        (parts.scheme, netloc, parts.path, urlencode([("schema", schema), *rest]), "")
    )
    return conninfo, schema, shown


def _binary_copy(values: I64, keys: I64) -> bytes:
    rows = np.empty(values.shape[0], dtype=_COPY_ROW)
    rows["n"] = 2
    rows["l1"] = 8
    rows["v"] = values
    rows["l2"] = 8
    rows["k"] = keys
    return _COPY_HEADER + rows.tobytes() + _COPY_TRAILER


class PostgresStorage(PagedScans):
    """A collection in a PostgreSQL schema."""

    PARAM = "%s"

    kind = "postgres"

    def __init__(self, url: str, *, create: bool = False, timeout: float | None = None) -> None:
        self._psycopg, self._conn, self.conninfo, self.schema, self.location = connect(url)
        self.timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        self._lock = threading.RLock()
        self._in_tx = False
        self._in_snapshot = False
        with self._errors():
            self._conn.execute(f"SET lock_timeout = '{int(self.timeout * 1000)}ms'")
            self._conn.execute(f"SET search_path TO {self._ident()}")
        if not create and not self.exists():
            self.close()
            raise InputError(
                f"no collection in schema {self.schema!r} of {self.location} "
                f"(make one with `neardup index create`)"
            )

    def _ident(self) -> str:
        return '"' + self.schema.replace('"', '""') + '"'

    # --- errors -----------------------------------------------------------------------------
    def _translate(self, exc: Exception) -> Exception:
        errors = self._psycopg.errors
        msg = first_line(exc)
        if isinstance(exc, errors.UniqueViolation):
            return DuplicateIdError(f"an id is already in the collection {self.location} ({msg})")
        if isinstance(exc, errors.LockNotAvailable | errors.DeadlockDetected):
            return StorageError(
                f"the collection {self.location} is locked: another process is writing to it and "
                f"did not finish within {self.timeout:g} s; try again later ({msg})"
            )
        if isinstance(exc, errors.ReadOnlySqlTransaction | errors.InsufficientPrivilege):
            return StorageError(f"the collection {self.location} cannot be changed: {msg}")
        if isinstance(exc, self._psycopg.OperationalError):
            return StorageError(f"lost the PostgreSQL server of {self.location}: {msg}")
        return StorageError(f"PostgreSQL error on {self.location}: {msg}")

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except self._psycopg.Error as exc:
            raise self._translate(exc) from None

    def _q(self, sql: str, params: Sequence[Any] | None = None) -> list[tuple[Any, ...]]:
        with self._errors():
            cur = self._conn.execute(sql, params)
            return cur.fetchall() if cur.description else []

    # --- lifecycle --------------------------------------------------------------------------
    def exists(self) -> bool:
        with self._lock:
            rows = self._q("SELECT to_regclass(%s)", (f"{self._ident()}.meta",))
            if not rows or rows[0][0] is None:
                return False
            return bool(self._q("SELECT 1 FROM meta WHERE key = 'format_version'"))

    def create(self, meta: Mapping[str, str]) -> None:
        with self._lock:
            if self.exists():
                raise StorageError(
                    f"a collection already exists in schema {self.schema!r} of {self.location}"
                )
            with self._errors(), self._conn.transaction():
                self._conn.execute(f"CREATE SCHEMA IF NOT EXISTS {self._ident()}")
                for stmt in SCHEMA_SQL:
                    self._conn.execute(stmt)
                with self._conn.cursor() as cur:
                    cur.executemany(
                        "INSERT INTO meta (key, value) VALUES (%s, %s)", sorted(meta.items())
                    )

    def drop(self) -> None:
        """Remove the schema and everything in it."""
        with self._lock, self._errors():
            self._conn.execute(f"DROP SCHEMA IF EXISTS {self._ident()} CASCADE")

    def read_meta(self) -> dict[str, str]:
        with self._lock:
            return {k: v for k, v in self._q("SELECT key, value FROM meta")}

    def write_meta(self, items: Mapping[str, str]) -> None:
        self._require_tx()
        with self._errors(), self._conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO meta (key, value) VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                sorted(items.items()),
            )

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            if self._in_tx or self._in_snapshot:
                raise StorageError("transactions do not nest")
            try:
                with self._conn.transaction():
                    self._in_tx = True
                    with self._errors():
                        self._conn.execute(
                            "SELECT value FROM meta WHERE key = 'next_key' FOR UPDATE"
                        )
                    yield
            except self._psycopg.Error as exc:
                raise self._translate(exc) from None
            finally:
                self._in_tx = False

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        with self._lock:
            if self._in_tx or self._in_snapshot:
                yield
                return
            try:
                with self._conn.transaction():
                    self._in_snapshot = True
                    with self._errors():
                        self._conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                    yield
            except self._psycopg.Error as exc:
                raise self._translate(exc) from None
            finally:
                self._in_snapshot = False

    def close(self) -> None:
        with self._lock:
            try:
                self._conn.close()
            except self._psycopg.Error:
                pass  # closing a broken connection: nothing left to release

    def _require_tx(self) -> None:
        if not self._in_tx:
            raise StorageError("writes must happen inside storage.transaction()")

    # --- reads ------------------------------------------------------------------------------
    def keys_for_ids(self, ids: Sequence[str]) -> dict[str, int]:
        if not ids:
            return {}
        with self._lock:
            return dict(
                self._q("SELECT id, key FROM docs WHERE id = ANY(%s::text[])", (list(ids),))
            )

    def postings(self, samples: U64, *, limit_per_value: int = 0) -> tuple[U64, I64]:
        wanted = as_signed(distinct(np.asarray(samples, dtype=np.uint64))).tolist()
        if not wanted:
            return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
        with self._lock:
            rows = self._q(
                "SELECT value, doc FROM postings WHERE value = ANY(%s::bigint[])", (wanted,)
            )
        if not rows:
            return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
        arr = np.array(rows, dtype=np.int64)
        return as_unsigned(arr[:, 0].copy()), arr[:, 1].copy()

    def packed_fingerprints(self, keys: Sequence[int]) -> PackedFingerprints:
        return PackedFingerprints.of(self.fingerprints(keys))

    def fingerprints(self, keys: Sequence[int]) -> list[StoredFingerprints]:
        wanted = sorted({int(k) for k in keys})
        if not wanted:
            return []
        with self._lock:
            rows = self._q(
                "SELECT key, fp, counts, samples FROM docs WHERE key = ANY(%s::bigint[]) "
                "ORDER BY key",
                (wanted,),
            )
        return [
            StoredFingerprints(k, u64_from_bytes(fp), i64_from_bytes(c), u64_from_bytes(s))
            for k, fp, c, s in rows
        ]

    def sizes(self, keys: Sequence[int]) -> dict[int, int]:
        wanted = sorted({int(k) for k in keys})
        if not wanted:
            return {}
        with self._lock:
            return dict(
                self._q("SELECT key, size FROM docs WHERE key = ANY(%s::bigint[])", (wanted,))
            )

    def max_key(self) -> int:
        with self._lock:
            return int(self._q("SELECT coalesce(max(key), 0) FROM docs")[0][0])

    def docs(self, keys: Sequence[int], *, text: bool = False, meta: bool = True) -> list[DocInfo]:
        wanted = sorted({int(k) for k in keys})
        if not wanted:
            return []
        meta_col = "d.meta" if meta else "NULL"
        text_col = "t.text" if text else "NULL"
        join = "LEFT JOIN texts t ON t.key = d.key " if text else ""
        sql = (
            f"SELECT d.key, d.id, d.grp, d.size, {meta_col}, {text_col} FROM docs d {join}"
            "WHERE d.key = ANY(%s::bigint[]) ORDER BY d.key"
        )
        with self._lock:
            rows = self._q(sql, (wanted,))
        return [DocInfo(k, i, g, s, load_meta(m), t) for k, i, g, s, m, t in rows]

    def group_members(self, groups: Sequence[int]) -> dict[int, list[int]]:
        wanted = sorted({int(g) for g in groups})
        out: dict[int, list[int]] = {}
        if not wanted:
            return out
        with self._lock:
            for grp, key in self._q(
                "SELECT grp, key FROM docs WHERE grp = ANY(%s::bigint[]) ORDER BY key", (wanted,)
            ):
                out.setdefault(grp, []).append(key)
        return out

    def group_sizes(self, groups: Sequence[int]) -> dict[int, int]:
        wanted = sorted({int(g) for g in groups})
        if not wanted:
            return {}
        with self._lock:
            return dict(
                self._q(
                    "SELECT grp, count(*) FROM docs WHERE grp = ANY(%s::bigint[]) GROUP BY grp",
                    (wanted,),
                )
            )

    def links_of(self, keys: Sequence[int]) -> list[Link]:
        wanted = sorted({int(k) for k in keys})
        if not wanted:
            return []
        cols = "a, b, resemblance, containment_ab, containment_ba"
        with self._lock:
            rows = self._q(
                f"SELECT {cols} FROM links WHERE a = ANY(%s::bigint[]) UNION "
                f"SELECT {cols} FROM links WHERE b = ANY(%s::bigint[]) ORDER BY a, b",
                (wanted, wanted),
            )
        return [Link(*r) for r in rows]

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
            groups = self._q(
                "SELECT count(*) FROM (SELECT grp FROM docs GROUP BY grp HAVING count(*) > 1) g"
            )[0][0]
        return {"docs": docs, "postings": postings, "links": links, "groups": groups}

    def size_bytes(self) -> int | None:
        with self._lock:
            rows = self._q(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = %s AND c.relkind = 'r'",
                (self.schema,),
            )
        return int(rows[0][0])

    # --- writes -----------------------------------------------------------------------------
    def insert(self, docs: Sequence[NewDoc]) -> None:
        self._require_tx()
        if not docs:
            return
        with self._errors(), self._conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO docs (key, id, grp, size, fp, counts, samples, meta) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
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
            texts = [(d.key, d.text) for d in docs if d.text is not None]
            if texts:
                cur.executemany("INSERT INTO texts (key, text) VALUES (%s, %s)", texts)
            values = as_signed(np.concatenate([d.samples for d in docs]).astype(np.uint64))
            keys = np.concatenate(
                [np.full(d.samples.shape[0], d.key, dtype=np.int64) for d in docs]
            )
            if values.shape[0]:
                with cur.copy("COPY postings (value, doc) FROM STDIN WITH (FORMAT BINARY)") as copy:
                    copy.write(_binary_copy(values, keys))

    def delete(self, keys: Sequence[int]) -> None:
        self._require_tx()
        wanted = sorted({int(k) for k in keys})
        if not wanted:
            return
        with self._errors():
            rows = self._conn.execute(
                "SELECT key, samples FROM docs WHERE key = ANY(%s::bigint[])", (wanted,)
            ).fetchall()
            vals: list[int] = []
            ks: list[int] = []
            for key, samples in rows:
                s = as_signed(u64_from_bytes(samples)).tolist()
                vals.extend(s)
                ks.extend([key] * len(s))
            self._conn.execute(
                "DELETE FROM postings p USING unnest(%s::bigint[], %s::bigint[]) AS d(value, doc) "
                "WHERE p.value = d.value AND p.doc = d.doc",
                (vals, ks),
            )
            self._conn.execute(
                "DELETE FROM links WHERE a = ANY(%s::bigint[]) OR b = ANY(%s::bigint[])",
                (wanted, wanted),
            )
            self._conn.execute("DELETE FROM texts WHERE key = ANY(%s::bigint[])", (wanted,))
            self._conn.execute("DELETE FROM docs WHERE key = ANY(%s::bigint[])", (wanted,))
            if self._has_pmbf():
                self._conn.execute(
                    "DELETE FROM pmbf_parts WHERE key = ANY(%s::bigint[])", (wanted,)
                )

    def _has_pmbf(self) -> bool:
        rows = self._q("SELECT to_regclass(%s)", (f"{self._ident()}.pmbf_rows",))
        return bool(rows and rows[0][0] is not None)

    def pmbf_state(self) -> FilterState:
        with self.snapshot(), self._lock:
            if not self._has_pmbf():
                return FilterState.empty()
            return filter_from_records(self._q(PMBF_ROWS_QUERY), self._q(PMBF_PARTS_QUERY))

    def write_pmbf(self, changes: FilterState, *, drop_keys: Sequence[int] = ()) -> None:
        self._require_tx()
        with self._errors(), self._conn.cursor() as cur:
            if not self._has_pmbf():
                for stmt in PMBF_SCHEMA_SQL:
                    cur.execute(stmt)
            cur.executemany(
                "INSERT INTO pmbf_rows (row, bits, free) VALUES (%s, %s, %s) ON CONFLICT (row) "
                "DO UPDATE SET bits = excluded.bits, free = excluded.free",
                rows_to_bytes(changes),
            )
            wanted = sorted({int(k) for k in drop_keys})
            if wanted:
                cur.execute("DELETE FROM pmbf_parts WHERE key = ANY(%s::bigint[])", (wanted,))
            cur.executemany(
                "INSERT INTO pmbf_parts (key, row, start, stop) VALUES (%s, %s, %s, %s)",
                sorted_parts(changes.parts).tolist(),
            )

    def add_links(self, links: Sequence[Link]) -> None:
        self._require_tx()
        if not links:
            return
        with self._errors(), self._conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO links (a, b, resemblance, containment_ab, containment_ba) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (a, b) DO UPDATE SET "
                "resemblance = excluded.resemblance, containment_ab = excluded.containment_ab, "
                "containment_ba = excluded.containment_ba",
                [
                    (lk.a, lk.b, lk.resemblance, lk.containment_ab, lk.containment_ba)
                    for lk in links
                ],
            )

    def set_groups(self, assignments: Mapping[int, int]) -> None:
        self._require_tx()
        if not assignments:
            return
        keys = [int(k) for k in assignments]
        groups = [int(g) for g in assignments.values()]
        with self._errors():
            self._conn.execute(
                "UPDATE docs SET grp = d.grp "
                "FROM unnest(%s::bigint[], %s::bigint[]) AS d(key, grp) "
                "WHERE docs.key = d.key",
                (keys, groups),
            )

    def relabel_groups(self, mapping: Mapping[int, int]) -> None:
        self._require_tx()
        if not mapping:
            return
        old = [int(k) for k in mapping]
        new = [int(v) for v in mapping.values()]
        with self._errors():
            self._conn.execute(
                "UPDATE docs SET grp = d.new "
                "FROM unnest(%s::bigint[], %s::bigint[]) AS d(old, new) "
                "WHERE docs.grp = d.old",
                (old, new),
            )

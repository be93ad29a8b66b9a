"""The connection to a SQLite collection file: opening it, errors, meta, transactions and
snapshots."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from neardup.errors import DamagedCollectionError, DuplicateIdError, InputError, StorageError
from neardup.storage.base import (
    I64,
    PagedScans,
)
from neardup.storage.bloom import BloomFilter
from neardup.storage.sqlite.rows import _Tail
from neardup.storage.sqlite.schema import (
    _NO_I64,
    BELOW,
    DEFAULT_TIMEOUT,
    EPOCH,
    SCHEMA,
    SYNCHRONOUS,
    TAIL_MIN,
)


class SQLiteConnection(PagedScans):
    """The connection to a SQLite collection file, the base of
    :class:`~neardup.storage.sqlite.SQLiteStorage`."""

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
        try:
            self.readonly = self._check_path(create, readonly)
        except OSError as exc:  # a folder on the way this user may not search or read
            raise InputError(
                f"cannot open the collection at {self.path}: {exc.strerror or exc}; check that "
                "you may read its folder",
                code="path_denied",
                params={"path": str(self.path), "reason": exc.strerror or str(exc), "verb": "open"},
            ) from None
        readonly = self.readonly
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

    def _check_path(self, create: bool, readonly: bool | None) -> bool:
        """Refuse a path that cannot be this collection's file; whether it opens read-only."""
        if self.path.is_dir():
            raise InputError(
                f"{self.path} is a directory, not a collection file",
                code="is_directory",
                params={"path": str(self.path)},
            )
        if not create and not self.path.exists():
            raise InputError(
                f"no collection at {self.path}: the file does not exist "
                f"(make one with `neardup index create {self.path}`)",
                code="no_collection",
                params={"path": str(self.path)},
            )
        if create and self.path.exists() and self.path.stat().st_size > 0:
            raise StorageError(
                f"{self.path} already exists; choose a new path or remove it first",
                code="already_exists",
                params={"path": str(self.path)},
            )
        if readonly is None:
            # a file nobody may write (chmod a-w) is read-only even for root, who may write anyway
            readonly = not create and (
                not os.access(self.path, os.W_OK) or not self.path.stat().st_mode & 0o222
            )
        return readonly

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

"""An LSH index's store in a SQLite file (the standard library's ``sqlite3``).

Tables: ``lsh_meta (key, value)`` for the parameters and ``lsh_entries (seq, key, signature,
fp_values, fp_counts)``, ``seq`` giving the order entries were added. Every call is one
transaction; the file is in WAL mode, so readers in other processes are not blocked.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from neardup.errors import DuplicateIdError, NotFoundError, StorageError
from neardup.lsh.store_base import Entry

SCHEMA_SQL = [
    "CREATE TABLE IF NOT EXISTS lsh_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS lsh_entries (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        key TEXT NOT NULL UNIQUE,
        signature BLOB NOT NULL,
        fp_values BLOB,
        fp_counts BLOB
    )""",
]

TIMEOUT = 10.0


class SQLiteStore:
    """An index's documents and parameters in a SQLite file (made when missing)."""

    kind = "sqlite"

    def __init__(self, path: str | Path, *, timeout: float = TIMEOUT) -> None:
        self.location = str(path)
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(
                self.location, timeout=timeout, isolation_level=None, check_same_thread=False
            )
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("BEGIN IMMEDIATE")
            for stmt in SCHEMA_SQL:
                self._conn.execute(stmt)
            self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open the LSH store {self.location}: {exc}") from None

    def _fail(self, exc: sqlite3.Error) -> StorageError:
        if "locked" in str(exc) or "busy" in str(exc):
            return StorageError(
                f"the LSH store {self.location} is locked: another process is writing to it; "
                f"try again later ({exc})"
            )
        return StorageError(f"SQLite error on the LSH store {self.location}: {exc}")

    def read_params(self) -> dict[str, str]:
        with self._lock:
            try:
                rows = self._conn.execute("SELECT key, value FROM lsh_meta").fetchall()
            except sqlite3.Error as exc:
                raise self._fail(exc) from None
        return {str(k): str(v) for k, v in rows}

    def write_params(self, params: Mapping[str, str]) -> None:
        with self._lock:
            try:
                with self._conn:
                    self._conn.execute("BEGIN IMMEDIATE")
                    self._conn.executemany(
                        "INSERT OR REPLACE INTO lsh_meta (key, value) VALUES (?, ?)",
                        sorted(params.items()),
                    )
            except sqlite3.Error as exc:
                raise self._fail(exc) from None

    def load(self) -> list[Entry]:
        with self._lock:
            try:
                rows = self._conn.execute(
                    "SELECT key, signature, fp_values, fp_counts FROM lsh_entries ORDER BY seq"
                ).fetchall()
            except sqlite3.Error as exc:
                raise self._fail(exc) from None
        return [Entry(str(k), bytes(s), _opt(v), _opt(c)) for k, s, v, c in rows]

    def put(self, entries: Sequence[Entry], *, replace: bool = False) -> None:
        rows = [(e.key, e.signature, e.values, e.counts) for e in entries]
        with self._lock:
            try:
                with self._conn:
                    self._conn.execute("BEGIN IMMEDIATE")
                    if replace:
                        self._conn.executemany(
                            "DELETE FROM lsh_entries WHERE key = ?", [(r[0],) for r in rows]
                        )
                    self._conn.executemany(
                        "INSERT INTO lsh_entries (key, signature, fp_values, fp_counts) "
                        "VALUES (?, ?, ?, ?)",
                        rows,
                    )
            except sqlite3.IntegrityError as exc:
                raise DuplicateIdError(
                    f"a key is already in the LSH store {self.location} ({exc})"
                ) from None
            except sqlite3.Error as exc:
                raise self._fail(exc) from None

    def delete(self, keys: Sequence[str]) -> None:
        with self._lock:
            try:
                with self._conn:
                    self._conn.execute("BEGIN IMMEDIATE")
                    for key in keys:
                        cur = self._conn.execute("DELETE FROM lsh_entries WHERE key = ?", (key,))
                        if cur.rowcount != 1:
                            raise NotFoundError(f"key {key} is not in the LSH store")
            except sqlite3.Error as exc:
                raise self._fail(exc) from None

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _opt(value: bytes | None) -> bytes | None:
    return None if value is None else bytes(value)

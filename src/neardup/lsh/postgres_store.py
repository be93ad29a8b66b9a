"""An LSH index's store in a schema of a PostgreSQL database (psycopg 3).

The location is a URL as the collection backend takes it (:func:`neardup.storage.postgres.
parse_url`): ``postgresql://user@host:port/db?schema=NAME``, ``schema`` defaulting to
``neardup``. The tables are those of the SQLite store (:mod:`neardup.lsh.sqlite_store`) with
``BIGINT`` identity and ``BYTEA`` columns; they sit beside a collection's tables without
touching them. Writers of one index queue on a row lock of ``lsh_meta`` for at most
``timeout`` seconds.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from neardup.errors import DuplicateIdError, NotFoundError, StorageError
from neardup.lsh.store_base import Entry
from neardup.storage.postgres import DEFAULT_TIMEOUT, connect, first_line

SCHEMA_SQL = [
    "CREATE TABLE IF NOT EXISTS lsh_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS lsh_entries (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        signature BYTEA NOT NULL,
        fp_values BYTEA,
        fp_counts BYTEA
    )""",
    "INSERT INTO lsh_meta (key, value) VALUES ('lock', '') ON CONFLICT (key) DO NOTHING",
]


class PostgresStore:
    """An index's documents and parameters in a PostgreSQL schema (made when missing)."""

    kind = "postgres"

    def __init__(self, url: str, *, timeout: float | None = None) -> None:
        self._psycopg, self._conn, self.conninfo, self.schema, self.location = connect(url)
        self.timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        self._lock = threading.RLock()
        ident = '"' + self.schema.replace('"', '""') + '"'
        with self._errors():
            self._conn.execute(f"SET lock_timeout = '{int(self.timeout * 1000)}ms'")
            with self._conn.transaction():
                self._conn.execute(f"CREATE SCHEMA IF NOT EXISTS {ident}")
                self._conn.execute(f"SET search_path TO {ident}")
                for stmt in SCHEMA_SQL:
                    self._conn.execute(stmt)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        psycopg = self._psycopg
        try:
            yield
        except psycopg.errors.UniqueViolation as exc:
            raise DuplicateIdError(
                f"a key is already in the LSH store {self.location} ({first_line(exc)})"
            ) from None
        except (psycopg.errors.LockNotAvailable, psycopg.errors.DeadlockDetected) as exc:
            raise StorageError(
                f"the LSH store {self.location} is locked: another process is writing to it and "
                f"did not finish within {self.timeout:g} s; try again later ({first_line(exc)})"
            ) from None
        except psycopg.OperationalError as exc:
            raise StorageError(
                f"lost the PostgreSQL server of {self.location}: {first_line(exc)}"
            ) from None
        except psycopg.Error as exc:
            raise StorageError(f"PostgreSQL error on {self.location}: {first_line(exc)}") from None

    @contextmanager
    def _write(self) -> Iterator[Any]:
        with self._lock, self._errors(), self._conn.transaction():
            self._conn.execute("SELECT value FROM lsh_meta WHERE key = 'lock' FOR UPDATE")
            with self._conn.cursor() as cur:
                yield cur

    def read_params(self) -> dict[str, str]:
        with self._lock, self._errors():
            rows = self._conn.execute("SELECT key, value FROM lsh_meta").fetchall()
        return {str(k): str(v) for k, v in rows if k != "lock"}

    def write_params(self, params: Mapping[str, str]) -> None:
        with self._write() as cur:
            cur.executemany(
                "INSERT INTO lsh_meta (key, value) VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                sorted(params.items()),
            )

    def load(self) -> list[Entry]:
        with self._lock, self._errors():
            rows = self._conn.execute(
                "SELECT key, signature, fp_values, fp_counts FROM lsh_entries ORDER BY seq"
            ).fetchall()
        return [Entry(str(k), bytes(s), _opt(v), _opt(c)) for k, s, v, c in rows]

    def put(self, entries: Sequence[Entry], *, replace: bool = False) -> None:
        rows = [(e.key, e.signature, e.values, e.counts) for e in entries]
        with self._write() as cur:
            if replace:
                cur.execute(
                    "DELETE FROM lsh_entries WHERE key = ANY(%s::text[])", ([r[0] for r in rows],)
                )
            cur.executemany(
                "INSERT INTO lsh_entries (key, signature, fp_values, fp_counts) "
                "VALUES (%s, %s, %s, %s)",
                rows,
            )

    def delete(self, keys: Sequence[str]) -> None:
        with self._write() as cur:
            cur.execute("DELETE FROM lsh_entries WHERE key = ANY(%s::text[])", (list(keys),))
            if cur.rowcount != len(set(keys)):
                raise NotFoundError(f"a key of {list(keys)[:3]} is not in the LSH store")

    def drop(self) -> None:
        """Remove the index's tables (not the schema: it may hold a collection)."""
        with self._lock, self._errors():
            self._conn.execute("DROP TABLE IF EXISTS lsh_entries, lsh_meta")

    def close(self) -> None:
        with self._lock:
            try:
                self._conn.close()
            except self._psycopg.Error:
                pass  # closing a broken connection: nothing left to release


def _opt(value: bytes | memoryview | None) -> bytes | None:
    return None if value is None else bytes(value)

"""Kept checks in a SQL collection (SQLite file or PostgreSQL schema): a ``kept_checks`` table
beside the collection's, over the collection's own connection (its lock and its error
translation). The two dialects differ in their placeholder, their float type and when the
table is made: PostgreSQL makes it on first use; a SQLite file makes it on the first write
only, so that a read-only file can still be read (it then holds no kept checks).

Beside it: ``kept_sources`` holds each source's text once by its SHA-256 (a check's body names
the digest; ``kept_check_sources`` links them, and a text no check names is dropped with its
last check), ``kept_checks_gone`` the checks removed for room, and each row's ``size`` (its
body and its sources' texts, in bytes) is what the quotas add up."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from neardup.storage.kept_checks import (
    KeptCheck,
    KeptSummary,
    plain_text,
    preview,
    referenced_sources,
    restore_sources,
    shared_sources,
    stored_text,
)

#: The columns a listing reads, and a check's own.
_LISTED = ("id", "created", "owner", "name", "uniqueness", "preview")
_CHECK = ("id", "created", "owner", "name", "spec", "body")
#: The text columns, which a damaged SQLite row may hold as bytes that are not UTF-8: read as
#: bytes (decoded by the store's own rules), so that one damaged row does not fail the query.
_TEXT = frozenset({"id", "owner", "name", "spec", "preview", "body"})
_SQLITE_TABLE = "SELECT 1 FROM sqlite_master WHERE type='table' AND name='kept_checks'"
#: The quotas read ``(id, size)`` newest first from these, never the rows' bodies.
_SIZE_INDEXES = (
    "CREATE INDEX IF NOT EXISTS kept_checks_sizes ON kept_checks (created, id, size)",
    "CREATE INDEX IF NOT EXISTS kept_checks_owner_sizes ON kept_checks (owner, created, id, size)",
)
_SQLITE_GONE = "SELECT 1 FROM sqlite_master WHERE type='table' AND name='kept_checks_gone'"


def _schema(real: str) -> tuple[str, ...]:
    return (
        f"CREATE TABLE IF NOT EXISTS kept_checks (id TEXT PRIMARY KEY, created {real} NOT NULL, "
        f"owner TEXT NOT NULL, name TEXT NOT NULL, spec TEXT NOT NULL, uniqueness {real} "
        "NOT NULL, preview TEXT NOT NULL, body TEXT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS kept_checks_created ON kept_checks (created)",
        "CREATE INDEX IF NOT EXISTS kept_checks_owner ON kept_checks (owner, created)",
        # the checks removed for room, so that their page can say so (purged with age)
        f"CREATE TABLE IF NOT EXISTS kept_checks_gone (id TEXT PRIMARY KEY, gone {real} NOT NULL)",
        # the sources' texts, each once whatever the number of checks that show it
        "CREATE TABLE IF NOT EXISTS kept_sources (digest TEXT PRIMARY KEY, text TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS kept_check_sources (check_id TEXT NOT NULL, digest TEXT "
        "NOT NULL, PRIMARY KEY (check_id, digest))",
        "CREATE INDEX IF NOT EXISTS kept_check_sources_digest ON kept_check_sources (digest)",
    )


class SQLCheckStore:
    """:class:`~neardup.storage.kept_checks.CheckStore` in a collection's SQLite file or PostgreSQL
    schema (``storage``: its ``SQLiteConnection`` or ``PostgresStorage``)."""

    def __init__(self, storage: Any) -> None:
        self.storage = storage
        self._sqlite = storage.kind == "sqlite"
        self._p = "?" if self._sqlite else "%s"
        self._schema = _schema("REAL" if self._sqlite else "DOUBLE PRECISION")
        self._ready = False
        self._seen = False
        # a row's bytes as stored: SQLite counts a text's characters, its blob's bytes
        self._size = "length(CAST(body AS BLOB))" if self._sqlite else "octet_length(body)"

    def _sql(self, text: str) -> str:
        return text.replace("?", self._p)

    def _columns(self, names: tuple[str, ...]) -> str:
        if not self._sqlite:
            return ", ".join(names)
        return ", ".join(f"CAST({n} AS BLOB)" if n in _TEXT else n for n in names)

    def _table(self) -> None:
        if self._ready:
            return
        with self.storage._lock, self.storage._errors():
            conn = self.storage._conn
            for stmt in self._schema:
                conn.execute(stmt)
            # each row's bytes, its sources' texts counted (what the quotas add up), read
            # from an index that holds it: a table made before it had none, so it is added
            # and filled from the bodies once
            if not self._has_size():
                exists = "" if self._sqlite else "IF NOT EXISTS "  # workers may race here
                conn.execute(f"ALTER TABLE kept_checks ADD COLUMN {exists}size BIGINT")
                conn.execute(f"UPDATE kept_checks SET size = {self._size} WHERE size IS NULL")
            for stmt in _SIZE_INDEXES:
                conn.execute(stmt)
        self._ready = True

    def _has_size(self) -> bool:
        if self._sqlite:
            found = self.storage._q("SELECT name FROM pragma_table_info('kept_checks')")
        else:
            found = self.storage._q(
                "SELECT column_name FROM information_schema.columns WHERE table_name = "
                "'kept_checks' AND table_schema = current_schema()"
            )
        return any(stored_text(row[0]) == "size" for row in found)

    def _readable(self, probe: str = _SQLITE_TABLE) -> bool:
        """Whether there is a table to read (see the module docstring); ``probe``: which."""
        if self._ready or (self._seen and probe == _SQLITE_TABLE):
            return True
        if not self._sqlite:
            self._table()
            return True
        with self.storage._lock:
            there = bool(self.storage._q(probe))
        if probe == _SQLITE_TABLE:
            self._seen = there
        return there

    def keep(self, check: KeptCheck) -> None:
        self._table()
        result, texts = shared_sources(check.result)
        check = dataclasses.replace(check, result=result)
        body = check.body()
        with self.storage._lock, self.storage._errors():
            for digest, text in texts.items():
                self.storage._conn.execute(
                    self._sql(
                        "INSERT INTO kept_sources (digest, text) VALUES (?, ?) "
                        "ON CONFLICT (digest) DO NOTHING"
                    ),
                    (digest, text),
                )
                self.storage._conn.execute(
                    self._sql(
                        "INSERT INTO kept_check_sources (check_id, digest) VALUES (?, ?) "
                        "ON CONFLICT (check_id, digest) DO NOTHING"
                    ),
                    (check.id, digest),
                )
            self.storage._conn.execute(
                self._sql(
                    "INSERT INTO kept_checks (id, created, owner, name, spec, uniqueness, "
                    "preview, body, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                ),
                (
                    check.id,
                    check.created,
                    check.owner,
                    plain_text(check.name),
                    check.spec,
                    check.uniqueness,
                    plain_text(preview(check.text)),
                    body,
                    len(body.encode("utf-8", "surrogatepass"))
                    + sum(len(t.encode("utf-8", "surrogatepass")) for t in texts.values()),
                ),
            )

    def get(self, check_id: str) -> KeptCheck | None:
        if not self._readable():
            return None
        with self.storage._lock:
            rows = self.storage._q(
                self._sql(f"SELECT {self._columns(_CHECK)} FROM kept_checks WHERE id = ?"),
                (check_id,),
            )
        if not rows:
            return None
        found = KeptCheck.from_row(*rows[0])
        wanted = referenced_sources(found.result)
        if not wanted:
            return found
        texts: dict[str, str] = {}
        with self.storage._lock:
            for digest in sorted(wanted):
                got = self.storage._q(
                    self._sql("SELECT text FROM kept_sources WHERE digest = ?"), (digest,)
                )
                text = stored_text(got[0][0]) if got else None
                if text is not None:
                    texts[digest] = text
        return dataclasses.replace(found, result=restore_sources(found.result, texts))

    def owner(self, check_id: str) -> str | None:
        if not self._readable():
            return None
        with self.storage._lock:
            rows = self.storage._q(
                self._sql(f"SELECT {self._columns(('owner',))} FROM kept_checks WHERE id = ?"),
                (check_id,),
            )
        return (stored_text(rows[0][0]) or "") if rows else None

    def list(
        self, *, owner: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[KeptSummary]:
        if not self._readable():
            return []
        where, params = ("WHERE owner = ?", (owner,)) if owner is not None else ("", ())
        with self.storage._lock:
            rows = self.storage._q(
                self._sql(
                    f"SELECT {self._columns(_LISTED)} FROM kept_checks {where} "
                    "ORDER BY created DESC, id LIMIT ? OFFSET ?"
                ),
                (*params, int(limit), int(offset)),
            )
        listed = [(stored_text(r[0]), r[1:]) for r in rows]
        # a row whose id is not text cannot be asked for by its id: it is left out
        return [KeptSummary.from_row(i, *rest) for i, rest in listed if i is not None]

    def _delete(self, where: str, value: object) -> int:
        self._table()  # a file written before the sources' texts were shared had no such table
        with self.storage._lock, self.storage._errors():
            conn = self.storage._conn
            conn.execute(
                self._sql(
                    "DELETE FROM kept_check_sources WHERE check_id IN "
                    f"(SELECT id FROM kept_checks WHERE {where})"
                ),
                (value,),
            )
            cur = conn.execute(self._sql(f"DELETE FROM kept_checks WHERE {where}"), (value,))
            conn.execute(
                "DELETE FROM kept_sources WHERE NOT EXISTS (SELECT 1 FROM kept_check_sources l "
                "WHERE l.digest = kept_sources.digest)"
            )
            return int(cur.rowcount)

    def delete(self, check_id: str) -> bool:
        return self._readable() and self._delete("id = ?", check_id) > 0

    def purge(self, before: float) -> int:
        if not self._readable():
            return 0
        self._table()  # a file written before the marks of checks gone for room had them
        with self.storage._lock, self.storage._errors():
            self.storage._conn.execute(
                self._sql("DELETE FROM kept_checks_gone WHERE gone < ?"), (float(before),)
            )
        return self._delete("created < ?", float(before))

    def sizes(self, owner: str | None = None) -> Sequence[tuple[str, int]]:
        if not self._readable():
            return []
        where, params = ("WHERE owner = ?", (owner,)) if owner is not None else ("", ())
        with self.storage._lock:
            rows = self.storage._q(
                self._sql(
                    f"SELECT {self._columns(('id',))}, size FROM kept_checks {where} "
                    "ORDER BY created DESC, id"
                ),
                params,
            )
        listed = [(stored_text(r[0]), int(r[1] or 0)) for r in rows]
        return [(i, size) for i, size in listed if i is not None]

    def evict(self, ids: Sequence[str], when: float) -> int:
        if not ids:
            return 0
        self._table()
        removed = 0
        for check_id in ids:
            if not self._delete("id = ?", check_id):
                continue
            removed += 1
            with self.storage._lock, self.storage._errors():
                self.storage._conn.execute(
                    self._sql("DELETE FROM kept_checks_gone WHERE id = ?"), (check_id,)
                )
                self.storage._conn.execute(
                    self._sql("INSERT INTO kept_checks_gone (id, gone) VALUES (?, ?)"),
                    (check_id, float(when)),
                )
        return removed

    def gone(self, check_id: str) -> bool:
        if not self._readable(_SQLITE_GONE):
            return False
        with self.storage._lock:
            rows = self.storage._q(
                self._sql("SELECT 1 FROM kept_checks_gone WHERE id = ?"), (check_id,)
            )
        return bool(rows)

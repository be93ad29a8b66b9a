"""Kept checks in a SQL collection (SQLite file or PostgreSQL schema): a ``kept_checks`` table
beside the collection's, over the collection's own connection (its lock and its error
translation). The two dialects differ in their placeholder, their float type and when the
table is made: PostgreSQL makes it on first use; a SQLite file makes it on the first write
only, so that a read-only file can still be read (it then holds no kept checks)."""

from __future__ import annotations

from typing import Any

from neardup.storage.kept_checks import KeptCheck, KeptSummary, plain_text, preview, stored_text

#: The columns a listing reads, and a check's own.
_LISTED = ("id", "created", "owner", "name", "uniqueness", "preview")
_CHECK = ("id", "created", "owner", "name", "spec", "body")
#: The text columns, which a damaged SQLite row may hold as bytes that are not UTF-8: read as
#: bytes (decoded by the store's own rules), so that one damaged row does not fail the query.
_TEXT = frozenset({"id", "owner", "name", "spec", "preview", "body"})
_SQLITE_TABLE = "SELECT 1 FROM sqlite_master WHERE type='table' AND name='kept_checks'"


def _schema(real: str) -> tuple[str, ...]:
    return (
        f"CREATE TABLE IF NOT EXISTS kept_checks (id TEXT PRIMARY KEY, created {real} NOT NULL, "
        f"owner TEXT NOT NULL, name TEXT NOT NULL, spec TEXT NOT NULL, uniqueness {real} "
        "NOT NULL, preview TEXT NOT NULL, body TEXT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS kept_checks_created ON kept_checks (created)",
        "CREATE INDEX IF NOT EXISTS kept_checks_owner ON kept_checks (owner, created)",
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
            for stmt in self._schema:
                self.storage._conn.execute(stmt)
        self._ready = True

    def _readable(self) -> bool:
        """Whether there is a table to read (see the module docstring)."""
        if self._ready:
            return True
        if not self._sqlite:
            self._table()
            return True
        with self.storage._lock:
            self._ready = bool(self.storage._q(_SQLITE_TABLE))
        return self._ready

    def keep(self, check: KeptCheck) -> None:
        self._table()
        with self.storage._lock, self.storage._errors():
            self.storage._conn.execute(
                self._sql(
                    "INSERT INTO kept_checks (id, created, owner, name, spec, uniqueness, "
                    "preview, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                ),
                (
                    check.id,
                    check.created,
                    check.owner,
                    plain_text(check.name),
                    check.spec,
                    check.uniqueness,
                    plain_text(preview(check.text)),
                    check.body(),
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
        return KeptCheck.from_row(*rows[0]) if rows else None

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
        with self.storage._lock, self.storage._errors():
            cur = self.storage._conn.execute(
                self._sql(f"DELETE FROM kept_checks WHERE {where}"), (value,)
            )
            return int(cur.rowcount)

    def delete(self, check_id: str) -> bool:
        return self._readable() and self._delete("id = ?", check_id) > 0

    def purge(self, before: float) -> int:
        return self._delete("created < ?", float(before)) if self._readable() else 0

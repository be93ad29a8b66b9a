"""Kept checks in a PostgreSQL collection: a ``kept_checks`` table in the collection's schema,
over the collection's own connection (its lock and its error translation)."""

from __future__ import annotations

from neardup.storage.checks import KeptCheck, KeptSummary, plain_text, preview
from neardup.storage.postgres import PostgresStorage

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS kept_checks (id TEXT PRIMARY KEY, "
    "created DOUBLE PRECISION NOT NULL, owner TEXT NOT NULL, name TEXT NOT NULL, "
    "spec TEXT NOT NULL, uniqueness DOUBLE PRECISION NOT NULL, preview TEXT NOT NULL, "
    "body TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS kept_checks_created ON kept_checks (created)",
    "CREATE INDEX IF NOT EXISTS kept_checks_owner ON kept_checks (owner, created)",
)

_COLUMNS = "id, created, owner, name, uniqueness, preview"


class PostgresCheckStore:
    """:class:`~neardup.storage.checks.CheckStore` in the collection's PostgreSQL schema."""

    def __init__(self, storage: PostgresStorage) -> None:
        self.storage = storage
        self._ready = False

    def _table(self) -> None:
        if self._ready:
            return
        with self.storage._lock, self.storage._errors():
            for stmt in SCHEMA:
                self.storage._conn.execute(stmt)
        self._ready = True

    def keep(self, check: KeptCheck) -> None:
        self._table()
        with self.storage._lock, self.storage._errors():
            self.storage._conn.execute(
                "INSERT INTO kept_checks (id, created, owner, name, spec, uniqueness, preview, "
                "body) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
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
        self._table()
        with self.storage._lock:
            rows = self.storage._q(
                "SELECT id, created, owner, name, spec, body FROM kept_checks WHERE id = %s",
                (check_id,),
            )
        return KeptCheck.from_row(*rows[0]) if rows else None

    def list(
        self, *, owner: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[KeptSummary]:
        self._table()
        where, params = ("WHERE owner = %s", (owner,)) if owner is not None else ("", ())
        rows = self.storage._q(
            f"SELECT {_COLUMNS} FROM kept_checks {where} "
            "ORDER BY created DESC, id LIMIT %s OFFSET %s",
            (*params, int(limit), int(offset)),
        )
        return [KeptSummary(r[0], float(r[1]), r[2], r[3], float(r[4]), r[5]) for r in rows]

    def delete(self, check_id: str) -> bool:
        self._table()
        with self.storage._lock, self.storage._errors():
            cur = self.storage._conn.execute("DELETE FROM kept_checks WHERE id = %s", (check_id,))
            return bool(cur.rowcount)

    def purge(self, before: float) -> int:
        self._table()
        with self.storage._lock, self.storage._errors():
            cur = self.storage._conn.execute(
                "DELETE FROM kept_checks WHERE created < %s", (float(before),)
            )
            return int(cur.rowcount)

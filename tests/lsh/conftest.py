"""Stores for the LSH index's conformance suite: memory, SQLite (a temp file) and the real
PostgreSQL (a schema of its own per test, dropped afterwards; see tests/storage/_postgres.py
for the server URL and what happens when it cannot be reached)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from neardup.lsh import LSHStore, MemoryStore
from tests.storage._postgres import PG_URL, drop_schemas, postgres_or_fail, unique_schema


@dataclass
class Place:
    """Where a test's index lives: what ``LSHIndex(store=...)`` takes, the same again to
    reopen (the memory store object itself, or its location)."""

    kind: str
    target: str | LSHStore

    def fresh(self) -> str | LSHStore:
        """Another, empty place of the same kind (for a second index in one test)."""
        if isinstance(self.target, MemoryStore):
            return MemoryStore()
        if self.kind == "sqlite":
            return str(Path(str(self.target)).with_name("other.db"))
        return str(self.target).replace("?schema=", "?schema=o")


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def place(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Place]:
    kind = request.param
    if kind == "memory":
        yield Place("memory", MemoryStore())
        return
    if kind == "sqlite":
        yield Place("sqlite", str(tmp_path / "lsh.db"))
        return
    postgres_or_fail()
    schema = unique_schema()
    yield Place("postgres", f"{PG_URL}?schema={schema}")
    drop_schemas(schema, f"o{schema}")

"""Backends for the conformance suite: memory, SQLite (a temp file) and the real PostgreSQL.

PostgreSQL: ``NEARDUP_TEST_POSTGRES_URL`` (default ``postgresql://postgres@127.0.0.1:5432/test``).
Each test gets its own schema (pid, counter, clock) and drops it afterwards, so parallel runs do
not collide. A server that cannot be reached FAILS the test with a message saying so, unless
``NEARDUP_SKIP_POSTGRES=1`` is set, which skips it instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from neardup.storage import Storage, open_storage
from neardup.storage.memory import MemoryStorage
from tests.storage._postgres import PG_URL, drop_schemas, postgres_or_fail, unique_schema


@dataclass
class Backend:
    """How a test reaches one backend: a location to create at, and reopening it."""

    kind: str
    location: str
    memory: MemoryStorage | None = None

    def new(self) -> Storage:
        if self.memory is not None:
            return self.memory
        return open_storage(self.location, create=True)

    def reopen(self) -> Storage:
        if self.memory is not None:
            return self.memory
        return open_storage(self.location)

    def target(self) -> str | Storage:
        """What Collection.create/open take: the location, or the memory object itself."""
        return self.memory if self.memory is not None else self.location


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    kind = request.param
    if kind == "memory":
        yield Backend("memory", "memory:", MemoryStorage())
        return
    if kind == "sqlite":
        yield Backend("sqlite", str(tmp_path / "collection.db"))
        return
    postgres_or_fail()
    schema = unique_schema()
    yield Backend("postgres", f"{PG_URL}?schema={schema}")
    drop_schemas(schema)

"""Storage backends of a collection behind one protocol (:class:`~neardup.storage.base.Storage`).

A location names its backend, so every entry point (library, CLI, service) opens storage the
same way:

* ``memory:`` — in this process only (:class:`~neardup.storage.memory.MemoryStorage`);
* ``postgresql://user@host:port/db?schema=NAME`` (or ``postgres://``) — a PostgreSQL schema
  (:class:`~neardup.storage.postgres.PostgresStorage`, needs ``neardup[postgres]``);
* ``sqlite:///path`` or any other string — a SQLite file
  (:class:`~neardup.storage.sqlite.SQLiteStorage`).
"""

from __future__ import annotations

import os

from neardup.storage.base import (
    FORMAT_VERSION,
    DocInfo,
    FilterState,
    Link,
    NewDoc,
    PackedFingerprints,
    Storage,
    StoredFingerprints,
)

__all__ = [
    "FORMAT_VERSION",
    "DocInfo",
    "FilterState",
    "Link",
    "NewDoc",
    "PackedFingerprints",
    "Storage",
    "StoredFingerprints",
    "backend_of",
    "open_storage",
]


def backend_of(location: str | os.PathLike[str]) -> str:
    """``memory``, ``postgres`` or ``sqlite``: which backend a location names."""
    text = os.fspath(location)
    if text in ("memory:", ":memory:") or text.startswith("memory:"):
        return "memory"
    if text.startswith(("postgresql://", "postgres://")):
        return "postgres"
    return "sqlite"


def open_storage(
    location: str | os.PathLike[str],
    *,
    create: bool = False,
    readonly: bool | None = None,
    timeout: float | None = None,
    synchronous: str = "full",
) -> Storage:
    """Open (or, with ``create``, make ready to create) the storage a location names.

    ``synchronous`` (SQLite only): ``"full"`` or ``"normal"``, see :mod:`neardup.storage.sqlite`.
    """
    kind = backend_of(location)
    text = os.fspath(location)
    if kind == "memory":
        from neardup.storage.memory import MemoryStorage

        return MemoryStorage(text)
    if kind == "postgres":
        from neardup.storage.postgres import PostgresStorage

        return PostgresStorage(text, create=create, timeout=timeout)
    from neardup.storage.sqlite import DEFAULT_TIMEOUT, SQLiteStorage

    path = text.removeprefix("sqlite://")
    return SQLiteStorage(
        path,
        create=create,
        readonly=readonly,
        timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
        synchronous=synchronous,
    )

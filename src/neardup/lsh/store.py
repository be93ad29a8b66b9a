"""Where an :class:`~neardup.lsh.LSHIndex` keeps its documents: the store protocol, the memory
store, and :func:`open_store`, which turns a location into a store.

An index answers from memory (its signatures and bucket table); the store is what makes it
outlive the process. Every change is written through (one transaction per call, a batch in
one), and opening an index on a store that holds documents loads them in the order they were
added, so a reopened index gives the same answers. The store also keeps the index's
parameters (threshold, bands, rows, num_perm, the spec fingerprint, verification): an index
opened with other ones is refused (:class:`~neardup.errors.SpecMismatchError`).

Without a store (``store=None``) the index keeps nothing apart from itself. Three stores:
:class:`MemoryStore` (nothing outlives the process, but the same object handed to a new index
reopens it; for tests), :class:`~neardup.lsh.sqlite_store.SQLiteStore` (a file, through the
standard library's ``sqlite3``) and :class:`~neardup.lsh.postgres_store.PostgresStore` (a
schema of a PostgreSQL database, through psycopg). Their tables are ``lsh_meta`` and
``lsh_entries``, apart from a collection's tables, so an index may share a database (and a
PostgreSQL schema) with a collection.

The shared types live in :mod:`neardup.lsh.store_base`, below the concrete stores; this module
is above them (it opens them), so no store imports it.
"""

from __future__ import annotations

import os

from neardup.errors import InputError
from neardup.lsh.store_base import FORMAT_VERSION, Entry, LSHStore, MemoryStore, NullStore

__all__ = [
    "FORMAT_VERSION",
    "Entry",
    "LSHStore",
    "MemoryStore",
    "NullStore",
    "is_postgres",
    "open_store",
]


def is_postgres(location: str) -> bool:
    return location.startswith(("postgresql://", "postgres://"))


def open_store(store: LSHStore | str | os.PathLike[str] | None) -> LSHStore:
    """A store from what an index was given: ``None`` a :class:`NullStore` (the index lives
    in memory, nothing is kept apart), ``"memory:"`` a new :class:`MemoryStore`, a
    ``postgresql://`` URL (``?schema=NAME``, default ``neardup``) a
    :class:`~neardup.lsh.postgres_store.PostgresStore`, any other text or path a SQLite file
    (made when missing), and a store object as it is."""
    if store is None:
        return NullStore()
    if isinstance(store, str | os.PathLike):
        location = os.fspath(store)
        if location == "memory:":
            return MemoryStore()
        if is_postgres(location):
            from neardup.lsh.postgres_store import PostgresStore

            return PostgresStore(location)
        if not location:
            raise InputError("the store location is empty: give a file name or a URL")
        from neardup.lsh.sqlite_store import SQLiteStore

        return SQLiteStore(location)
    if isinstance(store, LSHStore):
        return store
    raise InputError(
        "store must be None, 'memory:', a SQLite file name, a postgresql:// URL or a store "
        f"object, not {type(store).__name__}"
    )

"""Kept checks: the checks a service made, each under an unguessable id, in the collection's store.

A kept check is what its page and its PDF are drawn from again: the text, the result's JSON
(:meth:`neardup.index.CheckResult.to_dict` with the passages and the sources' texts, see
:mod:`neardup.report.check_record`), when it was made, the spec's fingerprint, and who made it
(``owner``: a
digest of the browser's own key, empty for a token holder or an API client without a cookie).

:class:`CheckStore` is the protocol; :func:`check_store` picks the implementation of a
collection's storage: :class:`~neardup.storage.checks_memory.MemoryCheckStore`,
or :class:`~neardup.storage.checks_sql.SQLCheckStore` (SQLite or PostgreSQL), in a table of
its own (``kept_checks``) beside the collection's tables.

The shared types live in :mod:`neardup.storage.kept_checks`, below the stores; this module is
above them (it opens them), so no store imports it.
"""

from __future__ import annotations

from neardup.storage.checks_memory import MemoryCheckStore
from neardup.storage.checks_sql import SQLCheckStore
from neardup.storage.kept_checks import (
    PREVIEW,
    CheckStore,
    KeptCheck,
    KeptSummary,
    new_check_id,
    owner_digest,
    plain_text,
    preview,
    valid_id,
)

__all__ = [
    "PREVIEW",
    "CheckStore",
    "KeptCheck",
    "KeptSummary",
    "check_store",
    "new_check_id",
    "owner_digest",
    "plain_text",
    "preview",
    "valid_id",
]


def check_store(storage: object) -> CheckStore:
    """The check store of a collection's storage (memory, SQLite or PostgreSQL)."""
    if getattr(storage, "kind", None) in ("sqlite", "postgres"):
        return SQLCheckStore(storage)
    return MemoryCheckStore()

"""A MinHash LSH index a program keeps: :class:`LSHIndex`, in memory or in a SQLite or
PostgreSQL store (:mod:`neardup.lsh.store`).

Guide: docs/sketches.md ("LSHIndex"). Kernels: :mod:`neardup._kernels.lsh`.
"""

from __future__ import annotations

from neardup.lsh.index import Key, LSHIndex, LSHResult
from neardup.lsh.store import Entry, LSHStore, MemoryStore, open_store

__all__ = ["Entry", "Key", "LSHIndex", "LSHResult", "LSHStore", "MemoryStore", "open_store"]

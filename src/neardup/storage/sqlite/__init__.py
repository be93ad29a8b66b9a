"""The SQLite backend: a collection in one file, with the standard library's sqlite3.

Durability choices, and why:

* ``journal_mode=WAL``: readers keep reading a consistent snapshot while one writer writes, and
  a commit is one append to the write-ahead log.
* ``synchronous=FULL`` (the default): the log is fsynced at every commit, so an acknowledged
  document survives a power cut, not only a killed process. ``synchronous="normal"`` (opt-in)
  fsyncs only at checkpoints: in WAL mode every commit is still atomic and written to the log
  before it is acknowledged, so a killed process (SIGKILL) loses nothing acknowledged and never
  leaves half a batch; an OS crash or power loss may lose the last acknowledged transactions
  (never corrupt the file). That saves one fsync per batch.
* ``BEGIN IMMEDIATE`` for every write: writers queue on the database's write lock (for at most
  the busy timeout, 10 s by default) and each decision is taken against the state it commits
  into, so two processes cannot both admit near-duplicates of each other.
* ``cache_size`` 256 MiB and ``mmap_size`` 4 GiB: candidate lookups and fingerprint reads hit
  memory, not ``read`` calls (reads only; writes still go through the WAL).
* **Postings in two tiers.** A B-tree keyed by ``(value, doc)`` that receives a batch's
  postings (random values) dirties nearly every one of its leaf pages once the batch has more
  postings than the tree has pages, so each commit rewrote the whole postings table and bulk
  insert slowed in proportion to the collection's size. So the newest documents (the *tail*:
  keys at or above ``meta.sqlite_postings_below``) keep their postings only in their own
  ``docs.samples`` (an append at the end of ``docs``); every connection reads the tail into a
  sorted in-memory array (incrementally: only keys past the last one it read) and looks
  candidates up in both tiers. When the tail outgrows ``max(tail_min, merged keys /
  TAIL_SHARE)``, the batch that crossed it also moves the tail's postings, sorted, into the
  ``postings`` table in the same transaction — geometric merges, so each posting is rewritten
  a bounded number of times. ``meta.sqlite_postings_epoch`` changes with every removal, which
  makes other connections re-read their tail. The tail is held as sorted runs
  (:class:`~neardup.storage.runs.SortedRuns`), so reading a batch's new rows never re-sorts it.
* **A Bloom filter per merge** (table ``bloom``): most samples of a new document are posted by
  no stored document; a value that no filter holds is not looked up in the ``postings`` B-tree
  at all (one seek spared per value; the filters cost about 2 bytes per merged posting).
* **Frequent values read capped.** A value once seen with more postings than the lookup's
  ``limit_per_value`` (boilerplate) is read newest first, that many rows only.
* A database that stays locked past the timeout, is read-only, or is not a SQLite file becomes
  a :class:`~neardup.errors.StorageError` that says so; nothing is half-written.

Tables (``FORMAT_VERSION`` 1): ``meta(key, value)`` (with ``sqlite_postings_below`` and
``sqlite_postings_epoch``; a file without them has every posting in ``postings``);
``docs(key INTEGER PRIMARY KEY, id UNIQUE, grp, size, fp BLOB, counts BLOB, samples BLOB,
meta TEXT)`` with an index on ``grp``;
``texts(key, text)``; ``postings(value, doc)`` as a WITHOUT ROWID table keyed by
``(value, doc)``; ``links(a, b, resemblance, containment_ab, containment_ba)`` keyed by
``(a, b)`` with an index on ``b``; ``bloom(below, k, bits)``, one filter per merge (a file
without this table has its merged values uncovered, and is looked up without filters). Blobs
are little-endian uint64 (fingerprints, samples) and int64 (counts) arrays.
"""

from __future__ import annotations

from neardup.storage.sqlite.rows import ROWS_PER_INSERT
from neardup.storage.sqlite.rows import _insert_pairs as _insert_pairs
from neardup.storage.sqlite.schema import (
    BELOW,
    BIG_CHUNK,
    CHUNK,
    DEFAULT_TIMEOUT,
    EPOCH,
    PMBF_SCHEMA,
    SCHEMA,
    SYNCHRONOUS,
    TAIL_MIN,
    TAIL_SHARE,
)
from neardup.storage.sqlite.storage import SQLiteStorage

__all__ = [
    "BELOW",
    "BIG_CHUNK",
    "CHUNK",
    "DEFAULT_TIMEOUT",
    "EPOCH",
    "PMBF_SCHEMA",
    "ROWS_PER_INSERT",
    "SCHEMA",
    "SQLiteStorage",
    "SYNCHRONOUS",
    "TAIL_MIN",
    "TAIL_SHARE",
]

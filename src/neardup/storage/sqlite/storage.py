"""The SQLite backend's storage class: the reads and the writes (inserts, merges of the
postings tail, deletions, links and groups)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence

from neardup._sorted import distinct
from neardup.errors import DuplicateIdError
from neardup.storage.base import (
    FilterState,
    Link,
    NewDoc,
    as_signed,
    as_unsigned,
    dump_meta,
    i64_to_bytes,
    rows_to_bytes,
    sorted_parts,
    u64_from_bytes,
    u64_to_bytes,
)
from neardup.storage.bloom import BloomFilter
from neardup.storage.sqlite.reads import SQLiteReads
from neardup.storage.sqlite.rows import _chunks, _insert_pairs, _Tail
from neardup.storage.sqlite.schema import BELOW, EPOCH, PMBF_SCHEMA, TAIL_SHARE


class SQLiteStorage(SQLiteReads):
    """A collection in a SQLite file (``path``); ``timeout`` is the busy timeout in seconds.

    ``synchronous`` is ``"full"`` (fsync at every commit: acknowledged documents survive a power
    cut) or ``"normal"`` (WAL fsynced at checkpoints only: acknowledged documents survive a killed
    process; an OS crash or power loss may lose the last transactions, never half of one).
    ``quick_check`` (default on): SQLite's ``PRAGMA quick_check`` before this connection's first
    write, refusing a damaged file; it reads the whole file once (seconds per GB), so a process
    that writes one document into a very large collection may turn it off.
    """

    kind = "sqlite"

    # --- writes -----------------------------------------------------------------------------
    def write_pmbf(self, changes: FilterState, *, drop_keys: Sequence[int] = ()) -> None:
        self._require_tx()
        with self._errors():
            if not self._has_pmbf():
                for stmt in PMBF_SCHEMA.strip().split(";"):
                    if stmt.strip():
                        self._conn.execute(stmt)
            self._conn.executemany(
                "INSERT INTO pmbf_rows (row, bits, free) VALUES (?, ?, ?) ON CONFLICT (row) "
                "DO UPDATE SET bits = excluded.bits, free = excluded.free",
                rows_to_bytes(changes),
            )
            wanted = sorted({int(k) for k in drop_keys})
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                self._conn.execute(f"DELETE FROM pmbf_parts WHERE key IN ({marks})", chunk)
            self._conn.executemany(
                "INSERT INTO pmbf_parts (key, row, start, stop) VALUES (?, ?, ?, ?)",
                sorted_parts(changes.parts).tolist(),
            )

    def insert(self, docs: Sequence[NewDoc]) -> None:
        self._require_tx()
        if not docs:
            return
        with self._errors():
            try:
                self._conn.executemany(
                    "INSERT INTO docs (key, id, grp, size, fp, counts, samples, meta) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            d.key,
                            d.id,
                            d.group,
                            d.size,
                            u64_to_bytes(d.values),
                            None if d.counts is None else i64_to_bytes(d.counts),
                            u64_to_bytes(d.samples),
                            dump_meta(d.meta),
                        )
                        for d in docs
                    ],
                )
            except sqlite3.IntegrityError as exc:
                ids = [d.id for d in docs]
                taken = self.keys_for_ids(ids)
                dup = next(iter(taken), None) or next((i for i in ids if ids.count(i) > 1), None)
                raise DuplicateIdError(f"the id {dup!r} is already in the collection") from exc
            texts = [(d.key, d.text) for d in docs if d.text is not None]
            if texts:
                self._conn.executemany("INSERT INTO texts (key, text) VALUES (?, ?)", texts)
            state = self._tail_state()
            if state is None:  # a file from before the tail: all its postings are merged
                self.write_meta({BELOW: str(min(d.key for d in docs)), EPOCH: "0"})
                state = self._tail_state()
                assert state is not None
            below = state[0]
            top = max(d.key for d in docs)
            if top - below + 1 > max(self.tail_min, below // TAIL_SHARE):
                self._merge_tail(top + 1)

    def _merge_tail(self, new_below: int) -> None:
        """Move the tail's postings (every key below ``new_below``) into the postings table."""
        with self._lock:
            tail = self._read_tail()
        if tail is None:
            return
        unsigned, keys = tail.runs.arrays()
        keep = keys < new_below
        values, keys = as_signed(unsigned[keep]), keys[keep]
        # sorted by (value, doc): the B-tree is written in one ordered pass
        _insert_pairs(self._conn, "postings (value, doc)", values, keys)
        with self._lock:
            if self._postings_filters() is not None:
                bloom = BloomFilter.of(distinct(as_unsigned(values)))
                self._conn.execute(
                    "INSERT INTO bloom (below, k, bits) VALUES (?, ?, ?)",
                    (new_below, bloom.k, bloom.to_bytes()),
                )
        epoch = tail.epoch
        self.write_meta({BELOW: str(new_below), EPOCH: str(epoch)})
        self._tail = _Tail(new_below, epoch)

    def delete(self, keys: Sequence[int]) -> None:
        self._require_tx()
        wanted = sorted({int(k) for k in keys})
        with self._errors():
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                rows = self._conn.execute(
                    f"SELECT key, samples FROM docs WHERE key IN ({marks})", chunk
                ).fetchall()
                pairs = [
                    (v, key)
                    for key, samples in rows
                    for v in as_signed(u64_from_bytes(samples)).tolist()
                ]
                self._conn.executemany("DELETE FROM postings WHERE value = ? AND doc = ?", pairs)
                self._conn.execute(f"DELETE FROM links WHERE a IN ({marks})", chunk)
                self._conn.execute(f"DELETE FROM links WHERE b IN ({marks})", chunk)
                self._conn.execute(f"DELETE FROM texts WHERE key IN ({marks})", chunk)
                self._conn.execute(f"DELETE FROM docs WHERE key IN ({marks})", chunk)
                if self._has_pmbf():
                    self._conn.execute(f"DELETE FROM pmbf_parts WHERE key IN ({marks})", chunk)
            state = self._tail_state()
            if state is not None and wanted:
                self.write_meta({EPOCH: str(state[1] + 1)})

    def add_links(self, links: Sequence[Link]) -> None:
        self._require_tx()
        with self._errors():
            self._conn.executemany(
                "INSERT OR REPLACE INTO links (a, b, resemblance, containment_ab, containment_ba) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    (lk.a, lk.b, lk.resemblance, lk.containment_ab, lk.containment_ba)
                    for lk in links
                ],
            )

    def set_groups(self, assignments: Mapping[int, int]) -> None:
        self._require_tx()
        with self._errors():
            self._conn.executemany(
                "UPDATE docs SET grp = ? WHERE key = ?",
                [(int(g), int(k)) for k, g in assignments.items()],
            )

    def relabel_groups(self, mapping: Mapping[int, int]) -> None:
        self._require_tx()
        with self._errors():
            self._conn.executemany(
                "UPDATE docs SET grp = ? WHERE grp = ?",
                [(int(new), int(old)) for old, new in mapping.items()],
            )

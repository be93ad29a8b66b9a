"""The reads of the SQLite backend: ids, postings (both tiers), fingerprints, documents, groups,
links, counts and the pseudo-matrix filter."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from neardup._sorted import distinct, distinct_counts
from neardup.storage.base import (
    I64,
    PMBF_PARTS_QUERY,
    PMBF_ROWS_QUERY,
    U64,
    DocInfo,
    FilterState,
    Link,
    PackedFingerprints,
    StoredFingerprints,
    as_signed,
    as_unsigned,
    filter_from_records,
    i64_from_bytes,
    load_meta,
    u64_from_bytes,
)
from neardup.storage.bloom import BloomFilter
from neardup.storage.sqlite.connection import SQLiteConnection
from neardup.storage.sqlite.rows import _chunks, _pair_array, _Tail
from neardup.storage.sqlite.schema import _NO_I64, _NO_U64, BELOW, BIG_CHUNK, EPOCH


class SQLiteReads(SQLiteConnection):
    """The queries of :class:`~neardup.storage.sqlite.SQLiteStorage`."""

    # --- reads ------------------------------------------------------------------------------
    def keys_for_ids(self, ids: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        with self._lock:
            for chunk in _chunks(list(ids)):
                marks = ",".join("?" * len(chunk))
                out.update(self._q(f"SELECT id, key FROM docs WHERE id IN ({marks})", chunk))
        return out

    def _tail_state(self) -> tuple[int, int] | None:
        """``(below, epoch)`` from the meta table; None for a file with every posting merged."""
        got = dict(self._q("SELECT key, value FROM meta WHERE key IN (?, ?)", (BELOW, EPOCH)))
        if BELOW not in got:
            return None
        try:
            return int(got[BELOW]), int(got.get(EPOCH, "0"))
        except ValueError:
            raise self._damaged(f"the postings counters are not integers: {got}") from None

    def _postings_filters(self) -> list[BloomFilter] | None:
        """Filters that together hold every value of the postings table (read incrementally;
        call under the lock); None for a file made before them, whose values they do not cover."""
        if self._has_bloom is None:
            self._has_bloom = bool(
                self._q("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'bloom'")
            )
        if not self._has_bloom:
            return None
        for below, k, bits in self._q(
            "SELECT below, k, bits FROM bloom WHERE below > ? ORDER BY below", (self._filters_upto,)
        ):
            self._filters.append(BloomFilter.from_bytes(bits, k))
            self._filters_upto = below
        return self._filters

    def _read_tail(self) -> _Tail | None:
        """The tail as of the current snapshot, read incrementally (call under the lock)."""
        state = self._tail_state()
        if state is None:
            self._tail = None
            return None
        below, epoch = state
        tail = self._tail
        if tail is None or tail.below != below or tail.epoch != epoch:
            tail = _Tail(below, epoch)
        # keys are given out in increasing order under the write lock, so a snapshot holds a
        # prefix of them: every document not read yet has a key past ``tail.last``
        tail.extend(
            self._q("SELECT key, samples FROM docs WHERE key > ? ORDER BY key", (tail.last,))
        )
        self._tail = tail
        return tail

    def postings(self, samples: U64, *, limit_per_value: int = 0) -> tuple[U64, I64]:
        unique = distinct(np.asarray(samples, dtype=np.uint64))
        signed = as_signed(unique)
        # values seen with more than the limit of postings are read newest first, the limit only
        # (most of a batch's rows would otherwise be a few hundred boilerplate samples')
        capped = (
            np.isin(signed, self._frequent) if limit_per_value else np.zeros(signed.shape[0], bool)
        )
        parts: list[I64] = []  # (value, doc) rows, an array per statement: a lookup of every
        # stored sample (verify_integrity) would hold tens of millions of tuples otherwise
        with self._lock, self.snapshot():
            filters = self._postings_filters()
            if filters is not None:  # values no filter holds are in no posting of the table
                in_table = np.zeros(unique.shape[0], dtype=bool)
                for f in filters:
                    in_table |= f.maybe(unique)
            else:
                in_table = np.ones(unique.shape[0], dtype=bool)
            for chunk in _chunks(signed[in_table & ~capped].tolist(), BIG_CHUNK):
                marks = ",".join("?" * len(chunk))
                parts.append(
                    _pair_array(
                        self._q(f"SELECT value, doc FROM postings WHERE value IN ({marks})", chunk)
                    )
                )
            capped_rows: list[tuple[int, int]] = []
            for value in signed[in_table & capped].tolist():
                capped_rows += self._q(
                    "SELECT value, doc FROM postings WHERE value = ? ORDER BY doc DESC LIMIT ?",
                    (value, limit_per_value),
                )
            parts.append(_pair_array(capped_rows))
            tail = self._read_tail()
        tv, tk = tail.runs.lookup(unique) if tail is not None else (_NO_U64, _NO_I64)
        arr = np.concatenate(parts)
        if not arr.shape[0]:
            return tv, tk
        values = arr[:, 0].copy()
        if limit_per_value:
            seen, counts = distinct_counts(values)
            more = seen[counts > limit_per_value]
            if more.shape[0]:
                self._frequent = np.union1d(self._frequent, more)
        return np.concatenate((as_unsigned(values), tv)), np.concatenate((arr[:, 1].copy(), tk))

    def fingerprints(self, keys: Sequence[int]) -> list[StoredFingerprints]:
        wanted = sorted({int(k) for k in keys})
        out: list[StoredFingerprints] = []
        with self._lock:
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                for key, fp, counts, samples in self._q(
                    "SELECT key, fp, counts, samples FROM docs "
                    f"WHERE key IN ({marks}) ORDER BY key",
                    chunk,
                ):
                    out.append(
                        StoredFingerprints(
                            key, u64_from_bytes(fp), i64_from_bytes(counts), u64_from_bytes(samples)
                        )
                    )
        return out

    def packed_fingerprints(self, keys: Sequence[int]) -> PackedFingerprints:
        wanted = sorted({int(k) for k in keys})
        rows: list[tuple[int, bytes, bytes | None]] = []
        with self._lock:
            for chunk in _chunks(wanted, BIG_CHUNK):
                marks = ",".join("?" * len(chunk))
                rows += self._q(
                    f"SELECT key, fp, counts FROM docs WHERE key IN ({marks}) ORDER BY key", chunk
                )
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        lengths = [len(r[1]) for r in rows]
        if any(n % 8 for n in lengths):
            raise self._damaged("a stored fingerprint array is not a whole number of 8-byte values")
        np.cumsum([n // 8 for n in lengths], out=offsets[1:])
        values = u64_from_bytes(b"".join(r[1] for r in rows))
        counts = None
        if any(r[2] is not None for r in rows):
            counts = np.concatenate(
                [
                    i64_from_bytes(r[2]) if r[2] is not None else np.ones(len(r[1]) // 8, np.int64)
                    for r in rows
                ]
            )
        return PackedFingerprints(
            np.array([r[0] for r in rows], dtype=np.int64), values, counts, offsets
        )

    def docs(self, keys: Sequence[int], *, text: bool = False, meta: bool = True) -> list[DocInfo]:
        wanted = sorted({int(k) for k in keys})
        out: list[DocInfo] = []
        meta_col = "d.meta" if meta else "NULL"
        text_col = "t.text" if text else "NULL"
        join = "LEFT JOIN texts t ON t.key = d.key " if text else ""
        with self._lock:
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                sql = (
                    f"SELECT d.key, d.id, d.grp, d.size, {meta_col}, {text_col} FROM docs d {join}"
                    f"WHERE d.key IN ({marks}) ORDER BY d.key"
                )
                for key, id_, grp, size, meta_json, txt in self._q(sql, chunk):
                    out.append(DocInfo(key, id_, grp, size, load_meta(meta_json), txt))
        return out

    def sizes(self, keys: Sequence[int]) -> dict[int, int]:
        out: dict[int, int] = {}
        wanted = sorted({int(k) for k in keys})
        with self._lock:
            for chunk in _chunks(wanted, BIG_CHUNK):
                marks = ",".join("?" * len(chunk))
                out.update(self._q(f"SELECT key, size FROM docs WHERE key IN ({marks})", chunk))
        return out

    def max_key(self) -> int:
        with self._lock:
            return int(self._q("SELECT coalesce(max(key), 0) FROM docs")[0][0])

    def group_members(self, groups: Sequence[int]) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        wanted = sorted({int(g) for g in groups})
        with self._lock:
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                for grp, key in self._q(
                    f"SELECT grp, key FROM docs WHERE grp IN ({marks}) ORDER BY key", chunk
                ):
                    out.setdefault(grp, []).append(key)
        return out

    def group_sizes(self, groups: Sequence[int]) -> dict[int, int]:
        out: dict[int, int] = {}
        wanted = sorted({int(g) for g in groups})
        with self._lock:
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                out.update(
                    self._q(
                        f"SELECT grp, count(*) FROM docs WHERE grp IN ({marks}) GROUP BY grp", chunk
                    )
                )
        return out

    def links_of(self, keys: Sequence[int]) -> list[Link]:
        wanted = sorted({int(k) for k in keys})
        found: dict[tuple[int, int], Link] = {}
        cols = "a, b, resemblance, containment_ab, containment_ba"
        with self._lock:
            for chunk in _chunks(wanted):
                marks = ",".join("?" * len(chunk))
                for row in self._q(
                    f"SELECT {cols} FROM links WHERE a IN ({marks}) "
                    f"UNION SELECT {cols} FROM links WHERE b IN ({marks})",
                    [*chunk, *chunk],
                ):
                    found[(row[0], row[1])] = Link(*row)
        return [found[p] for p in sorted(found)]

    def all_postings(self) -> tuple[U64, I64]:
        parts: list[I64] = []
        with self._lock, self.snapshot(), self._errors():
            cursor = self._conn.execute("SELECT value, doc FROM postings ORDER BY value, doc")
            while rows := cursor.fetchmany(1 << 20):
                parts.append(_pair_array(rows))
            tail = self._read_tail()
        tv, tk = tail.runs.arrays() if tail is not None else (_NO_U64, _NO_I64)
        if not parts:
            return tv.copy(), tk.copy()
        arr = np.concatenate(parts)
        values = np.concatenate((as_unsigned(arr[:, 0].copy()), tv))
        keys = np.concatenate((arr[:, 1].copy(), tk))
        order = np.lexsort((keys, values))
        return values[order], keys[order]

    def counts(self) -> dict[str, int]:
        with self.snapshot():
            docs = self._q("SELECT count(*) FROM docs")[0][0]
            postings = self._q("SELECT count(*) FROM postings")[0][0]
            with self._lock:
                tail = self._read_tail()
            postings += 0 if tail is None else tail.runs.size
            links = self._q("SELECT count(*) FROM links")[0][0]
            groups = self._q(
                "SELECT count(*) FROM (SELECT grp FROM docs GROUP BY grp HAVING count(*) > 1)"
            )[0][0]
        return {"docs": docs, "postings": postings, "links": links, "groups": groups}

    def size_bytes(self) -> int | None:
        total = 0
        for suffix in ("", "-wal"):
            p = Path(str(self.path) + suffix)
            if p.exists():
                total += p.stat().st_size
        return total

    def _has_pmbf(self) -> bool:
        return bool(self._q("SELECT 1 FROM sqlite_master WHERE type='table' AND name='pmbf_rows'"))

    def pmbf_state(self) -> FilterState:
        with self.snapshot():
            if not self._has_pmbf():
                return FilterState.empty()
            return filter_from_records(self._q(PMBF_ROWS_QUERY), self._q(PMBF_PARTS_QUERY))

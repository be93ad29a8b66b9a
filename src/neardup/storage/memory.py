"""The memory backend: the storage protocol over dicts and numpy arrays, for tests and for
collections that live as long as one process.

Postings are kept as sorted runs, log-structured (:class:`~neardup.storage.runs.SortedRuns`:
O(log n) runs, a lookup is one ``searchsorted`` per run, no Python loop per posting). A
transaction saves shallow copies of the containers (arrays are never modified in place) and
restores them on error, so every write is atomic here as in the other backends.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import numpy as np

from neardup._sorted import distinct
from neardup.errors import DuplicateIdError, StorageError
from neardup.storage.base import (
    I64,
    U64,
    DocInfo,
    FilterState,
    Link,
    NewDoc,
    PackedFingerprints,
    StoredFingerprints,
    sorted_parts,
)
from neardup.storage.runs import SortedRuns


@dataclass
class _State:
    meta: dict[str, str] = field(default_factory=dict)
    docs: dict[int, NewDoc] = field(default_factory=dict)
    ids: dict[str, int] = field(default_factory=dict)
    links: dict[tuple[int, int], Link] = field(default_factory=dict)
    # group → member keys (frozen: replaced, never changed in place, so a copy is a snapshot)
    members: dict[int, frozenset[int]] = field(default_factory=dict)
    postings: SortedRuns = field(default_factory=SortedRuns)
    # the pseudo-matrix filter: row → (words, free); key → its parts (arrays never changed)
    pmbf_rows: dict[int, tuple[U64, int]] = field(default_factory=dict)
    pmbf_parts: dict[int, I64] = field(default_factory=dict)
    created: bool = False

    def copy(self) -> _State:
        return replace(
            self,
            meta=dict(self.meta),
            docs=dict(self.docs),
            ids=dict(self.ids),
            links=dict(self.links),
            members=dict(self.members),
            postings=self.postings.copy(),
            pmbf_rows=dict(self.pmbf_rows),
            pmbf_parts=dict(self.pmbf_parts),
        )


class MemoryStorage:
    """A collection held in this process only."""

    kind = "memory"

    def __init__(self, location: str = "memory:") -> None:
        self.location = location
        self._state = _State()
        self._lock = threading.RLock()
        self._in_tx = False

    # --- lifecycle --------------------------------------------------------------------------
    def exists(self) -> bool:
        return self._state.created

    def create(self, meta: Mapping[str, str]) -> None:
        with self._lock:
            if self._state.created:
                raise StorageError(f"a collection already exists at {self.location}")
            self._state.meta = dict(meta)
            self._state.created = True

    def read_meta(self) -> dict[str, str]:
        return dict(self._state.meta)

    def write_meta(self, items: Mapping[str, str]) -> None:
        self._require_tx()
        self._state.meta.update(items)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            if self._in_tx:
                raise StorageError("transactions do not nest")
            saved = self._state.copy()
            self._in_tx = True
            try:
                yield
            except BaseException:
                self._state = saved
                raise
            finally:
                self._in_tx = False

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        with self._lock:
            yield

    def close(self) -> None:
        pass

    def _require_tx(self) -> None:
        if not self._in_tx:
            raise StorageError("writes must happen inside storage.transaction()")

    # --- reads ------------------------------------------------------------------------------
    def keys_for_ids(self, ids: Sequence[str]) -> dict[str, int]:
        table = self._state.ids
        return {i: table[i] for i in ids if i in table}

    def postings(self, samples: U64, *, limit_per_value: int = 0) -> tuple[U64, I64]:
        return self._state.postings.lookup(distinct(np.asarray(samples, dtype=np.uint64)))

    def packed_fingerprints(self, keys: Sequence[int]) -> PackedFingerprints:
        return PackedFingerprints.of(self.fingerprints(keys))

    def fingerprints(self, keys: Sequence[int]) -> list[StoredFingerprints]:
        docs = self._state.docs
        out = []
        for key in sorted({int(k) for k in keys}):
            d = docs.get(key)
            if d is not None:
                out.append(StoredFingerprints(key, d.values, d.counts, d.samples))
        return out

    def _info(self, d: NewDoc, text: bool, meta: bool = True) -> DocInfo:
        return DocInfo(
            d.key, d.id, d.group, d.size, dict(d.meta) if meta else {}, d.text if text else None
        )

    def sizes(self, keys: Sequence[int]) -> dict[int, int]:
        docs = self._state.docs
        return {int(k): docs[int(k)].size for k in keys if int(k) in docs}

    def max_key(self) -> int:
        return max(self._state.docs, default=0)

    def docs(self, keys: Sequence[int], *, text: bool = False, meta: bool = True) -> list[DocInfo]:
        docs = self._state.docs
        return [
            self._info(docs[k], text, meta) for k in sorted({int(k) for k in keys}) if k in docs
        ]

    def iter_docs(self, *, text: bool = False, batch_size: int = 1000) -> Iterator[list[DocInfo]]:
        keys = sorted(self._state.docs)
        for i in range(0, len(keys), batch_size):
            yield self.docs(keys[i : i + batch_size], text=text)

    def iter_fingerprints(self, *, batch_size: int = 1000) -> Iterator[list[StoredFingerprints]]:
        keys = sorted(self._state.docs)
        for i in range(0, len(keys), batch_size):
            yield self.fingerprints(keys[i : i + batch_size])

    def group_members(self, groups: Sequence[int]) -> dict[int, list[int]]:
        members = self._state.members
        return {g: sorted(members[g]) for g in sorted({int(g) for g in groups}) if members.get(g)}

    def group_sizes(self, groups: Sequence[int]) -> dict[int, int]:
        members = self._state.members
        return {g: len(members[g]) for g in {int(g) for g in groups} if members.get(g)}

    def links_of(self, keys: Sequence[int]) -> list[Link]:
        wanted = {int(k) for k in keys}
        return sorted(
            (lk for (a, b), lk in self._state.links.items() if a in wanted or b in wanted),
            key=lambda lk: (lk.a, lk.b),
        )

    def iter_links(self) -> Iterator[Link]:
        for pair in sorted(self._state.links):
            yield self._state.links[pair]

    def all_postings(self) -> tuple[U64, I64]:
        values, keys = self._state.postings.arrays()
        return values.copy(), keys.copy()

    def counts(self) -> dict[str, int]:
        st = self._state
        return {
            "docs": len(st.docs),
            "postings": st.postings.size,
            "links": len(st.links),
            "groups": sum(1 for m in st.members.values() if len(m) > 1),
        }

    def size_bytes(self) -> int | None:
        """Bytes of the arrays held (fingerprints, counts, samples, postings, filter rows and
        parts); texts excluded."""
        st = self._state
        total = st.postings.nbytes
        total += sum(bits.nbytes + 8 for bits, _ in st.pmbf_rows.values())
        total += sum(parts.nbytes for parts in st.pmbf_parts.values())
        for d in st.docs.values():
            total += (
                d.values.nbytes
                + d.samples.nbytes
                + (d.counts.nbytes if d.counts is not None else 0)
            )
        return int(total)

    def pmbf_state(self) -> FilterState:
        st = self._state
        if not st.pmbf_rows:
            return FilterState.empty()
        rows = sorted(st.pmbf_rows)
        parts = [st.pmbf_parts[k] for k in sorted(st.pmbf_parts)]
        return FilterState(
            np.array(rows, dtype=np.int64),
            np.stack([st.pmbf_rows[r][0] for r in rows]),
            np.array([st.pmbf_rows[r][1] for r in rows], dtype=np.int64),
            sorted_parts(np.concatenate(parts) if parts else np.zeros((0, 4), np.int64)),
        )

    # --- writes -----------------------------------------------------------------------------
    def write_pmbf(self, changes: FilterState, *, drop_keys: Sequence[int] = ()) -> None:
        self._require_tx()
        st = self._state
        for row, bits, free in zip(
            changes.rows.tolist(), changes.bits, changes.free.tolist(), strict=True
        ):
            st.pmbf_rows[int(row)] = (np.array(bits, dtype=np.uint64), int(free))
        for key in drop_keys:
            st.pmbf_parts.pop(int(key), None)
        parts = np.asarray(changes.parts, dtype=np.int64).reshape(-1, 4)
        for key in np.unique(parts[:, 0]).tolist():
            mine = parts[parts[:, 0] == key]
            old = st.pmbf_parts.get(key)
            st.pmbf_parts[key] = mine if old is None else np.concatenate([old, mine])

    def insert(self, docs: Sequence[NewDoc]) -> None:
        self._require_tx()
        st = self._state
        seen: set[str] = set()
        for d in docs:
            if d.id in st.ids or d.id in seen:
                raise DuplicateIdError(f"the id {d.id!r} is already in the collection")
            if d.key in st.docs:
                raise StorageError(f"internal key {d.key} is already used")
            seen.add(d.id)
        for d in docs:
            st.docs[d.key] = d
            st.ids[d.id] = d.key
            self._move(d.key, None, d.group)
        if docs:
            values = np.concatenate([d.samples for d in docs]).astype(np.uint64)
            keys = np.concatenate(
                [np.full(d.samples.shape[0], d.key, dtype=np.int64) for d in docs]
            )
            st.postings.add(values, keys)

    def delete(self, keys: Sequence[int]) -> None:
        self._require_tx()
        st = self._state
        gone = np.array(sorted({int(k) for k in keys}), dtype=np.int64)
        for key in gone.tolist():
            d = st.docs.pop(key, None)
            if d is not None:
                st.ids.pop(d.id, None)
                self._move(key, d.group, None)
        st.postings = st.postings.without(gone)
        wanted = set(gone.tolist())
        for key in wanted:
            st.pmbf_parts.pop(key, None)
        st.links = {
            pair: lk
            for pair, lk in st.links.items()
            if pair[0] not in wanted and pair[1] not in wanted
        }

    def add_links(self, links: Sequence[Link]) -> None:
        self._require_tx()
        for lk in links:
            self._state.links[(lk.a, lk.b)] = lk

    def _move(self, key: int, old: int | None, new: int | None) -> None:
        members = self._state.members
        if old is not None:
            left = members.get(old, frozenset()) - {key}
            if left:
                members[old] = left
            else:
                members.pop(old, None)
        if new is not None:
            members[new] = members.get(new, frozenset()) | {key}

    def set_groups(self, assignments: Mapping[int, int]) -> None:
        self._require_tx()
        docs = self._state.docs
        for key, group in assignments.items():
            if key in docs:
                self._move(key, docs[key].group, int(group))
                docs[key] = replace(docs[key], group=int(group))

    def relabel_groups(self, mapping: Mapping[int, int]) -> None:
        self._require_tx()
        st = self._state
        for old, new in mapping.items():
            keys = st.members.pop(int(old), frozenset())
            if not keys:
                continue
            st.members[int(new)] = st.members.get(int(new), frozenset()) | keys
            for key in keys:
                st.docs[key] = replace(st.docs[key], group=int(new))

"""The one storage protocol of a collection, and the records that cross it.

A backend (memory, SQLite, PostgreSQL) keeps four things and nothing else:

* ``meta`` — key/value text: the format version, the spec and index spec (JSON), the key
  counter. A backend refuses to open data of another format version.
* ``docs`` — one row per admitted document: its internal ``key`` (an integer given out in
  admission order and never reused), the external ``id``, the duplicate ``group`` (the smallest
  key of its connected component), the set size, the sorted fingerprint array, the counts (for
  multiset specs), the winnowed sample, the meta (JSON) and optionally the text.
* ``postings`` — ``(sample value, doc key)`` pairs: the inverted index candidates come from.
* ``links`` — near-duplicate pairs at or above the threshold, with their exact measures.
* ``pmbf`` — the pseudo-matrix Bloom filter of a collection whose candidate method uses it
  (:class:`FilterState`): its rows (one record per row: the row's ``uint64`` words and its free
  space) and its placement index (one record per part: ``(key, row, start, stop)``). Empty for
  a winnowing collection. A write replaces only the rows it names, so a removal rewrites only
  the rows that held the document.

Fingerprint arrays travel as numpy arrays and are stored as raw little-endian bytes
(``uint64`` fingerprints and samples, ``int64`` counts: ``ndarray.astype('<u8').tobytes()``).
Postings hold sample values as signed 64-bit integers (the same 64 bits viewed as ``int64``)
because SQLite and PostgreSQL integers are signed.

The layer above (:mod:`neardup.index`) owns every decision; a backend only stores and fetches,
atomically. All writes happen inside ``with storage.transaction():``, which serializes writers
(across processes too) and commits on exit or rolls back on error. Reads that must agree with
each other go inside ``with storage.snapshot():``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from neardup.errors import DamagedCollectionError

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

#: The layout of the tables below. Bumped on any change; older files are refused, not guessed.
FORMAT_VERSION = 1


def _whole_values(data: bytes | memoryview) -> None:
    """A stored array must be whole 8-byte values; anything else is damage, not a bug."""
    if len(data) % 8:
        raise DamagedCollectionError(
            f"a stored array of {len(data)} bytes is not a whole number of 8-byte values"
        )


def u64_to_bytes(values: U64) -> bytes:
    """Little-endian bytes of a uint64 array (the stored form of fingerprints and samples)."""
    return np.ascontiguousarray(values, dtype="<u8").tobytes()


def u64_from_bytes(data: bytes | memoryview | None) -> U64:
    """A uint64 array over stored little-endian bytes (no copy on little-endian machines;
    read-only, as stored data should be)."""
    if not data:
        return np.zeros(0, dtype=np.uint64)
    _whole_values(data)
    return np.frombuffer(data, dtype="<u8").astype(np.uint64, copy=False)


def i64_to_bytes(values: I64) -> bytes:
    return np.ascontiguousarray(values, dtype="<i8").tobytes()


def i64_from_bytes(data: bytes | memoryview | None) -> I64 | None:
    if data is None:
        return None
    _whole_values(data)
    return np.frombuffer(data, dtype="<i8").astype(np.int64, copy=False)


def as_signed(values: U64) -> I64:
    """The same 64 bits as signed integers (for the postings column)."""
    return np.ascontiguousarray(values, dtype=np.uint64).view(np.int64)


def as_unsigned(values: I64) -> U64:
    return np.ascontiguousarray(values, dtype=np.int64).view(np.uint64)


def dump_meta(meta: Mapping[str, Any] | None) -> str:
    return json.dumps(dict(meta or {}), ensure_ascii=False, sort_keys=True)


def load_meta(text: str | None) -> dict[str, Any]:
    try:
        meta = json.loads(text) if text else {}
    except ValueError:
        raise DamagedCollectionError(
            f"a document's meta is not JSON: {(text or '')[:40]!r}"
        ) from None
    if not isinstance(meta, dict):
        raise DamagedCollectionError(
            f"a document's meta is not a JSON object: {(text or '')[:40]!r}"
        )
    return meta


@dataclass(frozen=True)
class NewDoc:
    """A document to store: everything the index computed for it."""

    key: int
    id: str
    group: int
    size: int
    values: U64
    counts: I64 | None
    samples: U64
    meta: Mapping[str, Any] = field(default_factory=dict)
    text: str | None = None


@dataclass(frozen=True)
class DocInfo:
    """A stored document without its fingerprints."""

    key: int
    id: str
    group: int
    size: int
    meta: dict[str, Any]
    text: str | None = None


@dataclass(frozen=True)
class StoredFingerprints:
    """A stored document's fingerprint set (and counts for multisets)."""

    key: int
    values: U64
    counts: I64 | None
    samples: U64


@dataclass(frozen=True)
class PackedFingerprints:
    """Several documents' fingerprint sets end to end: document ``i`` (key ``keys[i]``) holds
    ``values[offsets[i]:offsets[i + 1]]`` (and those counts; ``counts`` is None for sets)."""

    keys: I64
    values: U64
    counts: I64 | None
    offsets: I64

    @classmethod
    def pack(
        cls, keys: Sequence[int], sets: Sequence[tuple[U64, I64 | None]]
    ) -> PackedFingerprints:
        """``(values, counts)`` sets end to end (counts of 1 where a set has none and others do)."""
        offsets = np.zeros(len(sets) + 1, dtype=np.int64)
        np.cumsum([v.shape[0] for v, _ in sets], out=offsets[1:])
        values = (np.concatenate([v for v, _ in sets]) if sets else np.zeros(0, np.uint64)).astype(
            np.uint64, copy=False
        )
        counts = None
        if any(c is not None for _, c in sets):
            counts = np.concatenate(
                [c if c is not None else np.ones(v.shape[0], np.int64) for v, c in sets]
            ).astype(np.int64, copy=False)
        return cls(np.asarray(keys, dtype=np.int64).reshape(-1), values, counts, offsets)

    @classmethod
    def of(cls, stored: Sequence[StoredFingerprints]) -> PackedFingerprints:
        return cls.pack([f.key for f in stored], [(f.values, f.counts) for f in stored])

    def kernel_counts(self) -> I64:
        """The counts as the verification kernels take them: empty for sets."""
        return self.counts if self.counts is not None else np.zeros(0, dtype=np.int64)

    def sizes(self) -> I64:
        """Each document's set size (sum of counts for a multiset)."""
        if self.counts is None:
            return np.diff(self.offsets)
        totals = np.concatenate(([0], np.cumsum(self.counts)))
        return totals[self.offsets[1:]] - totals[self.offsets[:-1]]


@dataclass(frozen=True)
class Link:
    """A near-duplicate pair: ``a`` the later document (larger key), ``b`` the earlier one.

    ``containment_ab`` is how much of ``a`` is in ``b``; ``containment_ba`` the reverse.
    """

    a: int
    b: int
    resemblance: float
    containment_ab: float
    containment_ba: float


@dataclass(frozen=True)
class FilterState:
    """The stored pseudo-matrix Bloom filter of a collection (rows in row order).

    ``rows`` the row numbers (ascending, ``0…n-1`` for a whole filter), ``bits`` their words
    ``(len(rows), words)`` ``uint64``, ``free`` each row's free space (the free-space index),
    ``parts`` ``(parts, 4)`` ``int64`` records ``(key, row, start, stop)`` ordered by
    ``(key, start)`` (the placement index).
    """

    rows: I64
    bits: U64
    free: I64
    parts: I64

    @classmethod
    def empty(cls, words: int = 0) -> FilterState:
        return cls(
            np.zeros(0, np.int64),
            np.zeros((0, words), np.uint64),
            np.zeros(0, np.int64),
            np.zeros((0, 4), np.int64),
        )


def sorted_parts(parts: I64) -> I64:
    """Placement records ordered by ``(key, start)``."""
    parts = np.asarray(parts, dtype=np.int64).reshape(-1, 4)
    return parts[np.lexsort((parts[:, 2], parts[:, 0]))]


def rows_to_bytes(state: FilterState) -> list[tuple[int, bytes, int]]:
    """The ``(row, words, free)`` records a backend stores for ``state``'s rows: the inverse of
    :func:`rows_from_bytes`."""
    return [
        (row, u64_to_bytes(bits), free)
        for row, bits, free in zip(
            state.rows.tolist(), state.bits, state.free.tolist(), strict=True
        )
    ]


#: The SQL backends' reads of a stored filter, whose records :func:`filter_from_records` takes.
PMBF_ROWS_QUERY = "SELECT row, bits, free FROM pmbf_rows"
PMBF_PARTS_QUERY = "SELECT key, row, start, stop FROM pmbf_parts ORDER BY key, start"


def filter_from_records(
    rows: Sequence[tuple[int, bytes | memoryview, int]], parts: Sequence[tuple[int, ...]]
) -> FilterState:
    """The filter stored as ``(row, words, free)`` and ``(key, row, start, stop)`` records (the
    parts ordered by ``(key, start)``)."""
    row_numbers, bits, free = rows_from_bytes(rows)
    return FilterState(row_numbers, bits, free, np.array(parts, dtype=np.int64).reshape(-1, 4))


def rows_from_bytes(rows: Sequence[tuple[int, bytes | memoryview, int]]) -> tuple[I64, U64, I64]:
    """Stored ``(row, words, free)`` records as arrays (rows ascending); unequal rows are damage."""
    rows = sorted(rows, key=lambda r: int(r[0]))
    if not rows:
        return np.zeros(0, np.int64), np.zeros((0, 0), np.uint64), np.zeros(0, np.int64)
    width = len(rows[0][1])
    if any(len(r[1]) != width for r in rows) or width % 8:
        raise DamagedCollectionError("the stored Bloom filter rows are not all of one size")
    bits = np.frombuffer(b"".join(bytes(r[1]) for r in rows), dtype="<u8").astype(np.uint64)
    return (
        np.array([int(r[0]) for r in rows], dtype=np.int64),
        bits.reshape(len(rows), width // 8),
        np.array([int(r[2]) for r in rows], dtype=np.int64),
    )


@runtime_checkable
class Storage(Protocol):
    """What the collection needs from a backend. Methods that write must run in ``transaction``."""

    kind: str
    location: str

    # --- lifecycle --------------------------------------------------------------------------
    def exists(self) -> bool:
        """Whether a collection is stored here."""
        ...

    def create(self, meta: Mapping[str, str]) -> None:
        """Make the tables and write ``meta``; a StorageError if a collection is already here."""
        ...

    def read_meta(self) -> dict[str, str]: ...

    def write_meta(self, items: Mapping[str, str]) -> None: ...

    def transaction(self) -> AbstractContextManager[None]:
        """One atomic write: exclusive among writers, committed on exit, rolled back on error."""
        ...

    def snapshot(self) -> AbstractContextManager[None]:
        """Reads inside see one consistent state (they never block writers, nor writers them)."""
        ...

    def close(self) -> None: ...

    # --- reads ------------------------------------------------------------------------------
    def keys_for_ids(self, ids: Sequence[str]) -> dict[str, int]:
        """The keys of those ``ids`` that are stored."""
        ...

    def postings(self, samples: U64, *, limit_per_value: int = 0) -> tuple[U64, I64]:
        """The ``(value, key)`` postings whose value is in ``samples``, as two arrays, any order.

        Every posting, or (``limit_per_value`` > 0) at least the ``limit_per_value`` largest
        keys of each value: a backend may leave out the older postings of a frequent value.
        """
        ...

    def fingerprints(self, keys: Sequence[int]) -> list[StoredFingerprints]:
        """The fingerprint sets of those ``keys`` that are stored, in key order."""
        ...

    def packed_fingerprints(self, keys: Sequence[int]) -> PackedFingerprints:
        """The same as :meth:`fingerprints`, end to end in arrays (no object per document)."""
        ...

    def docs(self, keys: Sequence[int], *, text: bool = False, meta: bool = True) -> list[DocInfo]:
        """The stored documents of those ``keys``, in key order (``meta`` empty unless asked)."""
        ...

    def sizes(self, keys: Sequence[int]) -> dict[int, int]:
        """The shingle count (``DocInfo.size``) of those ``keys`` that are stored."""
        ...

    def max_key(self) -> int:
        """The largest stored key (0 when empty): the key counter must be past it."""
        ...

    def iter_docs(self, *, text: bool = False, batch_size: int = 1000) -> Iterator[list[DocInfo]]:
        """Every document in key order, in batches."""
        ...

    def iter_fingerprints(
        self, *, batch_size: int = 1000
    ) -> Iterator[list[StoredFingerprints]]: ...

    def group_members(self, groups: Sequence[int]) -> dict[int, list[int]]:
        """The member keys of each group (key order)."""
        ...

    def group_sizes(self, groups: Sequence[int]) -> dict[int, int]: ...

    def links_of(self, keys: Sequence[int]) -> list[Link]:
        """Every link with an end in ``keys``."""
        ...

    def iter_links(self) -> Iterator[Link]: ...

    def all_postings(self) -> tuple[U64, I64]:
        """Every posting (for integrity checks)."""
        ...

    def counts(self) -> dict[str, int]:
        """Row counts: ``docs``, ``postings``, ``links``, ``groups`` (groups of two or more)."""
        ...

    def size_bytes(self) -> int | None:
        """Bytes the collection takes where it is stored, if the backend can tell."""
        ...

    def pmbf_state(self) -> FilterState:
        """The stored pseudo-matrix Bloom filter: every row and every part (empty if none)."""
        ...

    # --- writes (inside ``transaction``) ----------------------------------------------------
    def insert(self, docs: Sequence[NewDoc]) -> None:
        """Store documents with their postings; a DuplicateIdError if an id is taken."""
        ...

    def delete(self, keys: Sequence[int]) -> None:
        """Remove documents with their postings, links and texts."""
        ...

    def add_links(self, links: Sequence[Link]) -> None: ...

    def set_groups(self, assignments: Mapping[int, int]) -> None:
        """Set the group of each key to the given group."""
        ...

    def relabel_groups(self, mapping: Mapping[int, int]) -> None:
        """Move every member of group ``old`` to group ``new``, for each ``old → new``."""
        ...

    def write_pmbf(self, changes: FilterState, *, drop_keys: Sequence[int] = ()) -> None:
        """Replace (or add) the rows ``changes`` names with its bits and free space, drop the
        parts of ``drop_keys``, then add ``changes.parts``. Rows not named stay as they are."""
        ...


class PagedScans:
    """Whole-table scans for the SQL backends, a page of keys at a time (keyset pagination),
    so an export or an integrity check never holds the collection in memory.

    A backend sets ``PARAM`` to its driver's placeholder (``?`` for sqlite3, ``%s`` for
    psycopg) and provides ``_lock``, ``_q(sql, params)``, ``docs`` and ``fingerprints``.
    """

    PARAM = "?"
    # provided by the backend
    _lock: Any
    _q: Any
    docs: Any
    fingerprints: Any

    def _iter_keys(self, batch_size: int) -> Iterator[list[int]]:
        p = self.PARAM
        last = -(2**63)
        while True:
            with self._lock:
                rows = self._q(
                    f"SELECT key FROM docs WHERE key > {p} ORDER BY key LIMIT {p}",
                    (last, batch_size),
                )
            if not rows:
                return
            keys = [r[0] for r in rows]
            last = keys[-1]
            yield keys

    def iter_docs(self, *, text: bool = False, batch_size: int = 1000) -> Iterator[list[DocInfo]]:
        for keys in self._iter_keys(batch_size):
            yield self.docs(keys, text=text)

    def iter_fingerprints(self, *, batch_size: int = 1000) -> Iterator[list[StoredFingerprints]]:
        for keys in self._iter_keys(batch_size):
            yield self.fingerprints(keys)

    def iter_links(self) -> Iterator[Link]:
        p = self.PARAM
        last = (-(2**63), -(2**63))
        while True:
            with self._lock:
                rows = self._q(
                    "SELECT a, b, resemblance, containment_ab, containment_ba FROM links "
                    f"WHERE (a, b) > ({p}, {p}) ORDER BY a, b LIMIT 5000",
                    last,
                )
            if not rows:
                return
            for row in rows:
                yield Link(*row)
            last = (rows[-1][0], rows[-1][1])

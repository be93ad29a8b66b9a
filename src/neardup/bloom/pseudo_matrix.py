"""The pseudo-matrix Bloom filter (ПМФБ) of its paper, and the matrix filter it improves on.

Rows are Bloom filters of one size, ``m`` bits for ``n`` elements at risk ``p`` (formula 2,
:mod:`neardup.bloom.sizing`). Unlike the matrix filter of Geravand and Ahmadi (one document
per row), a row holds several documents, and a document larger than a row's free space spans
rows. Two indexes make that work:

* the **free-space index** — for every row, how many more elements fit (``n`` − elements
  placed in it; 0 for an over-full row);
* the **placement index** — for every document, its *parts*: ``(row, start, stop)``, the slice
  ``fingerprints[start:stop]`` of its sorted fingerprints placed in that row (and, per row, the
  documents in it).

Placement (``placement=``):

* ``"split"`` (the paper's multi-row placement, the default): the first row with room for the
  whole document takes it; otherwise the document is cut into consecutive slices that fill
  rows with at least ``min_part`` free elements, in row order, then new rows;
* ``"whole"`` (the paper's one-row placement): the first row with room takes the whole
  document; a document larger than ``n`` gets a new row of its own, over-full.

``max_docs_per_row=1`` with ``"whole"`` is the matrix filter (:class:`MatrixBloomFilter`).

**Deletion** rebuilds only the rows that held the document: each is cleared and the parts of
the documents still placed in it are set again. **Compaction** re-packs every document, in the
order they were added, into fresh rows, which is exactly the filter that adding the remaining
documents to an empty one gives. Both need the documents' fingerprints: the filter keeps them
(``keep_fingerprints=True``) or asks ``fetch`` (a collection passes its storage's lookup).

**Similarity** of a query against every row is the paper's count of shared 1-bits: the query
is hashed into a row-sized filter and the scan ANDs it with each row and counts the bits
(:func:`neardup._kernels.pmbf.and_popcount`). Unrelated texts share bits too: a query with
``q`` ones against a row with ``r`` ones of ``m`` shares ``q·r/m`` on average (binomial
variance ``q·f(1−f)``, ``f = r/m``). A row's score is the excess over that background in
standard deviations, ``z = (shared − q·f) / sqrt(q·f(1−f))``; rows at or above the threshold
name their documents as candidates, which the caller then compares in detail (exact
containment from fingerprints, marked fragments from the aligner: the paper's second stage,
:func:`neardup.bloom.search.verify`).
"""

from __future__ import annotations

import io
import json
import math
import zipfile
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from neardup._kernels import pmbf
from neardup.bloom.classic import as_fingerprints
from neardup.bloom.sizing import bloom_size
from neardup.errors import (
    ConfigurationError,
    DuplicateIdError,
    InputError,
    NeardupError,
    NotFoundError,
    NotSupportedError,
    StorageError,
)

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

Placement = Literal["split", "whole"]
Measure = Literal["bits", "members"]
#: key → its sorted distinct fingerprints, for every key asked (a collection's stored sets)
Fetch = Callable[[Sequence[int]], Mapping[int, Any]]

FORMAT_VERSION = 1
_MAGIC = b"NDPMBF1\n"

#: The largest row (bits): the filter holds at least four rows in memory from the start.
MAX_ROW_BITS = 2**31

#: The hash seed is a 64-bit word of the kernels.
MAX_SEED = 2**64 - 1

#: What reading damaged bytes of a filter can raise, from the zip container (a bad CRC, a cut
#: central directory, an unknown compression method), numpy's array headers (a shape of 10^18
#: items: MemoryError or ValueError), the JSON, and the filter's own checks of its arrays.
DAMAGE = (
    zipfile.BadZipFile,
    zlib.error,
    NotImplementedError,
    ValueError,
    OSError,
    EOFError,
    KeyError,
    IndexError,
    TypeError,
    OverflowError,
    MemoryError,
    NeardupError,
)
#: the default score threshold, in standard deviations above the background
DEFAULT_THRESHOLD = 5.0
#: the default row capacity, in elements (fingerprints): about 40 news texts per row
DEFAULT_N = 20_000
DEFAULT_P = 0.05


@dataclass(frozen=True)
class Part:
    """The slice ``fingerprints[start:stop]`` of one document placed in ``row``."""

    row: int
    start: int
    stop: int

    @property
    def size(self) -> int:
        return self.stop - self.start


@dataclass(frozen=True)
class RowScores:
    """The similarity of one query against every row."""

    shared: I64  #: 1-bits set in both the query and the row
    expected: F64  #: the background: shared bits an unrelated query would have on average
    z: F64  #: (shared − expected) / its standard deviation
    query_ones: int
    row_ones: I64

    @property
    def excess(self) -> F64:
        """Shared bits above the background."""
        return self.shared - self.expected


@dataclass(frozen=True)
class Candidates:
    """Documents of the rows that scored at or above the threshold, best score first."""

    keys: I64
    scores: F64  #: the best z of the rows holding (a part of) the document
    rows: I64  #: the rows at or above the threshold, best first

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    def items(self) -> list[tuple[int, float]]:
        return list(zip(self.keys.tolist(), self.scores.tolist(), strict=True))


def _check_key(key: object) -> int:
    if isinstance(key, bool) or not isinstance(key, (int, np.integer)):
        raise InputError(f"a document key must be an integer, got {key!r}")
    return int(key)


class PseudoMatrixBloomFilter:
    """Equal-size Bloom filter rows, several documents per row (the pseudo-matrix Bloom filter
    paper).

    The verbs are those of a collection's candidate source: :meth:`add` (key, fingerprints),
    :meth:`remove` (key), :meth:`candidates` (fingerprints → keys with scores), and
    :meth:`to_arrays` / :meth:`from_arrays` (or bytes) for a storage backend to persist.
    """

    def __init__(
        self,
        *,
        n: int = DEFAULT_N,
        p: float = DEFAULT_P,
        k: int | None = None,
        seed: int = 0,
        placement: Placement = "split",
        min_part: int | None = None,
        max_docs_per_row: int | None = None,
        threshold: float = DEFAULT_THRESHOLD,
        measure: Measure = "bits",
        keep_fingerprints: bool = True,
        fetch: Fetch | None = None,
    ) -> None:
        size = bloom_size(n, p, k=k)
        if size.m > MAX_ROW_BITS:
            raise ConfigurationError(
                f"a row of n = {n:,} shingles at p = {p:g} needs m = {size.m:,} bits, over the "
                f"limit of {MAX_ROW_BITS:,} bits (256 MiB) a row"
            )
        if measure not in ("bits", "members"):
            raise ConfigurationError(f"measure must be 'bits' or 'members', got {measure!r}")
        if placement not in ("split", "whole"):
            raise ConfigurationError(f"placement must be 'split' or 'whole', got {placement!r}")
        if min_part is None:
            min_part = max(1, n // 16)
        if isinstance(min_part, bool) or not isinstance(min_part, int) or not 1 <= min_part <= n:
            raise ConfigurationError(f"min_part must be a whole number in 1…n, got {min_part!r}")
        if max_docs_per_row is not None and (
            isinstance(max_docs_per_row, bool)
            or not isinstance(max_docs_per_row, int)
            or max_docs_per_row < 1
        ):
            raise ConfigurationError(f"max_docs_per_row must be ≥ 1, got {max_docs_per_row!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise ConfigurationError(f"seed must be a whole number in 0…2^64 − 1, got {seed!r}")
        if not keep_fingerprints and fetch is None:
            raise ConfigurationError(
                "without keep_fingerprints the filter needs fetch (key → fingerprints) to "
                "rebuild rows on removal"
            )
        self.n = n
        self.p = float(p)
        self.k = size.k
        self.m = size.m
        self.seed = seed
        self.placement: Placement = placement
        self.min_part = min_part
        self.max_docs_per_row = max_docs_per_row
        self.threshold = float(threshold)
        self.measure: Measure = measure
        self.keep_fingerprints = keep_fingerprints
        self.fetch = fetch
        self.words = size.words
        self._rows: U64 = np.zeros((4, self.words), dtype=np.uint64)
        self._ones: I64 = np.zeros(4, dtype=np.int64)
        self._load: I64 = np.zeros(4, dtype=np.int64)
        self._ndocs: I64 = np.zeros(4, dtype=np.int64)  # documents in each row
        self._n_rows = 0
        self._docs: dict[int, tuple[Part, ...]] = {}
        self._row_docs: list[list[int]] = []
        self._sizes: dict[int, int] = {}
        self._store: dict[int, U64] = {}
        # the bit-sliced copy of the rows for the member count (built on the first such query,
        # then kept up to date row by row): ``(m, row capacity / 64)``
        self._sliced: U64 | None = None
        self._dirty: set[int] = set()
        # the free-space index as a max-tree for first-fit placement (built on the first add,
        # then kept up to date row by row): placing a document costs O(log rows), not O(rows)
        self._tree: I64 | None = None
        self._tree_dirty: set[int] = set()

    # --- parameters -------------------------------------------------------------------------
    def params(self) -> dict[str, Any]:
        """What rebuilds an empty filter of the same shape (stored with the arrays)."""
        return {
            "n": self.n,
            "p": self.p,
            "k": self.k,
            "m": self.m,
            "seed": self.seed,
            "placement": self.placement,
            "min_part": self.min_part,
            "max_docs_per_row": self.max_docs_per_row,
            "threshold": self.threshold,
            "measure": self.measure,
            "keep_fingerprints": self.keep_fingerprints,
        }

    @property
    def seed_word(self) -> np.uint64:
        """The seed as the kernels take it: always ``uint64``, so one compiled specialization
        serves every seed (a Python int past 2^63 after one below it would not convert)."""
        return np.uint64(self.seed)

    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, key: object) -> bool:
        return key in self._docs

    @property
    def n_rows(self) -> int:
        return self._n_rows

    @property
    def rows(self) -> U64:
        """The rows, a ``(n_rows, words)`` ``uint64`` matrix (a view: do not write to it)."""
        return self._rows[: self._n_rows]

    @property
    def row_ones(self) -> I64:
        return self._ones[: self._n_rows]

    @property
    def nbytes(self) -> int:
        """Bytes of the rows plus the placement index (4 int64 per part)."""
        parts = sum(len(p) for p in self._docs.values())
        return self._n_rows * self.words * 8 + parts * 32 + self._n_rows * 8

    def free_space(self) -> I64:
        """The free-space index: elements that still fit in each row (0 when full)."""
        return np.maximum(self.n - self._load[: self._n_rows], 0)

    def docs_per_row(self) -> I64:
        """How many documents (or parts of them) each row holds."""
        return self._ndocs[: self._n_rows].copy()

    def load(self) -> I64:
        """Elements placed in each row."""
        return self._load[: self._n_rows].copy()

    def placement_of(self, key: int) -> tuple[Part, ...]:
        """The parts of a document: which rows hold which slice of its fingerprints."""
        try:
            return self._docs[_check_key(key)]
        except KeyError:
            raise NotFoundError(f"document {key} is not in the filter") from None

    def docs_in_row(self, row: int) -> list[int]:
        if not 0 <= row < self._n_rows:
            raise InputError(f"row {row} out of range 0…{self._n_rows - 1}")
        return list(self._row_docs[row])

    def keys(self) -> list[int]:
        """Document keys in the order they were added."""
        return list(self._docs)

    # --- adding -----------------------------------------------------------------------------
    def _new_row(self) -> int:
        if self._n_rows == self._rows.shape[0]:
            cap = max(4, self._rows.shape[0] * 2)
            rows = np.zeros((cap, self.words), dtype=np.uint64)
            rows[: self._n_rows] = self._rows[: self._n_rows]
            self._rows = rows
            self._ones = np.concatenate([self._ones, np.zeros(cap - self._ones.shape[0], np.int64)])
            self._load = np.concatenate([self._load, np.zeros(cap - self._load.shape[0], np.int64)])
            self._ndocs = np.concatenate(
                [self._ndocs, np.zeros(cap - self._ndocs.shape[0], np.int64)]
            )
        row = self._n_rows
        self._n_rows += 1
        self._row_docs.append([])
        self._tree_dirty.add(row)
        return row

    def _room(self, rows: I64) -> I64:
        """What each row can still take: its free elements, :data:`pmbf.NO_ROOM` for a row
        closed by ``max_docs_per_row``."""
        room = self.n - self._load[rows]
        if self.max_docs_per_row is not None:
            room[self._ndocs[rows] >= self.max_docs_per_row] = pmbf.NO_ROOM
        return room

    def _free_tree(self) -> tuple[I64, int]:
        """The max-tree of the rows' room (:func:`pmbf.tree_build`) and its leaf count."""
        leaves = 1 << max(2, (self._rows.shape[0] - 1).bit_length())
        if self._tree is None or self._tree.shape[0] != 2 * leaves:
            self._tree = pmbf.tree_build(self._room(np.arange(self._n_rows)), leaves)
        elif self._tree_dirty:
            rows = np.array(sorted(self._tree_dirty), dtype=np.int64)
            pmbf.tree_set(self._tree, leaves, rows, self._room(rows))
        self._tree_dirty = set()
        return self._tree, leaves

    def _plan(self, size: int) -> list[Part]:
        """Where a document of ``size`` elements goes (new rows are numbered past the end)."""
        if size == 0:
            return []
        tree, leaves = self._free_tree()
        first = pmbf.tree_first(tree, leaves, size, 0)
        if first >= 0:
            return [Part(first, 0, size)]
        if self.placement == "whole":
            return [Part(self._n_rows, 0, size)]
        parts: list[Part] = []
        start = 0
        row = pmbf.tree_first(tree, leaves, self.min_part, 0)
        while start < size and row >= 0:  # rows with room for a part, in order
            take = min(self.n - int(self._load[row]), size - start)
            parts.append(Part(row, start, start + take))
            start += take
            row = pmbf.tree_first(tree, leaves, self.min_part, row + 1)
        row = self._n_rows
        while start < size:
            take = min(self.n, size - start)
            parts.append(Part(row, start, start + take))
            start += take
            row += 1
        return parts

    def add(self, key: int, fingerprints: object) -> tuple[Part, ...]:
        """Place a document (its sorted distinct fingerprints) and set its bits."""
        key = _check_key(key)
        if key in self._docs:
            raise DuplicateIdError(f"document {key} is already in the filter")
        values = as_fingerprints(fingerprints)
        parts = self._plan(int(values.shape[0]))
        for part in parts:
            while part.row >= self._n_rows:
                self._new_row()
            row = self._rows[part.row]
            pmbf.set_bits(row, values[part.start : part.stop], self.k, self.m, self.seed_word)
            self._ones[part.row] = pmbf.popcount_words(row)
            self._load[part.row] += part.size
            self._ndocs[part.row] += 1
            self._row_docs[part.row].append(key)
            self._dirty.add(part.row)
            self._tree_dirty.add(part.row)
        self._docs[key] = tuple(parts)
        self._sizes[key] = int(values.shape[0])
        if self.keep_fingerprints:
            self._store[key] = values
        return tuple(parts)

    def add_many(self, items: Iterable[tuple[int, object]]) -> None:
        for key, fingerprints in items:
            self.add(key, fingerprints)

    # --- removing ---------------------------------------------------------------------------
    def fingerprints_of(self, keys: Sequence[int]) -> dict[int, U64]:
        if not keys:
            return {}
        if self.keep_fingerprints:
            return {k: self._store[k] for k in keys}
        assert self.fetch is not None
        got = self.fetch(list(keys))
        out: dict[int, U64] = {}
        for k in keys:
            if k not in got:
                raise StorageError(f"fetch gave no fingerprints for document {k}")
            values = as_fingerprints(got[k], what=f"fingerprints of document {k}")
            if values.shape[0] != self._sizes[k]:
                raise StorageError(
                    f"fetch gave {values.shape[0]} fingerprints for document {k}, "
                    f"which was added with {self._sizes[k]}"
                )
            out[k] = values
        return out

    def rebuild_rows(self, rows: Iterable[int]) -> None:
        """Clear rows and set again the parts of the documents placed in them."""
        rows = sorted(set(rows))
        keys = sorted({k for r in rows for k in self._row_docs[r]})
        fps = self.fingerprints_of(keys)
        for r in rows:
            row = self._rows[r]
            row[:] = 0
            for key in self._row_docs[r]:
                values = fps[key]
                for part in self._docs[key]:
                    if part.row == r:
                        pmbf.set_bits(
                            row, values[part.start : part.stop], self.k, self.m, self.seed_word
                        )
            self._ones[r] = pmbf.popcount_words(row)
            self._dirty.add(r)

    def remove(self, key: int) -> list[int]:
        """Remove a document; only the rows that held it are rebuilt (returned)."""
        key = _check_key(key)
        parts = self._docs.pop(key, None)
        if parts is None:
            raise NotFoundError(f"document {key} is not in the filter")
        self._sizes.pop(key)
        self._store.pop(key, None)
        rows = sorted({p.row for p in parts})
        for part in parts:
            self._load[part.row] -= part.size
            self._ndocs[part.row] -= 1
            self._tree_dirty.add(part.row)
        for r in rows:
            self._row_docs[r] = [k for k in self._row_docs[r] if k != key]
        self.rebuild_rows(rows)
        return rows

    def compact(self) -> tuple[int, int]:
        """Re-pack every document, in the order added, into fresh rows (the paper's garbage
        collection of freed space). Returns the rows before and after."""
        before = self._n_rows
        keys = list(self._docs)
        fps = self.fingerprints_of(keys)
        fresh = self._empty_like()
        for key in keys:
            fresh.add(key, fps[key])
        self._rows, self._ones, self._load = fresh._rows, fresh._ones, fresh._load
        self._ndocs = fresh._ndocs
        self._n_rows, self._docs, self._row_docs = fresh._n_rows, fresh._docs, fresh._row_docs
        self._sizes = fresh._sizes
        self._sliced = None
        self._dirty = set()
        self._tree, self._tree_dirty = None, set()
        if self.keep_fingerprints:
            self._store = fresh._store
        return before, self._n_rows

    def _empty_like(self) -> PseudoMatrixBloomFilter:
        return type(self)._from_params(self.params(), fetch=self.fetch)

    @classmethod
    def _from_params(cls, params: Mapping[str, Any], fetch: Fetch | None) -> Any:
        return PseudoMatrixBloomFilter(
            n=int(params["n"]),
            p=float(params["p"]),
            k=int(params["k"]),
            seed=int(params["seed"]),
            placement=params["placement"],
            min_part=int(params["min_part"]),
            max_docs_per_row=(
                None if params["max_docs_per_row"] is None else int(params["max_docs_per_row"])
            ),
            threshold=float(params["threshold"]),
            measure=params.get("measure", "bits"),
            keep_fingerprints=bool(params["keep_fingerprints"]),
            fetch=fetch,
        )

    # --- querying ---------------------------------------------------------------------------
    def sliced(self) -> U64:
        """The bit-sliced copy of the rows, ``(m, capacity / 64)`` ``uint64``: row ``r``'s bit
        ``b`` is bit ``r % 64`` of ``[b, r // 64]``. Built on first use, then only the rows
        changed since are rewritten; rebuilt when the row capacity grows."""
        width = -(-self._rows.shape[0] // 64)
        if self._sliced is None or self._sliced.shape[1] != width:
            self._sliced = np.zeros((self.m, width), dtype=np.uint64)
            pmbf.slice_all(self._rows, self._n_rows, self.m, self._sliced)
        elif self._dirty:
            which = np.array(sorted(self._dirty), dtype=np.int64)
            pmbf.slice_rows(self._rows, which, self.m, self._sliced, True)
        self._dirty = set()
        return self._sliced

    def query_bits(self, fingerprints: object) -> U64:
        """The query hashed into one row-sized filter (all its fingerprints, any count)."""
        values = as_fingerprints(fingerprints, what="query fingerprints")
        q = np.zeros(self.words, dtype=np.uint64)
        pmbf.set_bits(q, values, self.k, self.m, self.seed_word)
        return q

    def _shared(self, values: U64, measure: Measure) -> tuple[I64, int]:
        """The similarity count of a query against every row, and the query's trials (its
        1-bits for ``bits``, its elements for ``members``)."""
        if measure == "bits":
            q = np.zeros(self.words, dtype=np.uint64)
            pmbf.set_bits(q, values, self.k, self.m, self.seed_word)
            return pmbf.and_popcount(self._rows, q, self._n_rows), pmbf.popcount_words(q)
        if measure == "members":
            pos = pmbf.positions(values, self.k, self.m, self.seed_word)
            shared = pmbf.sliced_member_counts(self.sliced(), pos, self.k, self._n_rows)
            return shared, int(values.shape[0])
        raise ConfigurationError(f"measure must be 'bits' or 'members', got {measure!r}")

    def _background(self, ones: I64, trials: int, measure: Measure) -> tuple[F64, F64]:
        """The shared count unrelated texts give rows of ``ones`` 1-bits, and its deviation
        (at least 1)."""
        f = ones / self.m
        rate = f if measure == "bits" else f**self.k
        expected = trials * rate
        return expected, np.sqrt(np.maximum(expected * (1.0 - rate), 1.0))

    def scores(self, fingerprints: object, *, measure: Measure | None = None) -> RowScores:
        """The query against every row, with the background and the z-score.

        ``measure="bits"`` (the paper's): shared 1-bits of the query's filter and the row,
        background ``q·f`` for a query of ``q`` ones and a row filled to ``f``.
        ``measure="members"``: query elements whose ``k`` bits are all set in the row,
        background ``|Q|·f^k`` (each unrelated element is a false positive with that chance).
        """
        measure = self.measure if measure is None else measure
        values = as_fingerprints(fingerprints, what="query fingerprints")
        shared, trials = self._shared(values, measure)
        ones = self._ones[: self._n_rows]
        expected, sd = self._background(ones, trials, measure)
        return RowScores(shared, expected, (shared - expected) / sd, trials, ones.copy())

    def candidates(
        self,
        fingerprints: object,
        *,
        threshold: float | None = None,
        max_rows: int | None = None,
        measure: Measure | None = None,
    ) -> Candidates:
        """Documents of the rows whose score is at least ``threshold`` (default: the filter's),
        best rows first, at most ``max_rows`` rows; a document's score is its best row's.

        The z-score is worked out only for rows whose count reaches a positive threshold:
        ``z ≥ t`` needs ``shared ≥ expected + t·sd ≥ t`` (the deviation is at least 1), so the
        other rows — nearly all, at a million documents — cannot score."""
        threshold = self.threshold if threshold is None else float(threshold)
        measure = self.measure if measure is None else measure
        if not math.isfinite(threshold):
            raise InputError(f"threshold must be a finite number, got {threshold!r}")
        if self._n_rows == 0:
            empty = np.zeros(0, dtype=np.int64)
            return Candidates(empty, np.zeros(0, dtype=np.float64), empty)
        values = as_fingerprints(fingerprints, what="query fingerprints")
        shared, trials = self._shared(values, measure)
        rows = np.flatnonzero(shared >= threshold) if threshold > 0 else np.arange(self._n_rows)
        expected, sd = self._background(self._ones[rows], trials, measure)
        z = (shared[rows] - expected) / sd
        hit = np.flatnonzero(z >= threshold)
        hit = hit[np.argsort(-z[hit], kind="stable")]
        if max_rows is not None:
            hit = hit[:max_rows]
        best: dict[int, float] = {}
        for r, score in zip(rows[hit].tolist(), z[hit].tolist(), strict=True):
            for key in self._row_docs[r]:
                if key not in best:
                    best[key] = score
        keys = np.fromiter(best.keys(), np.int64, len(best))
        scores = np.fromiter(best.values(), np.float64, len(best))
        return Candidates(keys, scores, rows[hit].astype(np.int64))

    # --- persistence ------------------------------------------------------------------------
    def to_arrays(self) -> dict[str, np.ndarray[Any, Any]]:
        """Everything as arrays, for a storage backend.

        ``params``: the JSON of :meth:`params` as ``uint8``; ``rows``: ``(n_rows, words)``
        ``uint64``; ``free``: the free-space index; ``placement``: ``(parts, 4)`` ``int64``
        rows ``(key, row, start, stop)``, documents in the order added; ``sizes``: ``(docs, 2)``
        ``(key, size)``; with kept fingerprints, ``fp_offsets`` and ``fp_values`` (the sets
        end to end, documents in the order added).
        """
        placement = [
            (key, p.row, p.start, p.stop) for key, parts in self._docs.items() for p in parts
        ]
        out: dict[str, np.ndarray[Any, Any]] = {
            "params": np.frombuffer(json.dumps(self.params()).encode(), dtype=np.uint8),
            "rows": self.rows.copy(),
            "free": self.free_space(),
            "placement": np.array(placement, dtype=np.int64).reshape(-1, 4),
            "sizes": np.array(list(self._sizes.items()), dtype=np.int64).reshape(-1, 2),
        }
        if self.keep_fingerprints:
            sets = [self._store[k] for k in self._docs]
            out["fp_offsets"] = np.cumsum([0] + [s.shape[0] for s in sets], dtype=np.int64)
            out["fp_values"] = np.concatenate(sets) if sets else np.zeros(0, np.uint64)
        return out

    @classmethod
    def from_arrays(
        cls, arrays: Mapping[str, np.ndarray[Any, Any]], *, fetch: Fetch | None = None
    ) -> PseudoMatrixBloomFilter:
        """The filter :meth:`to_arrays` gave (``fetch`` when fingerprints were not kept)."""
        try:
            params = json.loads(bytes(np.asarray(arrays["params"], dtype=np.uint8)).decode())
            self = cls._from_params(params, fetch)
            if self.m != int(params["m"]):
                raise StorageError(f"stored m {params['m']} but the sizing gives {self.m}")
            rows = np.asarray(arrays["rows"], dtype=np.uint64)
            placement = np.asarray(arrays["placement"], dtype=np.int64).reshape(-1, 4)
            sizes = np.asarray(arrays["sizes"], dtype=np.int64).reshape(-1, 2)
        except (KeyError, ValueError, TypeError) as exc:
            raise StorageError(f"not a pseudo-matrix Bloom filter: {exc}") from None
        if rows.ndim != 2 or rows.shape[1] != self.words:
            raise StorageError(f"rows of shape {rows.shape}, expected (…, {self.words})")
        for _ in range(rows.shape[0]):
            self._new_row()
        self._rows[: rows.shape[0]] = rows
        self._ones[: rows.shape[0]] = pmbf.popcount_rows(rows, rows.shape[0])
        docs: dict[int, list[Part]] = {}
        for key, row, start, stop in placement.tolist():
            if not 0 <= row < rows.shape[0]:
                raise StorageError(f"document {key} placed in row {row}, beyond the rows")
            docs.setdefault(key, []).append(Part(row, start, stop))
            self._load[row] += stop - start
            if key not in self._row_docs[row]:
                self._row_docs[row].append(key)
                self._ndocs[row] += 1
        self._sizes = {int(k): int(s) for k, s in sizes.tolist()}
        self._docs = {k: () for k in self._sizes}
        self._docs.update({k: tuple(v) for k, v in docs.items()})
        if self.keep_fingerprints:
            offsets = np.asarray(arrays["fp_offsets"], dtype=np.int64)
            values = np.asarray(arrays["fp_values"], dtype=np.uint64)
            for i, key in enumerate(self._docs):
                self._store[key] = values[offsets[i] : offsets[i + 1]]
        return self

    def to_bytes(self) -> bytes:
        """One self-describing blob: a magic line, then the arrays as an ``.npz``."""
        buf = io.BytesIO()
        buf.write(_MAGIC)
        arrays: dict[str, Any] = dict(self.to_arrays())
        np.savez(buf, **arrays)
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes, *, fetch: Fetch | None = None) -> PseudoMatrixBloomFilter:
        if not data.startswith(_MAGIC):
            raise StorageError("not a pseudo-matrix Bloom filter (bad magic bytes)")
        try:
            with np.load(io.BytesIO(data[len(_MAGIC) :]), allow_pickle=False) as npz:
                arrays = {name: npz[name] for name in npz.files}
            return cls.from_arrays(arrays, fetch=fetch)
        except StorageError:
            raise
        except DAMAGE as exc:
            reason = str(exc) or type(exc).__name__
            raise StorageError(f"a damaged pseudo-matrix Bloom filter: {reason}") from None


class MatrixBloomFilter(PseudoMatrixBloomFilter):
    """The matrix Bloom filter of Geravand and Ahmadi: one document per row, whole (a
    document larger than ``n`` over-fills its row). Compaction does not apply."""

    def __init__(
        self,
        *,
        n: int = DEFAULT_N,
        p: float = DEFAULT_P,
        k: int | None = None,
        seed: int = 0,
        threshold: float = DEFAULT_THRESHOLD,
        measure: Measure = "bits",
        keep_fingerprints: bool = True,
        fetch: Fetch | None = None,
    ) -> None:
        super().__init__(
            n=n,
            p=p,
            k=k,
            seed=seed,
            placement="whole",
            max_docs_per_row=1,
            threshold=threshold,
            measure=measure,
            keep_fingerprints=keep_fingerprints,
            fetch=fetch,
        )

    def compact(self) -> tuple[int, int]:
        raise NotSupportedError("a matrix Bloom filter keeps one document per row: no compaction")

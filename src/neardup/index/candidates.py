"""Candidate generation: which stored documents are worth an exact comparison with a text.

A generator turns a document's shingle fingerprints (in text order) into a short, sorted set of
*sample* values; the index keeps an inverted index ``sample → documents`` and a query's
candidates are the documents that share at least one sample with it, ranked by how many they
share. The index then verifies every candidate exactly (:mod:`neardup.index.verify`), so a
generator only decides recall and cost, never a reported number.

One generator exists now, :class:`Winnowing`. It suits both jobs of the collection: near
duplicates share many windows, and a partial copy — one paragraph of a source pasted into a
long essay — shares every window that lies inside the pasted run, so any run of at least
``window`` shared shingles (``window + k - 1`` words) is guaranteed a common sample, however
small the share of the essay it is. A text looks up every one of its shingles
(``IndexSpec.lookup = "shingles"``) against stored samples of a window of 11: a 5 % paste of
a 300-word text (15 words, 11 shingles) is certain to meet one, and a shorter or edited run
does whenever one of the source's samples lies inside it; collections made before keep their
window and look up their samples (``lookup = "samples"``). Broder's mod-m sampling keeps no
such guarantee: a run shorter than about ``m`` shingles may have no sample at all. MinHash LSH
band keys (neardup.sketch) and pseudo-matrix Bloom rows can be added later as other generators
with the same interface.

The collection asks *candidate sources* (:class:`CandidateSource`) for the pairs worth
verifying: a batch of analyzed texts in, ``(batch position, stored key)`` pairs out with the
evidence the source found for each, and the same among the texts of the batch.
:class:`PostingsSource` — the inverted index over a generator's samples, winnowing by default
— is the first, :class:`BloomRowsSource` the second; :func:`sources_for` lists the sources an
index spec asks for. The collection's candidate stage (:class:`~neardup.index.finding.
CandidateFinder`) holds them in a list and verifies the union of what they propose, so another
source — sentence-level or rewrite candidates — is one more class with the four methods,
appended to that list (or made an entry of :func:`sources_for`); scores, policy and writes do
not change.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from neardup._kernels.winnow import winnow
from neardup._sorted import distinct, distinct_counts
from neardup.bloom.pseudo_matrix import Fetch, PseudoMatrixBloomFilter
from neardup.errors import ConfigurationError, DamagedCollectionError, StorageError
from neardup.spec import CANDIDATE_LOOKUPS, IndexSpec
from neardup.storage.base import FilterState

if TYPE_CHECKING:
    from neardup.storage.base import NewDoc, Storage

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


@runtime_checkable
class CandidateGenerator(Protocol):
    """Turns a document's shingle fingerprints (text order) into its posting values."""

    name: str

    def samples(self, hashes: U64) -> U64:
        """The sorted distinct values to post for (or look up with) a document."""
        ...


class Winnowing:
    """The minimum (by a fixed remix) of every window of ``window`` consecutive shingles.

    Expected density ``2 / (window + 1)`` of the shingles; a text shorter than one window keeps
    its single minimum.
    """

    name = "winnow"

    def __init__(self, *, window: int = 24) -> None:
        if window < 1:
            raise ConfigurationError(f"the winnowing window must be at least 1, got {window}")
        self.window = window

    def samples(self, hashes: U64) -> U64:
        hashes = np.ascontiguousarray(hashes, dtype=np.uint64)
        return distinct(winnow(hashes, self.window))

    def __repr__(self) -> str:
        return f"Winnowing(window={self.window})"


class NoSamples:
    """No posting values at all: a collection whose only candidate source is the
    pseudo-matrix filter keeps no inverted index of shingles (its sentence keys, if any, are
    posted all the same)."""

    name = "pmbf"

    def samples(self, hashes: U64) -> U64:
        return np.zeros(0, dtype=np.uint64)

    def __repr__(self) -> str:
        return "NoSamples()"


def generator_for(spec: IndexSpec) -> CandidateGenerator:
    """The candidate generator an index spec names (winnowing's samples for ``winnow`` and
    ``both``; none for ``pmbf``)."""
    if spec.candidates in ("winnow", "both"):
        return Winnowing(window=spec.window)
    if spec.candidates == "pmbf":
        return NoSamples()
    raise ConfigurationError(f"unknown candidate method {spec.candidates!r}")


def rank(query_samples: U64, post_values: U64, post_keys: I64, limit: int) -> tuple[I64, I64]:
    """Candidates of one query from postings sorted by value: ``(keys, shared samples)``.

    The keys sharing the most samples come first (ties by smaller key); at most ``limit``.
    ``post_values`` must be sorted (``post_keys`` in the same order).
    """
    if query_samples.shape[0] == 0 or post_values.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    lo = np.searchsorted(post_values, query_samples, side="left")
    hi = np.searchsorted(post_values, query_samples, side="right")
    lengths = hi - lo
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    idx = np.repeat(lo - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
    keys, shared = distinct_counts(post_keys[idx])
    order = np.lexsort((keys, -shared))[:limit]
    return keys[order].astype(np.int64), shared[order].astype(np.int64)


def rank_many(
    query_values: U64, query_pos: I64, post_values: U64, post_keys: I64, limit: int
) -> tuple[I64, I64, I64]:
    """Candidates of many queries at once: ``(query position, key, shared samples)`` triples.

    ``query_values``/``query_pos`` are every query's samples with the query they belong to;
    ``post_values`` must be sorted. Per query the keys sharing the most samples come first
    (ties by smaller key), at most ``limit``; triples are ordered by query position.
    """
    empty = np.zeros(0, dtype=np.int64)
    if query_values.shape[0] == 0 or post_values.shape[0] == 0:
        return empty, empty, empty
    lo = np.searchsorted(post_values, query_values, side="left")
    hi = np.searchsorted(post_values, query_values, side="right")
    lengths = hi - lo
    total = int(lengths.sum())
    if total == 0:
        return empty, empty, empty
    idx = np.repeat(lo - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
    pos = np.repeat(query_pos, lengths)
    keys = post_keys[idx]
    # count each (query, key) pair: sort by both, then run lengths
    order = np.lexsort((keys, pos))
    pos, keys = pos[order], keys[order]
    start = np.flatnonzero(
        np.concatenate(([True], (pos[1:] != pos[:-1]) | (keys[1:] != keys[:-1])))
    )
    counts = np.diff(np.append(start, pos.shape[0]))
    pos, keys = pos[start], keys[start]
    # best first within each query, then keep the first ``limit`` of each
    order = np.lexsort((keys, -counts, pos))
    pos, keys, counts = pos[order], keys[order], counts[order]
    first = np.flatnonzero(np.concatenate(([True], pos[1:] != pos[:-1])))
    rank_in_query = np.arange(pos.shape[0]) - np.repeat(
        first, np.diff(np.append(first, pos.shape[0]))
    )
    keep = rank_in_query < limit
    return pos[keep].astype(np.int64), keys[keep].astype(np.int64), counts[keep].astype(np.int64)


# --- candidate sources --------------------------------------------------------------------------


class Query(Protocol):
    """A text as the candidate sources see it (:class:`~neardup.index.IndexableText` is one)."""

    @property
    def values(self) -> U64: ...

    @property
    def counts(self) -> I64 | None: ...

    @property
    def samples(self) -> U64: ...

    @property
    def lookups(self) -> U64:
        """The values a query looks up: its samples, or — under a length-adaptive spec — its
        samples and its words arranged so that long texts meet short ones through words but
        never each other (:meth:`neardup.index.short.ShortRule.samples`)."""
        ...

    @property
    def sentence_keys(self) -> U64 | None:
        """The band keys of its sentences, a row a sentence (:mod:`neardup.index.sentences`),
        or ``None`` when the collection keeps none."""
        ...


@dataclass(frozen=True)
class CandidatePairs:
    """Pairs worth verifying: ``pos[i]`` (a batch position) with ``other[i]``, and the evidence
    the source found for each.

    ``other`` is a stored document's key (:meth:`CandidateSource.stored`) or an earlier batch
    position (:meth:`CandidateSource.in_batch`). Pairs are ordered by ``pos``, each position's
    best candidates first, and hold no pair twice. ``evidence[i]`` is how strongly the source
    proposes pair ``i``, in the source's own unit (the postings: the looked-up values shared;
    the Bloom rows: the best row's z-score); ``None`` when the source gives none, and for a
    union of several sources, whose units differ (each source's own pairs keep theirs, see
    :class:`~neardup.index.finding.Proposals`). Evidence only explains a proposal: every pair is
    verified exactly, so it never changes a reported number.
    """

    pos: I64
    other: I64
    evidence: F64 | None = None

    @classmethod
    def empty(cls) -> CandidatePairs:
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))

    def __len__(self) -> int:
        return int(self.pos.shape[0])

    @classmethod
    def union(cls, parts: Sequence[CandidatePairs]) -> CandidatePairs:
        """Every pair any part proposes, once, ordered by position (a lone part as it is; the
        evidence of several parts is dropped, being in different units)."""
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return cls.empty()
        pos = np.concatenate([p.pos for p in parts])
        other = np.concatenate([p.other for p in parts])
        _, first = np.unique(np.stack((pos, other)), axis=1, return_index=True)
        first = np.sort(first)
        order = np.argsort(pos[first], kind="stable")
        return cls(pos[first][order], other[first][order])


@runtime_checkable
class CandidateSource(Protocol):
    """Proposes the documents a batch of texts is verified against.

    A source decides recall and cost only: the collection verifies every pair exactly, and a
    pair proposed by two sources is verified once.
    """

    name: str

    def stored(self, queries: Sequence[Query], storage: Storage) -> CandidatePairs:
        """Stored documents worth verifying against each query."""
        ...

    def in_batch(self, queries: Sequence[Query]) -> CandidatePairs:
        """Earlier queries of the same batch worth verifying against each query."""
        ...

    def inserted(self, docs: Sequence[NewDoc], storage: Storage) -> None:
        """Documents were just stored (inside the write's transaction): keep any state of
        the source's own in step, through the storage."""
        ...

    def removing(self, keys: Sequence[int], storage: Storage) -> None:
        """Documents are about to be deleted (inside the transaction, still readable)."""
        ...


def _flat_samples(
    queries: Sequence[Query], *, lookups: bool = False, shingles: bool = False
) -> tuple[U64, I64]:
    """Every query's samples (or ``lookups``; with ``shingles`` its lookups and every one of its
    shingles, each value once) end to end, with the position of the query each belongs to."""
    n = len(queries)
    if not n:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    if shingles:
        arrays = [distinct(np.concatenate((q.lookups, q.values))) for q in queries]
    else:
        arrays = [q.lookups if lookups else q.samples for q in queries]
    lengths = np.array([a.shape[0] for a in arrays], dtype=np.int64)
    values = np.concatenate(arrays).astype(np.uint64)
    return values, np.repeat(np.arange(n, dtype=np.int64), lengths)


def sorted_postings(values: U64, keys: I64, limit_per_value: int) -> tuple[U64, I64]:
    """Postings sorted by (value, key), each value's newest ``limit_per_value`` keys only."""
    order = np.lexsort((keys, values))
    values, keys = values[order], keys[order]
    if limit_per_value and values.shape[0] > limit_per_value:
        last = np.flatnonzero(np.concatenate((values[1:] != values[:-1], [True])))
        to_end = np.repeat(last, np.diff(np.concatenate(([-1], last)))) - np.arange(values.shape[0])
        keep = to_end < limit_per_value
        values, keys = values[keep], keys[keep]
    return values, keys


def limit_per_group(pos: I64, other: I64, limit: int) -> tuple[I64, I64]:
    """Keep the first ``limit`` entries of each run of equal ``pos`` (already grouped)."""
    if pos.shape[0] == 0:
        return pos, other
    first = np.flatnonzero(np.concatenate(([True], pos[1:] != pos[:-1])))
    rank_in = np.arange(pos.shape[0]) - np.repeat(first, np.diff(np.append(first, pos.shape[0])))
    keep = rank_in < limit
    return pos[keep], other[keep]


class PostingsSource:
    """Candidates from the inverted index ``sample → documents`` of a generator's samples.

    A query looks up its own samples (``lookup="samples"``) or every one of its shingles
    (``lookup="shingles"``, the default). Stored documents post the minimum of
    every window of ``w`` shingles, so with every shingle looked up, any run of ``w`` shingles
    a query shares with a stored document holds one of that document's samples, wherever the
    run lies in the query — a paragraph pasted into a long essay, whose edges the essay's own
    words surround, is found as surely as a whole copy; a run shorter than ``w`` is found when
    it holds one of the stored samples (about ``2 / (w + 1)`` of its shingles each). With
    samples alone, both sides must choose the same minimum, which the guarantee gives only for
    runs of ``w`` and chance less often below it. Lookups cost a query's distinct shingles
    instead of its samples; the postings, and so the stored index, are the same either way.

    A query's candidates are the documents sharing at least one looked-up value, those sharing
    the most first (ties by the smaller key), at most ``max_candidates``; a sample posted by
    more than ``max_postings_per_sample`` documents brings only its newest that many (0: all).
    """

    def __init__(
        self,
        generator: CandidateGenerator,
        *,
        max_candidates: int,
        max_postings_per_sample: int,
        lookup: str = "samples",
    ) -> None:
        if lookup not in CANDIDATE_LOOKUPS:
            raise ConfigurationError(
                f"unknown lookup {lookup!r}: expected one of samples, shingles"
            )
        self.generator = generator
        self.name = generator.name
        self.max_candidates = max_candidates
        self.max_postings_per_sample = max_postings_per_sample
        self.lookup = lookup

    def lookups(self, queries: Sequence[Query]) -> tuple[U64, I64]:
        """What the queries look up, end to end, with the position each value belongs to."""
        return _flat_samples(queries, lookups=True, shingles=self.lookup == "shingles")

    def postings(self, unique_samples: U64, storage: Storage) -> tuple[U64, I64]:
        """Stored postings of the samples, sorted by (value, key), frequent values capped."""
        cap = self.max_postings_per_sample
        pv, pk = storage.postings(unique_samples, limit_per_value=cap)
        return sorted_postings(pv, pk, cap)

    def stored(self, queries: Sequence[Query], storage: Storage) -> CandidatePairs:
        values, pos = self.lookups(queries)
        if not values.shape[0]:
            return CandidatePairs.empty()
        pv, pk = self.postings(distinct(values), storage)
        st_pos, st_key, shared = rank_many(values, pos, pv, pk, self.max_candidates)
        return CandidatePairs(st_pos, st_key, shared.astype(np.float64))

    def in_batch(self, queries: Sequence[Query]) -> CandidatePairs:
        values, pos = self.lookups(queries)
        posted, owner = _flat_samples(queries)
        order = np.lexsort((owner, posted))
        ib_pos, ib_other, _ = rank_many(values, pos, posted[order], owner[order], len(queries))
        keep = ib_other < ib_pos
        ib_pos, ib_other = limit_per_group(ib_pos[keep], ib_other[keep], self.max_candidates)
        return CandidatePairs(ib_pos, ib_other)

    def inserted(self, docs: Sequence[NewDoc], storage: Storage) -> None:
        """Nothing to do: the storage posts each document's samples as it stores it."""

    def removing(self, keys: Sequence[int], storage: Storage) -> None:
        """Nothing to do: the storage drops a document's postings with it."""

    def __repr__(self) -> str:
        return (
            f"PostingsSource({self.generator!r}, max_candidates={self.max_candidates}, "
            f"max_postings_per_sample={self.max_postings_per_sample}, lookup={self.lookup!r})"
        )


class BloomRowsSource:
    """Candidates from the pseudo-matrix Bloom filter paper's filter (:mod:`neardup.bloom`).

    Every stored document's fingerprints are placed in rows of ``pmbf_n`` shingles at rate
    ``pmbf_p`` (the ``split`` placement); a query's candidates are the documents of the rows
    whose count of query shingles present stands ``THRESHOLD`` standard deviations above the
    background, best rows first, at most ``pmbf_max_rows`` rows and ``max_candidates``
    documents. The rows, their free space and the placement index live in the storage
    (:meth:`Storage.pmbf_state`, written row by row with :meth:`Storage.write_pmbf`); this
    object holds the filter loaded from there, and reloads it whenever the collection's
    ``pmbf_generation`` (a token every write of the filter replaces, in the same transaction)
    is not the one it loaded or wrote, so other processes' writes and rolled-back ones are
    seen. The filter keeps no fingerprints: rebuilding a row on removal fetches its remaining
    documents' sets from the storage.

    Within a batch, texts are paired exactly by shared shingles (no filter needed for a few
    thousand texts held in memory).
    """

    name = "pmbf"
    #: the row score (z, standard deviations above the background) that names a row's documents
    THRESHOLD = 5.0
    GENERATION = "pmbf_generation"

    def __init__(self, spec: IndexSpec) -> None:
        self.spec = spec
        self.max_candidates = spec.max_candidates
        self.max_rows = spec.pmbf_max_rows or None
        self._filter: PseudoMatrixBloomFilter | None = None
        self._generation: str | None = None
        self._storage: Storage | None = None

    def empty_filter(self, fetch: Fetch) -> PseudoMatrixBloomFilter:
        return PseudoMatrixBloomFilter(
            n=self.spec.pmbf_n,
            p=self.spec.pmbf_p,
            placement="split",
            measure="members",
            threshold=self.THRESHOLD,
            keep_fingerprints=False,
            fetch=fetch,
        )

    @staticmethod
    def _fetcher(storage: Storage) -> Fetch:
        """The stored fingerprint sets of some keys (what rebuilding a row needs)."""

        def fetch(keys: Sequence[int]) -> dict[int, U64]:
            return {f.key: f.values for f in storage.fingerprints(keys)}

        return fetch

    def current(self, storage: Storage) -> PseudoMatrixBloomFilter:
        """The filter as stored now (reloaded if another write changed it)."""
        generation = storage.read_meta().get(self.GENERATION, "")
        if self._filter is None or generation != self._generation or storage is not self._storage:
            self._storage = storage
            self._filter = self.load(storage)
            self._generation = generation
        return self._filter

    def load(self, storage: Storage) -> PseudoMatrixBloomFilter:
        """The filter from the storage's rows and placement index (damage is refused)."""
        state = storage.pmbf_state()
        empty = self.empty_filter(self._fetcher(storage))
        n_rows = int(state.rows.shape[0])
        if not np.array_equal(state.rows, np.arange(n_rows)):
            raise DamagedCollectionError("the stored Bloom filter rows are not numbered 0…n-1")
        if n_rows and state.bits.shape[1] != empty.words:
            raise DamagedCollectionError(
                f"the stored Bloom filter rows hold {state.bits.shape[1]} words, "
                f"the index spec's rows {empty.words}"
            )
        parts = state.parts
        keys, first = np.unique(parts[:, 0], return_index=True)
        sizes = np.add.reduceat(parts[:, 3] - parts[:, 2], first) if parts.shape[0] else keys
        arrays: dict[str, np.ndarray[Any, Any]] = {
            "params": np.frombuffer(json.dumps(empty.params()).encode(), dtype=np.uint8),
            "rows": state.bits.reshape(n_rows, empty.words),
            "placement": parts,
            "sizes": np.stack((keys, sizes), axis=1) if keys.shape[0] else parts[:, :2],
        }
        try:
            loaded = PseudoMatrixBloomFilter.from_arrays(arrays, fetch=self._fetcher(storage))
        except StorageError as exc:
            raise DamagedCollectionError(f"the stored Bloom filter is damaged: {exc}") from None
        if not np.array_equal(loaded.free_space(), state.free):
            raise DamagedCollectionError(
                "the stored Bloom filter's free-space index disagrees with its placement index"
            )
        return loaded

    def _save(
        self,
        f: PseudoMatrixBloomFilter,
        storage: Storage,
        rows: Sequence[int],
        parts: I64,
        drop_keys: Sequence[int] = (),
    ) -> None:
        which = np.array(sorted(set(rows)), dtype=np.int64)
        storage.write_pmbf(
            FilterState(which, f.rows[which], f.free_space()[which], parts),
            drop_keys=drop_keys,
        )
        token = uuid.uuid4().hex
        storage.write_meta({self.GENERATION: token})
        self._generation = token

    def stored(self, queries: Sequence[Query], storage: Storage) -> CandidatePairs:
        f = self.current(storage)
        if not len(f) or not queries:
            return CandidatePairs.empty()
        pos: list[I64] = []
        other: list[I64] = []
        scores: list[F64] = []
        for i, q in enumerate(queries):
            if not q.values.shape[0]:
                continue
            found = f.candidates(q.values, max_rows=self.max_rows)
            keys = found.keys[: self.max_candidates]
            pos.append(np.full(keys.shape[0], i, dtype=np.int64))
            other.append(keys)
            scores.append(found.scores[: self.max_candidates].astype(np.float64))
        if not pos:
            return CandidatePairs.empty()
        return CandidatePairs(np.concatenate(pos), np.concatenate(other), np.concatenate(scores))

    def in_batch(self, queries: Sequence[Query]) -> CandidatePairs:
        n = len(queries)
        if n < 2:
            return CandidatePairs.empty()
        lengths = np.array([q.values.shape[0] for q in queries], dtype=np.int64)
        values = np.concatenate([q.values for q in queries]).astype(np.uint64)
        qpos = np.repeat(np.arange(n, dtype=np.int64), lengths)
        order = np.lexsort((qpos, values))
        ib_pos, ib_other, _ = rank_many(values, qpos, values[order], qpos[order], n)
        keep = ib_other < ib_pos
        ib_pos, ib_other = limit_per_group(ib_pos[keep], ib_other[keep], self.max_candidates)
        return CandidatePairs(ib_pos, ib_other)

    def inserted(self, docs: Sequence[NewDoc], storage: Storage) -> None:
        try:
            self._insert(docs, storage)
        except BaseException:
            self.forget()  # the filter may hold part of what the rolled-back write held
            raise

    def _insert(self, docs: Sequence[NewDoc], storage: Storage) -> None:
        f = self.current(storage)
        rows: list[int] = []
        parts: list[tuple[int, int, int, int]] = []
        for d in docs:
            if d.values.shape[0]:
                for part in f.add(d.key, d.values):
                    rows.append(part.row)
                    parts.append((d.key, part.row, part.start, part.stop))
        if parts:
            self._save(f, storage, rows, np.array(parts, dtype=np.int64))

    def removing(self, keys: Sequence[int], storage: Storage) -> None:
        try:
            self._remove(keys, storage)
        except BaseException:
            self.forget()
            raise

    def _remove(self, keys: Sequence[int], storage: Storage) -> None:
        f = self.current(storage)
        present = [int(k) for k in keys if int(k) in f]
        rows: list[int] = []
        for key in present:
            rows.extend(f.remove(key))
        if present:
            self._save(f, storage, rows, np.zeros((0, 4), np.int64), drop_keys=present)

    def problems(self, storage: Storage) -> list[str]:
        """What an integrity check finds wrong with the stored filter: documents missing from
        it or placed with the wrong size, parts of documents not stored, and rows whose bits
        are not exactly their documents' parts (rebuilt from the stored fingerprints)."""
        try:
            f = self.load(storage)
        except DamagedCollectionError as exc:
            return [str(exc)]
        out: list[str] = []
        sizes = {
            s.key: int(s.values.shape[0])
            for batch in storage.iter_fingerprints()
            for s in batch
            if s.values.shape[0]
        }
        placed = {k: sum(p.size for p in f.placement_of(k)) for k in f.keys()}
        for key in sorted(sizes.keys() - placed.keys()):
            out.append(f"doc {key} is not in the Bloom filter")
        for key in sorted(placed.keys() - sizes.keys()):
            out.append(f"the Bloom filter holds doc {key}, which is not stored")
        for key in sorted(sizes.keys() & placed.keys()):
            if sizes[key] != placed[key]:
                out.append(f"doc {key} has {sizes[key]} fingerprints, {placed[key]} in the filter")
        if out:
            return out
        rebuilt = self.load(storage)
        rebuilt.rebuild_rows(range(rebuilt.n_rows))
        wrong = np.flatnonzero(np.any(rebuilt.rows != f.rows, axis=1)).tolist()
        if wrong:
            out.append(
                f"Bloom filter rows {wrong[:5]}{' …' if len(wrong) > 5 else ''} are not the "
                "bits of the documents placed in them"
            )
        return out

    def forget(self) -> None:
        """Drop the loaded filter (after a failed write): the next use reloads it."""
        self._filter, self._generation = None, None

    def __repr__(self) -> str:
        return (
            f"BloomRowsSource(n={self.spec.pmbf_n}, p={self.spec.pmbf_p}, "
            f"max_rows={self.max_rows}, max_candidates={self.max_candidates})"
        )


#: The name the sentence source's proposals go by (:class:`~neardup.index.finding.Proposals`).
SENTENCES = "sentences"
#: The stored documents a text's sentence keys propose for exact verification, best first.
SENTENCE_CANDIDATES = 30
#: A shared sentence key weighs ``ln(1 + RARITY / postings)``: the rarer, the more.
RARITY = 200.0


class SentenceSource:
    """Candidates from the postings of sentence band keys (:mod:`neardup.index.sentences`).

    ``max_candidates`` documents a text at most, those with the strongest sentence evidence
    first; a key posted by more than ``max_postings_per_sample`` documents brings only its
    newest that many (0: all), as the postings source reads them.
    """

    name = SENTENCES
    #: Not asked by adds: their decisions are on whole texts, which a sentence never decides.
    checks_only = True

    def __init__(
        self,
        *,
        max_candidates: int = SENTENCE_CANDIDATES,
        max_postings_per_sample: int,
    ) -> None:
        self.max_candidates = max_candidates
        self.max_postings_per_sample = max_postings_per_sample

    def stored(self, queries: Sequence[Query], storage: Storage) -> CandidatePairs:
        rows = [q.sentence_keys for q in queries]
        blocks = [(i, r) for i, r in enumerate(rows) if r is not None and r.shape[0]]
        if not blocks:
            return CandidatePairs.empty()
        values = np.concatenate([r.reshape(-1) for _, r in blocks]).astype(np.uint64)
        # each looked-up key with its sentence (numbered across the queries), each sentence
        # with its query
        counts = np.array([r.shape[0] for _, r in blocks], dtype=np.int64)
        bands = blocks[0][1].shape[1]
        sentence = np.repeat(np.arange(int(counts.sum()), dtype=np.int64), bands)
        owner = np.repeat(np.array([i for i, _ in blocks], dtype=np.int64), counts)
        cap = self.max_postings_per_sample
        pv, pk = storage.postings(distinct(values), limit_per_value=cap)
        pv, pk = sorted_postings(pv, pk, cap)
        return rank_sentences(values, sentence, owner, pv, pk, self.max_candidates)

    def in_batch(self, queries: Sequence[Query]) -> CandidatePairs:
        """Nothing: adds do not ask this source."""
        return CandidatePairs.empty()

    def inserted(self, docs: Sequence[NewDoc], storage: Storage) -> None:
        """Nothing to do: the keys are among the samples the storage posts."""

    def removing(self, keys: Sequence[int], storage: Storage) -> None:
        """Nothing to do: the storage drops a document's postings with it."""

    def __repr__(self) -> str:
        return (
            f"SentenceSource(max_candidates={self.max_candidates}, "
            f"max_postings_per_sample={self.max_postings_per_sample})"
        )


def _runs(*columns: npt.NDArray[Any]) -> I64:
    """Where each run of equal rows of ``columns`` (sorted by them) starts."""
    n = columns[0].shape[0]
    differs = np.zeros(n, dtype=np.bool_)
    if n:
        differs[0] = True
        for c in columns:
            differs[1:] |= c[1:] != c[:-1]
    return np.flatnonzero(differs)


def _rank_in_runs(starts: I64, n: int) -> I64:
    """Each row's place in its run (runs starting at ``starts``)."""
    return np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n)))


def rank_sentences(
    values: U64, sentence: I64, owner: I64, post_values: U64, post_keys: I64, limit: int
) -> CandidatePairs:
    """The candidates of the sentence keys ``values`` (``sentence[i]`` the sentence key ``i``
    belongs to, ``owner`` each sentence's query) in postings sorted by value.

    A document's evidence is, over the query's sentences, the largest sum of the *rarity* of
    the keys one sentence shares with it, ``ln(1 + RARITY / postings)``: about 5.3 for a key
    one document posts, 0.7 for one 200 do — each shared band counts, a rare one most. Per
    query at most ``limit`` documents, taken in turns over the sentences they are strongest
    for (every sentence's best document, strongest first; then every sentence's second best,
    …: a sentence many stored texts repeat, boilerplate, takes a turn, not every place; ties:
    smaller key).
    """
    if not values.shape[0] or not post_values.shape[0]:
        return CandidatePairs.empty()
    lo = np.searchsorted(post_values, values, side="left")
    hi = np.searchsorted(post_values, values, side="right")
    lengths = hi - lo
    total = int(lengths.sum())
    if not total:
        return CandidatePairs.empty()
    idx = np.repeat(lo - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
    sent = np.repeat(sentence, lengths)
    keys = post_keys[idx]
    weight = np.repeat(np.log1p(RARITY / np.maximum(lengths, 1)), lengths)
    # sum per (sentence, document)
    order = np.lexsort((keys, sent))
    sent, keys, weight = sent[order], keys[order], weight[order]
    first = _runs(sent, keys)
    score = np.add.reduceat(weight, first)
    sent, keys = sent[first], keys[first]
    pos = owner[sent]
    # each document once: at its best sentence (ties: the first sentence)
    order = np.lexsort((sent, -score, keys, pos))
    pos, keys, score, sent = pos[order], keys[order], score[order], sent[order]
    first = _runs(pos, keys)
    pos, keys, score, sent = pos[first], keys[first], score[first], sent[first]
    # its place among the documents of that sentence, then turns over the sentences
    order = np.lexsort((keys, -score, sent))
    pos, keys, score, sent = pos[order], keys[order], score[order], sent[order]
    turn = _rank_in_runs(_runs(sent), sent.shape[0])
    order = np.lexsort((keys, -score, turn, pos))
    pos, keys, score = pos[order], keys[order], score[order]
    keep = _rank_in_runs(_runs(pos), pos.shape[0]) < limit
    return CandidatePairs(pos[keep], keys[keep], score[keep])


def sources_for(spec: IndexSpec, generator: CandidateGenerator) -> tuple[CandidateSource, ...]:
    """The candidate sources of a collection: the postings of its generator's samples
    (``winnow``), the pseudo-matrix filter (``pmbf``), or both; and the sentence keys'
    postings (:class:`~neardup.index.sentences.SentenceSource`) when the index spec posts
    them (``sentence_bands``)."""
    postings = PostingsSource(
        generator,
        max_candidates=spec.max_candidates,
        max_postings_per_sample=spec.max_postings_per_sample,
        lookup=spec.lookup,
    )
    if spec.candidates == "winnow":
        found: tuple[CandidateSource, ...] = (postings,)
    elif spec.candidates == "pmbf":
        found = (BloomRowsSource(spec),)
    elif spec.candidates == "both":
        found = (postings, BloomRowsSource(spec))
    else:
        raise ConfigurationError(f"unknown candidate method {spec.candidates!r}")
    if spec.sentence_bands:
        found += (SentenceSource(max_postings_per_sample=spec.max_postings_per_sample),)
    return found

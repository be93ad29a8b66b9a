"""The collection: a durable store of texts that checks every new text before it goes in.

This is seed 000's task: a store where each new text is compared with everything already there;
a text too similar to a member is refused (policy ``reject``), or admitted into the duplicate
group of its near-duplicates while that group stays under a cap (``group``), or admitted with
its links recorded (``allow``). Seed 004's "uniqueness %" of a text is the share of its
shingles found in no document of the collection.

How a text is checked:

1. analysis — the :class:`~neardup.pipeline.Pipeline` of the stored spec gives the shingle
   fingerprints in text order; their sorted distinct set is what gets compared, and the
   candidate generator (winnowing) picks the sample that goes into the inverted index;
2. candidates — documents sharing a sample, ranked by how many they share (at most
   ``max_candidates``);
3. verification — every candidate is re-scored exactly from its stored fingerprint set; nothing
   estimated is ever reported. Under a length-adaptive spec a short pair (the shorter text has
   fewer than ``short_below`` canonical tokens) is scored on the short shingles instead, from
   the stored text (:mod:`neardup.index.short`), as ``compare`` scores it;
4. decision — by the policy, on the chosen measure against the threshold.

``add_many`` works in batches: analysis of a batch outside any lock, then one write transaction
that looks up candidates for the whole batch, decides document by document (later documents of
the batch see the earlier admitted ones), and commits the batch at once. A batch is acknowledged
(its decisions yielded) only after its commit, so a process killed at any moment leaves every
acknowledged document whole and no document half-written.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import sys
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import IO, Any, Self

import numpy as np
import numpy.typing as npt

from neardup import __version__
from neardup._kernels.winnow import shared_pairs
from neardup._sorted import distinct, distinct_counts
from neardup.batch_shingles import BatchShingler, ShingledBatch
from neardup.errors import (
    ConfigurationError,
    DamagedCollectionError,
    DuplicateIdError,
    InputError,
    NotFoundError,
    NotSupportedError,
    SpecMismatchError,
    StorageError,
    TextLengthError,
)
from neardup.index.candidates import (
    BloomRowsSource,
    CandidateGenerator,
    CandidatePairs,
    CandidateSource,
    NoSamples,
    Winnowing,
    generator_for,
    sources_for,
)
from neardup.index.groups import UnionFind, components
from neardup.index.policy import LENGTH_REASONS, Policy, Reason, Verdict
from neardup.index.short import TAG, ShortForm, ShortRule
from neardup.index.sizes import KnownSizes
from neardup.index.verify import set_size, verify
from neardup.pipeline import Pipeline, TextLike, as_text
from neardup.shingles import shingle
from neardup.similarity import Fingerprints, Measures, measures_from_counts
from neardup.spec import IndexSpec, Spec
from neardup.storage import FORMAT_VERSION, Link, NewDoc, Storage, open_storage
from neardup.storage.base import DocInfo, PackedFingerprints, StoredFingerprints

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

DEFAULT_BATCH = 256
_NONE = np.zeros(0, dtype=np.uint64)


# --- records ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Analyzed:
    """A text ready for the index: its fingerprint set and sample (:meth:`Collection.analyze`)."""

    values: U64
    counts: I64 | None
    samples: U64
    text: str | None = None
    #: Characters of the decoded text (what ``IndexSpec.min_length``/``max_length`` limit).
    length: int = 0
    #: Its canonical token count and short fingerprints, under a length-adaptive spec.
    short: ShortForm | None = None
    #: What it looks up, when that is not its samples (:attr:`lookups`).
    probes: U64 | None = None

    @property
    def lookups(self) -> U64:
        """The values looked up for its candidates: its samples, or under a length-adaptive
        spec its samples and its words as :meth:`~neardup.index.short.ShortRule.samples`
        arranges them (what it posts and what it looks up then differ)."""
        return self.samples if self.probes is None else self.probes

    @property
    def size(self) -> int:
        return set_size(self.values, self.counts)

    @property
    def fingerprints(self) -> Fingerprints:
        return Fingerprints(self.values, self.counts)


@dataclass(frozen=True)
class Match:
    """A stored document and its exact measures against the text checked.

    ``containment_query_in_doc`` is the share of the text's shingles found in the document;
    ``containment_doc_in_query`` the share of the document's shingles found in the text.
    """

    id: str
    key: int
    resemblance: float
    containment_query_in_doc: float
    containment_doc_in_query: float
    shared: int
    shingles: int
    group: int
    #: The combined score (:mod:`neardup.combined`) when ``check(..., combined=True)`` asked.
    combined: float | None = None

    @property
    def strength(self) -> float:
        """The strongest evidence: the largest of resemblance and both containments."""
        return max(self.resemblance, self.containment_query_in_doc, self.containment_doc_in_query)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "resemblance": self.resemblance,
            "containment_query_in_doc": self.containment_query_in_doc,
            "containment_doc_in_query": self.containment_doc_in_query,
            "shared": self.shared,
            "shingles": self.shingles,
            "group": self.group,
            **({"combined": self.combined} if self.combined is not None else {}),
        }


@dataclass(frozen=True)
class Decision:
    """What ``add`` did with one text.

    ``reason``: ``new`` (admitted, no near-duplicate), ``duplicate`` (refused under ``reject``),
    ``grouped`` (admitted into a duplicate group), ``group_full`` (refused: the group is at its
    cap), ``linked`` (admitted under ``allow`` with links to its near-duplicates), ``too_short``
    / ``too_long`` (refused: outside the collection's length range; ``detail`` says the text's
    length and the range, and ``matches`` stay empty), ``unchecked`` (admitted by a bulk load,
    ``check=False``, compared with nothing). ``matches``
    are the members at or above the threshold, strongest first. ``group`` is the group the text
    joined (or, for ``group_full``, would have joined); ``key`` its internal key when admitted.
    """

    id: str
    accepted: bool
    reason: str
    matches: tuple[Match, ...] = ()
    group: int | None = None
    key: int | None = None
    shingles: int = 0
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "accepted": self.accepted,
            "reason": self.reason,
            "group": self.group,
            "shingles": self.shingles,
            "matches": [m.to_dict() for m in self.matches],
        }
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass(frozen=True)
class CheckResult:
    """The verdict on a text against the collection, without storing it.

    ``uniqueness`` is the share (0…1) of the text's distinct shingles found in no document the
    index found (the union of the shingles matched over every verified candidate).
    ``matches`` are verified candidates that share at least one shingle, strongest first
    (:attr:`Match.strength`, then resemblance, then id). ``would`` is what ``add`` would decide.
    """

    uniqueness: float
    shingles: int
    candidates: int
    matches: tuple[Match, ...]
    would: Decision

    def to_dict(self) -> dict[str, Any]:
        return {
            "uniqueness": self.uniqueness,
            "uniqueness_percent": round(100.0 * self.uniqueness, 2),
            "shingles": self.shingles,
            "candidates": self.candidates,
            "decision": {
                "accepted": self.would.accepted,
                "reason": self.would.reason,
                "group": self.would.group,
                **({"detail": self.would.detail} if self.would.detail else {}),
            },
            "matches": [m.to_dict() for m in self.matches],
        }


@dataclass(frozen=True)
class Document:
    """A stored document."""

    id: str
    key: int
    group: int
    shingles: int
    meta: dict[str, Any]
    text: str | None = None


@dataclass(frozen=True)
class Group:
    """A duplicate group: its id (smallest member key), representative (first admitted), members."""

    id: int
    representative: str
    members: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.members)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "representative": self.representative,
            "size": self.size,
            "members": list(self.members),
        }


def _sort_matches(matches: Iterable[Match]) -> list[Match]:
    return sorted(matches, key=lambda m: (-m.strength, -m.resemblance, m.id))


def _item(obj: Any) -> tuple[str, Any, Mapping[str, Any]]:
    """``(id, text, meta)`` from a tuple/list, a mapping or an object with those attributes."""
    if isinstance(obj, tuple | list):
        if len(obj) == 2:
            return obj[0], obj[1], {}
        if len(obj) == 3:
            return obj[0], obj[1], {} if obj[2] is None else obj[2]
        raise InputError(f"an item to add is (id, text) or (id, text, meta), got {len(obj)} fields")
    if isinstance(obj, Mapping):
        try:
            return obj["id"], obj["text"], obj.get("meta") or {}
        except KeyError as exc:
            raise InputError(f"an item to add needs the key {exc.args[0]!r}") from None
    if hasattr(obj, "id") and hasattr(obj, "text"):
        return obj.id, obj.text, getattr(obj, "meta", None) or {}
    raise InputError(f"cannot add a {type(obj).__name__}: expected (id, text[, meta])")


def _unstorable(text: str) -> str | None:
    """Why ``text`` cannot be stored the same way by every backend, or ``None`` if it can.

    One rule for all backends: a NUL character (PostgreSQL's text refuses it) and a lone
    surrogate (not encodable as UTF-8) are refused, never replaced.
    """
    nul = text.find("\x00")
    if nul >= 0:
        return f"a NUL character at offset {nul}"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"a lone surrogate U+{ord(text[exc.start]):04X} at offset {exc.start}"
    return None


def check_id(doc_id: Any) -> str:
    """``doc_id`` if every backend can store it as an id (else InputError naming it)."""
    if not isinstance(doc_id, str) or not doc_id:
        raise InputError(f"a document id must be a non-empty string, got {doc_id!r}")
    problem = _unstorable(doc_id)
    if problem:
        raise InputError(f"the document id {doc_id!r} holds {problem}; it cannot be stored")
    return doc_id


def _check_text(doc_id: str, text: str, what: str = "text") -> None:
    problem = _unstorable(text)
    if problem:
        raise InputError(f"the {what} of the document {doc_id!r} holds {problem}; refused")


def _check_meta(doc_id: str, meta: Any) -> None:
    if not isinstance(meta, Mapping):
        raise InputError(f"meta of {doc_id!r} must be a mapping, got {type(meta).__name__}")
    if not meta:
        return
    try:
        _check_text(doc_id, json.dumps(dict(meta), ensure_ascii=False), "meta")
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"meta of {doc_id!r} is not JSON-serializable: {exc}") from None


def _stored_specs(location: str, meta: Mapping[str, str]) -> tuple[Spec, IndexSpec]:
    """The spec and index spec a collection's metadata holds; missing or bad ones are damage."""

    def damaged(detail: str) -> DamagedCollectionError:
        return DamagedCollectionError(f"the collection at {location} is damaged: {detail}")

    for name in ("spec", "index_spec", "next_key"):
        if name not in meta:
            raise damaged(f"its metadata has no {name!r} row")
    counter = meta["next_key"]
    if not counter.isdigit():
        raise damaged(f"the key counter is {counter[:40]!r}, not a non-negative integer")
    try:
        index_dict = json.loads(meta["index_spec"])
        if not isinstance(index_dict, dict):
            raise ValueError("not a JSON object")
        return Spec.from_json(meta["spec"]), IndexSpec.from_dict(index_dict)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise damaged(f"its stored spec is not readable ({type(exc).__name__}: {exc})") from None


def _match(doc_id: str, key: int, ms: Measures, group: int) -> Match:
    return Match(
        doc_id,
        key,
        ms.resemblance,
        ms.containment_ab,
        ms.containment_ba,
        ms.shared,
        ms.shingles_b,
        group,
    )


class _Batch:
    """The texts of one add batch, laid out for the kernels (ids checked distinct)."""

    def __init__(self, items: list[tuple[str, Analyzed, Mapping[str, Any]]]) -> None:
        self.ids = [b[0] for b in items]
        seen: set[str] = set()
        for doc_id in self.ids:
            if doc_id in seen:
                raise DuplicateIdError(f"the id {doc_id!r} appears twice in the input")
            seen.add(doc_id)
        self.items_with_meta = items
        self.items = [b[1] for b in items]
        self.sizes = np.array([it.size for it in self.items], dtype=np.int64)
        #: Canonical token counts (-1 without a short form: no length-adaptive rule).
        self.tokens = np.array(
            [it.short.tokens if it.short is not None else -1 for it in self.items], dtype=np.int64
        )
        self.queries = PackedFingerprints.pack(
            range(len(items)), [(it.values, it.counts) for it in self.items]
        )
        self.kernel_counts = self.queries.kernel_counts()

    @classmethod
    def of(cls, items: list[tuple[str, Analyzed, Mapping[str, Any]]]) -> _Batch:
        return cls(items)


@dataclass(frozen=True)
class _Hit:
    """A candidate at or above the threshold: its key (or batch position) and measures."""

    other: int
    measures: Measures


class _Hits:
    """Stage 2's output: per batch position, the candidates that reach the threshold."""

    def __init__(self, by_pos: dict[int, list[_Hit]]) -> None:
        self.by_pos = by_pos

    @classmethod
    def of(
        cls, rules: Policy, pos: I64, other: I64, shared: I64, sizes: I64, other_sizes: I64
    ) -> _Hits:
        """The pairs ``(pos, other)`` with ``shared`` fingerprints that reach the threshold."""
        by_pos: dict[int, list[_Hit]] = {}
        if shared.size:
            sq = sizes[pos]
            for t in np.flatnonzero(rules.reaches_counts(shared, sq, other_sizes)).tolist():
                ms = measures_from_counts(int(sq[t]), int(other_sizes[t]), int(shared[t]))
                by_pos.setdefault(int(pos[t]), []).append(_Hit(int(other[t]), ms))
        return cls(by_pos)

    def at(self, pos: int) -> list[_Hit]:
        return self.by_pos.get(pos, [])

    def extended(self, more: dict[int, list[_Hit]]) -> _Hits:
        """These hits and ``more`` (the short pairs', scored apart)."""
        for pos, hits in more.items():
            self.by_pos.setdefault(pos, []).extend(hits)
        return self

    def other_keys(self) -> set[int]:
        return {h.other for hits in self.by_pos.values() for h in hits}


# --- the collection ---------------------------------------------------------------------------


class _Pending:
    """The state of one batch inside its transaction: admitted docs and group unions so far."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.docs: list[NewDoc] = []
        self.links: list[Link] = []
        self.uf = UnionFind()
        self.sizes: dict[int, int] = {}

    def group_size(self, group: int) -> int:
        if group not in self.uf.parent:
            self.uf.add(group)
            self.sizes[group] = self.storage.group_sizes([group]).get(group, 0)
        return self.sizes[self.uf.find(group)]

    def preload(self, groups: Iterable[int]) -> None:
        """Fetch the sizes of stored groups in one call (before any union in this batch)."""
        wanted = [g for g in groups if g not in self.uf.parent]
        if wanted:
            sizes = self.storage.group_sizes(wanted)
            for g in wanted:
                self.uf.add(g)
                self.sizes[g] = sizes.get(g, 0)

    def root(self, group: int) -> int:
        self.group_size(group)
        return self.uf.find(group)

    def join(self, groups: Iterable[int], key: int) -> int:
        roots = sorted({self.root(g) for g in groups})
        total = sum(self.sizes[r] for r in roots) + 1
        self.uf.add(key)
        self.sizes[key] = 1
        target = roots[0] if roots else key
        for r in [*roots[1:], key]:
            if r != target:
                self.uf.parent[r] = target
        self.sizes[target] = total
        return target

    def total_size(self, groups: Sequence[int]) -> int:
        """Members of the given groups together, with this batch's admissions so far."""
        return sum(self.group_size(g) for g in groups)

    def admit(self, doc: NewDoc, matches: Sequence[Match]) -> None:
        """Take an admitted document and its links to its matches."""
        self.docs.append(doc)
        self.links.extend(
            Link(
                doc.key,
                m.key,
                m.resemblance,
                m.containment_query_in_doc,
                m.containment_doc_in_query,
            )
            for m in matches
        )

    def final_docs(self) -> list[NewDoc]:
        find = self.uf.find
        return [
            d if find(d.group) == d.group else replace(d, group=find(d.group)) for d in self.docs
        ]

    def relabels(self) -> dict[int, int]:
        new_keys = {d.key for d in self.docs}
        out = {}
        for g in list(self.uf.parent):
            if g in new_keys:
                continue
            root = self.uf.find(g)
            if root != g:
                out[g] = root
        return out


@dataclass(frozen=True)
class _Parts:
    """What :func:`~neardup._kernels.index_batch.index_parts` made of a batch, per text."""

    values: list[U64]
    counts: list[I64 | None]
    samples: list[U64]
    probes: list[U64 | None]
    short_values: list[U64]
    short_counts: list[I64 | None]

    @classmethod
    def of(cls, result: tuple[Any, ...], multiset: bool, probes: bool) -> _Parts:
        """Split the kernel's joined arrays (``probes``: the rule gave probes)."""
        values, counts, value_offsets, samples, sample_offsets = result[:5]
        probe_values, probe_offsets, short_values, short_counts, short_offsets = result[5:]
        n = value_offsets.shape[0] - 1

        def split(flat: Any, offsets: I64) -> list[Any]:
            return np.split(flat, offsets[1:-1])

        none: list[Any] = [None] * n
        return cls(
            split(values, value_offsets),
            split(counts, value_offsets) if multiset else none,
            split(samples, sample_offsets),
            split(probe_values, probe_offsets) if probes else none,
            split(short_values, short_offsets),
            split(short_counts, short_offsets) if multiset else none,
        )


_Item = tuple[str, "TextLike | Analyzed", Mapping[str, Any]]


def _read_batches(items: Iterable[Any], batch_size: int) -> Iterator[list[_Item]]:
    """``(id, text[, meta])`` items, checked (id, meta, a storable text), in lists of
    ``batch_size``."""
    batch: list[_Item] = []
    for obj in items:
        doc_id, text, meta = _item(obj)
        doc_id = check_id(doc_id)
        _check_meta(doc_id, meta)
        if isinstance(text, str):
            _check_text(doc_id, text)
        batch.append((doc_id, text, meta))
        if len(batch) >= batch_size:
            yield batch
            batch = []
    if batch:
        yield batch


class Collection:
    """A store of texts that checks every new text for near-duplicates before it goes in.

    Make one with :meth:`create`, open one with :meth:`open`. ``location`` is a SQLite file path,
    a ``postgresql://`` URL or ``memory:`` (see :mod:`neardup.storage`).
    """

    def __init__(self, storage: Storage, spec: Spec, index_spec: IndexSpec) -> None:
        self.storage = storage
        self.spec = spec
        self.index_spec = index_spec
        self.pipeline = Pipeline(spec)
        self.generator: CandidateGenerator = generator_for(index_spec)
        self.sources: tuple[CandidateSource, ...] = sources_for(index_spec, self.generator)
        self.multiset = spec.fingerprint_family.multiset
        self._sizes = KnownSizes()
        self.short: ShortRule | None = None
        if spec.shingles.adaptive:
            if not index_spec.store_text:
                raise ConfigurationError(
                    "a length-adaptive spec needs a collection that keeps its texts: short "
                    "pairs are verified on the short shingles of the stored texts"
                )
            self.short = ShortRule(self.pipeline, index_spec.short_window)
        self._batch_shingler = BatchShingler.of(self.pipeline, short=self.short is not None)

    # --- opening ----------------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        location: str | os.PathLike[str] | Storage,
        spec: Spec,
        index_spec: IndexSpec | None = None,
        *,
        timeout: float | None = None,
    ) -> Collection:
        """Make a new, empty collection at ``location`` under ``spec``.

        A length-adaptive spec (:func:`~neardup.pipeline.default_spec`) is stored with its rule
        and applied at verification as ``compare`` applies it (:mod:`neardup.index.short`). A
        collection that keeps no texts (``store_text=False``) cannot re-shingle its candidates,
        so it is stored without the rule — it compares every pair on the spec's own shingles,
        and its spec says so."""
        index_spec = index_spec or IndexSpec()
        if isinstance(spec, Spec) and not index_spec.store_text:
            spec = spec.fixed()
        storage = (
            location
            if isinstance(location, Storage)
            else open_storage(location, create=True, timeout=timeout)
        )
        try:
            fingerprint = spec.fingerprint()
            storage.create(
                {
                    "format_version": str(FORMAT_VERSION),
                    "neardup_version": __version__,
                    "spec": spec.to_json(),
                    "spec_fingerprint": fingerprint,
                    "index_spec": json.dumps(index_spec.to_dict(), sort_keys=True),
                    "next_key": "1",
                }
            )
        except BaseException:
            storage.close()
            raise
        return cls(storage, spec, index_spec)

    @classmethod
    def open(
        cls,
        location: str | os.PathLike[str] | Storage,
        *,
        spec: Spec | None = None,
        index_spec: IndexSpec | None = None,
        readonly: bool | None = None,
        timeout: float | None = None,
    ) -> Collection:
        """Open an existing collection; a given ``spec``/``index_spec`` must match the stored."""
        storage = (
            location
            if isinstance(location, Storage)
            else open_storage(location, readonly=readonly, timeout=timeout)
        )
        try:
            if not storage.exists():
                raise StorageError(
                    f"{storage.location} holds no neardup collection "
                    f"(make one with `neardup index create`)"
                )
            meta = storage.read_meta()
            version = meta.get("format_version")
            if version != str(FORMAT_VERSION):
                raise StorageError(
                    f"{storage.location} has storage format version {version}, but this neardup "
                    f"reads version {FORMAT_VERSION}; rebuild the collection with this release"
                )
            stored_spec, stored_index = _stored_specs(storage.location, meta)
            recorded = meta.get("spec_fingerprint", "")
            now = stored_spec.fingerprint()
            if recorded != now:
                raise SpecMismatchError(
                    f"{storage.location} was built under spec {recorded}, but with this release of "
                    f"neardup and its language resources the same spec is {now}: the algorithm or "
                    "a dictionary changed, so stored fingerprints would not match new ones; "
                    "rebuild the collection"
                )
            if spec is not None and spec.fingerprint() != recorded:
                raise SpecMismatchError(
                    f"{storage.location} was built under spec {recorded} "
                    f"({describe_spec(stored_spec)}), "
                    f"but the spec given is {spec.fingerprint()} ({describe_spec(spec)}); "
                    "fingerprints made under different specs cannot be compared"
                )
            if index_spec is not None and index_spec != stored_index:
                diff = ", ".join(
                    f"{k}: stored {v!r}, given {index_spec.to_dict()[k]!r}"
                    for k, v in stored_index.to_dict().items()
                    if index_spec.to_dict()[k] != v
                )
                raise SpecMismatchError(f"{storage.location} has other index settings ({diff})")
        except BaseException:
            storage.close()
            raise
        return cls(storage, stored_spec, stored_index)

    def close(self) -> None:
        self.storage.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def location(self) -> str:
        return self.storage.location

    # --- analysis ---------------------------------------------------------------------------
    def analyze(self, text: TextLike) -> Analyzed:
        """The fingerprint set and sample of a text under the collection's spec."""
        decoded = as_text(text)
        canonical = self.pipeline.canonical(decoded)
        hashes = shingle(canonical, self.spec.shingles, self.pipeline.family).hashes
        if self.short is None:
            return self._analysis(decoded, hashes, None)
        return self._analysis(decoded, hashes, self.short.form(canonical, keep_hashes=True))

    def analyze_many(self, texts: Sequence[TextLike]) -> list[Analyzed]:
        """:meth:`analyze` of each text; under a spec the batch kernels take, the whole batch
        in a few nogil kernel calls (:class:`~neardup.batch_shingles.BatchShingler`, then
        :func:`~neardup._kernels.index_batch.index_parts`), so threads analyzing batches use
        every core. The analyses are the same (``benchmarks/identity_check.py
        --collection-batches``)."""
        if self._batch_shingler is None:
            return [self.analyze(text) for text in texts]
        batch = self._batch_shingler.shingle(texts)
        parts = self._index_parts(batch)
        out = []
        for d, text in enumerate(texts):
            if not batch.done[d] or not isinstance(text, str):  # done only for str
                out.append(self.analyze(text))
                continue
            short = None
            if self.short is not None:
                short = self.short.form_of_set(
                    int(batch.tokens[d]), parts.short_values[d], parts.short_counts[d]
                )
            out.append(
                Analyzed(
                    parts.values[d],
                    parts.counts[d],
                    parts.samples[d],
                    text if self.index_spec.store_text else None,
                    len(text),
                    short,
                    parts.probes[d],
                )
            )
        return out

    def _index_parts(self, batch: ShingledBatch) -> _Parts:
        from neardup._kernels.index_batch import index_parts

        window = self.generator.window if isinstance(self.generator, Winnowing) else 0
        short = self.short
        result = index_parts(
            batch.hashes,
            batch.starts,
            batch.ends,
            self.multiset,
            window,
            batch.short,
            batch.short_starts,
            batch.short_ends,
            batch.tokens,
            short is not None,
            0 if short is None else short.below,
            0 if short is None else short.window,
            TAG,
        )
        return _Parts.of(result, self.multiset, short is not None and window > 0)

    def _analysis(self, decoded: str, hashes: U64, short: ShortForm | None) -> Analyzed:
        """What a text's shingle hashes (text order) and short form give the index."""
        if self.multiset:
            values, counts = distinct_counts(hashes)
            counts_arr: I64 | None = counts.astype(np.int64)
        else:
            values, counts_arr = distinct(hashes), None
        samples = self.generator.samples(hashes)
        probes = None
        rule = self.short
        if short is not None and rule is not None:
            if not isinstance(self.generator, NoSamples):
                samples, probes = rule.samples(short, samples)
            short = replace(short, hashes=None)  # what the batch keeps: not the hashes
        return Analyzed(
            values.astype(np.uint64),
            counts_arr,
            samples,
            decoded if self.index_spec.store_text else None,
            len(decoded),
            short,
            probes,
        )

    def _analyzed(self, text: TextLike | Analyzed) -> Analyzed:
        if not isinstance(text, Analyzed):
            return self.analyze(text)
        if self.short is not None and text.short is None:
            raise ConfigurationError(
                "this analysis has no short form, which the collection's length-adaptive rule "
                "needs: analyze the text with this collection (Collection.analyze)"
            )
        return text

    # --- candidates and scores --------------------------------------------------------------
    def _stored_pairs(self, queries: Sequence[Analyzed]) -> CandidatePairs:
        """Stage 1: the stored documents every candidate source proposes for the queries."""
        return CandidatePairs.union([s.stored(queries, self.storage) for s in self.sources])

    def _in_batch_pairs(self, queries: Sequence[Analyzed]) -> CandidatePairs:
        """Stage 1 inside a batch: earlier texts of the batch proposed for each text."""
        return CandidatePairs.union([s.in_batch(queries) for s in self.sources])

    def _could_reach(
        self, rules: Policy, pos: I64, other: I64, sizes_a: I64, sizes_b: I64
    ) -> tuple[I64, I64]:
        """Drop pairs whose sizes alone keep them below the threshold (no merge needed)."""
        if pos.shape[0] == 0:
            return pos, other
        keep = rules.could_reach(sizes_a[pos], sizes_b[other])
        if keep is None:
            return pos, other
        return pos[keep], other[keep]

    def _batch_scores(self, batch: _Batch, rules: Policy) -> _Hits:
        """Stage 2 inside a batch: pairs of its texts at or above the threshold."""
        pairs = self._in_batch_pairs(batch.items)
        pairs, short_hits = self._short_in_batch(batch, pairs, rules)
        pos, other = self._could_reach(rules, pairs.pos, pairs.other, batch.sizes, batch.sizes)
        q = batch.queries
        shared = shared_pairs(
            q.values,
            batch.kernel_counts,
            q.offsets,
            q.values,
            batch.kernel_counts,
            q.offsets,
            pos,
            other,
            self.multiset,
        )
        return _Hits.of(rules, pos, other, shared, batch.sizes, batch.sizes[other]).extended(
            short_hits
        )

    def _stored_scores(self, batch: _Batch, rules: Policy) -> _Hits:
        """Stage 2: stored candidates scored exactly, the pairs at or above the threshold kept.

        Candidates are first ruled out by size (sizes remembered by key), then the rest are
        fetched in one call and merged against the batch by one kernel call.
        """
        storage = self.storage
        pairs = self._stored_pairs(batch.items)
        pairs, short_hits = self._short_stored(batch, pairs, rules)
        union = distinct(pairs.other)
        union_sizes = self._sizes.lookup(union, storage)
        idx = np.searchsorted(union, pairs.other)
        stored_now = union_sizes[idx] >= 0
        pos, idx = self._could_reach(
            rules, pairs.pos[stored_now], idx[stored_now], batch.sizes, union_sizes
        )
        keys = union[idx] if idx.size else np.zeros(0, np.int64)
        packed = storage.packed_fingerprints(distinct(keys).tolist() if idx.size else [])
        slot = np.searchsorted(packed.keys, keys)  # key order
        q = batch.queries
        shared = shared_pairs(
            q.values,
            batch.kernel_counts,
            q.offsets,
            packed.values,
            packed.kernel_counts(),
            packed.offsets,
            pos,
            slot,
            self.multiset,
        )
        other_sizes = packed.sizes()[slot] if slot.size else slot
        return _Hits.of(rules, pos, keys, shared, batch.sizes, other_sizes).extended(short_hits)

    def _short_in_batch(
        self, batch: _Batch, pairs: CandidatePairs, rules: Policy
    ) -> tuple[CandidatePairs, dict[int, list[_Hit]]]:
        """The length-adaptive rule inside a batch: the long pairs left, the short ones'
        hits (both sides' short forms are at hand)."""
        if self.short is None or not len(pairs):
            return pairs, {}
        tokens = batch.tokens
        short = self.short.split(pairs.pos, pairs.other, tokens, lambda other: tokens[other])
        forms = {i: it.short for i, it in enumerate(batch.items) if it.short is not None}
        hits = self._short_hits(batch, pairs.pos[short], pairs.other[short], forms, rules)
        return CandidatePairs(pairs.pos[~short], pairs.other[~short]), hits

    def _short_stored(
        self, batch: _Batch, pairs: CandidatePairs, rules: Policy
    ) -> tuple[CandidatePairs, dict[int, list[_Hit]]]:
        """The length-adaptive rule against stored candidates: the long pairs left, the short
        ones' hits. Only candidates of a short text, or whose set size allows a short text,
        are re-analyzed from their stored text; the rest are surely long."""
        rule = self.short
        if rule is None or not len(pairs):
            return pairs, {}
        union = distinct(pairs.other)
        sizes = self._sizes.lookup(union, self.storage)
        at = np.searchsorted(union, pairs.other)
        short_query = (batch.tokens >= 0) & (batch.tokens < rule.below)
        need = (sizes[at] >= 0) & (short_query[pairs.pos] | rule.may_be_short(sizes)[at])
        forms = rule.stored_forms(distinct(pairs.other[need]).tolist(), self.storage)
        known = np.isin(pairs.other, np.fromiter(forms, dtype=np.int64, count=len(forms)))

        def tokens_of(keys: I64) -> I64:
            # a candidate not re-analyzed is surely long: any count from short_below up
            return np.array([forms[k].tokens if k in forms else rule.below for k in keys.tolist()])

        short = known & rule.split(pairs.pos, pairs.other, batch.tokens, tokens_of)
        hits = self._short_hits(batch, pairs.pos[short], pairs.other[short], forms, rules)
        return CandidatePairs(pairs.pos[~short], pairs.other[~short]), hits

    def _short_hits(
        self, batch: _Batch, pos: I64, other: I64, forms: Mapping[int, ShortForm], rules: Policy
    ) -> dict[int, list[_Hit]]:
        """Short pairs ``(batch position, other)`` scored on the short shingles by one kernel
        call, those that reach the threshold kept (``other`` a key of ``forms``)."""
        if not pos.shape[0]:
            return {}
        sets = [it.short.fingerprints if it.short else Fingerprints(_NONE) for it in batch.items]
        queries = PackedFingerprints.pack(range(len(sets)), [(f.values, f.counts) for f in sets])
        keys = sorted(forms)
        others = PackedFingerprints.pack(
            keys, [(forms[k].fingerprints.values, forms[k].fingerprints.counts) for k in keys]
        )
        slot = np.searchsorted(others.keys, other)
        shared = shared_pairs(
            queries.values,
            queries.kernel_counts(),
            queries.offsets,
            others.values,
            others.kernel_counts(),
            others.offsets,
            pos,
            slot,
            self.multiset,
        )
        return _Hits.of(rules, pos, other, shared, queries.sizes(), others.sizes()[slot]).by_pos

    def _verify(
        self, item: Analyzed, keys: Sequence[int]
    ) -> tuple[list[tuple[int, Measures]], float, int]:
        """Exact measures against the stored candidates ``keys`` (those still stored); the
        uniqueness and the size of the set it is a share of (the short one for a short text
        under a length-adaptive spec, whose every pair is short)."""
        query = item.short
        if self.short is not None and query is not None and self.short.is_short(query.tokens):
            forms = self.short.stored_forms(keys, self.storage)
            return self._verify_short(query, [k for k in keys if k in forms], forms)
        stored = self.storage.fingerprints(keys)
        cands: list[tuple[U64, I64 | None]] = [(s.values, s.counts) for s in stored]
        result = verify(item.values, item.counts, cands)
        scored = list(zip([s.key for s in stored], result.measures, strict=True))
        if self.short is None or query is None:
            return scored, result.uniqueness, item.size
        # a long text: short pairs only with documents whose set size allows a short text
        sizes = np.array([set_size(v, c) for v, c in cands], dtype=np.int64)
        maybe = [s.key for s, m in zip(stored, self.short.may_be_short(sizes).tolist()) if m]
        forms = self.short.stored_forms(maybe, self.storage)
        short = [k for k in maybe if k in forms and self.short.is_short(forms[k].tokens)]
        on_words, _, _ = self._verify_short(query, short, forms)
        by_key = dict(on_words)
        return [(k, by_key.get(k, m)) for k, m in scored], result.uniqueness, item.size

    def _verify_short(
        self, query: ShortForm, keys: Sequence[int], forms: Mapping[int, ShortForm]
    ) -> tuple[list[tuple[int, Measures]], float, int]:
        """Measures on the short shingles against ``keys``; the share of the query's short
        shingles found in none of them, and its short set's size."""
        own = query.fingerprints
        sets = [(forms[k].fingerprints.values, forms[k].fingerprints.counts) for k in keys]
        result = verify(own.values, own.counts, sets)
        return list(zip(keys, result.measures, strict=True)), result.uniqueness, own.size

    # --- adding -----------------------------------------------------------------------------
    def add(
        self,
        doc_id: str,
        text: TextLike | Analyzed,
        meta: Mapping[str, Any] | None = None,
        *,
        policy: str | None = None,
        check: bool = True,
    ) -> Decision:
        """Check one text and store it if the policy admits it. A taken id: DuplicateIdError;
        a text outside the collection's length range: :class:`~neardup.errors.TextLengthError`
        (nothing is written). ``check=False``: stored unchecked (see :meth:`iter_add`)."""
        decision = self.add_many(
            [(doc_id, text, {} if meta is None else meta)], policy=policy, check=check
        )[0]
        if decision.reason in LENGTH_REASONS:
            raise TextLengthError(f"{decision.detail}; refused")
        return decision

    def add_many(
        self,
        items: Iterable[Any],
        *,
        policy: str | None = None,
        batch_size: int = DEFAULT_BATCH,
        check: bool = True,
        jobs: int = 1,
    ) -> list[Decision]:
        """Add ``(id, text[, meta])`` items in batches; one decision per item, in order."""
        return list(
            self.iter_add(items, policy=policy, batch_size=batch_size, check=check, jobs=jobs)
        )

    def iter_add(
        self,
        items: Iterable[Any],
        *,
        policy: str | None = None,
        batch_size: int = DEFAULT_BATCH,
        check: bool = True,
        jobs: int = 1,
    ) -> Iterator[Decision]:
        """Like :meth:`add_many`, yielding each batch's decisions once the batch is committed.

        A taken id (or an id twice in one batch) raises DuplicateIdError before anything of
        its batch is written; earlier batches stay committed. A text outside the length range
        is refused on its own (``too_short`` / ``too_long``); the rest of its batch goes on.

        ``check=False`` is the bulk load: no text is compared with the collection or with the
        other texts, so nothing is refused as a duplicate, grouped or linked; every text inside
        the length range is stored as a group of its own (reason ``unchecked``). Finding a
        text's candidates is what an add costs (with the pseudo-matrix filter, a scan of every
        row for every text); a corpus known to hold no duplicates, or whose duplicates need
        not be recorded, loads without that cost, and later checks and adds see its texts.
        """
        rules = Policy.of(self.index_spec, policy)
        if batch_size < 1:
            raise InputError(f"batch_size must be at least 1, got {batch_size}")
        if jobs < 1:
            raise InputError(f"jobs must be at least 1, got {jobs}")
        batches = _read_batches(items, batch_size)
        analyzed = (
            map(self._analyzed_batch, batches) if jobs == 1 else self._analyzed_ahead(batches, jobs)
        )
        for batch in analyzed:
            yield from self._add_batch(batch, rules, check)

    def _analyzed_batch(self, items: list[_Item]) -> list[tuple[str, Analyzed, Mapping[str, Any]]]:
        """A batch of items with every text analyzed (the raw texts in one
        :meth:`analyze_many`)."""
        raw: dict[int, TextLike] = {
            i: text for i, (_, text, _) in enumerate(items) if not isinstance(text, Analyzed)
        }
        analyzed = dict(zip(raw, self.analyze_many(list(raw.values())), strict=True))
        return [
            (doc_id, analyzed[i] if i in analyzed else self._analyzed(text), meta)
            for i, (doc_id, text, meta) in enumerate(items)
        ]

    def _analyzed_ahead(
        self, batches: Iterator[list[_Item]], jobs: int
    ) -> Iterator[list[tuple[str, Analyzed, Mapping[str, Any]]]]:
        """The batches analyzed by ``jobs - 1`` threads while the caller's thread checks and
        writes the earlier ones (the analysis kernels release the GIL), in input order, at
        most ``jobs + 1`` ahead. An item that stops the reading (a bad id) stops the run after
        the batches before its own, as on one thread."""
        ahead: deque[Future[list[tuple[str, Analyzed, Mapping[str, Any]]]]] = deque()
        failure: Exception | None = None
        read_all = False
        with ThreadPoolExecutor(jobs - 1, thread_name_prefix="neardup-analyze") as pool:
            try:
                while True:
                    while not read_all and failure is None and len(ahead) <= jobs:
                        try:
                            ahead.append(pool.submit(self._analyzed_batch, next(batches)))
                        except StopIteration:
                            read_all = True
                        except Exception as exc:  # raised once the batches before are in
                            failure = exc
                    if not ahead:
                        break
                    yield ahead.popleft().result()
            finally:
                for future in ahead:
                    future.cancel()
        if failure is not None:
            raise failure

    def _add_batch(
        self, items: list[tuple[str, Analyzed, Mapping[str, Any]]], rules: Policy, check: bool
    ) -> list[Decision]:
        """One batch in stages: candidates → scores → the policy's decisions → one write
        (unchecked: no candidates, no scores, every text new)."""
        batch = _Batch.of(items)
        in_batch = self._batch_scores(batch, rules) if check else _Hits({})
        with self.storage.transaction():
            self._refuse_taken(batch.ids)
            next_key = self._next_key()
            stored = self._stored_scores(batch, rules) if check else _Hits({})
            pending = _Pending(self.storage)
            decisions = self._decide(batch, stored, in_batch, rules, pending, next_key, check)
            docs = self._write(pending, next_key + len(pending.docs))
        self._sizes.remember(
            np.array([d.key for d in docs], dtype=np.int64),
            np.array([d.size for d in docs], dtype=np.int64),
        )
        final_group = {d.key: d.group for d in docs}
        # a later text of the batch may have merged groups: report each admitted one's final
        return [
            d
            if d.key is None or final_group[d.key] == d.group
            else replace(d, group=final_group[d.key])
            for d in decisions
        ]

    def _refuse_taken(self, ids: Sequence[str]) -> None:
        taken = self.storage.keys_for_ids(ids)
        if taken:
            first = next(i for i in ids if i in taken)
            raise DuplicateIdError(
                f"the id {first!r} is already in the collection {self.storage.location}"
            )

    def _next_key(self) -> int:
        """The key counter, checked to be past every stored key (a lowered one is damage)."""
        value = self.storage.read_meta().get("next_key", "")
        try:
            next_key = int(value)
        except ValueError:
            raise self._damaged(f"the key counter is {value!r}, not an integer") from None
        largest = self.storage.max_key()
        if next_key <= largest:
            raise self._damaged(
                f"the key counter {next_key} is not past the largest stored key {largest}"
            )
        return next_key

    def _damaged(self, detail: str) -> DamagedCollectionError:
        return DamagedCollectionError(f"the collection at {self.location} is damaged: {detail}")

    def _decide(
        self,
        batch: _Batch,
        stored: _Hits,
        in_batch: _Hits,
        rules: Policy,
        pending: _Pending,
        next_key: int,
        checked: bool = True,
    ) -> list[Decision]:
        """Stage 3: the policy's decision on each text, in order; admitted ones join ``pending``.

        Later texts of the batch see the earlier admitted ones (only admitted ones count).
        Unchecked texts (no hits) are admitted as ``unchecked``.
        """
        info = {
            d.key: (d.id, d.group)
            for d in self.storage.docs(sorted(stored.other_keys()), meta=False)
        }
        pending.preload({group for _, group in info.values()})
        admitted: dict[int, NewDoc] = {}  # batch position → its stored form
        decisions: list[Decision] = []
        for pos, (doc_id, item, doc_meta) in enumerate(batch.items_with_meta):
            refusal = self._length_refusal(doc_id, item)
            if refusal is not None:
                decisions.append(refusal)
                continue
            matches: list[Match] = []
            for hit in stored.at(pos):
                mid, grp = info[hit.other]
                matches.append(_match(mid, hit.other, hit.measures, pending.root(grp)))
            for hit in in_batch.at(pos):
                if hit.other in admitted:
                    d = admitted[hit.other]
                    matches.append(_match(d.id, d.key, hit.measures, pending.root(d.group)))
            matches = _sort_matches(matches)
            verdict = (
                rules.decide(matches, pending.total_size)
                if checked
                else Verdict(True, Reason.UNCHECKED, None)
            )
            if not verdict.accepted:
                decisions.append(
                    Decision(
                        doc_id,
                        False,
                        verdict.reason,
                        tuple(matches),
                        verdict.group,
                        None,
                        item.size,
                    )
                )
                continue
            key = next_key + len(pending.docs)
            group = pending.join([m.group for m in matches], key)
            doc = NewDoc(
                key,
                doc_id,
                group,
                item.size,
                item.values,
                item.counts,
                item.samples,
                dict(doc_meta),
                item.text,
            )
            pending.admit(doc, matches)
            admitted[pos] = doc
            decisions.append(
                Decision(doc_id, True, verdict.reason, tuple(matches), group, key, item.size)
            )
        return decisions

    def _length_refusal(self, doc_id: str, item: Analyzed) -> Decision | None:
        """The refusal of a text outside the length range, or ``None`` when it is inside."""
        reason = self.index_spec.length_refusal(item.length)
        if reason is None:
            return None
        name = f"the text of {doc_id!r}" if doc_id else "the text"
        detail = (
            f"{name} has {item.length} characters; the collection {self.location} admits "
            f"texts of {self.index_spec.length_range()}"
        )
        return Decision(doc_id, False, reason, (), None, None, item.size, detail)

    def _write(self, pending: _Pending, next_key: int) -> list[NewDoc]:
        """Stage 4: the admitted documents, group relabels, links and the key counter."""
        docs = pending.final_docs()
        self.storage.insert(docs)
        for source in self.sources:  # a source's own state (the Bloom rows) in the same write
            source.inserted(docs, self.storage)
        self.storage.relabel_groups(pending.relabels())
        self.storage.add_links(pending.links)
        self.storage.write_meta({"next_key": str(next_key)})
        return docs

    # --- checking ---------------------------------------------------------------------------
    def check(
        self,
        text: TextLike | Analyzed,
        *,
        top: int | None = None,
        policy: str | None = None,
        combined: bool = False,
    ) -> CheckResult:
        """Exact measures of a text against the collection, its uniqueness, what ``add`` does.

        ``combined=True`` also scores each match shown with the combined score
        (:func:`neardup.combined.combined_scores`, as ``compare`` and ``eval`` do), from the
        stored texts: the collection must keep them, and ``text`` must be a text."""
        if combined and not self.index_spec.store_text:
            raise ConfigurationError("the combined score needs a collection that keeps its texts")
        if combined and isinstance(text, Analyzed) and text.text is None:
            raise ConfigurationError("the combined score needs the text, not only its analysis")
        item = self._analyzed(text)
        rules = Policy.of(self.index_spec, policy)
        with self.storage.snapshot():
            pairs = self._stored_pairs([item])
            scored, uniqueness, shingles = self._verify(item, pairs.other.tolist())
            shared = [(k, m) for k, m in scored if m.shared > 0]
            infos = {d.key: d for d in self.storage.docs([k for k, _ in shared], meta=False)}
            matches = _sort_matches(
                _match(infos[k].id, k, m, infos[k].group) for k, m in shared if k in infos
            )
            hits = [
                m
                for m in matches
                if rules.reaches(
                    m.resemblance, m.containment_query_in_doc, m.containment_doc_in_query
                )
            ]
            verdict = rules.decide(hits, self._stored_group_size)
        would = self._length_refusal("", item) or Decision(
            "", verdict.accepted, verdict.reason, tuple(hits), verdict.group, None, item.size
        )
        if top is not None:
            matches = matches[:top]
        if combined and matches:
            matches = self._with_combined(item.text or "", matches)
        return CheckResult(uniqueness, shingles, len(scored), tuple(matches), would)

    def _with_combined(self, text: str, matches: list[Match]) -> list[Match]:
        from dataclasses import replace

        from neardup.combined import CombinedFeatures, combined_scores

        stored = [self.get(m.id).text or "" for m in matches]
        table = CombinedFeatures(self.spec).table([text, *stored])
        others = np.arange(1, len(matches) + 1, dtype=np.int64)
        scores = combined_scores(table, np.zeros(len(matches), dtype=np.int64), others)
        return [replace(m, combined=float(s)) for m, s in zip(matches, scores, strict=True)]

    def _stored_group_size(self, groups: Sequence[int]) -> int:
        return sum(self.storage.group_sizes(groups).values())

    # --- removing ---------------------------------------------------------------------------
    def remove(self, ids: str | Iterable[str], *, batch_size: int = 1000) -> int:
        """Remove documents by id, in batches of one transaction each; groups are recomputed.

        ``ids`` is one id (a string is never taken as a sequence of ids) or an iterable of
        them. Every id is checked first: an unknown one raises NotFoundError and nothing is
        removed.
        """
        if isinstance(ids, str | bytes):
            ids = [ids]
        wanted = list(dict.fromkeys(check_id(i) for i in ids))
        known = self.storage.keys_for_ids(wanted)
        missing = [i for i in wanted if i not in known]
        if missing:
            shown = ", ".join(repr(i) for i in missing[:5]) + (" …" if len(missing) > 5 else "")
            raise NotFoundError(
                f"not in the collection {self.location}: {shown}; nothing was removed"
            )
        removed = 0
        for start in range(0, len(wanted), batch_size):
            chunk = wanted[start : start + batch_size]
            with self.storage.transaction():
                keys = self.storage.keys_for_ids(chunk)
                if len(keys) != len(chunk):
                    gone = [i for i in chunk if i not in keys]
                    raise NotFoundError(f"removed meanwhile by another process: {gone[:5]}")
                infos = self.storage.docs(list(keys.values()))
                groups = sorted({d.group for d in infos})
                for source in self.sources:  # before the delete: rows are rebuilt from row-mates
                    source.removing(sorted(keys.values()), self.storage)
                self.storage.delete(list(keys.values()))
                if self.short is not None:
                    self.short.forget(list(keys.values()))
                self._regroup(groups)
                removed += len(keys)
        return removed

    def _regroup(self, groups: Sequence[int]) -> None:
        """Recompute the components of the given groups after members left."""
        members = self.storage.group_members(groups)
        keys = sorted(k for m in members.values() for k in m)
        if not keys:
            return
        links = self.storage.links_of(keys)
        roots = components(keys, ((lk.a, lk.b) for lk in links))
        current = {k: g for g, m in members.items() for k in m}
        changes = {k: r for k, r in roots.items() if current.get(k) != r}
        if changes:
            self.storage.set_groups(changes)

    def fragments(
        self,
        text: TextLike,
        result: CheckResult | None = None,
        *,
        top: int | None = 10,
        aligner: Any = None,
    ) -> Any:
        """The matched fragments of ``text`` in its verified matches (the second stage).

        Checks the text (or takes ``result``, a :meth:`check` of the same text), then aligns
        it against the stored texts of its ``top`` strongest matches with
        :class:`neardup.align.Aligner` under the collection's analyzer. Returns an
        :class:`~neardup.align.Alignment`: passages as character spans of the text and of
        each stored text, each source's share of the text and the total borrowed share.
        """
        from neardup.align import Aligner

        if not self.index_spec.store_text:
            raise NotSupportedError(
                f"the collection {self.location} keeps no texts (created with --no-store-text); "
                "fragments need the stored texts"
            )
        decoded = as_text(text)
        if result is None:
            result = self.check(decoded, top=top)
        matches = result.matches[:top] if top is not None else result.matches
        aligner = aligner or Aligner(self.spec)
        sources = []
        for match in matches:
            stored = self.get(match.id).text
            if stored is not None:
                sources.append((match.id, stored))
        return aligner.align(decoded, sources)

    # --- reading ----------------------------------------------------------------------------
    def get(self, doc_id: str, *, text: bool = True) -> Document:
        """A stored document by id; NotFoundError if it is not there."""
        keys = self.storage.keys_for_ids([check_id(doc_id)])
        if doc_id not in keys:
            raise NotFoundError(f"no document {doc_id!r} in the collection {self.location}")
        infos = self.storage.docs([keys[doc_id]], text=text)
        if not infos:
            raise NotFoundError(f"no document {doc_id!r} in the collection {self.location}")
        d = infos[0]
        return Document(d.id, d.key, d.group, d.size, d.meta, d.text)

    def __contains__(self, doc_id: object) -> bool:
        return isinstance(doc_id, str) and bool(self.storage.keys_for_ids([doc_id]))

    def __len__(self) -> int:
        return self.storage.counts()["docs"]

    def groups(self, *, min_size: int = 2) -> list[Group]:
        """Duplicate groups with at least ``min_size`` members, by id."""
        members: dict[int, list[tuple[int, str]]] = {}
        with self.storage.snapshot():
            for batch in self.storage.iter_docs():
                for d in batch:
                    members.setdefault(d.group, []).append((d.key, d.id))
        out = []
        for gid in sorted(members):
            rows = sorted(members[gid])
            if len(rows) >= min_size:
                out.append(Group(gid, rows[0][1], tuple(i for _, i in rows)))
        return out

    def stats(self) -> dict[str, Any]:
        """Counts, sizes and settings of the collection."""
        counts = self.storage.counts()
        sizes: dict[int, int] = {}
        shingles = 0
        with self.storage.snapshot():
            for batch in self.storage.iter_docs():
                for d in batch:
                    sizes[d.group] = sizes.get(d.group, 0) + 1
                    shingles += d.size
        docs = counts["docs"]
        nbytes = self.storage.size_bytes()
        return {
            "location": self.location,
            "backend": self.storage.kind,
            "documents": docs,
            "groups": counts["groups"],
            "grouped_documents": sum(s for s in sizes.values() if s > 1),
            "largest_group": max(sizes.values(), default=0),
            "links": counts["links"],
            "postings": counts["postings"],
            "shingles": shingles,
            "mean_shingles": shingles / docs if docs else 0.0,
            "postings_per_document": counts["postings"] / docs if docs else 0.0,
            "bytes": nbytes,
            "bytes_per_document": (nbytes / docs if docs and nbytes is not None else None),
            "spec_fingerprint": self.spec.fingerprint(),
            "spec": describe_spec(self.spec),
            "index_spec": self.index_spec.to_dict(),
        }

    def iter_documents(self, *, text: bool = True) -> Iterator[tuple[Document, str]]:
        """Every document in admission order with its group representative's id."""
        rep: dict[int, str] = {}
        for batch in self.storage.iter_docs(text=text):
            missing = sorted({d.group for d in batch if d.group not in rep and d.group != d.key})
            for info in self.storage.docs(missing):
                rep[info.key] = info.id
            for d in batch:
                if d.key == d.group:
                    rep[d.key] = d.id
                yield Document(d.id, d.key, d.group, d.size, d.meta, d.text), rep.get(d.group, d.id)

    def export(self, out: str | os.PathLike[str] | IO[str], *, fmt: str | None = None) -> int:
        """Write every document (id, key, group, representative, shingles, meta, text): JSONL/CSV.

        ``fmt`` is ``jsonl`` or ``csv``; by default it follows the file name (``.csv``, else
        JSONL; ``.gz`` compresses). ``-`` writes JSONL to standard output. Returns the count.
        """
        name = os.fspath(out) if isinstance(out, str | os.PathLike) else ""
        if fmt is None:
            fmt = "csv" if name.endswith((".csv", ".csv.gz")) else "jsonl"
        if fmt not in ("jsonl", "csv"):
            raise InputError(f"export format must be jsonl or csv, got {fmt!r}")
        if not name:
            return self._export_to(out, fmt)  # type: ignore[arg-type]
        if name == "-":
            return self._export_to(sys.stdout, fmt)
        tmp = name + ".part"
        try:
            if name.endswith(".gz"):
                with gzip.open(tmp, "wt", encoding="utf-8", newline="") as fh:
                    n = self._export_to(fh, fmt)
            else:
                with open(tmp, "w", encoding="utf-8", newline="") as fh:
                    n = self._export_to(fh, fmt)
            os.replace(tmp, name)
        except OSError as exc:
            raise InputError(f"cannot write {name}: {exc.strerror or exc}") from None
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return n

    def _export_to(self, fh: IO[str], fmt: str) -> int:
        n = 0
        writer = None
        if fmt == "csv":
            writer = csv.writer(fh)
            writer.writerow(["id", "key", "group", "representative", "shingles", "meta", "text"])
        with self.storage.snapshot():
            for doc, rep in self.iter_documents():
                if writer is not None:
                    writer.writerow(
                        [
                            doc.id,
                            doc.key,
                            doc.group,
                            rep,
                            doc.shingles,
                            json.dumps(doc.meta, ensure_ascii=False),
                            doc.text or "",
                        ]
                    )
                else:
                    fh.write(
                        json.dumps(
                            {
                                "id": doc.id,
                                "key": doc.key,
                                "group": doc.group,
                                "representative": rep,
                                "shingles": doc.shingles,
                                "meta": doc.meta,
                                "text": doc.text,
                            },
                            ensure_ascii=False,
                        )
                    )
                    fh.write("\n")
                n += 1
        return n

    # --- integrity --------------------------------------------------------------------------
    def verify_integrity(self) -> list[str]:
        """Problems found by checking every stored invariant (an empty list means consistent).

        Every fingerprint array is sorted and distinct, its samples among it, with the
        recorded (non-negative) size; postings are exactly the samples of the stored
        documents, and looking those samples up finds every one of them; links join stored
        documents, newer to older; every document's group is the smallest key of its linked
        component; the key counter is past every key; stored texts belong to stored documents;
        the pseudo-matrix filter (``pmbf``/``both``) places every stored document with its
        size and its rows are exactly the bits of the parts placed in them.
        """
        problems: list[str] = []
        with self.storage.snapshot():
            meta = self.storage.read_meta()
            keys, sizes, samples = self._verify_fingerprints(problems)
            infos = {
                d.key: d
                for batch in self.storage.iter_docs(text=self.index_spec.store_text)
                for d in batch
            }
            if sorted(infos) != keys:
                problems.append("docs and fingerprints disagree on the stored keys")
            for k, d in infos.items():
                if d.size < 0 or (k in sizes and sizes[k] != d.size):
                    problems.append(
                        f"doc {k} ({d.id}) records size {d.size}, its fingerprints {sizes.get(k)}"
                    )
            self._verify_postings(problems, keys, samples)
            for source in self.sources:
                if isinstance(source, BloomRowsSource):
                    problems.extend(source.problems(self.storage))
            self._verify_groups(problems, keys, infos)
            counter = meta.get("next_key", "0")
            if not counter.lstrip("-").isdigit():
                problems.append(f"key counter {counter!r} is not an integer")
            elif keys and int(counter) <= max(keys):
                problems.append(f"key counter {counter} is not past the largest key {max(keys)}")
        return problems

    def _verify_fingerprints(
        self, problems: list[str]
    ) -> tuple[list[int], dict[int, int], tuple[U64, I64]]:
        """Check each stored fingerprint array; its keys, sizes and every ``(sample, key)``."""
        values: list[U64] = []
        owners: list[I64] = []
        keys: list[int] = []
        sizes: dict[int, int] = {}
        stray: list[StoredFingerprints] = []
        for batch in self.storage.iter_fingerprints():
            for f in batch:
                keys.append(f.key)
                sizes[f.key] = set_size(f.values, f.counts)
                v = f.values
                if v.shape[0] > 1 and not bool(np.all(v[1:] > v[:-1])):
                    problems.append(f"doc {f.key}: fingerprints not sorted and distinct")
                if f.samples.shape[0] and not bool(np.all(np.isin(f.samples, v))):
                    stray.append(f)
                if (f.counts is None) == self.multiset:
                    problems.append(
                        f"doc {f.key}: counts {'missing' if self.multiset else 'unexpected'}"
                    )
                values.append(f.samples)
                owners.append(np.full(f.samples.shape[0], f.key, dtype=np.int64))
        self._verify_short_samples(problems, stray)
        ev = np.concatenate(values) if values else np.zeros(0, np.uint64)
        ek = np.concatenate(owners) if owners else np.zeros(0, np.int64)
        return keys, sizes, (ev, ek)

    def _verify_short_samples(
        self, problems: list[str], stray: Sequence[StoredFingerprints]
    ) -> None:
        """Samples outside a document's fingerprints are its word samples, posted under a
        length-adaptive spec (:meth:`~neardup.index.short.ShortRule.samples`): they must be
        what its stored text posts again. Anything else is damage."""
        texts: dict[int, str | None] = {}
        if self.short is not None:
            for start in range(0, len(stray), 1000):
                keys = [f.key for f in stray[start : start + 1000]]
                texts.update(
                    (d.key, d.text) for d in self.storage.docs(keys, text=True, meta=False)
                )
        for f in stray:
            text = texts.get(f.key)
            if text is None or not np.array_equal(np.sort(f.samples), self.analyze(text).samples):
                problems.append(
                    f"doc {f.key}: samples not among its fingerprints"
                    + (" nor what its stored text posts" if self.short is not None else "")
                )

    def _verify_postings(
        self, problems: list[str], keys: list[int], samples: tuple[U64, I64]
    ) -> None:
        """Postings (full scan and lookup path) are exactly the stored samples."""
        ev, ek = samples
        o2 = np.lexsort((ek, ev))
        pv, pk = self.storage.all_postings()
        o1 = np.lexsort((pk, pv))
        if pv.shape != ev.shape or not (
            np.array_equal(pv[o1], ev[o2]) and np.array_equal(pk[o1], ek[o2])
        ):
            orphans = int(np.count_nonzero(~np.isin(pk, np.array(keys, dtype=np.int64))))
            problems.append(
                f"postings ({pv.shape[0]}) differ from the stored samples "
                f"({ev.shape[0]}); {orphans} postings point at no document"
            )
        # the lookup path (tiers, filters) must find them all, not only the full scan
        found_v, found_k = self.storage.postings(distinct(ev))
        o3 = np.lexsort((found_k, found_v))
        if found_v.shape != ev.shape or not (
            np.array_equal(found_v[o3], ev[o2]) and np.array_equal(found_k[o3], ek[o2])
        ):
            problems.append(
                f"looking every sample up finds {found_v.shape[0]} postings, not the "
                f"{ev.shape[0]} stored (a damaged filter or tail)"
            )

    def _verify_groups(
        self, problems: list[str], keys: list[int], infos: Mapping[int, DocInfo]
    ) -> None:
        """Links join stored documents newer to older; groups are their components."""
        key_set = set(keys)
        pairs = []
        for lk in self.storage.iter_links():
            if lk.a not in key_set or lk.b not in key_set:
                problems.append(f"link {lk.a}–{lk.b} points at a missing document")
            elif lk.a <= lk.b:
                problems.append(f"link {lk.a}–{lk.b} is not newer-to-older")
            pairs.append((lk.a, lk.b))
        roots = components(keys, pairs)
        for k, d in infos.items():
            if roots.get(k) != d.group:
                problems.append(f"doc {k} ({d.id}) is in group {d.group}, expected {roots.get(k)}")
            if self.index_spec.store_text and d.text is None:
                problems.append(f"doc {k} ({d.id}) has no stored text")


def describe_spec(spec: Spec) -> str:
    """A one-line human description of a spec."""
    sh = spec.shingles
    fp = spec.fingerprint_family
    rule = (
        f" ({sh.short_unit} {sh.short_k}-grams for pairs below {sh.short_below} tokens)"
        if sh.adaptive
        else ""
    )
    return (
        f"preset {spec.analyzer.preset}, {sh.unit} shingles k={sh.k} step={sh.step}{rule}, "
        f"{fp.family} {fp.bits} bit{', multiset' if fp.multiset else ''}"
    )

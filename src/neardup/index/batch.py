"""The bookkeeping of one add batch: its texts laid out for the kernels, the candidate pairs that
reach the threshold, the admissions and group unions pending in its transaction, and the parts
the batch kernel made of its texts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup.errors import DuplicateIdError
from neardup.fingerprints.similarity import Measures, measures_from_counts
from neardup.index.groups import UnionFind
from neardup.index.policy import Policy
from neardup.index.results import IndexableText, Match
from neardup.storage import Link, NewDoc, Storage
from neardup.storage.base import PackedFingerprints

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


class Batch:
    """The texts of one add batch, laid out for the kernels (ids checked distinct)."""

    def __init__(self, items: list[tuple[str, IndexableText, Mapping[str, Any]]]) -> None:
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
    def of(cls, items: list[tuple[str, IndexableText, Mapping[str, Any]]]) -> Batch:
        return cls(items)


@dataclass(frozen=True)
class Hit:
    """A candidate at or above the threshold: its key (or batch position) and measures."""

    other: int
    measures: Measures


class Hits:
    """Stage 2's output: per batch position, the candidates that reach the threshold."""

    def __init__(self, by_pos: dict[int, list[Hit]]) -> None:
        self.by_pos = by_pos

    @classmethod
    def of(
        cls, rules: Policy, pos: I64, other: I64, shared: I64, sizes: I64, other_sizes: I64
    ) -> Hits:
        """The pairs ``(pos, other)`` with ``shared`` fingerprints that reach the threshold."""
        by_pos: dict[int, list[Hit]] = {}
        if shared.size:
            sq = sizes[pos]
            for t in np.flatnonzero(rules.reaches_counts(shared, sq, other_sizes)).tolist():
                ms = measures_from_counts(int(sq[t]), int(other_sizes[t]), int(shared[t]))
                by_pos.setdefault(int(pos[t]), []).append(Hit(int(other[t]), ms))
        return cls(by_pos)

    def at(self, pos: int) -> list[Hit]:
        return self.by_pos.get(pos, [])

    def extended(self, more: dict[int, list[Hit]]) -> Hits:
        """These hits and ``more`` (the short pairs', scored apart)."""
        for pos, hits in more.items():
            self.by_pos.setdefault(pos, []).extend(hits)
        return self

    def other_keys(self) -> set[int]:
        return {h.other for hits in self.by_pos.values() for h in hits}


class Pending:
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
class Parts:
    """What :func:`~neardup._kernels.index_batch.index_parts` made of a batch, per text."""

    values: list[U64]
    counts: list[I64 | None]
    samples: list[U64]
    probes: list[U64 | None]
    short_values: list[U64]
    short_counts: list[I64 | None]

    @classmethod
    def of(cls, result: tuple[Any, ...], multiset: bool, probes: bool) -> Parts:
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

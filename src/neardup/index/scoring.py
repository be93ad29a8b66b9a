"""Candidates and their exact scores for a batch: stored documents and earlier texts of the batch
proposed by the candidate sources, scored by one kernel call each, the pairs that reach the
threshold kept; short pairs under a length-adaptive spec scored on the short shingles.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from neardup._kernels.winnow import shared_pairs
from neardup._sorted import distinct
from neardup.fingerprints.similarity import Fingerprints
from neardup.index.analyzing import Analyzing
from neardup.index.batch import Batch, Hit, Hits
from neardup.index.candidates import CandidatePairs
from neardup.index.policy import Policy
from neardup.index.results import Analyzed
from neardup.index.short import ShortForm
from neardup.storage.base import PackedFingerprints

_NONE = np.zeros(0, dtype=np.uint64)

I64 = npt.NDArray[np.int64]


class Scoring(Analyzing):
    """Candidate generation and exact scores (stages 1 and 2 of an add)."""

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

    def _batch_scores(self, batch: Batch, rules: Policy) -> Hits:
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
        return Hits.of(rules, pos, other, shared, batch.sizes, batch.sizes[other]).extended(
            short_hits
        )

    def _stored_scores(self, batch: Batch, rules: Policy) -> Hits:
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
        return Hits.of(rules, pos, keys, shared, batch.sizes, other_sizes).extended(short_hits)

    def _short_in_batch(
        self, batch: Batch, pairs: CandidatePairs, rules: Policy
    ) -> tuple[CandidatePairs, dict[int, list[Hit]]]:
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
        self, batch: Batch, pairs: CandidatePairs, rules: Policy
    ) -> tuple[CandidatePairs, dict[int, list[Hit]]]:
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
        self, batch: Batch, pos: I64, other: I64, forms: Mapping[int, ShortForm], rules: Policy
    ) -> dict[int, list[Hit]]:
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
        return Hits.of(rules, pos, other, shared, queries.sizes(), others.sizes()[slot]).by_pos

"""The verifier part of the collection: the exact scores of the candidates the sources proposed.

Candidates only propose; every number the collection reports is measured here from the stored
fingerprint sets (:mod:`neardup.index.verify`). For a check, one text against its candidates
(:meth:`Verifier.measures`); for an add batch, stored documents and earlier texts of the batch,
scored by one kernel call each, the pairs that reach the threshold kept
(:meth:`Verifier.stored`, :meth:`Verifier.in_batch`). Under a length-adaptive spec short pairs
are scored on the short shingles, from the stored texts, as ``compare`` scores them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from neardup._kernels.winnow import shared_pairs
from neardup._sorted import distinct
from neardup.fingerprints.similarity import Fingerprints, Measures
from neardup.index.batch import Batch, Hit, Hits
from neardup.index.candidates import CandidatePairs
from neardup.index.policy import Policy
from neardup.index.results import IndexableText
from neardup.index.short import ShortForm, ShortRule
from neardup.index.sizes import KnownSizes
from neardup.index.verify import set_size, verify
from neardup.storage.base import PackedFingerprints

if TYPE_CHECKING:
    from neardup.storage import NewDoc, Storage

_NONE = np.zeros(0, dtype=np.uint64)

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


class Verifier:
    """Exact scores of candidate pairs (stage 2 of a check and of an add).

    It remembers the set sizes of stored documents by key (:class:`KnownSizes`), so an add
    rules most candidates out by size before it fetches their fingerprints.
    """

    def __init__(self, storage: Storage, short: ShortRule | None, multiset: bool) -> None:
        self.storage = storage
        self.short = short
        self.multiset = multiset
        self.sizes = KnownSizes()

    def remember(self, docs: Sequence[NewDoc]) -> None:
        """Documents just committed: their sizes are known without asking the storage."""
        self.sizes.remember(
            np.array([d.key for d in docs], dtype=np.int64),
            np.array([d.size for d in docs], dtype=np.int64),
        )

    # --- one text (a check) ----------------------------------------------------------------

    def measures(
        self, item: IndexableText, keys: Sequence[int]
    ) -> tuple[list[tuple[int, Measures]], float, int]:
        """Exact measures against the stored candidates ``keys`` (those still stored); the
        uniqueness and the size of the set it is a share of (the short one for a short text
        under a length-adaptive spec, whose every pair is short)."""
        query = item.short
        if self.short is not None and query is not None and self.short.is_short(query.tokens):
            forms = self.short.stored_forms(keys, self.storage)
            return self._measures_short(query, [k for k in keys if k in forms], forms)
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
        on_words, _, _ = self._measures_short(query, short, forms)
        by_key = dict(on_words)
        return [(k, by_key.get(k, m)) for k, m in scored], result.uniqueness, item.size

    def _measures_short(
        self, query: ShortForm, keys: Sequence[int], forms: Mapping[int, ShortForm]
    ) -> tuple[list[tuple[int, Measures]], float, int]:
        """Measures on the short shingles against ``keys``; the share of the query's short
        shingles found in none of them, and its short set's size."""
        own = query.fingerprints
        sets = [(forms[k].fingerprints.values, forms[k].fingerprints.counts) for k in keys]
        result = verify(own.values, own.counts, sets)
        return list(zip(keys, result.measures, strict=True)), result.uniqueness, own.size

    # --- a batch (an add) ------------------------------------------------------------------

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

    def in_batch(self, batch: Batch, pairs: CandidatePairs, rules: Policy) -> Hits:
        """Pairs of a batch's texts (``pairs``: a text's position, an earlier one's) at or
        above the threshold."""
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

    def stored(self, batch: Batch, pairs: CandidatePairs, rules: Policy) -> Hits:
        """Stored candidates (``pairs``: a text's position, a stored key) scored exactly, the
        pairs at or above the threshold kept.

        Candidates are first ruled out by size (sizes remembered by key), then the rest are
        fetched in one call and merged against the batch by one kernel call.
        """
        storage = self.storage
        pairs, short_hits = self._short_stored(batch, pairs, rules)
        union = distinct(pairs.other)
        union_sizes = self.sizes.lookup(union, storage)
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
        sizes = self.sizes.lookup(union, self.storage)
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

"""Checking a text against the collection without storing it: exact measures of its candidates,
its uniqueness, what ``add`` would decide, combined scores and matched fragments on request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup.errors import ConfigurationError, NotSupportedError
from neardup.index.policy import Policy
from neardup.index.reading import Reading
from neardup.index.results import Analyzed, CheckResult, Decision, Match, match_of, sort_matches
from neardup.index.scoring import Scoring
from neardup.index.short import ShortForm
from neardup.index.verify import set_size, verify
from neardup.pipeline import TextLike, as_text
from neardup.similarity import Measures

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


class Checking(Scoring, Reading):
    """``check`` and ``fragments``."""

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
            matches = sort_matches(
                match_of(infos[k].id, k, m, infos[k].group) for k, m in shared if k in infos
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
        from neardup.combined import CombinedFeatures, combined_scores

        stored = [self.get(m.id).text or "" for m in matches]
        table = CombinedFeatures(self.spec).table([text, *stored])
        others = np.arange(1, len(matches) + 1, dtype=np.int64)
        scores = combined_scores(table, np.zeros(len(matches), dtype=np.int64), others)
        return [replace(m, combined=float(s)) for m, s in zip(matches, scores, strict=True)]

    def _stored_group_size(self, groups: Sequence[int]) -> int:
        return sum(self.storage.group_sizes(groups).values())

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

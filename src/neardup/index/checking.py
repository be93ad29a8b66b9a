"""A text checked against the collection without storing it: its matches, what ``add`` would
decide, its passages and its one uniqueness figure.

A check has two parts, so that a service can hold its storage lock for the first only:

* :meth:`Checking.look_up` (storage, one snapshot): the verified matches of the text, what
  ``add`` would decide, and the stored texts of the strongest matches;
* :meth:`Checking.report` (no storage): the passages the text shares with those texts (the
  second stage, :class:`~neardup.passages.align.Aligner`), the citations, the combined score of each
  match, and the uniqueness — the share of the text's words found in no source, cited words
  counted apart (:attr:`neardup.passages.align.Alignment.uniqueness`, the figure every entry point
  prints).

The text is analysed once (:class:`~neardup.analysis.analyzed.AnalyzedText`): the index's
fingerprints,
the aligner, the citations and the combined score all take that one analysis, and each stored
text is analysed once too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from neardup._kernels.align import covered_tokens
from neardup.analysis.analyzed import AnalyzedText
from neardup.analysis.tricks import NONE, Tricks
from neardup.defaults import DEFAULTS
from neardup.errors import ConfigurationError, NotSupportedError
from neardup.fingerprints.pipeline import Analyzable
from neardup.fingerprints.similarity import Measures
from neardup.index.items import unstorable
from neardup.index.policy import Policy
from neardup.index.reading import Reading
from neardup.index.results import Analyzed, CheckResult, Decision, Match, match_of, sort_matches
from neardup.index.scoring import Scoring
from neardup.index.short import ShortForm
from neardup.index.verify import set_size, verify

if TYPE_CHECKING:
    from neardup.passages.align import Aligner, Alignment

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class LookedUp:
    """What the storage said of a text: its matches (strongest first, at most ``top``), the
    candidates verified, the size of its shingle set, what ``add`` would decide, and the stored
    texts of the matches (none when the collection keeps no texts)."""

    matches: tuple[Match, ...]
    candidates: int
    shingles: int
    would: Decision
    stored: tuple[tuple[str, str], ...]


class Checking(Scoring, Reading):
    """``check`` (``look_up`` then ``report``) and ``fragments``."""

    @cached_property
    def aligner(self) -> Aligner:
        """The second stage under the collection's analyzer, with the default settings."""
        from neardup.passages.align import Aligner

        return Aligner(self.spec)

    def check(
        self,
        text: Analyzable | Analyzed,
        *,
        top: int | None = DEFAULTS.top,
        policy: str | None = None,
        combined: bool = False,
        fragments: bool = DEFAULTS.fragments,
        citations: bool = DEFAULTS.citations,
        aligner: Aligner | None = None,
        exclude: Iterable[str] = (),
        hidden: Tricks = NONE,
    ) -> CheckResult:
        """How unique ``text`` is against the collection, its matches and what ``add`` does.

        ``uniqueness`` is the share of the text's words found in no document, ``borrowed`` and
        ``cited`` the shares copied from one (outside and inside citations; ``citations=False``
        counts every copied word as borrowed): passages found by aligning the text with the
        stored texts of its ``top`` strongest matches. ``fragments=True`` lists the passages
        in :meth:`CheckResult.to_dict`. ``combined=True`` also scores each match shown with the
        combined score, from the stored texts (the collection must keep them). ``exclude``: ids
        of documents left out of this check, as if they were not stored (the writer's own
        earlier work, say); ids not stored are ignored. ``hidden``: the text hidden in the file
        the text was read from (:func:`neardup.inputs.hidden_in`), reported with the tricks the
        analyzer undid."""
        if combined and not self.index_spec.store_text:
            raise ConfigurationError("the combined score needs a collection that keeps its texts")
        if fragments and not self.index_spec.store_text:
            raise NotSupportedError(
                f"the collection {self.location} keeps no texts (created with --no-store-text); "
                "fragments need the stored texts",
                code="no_texts",
            )
        if isinstance(text, Analyzed):  # the index's analysis: its text is analysed for the rest
            item = self._analyzed(text)
            if item.text is None:
                raise ConfigurationError(
                    "a check needs the text, not only its index analysis: give the text"
                )
            analysis = self.pipeline.analyze(item.text)
        else:
            analysis = self.pipeline.analyze(text)
            item = self.analyze(analysis)
        found = self.look_up(item, top=top, policy=policy, exclude=exclude)
        return self.report(
            analysis,
            found,
            fragments=fragments,
            citations=citations,
            combined=combined,
            aligner=aligner,
            hidden=hidden,
        )

    def look_up(
        self,
        item: Analyzed,
        *,
        top: int | None,
        policy: str | None,
        exclude: Iterable[str] = (),
    ) -> LookedUp:
        """The storage's part of :meth:`check`, in one snapshot; the documents ``exclude``
        names are dropped from the candidates before they are verified."""
        item = self._analyzed(item)
        rules = Policy.of(self.index_spec, policy)
        # an id no backend could store is in no collection: nothing to leave out
        left_out = sorted({d for d in exclude if isinstance(d, str) and d and not unstorable(d)})
        with self.storage.snapshot():
            pairs = self._stored_pairs([item])
            candidates = pairs.other.tolist()
            if left_out:
                dropped = set(self.storage.keys_for_ids(left_out).values())
                candidates = [k for k in candidates if k not in dropped]
            scored, _, shingles = self._verify(item, candidates)
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
            if top is not None:
                matches = matches[:top]
            stored: list[tuple[str, str]] = []
            if self.index_spec.store_text:
                for match in matches:
                    doc_text = self.get(match.id).text
                    if doc_text is not None:
                        stored.append((match.id, doc_text))
        would = self._length_refusal("", item) or Decision(
            "", verdict.accepted, verdict.reason, tuple(hits), verdict.group, None, item.size
        )
        return LookedUp(tuple(matches), len(scored), shingles, would, tuple(stored))

    def report(
        self,
        text: AnalyzedText,
        found: LookedUp,
        *,
        fragments: bool = DEFAULTS.fragments,
        citations: bool = DEFAULTS.citations,
        combined: bool = False,
        aligner: Aligner | None = None,
        hidden: Tricks = NONE,
    ) -> CheckResult:
        """:meth:`check`'s result from what :meth:`look_up` found (no storage is read)."""
        from neardup.passages.align import apply_citations

        aligner = aligner if aligner is not None else self.aligner
        sources = [(doc_id, self.pipeline.analyze(doc)) for doc_id, doc in found.stored]
        alignment: Alignment | None = None
        if self.index_spec.store_text:
            query = aligner.prepare(text)
            alignment = aligner.align(query, sources)
            if citations:
                alignment = apply_citations(alignment, query)
        matches = list(found.matches)
        if combined and matches:
            matches = self._with_combined(text, sources, matches)
        short = self.short is not None and self.short.is_short(len(text.canonical))
        if alignment is not None and not short:
            uniqueness, borrowed, cited = alignment.uniqueness, alignment.borrowed, alignment.cited
            words, basis = alignment.tokens, "passages"
        else:
            # no stored texts, or a text shorter than the length rule's bound (too short for a
            # passage to tell a copy from chance): a word is found when a shingle it shares
            # with a match covers it — word 1-grams for a short text, as short pairs compare
            uniqueness, words = self._uniqueness_from_shingles(text, found)
            borrowed, cited, basis = 1.0 - uniqueness, 0.0, "words" if short else "shingles"
        return CheckResult(
            uniqueness=uniqueness,
            borrowed=borrowed,
            cited=cited,
            words=words,
            shingles=found.shingles,
            candidates=found.candidates,
            matches=tuple(matches),
            would=found.would,
            alignment=alignment,
            listed=fragments,
            basis=basis,
            tricks=text.canonical.tricks.merged(hidden),
        )

    def _with_combined(
        self, text: AnalyzedText, sources: Sequence[tuple[str, AnalyzedText]], matches: list[Match]
    ) -> list[Match]:
        from neardup.score.combined import CombinedFeatures, combined_scores

        by_id = dict(sources)
        stored = [by_id.get(m.id) or self.pipeline.analyze("") for m in matches]
        table = CombinedFeatures(self.spec).table([text, *stored])
        others = np.arange(1, len(matches) + 1, dtype=np.int64)
        scores = combined_scores(table, np.zeros(len(matches), dtype=np.int64), others)
        return [replace(m, combined=float(s)) for m, s in zip(matches, scores, strict=True)]

    def _uniqueness_from_shingles(self, text: AnalyzedText, found: LookedUp) -> tuple[float, int]:
        """The share of the text's words that no shingle shared with a match covers, and the
        words: the figure of a collection that keeps no texts to align against."""
        from neardup.fingerprints.shingles import shingle

        n = len(text.canonical)
        if n == 0 or not found.matches:
            return 1.0, n
        keys = [m.key for m in found.matches]
        rule = self.short
        short = rule is not None and rule.is_short(n)
        if short and rule is not None:  # a short text is compared on the stored short forms
            forms = rule.stored_forms(keys, self.storage)
            sets = [forms[k].fingerprints.values for k in keys if k in forms]
        else:
            sets = [s.values for s in self.storage.fingerprints(keys)]
        values = np.unique(np.concatenate(sets)) if sets else np.zeros(0, np.uint64)
        shingling = self.spec.shingles.fixed(short=short)
        shingles = shingle(text.canonical, shingling, self.pipeline.family)
        starts = np.flatnonzero(np.isin(shingles.hashes, values)) * shingling.step
        ends = np.minimum(starts + shingling.k, n)
        words_found = covered_tokens(starts.astype(np.int64), ends.astype(np.int64), n)
        return 1.0 - words_found / n, n

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
        text: Analyzable,
        result: CheckResult | None = None,
        *,
        top: int | None = DEFAULTS.top,
        aligner: Aligner | None = None,
    ) -> Alignment:
        """The matched passages of ``text`` in its ``top`` strongest matches (the second stage):
        :meth:`check`'s alignment (``result``, a check of the same text with its alignment,
        is taken as it is)."""
        if not self.index_spec.store_text:
            raise NotSupportedError(
                f"the collection {self.location} keeps no texts (created with --no-store-text); "
                "fragments need the stored texts",
                code="no_texts",
            )
        if result is None or result.alignment is None:
            result = self.check(text, top=top, fragments=True, citations=False, aligner=aligner)
        assert result.alignment is not None  # the collection keeps its texts
        return result.alignment

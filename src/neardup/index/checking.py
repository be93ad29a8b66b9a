"""The check part of the collection: a text checked against it without storing it — its
matches, what ``add`` would decide, its passages and its one uniqueness figure.

:meth:`Checker.run` is the one orchestration of a check, which :meth:`Collection.check
<neardup.index.collection.Collection.check>` and the web service both go through:

1. analysis, once (:class:`~neardup.analysis.analyzed.AnalyzedText`): the index's fingerprints,
   the aligner, the citations and the combined score all take that one analysis;
2. :meth:`Checker.look_up` (storage, one snapshot): candidates from every candidate source,
   exact verification, the policy's decision (what ``add`` would do), and the stored texts of
   every match the figure counts — all of them, strongest first, up to the work limit
   (:data:`~neardup.defaults.COUNTED_SOURCES_MAX` sources,
   :data:`~neardup.defaults.COUNTED_CHARACTERS_MAX` characters), not only the ``top`` listed;
3. :meth:`Checker.report` (no storage): the passages the text shares with those texts (the
   second stage, :class:`~neardup.passages.align.Aligner`), the citations, the combined score
   of each match listed, and the uniqueness — the share of the text's words found in no
   source, cited words counted apart (:attr:`neardup.passages.align.Alignment.uniqueness`, the
   figure every entry point prints), counted over every source aligned; the report lists the
   ``top`` strongest and says what the others add (:attr:`Alignment.more
   <neardup.passages.align.Alignment.more>`).

``top`` bounds the list, never the figure: the same text gets the same uniqueness with
``top=1`` and ``top=100``.

Only step 2 reads the storage, so a caller that shares the collection between threads passes
its lock as ``guard`` (and ``while_held``, work of its own that needs the lock and the
matches): the costly analysis and alignment run outside it, in parallel with other requests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from neardup._kernels.align import covered_tokens
from neardup.analysis.analyzed import AnalyzedText
from neardup.analysis.tricks import NONE, Tricks
from neardup.defaults import COUNTED_CHARACTERS_MAX, COUNTED_SOURCES_MAX, DEFAULTS, TOP_MAX
from neardup.errors import ConfigurationError, InputError
from neardup.fingerprints.pipeline import Analyzable
from neardup.index.analyzing import IndexAnalyzer
from neardup.index.candidates import SENTENCES
from neardup.index.deciding import Decider
from neardup.index.finding import CandidateFinder
from neardup.index.items import unstorable
from neardup.index.reading import Reader
from neardup.index.results import (
    CheckResult,
    Decision,
    IndexableText,
    Match,
    match_of,
    sort_matches,
)
from neardup.index.scoring import Verifier
from neardup.index.sentences import keep_new, to_align
from neardup.passages.counting import WordCounts
from neardup.spec import IndexSpec, Spec
from neardup.storage import Storage

if TYPE_CHECKING:
    from neardup.passages.align import Aligner, Alignment

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class LookedUp:
    """What the storage said of a text: its matches listed (strongest first, at most
    ``top``), the candidates verified, the size of its shingle set, what ``add`` would decide,
    the stored texts of the matches the figure counts (the listed ones first; none when the
    collection keeps no texts), the matches counted (strongest first: those whose texts are
    in ``stored``, or, in a collection that keeps no texts, whose shingles are) and how many
    more were found past the work limit (``uncounted``); ``capped``: the candidate stage
    reached the collection's ``max_candidates``, so more documents may share a sample."""

    matches: tuple[Match, ...]
    candidates: int
    shingles: int
    would: Decision
    stored: tuple[tuple[str, str], ...]
    counted: tuple[Match, ...] = ()
    uncounted: int = 0
    capped: bool = False
    #: Sentence candidates for the second stage beyond the matches (strongest first, with
    #: their stored texts): reported as matches when it marks a passage in them.
    to_align: tuple[tuple[Match, str], ...] = ()
    #: The sources the second stage looks for reworded passages in, besides those it finds
    #: copied passages in: the listed matches and what the sentence source proposed. Every
    #: other match shares a few 5-shingles by chance; searching each of them for rewrites
    #: cost more than the rest of a check at 100,000 documents (1.55x the p50 CPU) and
    #: marked 1 to 3 % more of the benchmark's reworded sentences
    #: (``benchmarks/sentence_candidates.py``; most come from the sentence source).
    rewrites_in: frozenset[str] = frozenset()


class Checker:
    """Checks of texts against a collection's stored documents, by its parts."""

    def __init__(
        self,
        storage: Storage,
        spec: Spec,
        index_spec: IndexSpec,
        analyzer: IndexAnalyzer,
        finder: CandidateFinder,
        verifier: Verifier,
        decider: Decider,
        reader: Reader,
    ) -> None:
        self.storage = storage
        self.spec = spec
        self.index_spec = index_spec
        self.analyzer = analyzer
        self.pipeline = analyzer.pipeline
        self.short = analyzer.short
        self.finder = finder
        self.verifier = verifier
        self.decider = decider
        self.reader = reader

    @cached_property
    def aligner(self) -> Aligner:
        """The second stage under the collection's analyzer, with the default settings."""
        from neardup.passages.align import Aligner

        return Aligner(self.spec)

    def run(
        self,
        text: Analyzable | IndexableText,
        *,
        top: int | None = DEFAULTS.top,
        policy: str | None = None,
        combined: bool = False,
        fragments: bool = DEFAULTS.fragments,
        citations: bool = DEFAULTS.citations,
        aligner: Aligner | None = None,
        exclude: Iterable[str] = (),
        hidden: Tricks = NONE,
        guard: AbstractContextManager[object] | None = None,
        while_held: Callable[[LookedUp], None] | None = None,
    ) -> CheckResult:
        """The check of ``text``: analysis once → candidates from every source → exact
        verification → the policy's decision → passages (the arguments are
        :meth:`Collection.check <neardup.index.collection.Collection.check>`'s).

        ``guard`` is held around the storage's part alone (:meth:`look_up`), and
        ``while_held`` is called with what it found before ``guard`` is let go: a service
        passes its lock, and reads what else it shows of the matches (their titles) under it.
        """
        if top is not None and (
            isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= TOP_MAX
        ):
            raise InputError(f"top must be an integer from 1 to {TOP_MAX} (or None), got {top!r}")
        analysis, item = self.analyze(text)
        with guard if guard is not None else nullcontext():
            found = self.look_up(item, top=top, policy=policy, exclude=exclude)
            if while_held is not None:
                while_held(found)
        return self.report(
            analysis,
            found,
            fragments=fragments,
            citations=citations,
            combined=combined,
            aligner=aligner,
            hidden=hidden,
        )

    def analyze(self, text: Analyzable | IndexableText) -> tuple[AnalyzedText, IndexableText]:
        """The one analysis of a checked text, and the index's analysis made from it (an index
        analysis given is taken as it is, its text analysed for the passages)."""
        if isinstance(
            text, IndexableText
        ):  # the index's analysis: its text is analysed for the rest
            item = self.analyzer.analyzed(text)
            if item.text is None:
                raise ConfigurationError(
                    "a check needs the text, not only its index analysis: give the text"
                )
            return self.pipeline.analyze(item.text), item
        analysis = self.pipeline.analyze(text)
        return analysis, self.analyzer.analyze(analysis)

    def look_up(
        self,
        item: IndexableText,
        *,
        top: int | None,
        policy: str | None,
        exclude: Iterable[str] = (),
    ) -> LookedUp:
        """The storage's part of :meth:`run`, in one snapshot; the documents ``exclude``
        names are dropped from the candidates before they are verified."""
        item = self.analyzer.analyzed(item)
        rules = self.decider.rules(policy)
        # an id no backend could store is in no collection: nothing to leave out
        left_out = sorted({d for d in exclude if isinstance(d, str) and d and not unstorable(d)})
        dropped: set[int] = set()
        with self.storage.snapshot():
            proposals = self.finder.stored([item], self.storage)
            candidates = proposals.pairs.other.tolist()
            # the cap bounds the shingle candidates; the sentence source offers a few of its own
            capped = (
                sum(len(p.other) for name, p in proposals.by_source if name != SENTENCES)
                >= self.index_spec.max_candidates
            )
            if left_out:
                dropped = set(self.storage.keys_for_ids(left_out).values())
                candidates = [k for k in candidates if k not in dropped]
            scored, _, shingles = self.verifier.measures(item, candidates)
            shared = [(k, m) for k, m in scored if m.shared > 0]
            infos = {d.key: d for d in self.storage.docs([k for k, _ in shared], meta=False)}
            matches = sort_matches(
                match_of(infos[k].id, k, m, infos[k].group) for k, m in shared if k in infos
            )
            would = self.decider.would(item, matches, rules, self._stored_group_size)
            listed = matches if top is None else matches[:top]
            if self.index_spec.store_text:
                stored, counted = self._counted_texts(matches, len(listed))
                # sentence candidates the second stage aligns beyond the matches (a match past
                # the work limit stays uncounted)
                extra = to_align(
                    proposals, scored, {m.key for m in matches} | dropped, self.storage
                )
            else:
                stored, counted, extra = [], matches[:COUNTED_SOURCES_MAX], []
        proposed = {
            k for name, p in proposals.by_source if name == SENTENCES for k in p.other.tolist()
        }
        rewrites_in = frozenset(
            [m.id for m in listed]
            + [m.id for m in matches if m.key in proposed]
            + [m.id for m, _ in extra]
        )
        return LookedUp(
            tuple(listed),
            len(scored),
            shingles,
            would,
            tuple(stored),
            tuple(counted),
            len(matches) - len(counted),
            capped,
            tuple(extra),
            rewrites_in,
        )

    def _counted_texts(
        self, matches: Sequence[Match], listed: int
    ) -> tuple[list[tuple[str, str]], list[Match]]:
        """The stored texts the figure is counted on, and their matches: strongest first,
        the ``listed`` first ones always, the others until :data:`COUNTED_SOURCES_MAX`
        sources or :data:`COUNTED_CHARACTERS_MAX` characters (the work limit)."""
        stored: list[tuple[str, str]] = []
        counted: list[Match] = []
        characters = 0
        batch = 32  # texts read at once: few reads, and memory bounded near the limit
        for at in range(0, len(matches), batch):
            chunk = matches[at : at + batch]
            infos = self.storage.docs([m.key for m in chunk], text=True, meta=False)
            texts = {d.key: d.text for d in infos}
            for number, match in enumerate(chunk, start=at):
                doc_text = texts.get(match.key)
                if number >= listed and (
                    len(counted) >= COUNTED_SOURCES_MAX
                    or characters + len(doc_text or "") > COUNTED_CHARACTERS_MAX
                ):
                    return stored, counted
                counted.append(match)
                if doc_text is not None:
                    stored.append((match.id, doc_text))
                    characters += len(doc_text)
        return stored, counted

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
        """:meth:`run`'s result from what :meth:`look_up` found (no storage is read)."""
        from neardup.passages.align import apply_citations

        aligner = aligner if aligner is not None else self.aligner
        extra = [(m.id, doc) for m, doc in found.to_align]
        sources = [(doc_id, self.pipeline.analyze(doc)) for doc_id, doc in (*found.stored, *extra)]
        alignment: Alignment | None = None
        marked: set[str] = set()
        if self.index_spec.store_text:
            query = aligner.prepare(text)
            alignment = aligner.align(query, sources, rewrites_in=found.rewrites_in)
            # a sentence candidate counts when it marks words no source before it marked
            alignment, marked = keep_new(alignment, [m.id for m, _ in found.to_align])
            if citations:
                alignment = apply_citations(alignment, query)
            # the figure of every source aligned; the list of ``top`` of them, those the text's
            # passages were found in first, and the sentence candidates that marked new words
            shown = shown_matches(
                found.counted, len(found.matches), {s.id for s in alignment.found}
            )
            new = [m for m, _ in found.to_align if m.id in marked]
            alignment = alignment.listed([m.id for m in (*shown, *new)], query)
        else:
            shown = list(found.matches)
        matches = shown + [m for m, _ in found.to_align if m.id in marked]
        if combined and matches:
            matches = self._with_combined(text, sources, matches)
        if alignment is not None:
            # one basis for every length: a short text too is counted on its passages, as
            # ``compare --fragments`` counts it (the aligner makes a passage of a whole text
            # shorter than a passage's minimum)
            counts, basis = alignment.words, "passages"
        else:  # no stored texts: a word is found when a shingle shared with a match covers it
            counts, basis = self._words_from_shingles(text, found), "shingles"
        return CheckResult(
            uniqueness=max(0.0, 1.0 - counts.borrowed - counts.cited_share),
            borrowed=counts.borrowed,
            cited=counts.cited_share,
            words=counts.words,
            shingles=found.shingles,
            candidates=found.candidates,
            matches=tuple(matches),
            would=found.would,
            alignment=alignment,
            listed=fragments,
            basis=basis,
            tricks=text.canonical.tricks.merged(hidden),
            counts=counts,
            sources_counted=len(found.counted),
            sources_uncounted=found.uncounted,
            candidates_capped=found.capped,
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

    def _words_from_shingles(self, text: AnalyzedText, found: LookedUp) -> WordCounts:
        """The text's words a shingle shared with a match counted covers (as ``copied``): the
        figure of a collection that keeps no texts to align against. (Such a collection has
        no length rule: the rule verifies short pairs on the stored texts.)"""
        from neardup.fingerprints.shingles import shingle

        n = len(text.canonical)
        if n == 0 or not found.counted:
            return WordCounts(n)
        sets = [s.values for s in self.storage.fingerprints([m.key for m in found.counted])]
        values = np.unique(np.concatenate(sets)) if sets else np.zeros(0, np.uint64)
        shingling = self.spec.shingles.fixed()
        shingles = shingle(text.canonical, shingling, self.pipeline.family)
        starts = np.flatnonzero(np.isin(shingles.hashes, values)) * shingling.step
        ends = np.minimum(starts + shingling.k, n)
        words_found = covered_tokens(starts.astype(np.int64), ends.astype(np.int64), n)
        return WordCounts(n, copied=words_found)

    def _stored_group_size(self, groups: Sequence[int]) -> int:
        return sum(self.storage.group_sizes(groups).values())


def shown_matches(counted: Sequence[Match], shown: int, with_passages: set[str]) -> list[Match]:
    """The ``shown`` matches a check lists of those it ``counted`` (strongest first): the ones
    a passage of the text was found in first, then the strongest others, in the order of
    ``counted``. Every match of a large collection shares a few 5-shingles with a text by
    chance; a source that a copied sentence came from ranks below them by resemblance (a
    sentence is a small share of both texts) but is the one a reader must see."""
    found = [m for m in counted if m.id in with_passages]
    chosen = {m.id for m in found[:shown]}
    for m in counted:
        if len(chosen) >= shown:
            break
        chosen.add(m.id)
    return [m for m in counted if m.id in chosen]

"""Matched fragments: which passages of a text were copied (or lightly edited) from which source.

This is the second stage of the pseudo-matrix Bloom filter paper's two-stage search: the index
proposes candidate sources fast; here a query ("suspicious") text is compared in detail with each
candidate and the copied segments are marked, as character spans of BOTH original inputs (HTML
included: spans come from the analyzer's offset maps and point into the text the user gave). For a
query against several sources it also reports the share of the query covered by each source and by
all of them together — the "borrowed %" of uniqueness checkers (the web-articles compilation), whose
complement is the uniqueness %.

The algorithm (all hot loops in :mod:`neardup._kernels.align`):

1. Both texts go through the spec's analyzer (the ``ru`` preset: lemmas, stop words and
   function words dropped), then into word shingles of ``k`` tokens with step 1 (``k = 3`` by
   default: short enough that a changed word breaks only ``k`` shingles, long enough that two
   unrelated texts on one topic rarely share one), hashed with 64-bit xxh3. Alignment keeps
   its own ``k`` and hash: it stores nothing, so it need not match the spec's fingerprints.
2. Seeds: every pair of positions ``(i, j)`` whose shingles are equal. A shingle that occurs
   more than ``max_occurrences`` times in the source makes no seeds.
3. Chaining: seeds in query order join a chain when they follow its last seed in both texts
   with at most ``gap`` unmatched tokens in between in each text, so a passage with a few
   changed, inserted or deleted words stays one passage.
4. A chain is a passage when its seeds cover at least ``min_tokens`` tokens of the query —
   or all of it, for a query shorter than that (a query of fewer words than ``k`` is one
   passage where its words stand in a row in the source), so that a short text gets the same
   figure compared with one text as checked against a collection. Passages of one source may
   not overlap in the query: the best (most matched tokens) wins.
5. A passage's similarity is the share of its tokens covered by seeds, over both texts:
   ``(matched_a + matched_b) / (tokens_a + tokens_b)`` — 1.0 for a verbatim copy.

Borrowed % is measured in canonical tokens of the query (so markup, spacing, punctuation and
stop words neither add nor dilute): tokens inside some passage / all tokens. Tokens inside a
passage but between its seeds (the edited words) count as borrowed. Each word is counted once, by
kind (copied, rewritten, cited: :mod:`neardup.passages.counting`, the one count every entry
point's figure comes from).

Citations (:func:`apply_citations`, on by default in the CLI's uniqueness reports): passages a
writer marks as quoted or referenced and says whose (:mod:`neardup.passages.citations`: an
attributed quotation, a sentence whose reference resolves to the text's own reference list)
are counted as *cited*, not borrowed. A query token is inside a citation when its first
character is. Then ``borrowed`` is the share of tokens in a passage and outside every cited
span, ``cited`` the share in a passage and inside one, ``quoted`` the share inside any quote or
referenced sentence found (cited or not) whether or not a source matched it; ``uniqueness = 1
- borrowed - cited``: the one uniqueness figure, the share of the query's words found in no
source, cited words counted apart (the three add up to 1). Each passage says what the
citations make of it (:attr:`Passage.citation`): ``"cited"``, ``"unresolved"`` (it carries a
reference its text's list does not hold: borrowed, and reports say "reference not found"
beside it) or ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from neardup._arguments import public, public_methods
from neardup._constraints import Boolean, Integer, check
from neardup._kernels import align as kernels
from neardup.analysis.analyzed import AnalyzedText, Prepared
from neardup.analysis.analyzer import Canonical
from neardup.defaults import DEFAULTS
from neardup.errors import ConfigurationError, NotFoundError, WrongTypeError
from neardup.fingerprints.pipeline import Analyzable, Pipeline, TextLike, default_spec
from neardup.fingerprints.shingles import shingle
from neardup.passages.citations import Citation, find_citations, passage_statuses
from neardup.passages.counting import (
    COPIED,
    CountedRun,
    MoreSources,
    WordCounts,
    counts_of,
    only_in_unlisted,
    runs_of,
    word_kinds,
)
from neardup.passages.whole_sentences import whole_sentence
from neardup.spec import MAX_SHINGLE_LENGTH, FingerprintSpec, ShingleSpec, Spec

if TYPE_CHECKING:
    from neardup.passages.rewrites import RewriteFinder, RewrittenPassage, Sentences

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

#: Defaults, from the one table (:mod:`neardup.defaults`).
DEFAULT_K = DEFAULTS.align_k
DEFAULT_GAP = DEFAULTS.gap
DEFAULT_MIN_TOKENS = DEFAULTS.min_tokens
DEFAULT_MAX_OCCURRENCES = DEFAULTS.max_occurrences

#: The one sentence that says what the uniqueness figure means (reports print it beside it).
UNIQUENESS_MEANING = (
    "Uniqueness is the share of the text's words found in no source; borrowed, the share "
    "copied from a source; cited, the share copied inside an attributed quotation or a "
    "sentence whose reference is in the text's reference list. The three add up to 100 %."
)

#: What each alignment setting accepts (the CLI's --align-k, --gap, --min-tokens use them too).
CONSTRAINTS: dict[str, Integer] = {
    "k": Integer(1, MAX_SHINGLE_LENGTH),
    "gap": Integer(0, 1_000_000),
    "min_tokens": Integer(1, 1_000_000),
    "max_occurrences": Integer(1, 1_000_000_000),
}

#: The hash alignment shingles use; nothing is stored, so it is fixed rather than the spec's.
_ALIGN_HASH = FingerprintSpec(family="xxh3", bits=64, seed=0)


@dataclass(frozen=True)
class Passage:
    """One matched fragment: a passage of the query (``a``) and its counterpart in a source (``b``).

    ``a_start:a_end`` and ``b_start:b_end`` are half-open character spans of the ORIGINAL
    inputs (as given: raw HTML for HTML input); ``a_tokens`` and ``b_tokens`` are the canonical
    token ranges (end exclusive) they cover. ``matched_a``/``matched_b`` count the tokens that
    some equal shingle covers; ``similarity`` is ``(matched_a + matched_b) / (tokens_a +
    tokens_b)``. ``number`` counts passages of one source from 1 in query order; ``a_text`` and
    ``b_text`` are the spans' text as it stands in the inputs. ``a_changed``/``b_changed`` are
    the character spans of the runs of words inside the passage that no matching shingle covers
    — the edited words (empty for a verbatim copy). ``citation`` is what the query's citations
    make of it (:func:`apply_citations`): ``"cited"`` when part of it is inside a cited span,
    ``"unresolved"`` when it carries a reference not found in the text's reference list (its
    words are borrowed), ``None`` otherwise or when citations were not looked for. ``kind`` is
    always ``"copied"`` (a rewritten passage,
    :class:`~neardup.passages.rewrites.RewrittenPassage`, says ``"rewritten"``).
    """

    source: str
    number: int
    a_start: int
    a_end: int
    b_start: int
    b_end: int
    a_tokens: tuple[int, int]
    b_tokens: tuple[int, int]
    matched_a: int
    matched_b: int
    similarity: float
    a_text: str
    b_text: str
    a_changed: tuple[tuple[int, int], ...] = ()
    b_changed: tuple[tuple[int, int], ...] = ()
    citation: str | None = None
    kind: str = COPIED

    @property
    def length(self) -> int:
        """Characters of the query this passage spans."""
        return self.a_end - self.a_start

    @property
    def tokens_a(self) -> int:
        return self.a_tokens[1] - self.a_tokens[0]

    @property
    def tokens_b(self) -> int:
        return self.b_tokens[1] - self.b_tokens[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "source": self.source,
            "number": self.number,
            "a_start": self.a_start,
            "a_end": self.a_end,
            "b_start": self.b_start,
            "b_end": self.b_end,
            "length": self.length,
            "tokens_a": self.tokens_a,
            "tokens_b": self.tokens_b,
            "matched_a": self.matched_a,
            "matched_b": self.matched_b,
            "similarity": round(self.similarity, 6),
            "a_text": self.a_text,
            "b_text": self.b_text,
            "a_changed": [list(span) for span in self.a_changed],
            "b_changed": [list(span) for span in self.b_changed],
            "citation": self.citation,
        }


@dataclass(frozen=True)
class SourceMatch:
    """What one source contributed to the query.

    ``passages`` are the copied (verbatim or lightly edited) passages, ``rewritten`` the
    passages whose sentences were reworded (:mod:`neardup.passages.rewrites`), both in query order.
    ``borrowed`` is the share of the query's canonical tokens inside either; ``source_used``
    the share of the source's tokens inside their counterparts.
    """

    id: str
    text: str
    passages: tuple[Passage, ...]
    tokens: int
    borrowed: float
    source_used: float
    rewritten: tuple[RewrittenPassage, ...] = ()

    def to_dict(self, *, with_text: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "tokens": self.tokens,
            "borrowed": round(self.borrowed, 6),
            "source_used": round(self.source_used, 6),
            "passages": [p.to_dict() for p in self.passages],
            "rewritten": [p.to_dict() for p in self.rewritten],
        }
        if with_text:
            out["text"] = self.text
        return out

    def token_ranges(self) -> list[tuple[int, int]]:
        """The query's token ranges this source covers: copied and rewritten passages."""
        return [p.a_tokens for p in self.passages] + [p.a_tokens for p in self.rewritten]


@public_methods
@dataclass(frozen=True)
class Alignment:
    """A query text against its sources: passages per source and the shares of the query.

    The query's canonical words fall in three parts that add up to one: ``borrowed`` (inside
    some passage of some source, outside every citation), ``cited`` (inside a passage and
    inside a citation: quoted, or a sentence carrying its own reference; 0 unless
    :func:`apply_citations` looked for them) and ``uniqueness`` (found in no source). This is
    the one uniqueness figure every entry point prints. ``quoted`` is the share inside a
    citation whether or not a source matched it. A source's own ``borrowed`` is its whole
    share of the query (cited words included). Sources appear in the order given;
    :attr:`found` are those with at least one passage (the only ones reports list).

    ``counts`` are the words of each kind the shares come from and ``counted`` the runs of
    the query they lie in (:mod:`neardup.passages.counting`). A report that lists only the
    strongest sources (:meth:`listed`) keeps the figure of all of them: ``more`` then says
    what the sources it leaves out add.
    """

    text: str
    tokens: int
    sources: tuple[SourceMatch, ...]
    borrowed: float
    params: dict[str, int] = field(default_factory=dict)
    cited: float = 0.0
    quoted: float = 0.0
    citations: tuple[Citation, ...] | None = None
    counts: WordCounts | None = None
    counted: tuple[CountedRun, ...] = ()
    more: MoreSources | None = None

    @property
    def uniqueness(self) -> float:
        """The share of the query's words found in no source: ``1 - borrowed - cited``."""
        return max(0.0, 1.0 - self.borrowed - self.cited)

    @property
    def found(self) -> tuple[SourceMatch, ...]:
        """The sources with at least one passage (copied or rewritten)."""
        return tuple(s for s in self.sources if s.passages or s.rewritten)

    @property
    def rewritten(self) -> list[RewrittenPassage]:
        """Every rewritten passage of every source, in query order."""
        every = [p for s in self.sources for p in s.rewritten]
        every.sort(key=lambda p: (p.a_start, p.a_end, p.source))
        return every

    @property
    def passages(self) -> list[Passage]:
        """Every passage of every source, in query order."""
        every = [p for s in self.sources for p in s.passages]
        every.sort(key=lambda p: (p.a_start, p.a_end, p.source))
        return every

    @property
    def taken(self) -> list[Passage | RewrittenPassage]:
        """Every copied and rewritten passage of every source, in query order (each says its
        ``kind``): what the borrowed and cited words lie in."""
        every: list[Passage | RewrittenPassage] = []
        for s in self.sources:
            every += [*s.passages, *s.rewritten]
        every.sort(key=lambda p: (p.a_start, p.a_end, p.source, p.kind))
        return every

    @property
    def words(self) -> WordCounts:
        """The query's words by kind (:attr:`counts`; for an alignment made without them,
        the shares times the words)."""
        if self.counts is not None:
            return self.counts
        return WordCounts(
            self.tokens, round(self.borrowed * self.tokens), 0, round(self.cited * self.tokens)
        )

    def listed(self, ids: Iterable[str], query: Prepared) -> Alignment:
        """This alignment as a report lists it: only the sources ``ids`` (a check lists its
        strongest matches), with the figure of every source it was aligned with and, in
        :attr:`more`, what the others add — the words found only in them, and where they lie
        in the query (``query``: the prepared query, for the words' spans)."""
        wanted = set(ids)
        kept = tuple(s for s in self.sources if s.id in wanted)
        rest = [s for s in self.found if s.id not in wanted]
        if not rest:
            return replace(self, sources=kept, more=None)
        ranges = [r for s in kept for r in s.token_ranges()]
        canonical = query.canonical
        words, spans = only_in_unlisted(
            self.counted, self.tokens, ranges, canonical.starts, canonical.ends
        )
        more = MoreSources(
            sources=len(rest),
            passages=sum(len(s.passages) + len(s.rewritten) for s in rest),
            words=words,
            share=words / self.tokens if self.tokens else 0.0,
            spans=spans,
        )
        return replace(self, sources=kept, more=more)

    def source(self, source_id: str) -> SourceMatch:
        for match in self.sources:
            if match.id == source_id:
                return match
        raise NotFoundError(f"no source {source_id!r:.80} in this alignment")

    def to_dict(self, *, with_text: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "uniqueness": round(self.uniqueness, 6),
            "borrowed": round(self.borrowed, 6),
            "cited": round(self.cited, 6),
            "tokens": self.tokens,
            **self.words.to_dict(),
            "citations_counted": self.citations is not None,
            "params": dict(self.params),
            "sources": [s.to_dict(with_text=with_text) for s in self.found],
            "counted": [run.to_dict() for run in self.counted],
        }
        if self.more is not None:
            out["more_sources"] = self.more.to_dict()
        if self.citations is not None:
            out["quoted"] = round(self.quoted, 6)
            out["citations"] = [c.to_dict() for c in self.citations]
        if with_text:
            out["text"] = self.text
        return out


def _unmatched_spans(
    canonical: Canonical, matched: npt.NDArray[np.bool_], first: int, end: int
) -> tuple[tuple[int, int], ...]:
    """Character spans of the runs of unmatched tokens in ``[first, end)``."""
    free = ~matched[first:end]
    if not free.any():
        return ()
    edges = np.diff(np.concatenate(([0], free.view(np.int8), [0])))
    run_starts = np.flatnonzero(edges == 1) + first
    run_ends = np.flatnonzero(edges == -1) + first
    starts = canonical.starts[run_starts].tolist()
    ends = canonical.ends[run_ends - 1].tolist()
    return tuple(zip(starts, ends, strict=True))


def _source_items(
    sources: Mapping[str, Analyzable | Prepared] | Iterable[tuple[str, Analyzable | Prepared]],
) -> list[tuple[str, Analyzable | Prepared]]:
    """The ``(id, text)`` pairs of a mapping or an iterable of pairs (a lone text is refused,
    not read as a sequence of characters)."""
    if isinstance(sources, Mapping):
        return list(sources.items())
    if isinstance(sources, str | bytes | Prepared | AnalyzedText) or not isinstance(
        sources, Iterable
    ):
        raise WrongTypeError(
            f"sources must be a mapping id → text or (id, text) pairs, got {type(sources).__name__}"
        )
    items = list(sources)
    for item in items:
        if not isinstance(item, tuple) or len(item) != 2:
            raise WrongTypeError(f"each source must be an (id, text) pair, got {item!r:.80}")
    return items


@public
class Aligner:
    """Finds the passages a query text shares with source texts.

    ``spec`` gives the analyzer (default: the ``ru`` preset); its shingle and fingerprint
    settings are not used — alignment shingles are ``k`` words, step 1, 64-bit xxh3.
    ``gap`` is how many unmatched tokens (in each text) may lie inside one passage,
    ``min_tokens`` the fewest query tokens a passage's matching shingles must cover,
    ``max_occurrences`` how often a shingle may repeat in a source and still make seeds.
    """

    def __init__(
        self,
        spec: Spec | None = None,
        *,
        k: int = DEFAULT_K,
        gap: int = DEFAULT_GAP,
        min_tokens: int = DEFAULT_MIN_TOKENS,
        max_occurrences: int = DEFAULT_MAX_OCCURRENCES,
        rewrites: bool = DEFAULTS.rewrites,
    ) -> None:
        given = {"k": k, "gap": gap, "min_tokens": min_tokens, "max_occurrences": max_occurrences}
        check("rewrites", rewrites, Boolean(), ConfigurationError)
        self.rewrites = rewrites
        for name, value in given.items():
            check(name, value, CONSTRAINTS[name], ConfigurationError)
        if spec is not None and not isinstance(spec, Spec):
            raise ConfigurationError(f"spec must be a Spec or None, got {type(spec).__name__}")
        self.spec = spec
        self.k = k
        self.gap = gap
        self.min_tokens = min_tokens
        self.max_occurrences = max_occurrences
        base = spec if spec is not None else default_spec()
        self._align_spec = Spec(
            analyzer=base.analyzer,
            shingles=ShingleSpec(unit="word", k=k, step=1),
            fingerprint_family=_ALIGN_HASH,
        )
        self._pipeline = Pipeline(self._align_spec)
        self._base_spec = base
        self._finder: RewriteFinder | None = None

    @property
    def params(self) -> dict[str, int]:
        return {
            "k": self.k,
            "gap": self.gap,
            "min_tokens": self.min_tokens,
            "max_occurrences": self.max_occurrences,
            "rewrites": int(self.rewrites),
        }

    def _rewrite_finder(self) -> RewriteFinder:
        if self._finder is None:
            from neardup.passages.rewrites import RewriteFinder

            self._finder = RewriteFinder(self._base_spec)
        return self._finder

    def _rewritten(
        self,
        a: Prepared | Sentences,
        b: Prepared,
        source_id: str,
        copied: Sequence[Passage],
    ) -> tuple[RewrittenPassage, ...]:
        """The passages of ``a`` reworded from ``b`` (on the same analysis: nothing is analysed
        again; ``a`` cut into sentences once for all the sources), when this aligner looks for
        them. Sentences mostly inside a ``copied`` passage are left to it: a sentence that leads
        into a quotation would otherwise count its own words as taken."""
        if not self.rewrites:
            return ()
        found = self._rewrite_finder().find(
            a,
            b,
            source_id=source_id,
            skip_a_spans=[(p.a_start, p.a_end) for p in copied],
            skip_b_spans=[(p.b_start, p.b_end) for p in copied],
        )
        return tuple(found)

    @property
    def pipeline(self) -> Pipeline:
        """The pipeline alignment analyzes with (the spec's analyzer, ``k``-word shingles)."""
        return self._pipeline

    def prepare(self, text: Analyzable | Prepared) -> Prepared:
        """Analyze ``text`` once for alignment (a :class:`Prepared` passes through; an
        :class:`~neardup.analysis.analyzed.AnalyzedText` of the same analyzer is not analysed again,
        and keeps what is made of it here for the next stage that asks)."""
        if isinstance(text, Prepared):
            if text.spec_fingerprint != self._pipeline.spec_fingerprint:
                raise ConfigurationError(
                    "this text was prepared by an aligner with another analyzer or k"
                )
            return text
        analyzed = self._pipeline.analyze(text)
        key = ("align", self._pipeline.spec_fingerprint)
        return analyzed.derived(key, lambda: self._prepared(analyzed))

    def _prepared(self, analyzed: AnalyzedText) -> Prepared:
        canonical = analyzed.canonical
        hashes = shingle(canonical, self._align_spec.shingles, self._pipeline.family).hashes
        order = np.argsort(hashes, kind="stable").astype(np.int64)
        return Prepared(
            analyzed.text,
            canonical,
            hashes,
            hashes[order],
            order,
            self._pipeline.spec_fingerprint,
        )

    def _passages(self, a: Prepared, b: Prepared, source_id: str) -> tuple[Passage, ...]:
        """The passages of ``a`` that come from ``b``, in query order."""
        if len(a.hashes) == 0 or len(b.hashes) == 0:
            return ()
        if len(a.canonical) < self.k:
            return self._whole_text(a, b, source_id)
        seeds_i, seeds_j = kernels.find_seeds(
            a.hashes, b.sorted_hashes, b.order, self.max_occurrences
        )
        if seeds_i.shape[0] == 0:
            return ()
        n_a, n_b = len(a.canonical), len(b.canonical)
        a_first, a_end, b_first, b_end, m_a, m_b, seed_chain = kernels.chain_seeds(
            seeds_i, seeds_j, self.k, n_a, n_b, self.gap
        )
        # a query shorter than a passage's minimum is one passage when all of it was taken: the
        # same short text gets the same figure whether it is compared or checked
        kept = m_a >= min(self.min_tokens, n_a)
        # a whole sentence copied end to end is a passage however few canonical tokens it has
        for c in np.flatnonzero(~kept & (m_a >= self.k) & (m_a == a_end - a_first)).tolist():
            kept[c] = whole_sentence(
                a.text, a.canonical, int(a_first[c]), int(a_end[c]),
                b.text, b.canonical, int(b_first[c]), int(b_end[c]),
            )  # fmt: skip
        if not kept.any():
            return ()
        candidates = np.flatnonzero(kept)
        best = kernels.select_non_overlapping(
            a_first[candidates], a_end[candidates], m_a[candidates] + m_b[candidates], n_a
        )
        kept[:] = False
        kept[candidates[best]] = True
        mask_a = kernels.matched_mask(seeds_i, seed_chain, kept, self.k, n_a)
        mask_b = kernels.matched_mask(seeds_j, seed_chain, kept, self.k, n_b)
        chosen = np.flatnonzero(kept)
        chosen = chosen[np.lexsort((b_first[chosen], a_first[chosen]))]
        ca, cb = a.canonical, b.canonical
        passages = []
        for number, c in enumerate(chosen.tolist(), start=1):
            af, ae, bf, be = int(a_first[c]), int(a_end[c]), int(b_first[c]), int(b_end[c])
            s0, e0 = int(ca.starts[af]), int(ca.ends[ae - 1])
            s1, e1 = int(cb.starts[bf]), int(cb.ends[be - 1])
            ma, mb = int(m_a[c]), int(m_b[c])
            passages.append(
                Passage(
                    source=source_id,
                    number=number,
                    a_start=s0,
                    a_end=e0,
                    b_start=s1,
                    b_end=e1,
                    a_tokens=(af, ae),
                    b_tokens=(bf, be),
                    matched_a=ma,
                    matched_b=mb,
                    similarity=(ma + mb) / ((ae - af) + (be - bf)),
                    a_text=a.text[s0:e0],
                    b_text=b.text[s1:e1],
                    a_changed=_unmatched_spans(ca, mask_a, af, ae),
                    b_changed=_unmatched_spans(cb, mask_b, bf, be),
                )
            )
        return tuple(passages)

    def _whole_text(self, a: Prepared, b: Prepared, source_id: str) -> tuple[Passage, ...]:
        """The one passage of a query of fewer words than a shingle (``k``): its words in a
        row in ``b`` (the first place they stand), else none."""
        n_a = len(a.canonical)
        if len(b.canonical) < n_a:
            return ()
        whole = ShingleSpec(unit="word", k=n_a, step=1)
        family = self._pipeline.family
        query = shingle(a.canonical, whole, family).hashes
        where = np.flatnonzero(shingle(b.canonical, whole, family).hashes == query[0])
        if where.shape[0] == 0:
            return ()
        bf = int(where[0])
        ca, cb = a.canonical, b.canonical
        s0, e0 = int(ca.starts[0]), int(ca.ends[n_a - 1])
        s1, e1 = int(cb.starts[bf]), int(cb.ends[bf + n_a - 1])
        return (
            Passage(
                source=source_id,
                number=1,
                a_start=s0,
                a_end=e0,
                b_start=s1,
                b_end=e1,
                a_tokens=(0, n_a),
                b_tokens=(bf, bf + n_a),
                matched_a=n_a,
                matched_b=n_a,
                similarity=1.0,
                a_text=a.text[s0:e0],
                b_text=b.text[s1:e1],
            ),
        )

    def align(
        self,
        query: Analyzable | Prepared,
        sources: Mapping[str, Analyzable | Prepared] | Iterable[tuple[str, Analyzable | Prepared]],
        *,
        rewrites_in: AbstractSet[str] | None = None,
    ) -> Alignment:
        """Align ``query`` against each source (a mapping id → text, or ``(id, text)`` pairs).

        Returns the passages per source, each source's share of the query (``borrowed``) and
        the share covered by all of them together. Reworded passages are looked for (when this
        aligner looks for them) in every source, or, given ``rewrites_in``, in the sources it
        names and in those a copied passage was found in.
        """
        a = self.prepare(query)
        items = _source_items(sources)
        n_a = len(a.canonical)
        matches: list[SourceMatch] = []
        # the query's sentences, cut once: a long text aligned with many sources
        sentences = self._rewrite_finder().prepare(a) if self.rewrites and items else a
        for source_id, source_text in items:
            b = self.prepare(source_text)
            passages = self._passages(a, b, str(source_id))
            search = rewrites_in is None or passages or str(source_id) in rewrites_in
            rewritten = self._rewritten(sentences, b, str(source_id), passages) if search else ()
            both: list[Passage | RewrittenPassage] = [*passages, *rewritten]
            first = np.array([p.a_tokens[0] for p in both], dtype=np.int64)
            end = np.array([p.a_tokens[1] for p in both], dtype=np.int64)
            b_first = np.array([p.b_tokens[0] for p in both], dtype=np.int64)
            b_end = np.array([p.b_tokens[1] for p in both], dtype=np.int64)
            covered = kernels.covered_tokens(first, end, n_a) if both else 0
            used = kernels.covered_tokens(b_first, b_end, len(b.canonical)) if both else 0
            matches.append(
                SourceMatch(
                    id=str(source_id),
                    text=b.text,
                    passages=passages,
                    tokens=len(b.canonical),
                    borrowed=covered / n_a if n_a else 0.0,
                    source_used=used / len(b.canonical) if len(b.canonical) else 0.0,
                    rewritten=rewritten,
                )
            )
        kinds = word_kinds(n_a, *_taken_ranges(matches))
        counts = counts_of(kinds)
        return Alignment(
            text=a.text,
            tokens=n_a,
            sources=tuple(matches),
            borrowed=counts.borrowed,
            params=self.params,
            counts=counts,
            counted=runs_of(kinds, a.canonical.starts, a.canonical.ends),
        )

    def pair(
        self, a: Analyzable | Prepared, b: Analyzable | Prepared, *, source_id: str = "B"
    ) -> Alignment:
        """Align text ``a`` against one source ``b`` (``neardup compare --fragments``)."""
        return self.align(a, [(source_id, b)])


def align(
    query: TextLike,
    sources: Mapping[str, TextLike] | Iterable[tuple[str, TextLike]],
    *,
    spec: Spec | None = None,
    k: int = DEFAULT_K,
    gap: int = DEFAULT_GAP,
    min_tokens: int = DEFAULT_MIN_TOKENS,
    max_occurrences: int = DEFAULT_MAX_OCCURRENCES,
) -> Alignment:
    """Passages of ``query`` found in each of ``sources``, and the borrowed share.

    A one-call form of :meth:`Aligner.align`; build an :class:`Aligner` to align many texts
    under the same settings (the analyzer is set up once).
    """
    aligner = Aligner(spec, k=k, gap=gap, min_tokens=min_tokens, max_occurrences=max_occurrences)
    return aligner.align(query, sources)


def align_pair(
    a: TextLike,
    b: TextLike,
    *,
    spec: Spec | None = None,
    k: int = DEFAULT_K,
    gap: int = DEFAULT_GAP,
    min_tokens: int = DEFAULT_MIN_TOKENS,
    max_occurrences: int = DEFAULT_MAX_OCCURRENCES,
) -> Alignment:
    """Passages text ``a`` shares with text ``b`` (source id ``"B"``)."""
    aligner = Aligner(spec, k=k, gap=gap, min_tokens=min_tokens, max_occurrences=max_occurrences)
    return aligner.pair(a, b)


def apply_citations(
    alignment: Alignment, query: Prepared, citations: Iterable[Citation] | None = None
) -> Alignment:
    """``alignment`` with its cited passages counted as citation, not borrowing, and each
    passage's :attr:`~Passage.citation` set.

    ``query`` is the alignment's query as :meth:`Aligner.prepare` made it (its tokens' spans);
    ``citations`` default to :func:`neardup.passages.citations.find_citations` of the query's text.
    Only the cited ones (:attr:`Citation.counts`) take words out of ``borrowed``.
    """
    if not isinstance(query, Prepared) or query.text != alignment.text:
        raise ConfigurationError("apply_citations needs the alignment's own prepared query")
    found = tuple(find_citations(alignment.text) if citations is None else citations)
    sources = tuple(_with_citation_status(match, found) for match in alignment.sources)
    n = alignment.tokens
    if n == 0 or len(query.canonical) != n:
        return replace(alignment, sources=sources, cited=0.0, quoted=0.0, citations=found)
    starts = np.asarray(query.canonical.starts, dtype=np.int64)
    inside = _token_mask(query, found)
    counted = _token_mask(query, [c for c in found if c.counts])
    copied, rewritten = _taken_ranges(sources)
    kinds = word_kinds(n, copied, rewritten, counted)
    counts = counts_of(kinds)
    return replace(
        alignment,
        sources=sources,
        borrowed=counts.borrowed,
        cited=counts.cited_share,
        quoted=int(np.count_nonzero(inside)) / n,
        citations=found,
        counts=counts,
        counted=runs_of(kinds, starts, query.canonical.ends),
    )


def _token_mask(query: Prepared, spans: Sequence[Citation]) -> npt.NDArray[np.bool_]:
    """Which of the query's tokens start inside one of ``spans`` (the token starts are sorted,
    so each span is two binary searches)."""
    starts = np.asarray(query.canonical.starts, dtype=np.int64)
    n = starts.shape[0]
    edges = np.zeros(n + 1, dtype=np.int64)
    if spans:
        bounds = np.array([(c.start, c.end) for c in spans], dtype=np.int64)
        first = np.searchsorted(starts, bounds[:, 0], side="left")
        end = np.searchsorted(starts, bounds[:, 1], side="left")
        np.add.at(edges, first, 1)
        np.add.at(edges, end, -1)
    return np.cumsum(edges[:n]) > 0


def _with_citation_status(match: SourceMatch, citations: Sequence[Citation]) -> SourceMatch:
    """MATCH with each of its passages' ``citation`` said by CITATIONS."""
    copied = passage_statuses([(p.a_start, p.a_end) for p in match.passages], citations)
    reworded = passage_statuses([(p.a_start, p.a_end) for p in match.rewritten], citations)
    return replace(
        match,
        passages=tuple(replace(p, citation=c) for p, c in zip(match.passages, copied, strict=True)),
        rewritten=tuple(
            replace(p, citation=c) for p, c in zip(match.rewritten, reworded, strict=True)
        ),
    )


def _taken_ranges(
    sources: Iterable[SourceMatch],
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The query's token ranges of the copied passages and of the rewritten ones."""
    copied = [p.a_tokens for s in sources for p in s.passages]
    rewritten = [p.a_tokens for s in sources for p in s.rewritten]
    return copied, rewritten

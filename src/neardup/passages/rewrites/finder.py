"""Rewritten passages of a query taken from a source: :class:`RewriteFinder` and its one-call
forms (the algorithm is described in :mod:`neardup.passages.rewrites`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._constraints import Integer, check
from neardup._kernels import rewrites as kernels
from neardup.analysis.analyzed import Prepared
from neardup.errors import ConfigurationError
from neardup.fingerprints.pipeline import Analyzable, Pipeline, default_spec
from neardup.passages.rewrites.scores import Bags, _restrict, bags_against, bags_of
from neardup.passages.rewrites.sentences import (
    Sentences,
    boilerplate_sentences,
    split_sentences,
)
from neardup.spec import Spec

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
Span = tuple[int, int]

#: The sentence score at which a query sentence counts as a rewrite of a source sentence;
#: chosen on the human-labelled paraphrase sets (docs/quality.md, "Rewritten passages").
DEFAULT_THRESHOLD = 0.5
#: How far apart (in source sentences) the partners of two neighbouring query sentences may be
#: and still make one passage.
DEFAULT_WINDOW = 3
#: The fewest canonical query tokens a rewritten passage holds (as the aligner's ``min_tokens``).
DEFAULT_MIN_TOKENS = 8
#: The fewest terms a sentence needs to be matched at all.
DEFAULT_MIN_SENTENCE_TOKENS = 3
#: The score a sentence next to a matched one needs to join its passage, as a share of
#: ``threshold`` (set by design and checked on the generated rewrites: docs/quality.md,
#: "Rewritten passages").
EXTEND_SHARE = 0.5
#: The share of a query sentence's tokens inside ``skip_a_spans`` from which it is skipped.
SKIP_SHARE = 0.5
#: The mean margin a passage's sentence pairs need over their rivals: a pair's margin is its
#: score less the best score either of its sentences reaches with another sentence of the other
#: text. Two stories about one event restate the same facts (names, places, figures) in many
#: sentences, so a sentence sharing them has several near partners; a sentence rewritten from
#: another has one. Chosen on one half of news pairs about one event and of paraphrases placed
#: in unrelated news (docs/quality.md, "Rewritten passages": ``benchmarks/checker_bench.py``).
DEFAULT_MIN_MARGIN = 0.33
#: What a passage of one sentence pair needs over ``min_margin``: one sentence restating a
#: story's main fact is the commonest false mark, and nothing around it speaks for it.
SINGLE_EXTRA_MARGIN = 0.22
#: Pairs scoring below this are not scored as rivals (they would not move a margin that
#: matters: a matched pair scores at least ``threshold`` × :data:`EXTEND_SHARE`).
RIVAL_FLOOR = 0.1

CONSTRAINTS: dict[str, Integer] = {
    "window": Integer(0, 1_000_000),
    "min_tokens": Integer(1, 1_000_000),
    "min_sentence_tokens": Integer(1, 1_000_000),
}

KIND = "rewritten"


@dataclass(frozen=True)
class RewrittenPassage:
    """A passage of the query (``a``) whose sentences were reworded from a source (``b``).

    Fields as :class:`neardup.passages.align.Passage`: ``a_start:a_end`` and ``b_start:b_end`` are
    half-open character spans of the ORIGINAL inputs (raw HTML for HTML input), ``a_tokens`` and
    ``b_tokens`` the canonical token ranges they cover (end exclusive), ``a_text``/``b_text``
    the spans' text. ``a_sentences`` and ``b_sentences`` are the sentence ranges (end
    exclusive) of the two texts; ``pairs`` the matched sentence pairs ``(query sentence,
    source sentence, score)`` in query order; ``similarity`` the mean of their scores weighed
    by the query sentences' tokens. ``number`` counts the rewritten passages of one source from
    1 in query order; ``kind`` is always ``"rewritten"`` (a verbatim passage has none).
    """

    source: str
    number: int
    a_start: int
    a_end: int
    b_start: int
    b_end: int
    a_tokens: Span
    b_tokens: Span
    a_sentences: Span
    b_sentences: Span
    pairs: tuple[tuple[int, int, float], ...]
    similarity: float
    a_text: str
    b_text: str
    kind: str = KIND
    #: What the query's citations make of it, as :attr:`neardup.passages.align.Passage.citation`.
    citation: str | None = None

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
            "a_sentences": list(self.a_sentences),
            "b_sentences": list(self.b_sentences),
            "pairs": [[i, j, round(s, 6)] for i, j, s in self.pairs],
            "similarity": round(self.similarity, 6),
            "a_text": self.a_text,
            "b_text": self.b_text,
            "citation": self.citation,
        }


def _inside(starts: I64, spans: Iterable[Span]) -> npt.NDArray[np.bool_]:
    """Which of the offsets ``starts`` lie inside one of ``spans``."""
    inside = np.zeros(starts.shape[0], dtype=np.bool_)
    for lo, hi in spans:
        inside |= (starts >= lo) & (starts < hi)
    return inside


def _skipped(sentences: Sentences, spans: Iterable[Span]) -> npt.NDArray[np.bool_]:
    """The sentences with at least :data:`SKIP_SHARE` of their tokens inside ``spans``."""
    spans = list(spans)
    n = len(sentences)
    if not spans or n == 0:
        return np.zeros(n, dtype=np.bool_)
    inside = _inside(np.asarray(sentences.canonical.starts, dtype=np.int64), spans)
    counted = np.concatenate(([0], np.cumsum(inside, dtype=np.int64)))
    covered = counted[sentences.token_end] - counted[sentences.token_first]
    return covered >= SKIP_SHARE * (sentences.token_end - sentences.token_first)


def _source_items(
    sources: Mapping[str, Any] | Iterable[tuple[str, Any]],
) -> list[tuple[str, Any]]:
    if isinstance(sources, Mapping):
        return [(str(k), v) for k, v in sources.items()]
    if isinstance(sources, str | bytes) or not isinstance(sources, Iterable):
        raise TypeError(
            f"sources must be a mapping id → text or (id, text) pairs, got {type(sources).__name__}"
        )
    items = list(sources)
    for item in items:
        if not isinstance(item, tuple) or len(item) != 2:
            raise TypeError(f"each source must be an (id, text) pair, got {item!r:.80}")
    return [(str(k), v) for k, v in items]


class RewriteFinder:
    """Finds the passages of a query text whose sentences were reworded from a source.

    ``spec`` gives the analyzer (default: :func:`~neardup.fingerprints.pipeline.default_spec`, the
    ``auto`` preset: lemmas for Russian, stems for English); ``threshold`` is the sentence
    score from which two sentences are a rewrite pair, ``extend_threshold`` (default
    ``threshold`` × :data:`EXTEND_SHARE`) the score a sentence next to a matched one needs to
    join it (``extend_threshold >= threshold`` turns the extension off); ``window``,
    ``min_tokens`` and ``min_sentence_tokens`` are described in the module's notes.
    """

    def __init__(
        self,
        spec: Spec | None = None,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        window: int = DEFAULT_WINDOW,
        min_tokens: int = DEFAULT_MIN_TOKENS,
        min_sentence_tokens: int = DEFAULT_MIN_SENTENCE_TOKENS,
        extend_threshold: float | None = None,
        min_margin: float = DEFAULT_MIN_MARGIN,
    ) -> None:
        given = {"window": window, "min_tokens": min_tokens}
        given["min_sentence_tokens"] = min_sentence_tokens
        for name, value in given.items():
            check(name, value, CONSTRAINTS[name], ConfigurationError)
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise ConfigurationError(f"threshold must be a number, got {threshold!r}")
        if not 0.0 < float(threshold) <= 1.0:
            raise ConfigurationError(f"threshold must be in (0, 1], got {threshold}")
        if extend_threshold is None:
            extend_threshold = float(threshold) * EXTEND_SHARE
        if isinstance(extend_threshold, bool) or not isinstance(extend_threshold, int | float):
            raise ConfigurationError(f"extend_threshold must be a number, got {extend_threshold!r}")
        if not 0.0 < float(extend_threshold) <= 1.0:
            raise ConfigurationError(f"extend_threshold must be in (0, 1], got {extend_threshold}")
        if isinstance(min_margin, bool) or not isinstance(min_margin, int | float):
            raise ConfigurationError(f"min_margin must be a number, got {min_margin!r}")
        if not -1.0 <= float(min_margin) <= 1.0:
            raise ConfigurationError(f"min_margin must be in [-1, 1], got {min_margin}")
        if spec is not None and not isinstance(spec, Spec):
            raise ConfigurationError(f"spec must be a Spec or None, got {type(spec).__name__}")
        self.spec = spec
        self.min_margin = float(min_margin)
        self.threshold = float(threshold)
        self.extend_threshold = float(extend_threshold)
        self.window = window
        self.min_tokens = min_tokens
        self.min_sentence_tokens = min_sentence_tokens
        self._pipeline = Pipeline(spec if spec is not None else default_spec())
        self._query_bags: tuple[Sentences, Bags] | None = None

    @property
    def params(self) -> dict[str, float]:
        return {
            "threshold": self.threshold,
            "extend_threshold": self.extend_threshold,
            "window": self.window,
            "min_tokens": self.min_tokens,
            "min_sentence_tokens": self.min_sentence_tokens,
            "min_margin": self.min_margin,
        }

    def prepare(self, text: Analyzable | Prepared | Sentences) -> Sentences:
        """``text`` analyzed and cut into sentences once (a :class:`Sentences` passes through).

        An :class:`~neardup.passages.align.Prepared` of an :class:`~neardup.passages.align.Aligner`
        built on the
        same spec is reused as it is (its canonical tokens are this analyzer's), so a query
        aligned verbatim first is not analyzed twice.
        """
        if isinstance(text, Sentences):
            return text
        if isinstance(text, Prepared):
            return split_sentences(text.text, text.canonical)
        analysis = self._pipeline.analyze(text)
        return analysis.derived(
            ("sentences", self._pipeline.spec_fingerprint),
            lambda: split_sentences(analysis.text, analysis.canonical),
        )

    def _usable(self, sentences: Sentences, skip: Iterable[Span]) -> npt.NDArray[np.bool_]:
        sizes = sentences.token_end - sentences.token_first
        usable = (sizes >= self.min_sentence_tokens) & ~_skipped(sentences, skip)
        return usable & ~boilerplate_sentences(sentences)

    def find(
        self,
        query: Analyzable | Prepared | Sentences,
        source: Analyzable | Prepared | Sentences,
        *,
        source_id: str = "B",
        skip_a_spans: Iterable[Span] = (),
        skip_b_spans: Iterable[Span] = (),
    ) -> list[RewrittenPassage]:
        """The rewritten passages of ``query`` taken from ``source``, in query order.

        ``skip_a_spans`` / ``skip_b_spans``: character spans of the query / the source already
        accounted for (the verbatim passages of :mod:`neardup.passages.align`); a sentence mostly
        inside
        them is not matched.
        """
        a = self.prepare(query)
        b = self.prepare(source)
        if len(a) == 0 or len(b) == 0:
            return []
        usable_a = self._usable(a, skip_a_spans)
        usable_b = self._usable(b, skip_b_spans)
        # the IDF counts every sentence of both texts, usable or not
        a_ptr, a_ids, b_ptr, b_ids, idf = bags_against(
            self._bags_of(a),
            [b.terms[f:e] for f, e in zip(b.token_first.tolist(), b.token_end.tolist())],
        )
        a_ptr, a_ids = _restrict(a_ptr, a_ids, usable_a)
        b_ptr, b_ids = _restrict(b_ptr, b_ids, usable_b)
        hole = self.extend_threshold
        floor = min(hole, self.threshold, RIVAL_FLOOR)
        cand_i, cand_j, cand_s = kernels.pair_scores(a_ptr, a_ids, b_ptr, b_ids, idf, floor)
        partner, score = kernels.match_sentences(
            len(a), len(b), cand_i, cand_j, cand_s, self.threshold, hole, self.window
        )
        blank = ~usable_a & ~_skipped(a, skip_a_spans)
        firsts, ends = kernels.group_passages(partner, blank, self.window)
        margin = self._margins(len(a), len(b), cand_i, cand_j, cand_s, partner, score)
        return self._passages(a, b, source_id, partner, score, margin, firsts, ends)

    @staticmethod
    def _margins(
        n_a: int, n_b: int, cand_i: I64, cand_j: I64, cand_s: F64, partner: I64, score: F64
    ) -> F64:
        """Each matched query sentence's margin over its rivals (:data:`DEFAULT_MIN_MARGIN`;
        0 where unmatched)."""
        row = kernels.best_two(cand_i, cand_j, cand_s, n_a)
        col = kernels.best_two(cand_j, cand_i, cand_s, n_b)
        rows = np.flatnonzero(partner >= 0).astype(np.int64)
        margin = np.zeros(n_a, dtype=np.float64)
        margin[rows] = kernels.pair_margins(rows, partner[rows], score[rows], *row, *col)
        return margin

    def _bags_of(self, a: Sentences) -> Bags:
        """The query's term sets, made once for the sources it is compared with one after the
        other (the last query's are kept: a tuple read and written whole, so threads sharing
        this finder each get their own query's)."""
        kept = self._query_bags
        if kept is not None and kept[0] is a:
            return kept[1]
        bags = bags_of(a.terms[f:e] for f, e in zip(a.token_first.tolist(), a.token_end.tolist()))
        self._query_bags = (a, bags)
        return bags

    def _passages(
        self,
        a: Sentences,
        b: Sentences,
        source_id: str,
        partner: I64,
        score: F64,
        margin: F64,
        firsts: I64,
        ends: I64,
    ) -> list[RewrittenPassage]:
        passages: list[RewrittenPassage] = []
        for first, end in zip(firsts.tolist(), ends.tolist(), strict=True):
            rows = [i for i in range(first, end) if partner[i] >= 0]
            cols = [int(partner[i]) for i in rows]
            a_tok = (int(a.token_first[first]), int(a.token_end[end - 1]))
            if a_tok[1] - a_tok[0] < self.min_tokens:
                continue
            # more than shared facts: the pairs must stand out from their rivals
            need = self.min_margin + (SINGLE_EXTRA_MARGIN if len(rows) == 1 else 0.0)
            if float(np.mean(margin[rows])) < need:
                continue
            j_lo, j_hi = min(cols), max(cols)
            sizes = np.asarray([a.token_end[i] - a.token_first[i] for i in rows], dtype=np.float64)
            similarity = float(np.dot(sizes, score[rows]) / sizes.sum())
            s0, e0 = int(a.starts[first]), int(a.ends[end - 1])
            s1, e1 = int(b.starts[j_lo]), int(b.ends[j_hi])
            passages.append(
                RewrittenPassage(
                    source=source_id,
                    number=len(passages) + 1,
                    a_start=s0,
                    a_end=e0,
                    b_start=s1,
                    b_end=e1,
                    a_tokens=a_tok,
                    b_tokens=(int(b.token_first[j_lo]), int(b.token_end[j_hi])),
                    a_sentences=(first, end),
                    b_sentences=(j_lo, j_hi + 1),
                    pairs=tuple((i, j, float(score[i])) for i, j in zip(rows, cols, strict=True)),
                    similarity=similarity,
                    a_text=a.text[s0:e0],
                    b_text=b.text[s1:e1],
                )
            )
        return passages

    def find_many(
        self,
        query: Analyzable | Prepared | Sentences,
        sources: Mapping[str, Analyzable | Prepared | Sentences]
        | Iterable[tuple[str, Analyzable | Prepared | Sentences]],
        *,
        skip_a_spans: Iterable[Span] | Mapping[str, Iterable[Span]] = (),
        skip_b_spans: Mapping[str, Iterable[Span]] | None = None,
    ) -> dict[str, list[RewrittenPassage]]:
        """:meth:`find` for each source (a mapping id → text, or ``(id, text)`` pairs), the
        query analyzed once. ``skip_a_spans`` is one list of spans for every source, or a
        mapping source id → spans; ``skip_b_spans`` maps a source id to spans of that source
        (a source a mapping does not name skips nothing)."""
        a = self.prepare(query)
        out: dict[str, list[RewrittenPassage]] = {}
        shared = None if isinstance(skip_a_spans, Mapping) else list(skip_a_spans)
        for source_id, text in _source_items(sources):
            if shared is not None:
                skip: Iterable[Span] = shared
            else:
                skip = skip_a_spans.get(source_id, ())  # type: ignore[union-attr]
            out[source_id] = self.find(
                a,
                text,
                source_id=source_id,
                skip_a_spans=skip,
                skip_b_spans=(skip_b_spans or {}).get(source_id, ()),
            )
        return out


def find_rewrites(
    query: Analyzable | Prepared | Sentences,
    source: Analyzable | Prepared | Sentences,
    *,
    spec: Spec | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    window: int = DEFAULT_WINDOW,
    min_tokens: int = DEFAULT_MIN_TOKENS,
    min_sentence_tokens: int = DEFAULT_MIN_SENTENCE_TOKENS,
    skip_a_spans: Iterable[Span] = (),
    skip_b_spans: Iterable[Span] = (),
    source_id: str = "B",
) -> list[RewrittenPassage]:
    """The passages of ``query`` reworded from ``source`` (a one-call form of
    :meth:`RewriteFinder.find`; build a :class:`RewriteFinder` to check many texts)."""
    finder = RewriteFinder(
        spec,
        threshold=threshold,
        window=window,
        min_tokens=min_tokens,
        min_sentence_tokens=min_sentence_tokens,
    )
    return finder.find(
        query, source, source_id=source_id, skip_a_spans=skip_a_spans, skip_b_spans=skip_b_spans
    )


def find_rewrites_many(
    query: Analyzable | Prepared | Sentences,
    sources: Mapping[str, Analyzable | Prepared | Sentences]
    | Iterable[tuple[str, Analyzable | Prepared | Sentences]],
    *,
    spec: Spec | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    skip_a_spans: Iterable[Span] | Mapping[str, Iterable[Span]] = (),
    skip_b_spans: Mapping[str, Iterable[Span]] | None = None,
) -> dict[str, list[RewrittenPassage]]:
    """The rewritten passages of ``query`` per source (:meth:`RewriteFinder.find_many`)."""
    return RewriteFinder(spec, threshold=threshold).find_many(
        query, sources, skip_a_spans=skip_a_spans, skip_b_spans=skip_b_spans
    )

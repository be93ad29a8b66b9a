"""Rewritten passages: sentences of a query text reworded from a source, found and marked.

The verbatim second stage (:mod:`neardup.align`) chains equal word shingles, so it finds copies
and lightly edited copies; a paragraph rewritten by hand (synonyms, another word order, changed
grammar, words dropped or added) shares almost no 3-word shingle with its source and nothing is
marked. Here both texts are cut into sentences and compared sentence by sentence on their
*terms* — the canonical tokens of the spec's analyzer: lemmas under the ``ru`` and ``auto``
presets, with stop words and function words dropped — so inflection, word order and most
grammar changes cost nothing and a synonym costs one term.

The algorithm (hot loops in :mod:`neardup._kernels.rewrites`):

1. Sentences: the ORIGINAL text is cut after ``.``, ``!``, ``?`` or ``…`` followed by white
   space and a capital letter or digit (not after an initial or a common abbreviation), at a
   line break unless the next line goes on with a small letter (hard-wrapped text), and at
   block-level HTML tags. The canonical tokens (whose spans point into
   the original input) fall into the sentences they start in.
2. Scores: each sentence is the set of its distinct terms, weighed by a pair-local IDF — the
   document frequency counted over the sentences of both texts, ``ln((1 + N) / (1 + df)) + 1``
   (scikit-learn's smooth formula), so a term repeated all over the two texts (the topic)
   weighs little and the rare ones that carry a sentence's facts weigh most. The score of two
   sentences is the cosine of their weight vectors.
3. Matching: pairs scoring at least ``threshold`` are matched one to one, best first. Then an
   unmatched query sentence next to a matched one may take a free source sentence within
   ``window`` sentences of its neighbour's partner when their pair scores at least
   ``extend_threshold`` (half the threshold: a heavily reworded sentence inside or at the edge
   of a rewritten passage), repeatedly. Sentences with fewer
   than ``min_sentence_tokens`` terms are never matched (a dateline or a caption matches
   anything that repeats its two words), and query sentences mostly inside ``skip_a_spans``
   (the verbatim passages found already) are left out, as are source sentences mostly inside
   ``skip_b_spans``.
4. Passages: consecutive matched query sentences whose partners lie within ``window``
   sentences of each other in the source form one passage (sentences may be reordered inside
   it); a passage is kept when it holds at least ``min_tokens`` canonical tokens of the query.

The threshold decides "this sentence is a rewrite of that one"; it was chosen on human-labelled
sentence paraphrases (``benchmarks/quality_rewrites.py --calibrate``; docs/rewrites.md has the
figures). Everything is deterministic: equal inputs give equal passages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._constraints import Integer, check
from neardup._kernels import rewrites as kernels
from neardup.align import Prepared
from neardup.analysis.analyzer import Canonical
from neardup.errors import ConfigurationError
from neardup.pipeline import Pipeline, TextLike, as_text, default_spec
from neardup.spec import Spec

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
Span = tuple[int, int]

#: The sentence score at which a query sentence counts as a rewrite of a source sentence;
#: chosen on the human-labelled paraphrase sets (docs/rewrites.md).
DEFAULT_THRESHOLD = 0.5
#: How far apart (in source sentences) the partners of two neighbouring query sentences may be
#: and still make one passage.
DEFAULT_WINDOW = 3
#: The fewest canonical query tokens a rewritten passage holds (as the aligner's ``min_tokens``).
DEFAULT_MIN_TOKENS = 8
#: The fewest terms a sentence needs to be matched at all.
DEFAULT_MIN_SENTENCE_TOKENS = 3
#: The score a sentence next to a matched one needs to join its passage, as a share of
#: ``threshold`` (set by design and checked on the generated rewrites: docs/rewrites.md).
EXTEND_SHARE = 0.5
#: The share of a query sentence's tokens inside ``skip_a_spans`` from which it is skipped.
SKIP_SHARE = 0.5

CONSTRAINTS: dict[str, Integer] = {
    "window": Integer(0, 1_000_000),
    "min_tokens": Integer(1, 1_000_000),
    "min_sentence_tokens": Integer(1, 1_000_000),
}

KIND = "rewritten"

# A sentence may end at . ! ? … (and closing quotes or brackets) before white space — the next
# word must also start with a capital letter or a digit (:func:`_is_sentence_end`) —, at a line
# break, at a block-level HTML tag.
_SENTENCE_END = re.compile(
    r"[.!?…]+[\"'»”’)\]]*(?=\s)"
    r"|\n"
    r"|</?(?:p|div|li|ul|ol|h[1-6]|tr|td|th|table|blockquote|section|article|header|footer"
    r"|title|br|hr)\b[^>]*>",
    re.IGNORECASE,
)
_WORD_BEFORE = re.compile(r"([^\W\d_]+)\.?$")
_ABBREVIATIONS = frozenset(
    "т д п др пр см ср рис им ул г гг в вв стр тыс млн млрд руб коп долл ст обл р-н "
    "mr mrs ms dr st jr sr inc co corp ltd vs no nos fig gen gov sen rep prof"
    " jan feb mar apr jun jul aug sep sept oct nov dec".split()
)


def _is_sentence_end(text: str, match: re.Match[str]) -> bool:
    """Whether a punctuation match really ends a sentence (not ``А. С. Пушкин``, ``Mr. Smith``,
    ``т. е. Москва``); a block tag always does, a line break unless the next line goes on with
    a small letter."""
    piece = match.group()
    if piece.startswith("<"):
        return True
    if piece == "\n":
        # a blank line or a line that starts with anything but a small letter (a heading, a
        # new paragraph); a hard-wrapped line going on with a small letter is not a new one
        ahead = text[match.end() : match.end() + 64]
        rest = ahead.lstrip()
        return "\n" in ahead[: len(ahead) - len(rest)] or not rest[:1].islower()
    follows = text[match.end() : match.end() + 8]
    if not follows[:1].isspace():
        return False
    rest = follows.lstrip().lstrip("\"'«“„([-–—").lstrip()
    if not rest or not (rest[0].isupper() or rest[0].isdigit()):
        return False
    if piece[0] != ".":
        return True
    before = _WORD_BEFORE.search(text, max(0, match.start() - 12), match.start())
    if before is None:
        return True
    word = before.group(1)
    return not (len(word) == 1 or word.lower() in _ABBREVIATIONS)


def sentence_bounds(text: str) -> tuple[I64, I64]:
    """Where the sentences of ``text`` start and end: sentence ``k`` is
    ``text[starts[k]:ends[k]]`` (white space and the tag that ends it not trimmed); together
    they cover the text but for the tags between sentences."""
    starts, ends = [0], []
    for match in _SENTENCE_END.finditer(text):
        if _is_sentence_end(text, match):
            tag = match.group().startswith("<")
            end, at = (match.start() if tag else match.end()), match.end()
            if at > starts[-1]:
                ends.append(max(end, starts[-1]))
                starts.append(at)
    ends.append(len(text))
    return np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64)


def sentence_spans(text: str) -> list[Span]:
    """Character spans of the sentences of ``text``, white space trimmed, empty ones left out."""
    spans = []
    for start, end in zip(*(b.tolist() for b in sentence_bounds(text)), strict=True):
        piece = text[start:end]
        left = len(piece) - len(piece.lstrip())
        right = len(piece.rstrip())
        if right > left:
            spans.append((start + left, start + right))
    return spans


@dataclass(frozen=True)
class RewrittenPassage:
    """A passage of the query (``a``) whose sentences were reworded from a source (``b``).

    Fields as :class:`neardup.align.Passage`: ``a_start:a_end`` and ``b_start:b_end`` are
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
        }


@dataclass(frozen=True)
class Sentences:
    """A text cut into sentences with its canonical tokens (:meth:`RewriteFinder.prepare`).

    Sentence ``s`` spans ``text[starts[s]:ends[s]]`` (the original input) and holds tokens
    ``token_first[s]:token_end[s]`` of ``canonical``; ``terms`` are the tokens' terms.
    """

    text: str
    canonical: Canonical
    terms: tuple[str, ...]
    starts: I64
    ends: I64
    token_first: I64
    token_end: I64

    def __len__(self) -> int:
        return int(self.starts.shape[0])

    @property
    def spans(self) -> list[Span]:
        return list(zip(self.starts.tolist(), self.ends.tolist(), strict=True))


def split_sentences(text: str, canonical: Canonical) -> Sentences:
    """``text`` cut into sentences, each with its tokens of ``canonical`` (``text``'s own)."""
    cuts, cut_ends = sentence_bounds(text)
    n_tokens = len(canonical)
    tok_starts = np.asarray(canonical.starts, dtype=np.int64)
    tok_ends = np.asarray(canonical.ends, dtype=np.int64)
    # each token's sentence, then the sentences that hold tokens (the others carry nothing)
    owner = np.searchsorted(cuts, tok_starts, side="right") - 1
    kept = np.unique(owner)
    first = np.searchsorted(owner, kept, side="left").astype(np.int64)
    end = np.searchsorted(owner, kept, side="right").astype(np.int64)
    starts = np.empty(kept.shape[0], dtype=np.int64)
    ends = np.empty(kept.shape[0], dtype=np.int64)
    lows, highs = cuts.tolist(), cut_ends.tolist()
    for s, (sentence, t0, t1) in enumerate(zip(kept.tolist(), first.tolist(), end.tolist())):
        lo, hi = int(tok_starts[t0]), int(tok_ends[t1 - 1])
        # widen to the sentence's own edges (a leading stop word, the closing full stop) unless
        # markup lies in between: a span must not swallow a tag
        cut_lo, cut_hi = lows[sentence], max(highs[sentence], hi)
        head = text[cut_lo:lo]
        if "<" not in head and ">" not in head:
            lo = cut_lo + (len(head) - len(head.lstrip()))
        tail = text[hi:cut_hi]
        if "<" not in tail and ">" not in tail:
            hi = hi + len(tail.rstrip())
        starts[s], ends[s] = lo, hi
    terms = tuple(canonical.terms) if n_tokens else ()
    return Sentences(text, canonical, terms, starts, ends, first, end)


def _bags(
    a_terms: Iterable[Iterable[str]], b_terms: Iterable[Iterable[str]]
) -> tuple[I64, I64, I64, I64, F64]:
    """Sentences as sets of term ids (CSR: pointers and ids, per text) and each term's
    pair-local IDF over the sentences of both texts."""
    vocabulary: dict[str, int] = {}
    sides = []
    for side in (a_terms, b_terms):
        ptr = [0]
        ids: list[int] = []
        for sentence in side:
            distinct = sorted({vocabulary.setdefault(t, len(vocabulary)) for t in sentence})
            ids.extend(distinct)
            ptr.append(len(ids))
        sides.append((np.asarray(ptr, dtype=np.int64), np.asarray(ids, dtype=np.int64)))
    (a_ptr, a_ids), (b_ptr, b_ids) = sides
    n_sentences = (a_ptr.shape[0] - 1) + (b_ptr.shape[0] - 1)
    df = np.bincount(np.concatenate((a_ids, b_ids)), minlength=len(vocabulary))
    idf = np.log((1.0 + n_sentences) / (1.0 + df)) + 1.0
    return a_ptr, a_ids, b_ptr, b_ids, idf.astype(np.float64)


def sentence_scores(
    a_terms: Iterable[Iterable[str]], b_terms: Iterable[Iterable[str]], *, floor: float = 0.0
) -> tuple[I64, I64, F64]:
    """The score of every pair of sentences sharing a term and scoring at least ``floor``:
    ``(i, j, score)`` ordered by ``i`` then ``j``, where ``a_terms[i]`` and ``b_terms[j]`` are
    the sentences' terms (what :class:`RewriteFinder` compares; the calibration calls this)."""
    a_ptr, a_ids, b_ptr, b_ids, idf = _bags(a_terms, b_terms)
    return kernels.pair_scores(a_ptr, a_ids, b_ptr, b_ids, idf, float(floor))


def similarity_matrix(a_terms: Iterable[Iterable[str]], b_terms: Iterable[Iterable[str]]) -> F64:
    """All sentence scores as a dense ``(len(a_terms), len(b_terms))`` matrix."""
    a_list, b_list = list(map(list, a_terms)), list(map(list, b_terms))
    out = np.zeros((len(a_list), len(b_list)), dtype=np.float64)
    i, j, s = sentence_scores(a_list, b_list)
    out[i, j] = s
    return out


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

    ``spec`` gives the analyzer (default: :func:`~neardup.pipeline.default_spec`, the
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
        if spec is not None and not isinstance(spec, Spec):
            raise ConfigurationError(f"spec must be a Spec or None, got {type(spec).__name__}")
        self.spec = spec
        self.threshold = float(threshold)
        self.extend_threshold = float(extend_threshold)
        self.window = window
        self.min_tokens = min_tokens
        self.min_sentence_tokens = min_sentence_tokens
        self._pipeline = Pipeline(spec if spec is not None else default_spec())

    @property
    def params(self) -> dict[str, float]:
        return {
            "threshold": self.threshold,
            "extend_threshold": self.extend_threshold,
            "window": self.window,
            "min_tokens": self.min_tokens,
            "min_sentence_tokens": self.min_sentence_tokens,
        }

    def prepare(self, text: TextLike | Prepared | Sentences) -> Sentences:
        """``text`` analyzed and cut into sentences once (a :class:`Sentences` passes through).

        An :class:`~neardup.align.Prepared` of an :class:`~neardup.align.Aligner` built on the
        same spec is reused as it is (its canonical tokens are this analyzer's), so a query
        aligned verbatim first is not analyzed twice.
        """
        if isinstance(text, Sentences):
            return text
        if isinstance(text, Prepared):
            return split_sentences(text.text, text.canonical)
        source = as_text(text)
        return split_sentences(source, self._pipeline.canonical(source))

    def _usable(self, sentences: Sentences, skip: Iterable[Span]) -> npt.NDArray[np.bool_]:
        sizes = sentences.token_end - sentences.token_first
        return (sizes >= self.min_sentence_tokens) & ~_skipped(sentences, skip)

    def find(
        self,
        query: TextLike | Prepared | Sentences,
        source: TextLike | Prepared | Sentences,
        *,
        source_id: str = "B",
        skip_a_spans: Iterable[Span] = (),
        skip_b_spans: Iterable[Span] = (),
    ) -> list[RewrittenPassage]:
        """The rewritten passages of ``query`` taken from ``source``, in query order.

        ``skip_a_spans`` / ``skip_b_spans``: character spans of the query / the source already
        accounted for (the verbatim passages of :mod:`neardup.align`); a sentence mostly inside
        them is not matched.
        """
        a = self.prepare(query)
        b = self.prepare(source)
        if len(a) == 0 or len(b) == 0:
            return []
        usable_a = self._usable(a, skip_a_spans)
        usable_b = self._usable(b, skip_b_spans)
        # the IDF counts every sentence of both texts, usable or not
        a_ptr, a_ids, b_ptr, b_ids, idf = _bags(
            [a.terms[f:e] for f, e in zip(a.token_first.tolist(), a.token_end.tolist())],
            [b.terms[f:e] for f, e in zip(b.token_first.tolist(), b.token_end.tolist())],
        )
        a_ptr, a_ids = _restrict(a_ptr, a_ids, usable_a)
        b_ptr, b_ids = _restrict(b_ptr, b_ids, usable_b)
        hole = self.extend_threshold
        floor = min(hole, self.threshold)
        cand_i, cand_j, cand_s = kernels.pair_scores(a_ptr, a_ids, b_ptr, b_ids, idf, floor)
        partner, score = kernels.match_sentences(
            len(a), len(b), cand_i, cand_j, cand_s, self.threshold, hole, self.window
        )
        blank = ~usable_a & ~_skipped(a, skip_a_spans)
        firsts, ends = kernels.group_passages(partner, blank, self.window)
        return self._passages(a, b, source_id, partner, score, firsts, ends)

    def _passages(
        self,
        a: Sentences,
        b: Sentences,
        source_id: str,
        partner: I64,
        score: F64,
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
        query: TextLike | Prepared | Sentences,
        sources: Mapping[str, TextLike | Prepared | Sentences]
        | Iterable[tuple[str, TextLike | Prepared | Sentences]],
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


def _restrict(ptr: I64, ids: I64, keep: npt.NDArray[np.bool_]) -> tuple[I64, I64]:
    """A CSR of sentences with the rows not in ``keep`` emptied."""
    sizes = np.diff(ptr) * keep
    new_ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    rows = np.repeat(keep, np.diff(ptr))
    return new_ptr, ids[rows]


def find_rewrites(
    query: TextLike | Prepared | Sentences,
    source: TextLike | Prepared | Sentences,
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
    query: TextLike | Prepared | Sentences,
    sources: Mapping[str, TextLike | Prepared | Sentences]
    | Iterable[tuple[str, TextLike | Prepared | Sentences]],
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

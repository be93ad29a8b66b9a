"""The combined score: a small calibrated model over the measures neardup already computes.

No single measure is right for every pair: word 5-shingles miss short or inflected rewrites,
word 1-grams and character n-grams cannot tell two texts on one topic from a rewrite, and
containment and resemblance disagree on partial copies. The combined score is a logistic
regression over nine features of a pair, each in [0, 1]:

====  ==========================================================================================
0     resemblance of word 5-shingles of the canonical terms (lemmas under ``ru``/``auto``)
1     containment (the larger of both ways) of the same
2     resemblance of word 1-grams of the canonical terms
3     containment of word 1-grams of the canonical terms
4     resemblance of character 4-grams of the ``plain`` text (lowercase words, no lemmas)
5     containment of the same
6     TF-IDF cosine of the canonical term counts, the IDF taken from the pair itself (a term
      in both texts weighs 1, a term in one ``1 + ln 1.5``), so a pair scores the same whatever
      other texts are scored beside it
7     length ratio: the shorter text's canonical tokens over the longer's
8     shortness: ``16 / (16 + tokens of the shorter text)`` — lets the model read the word
      measures differently on a sentence and on a page, so that one threshold means the same
      on both
====  ==========================================================================================

``score = 1 / (1 + exp(-(intercept + Σ weight_i · feature_i)))``, then at least the floor (the
word 1-gram resemblance of a pair whose shorter text has fewer than 16 canonical tokens, the
pair-local TF-IDF cosine otherwise: chosen on human-labelled pairs, docs/quality.md). A short
pair of like length (the shorter text under 32 canonical tokens and at least a third of the
longer) scores instead ``0.8 ×`` the resemblance of character 3-grams of the *written* text
(:func:`written_text`: punctuation, digits and function words kept) ``+ 0.2 ×`` the word
1-gram resemblance — on human-labelled sentence pairs the written characters tell a rewrite
from a pair on one topic better than lemmas do. The logistic part is a probability-like number,
calibrated on the generated training pairs (a half of positives and a half of negatives of each
generated kind; 0.5 is the natural threshold). The coefficients are in
:mod:`neardup.score._coefficients`, written by ``benchmarks/fit_combined.py`` from pairs
made by :mod:`neardup.eval.generate` of documents the evaluation never uses (fixed seed); no
evaluation set was used to fit them. Every entry point (``neardup.compare``, ``compare
--method combined``, ``matrix --method combined``, ``eval --method combined``) computes the
features with :func:`combined_table` and :func:`pair_features` and applies
:data:`MODEL`: one function, so one pair scores the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._kernels.pairs import pair_overlaps, pair_term_products
from neardup.analysis.analyzed import AnalyzedText
from neardup.analysis.chain import Canonical, Chain, canonical_of_terms
from neardup.fingerprints.pipeline import Analyzable, Pipeline, as_text, make_spec
from neardup.fingerprints.shingles import shingle
from neardup.fingerprints.similarity import Fingerprints
from neardup.score import _coefficients as coefficients
from neardup.spec import ShingleSpec, Spec

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
Progress = Callable[[int], None] | None

FEATURES = (
    "resemblance_word5",
    "containment_word5",
    "resemblance_word1",
    "containment_word1",
    "resemblance_char4_plain",
    "containment_char4_plain",
    "tfidf_pair",
    "length_ratio",
    "shortness",
)
#: The tokens at which ``shortness`` is one half.
SHORTNESS_SCALE = 16.0
#: The IDF of a term in one text of the pair (smooth IDF over two documents: ln(3/2) + 1).
IDF_ONE_SIDE = 1.0 + float(np.log(1.5))

_WORD5 = ShingleSpec(unit="word", k=5)
_WORD1 = ShingleSpec(unit="word", k=1)
_CHAR4 = ShingleSpec(unit="char", k=4)
_CHAR3 = ShingleSpec(unit="char", k=3)


@dataclass(frozen=True)
class CombinedModel:
    """Logistic-regression coefficients over :data:`FEATURES`."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    intercept: float
    trained_on: str
    #: Bumped by every refit or new rule: a score is reproducible with the same model version.
    version: int = 1
    #: The floor (0: none): the score is at least the pair's word 1-gram resemblance when its
    #: shorter text has fewer canonical tokens than this, and at least its pair-local TF-IDF
    #: cosine otherwise.
    floor_below: int = 0
    #: The short-pair blend (0: none): a pair whose shorter text has fewer canonical tokens
    #: than this, and is at least ``blend_ratio`` of the longer one's, scores
    #: ``Σ blend_i · part_i`` over (the resemblance of character 3-grams of the written text,
    #: the resemblance of word 1-grams, the logistic score with its floor). A short text
    #: inside a much longer one is a paste, which the logistic score's containment sees.
    blend_below: int = 0
    blend_ratio: float = 0.0
    blend: tuple[float, float, float] = (0.0, 0.0, 1.0)

    def __post_init__(self) -> None:
        if self.features != FEATURES or len(self.weights) != len(FEATURES):
            raise ValueError("the combined model's coefficients do not match its features")

    def apply(self, features: F64, shorter: I64 | None = None, written3: F64 | None = None) -> F64:
        """The score of each row of a ``(pairs, len(FEATURES))`` feature matrix (``shorter``:
        each pair's shorter text's canonical tokens, which the floor and the blend need;
        ``written3``: each pair's resemblance of character 3-grams of the written text, which
        the blend needs)."""
        features = np.asarray(features, dtype=np.float64)
        z = self.intercept + features @ np.asarray(self.weights)
        scores = np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)
        if self.floor_below and shorter is not None:
            word1, tfidf = FEATURES.index("resemblance_word1"), FEATURES.index("tfidf_pair")
            floor = np.where(shorter < self.floor_below, features[:, word1], features[:, tfidf])
            scores = np.maximum(scores, floor)
        if self.blend_below and shorter is not None and written3 is not None:
            words = features[:, FEATURES.index("resemblance_word1")]
            w_text, w_word, w_model = self.blend
            mixed = w_text * np.asarray(written3) + w_word * words + w_model * scores
            alike = features[:, FEATURES.index("length_ratio")] >= self.blend_ratio
            scores = np.where((shorter < self.blend_below) & alike, mixed, scores)
        return scores

    def to_dict(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "weights": list(self.weights),
            "intercept": self.intercept,
            "trained_on": self.trained_on,
            "version": self.version,
            "floor_below": self.floor_below,
            "blend_below": self.blend_below,
            "blend_ratio": self.blend_ratio,
            "blend": list(self.blend),
        }


#: The model the package ships (see the module docstring): the logistic model of fit
#: ``coefficients.VERSION`` (2) with the floor (version 3) and the short-pair blend (version 4)
#: chosen on the human-labelled dev sets (``benchmarks/quality_dev.py``, docs/quality.md: the
#: blend chosen without a set is at or above that set's best baseline, on every set).
MODEL = CombinedModel(
    features=tuple(coefficients.FEATURES),
    weights=tuple(coefficients.WEIGHTS),
    intercept=coefficients.INTERCEPT,
    trained_on=coefficients.TRAINED_ON,
    version=4,
    floor_below=16,
    blend_below=32,
    blend_ratio=0.33,
    blend=(0.8, 0.2, 0.0),
)


@dataclass(frozen=True)
class Packed:
    """Fingerprint sets of many texts end to end (CSR); ``counts`` for the term counts."""

    values: U64
    offsets: I64
    sizes: I64
    counts: I64

    @classmethod
    def of(cls, fps: Sequence[Fingerprints]) -> Packed:
        sizes = np.fromiter((len(f) for f in fps), dtype=np.int64, count=len(fps))
        offsets = np.zeros(len(fps) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        values = np.concatenate([f.values for f in fps]) if fps else np.zeros(0, np.uint64)
        counts = (
            np.concatenate(
                [f.counts if f.counts is not None else np.ones(len(f), np.int64) for f in fps]
            )
            if fps
            else np.zeros(0, np.int64)
        )
        return cls(values.astype(np.uint64), offsets, sizes, counts.astype(np.int64))


@dataclass(frozen=True)
class CombinedTable:
    """What the features of any pair of the texts are computed from."""

    tokens: I64
    word5: Packed
    terms: Packed  # word 1-grams with their counts
    char4: Packed
    written3: Packed  # character 3-grams of the written text (see :func:`written_text`)

    def __len__(self) -> int:
        return int(self.tokens.shape[0])


class CombinedFeatures:
    """Builds :class:`CombinedTable` under a spec's analyzer (and the ``plain`` one)."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.lemmas = Pipeline(spec)
        html = spec.analyzer.chain("*").char_filters
        mode = html[0].param("mode", "auto") if html and html[0].name == "html" else "never"
        self.plain = Pipeline(make_spec("plain", html=mode))
        self._chain = next(iter(self.plain.analyzer.chains.values()))

    def table(self, texts: Sequence[Analyzable], progress: Progress = None) -> CombinedTable:
        tokens = np.zeros(len(texts), dtype=np.int64)
        word5: list[Fingerprints] = []
        terms: list[Fingerprints] = []
        char4: list[Fingerprints] = []
        written3: list[Fingerprints] = []
        family = self.lemmas.family
        for d, text in enumerate(texts):
            canonical = self.lemmas.canonical(text)
            tokens[d] = len(canonical)
            word5.append(Fingerprints.from_hashes(shingle(canonical, _WORD5, family).hashes))
            terms.append(
                Fingerprints.from_hashes(shingle(canonical, _WORD1, family).hashes, multiset=True)
            )
            plain = self.plain.canonical(text)
            char4.append(Fingerprints.from_hashes(shingle(plain, _CHAR4, family).hashes))
            written = self.written(text)
            written3.append(Fingerprints.from_hashes(shingle(written, _CHAR3, family).hashes))
            if progress is not None:
                progress(1)
        return CombinedTable(
            tokens, Packed.of(word5), Packed.of(terms), Packed.of(char4), Packed.of(written3)
        )

    def written(self, text: Analyzable) -> Canonical:
        """``text`` as written (:func:`written_text` under the ``plain`` char filters), once
        per analysed text."""
        if isinstance(text, AnalyzedText):
            return text.derived(
                ("written", self.plain.spec.analyzer), lambda: written_text(self._chain, text.text)
            )
        return written_text(self._chain, as_text(text))


def written_text(chain: Chain, text: str) -> Canonical:
    """The text as a reader sees it, for character n-grams: the ``plain`` char filters (HTML
    stripped, NFKC, the tricks folded, lowercase), ё as е, and every run of white space one
    space — punctuation, digits and function words stay (the baseline a user tries first,
    exact Jaccard of character 3-grams, reads them too; on paraphrase sentences they tell a
    rewrite from a pair on one topic)."""
    filtered, _ = chain.filter_chars(text)
    words = filtered.replace("ё", "е").split()
    spans = np.zeros(len(words), dtype=np.int64)
    return canonical_of_terms(words, spans, spans, "*")


def _set_measures(p: Packed, a: I64, b: I64) -> tuple[F64, F64]:
    shared = pair_overlaps(p.values, p.offsets, a, b).astype(np.float64)
    size_a = p.sizes[a].astype(np.float64)
    size_b = p.sizes[b].astype(np.float64)
    union = size_a + size_b - shared
    smaller = np.minimum(size_a, size_b)
    resemblance = np.divide(shared, union, out=np.zeros_like(shared), where=union > 0)
    containment = np.divide(shared, smaller, out=np.zeros_like(shared), where=smaller > 0)
    return resemblance, containment


def _pair_tfidf(p: Packed, a: I64, b: I64) -> F64:
    sums = pair_term_products(p.values, p.counts, p.offsets, a, b)
    w2 = IDF_ONE_SIDE**2
    # shared terms weigh 1, the others IDF_ONE_SIDE: |x|² = shared² + w²·(all² − shared²)
    norm_a = sums[:, 1] + w2 * (sums[:, 3] - sums[:, 1])
    norm_b = sums[:, 2] + w2 * (sums[:, 4] - sums[:, 2])
    den = np.sqrt(norm_a * norm_b)
    out = np.divide(sums[:, 0], den, out=np.zeros(den.shape[0]), where=den > 0)
    return np.clip(out, 0.0, 1.0)


def pair_features(table: CombinedTable, a: npt.ArrayLike, b: npt.ArrayLike) -> F64:
    """The ``(pairs, 9)`` feature matrix of pairs ``(a[p], b[p])`` (see the module docstring)."""
    a = np.ascontiguousarray(a, dtype=np.int64)
    b = np.ascontiguousarray(b, dtype=np.int64)
    out = np.zeros((a.shape[0], len(FEATURES)), dtype=np.float64)
    out[:, 0], out[:, 1] = _set_measures(table.word5, a, b)
    out[:, 2], out[:, 3] = _set_measures(table.terms, a, b)
    out[:, 4], out[:, 5] = _set_measures(table.char4, a, b)
    out[:, 6] = _pair_tfidf(table.terms, a, b)
    shorter = np.minimum(table.tokens[a], table.tokens[b]).astype(np.float64)
    longer = np.maximum(table.tokens[a], table.tokens[b]).astype(np.float64)
    out[:, 7] = np.divide(shorter, longer, out=np.zeros(shorter.shape[0]), where=longer > 0)
    out[:, 8] = SHORTNESS_SCALE / (SHORTNESS_SCALE + shorter)
    return out


def combined_scores(
    table: CombinedTable, a: npt.ArrayLike, b: npt.ArrayLike, model: CombinedModel = MODEL
) -> F64:
    """The combined score of pairs ``(a[p], b[p])``; a pair where either text has no canonical
    token scores 0 (there is nothing to compare), and a text against itself 1."""
    a = np.ascontiguousarray(a, dtype=np.int64)
    b = np.ascontiguousarray(b, dtype=np.int64)
    shorter = np.minimum(table.tokens[a], table.tokens[b])
    written3 = _set_measures(table.written3, a, b)[0] if model.blend_below else None
    scores = model.apply(pair_features(table, a, b), shorter, written3)
    scores[(table.tokens[a] == 0) | (table.tokens[b] == 0)] = 0.0
    scores[(a == b) & (table.tokens[a] > 0)] = 1.0
    return scores


def combined_matrix(table: CombinedTable, model: CombinedModel = MODEL) -> F64:
    """The combined score of every two texts (symmetric: every feature is)."""
    n = len(table)
    i, j = np.triu_indices(n, k=1)
    matrix = np.zeros((n, n), dtype=np.float64)
    if i.size:
        scores = combined_scores(table, i, j, model)
        matrix[i, j] = scores
        matrix[j, i] = scores
    np.fill_diagonal(matrix, (table.tokens > 0).astype(np.float64))
    return matrix


def combined_score(a: Analyzable, b: Analyzable, spec: Spec) -> float:
    """The combined score of one pair under ``spec``'s analyzer (texts analysed for the request
    already, :class:`~neardup.analysis.analyzed.AnalyzedText`, are not analysed again)."""
    table = CombinedFeatures(spec).table([a, b])
    return float(combined_scores(table, np.array([0]), np.array([1]))[0])

"""The combined score: one fitted, calibrated model over the measures neardup already computes.

No single measure is right for every pair: word 5-shingles miss short or inflected rewrites,
word 1-grams and character n-grams cannot tell two texts on one topic from a rewrite, and a
paragraph copied into a long document shares few of either text's words. The combined score
reads, for a pair of texts, the features of :data:`FEATURE_FUNCTIONS` (each in [0, 1]):

``resemblance_word5``, ``containment_word5``
      resemblance of the word 5-shingles of the canonical terms (lemmas under ``ru``/``auto``),
      and the containment of the shorter set in the longer
``shared_word5``
      the shared word 5-shingles ``s`` as ``s / (s + 16)``: a passage copied verbatim counts
      whatever the lengths of the texts around it
``resemblance_word1``, ``containment_word1``
      the same of word 1-grams (the vocabulary)
``tfidf_pair``
      TF-IDF cosine of the canonical term counts, the IDF taken from the pair itself (a term in
      both texts weighs 1, a term in one ``1 + ln 1.5``), so a pair scores the same whatever
      other texts are scored beside it
``resemblance_written3``, ``containment_written3``
      character 3-grams of the *written* text (:func:`written_text`: punctuation, digits and
      function words kept) — on sentence pairs the surface tells a rewrite from a pair on one
      topic better than lemmas do
``length_ratio``, ``shortness``
      the shorter text's canonical tokens over the longer's; ``16 / (16 + tokens of the shorter
      text)``

and applies :data:`MODEL` (:mod:`neardup.score.model`: a regime by the lengths, two logistic
channels — verbatim and vocabulary — joined as a noisy OR, and a calibration map per regime
whose 0.5 is the decision "a duplicate"), read from ``_model.json``, which
``benchmarks/fit_combined.py`` writes. Every entry point (``neardup.compare``, ``compare
--method combined``, ``matrix --method combined``, ``eval --method combined``, the collection's
scoring of its matches) builds the table with :class:`CombinedFeatures` and scores with
:func:`combined_scores`: one function, so one pair scores the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from neardup._kernels.pairs import pair_overlaps, pair_term_products
from neardup.analysis.analyzed import AnalyzedText
from neardup.analysis.chain import Canonical, Chain, canonical_of_terms
from neardup.fingerprints.pipeline import Analyzable, Pipeline, as_text, make_spec
from neardup.fingerprints.shingles import shingle
from neardup.fingerprints.similarity import Fingerprints
from neardup.score.model import CombinedModel, Explanation
from neardup.spec import ShingleSpec, Spec

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
Progress = Callable[[int], None] | None

#: The tokens at which ``shortness`` is one half.
SHORTNESS_SCALE = 16.0
#: The shared word 5-shingles at which ``shared_word5`` is one half (a passage of about 20
#: canonical words copied verbatim: a sentence or two).
PASSAGE_SCALE = 16.0
#: The IDF of a term in one text of the pair (smooth IDF over two documents: ln(3/2) + 1).
IDF_ONE_SIDE = 1.0 + float(np.log(1.5))

_WORD5 = ShingleSpec(unit="word", k=5)
_WORD1 = ShingleSpec(unit="word", k=1)
_CHAR3 = ShingleSpec(unit="char", k=3)


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
    written3: Packed  # character 3-grams of the written text (see :func:`written_text`)

    def __len__(self) -> int:
        return int(self.tokens.shape[0])


class CombinedFeatures:
    """Builds :class:`CombinedTable` under a spec's analyzer (and the ``plain`` char filters,
    for the written text)."""

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
        written3: list[Fingerprints] = []
        family = self.lemmas.family
        for d, text in enumerate(texts):
            canonical = self.lemmas.canonical(text)
            tokens[d] = len(canonical)
            word5.append(Fingerprints.from_hashes(shingle(canonical, _WORD5, family).hashes))
            terms.append(
                Fingerprints.from_hashes(shingle(canonical, _WORD1, family).hashes, multiset=True)
            )
            written = self.written(text)
            written3.append(Fingerprints.from_hashes(shingle(written, _CHAR3, family).hashes))
            if progress is not None:
                progress(1)
        return CombinedTable(tokens, Packed.of(word5), Packed.of(terms), Packed.of(written3))

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


#: The columns of :func:`pair_measures`: for each fingerprint set of :class:`CombinedTable`
#: the shared count and both sizes, then the pair-local TF-IDF cosine and both texts' canonical
#: tokens — everything a feature is computed from (a fit caches these, not the features).
SETS = ("word5", "terms", "written3")
MEASURES = (
    *(f"{s}_{part}" for s in SETS for part in ("shared", "a", "b")),
    "tfidf_pair",
    "tokens_a",
    "tokens_b",
)


def pair_measures(table: CombinedTable, a: npt.ArrayLike, b: npt.ArrayLike) -> F64:
    """The ``(pairs, len(MEASURES))`` raw measures of pairs ``(a[p], b[p])``."""
    a = np.ascontiguousarray(a, dtype=np.int64)
    b = np.ascontiguousarray(b, dtype=np.int64)
    out = np.zeros((a.shape[0], len(MEASURES)), dtype=np.float64)
    for s, name in enumerate(SETS):
        p: Packed = getattr(table, name)
        out[:, 3 * s] = pair_overlaps(p.values, p.offsets, a, b)
        out[:, 3 * s + 1] = p.sizes[a]
        out[:, 3 * s + 2] = p.sizes[b]
    out[:, 3 * len(SETS)] = _pair_tfidf(table.terms, a, b)
    out[:, 3 * len(SETS) + 1] = table.tokens[a]
    out[:, 3 * len(SETS) + 2] = table.tokens[b]
    return out


def _pair_tfidf(p: Packed, a: I64, b: I64) -> F64:
    sums = pair_term_products(p.values, p.counts, p.offsets, a, b)
    w2 = IDF_ONE_SIDE**2
    # shared terms weigh 1, the others IDF_ONE_SIDE: |x|² = shared² + w²·(all² − shared²)
    norm_a = sums[:, 1] + w2 * (sums[:, 3] - sums[:, 1])
    norm_b = sums[:, 2] + w2 * (sums[:, 4] - sums[:, 2])
    den = np.sqrt(norm_a * norm_b)
    out = np.divide(sums[:, 0], den, out=np.zeros(den.shape[0]), where=den > 0)
    return np.clip(out, 0.0, 1.0)


def _ratio(x: F64, y: F64) -> F64:
    return np.divide(x, y, out=np.zeros(x.shape[0]), where=y > 0)


def _set_feature(measures: F64, name: str, kind: str) -> F64:
    s = SETS.index(name)
    shared, size_a, size_b = measures[:, 3 * s], measures[:, 3 * s + 1], measures[:, 3 * s + 2]
    if kind == "resemblance":
        return _ratio(shared, size_a + size_b - shared)
    return _ratio(shared, np.minimum(size_a, size_b))  # containment of the smaller set


def _shorter(measures: F64) -> F64:
    return np.minimum(
        measures[:, MEASURES.index("tokens_a")], measures[:, MEASURES.index("tokens_b")]
    )


def _longer(measures: F64) -> F64:
    return np.maximum(
        measures[:, MEASURES.index("tokens_a")], measures[:, MEASURES.index("tokens_b")]
    )


#: Every feature a model may use, by name: each a function of the raw measures, in [0, 1].
FEATURE_FUNCTIONS: dict[str, Callable[[F64], F64]] = {
    "resemblance_word5": lambda m: _set_feature(m, "word5", "resemblance"),
    "containment_word5": lambda m: _set_feature(m, "word5", "containment"),
    "resemblance_word1": lambda m: _set_feature(m, "terms", "resemblance"),
    "containment_word1": lambda m: _set_feature(m, "terms", "containment"),
    "tfidf_pair": lambda m: np.clip(m[:, MEASURES.index("tfidf_pair")], 0.0, 1.0),
    "length_ratio": lambda m: _ratio(_shorter(m), _longer(m)),
    "shortness": lambda m: SHORTNESS_SCALE / (SHORTNESS_SCALE + _shorter(m)),
    "resemblance_written3": lambda m: _set_feature(m, "written3", "resemblance"),
    "containment_written3": lambda m: _set_feature(m, "written3", "containment"),
    "shared_word5": lambda m: (lambda s: s / (s + PASSAGE_SCALE))(m[:, 0]),
}
FEATURES = tuple(FEATURE_FUNCTIONS)


def features_of(measures: F64, names: Sequence[str] = FEATURES) -> F64:
    """The ``(pairs, len(names))`` features of the raw measures (:func:`pair_measures`)."""
    measures = np.asarray(measures, dtype=np.float64).reshape(-1, len(MEASURES))
    out = np.zeros((measures.shape[0], len(names)), dtype=np.float64)
    for i, name in enumerate(names):
        out[:, i] = FEATURE_FUNCTIONS[name](measures)
    return out


def pair_features(
    table: CombinedTable, a: npt.ArrayLike, b: npt.ArrayLike, names: Sequence[str] = FEATURES
) -> F64:
    """The ``(pairs, len(names))`` feature matrix of pairs ``(a[p], b[p])``."""
    return features_of(pair_measures(table, a, b), names)


def combined_scores(
    table: CombinedTable, a: npt.ArrayLike, b: npt.ArrayLike, model: CombinedModel | None = None
) -> F64:
    """The combined score of pairs ``(a[p], b[p])``; a pair where either text has no canonical
    token scores 0 (there is nothing to compare), and a text against itself 1."""
    model = MODEL if model is None else model
    a = np.ascontiguousarray(a, dtype=np.int64)
    b = np.ascontiguousarray(b, dtype=np.int64)
    measures = pair_measures(table, a, b)
    scores = model.apply(features_of(measures, model.features), regime_of(model, measures))
    return _bounded(scores, table, a, b)


def _bounded(scores: F64, table: CombinedTable, a: I64, b: I64) -> F64:
    scores[(table.tokens[a] == 0) | (table.tokens[b] == 0)] = 0.0
    scores[(a == b) & (table.tokens[a] > 0)] = 1.0
    return scores


def regime_of(model: CombinedModel, measures: F64) -> I64:
    """Each pair's regime under ``model`` (:meth:`CombinedModel.regime_of`)."""
    return model.regime_of(_shorter(measures), FEATURE_FUNCTIONS["length_ratio"](measures))


def combined_matrix(table: CombinedTable, model: CombinedModel | None = None) -> F64:
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
    return combined_explained(a, b, spec)[0]


def combined_explained(a: Analyzable, b: Analyzable, spec: Spec) -> tuple[float, Explanation]:
    """The combined score of one pair and what drove it (:meth:`CombinedModel.explain`)."""
    table = CombinedFeatures(spec).table([a, b])
    first, second = np.array([0]), np.array([1])
    measures = pair_measures(table, first, second)
    features, regime = features_of(measures, MODEL.features), regime_of(MODEL, measures)
    score = float(_bounded(MODEL.apply(features, regime), table, first, second)[0])
    return score, replace(MODEL.explain(features[0], int(regime[0])), score=score)


def known(model: CombinedModel) -> CombinedModel:
    """``model``, when every feature it names is one of :data:`FEATURE_FUNCTIONS`."""
    unknown = [f for f in model.features if f not in FEATURE_FUNCTIONS]
    if unknown:
        raise ValueError(f"the combined model names unknown features: {unknown}")
    return model


#: The model the package ships (``_model.json``, written by ``benchmarks/fit_combined.py``).
MODEL = known(CombinedModel.load())

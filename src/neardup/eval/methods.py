"""The registry of scoring methods that ``neardup eval`` and the benchmarks measure.

Why a registry: the evaluation must put every method we have — and the other tools' —
through the same datasets and the same measures, and a method added later (MinHash, the
collection, the fragment aligner) must not touch the evaluation code. A method is one
builder function and one decorator line:

    @register("name", "what it scores, one line", requires=("module.it.needs",))
    def _name(ctx: MethodContext) -> Scorer:
        ...

``ctx.spec`` is the pipeline spec the user chose (``--preset``, ``-k``…), ``ctx.params`` the
extra ``--param key=value`` strings. The builder returns a :class:`Scorer`: ``features``
computes whatever the method keeps per document, once per distinct text; ``score`` scores a
batch of pairs given as two index arrays into those texts and returns a float array. A
scorer may also offer ``neighbours(features, threshold)`` — all pairs scoring at least the
threshold among the documents, for the clusters evaluation; without it the evaluation finds
candidates by shared shingles (exact for every measure that is 0 without a shared shingle).

Fragment detectors have a registry of their own (:func:`register_fragments`): a detector
returns, for a source and a suspicious text, the reused passages as character spans of both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from neardup._kernels.pairs import pair_multiset_overlaps, pair_overlaps
from neardup.defaults import DEFAULTS
from neardup.errors import ConfigurationError, MissingDependencyError, require
from neardup.fingerprints.pipeline import Pipeline
from neardup.fingerprints.similarity import Fingerprints
from neardup.spec import ShingleSpec, Spec

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
U64 = npt.NDArray[np.uint64]
Progress = Callable[[int], None] | None
Span = tuple[
    int, int, int, int
]  # source offset, source length, suspicious offset, suspicious length

#: Documents per block when all pairs of a collection are scored by sparse products.
BLOCK_ROWS = 1024


@dataclass(frozen=True)
class MethodContext:
    """What a method is built from: the pipeline spec and free-form parameters. Parameters
    the builder never asks for are an error (a typo must not pass silently)."""

    spec: Spec
    params: Mapping[str, str] = field(default_factory=dict)
    used: set[str] = field(default_factory=set, compare=False)

    def param(self, key: str, default: Any, kind: Callable[[str], Any] = str) -> Any:
        self.used.add(key)
        if key not in self.params:
            return default
        try:
            return kind(self.params[key])
        except ValueError:
            raise ConfigurationError(
                f"parameter {key}={self.params[key]!r}: expected {getattr(kind, '__name__', kind)}"
            ) from None


@runtime_checkable
class Scorer(Protocol):
    """Scores pairs of documents; ``features`` runs once per distinct text."""

    def features(self, texts: Sequence[str], progress: Progress = None) -> Any: ...

    def score(self, features: Any, a: I64, b: I64) -> F64: ...


@runtime_checkable
class NeighbourScorer(Scorer, Protocol):
    """A scorer that can list every pair of a collection scoring at least a threshold."""

    def neighbours(self, features: Any, threshold: float) -> tuple[I64, I64, F64]: ...


@runtime_checkable
class RetrievingScorer(Scorer, Protocol):
    """A scorer that finds candidates before it scores them (the collection): ``retrieved``
    says which pairs its candidate generation found; the others score 0."""

    def retrieved(self, features: Any, a: I64, b: I64) -> npt.NDArray[np.bool_]: ...


class FragmentDetector(Protocol):
    """Finds passages of ``source`` reused in ``suspicious``: ``(src_off, src_len, susp_off,
    susp_len)`` in characters of the texts as given."""

    def detect(self, source: str, suspicious: str) -> list[Span]: ...


@dataclass(frozen=True)
class Method:
    """A registered method: its name, one line on what it scores, and its builder."""

    name: str
    summary: str
    build: Callable[[MethodContext], Any]
    requires: tuple[str, ...] = ()
    kind: str = "pairs"  # or "fragments"
    #: The parameters its builder reads (``--param KEY=VALUE``); a test checks the builders.
    params: tuple[str, ...] = ()

    def available(self) -> bool:
        import importlib.util

        for module in self.requires:
            try:
                if importlib.util.find_spec(module) is None:
                    return False
            except (ImportError, ValueError):
                return False
        return True


METHODS: dict[str, Method] = {}
FRAGMENT_METHODS: dict[str, Method] = {}


def register(
    name: str, summary: str, *, requires: tuple[str, ...] = (), params: tuple[str, ...] = ()
) -> Callable[[Callable[[MethodContext], Scorer]], Callable[[MethodContext], Scorer]]:
    """Register a pair-scoring method under ``name`` (a decorator on its builder); ``params``
    names the parameters the builder reads."""

    def decorate(build: Callable[[MethodContext], Scorer]) -> Callable[[MethodContext], Scorer]:
        METHODS[name] = Method(name, summary, build, requires, "pairs", params)
        return build

    return decorate


def register_fragments(
    name: str, summary: str, *, requires: tuple[str, ...] = (), params: tuple[str, ...] = ()
) -> Callable[
    [Callable[[MethodContext], FragmentDetector]], Callable[[MethodContext], FragmentDetector]
]:
    """Register a fragment detector under ``name`` (a decorator on its builder)."""

    def decorate(
        build: Callable[[MethodContext], FragmentDetector],
    ) -> Callable[[MethodContext], FragmentDetector]:
        FRAGMENT_METHODS[name] = Method(name, summary, build, requires, "fragments", params)
        return build

    return decorate


def _lookup(table: Mapping[str, Method], name: str, what: str) -> Method:
    method = table.get(name)
    if method is None:
        known = ", ".join(sorted(table)) or "none"
        raise ConfigurationError(f"unknown {what} {name!r}; known: {known}")
    if not method.available():
        missing = ", ".join(method.requires)
        raise MissingDependencyError(
            f"{what} {name!r} needs {missing}, which is not installed here"
        )
    return method


def _build(method: Method, spec: Spec, params: Mapping[str, str] | None) -> Any:
    ctx = MethodContext(spec, dict(params or {}))
    built = method.build(ctx)
    unknown = sorted(set(ctx.params) - ctx.used)
    if unknown:
        takes = ", ".join(sorted(ctx.used)) or "none"
        raise ConfigurationError(
            f"method {method.name!r} has no parameter {', '.join(unknown)}; it takes: {takes}"
        )
    return built


def build(name: str, spec: Spec, params: Mapping[str, str] | None = None) -> Scorer:
    """The scorer of method ``name`` under ``spec``."""
    return _build(_lookup(METHODS, name, "method"), spec, params)


def build_fragments(
    name: str, spec: Spec, params: Mapping[str, str] | None = None
) -> FragmentDetector:
    """The fragment detector ``name`` under ``spec``."""
    return _build(_lookup(FRAGMENT_METHODS, name, "fragment method"), spec, params)


def score_pairs(
    name: str,
    a: Sequence[str],
    b: Sequence[str],
    spec: Spec,
    params: Mapping[str, str] | None = None,
) -> F64:
    """Score the pairs ``(a[p], b[p])`` with method ``name``: a float array, one per pair."""
    if len(a) != len(b):
        raise ValueError(f"a and b must be of one length, got {len(a)} and {len(b)}")
    scorer = build(name, spec, params)
    texts: list[str] = []
    index: dict[str, int] = {}
    for text in (*a, *b):
        index.setdefault(text, len(index))
    texts = list(index)
    ia = np.fromiter((index[t] for t in a), dtype=np.int64, count=len(a))
    ib = np.fromiter((index[t] for t in b), dtype=np.int64, count=len(b))
    return scorer.score(scorer.features(texts), ia, ib)


# ---------------------------------------------------------------------------------------------
# exact shingle-set measures


@dataclass(frozen=True)
class FingerprintTable:
    """All documents' fingerprint sets end to end (CSR), with their (multi)set sizes.

    Under a length-adaptive spec it also holds each document's canonical token count and the
    table of the short-pair shingles, so that pairs are scored by
    :meth:`~neardup.spec.ShingleSpec.short_pairs` (the rule :func:`neardup.compare` applies)."""

    values: U64
    counts: I64 | None
    offsets: I64
    sizes: I64
    tokens: I64 | None = None
    short: FingerprintTable | None = None

    def __len__(self) -> int:
        return int(self.offsets.shape[0] - 1)


def pack_fingerprints(fps: Sequence[Fingerprints], multiset: bool) -> FingerprintTable:
    """Fingerprint sets packed end to end."""
    lengths = np.fromiter((len(fp) for fp in fps), dtype=np.int64, count=len(fps))
    offsets = np.zeros(len(fps) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    parts = [fp.values for fp in fps]
    values = np.concatenate(parts).astype(np.uint64) if parts else np.zeros(0, dtype=np.uint64)
    if multiset:
        counts = [fp.counts for fp in fps if fp.counts is not None]
        cat = np.concatenate(counts).astype(np.int64) if counts else np.zeros(0, dtype=np.int64)
        sizes = np.add.reduceat(cat, offsets[:-1]) if cat.size else np.zeros(len(fps), np.int64)
        sizes = np.where(lengths > 0, sizes, 0).astype(np.int64)
        return FingerprintTable(values, cat, offsets, sizes)
    return FingerprintTable(values, None, offsets, lengths)


def fingerprint_table(
    pipeline: Pipeline, texts: Sequence[str], progress: Progress = None
) -> FingerprintTable:
    """The fingerprints of every text under ``pipeline``, packed end to end (and those of the
    short-pair shingles, with the token counts, when its spec is length-adaptive)."""
    long_fps: list[Fingerprints] = []
    short_fps: list[Fingerprints] = []
    tokens = np.zeros(len(texts), dtype=np.int64)
    for d, text in enumerate(texts):
        tokens[d], long_fp, short_fp = pipeline.variants(text)
        long_fps.append(long_fp)
        if short_fp is not None:
            short_fps.append(short_fp)
        if progress is not None:
            progress(1)
    multiset = pipeline.spec.fingerprint_family.multiset
    table = pack_fingerprints(long_fps, multiset)
    if not pipeline.spec.shingles.adaptive:
        return table
    return replace(table, tokens=tokens, short=pack_fingerprints(short_fps, multiset))


def short_pair_mask(table: FingerprintTable, shingles: ShingleSpec, a: I64, b: I64) -> Any:
    """Which pairs take the short shingles (all False without the length-adaptive rule)."""
    if table.tokens is None or table.short is None:
        return np.zeros(a.shape[0], dtype=np.bool_)
    return np.asarray(shingles.short_pairs(table.tokens[a], table.tokens[b]), dtype=np.bool_)


def _measure(name: str, shared: npt.NDArray[Any], size_a: I64, size_b: I64) -> F64:
    shared = shared.astype(np.float64)
    if name == "resemblance":
        den = size_a + size_b - shared
    elif name == "sorensen":
        shared = 2 * shared
        den = (size_a + size_b).astype(np.float64)
    elif name == "containment":  # max of both directions: shared over the smaller set
        den = np.minimum(size_a, size_b).astype(np.float64)
    else:  # pragma: no cover - guarded by the registry
        raise ConfigurationError(f"unknown set measure {name!r}")
    return np.divide(shared, den, out=np.zeros(shared.shape), where=den > 0)


class SetScorer:
    """Exact resemblance, containment or Sørensen of the shingle fingerprint sets."""

    def __init__(self, spec: Spec, measure: str) -> None:
        self.pipeline = Pipeline(spec)
        self.measure = measure

    def features(self, texts: Sequence[str], progress: Progress = None) -> FingerprintTable:
        return fingerprint_table(self.pipeline, texts, progress)

    def score(self, features: FingerprintTable, a: I64, b: I64) -> F64:
        a = np.ascontiguousarray(a, dtype=np.int64)
        b = np.ascontiguousarray(b, dtype=np.int64)
        out = self._score_table(features, a, b)
        short = short_pair_mask(features, self.pipeline.spec.shingles, a, b)
        if features.short is not None and short.any():  # the length-adaptive rule
            out[short] = self._score_table(features.short, a[short], b[short])
        return out

    def _score_table(self, t: FingerprintTable, a: I64, b: I64) -> F64:
        if t.counts is not None:
            shared = pair_multiset_overlaps(t.values, t.counts, t.offsets, a, b)
        else:
            shared = pair_overlaps(t.values, t.offsets, a, b)
        return _measure(self.measure, shared, t.sizes[a], t.sizes[b])

    def neighbours(self, features: FingerprintTable, threshold: float) -> tuple[I64, I64, F64]:
        """Pairs ``i < j`` scoring at least ``threshold`` (> 0), from a sparse product of the
        document × fingerprint incidence matrix, block by block (under a length-adaptive spec,
        long pairs from the long table and short pairs from the short one)."""
        out_i: list[I64] = []
        out_j: list[I64] = []
        out_s: list[F64] = []
        tables = [(features, False)]
        if features.short is not None:
            tables.append((features.short, True))
        for table, want_short in tables:
            for i, j, shared in shared_candidates(table):
                if table.counts is not None:  # the product counts products, not minima
                    scores = self._score_table(table, i, j)
                else:
                    scores = _measure(self.measure, shared, table.sizes[i], table.sizes[j])
                keep = (scores >= threshold) & (scores > 0)
                keep &= short_pair_mask(features, self.pipeline.spec.shingles, i, j) == want_short
                out_i.append(i[keep])
                out_j.append(j[keep])
                out_s.append(scores[keep])
        return _concat(out_i, out_j, out_s)


def _concat(out_i: list[I64], out_j: list[I64], out_s: list[F64]) -> tuple[I64, I64, F64]:
    if not out_i:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64)
    return np.concatenate(out_i), np.concatenate(out_j), np.concatenate(out_s)


def shared_candidates(table: FingerprintTable, block: int = BLOCK_ROWS) -> Any:
    """Yield ``(i, j, shared)`` arrays: every pair ``i < j`` sharing at least one fingerprint,
    with the number it shares (as sets), one block of rows at a time."""
    sparse: Any = require("scipy.sparse", "eval")
    n = len(table)
    if n < 2 or table.values.size == 0:
        return
    _, columns = np.unique(table.values, return_inverse=True)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(table.offsets))
    data = np.ones(columns.shape[0], dtype=np.int32)
    m = sparse.csr_matrix((data, (rows, columns.ravel())), shape=(n, int(columns.max()) + 1))
    mt = m.T.tocsr()
    for start in range(0, n, block):
        product = (m[start : start + block] @ mt).tocoo()
        i = product.row.astype(np.int64) + start
        j = product.col.astype(np.int64)
        keep = j > i
        yield i[keep], j[keep], product.data[keep].astype(np.int64)


@register("resemblance", "Jaccard |A∩B|/|A∪B| of the exact shingle fingerprint sets")
def _resemblance(ctx: MethodContext) -> Scorer:
    return SetScorer(ctx.spec, "resemblance")


@register("containment", "max(|A∩B|/|A|, |A∩B|/|B|): how much of the smaller text is in the other")
def _containment(ctx: MethodContext) -> Scorer:
    return SetScorer(ctx.spec, "containment")


@register(
    "sets",
    "what `compare --method sets` and `index check` show: the shingle-set measures, ranked by "
    "the strongest of them — containment, the larger of both ways",
)
def _sets(ctx: MethodContext) -> Scorer:
    # index check orders matches by the largest of resemblance and both containments, which is
    # always the larger containment (resemblance is at most either)
    return SetScorer(ctx.spec, "containment")


@register("sorensen", "Sørensen–Dice 2|A∩B|/(|A|+|B|) of the exact shingle fingerprint sets")
def _sorensen(ctx: MethodContext) -> Scorer:
    return SetScorer(ctx.spec, "sorensen")


# ---------------------------------------------------------------------------------------------
# TF-IDF cosine (the TF-IDF news-similarity paper)


class TfidfScorer:
    """Cosine of TF-IDF vectors of the canonical terms (:mod:`neardup.score.tfidf`, the TF-IDF
    news-similarity paper).

    The IDF is fitted on the distinct texts being evaluated. Parameters: ``idf`` (``smooth``,
    ``plain``, ``paper``), ``binary`` and ``sublinear`` (yes/no).
    """

    def __init__(
        self, spec: Spec, *, idf: str = "smooth", binary: bool = False, sublinear: bool = False
    ) -> None:
        from neardup.score.tfidf import IDF_MODES

        if idf not in IDF_MODES:
            raise ConfigurationError(
                f"parameter idf={idf!r}: expected one of {', '.join(IDF_MODES)}"
            )
        self.pipeline = Pipeline(spec)
        self.spec = spec
        self.idf = idf
        self.binary = binary
        self.sublinear = sublinear

    def features(self, texts: Sequence[str], progress: Progress = None) -> Any:
        from neardup.score.tfidf import TfidfModel

        terms = []
        for text in texts:
            terms.append(self.pipeline.canonical(text).terms)
            if progress is not None:
                progress(1)
        model = TfidfModel(
            spec=self.spec,
            idf=self.idf,  # type: ignore[arg-type]
            binary=self.binary,
            sublinear_tf=self.sublinear,
        )
        return model.fit_transform(terms).tocsr()

    def score(self, features: Any, a: I64, b: I64) -> F64:
        return rowwise_cosine(features, a, b)

    def neighbours(self, features: Any, threshold: float) -> tuple[I64, I64, F64]:
        return cosine_neighbours(features, threshold)


def rowwise_cosine(x: Any, a: I64, b: I64) -> F64:
    """Dot products of rows ``a[p]`` and ``b[p]`` of an L2-normalized sparse matrix."""
    if a.shape[0] == 0:
        return np.zeros(0, dtype=np.float64)
    product = x[a].multiply(x[b])
    return np.clip(np.asarray(product.sum(axis=1), dtype=np.float64).ravel(), 0.0, 1.0)


def cosine_neighbours(x: Any, threshold: float, block: int = BLOCK_ROWS) -> tuple[I64, I64, F64]:
    """Every pair ``i < j`` of rows whose cosine is at least ``threshold``, block by block."""
    xt = x.T.tocsr()
    out_i: list[I64] = []
    out_j: list[I64] = []
    out_s: list[F64] = []
    for start in range(0, x.shape[0], block):
        product = (x[start : start + block] @ xt).tocoo()
        i = product.row.astype(np.int64) + start
        j = product.col.astype(np.int64)
        s = np.clip(product.data.astype(np.float64), 0.0, 1.0)
        keep = (j > i) & (s >= threshold) & (s > 0)
        out_i.append(i[keep])
        out_j.append(j[keep])
        out_s.append(s[keep])
    return _concat(out_i, out_j, out_s)


def _yes(value: str) -> bool:
    if value.lower() in ("1", "yes", "true", "on"):
        return True
    if value.lower() in ("0", "no", "false", "off"):
        return False
    raise ValueError(value)


class CollectionScorer:
    """The whole collection as a user runs it: every text added to an in-memory
    :class:`~neardup.index.Collection` (policy ``allow``), then each text checked against it.

    A pair scores the exact measure the collection reports for it, and 0 when the
    collection's candidate generation (winnowing, the candidate cap) did not find it — so
    this measures what the product finds, not only what the measure could.
    """

    def __init__(self, spec: Spec, measure: str, window: int, max_candidates: int) -> None:
        if measure not in ("resemblance", "containment"):
            raise ConfigurationError(
                f"the collection measures resemblance or containment, not {measure!r}"
            )
        self.spec = spec
        self.measure = measure
        self.window = window
        self.max_candidates = max_candidates

    def features(self, texts: Sequence[str], progress: Progress = None) -> tuple[I64, F64, int]:
        from neardup.index import Collection
        from neardup.spec import IndexSpec

        # texts kept: a length-adaptive spec's short pairs are verified on their stored texts
        index_spec = IndexSpec(
            policy="allow", window=self.window, max_candidates=self.max_candidates
        )
        n = len(texts)
        keys: list[int] = []
        values: list[float] = []
        with Collection.create("memory:eval", self.spec, index_spec) as collection:
            analyzed = [collection.analyze(t) for t in texts]
            collection.add_many((str(i), item) for i, item in enumerate(analyzed))
            for i, item in enumerate(analyzed):
                # the matches only (the storage's part of a check): no passages are needed
                for match in collection.look_up(item, top=None, policy=None).matches:
                    j = int(match.id)
                    if j == i:
                        continue
                    score = (
                        match.resemblance
                        if self.measure == "resemblance"
                        else max(match.containment_query_in_doc, match.containment_doc_in_query)
                    )
                    keys.append(min(i, j) * n + max(i, j))
                    values.append(score)
                if progress is not None:
                    progress(1)
        order = np.argsort(np.array(keys, dtype=np.int64), kind="stable")
        return np.array(keys, dtype=np.int64)[order], np.array(values, dtype=np.float64)[order], n

    def _lookup(
        self, features: tuple[I64, F64, int], a: I64, b: I64
    ) -> tuple[npt.NDArray[np.bool_], I64]:
        keys, _, n = features
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        wanted = np.minimum(a, b) * n + np.maximum(a, b)
        at = np.searchsorted(keys, wanted)
        found = (
            (at < keys.shape[0]) & (keys[np.minimum(at, max(keys.shape[0] - 1, 0))] == wanted)
            if keys.shape[0]
            else np.zeros(wanted.shape[0], dtype=np.bool_)
        )
        return found, at

    def score(self, features: tuple[I64, F64, int], a: I64, b: I64) -> F64:
        found, at = self._lookup(features, a, b)
        out = np.zeros(found.shape[0], dtype=np.float64)
        out[found] = features[1][at[found]]
        out[np.asarray(a) == np.asarray(b)] = 1.0
        return out

    def retrieved(self, features: tuple[I64, F64, int], a: I64, b: I64) -> npt.NDArray[np.bool_]:
        """Which pairs the collection's candidate generation found (a text and itself: yes)."""
        found, _ = self._lookup(features, a, b)
        return found | (np.asarray(a) == np.asarray(b))

    def neighbours(self, features: tuple[I64, F64, int], threshold: float) -> tuple[I64, I64, F64]:
        keys, values, n = features
        keep = values >= threshold
        return keys[keep] // n, keys[keep] % n, values[keep]


@register(
    "collection",
    "the whole collection (neardup.index): winnowed candidates verified exactly; "
    "measure=resemblance|containment",
    params=("measure", "window", "max_candidates"),
)
def _collection(ctx: MethodContext) -> Scorer:
    return CollectionScorer(
        ctx.spec,
        measure=ctx.param("measure", "resemblance"),
        window=ctx.param("window", DEFAULTS.window, int),
        max_candidates=ctx.param("max_candidates", 100, int),
    )


@register(
    "tfidf",
    "cosine of TF-IDF vectors of the canonical terms (the TF-IDF news-similarity paper); "
    "IDF from the dataset",
    requires=("sklearn",),
    params=("idf", "binary", "sublinear"),
)
def _tfidf(ctx: MethodContext) -> Scorer:
    return TfidfScorer(
        ctx.spec,
        idf=ctx.param("idf", "smooth"),
        binary=ctx.param("binary", False, _yes),
        sublinear=ctx.param("sublinear", False, _yes),
    )


# ---------------------------------------------------------------------------------------------
# MinHash (the shingle-method paper and Zelenkov & Segalovich's shingles)


class MinHashScorer:
    """The MinHash estimate of resemblance: the share of equal positions of two signatures
    (:class:`neardup.sketch.minhash.MinHasher`). Parameters ``num_perm``, ``sketch_seed`` and
    ``minhash_family`` (``splitmix`` or ``affine``: ``SketchSpec.family``)."""

    def __init__(self, spec: Spec, num_perm: int, seed: int, family: str = "splitmix") -> None:
        from dataclasses import replace

        from neardup.sketch.minhash import MinHasher
        from neardup.spec import SketchSpec

        base = spec.sketch if spec.sketch is not None else SketchSpec()
        self.hasher = MinHasher(
            spec.replace(
                sketch=replace(base, method="minhash", num_perm=num_perm, seed=seed, family=family)
            )
        )

    def features(self, texts: Sequence[str], progress: Progress = None) -> Any:
        signatures = self.hasher.sign_texts(texts)
        if progress is not None:
            progress(len(texts))
        return signatures

    def score(self, features: Any, a: I64, b: I64) -> F64:
        if a.shape[0] == 0:
            return np.zeros(0, dtype=np.float64)
        return np.asarray(self.hasher.estimate_many(features[a], features[b]), dtype=np.float64)


@register(
    "minhash",
    "MinHash estimate of resemblance, N seeded functions (num_perm, default 128)",
    requires=("neardup.sketch.minhash",),
    params=("num_perm", "sketch_seed", "minhash_family"),
)
def _minhash(ctx: MethodContext) -> Scorer:
    sketch = ctx.spec.sketch
    return MinHashScorer(
        ctx.spec,
        num_perm=ctx.param("num_perm", sketch.num_perm if sketch else 128, int),
        seed=ctx.param("sketch_seed", sketch.seed if sketch else 0, int),
        family=ctx.param("minhash_family", sketch.family if sketch else "splitmix"),
    )


class CombinedScorer:
    """The combined score (:mod:`neardup.score.combined`): the shipped calibrated model over the
    measures of a pair, the same function ``neardup.compare`` and ``matrix`` apply."""

    def __init__(self, spec: Spec) -> None:
        from neardup.score.combined import CombinedFeatures

        self.builder = CombinedFeatures(spec)

    def features(self, texts: Sequence[str], progress: Progress = None) -> Any:
        return self.builder.table(texts, progress)

    def score(self, features: Any, a: I64, b: I64) -> F64:
        from neardup.score.combined import combined_scores

        return combined_scores(features, a, b)


@register(
    "combined",
    "calibrated model over word-run (5-shingle) and vocabulary (word 1-gram, pair TF-IDF, "
    "written character 3-gram) evidence, by length regime (neardup.score.combined)",
)
def _combined(ctx: MethodContext) -> Scorer:
    return CombinedScorer(ctx.spec)


# ---------------------------------------------------------------------------------------------
# fragment detectors


class ShingleSpanDetector:
    """A baseline: runs of shared shingles, merged across small gaps, reported as spans.

    Shingles of the suspicious text found in the source are taken in text order; matches at
    most ``gap`` shingles apart form one passage, kept when it has at least ``min_shingles``
    matches. The source span is where those shingles sit in the source (the largest group of
    nearby positions, so a repeated phrase elsewhere does not stretch it).
    """

    def __init__(self, spec: Spec, gap: int, min_shingles: int) -> None:
        self.pipeline = Pipeline(spec)
        self.gap = gap
        self.min_shingles = min_shingles

    def detect(self, source: str, suspicious: str) -> list[Span]:
        src = self.pipeline.shingles(source)
        susp = self.pipeline.shingles(suspicious)
        if len(src) == 0 or len(susp) == 0:
            return []
        order = np.argsort(src.hashes, kind="stable")
        sorted_hashes = src.hashes[order]
        pos = np.searchsorted(sorted_hashes, susp.hashes)
        pos = np.minimum(pos, sorted_hashes.shape[0] - 1)
        found = sorted_hashes[pos] == susp.hashes
        matched = np.flatnonzero(found)
        if matched.size == 0:
            return []
        src_index = order[pos[matched]]  # first occurrence in the source of each matched hash
        breaks = np.flatnonzero(np.diff(matched) > self.gap) + 1
        spans: list[Span] = []
        for run, src_run in zip(
            np.split(matched, breaks), np.split(src_index, breaks), strict=True
        ):
            if run.size < self.min_shingles:
                continue
            u0 = int(susp.starts[run].min())
            u1 = int(susp.ends[run].max())
            ordered = np.sort(src_run)
            groups = np.split(ordered, np.flatnonzero(np.diff(ordered) > 4 * self.gap + 1) + 1)
            best = max(groups, key=len)
            s0 = int(src.starts[best].min())
            s1 = int(src.ends[best].max())
            spans.append((s0, s1 - s0, u0, u1 - u0))
        return spans


@register_fragments(
    "shingle-spans",
    "baseline: runs of shared word shingles merged across small gaps",
    params=("gap", "min_shingles"),
)
def _shingle_spans(ctx: MethodContext) -> FragmentDetector:
    return ShingleSpanDetector(
        ctx.spec,
        gap=ctx.param("gap", ctx.spec.shingles.k, int),
        min_shingles=ctx.param("min_shingles", 3, int),
    )


class AlignDetector:
    """The passages :class:`neardup.passages.align.Aligner` finds (the pseudo-matrix Bloom filter
    paper's second stage)."""

    def __init__(self, spec: Spec, **params: int) -> None:
        from neardup.passages.align import Aligner

        # the copied passages only: the rewritten ones are measured on their own
        self.aligner = Aligner(spec, rewrites=False, **params)

    def detect(self, source: str, suspicious: str) -> list[Span]:
        result = self.aligner.pair(suspicious, source, source_id="source")
        return [
            (p.b_start, p.b_end - p.b_start, p.a_start, p.a_end - p.a_start)
            for p in result.passages
        ]


@register_fragments(
    "align",
    "neardup.passages.align: chained shared k-word shingles (the aligner's defaults)",
    requires=("neardup.passages.align",),
    params=("k", "gap", "min_tokens"),
)
def _align(ctx: MethodContext) -> FragmentDetector:
    from neardup.passages import align

    return AlignDetector(
        ctx.spec,
        k=ctx.param("k", align.DEFAULT_K, int),
        gap=ctx.param("gap", align.DEFAULT_GAP, int),
        min_tokens=ctx.param("min_tokens", align.DEFAULT_MIN_TOKENS, int),
    )


def method_names() -> list[str]:
    """The pair-scoring methods, sorted."""
    return sorted(METHODS)


def parameters_help() -> str:
    """The methods that take ``--param`` and their parameters, one clause each."""
    parts = []
    for table in (METHODS, FRAGMENT_METHODS):
        parts += [f"{name}: {', '.join(m.params)}" for name, m in sorted(table.items()) if m.params]
    return "; ".join(parts)

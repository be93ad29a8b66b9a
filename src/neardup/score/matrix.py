"""The similarity matrix of a set of texts, every text against every other (the TF-IDF
news-similarity paper, Table 1).

Row ``i``, column ``j`` holds text ``i`` measured against text ``j``:

``containment``  ``|S_i ∩ S_j| / |S_i|`` — how much of text i is in text j (asymmetric: a short
                 text wholly inside a long one has 1.0 in its row, less in the long one's)
``resemblance``  ``|S_i ∩ S_j| / |S_i ∪ S_j|`` (Jaccard; symmetric)
``sorensen``     ``2 |S_i ∩ S_j| / (|S_i| + |S_j|)`` (symmetric)
``minhash``      the MinHash estimate of the resemblance (symmetric; ``neardup.sketch``)
``tfidf``        the cosine of TF-IDF vectors, IDF over the set (symmetric; ``neardup.score.tfidf``)
``combined``     the combined score (symmetric; ``neardup.score.combined``: the function
                 ``neardup.compare`` and ``neardup eval`` apply)

``S_i`` are the shingle fingerprint sets of the spec (multisets under a multiset spec). The
diagonal is 1.0, except for a text with no shingles (or no terms), which scores 0.0 against
everything, itself included — as :func:`neardup.fingerprints.similarity.compare` does. Under a
length-adaptive spec (the default) a pair whose shorter text has fewer than ``short_below``
canonical tokens is measured on the short shingles (:meth:`neardup.spec.ShingleSpec.short_pairs`,
the rule :func:`neardup.compare` and ``neardup eval`` apply); MinHash signs each text once, with
the spec's own shingles.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._arguments import checked, public_methods
from neardup._constraints import Boolean, OneOf, check, constraint_of
from neardup._kernels.matrix import pairwise_intersections
from neardup.defaults import DEFAULTS
from neardup.errors import ConfigurationError, InputError, WrongTypeError, require
from neardup.fingerprints.pipeline import Pipeline, TextLike, default_spec
from neardup.fingerprints.similarity import Fingerprints
from neardup.spec import SketchSpec, Spec

METHODS = ("containment", "resemblance", "sorensen", "minhash", "tfidf", "combined")
SYMMETRIC = frozenset({"resemblance", "sorensen", "minhash", "tfidf", "combined"})
F64 = npt.NDArray[np.float64]
Progress = Callable[[int], None]


@public_methods
@dataclass(frozen=True)
class SimilarityMatrix:
    """Texts' ids and the ``(n, n)`` matrix: row ``i``, column ``j`` = text i against text j."""

    ids: tuple[str, ...]
    matrix: F64
    method: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def symmetric(self) -> bool:
        return self.method in SYMMETRIC

    def to_dict(self, *, digits: int | None = 6) -> dict[str, Any]:
        values = self.matrix if digits is None else np.round(self.matrix, _digits(digits))
        return {
            "ids": list(self.ids),
            "matrix": values.tolist(),
            "method": self.method,
            "symmetric": self.symmetric,
            "params": dict(self.params),
        }

    def to_csv(self, *, digits: int = 6) -> str:
        """A CSV table: a header of ids, then one row per text starting with its id."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["id", *self.ids])
        for doc_id, row in zip(self.ids, self.matrix.tolist(), strict=True):
            writer.writerow([doc_id, *(f"{v:.{_digits(digits)}f}" for v in row)])
        return out.getvalue()


def _digits(digits: int) -> int:
    """Decimal digits of a written similarity: 0 to 17 (a float64 holds no more)."""
    if not 0 <= digits <= 17:
        raise InputError(f"digits must be from 0 to 17, got {digits}")
    return int(digits)


def _ratio(num: npt.NDArray[np.int64], den: npt.NDArray[np.int64]) -> F64:
    out = np.zeros(num.shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def set_measure_matrix(shared: npt.NDArray[np.int64], method: str) -> F64:
    """A measure matrix from the intersection sizes (sizes on the diagonal)."""
    sizes = np.diag(shared).astype(np.int64)
    rows = np.broadcast_to(sizes[:, None], shared.shape)
    cols = np.broadcast_to(sizes[None, :], shared.shape)
    if method == "containment":
        return _ratio(shared, rows)
    if method == "resemblance":
        return _ratio(shared, rows + cols - shared)
    if method == "sorensen":
        return _ratio(2 * shared, rows + cols)
    raise ConfigurationError(f"not a set measure: {method!r}")


def _check_options(
    texts: Any, method: Any, spec: Any, idf: Any, binary: Any, num_perm: Any
) -> None:
    if isinstance(texts, str | bytes):
        raise WrongTypeError("texts must be a sequence of texts, not one text")
    if isinstance(method, str) and method not in METHODS:
        raise ConfigurationError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    check("method", method, OneOf(METHODS), ConfigurationError)
    if spec is not None and not isinstance(spec, Spec):
        raise WrongTypeError(f"spec must be a Spec or None, got {type(spec).__name__}")
    check("binary", binary, Boolean(), ConfigurationError)
    if not isinstance(idf, str):
        raise ConfigurationError(f"idf must be a name, got {idf!r:.80}")
    if num_perm is not None:
        check("num_perm", num_perm, constraint_of(SketchSpec, "num_perm"), ConfigurationError)


@checked
def similarity_matrix(
    texts: Sequence[TextLike],
    *,
    ids: Sequence[str] | None = None,
    method: str = DEFAULTS.matrix,
    spec: Spec | None = None,
    idf: str = "smooth",
    binary: bool = False,
    num_perm: int | None = None,
    progress: Progress | None = None,
) -> SimilarityMatrix:
    """Every text against every other under ``method`` (see the module docstring).

    ``spec`` gives the analyzer, shingles and fingerprints (default:
    :func:`~neardup.fingerprints.pipeline.default_spec`); ``idf`` and ``binary`` are TF-IDF options
    (:mod:`neardup.score.tfidf`); ``num_perm`` the number of MinHash functions (default: the spec's
    sketch, else 128). ``progress`` is called with 1 after each text is analyzed.
    """
    _check_options(texts, method, spec, idf, binary, num_perm)
    names = (
        tuple(str(i) for i in ids) if ids is not None else tuple(str(i) for i in range(len(texts)))
    )
    if len(names) != len(texts):
        raise InputError(f"{len(names)} ids for {len(texts)} texts")
    spec = spec if spec is not None else default_spec()
    params: dict[str, Any] = {"spec_fingerprint": spec.fingerprint()}
    if method == "combined":
        from neardup.score.combined import MODEL, CombinedFeatures, combined_matrix

        table = CombinedFeatures(spec).table(texts, progress)
        params.update(
            {
                "preset": spec.analyzer.preset,
                "model": MODEL.trained_on,
                "model_version": MODEL.version,
            }
        )
        return SimilarityMatrix(names, combined_matrix(table), method, params)
    if method == "tfidf":
        from neardup.score.tfidf import TfidfModel, cosine_matrix_of_rows

        model = TfidfModel(spec=spec, idf=idf, binary=binary)  # type: ignore[arg-type]
        terms = []
        for text in texts:
            terms.append(model.analyzer(text))
            if progress:
                progress(1)
        params.update({"idf": idf, "binary": binary, "preset": spec.analyzer.preset})
        del params["spec_fingerprint"]  # shingles and hashes play no part
        return SimilarityMatrix(
            names, cosine_matrix_of_rows(model.fit_transform(terms)), method, params
        )
    pipeline = Pipeline(spec.replace(sketch=None))
    params.update(
        {
            "preset": spec.analyzer.preset,
            "unit": spec.shingles.unit,
            "k": spec.shingles.k,
            "step": spec.shingles.step,
        }
    )
    if method == "minhash":
        from neardup.sketch.minhash import MinHasher

        sketch = spec.sketch if spec.sketch is not None else SketchSpec()
        if num_perm is not None:
            sketch = SketchSpec(
                num_perm=num_perm,
                seed=sketch.seed,
                value_bits=sketch.value_bits,
                family=sketch.family,
            )
        hasher = MinHasher(spec.replace(sketch=sketch))
        fps = []
        for text in texts:
            fps.append(pipeline.fingerprints(text))
            if progress:
                progress(1)
        signatures = hasher.sign_many(fps)
        n = len(texts)
        matrix = np.zeros((n, n), dtype=np.float64)
        for i in range(n):  # one kernel call per row, over all columns
            matrix[i] = hasher.estimate_many(signatures, signatures[i])
        nonempty = np.array([len(f) > 0 for f in fps], dtype=np.float64)
        np.fill_diagonal(matrix, nonempty)
        params.update({"num_perm": sketch.num_perm, "sketch_seed": sketch.seed})
        return SimilarityMatrix(names, matrix, method, params)
    matrix = _adaptive_set_matrix(pipeline, texts, method, params, progress)
    return SimilarityMatrix(names, matrix, method, params)


def _adaptive_set_matrix(
    pipeline: Pipeline,
    texts: Sequence[TextLike],
    method: str,
    params: dict[str, Any],
    progress: Progress | None,
) -> F64:
    """A set measure between every two texts, each pair under the shingles the spec's
    length-adaptive rule gives it."""
    tokens = np.zeros(len(texts), dtype=np.int64)
    long_fps: list[Fingerprints] = []
    short_fps: list[Fingerprints] = []
    for d, text in enumerate(texts):
        tokens[d], long_fp, short_fp = pipeline.variants(text)
        long_fps.append(long_fp)
        if short_fp is not None:
            short_fps.append(short_fp)
        if progress:
            progress(1)
    matrix = _set_matrix(long_fps, method)
    shingles = pipeline.spec.shingles
    short = shingles.short_pairs(tokens[:, None], tokens[None, :])
    if short_fps and np.any(short):
        matrix = np.where(short, _set_matrix(short_fps, method), matrix)
        params.update({"short_below": shingles.short_below, "short_k": shingles.short_k})
    return matrix


def _set_matrix(fps: Sequence[Fingerprints], method: str) -> F64:
    """A set measure between every two of ``fps``; 1 on the diagonal unless empty."""
    lengths = np.fromiter((len(f) for f in fps), dtype=np.int64, count=len(fps))
    offsets = np.zeros(len(fps) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    values = np.concatenate([f.values for f in fps]) if fps else np.zeros(0, dtype=np.uint64)
    counts = (
        np.concatenate(
            [f.counts if f.counts is not None else np.ones(len(f), dtype=np.int64) for f in fps]
        )
        if fps
        else np.zeros(0, dtype=np.int64)
    )
    shared = pairwise_intersections(values, counts, offsets)
    matrix = set_measure_matrix(shared, method)
    np.fill_diagonal(matrix, (np.diag(shared) > 0).astype(np.float64))
    return matrix


def plot_heatmap(
    result: SimilarityMatrix,
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    annotate: bool | None = None,
) -> None:
    """Draw the matrix as a heat map (matplotlib, ``neardup[plot]``) into ``path`` (PNG, SVG,
    PDF by the suffix). Cells carry their values when there are at most 20 texts."""
    require("matplotlib", "plot")
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    n = len(result.ids)
    size = min(2.0 + 0.55 * n, 24.0)
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    image = ax.imshow(result.matrix, vmin=0.0, vmax=1.0, cmap="viridis")
    labels = [i if len(i) <= 24 else "…" + i[-23:] for i in result.ids]
    ax.set_xticks(range(n), labels, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(n), labels, fontsize=8)
    ax.set_xlabel("column j")
    ax.set_ylabel("row i (text i against text j)")
    if annotate if annotate is not None else n <= 20:
        for i in range(n):
            for j in range(n):
                value = result.matrix[i, j]
                ax.text(
                    j,
                    i,
                    f"{value:.2f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="black" if value > 0.6 else "white",
                )
    ax.set_title(title or f"{result.method} ({'symmetric' if result.symmetric else 'asymmetric'})")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)

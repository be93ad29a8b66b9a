"""TF-IDF cosine similarity over canonical terms (the TF-IDF news-similarity paper), with
scikit-learn underneath.

The TF-IDF news-similarity paper proposes TF-IDF instead of shingles for similar news: canonicalize
(lemmas, stop words and function words dropped, optionally synonyms merged by a thesaurus), weigh
every term by TF × IDF, compare documents by the cosine of their weight vectors. Unlike containment
it is symmetric, and it does not care about word order, so reordered or paraphrased texts still
score high (and unrelated texts on one topic score above zero).

The terms are the canonical tokens of the spec's analyzer (the same ones shingles are made
of), so a thesaurus given to the spec merges synonyms here too. scikit-learn's
:class:`~sklearn.feature_extraction.text.TfidfVectorizer` does the weighing, fed with our
term lists (analysis runs once per text, in our pipeline). Three IDF formulas:

``smooth`` (default, scikit-learn's)  ``ln((1 + N) / (1 + df)) + 1``
``plain``                              ``ln(N / df) + 1``
``paper``                              ``ln(N / df)`` — the TF-IDF paper's formula (2): a term
                                       found in every document weighs nothing.

``binary=True`` counts each term once per document, as the TF-IDF news-similarity paper's algorithm
does ("удаление повторяющихся слов"). Rows are L2-normalized, so TF's division by the document
length (formula 1) changes nothing in the cosine.

Within a collection, IDF should come from the whole collection, not from the handful of
texts being compared: :func:`rerank` takes document frequencies from the caller (a mapping
term → df and the number of documents), and :class:`DocumentFrequencies` keeps them up to date
as documents come and go.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from neardup.errors import ConfigurationError, InputError, require
from neardup.fingerprints.pipeline import Pipeline, TextLike, default_spec
from neardup.spec import Spec

if TYPE_CHECKING:
    import scipy.sparse

IdfMode = Literal["smooth", "plain", "paper"]
IDF_MODES: tuple[str, ...] = ("smooth", "plain", "paper")
#: A document: a text (str or bytes, analyzed by the spec) or its canonical terms already.
Document = TextLike | Sequence[str]
F64 = npt.NDArray[np.float64]


def _identity(terms: list[str]) -> list[str]:
    """The vectorizer's analyzer: documents arrive as term lists already (module level: pickles)."""
    return terms


class CanonicalTerms:
    """A text's canonical terms under a spec — usable as a scikit-learn ``analyzer`` callable.

    It pickles as its spec (the analyzer is rebuilt on first use), so it can be shipped to
    worker processes. A document that is already a list of terms passes through unchanged.
    """

    def __init__(self, spec: Spec | None = None) -> None:
        self.spec = spec if spec is not None else default_spec()
        self._pipeline: Pipeline | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"spec": self.spec}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.spec = state["spec"]
        self._pipeline = None

    def __call__(self, doc: Document) -> list[str]:
        if isinstance(doc, (str, bytes)):
            if self._pipeline is None:
                self._pipeline = Pipeline(self.spec)
            return self._pipeline.canonical(doc).terms
        if isinstance(doc, Sequence) and all(isinstance(t, str) for t in doc):
            return [str(t) for t in doc]
        raise InputError(f"a document is a text or a list of terms, got {type(doc).__name__}")


def _empty_rows(n: int) -> scipy.sparse.csr_matrix:
    import scipy.sparse

    return scipy.sparse.csr_matrix((n, 0), dtype=np.float64)


def _check_idf(idf: str) -> None:
    if idf not in IDF_MODES:
        raise ConfigurationError(f"idf must be one of {', '.join(IDF_MODES)}, got {idf!r}")


class TfidfModel:
    """TF-IDF vectors of canonical terms: fit on a set of texts, transform texts, compare.

    Keyword-only parameters, stored as given: ``spec`` (the analyzer; default the ``ru``
    preset), ``idf`` (``smooth``, ``plain`` or ``paper``), ``binary`` (each term once per
    document), ``sublinear_tf`` (``1 + ln tf``).
    """

    def __init__(
        self,
        *,
        spec: Spec | None = None,
        idf: IdfMode = "smooth",
        binary: bool = False,
        sublinear_tf: bool = False,
    ) -> None:
        _check_idf(idf)
        self.spec = spec
        self.idf = idf
        self.binary = binary
        self.sublinear_tf = sublinear_tf
        self.analyzer = CanonicalTerms(spec)
        self._vectorizer: Any = None
        self._fitted = False

    def terms(self, documents: Iterable[Document]) -> list[list[str]]:
        """The canonical terms of each document."""
        return [self.analyzer(doc) for doc in documents]

    def _new_vectorizer(self) -> Any:
        text = require("sklearn.feature_extraction.text", "tfidf")
        return text.TfidfVectorizer(  # type: ignore[attr-defined]
            analyzer=_identity,
            lowercase=False,
            binary=self.binary,
            norm="l2",
            use_idf=True,
            smooth_idf=self.idf == "smooth",
            sublinear_tf=self.sublinear_tf,
            dtype=np.float64,
        )

    def fit(self, documents: Iterable[Document]) -> TfidfModel:
        """Learn the vocabulary and IDF of ``documents``."""
        self.fit_transform(documents)
        return self

    def fit_transform(self, documents: Iterable[Document]) -> scipy.sparse.csr_matrix:
        """Fit on ``documents`` and return their L2-normalized TF-IDF rows."""
        term_lists = self.terms(documents)
        vectorizer = self._new_vectorizer()
        self._fitted = True
        if not any(term_lists):  # no terms at all: every vector is empty
            self._vectorizer = None
            return _empty_rows(len(term_lists))
        vectorizer.fit(term_lists)
        if self.idf == "paper":
            vectorizer.idf_ = vectorizer.idf_ - 1.0
        self._vectorizer = vectorizer
        return vectorizer.transform(term_lists)

    def transform(self, documents: Iterable[Document]) -> scipy.sparse.csr_matrix:
        """TF-IDF rows of ``documents`` under the fitted vocabulary (unknown terms are ignored)."""
        if not self._fitted:
            raise ConfigurationError("fit the model before transforming")
        term_lists = self.terms(documents)
        if self._vectorizer is None:
            return _empty_rows(len(term_lists))
        return self._vectorizer.transform(term_lists)

    @property
    def vocabulary(self) -> dict[str, int]:
        return dict(self._vectorizer.vocabulary_) if self._vectorizer is not None else {}

    @property
    def idf_(self) -> F64:
        return np.asarray(self._vectorizer.idf_) if self._vectorizer is not None else np.zeros(0)

    def weights(self, document: Document) -> dict[str, float]:
        """The normalized TF-IDF weight of each term of one document (for showing why)."""
        row = self.transform([document])
        if row.shape[1] == 0:
            return {}
        names = self._vectorizer.get_feature_names_out()
        row = row.tocsr()
        return {str(names[c]): float(v) for c, v in zip(row.indices, row.data) if v}


def cosine_matrix_of_rows(rows: scipy.sparse.spmatrix) -> F64:
    """Pairwise cosines of L2-normalized rows; a zero row has cosine 0 with everything (itself
    included), every other row 1 with itself."""
    gram = (rows @ rows.T).toarray().astype(np.float64)
    np.clip(gram, 0.0, 1.0, out=gram)
    norms = np.asarray(rows.multiply(rows).sum(axis=1)).ravel()
    diag = (norms > 0).astype(np.float64)
    np.fill_diagonal(gram, diag)
    return gram


def cosine_matrix(
    documents: Sequence[Document],
    *,
    spec: Spec | None = None,
    idf: IdfMode = "smooth",
    binary: bool = False,
    sublinear_tf: bool = False,
) -> F64:
    """The symmetric TF-IDF cosine matrix of a set of texts, IDF taken over the set (the TF-IDF
    news-similarity paper)."""
    model = TfidfModel(spec=spec, idf=idf, binary=binary, sublinear_tf=sublinear_tf)
    return cosine_matrix_of_rows(model.fit_transform(documents))


def similarity(
    text: Document,
    reference: Document,
    *,
    spec: Spec | None = None,
    idf: IdfMode = "smooth",
    binary: bool = False,
    sublinear_tf: bool = False,
) -> float:
    """TF-IDF cosine of a text and a reference text, IDF over the two of them."""
    return float(
        cosine_matrix(
            [reference, text], spec=spec, idf=idf, binary=binary, sublinear_tf=sublinear_tf
        )[0, 1]
    )


def reference_similarities(
    reference: Document,
    documents: Sequence[Document],
    *,
    spec: Spec | None = None,
    idf: IdfMode = "smooth",
    binary: bool = False,
    sublinear_tf: bool = False,
) -> F64:
    """Cosine of the reference text with each document, IDF over the reference and the set
    (the TF-IDF news-similarity paper's "text-etalon" against an array of documents)."""
    matrix = cosine_matrix(
        [reference, *documents], spec=spec, idf=idf, binary=binary, sublinear_tf=sublinear_tf
    )
    return matrix[0, 1:].copy()


def idf_weights(
    df: Mapping[str, int], n_docs: int, terms: Sequence[str], idf: IdfMode = "smooth"
) -> F64:
    """IDF of ``terms`` from collection counts; a term the counts do not know has df 0.

    With ``plain`` and ``paper`` a df of 0 is taken as 1 (the query itself holds the term).
    """
    _check_idf(idf)
    if n_docs < 0:
        raise InputError(f"n_docs must be ≥ 0, got {n_docs}")
    counts = np.fromiter(
        (max(int(df.get(t, 0)), 0) for t in terms), dtype=np.float64, count=len(terms)
    )
    if idf == "smooth":
        return np.log((1.0 + n_docs) / (1.0 + counts)) + 1.0
    counts = np.maximum(counts, 1.0)
    base = np.log(np.maximum(n_docs, 1) / counts)
    base = np.maximum(base, 0.0)  # df above N (stale counts) must not weigh negative
    return base + 1.0 if idf == "plain" else base


def rerank(
    query: Document,
    candidates: Mapping[str, Document] | Iterable[tuple[str, Document]],
    *,
    df: Mapping[str, int],
    n_docs: int,
    spec: Spec | None = None,
    idf: IdfMode = "smooth",
    binary: bool = False,
    sublinear_tf: bool = False,
) -> list[tuple[str, float]]:
    """Candidates ordered by TF-IDF cosine with ``query``, best first (ties: in given order).

    IDF comes from the caller's collection: ``df`` maps a term to the number of documents
    holding it, ``n_docs`` is the collection size (see :class:`DocumentFrequencies`).
    Documents may be texts or term lists already (a collection that stores terms).
    """
    text = require("sklearn.feature_extraction.text", "tfidf")
    analyzer = CanonicalTerms(spec)
    items = list(candidates.items() if isinstance(candidates, Mapping) else candidates)
    if not items:
        return []
    term_lists = [analyzer(query)] + [analyzer(doc) for _, doc in items]
    if not any(term_lists):
        return [(str(i), 0.0) for i, _ in items]
    counter = text.CountVectorizer(analyzer=_identity, lowercase=False, binary=binary)  # type: ignore[attr-defined]
    counts = counter.fit_transform(term_lists)
    transformer = text.TfidfTransformer(norm="l2", use_idf=True, sublinear_tf=sublinear_tf)  # type: ignore[attr-defined]
    transformer.idf_ = idf_weights(df, n_docs, list(counter.get_feature_names_out()), idf)
    rows = transformer.transform(counts)
    scores = np.asarray((rows[1:] @ rows[0].T).toarray()).ravel()
    np.clip(scores, 0.0, 1.0, out=scores)
    order = np.argsort(-scores, kind="stable")
    return [(str(items[i][0]), float(scores[i])) for i in order]


class DocumentFrequencies:
    """Document frequencies of terms in a collection that changes: add and remove documents.

    Keep one beside a collection (each document's distinct terms counted once) and pass
    ``df``/``n_docs`` to :func:`rerank`. Serializes to a plain dict.
    """

    def __init__(self) -> None:
        self.df: Counter[str] = Counter()
        self.n_docs = 0

    def add(self, terms: Iterable[str]) -> None:
        self.df.update(set(terms))
        self.n_docs += 1

    def remove(self, terms: Iterable[str]) -> None:
        distinct = set(terms)
        missing = [t for t in distinct if self.df.get(t, 0) <= 0]
        if missing or self.n_docs <= 0:
            raise InputError(
                f"removing a document that was not added (unknown terms: {missing[:5]})"
            )
        self.df.subtract(distinct)
        for t in distinct:
            if self.df[t] <= 0:
                del self.df[t]
        self.n_docs -= 1

    def idf(self, term: str, mode: IdfMode = "smooth") -> float:
        return float(idf_weights(self.df, self.n_docs, [term], mode)[0])

    def to_dict(self) -> dict[str, Any]:
        return {"n_docs": self.n_docs, "df": dict(sorted(self.df.items()))}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DocumentFrequencies:
        out = cls()
        try:
            out.n_docs = int(data["n_docs"])
            out.df = Counter({str(t): int(c) for t, c in data["df"].items()})
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"document frequencies need n_docs and a df mapping: {exc}") from None
        return out

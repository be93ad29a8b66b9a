"""Corpus cleaning beyond whole near-duplicate documents: exact copies by a content hash, and
repeated lines, paragraphs or sentences (boilerplate) cut out of the documents left.

:class:`CleanOptions` says what to do (``neardup dedup --exact/--level``, recorded in
``spec.json`` when set); :func:`clean_texts` does it on an iterable of texts in memory (the
library's entry); the dedup job's stages (:mod:`neardup.corpus.clean_stages`) and the Spark job
run the same functions of :mod:`neardup.corpus.spans` and :mod:`neardup.corpus.exact`."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from neardup._arguments import checked
from neardup._constraints import Integer, OneOf, check_fields, param
from neardup.corpus.exact import ExactMode, content_hash, copies_of
from neardup.corpus.spans import (
    LEVELS,
    Counting,
    CountMinCounter,
    ExactCounter,
    SpanTable,
    cut,
    make_counter,
    span_table,
)
from neardup.defaults import DEFAULTS
from neardup.errors import InputError, WrongTypeError
from neardup.spec import Spec

#: The count-min sketch of approximate counting: 2^21 counters in each of 5 rows (40 MB):
#: ε = e / 2^21 ≈ 1.3e-6 of the document–span pairs counted, δ = e^-5 ≈ 0.7 %.
COUNT_MIN_WIDTH = 1 << 21
COUNT_MIN_DEPTH = 5

SpanLevel = Literal["off", "line", "paragraph", "sentence"]


@dataclass(frozen=True)
class CleanOptions:
    """What is cleaned besides near-duplicate documents.

    ``exact``: exact copies found first by a hash of the canonical text (``canonical``: the
    analyzer's tokens, so case, spacing, markup and folded tricks do not tell copies apart) or
    of the raw text (``raw``), or not looked for (``off``). ``level``: the spans (``line``,
    ``paragraph``, ``sentence``) cut out of every document where they occur when their
    canonical tokens occur in more than ``span_docs`` documents; a document left with fewer
    than ``span_min_tokens`` tokens is dropped. ``span_counting``: ``exact`` (hash counts, at
    most ``span_memory_mb`` MB of keys in memory, the rest spilled to disk) or
    ``approximate`` (a count-min sketch of 40 MB, its error bound reported)."""

    exact: ExactMode = param("off", OneOf(("off", "canonical", "raw")))
    level: SpanLevel = param("off", OneOf(("off", *LEVELS)))
    span_docs: int = param(DEFAULTS.span_docs, Integer(1, 1 << 40))
    span_min_tokens: int = param(DEFAULTS.span_min_tokens, Integer(0, 1 << 20))
    span_counting: Counting = param("exact", OneOf(("exact", "approximate")))
    span_memory_mb: int = param(DEFAULTS.span_memory_mb, Integer(1, 1 << 20))

    def __post_init__(self) -> None:
        check_fields(self, "clean", InputError)

    @property
    def active(self) -> bool:
        return self.exact != "off" or self.level != "off"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def counter(self, folder: Path) -> ExactCounter | CountMinCounter:
        return make_counter(
            self.span_counting,
            folder,
            self.span_memory_mb << 20,
            COUNT_MIN_WIDTH,
            COUNT_MIN_DEPTH,
        )


# --- work on a block of texts (a worker process's task, or the library's own loop) ----------

_PIPELINES: dict[str, Any] = {}


def _pipeline(spec_json: str) -> Any:
    from neardup.fingerprints.pipeline import Pipeline

    if spec_json not in _PIPELINES:
        _PIPELINES.clear()
        _PIPELINES[spec_json] = Pipeline(Spec.from_json(spec_json))
    return _PIPELINES[spec_json]


def span_tables(spec_json: str, level: str, texts: list[str]) -> list[SpanTable]:
    """Each text's spans at ``level``, keyed by the spec's analyzer."""
    pipeline = _pipeline(spec_json)
    return [span_table(text, pipeline.canonical(text), level) for text in texts]


def content_hashes(spec_json: str, mode: str, texts: list[str]) -> list[bytes | None]:
    """Each text's content hash (``None``: nothing to compare, an empty text)."""
    if mode == "canonical":
        pipeline = _pipeline(spec_json)
        return [content_hash(text, pipeline.canonical(text)) for text in texts]
    return [content_hash(text, None) for text in texts]


# --- the library's entry -----------------------------------------------------------------------


@dataclass(frozen=True)
class CleanedText:
    """One input text after cleaning: ``text`` with the repeated spans cut out (the input's
    own characters, in order), ``removed`` those spans as ``(start, end)`` offsets in the
    input text, ``kept`` whether it stays in the corpus: not when it is an exact copy of text
    ``duplicate_of`` (an earlier one), nor when too little is left after a cut (``dropped``)."""

    index: int
    text: str
    removed: list[tuple[int, int]]
    kept: bool
    duplicate_of: int | None = None
    dropped: bool = False


@dataclass(frozen=True)
class CleanResult:
    """What :func:`clean_texts` did: every text in input order, and the counts."""

    texts: list[CleanedText]
    exact_duplicates: int
    spans_removed: int
    chars_removed: int
    documents_dropped: int
    #: approximate counting only: ``epsilon``, ``delta``, ``max_overcount``, ``memory_bytes``
    error_bound: dict[str, float] = field(default_factory=dict)

    @property
    def kept_texts(self) -> list[str]:
        return [t.text for t in self.texts if t.kept]


@checked
def clean_texts(
    texts: Iterable[str],
    options: CleanOptions | None = None,
    *,
    spec: Spec | None = None,
) -> CleanResult:
    """Clean a corpus held in memory: exact copies (``options.exact``) first, then the lines,
    paragraphs or sentences (``options.level``) whose canonical tokens occur in more than
    ``options.span_docs`` of the remaining texts cut out of each, as ``neardup dedup --exact
    --level`` does after its near-duplicate stage. ``options`` default to
    ``CleanOptions(exact="canonical", level="line")``; ``spec`` (its analyzer keys the spans)
    to :func:`neardup.fingerprints.pipeline.default_spec`."""
    from neardup.fingerprints.pipeline import default_spec

    if options is None:
        options = CleanOptions(exact="canonical", level="line")
    elif not isinstance(options, CleanOptions):
        raise WrongTypeError(f"options must be CleanOptions, got {type(options).__name__}")
    if isinstance(texts, str | bytes):
        raise WrongTypeError("clean_texts takes an iterable of texts, not one text")
    items = list(texts)
    for i, text in enumerate(items):
        if not isinstance(text, str):
            raise WrongTypeError(f"text {i} is {type(text).__name__}, not str")
    spec_json = (spec if spec is not None else default_spec()).to_json()
    n = len(items)
    copy_of = np.full(n, -1, np.int64)
    if options.exact != "off":
        copy_of = copies_of(content_hashes(spec_json, options.exact, items))
    alive = [i for i in range(n) if copy_of[i] < 0]
    tables: dict[int, SpanTable] = {}
    error_bound: dict[str, float] = {}
    if options.level != "off":
        with tempfile.TemporaryDirectory(prefix="neardup-spans-") as folder:
            counter = options.counter(Path(folder))
            made = span_tables(spec_json, options.level, [items[i] for i in alive])
            for i, made_table in zip(alive, made, strict=True):
                tables[i] = made_table
                counter.add(made_table.distinct_keys())
            counter.finish(options.span_docs)
            counts = {i: counter.counts(t.keys) for i, t in tables.items()}
            error_bound = counter.error_bound()
    out: list[CleanedText] = []
    spans_removed = chars_removed = dropped = 0
    for i, text in enumerate(items):
        if copy_of[i] >= 0:
            out.append(CleanedText(i, text, [], False, duplicate_of=int(copy_of[i])))
            continue
        table = tables.get(i)
        if table is None:
            out.append(CleanedText(i, text, [], True))
            continue
        result = cut(text, table, counts[i], options.span_docs, options.span_min_tokens)
        spans = [(int(table.starts[j]), int(table.ends[j])) for j in result.removed.tolist()]
        spans_removed += len(spans)
        chars_removed += len(text) - len(result.text)
        dropped += result.dropped
        out.append(CleanedText(i, result.text, spans, not result.dropped, dropped=result.dropped))
    return CleanResult(
        texts=out,
        exact_duplicates=int((copy_of >= 0).sum()),
        spans_removed=spans_removed,
        chars_removed=chars_removed,
        documents_dropped=dropped,
        error_bound=error_bound,
    )

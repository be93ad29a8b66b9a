"""The dedup job's cleaning stages (:class:`~neardup.corpus.cleaning.CleanOptions`):
``exact`` before signing (each document's content hash; a copy of an earlier document joins
its group by an edge of measure 1 and takes no part in the candidate pairs), and ``spans``
after the groups (the kept documents cut into spans, the documents each span key occurs in
counted); the write stage then cuts the repeated spans out of each kept document
(:class:`SpanCutter`) and lists them in the spans file."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from neardup.corpus.arrays import F64, I64, U64
from neardup.corpus.cleaning import CleanOptions, content_hashes, span_tables
from neardup.corpus.exact import copies_of
from neardup.corpus.output import RecordWriter
from neardup.corpus.pipeline import JobContext
from neardup.corpus.spans import SNIPPET_CHARS, CountMinCounter, ExactCounter, SpanTable, cut
from neardup.corpus.verify import PairScores
from neardup.corpus.workers import map_in_order

#: Characters of text in one worker task of the cleaning stages.
_BLOCK_CHARS = 4_000_000


def _blocks(docs: Iterator[tuple[int, str]], size: int) -> Iterator[tuple[list[int], list[str]]]:
    index: list[int] = []
    texts: list[str] = []
    chars = 0
    for i, text in docs:
        index.append(i)
        texts.append(text)
        chars += len(text)
        if len(texts) >= size or chars >= _BLOCK_CHARS:
            yield index, texts
            index, texts, chars = [], [], 0
    if texts:
        yield index, texts


class ExactCopies:
    """Stage ``exact`` (first): every document's content hash (canonical or raw, by
    ``CleanOptions.exact``); ``context.copies[i]`` is the first earlier document with the same
    one, or -1."""

    name: ClassVar[str] = "exact"
    needs: ClassVar[tuple[str, ...]] = ()
    gives: ClassVar[tuple[str, ...]] = ("copies",)

    def run(self, context: JobContext) -> None:
        mode = context.clean.exact
        spec_json = context.spec.to_json()
        hashes: list[bytes | None] = []
        task = context.bars.task("exact", None)

        def store(found: list[bytes | None]) -> None:
            hashes.extend(found)
            context.bars.advance(task, len(found))

        docs = ((i, text) for i, (_, text, _) in enumerate(context.read()))
        tasks = (
            (content_hashes, spec_json, mode, texts)
            for _, texts in _blocks(docs, context.settings.batch_size)
        )
        map_in_order(tasks, context.settings.jobs, store, warm_up=lambda: None)
        context.bars.done(task)
        context.copies = copies_of(hashes)


def without_copies(a: I64, b: I64, copies: I64 | None) -> tuple[I64, I64]:
    """The candidate pairs that join no exact copy (a copy is linked to its first by
    :func:`with_copy_edges`, and its pairs would only be scored again as its first's)."""
    if copies is None or not (copies >= 0).any():
        return a, b
    is_copy = copies >= 0
    keep = ~(is_copy[a] | is_copy[b])
    return a[keep], b[keep]


def with_copy_edges(
    a: I64, b: I64, scores: PairScores, copies: I64 | None
) -> tuple[I64, I64, PairScores]:
    """The verified edges and an edge of measure 1 from each exact copy's first document to
    it, in the order of the edge list (by ``a``, then ``b``)."""
    if copies is None or not (copies >= 0).any():
        return a, b, scores
    copy = np.flatnonzero(copies >= 0).astype(np.int64)
    first = copies[copy]
    ones = np.ones(copy.shape[0], np.float64)
    aa, bb = np.concatenate([a, first]), np.concatenate([b, copy])
    order = np.lexsort((bb, aa))

    def joined(values: Any) -> Any:
        return None if values is None else np.concatenate([values, ones])[order]

    merged = PairScores(
        joined(scores.resemblance),
        joined(scores.containment_ab),
        joined(scores.containment_ba),
    )
    return aa[order], bb[order], merged


def copies_ranked_as_first(priority: F64, copies: I64 | None) -> F64:
    """The keep priorities with each exact copy ranked as its first copy: ties go to the first
    in input order, so a copy is never kept over its first (the group's kept document is the
    one the near-duplicate stage would keep among the documents that are not copies)."""
    if copies is None or not (copies >= 0).any():
        return priority
    out = priority.copy()
    copy = copies >= 0
    out[copy] = priority[copies[copy]]
    return out


def copies_similarity(similarity: F64, rep: I64, copies: I64 | None) -> F64:
    """Each exact copy's similarity to its kept document: its first copy's (the same
    fingerprints), or 1 when the first is the kept one."""
    if copies is None or not (copies >= 0).any():
        return similarity
    out = similarity.copy()
    copy = np.flatnonzero(copies >= 0)
    first = copies[copy]
    out[copy] = np.where(rep[copy] == first, 1.0, similarity[first])
    return out


# --- spans -------------------------------------------------------------------------------------


@dataclass
class SpanState:
    """The ``spans`` stage's result: every counted document's span table on disk (flat
    columns, ``offsets[i]:offsets[i + 1]`` the rows of document ``i``; none for a document
    not counted), and the counter of span keys."""

    folder: Path
    offsets: I64
    total_tokens: I64
    counter: ExactCounter | CountMinCounter
    counted: int = 0
    _columns: dict[str, Any] = field(default_factory=dict)

    def table(self, i: int) -> SpanTable | None:
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        if self.total_tokens[i] < 0:
            return None
        if not self._columns:
            for name, dtype in _COLUMNS.items():
                path = self.folder / f"{name}.bin"
                size = path.stat().st_size if path.exists() else 0
                self._columns[name] = (
                    np.memmap(path, dtype=dtype, mode="r") if size else np.zeros(0, dtype)
                )
        c = self._columns
        return SpanTable(
            np.asarray(c["starts"][lo:hi]),
            np.asarray(c["ends"][lo:hi]),
            np.asarray(c["keys"][lo:hi]),
            np.asarray(c["tokens"][lo:hi]),
            int(self.total_tokens[i]),
        )


_COLUMNS: dict[str, Any] = {
    "starts": np.int64,
    "ends": np.int64,
    "keys": np.uint64,
    "tokens": np.int64,
}


class CountSpans:
    """Stage ``spans`` (after the groups): the kept documents cut into spans at
    ``CleanOptions.level`` (in worker processes), their tables written to the workspace and
    each document's distinct span keys counted."""

    name: ClassVar[str] = "spans"
    needs: ClassVar[tuple[str, ...]] = ("groups",)
    gives: ClassVar[tuple[str, ...]] = ("spans",)

    def run(self, context: JobContext) -> None:
        groups = context.need(context.groups, "groups")
        clean = context.clean
        n = int(groups.rep.shape[0])
        kept = groups.rep == np.arange(n)
        folder = context.partial / "work" / "spans"
        folder.mkdir(parents=True, exist_ok=True)
        counter = clean.counter(folder / "spill")
        sizes = np.zeros(n, np.int64)
        total_tokens = np.full(n, -1, np.int64)
        handles = {name: open(folder / f"{name}.bin", "wb") for name in _COLUMNS}  # noqa: SIM115
        task = context.bars.task("spans", int(kept.sum()))
        spec_json = context.spec.to_json()
        pending: list[list[int]] = []

        def store(tables: list[SpanTable]) -> None:
            index = pending.pop(0)
            keys: list[U64] = []
            for i, table in zip(index, tables, strict=True):
                sizes[i] = len(table)
                total_tokens[i] = table.total_tokens
                for name in _COLUMNS:
                    getattr(table, name).astype(_COLUMNS[name]).tofile(handles[name])
                keys.append(table.distinct_keys())
            counter.add(np.concatenate(keys) if keys else np.zeros(0, np.uint64))
            context.bars.advance(task, len(index))

        def tasks() -> Iterator[tuple[Any, ...]]:
            docs = ((i, text) for i, (_, text, _) in enumerate(context.read()) if i < n and kept[i])
            for index, texts in _blocks(docs, context.settings.batch_size):
                pending.append(index)
                yield (span_tables, spec_json, clean.level, texts)

        try:
            map_in_order(tasks(), context.settings.jobs, store, warm_up=lambda: None)
        finally:
            for handle in handles.values():
                handle.close()
        counter.finish(clean.span_docs)
        context.bars.done(task)
        offsets = np.zeros(n + 1, np.int64)
        np.cumsum(sizes, out=offsets[1:])
        context.spans = SpanState(folder, offsets, total_tokens, counter, int(kept.sum()))


# --- the write stage's cut -----------------------------------------------------------------------


@dataclass
class SpanStats:
    """What the cut did, for ``summary.json``."""

    spans_removed: int = 0
    chars_removed: int = 0
    documents_cut: int = 0
    documents_dropped: int = 0


#: One document's cut: the removed spans' starts, ends and document counts, and whether the
#: document is dropped (``None``: the document was not counted, nothing is cut).
Removal = tuple[I64, I64, I64, bool] | None


class SpanCutter:
    """Cuts each written document's repeated spans out of its text and lists them in the spans
    file: ``removal(i)`` says what to cut from document ``i`` (the local engine's
    :meth:`from_state`, or the Spark job's collected spans), so both engines write alike."""

    def __init__(
        self, path: Path, fmt: str, ids: list[str], removal: Callable[[int], Removal]
    ) -> None:
        self.writer = RecordWriter(path, fmt)
        self.ids = ids
        self.removal = removal
        self.stats = SpanStats()

    @staticmethod
    def from_state(state: SpanState, clean: CleanOptions) -> Callable[[int], Removal]:
        def removal(i: int) -> Removal:
            table = state.table(i)
            if table is None:
                return None
            result = cut("", table, state.counter.counts(table.keys), clean.span_docs, 0)
            left = table.total_tokens - int(table.tokens[result.removed].sum())
            dropped = bool(result.removed.shape[0]) and left < clean.span_min_tokens
            return table.starts[result.removed], table.ends[result.removed], result.counts, dropped

        return removal

    def __call__(self, i: int, text: str) -> tuple[str, dict[str, Any], bool]:
        """Document ``i``'s text after the cut, the fields added to its record and whether it
        is dropped; its removed spans go to the spans file."""
        found = self.removal(i)
        if found is None:
            return text, {"spans_removed": 0}, False
        starts, ends, counts, dropped = found
        if starts.shape[0] == 0:
            return text, {"spans_removed": 0}, False
        pieces: list[str] = []
        at = 0
        for start, end, count in zip(starts.tolist(), ends.tolist(), counts.tolist(), strict=True):
            pieces.append(text[at:start])
            self.writer.write(
                {
                    "id": self.ids[i],
                    "start": start,
                    "end": end,
                    "documents": count,
                    "text": text[start:end][:SNIPPET_CHARS],
                }
            )
            at = end
        pieces.append(text[at:])
        cleaned = "".join(pieces)
        stats = self.stats
        stats.spans_removed += int(starts.shape[0])
        stats.chars_removed += len(text) - len(cleaned)
        stats.documents_cut += 1
        stats.documents_dropped += dropped
        return cleaned, {"spans_removed": int(starts.shape[0])}, dropped

    def close(self) -> None:
        self.writer.close()

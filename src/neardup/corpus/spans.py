"""Repeated spans: a text cut into lines, paragraphs or sentences, each span keyed by the
analyzer's canonical tokens in it (so case, Unicode forms, markup and the tricks ``fold``
undoes do not hide a repeat), the number of documents each key occurs in counted — exactly
(hash counts in memory, spilled to disk by key partition beyond a bound) or approximately (a
count-min sketch, whose error bound is reported) — and the spans of keys found in more than
``span_docs`` documents cut out of the original text by their character offsets.

Both engines use these functions, so the local job, the Spark job and
:func:`neardup.corpus.cleaning.clean_texts` cut the same spans."""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt

from neardup.analysis.chain import Canonical
from neardup.errors import InputError

Level = Literal["line", "paragraph", "sentence"]
LEVELS: tuple[str, ...] = ("line", "paragraph", "sentence")
Counting = Literal["exact", "approximate"]

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

#: Blank-line runs end a paragraph (the separator stays with the paragraph before it).
_PARAGRAPH_GAP = re.compile(r"\n(?:[^\S\n]*\n)+")
#: Characters of a removed span kept in the spans file, for a reader to recognise it.
SNIPPET_CHARS = 200


@dataclass(frozen=True)
class SpanTable:
    """The spans of one text: span ``j`` is ``text[starts[j]:ends[j]]`` (the spans cover the
    text, separators included, so cutting spans out leaves no blank line behind), ``keys[j]``
    the hash of its canonical tokens and ``tokens[j]`` how many it holds (0: no key, never
    counted nor removed); ``total_tokens`` is the text's."""

    starts: I64
    ends: I64
    keys: U64
    tokens: I64
    total_tokens: int

    def __len__(self) -> int:
        return int(self.starts.shape[0])

    def distinct_keys(self) -> U64:
        """The keys of the spans that hold tokens, each once (a document counts once)."""
        return np.unique(self.keys[self.tokens > 0])


def span_bounds(text: str, level: str) -> tuple[I64, I64]:
    """Where the spans of ``text`` at ``level`` start and end (together they cover it)."""
    n = len(text)
    if n == 0:
        empty = np.zeros(0, np.int64)
        return empty, empty
    if level == "line":
        cuts = [m.end() for m in re.finditer("\n", text)]
    elif level == "paragraph":
        cuts = [m.end() for m in _PARAGRAPH_GAP.finditer(text)]
    elif level == "sentence":
        from neardup.passages.rewrites.sentences import sentence_bounds

        cuts = [int(s) for s in sentence_bounds(text)[0][1:].tolist()]
    else:
        raise InputError(f"unknown span level {level!r}; expected one of {', '.join(LEVELS)}")
    starts = [0, *(c for c in cuts if 0 < c < n)]
    ends = [*starts[1:], n]
    return np.asarray(starts, np.int64), np.asarray(ends, np.int64)


def span_table(text: str, canonical: Canonical, level: str) -> SpanTable:
    """The spans of ``text`` at ``level`` keyed by the tokens of ``canonical`` (``text``'s own
    analysis) that start in them: a 64-bit BLAKE2b of their canonical terms."""
    starts, ends = span_bounds(text, level)
    tok_starts = np.asarray(canonical.starts, dtype=np.int64)
    first = np.searchsorted(tok_starts, starts, "left")
    last = np.searchsorted(tok_starts, ends, "left")
    tokens = (last - first).astype(np.int64)
    keys = np.zeros(starts.shape[0], np.uint64)
    data = canonical.buf.tobytes()
    byte_starts = canonical.byte_starts.tolist()
    byte_ends = canonical.byte_ends.tolist()
    for j, (a, b) in enumerate(zip(first.tolist(), last.tolist(), strict=True)):
        if b > a:
            digest = hashlib.blake2b(data[byte_starts[a] : byte_ends[b - 1]], digest_size=8)
            keys[j] = int.from_bytes(digest.digest(), "little")
    return SpanTable(starts, ends, keys, tokens, len(canonical))


@dataclass(frozen=True)
class Cut:
    """What removing the repeated spans does to one text: the spans removed (indices into its
    table, with each one's document count), the text left and whether the document is dropped
    for too little of it (fewer than ``span_min_tokens`` tokens left after a removal)."""

    removed: I64
    counts: I64
    text: str
    dropped: bool


def cut(text: str, table: SpanTable, counts: I64, span_docs: int, min_tokens: int) -> Cut:
    """Remove from ``text`` the spans whose key occurs in more than ``span_docs`` documents
    (``counts``: each span's document count, 0 for a span without tokens)."""
    remove = (counts > span_docs) & (table.tokens > 0)
    removed = np.flatnonzero(remove).astype(np.int64)
    if removed.shape[0] == 0:
        return Cut(removed, removed, text, False)
    pieces: list[str] = []
    at = 0
    for j in removed.tolist():
        pieces.append(text[at : int(table.starts[j])])
        at = int(table.ends[j])
    pieces.append(text[at:])
    left = table.total_tokens - int(table.tokens[removed].sum())
    return Cut(removed, counts[removed], "".join(pieces), left < min_tokens)


# --- counting --------------------------------------------------------------------------------


class ExactCounter:
    """How many documents each span key occurs in, exactly: the keys of each document (each
    once) buffered in memory and, past ``memory_bytes``, spilled to ``folder`` in partitions by
    their top bits, so the count holds one partition at a time (the bound: ``memory_bytes``,
    or a partition's keys, about 1/64 of all, whichever is larger)."""

    PARTITION_BITS = 6

    def __init__(self, folder: Path, memory_bytes: int) -> None:
        self.folder = folder
        self.limit = max(1, memory_bytes // 8)
        self.buffer: list[U64] = []
        self.buffered = 0
        self.spilled = False
        self.total = 0
        self.repeated_keys = np.zeros(0, np.uint64)
        self.repeated_counts = np.zeros(0, np.int64)

    def add(self, keys: U64) -> None:
        self.buffer.append(keys)
        self.buffered += int(keys.shape[0])
        self.total += int(keys.shape[0])
        if self.buffered > self.limit:
            self._spill()

    def _spill(self) -> None:
        if not self.buffer:
            return
        keys = np.concatenate(self.buffer)
        self.buffer, self.buffered = [], 0
        self.folder.mkdir(parents=True, exist_ok=True)
        part = (keys >> np.uint64(64 - self.PARTITION_BITS)).astype(np.int64)
        order = np.argsort(part, kind="stable")
        keys, part = keys[order], part[order]
        bounds = np.searchsorted(part, np.arange((1 << self.PARTITION_BITS) + 1))
        for p in range(1 << self.PARTITION_BITS):
            if bounds[p + 1] > bounds[p]:
                with open(self.folder / f"keys-{p:02d}.u64", "ab") as fh:
                    keys[bounds[p] : bounds[p + 1]].tofile(fh)
        self.spilled = True

    def finish(self, span_docs: int) -> None:
        """Keep the keys found in more than ``span_docs`` documents, with their counts."""
        found_keys: list[U64] = []
        found_counts: list[I64] = []

        def keep(keys: U64) -> None:
            values, counts = np.unique(keys, return_counts=True)
            over = counts > span_docs
            found_keys.append(values[over])
            found_counts.append(counts[over].astype(np.int64))

        if not self.spilled:
            keep(np.concatenate(self.buffer) if self.buffer else np.zeros(0, np.uint64))
        else:
            self._spill()
            for path in sorted(self.folder.glob("keys-*.u64")):
                keep(np.fromfile(path, dtype=np.uint64))
                path.unlink()
        self.buffer = []
        keys = np.concatenate(found_keys)
        order = np.argsort(keys)
        self.repeated_keys = keys[order]
        self.repeated_counts = np.concatenate(found_counts)[order]

    def counts(self, keys: U64) -> I64:
        """Each key's document count (0 for a key seen in ``span_docs`` documents or fewer:
        only the repeated ones are kept)."""
        if self.repeated_keys.shape[0] == 0:
            return np.zeros(keys.shape[0], np.int64)
        at = np.searchsorted(self.repeated_keys, keys)
        at = np.minimum(at, self.repeated_keys.shape[0] - 1)
        hit = self.repeated_keys[at] == keys
        return np.where(hit, self.repeated_counts[at], 0).astype(np.int64)

    def error_bound(self) -> dict[str, float]:
        return {}


class CountMinCounter:
    """How many documents each span key occurs in, approximately: a count-min sketch of
    ``depth`` rows of ``width`` counters (memory ``4 · depth · width`` bytes whatever the
    corpus). A count is never under the true one, and over it by at most ``ε · N`` (``N``: all
    the document–key pairs counted, ``ε = e / width``) with probability at least ``1 − δ``,
    ``δ = e^(−depth)``: a span seen in few documents may be taken for a repeated one, never
    the other way round."""

    #: odd multipliers of the rows' hashes (the key is already a uniform 64-bit hash)
    _MULTIPLIERS = (
        0x9E3779B97F4A7C15,
        0xC2B2AE3D27D4EB4F,
        0x165667B19E3779F9,
        0xD6E8FEB86659FD93,
        0xFF51AFD7ED558CCD,
        0xC4CEB9FE1A85EC53,
        0x94D049BB133111EB,
        0xBF58476D1CE4E5B9,
    )

    def __init__(self, width: int, depth: int) -> None:
        if width < 2 or width & (width - 1):
            raise InputError(f"the count-min width must be a power of two, got {width}")
        if not 1 <= depth <= len(self._MULTIPLIERS):
            raise InputError(f"the count-min depth must be 1 to {len(self._MULTIPLIERS)}")
        self.width, self.depth = width, depth
        self.shift = np.uint64(64 - int(math.log2(width)))
        self.table = np.zeros((depth, width), np.uint32)
        self.total = 0

    def _columns(self, keys: U64) -> list[I64]:
        with np.errstate(over="ignore"):
            return [
                ((keys * np.uint64(m)) >> self.shift).astype(np.int64)
                for m in self._MULTIPLIERS[: self.depth]
            ]

    def add(self, keys: U64) -> None:
        self.total += int(keys.shape[0])
        for row, cols in enumerate(self._columns(keys)):
            np.add.at(self.table[row], cols, 1)

    def finish(self, span_docs: int) -> None:
        return None

    def counts(self, keys: U64) -> I64:
        if keys.shape[0] == 0:
            return np.zeros(0, np.int64)
        rows = [self.table[r][cols] for r, cols in enumerate(self._columns(keys))]
        return np.min(np.stack(rows), axis=0).astype(np.int64)

    def error_bound(self) -> dict[str, float]:
        epsilon = math.e / self.width
        return {
            "epsilon": epsilon,
            "delta": math.exp(-self.depth),
            "max_overcount": math.ceil(epsilon * self.total),
            "memory_bytes": int(self.table.nbytes),
        }


def make_counter(
    counting: str, folder: Path, memory_bytes: int, width: int, depth: int
) -> ExactCounter | CountMinCounter:
    if counting == "approximate":
        return CountMinCounter(width, depth)
    return ExactCounter(folder, memory_bytes)

"""The query's words counted by kind: the one count behind the uniqueness figure.

Every entry point's figure (``compare --fragments``, ``index check``, the library, the page, the
PDF) comes from here, so a text gets one figure whatever the door. Each canonical word of the
query gets one kind, by precedence:

* ``cited`` — inside some passage (copied or rewritten) and inside a citation (a quotation, or
  a sentence carrying its own reference);
* ``copied`` — else inside a copied passage (verbatim or lightly edited; the edited words
  between its seeds included);
* ``rewritten`` — else inside a passage whose sentences were reworded;
* unique — in no passage.

``borrowed`` is copied + rewritten, so borrowed + cited + unique words are all the words, and
the shares (``borrowed``, ``cited``, ``uniqueness``) add up to one. The kinds are also kept as
runs of the query (:class:`CountedRun`: character spans and word counts), so every percent a
report prints can be located in the text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
Mask = npt.NDArray[np.bool_]

#: The kinds a counted word can be of, in the order reports list them.
COPIED = "copied"
REWRITTEN = "rewritten"
CITED = "cited"
KINDS = (COPIED, REWRITTEN, CITED)
#: Each kind's code in a word-kind array (0: unique, found in no source).
_CODES = {COPIED: 1, REWRITTEN: 2, CITED: 3}
_NAMES = {code: kind for kind, code in _CODES.items()}


@dataclass(frozen=True)
class WordCounts:
    """How many of the query's ``words`` are of each kind (:data:`KINDS`); the rest are
    unique. The shares are the counts over ``words`` (0 for an empty text)."""

    words: int
    copied: int = 0
    rewritten: int = 0
    cited: int = 0

    @property
    def borrowed_words(self) -> int:
        """Words taken from a source outside every citation: copied and rewritten."""
        return self.copied + self.rewritten

    @property
    def cited_words(self) -> int:
        return self.cited

    @property
    def unique_words(self) -> int:
        return self.words - self.borrowed_words - self.cited_words

    @property
    def borrowed(self) -> float:
        return self.borrowed_words / self.words if self.words else 0.0

    @property
    def cited_share(self) -> float:
        return self.cited_words / self.words if self.words else 0.0

    @property
    def by_kind(self) -> dict[str, int]:
        return {COPIED: self.copied, REWRITTEN: self.rewritten, CITED: self.cited}

    def to_dict(self) -> dict[str, Any]:
        """The counts a JSON summary gives: borrowed + cited + unique words = words, and
        ``by_kind`` splits borrowed + cited."""
        return {
            "borrowed_words": self.borrowed_words,
            "cited_words": self.cited_words,
            "unique_words": self.unique_words,
            "by_kind": self.by_kind,
        }


@dataclass(frozen=True)
class CountedRun:
    """A run of consecutive query words of one kind: tokens ``first:end`` (end exclusive),
    characters ``start:stop`` of the query as given (from the first word's start to the last
    word's end)."""

    kind: str
    first: int
    end: int
    start: int
    stop: int

    @property
    def words(self) -> int:
        return self.end - self.first

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "start": self.start, "end": self.stop, "words": self.words}


def covered(n: int, ranges: Iterable[tuple[int, int]]) -> Mask:
    """Which of ``n`` tokens lie in the union of the token ranges ``[first, end)``."""
    edges = np.zeros(n + 1, dtype=np.int64)
    for first, end in ranges:
        lo, hi = max(0, int(first)), min(n, int(end))
        if lo < hi:
            edges[lo] += 1
            edges[hi] -= 1
    return np.cumsum(edges[:n]) > 0


def word_kinds(
    n: int,
    copied: Iterable[tuple[int, int]],
    rewritten: Iterable[tuple[int, int]] = (),
    inside: Mask | None = None,
) -> I8:
    """The kind code of each of ``n`` query tokens (0: unique), given the token ranges of the
    copied and the rewritten passages and (``inside``) which tokens lie inside a citation."""
    in_copied = covered(n, copied)
    found = in_copied | covered(n, rewritten)
    kinds = np.zeros(n, dtype=np.int8)
    kinds[found] = _CODES[REWRITTEN]
    kinds[in_copied] = _CODES[COPIED]
    if inside is not None:
        kinds[found & inside] = _CODES[CITED]
    return kinds


def counts_of(kinds: I8) -> WordCounts:
    """The words of each kind in a word-kind array."""
    tally = np.bincount(kinds.astype(np.int64), minlength=len(_CODES) + 1)
    return WordCounts(
        words=int(kinds.shape[0]),
        copied=int(tally[_CODES[COPIED]]),
        rewritten=int(tally[_CODES[REWRITTEN]]),
        cited=int(tally[_CODES[CITED]]),
    )


def _runs(values: I8) -> tuple[I64, I64]:
    """Starts and ends (exclusive) of the runs of equal non-zero values."""
    if values.shape[0] == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    change = np.flatnonzero(np.diff(values)) + 1
    starts = np.concatenate(([0], change)).astype(np.int64)
    ends = np.concatenate((change, [values.shape[0]])).astype(np.int64)
    keep = values[starts] != 0
    return starts[keep], ends[keep]


def runs_of(
    kinds: I8, starts: Sequence[int] | I64, ends: Sequence[int] | I64
) -> tuple[CountedRun, ...]:
    """The runs of counted words (kind not 0), with the character spans ``starts``/``ends``
    of the query's tokens."""
    first, end = _runs(kinds)
    return tuple(
        CountedRun(_NAMES[int(kinds[f])], f, e, int(starts[f]), int(ends[e - 1]))
        for f, e in zip(first.tolist(), end.tolist(), strict=True)
    )


def kinds_of_runs(n: int, runs: Iterable[CountedRun]) -> I8:
    """The word-kind array the runs were cut from (the inverse of :func:`runs_of`)."""
    kinds = np.zeros(n, dtype=np.int8)
    for run in runs:
        kinds[run.first : run.end] = _CODES[run.kind]
    return kinds


@dataclass(frozen=True)
class MoreSources:
    """The sources counted in the figure but not listed (a report lists the strongest few):
    how many (``sources``, each with at least one passage), their ``passages``, the query's
    ``words`` counted only through them (in no listed source's passage), that share of the
    query, and the character ``spans`` of those words (to be marked in a neutral colour)."""

    sources: int
    passages: int
    words: int
    share: float
    spans: tuple[tuple[int, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "sources": self.sources,
            "passages": self.passages,
            "words": self.words,
            "share": round(self.share, 6),
            "spans": [list(span) for span in self.spans],
        }


def only_in_unlisted(
    runs: Sequence[CountedRun],
    n: int,
    listed: Iterable[tuple[int, int]],
    starts: Sequence[int] | I64,
    ends: Sequence[int] | I64,
) -> tuple[int, tuple[tuple[int, int], ...]]:
    """The counted words in no ``listed`` token range, and their character spans."""
    left = (kinds_of_runs(n, runs) != 0) & ~covered(n, listed)
    first, end = _runs(left.astype(np.int8))
    spans = tuple(
        (int(starts[f]), int(ends[e - 1]))
        for f, e in zip(first.tolist(), end.tolist(), strict=True)
    )
    return int(np.count_nonzero(left)), spans

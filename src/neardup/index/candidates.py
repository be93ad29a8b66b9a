"""Candidate generation: which stored documents are worth an exact comparison with a text.

A generator turns a document's shingle fingerprints (in text order) into a short, sorted set of
*sample* values; the index keeps an inverted index ``sample → documents`` and a query's
candidates are the documents that share at least one sample with it, ranked by how many they
share. The index then verifies every candidate exactly (:mod:`neardup.index.verify`), so a
generator only decides recall and cost, never a reported number.

One generator exists now, :class:`Winnowing`. It suits both jobs of the collection: near
duplicates share many windows, and a partial copy — one paragraph of a source pasted into a
long essay — shares every window that lies inside the pasted run, so any run of at least
``window`` shared shingles (``window + k - 1`` words) is guaranteed a common sample, however
small the share of the essay it is. Broder's mod-m sampling keeps no such guarantee: a run
shorter than about ``m`` shingles may have no sample at all. MinHash LSH band keys (neardup.sketch)
and pseudo-matrix Bloom rows can be added later as other generators with the same interface.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from neardup._kernels.winnow import winnow
from neardup._sorted import distinct, distinct_counts
from neardup.errors import ConfigurationError
from neardup.spec import IndexSpec

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


@runtime_checkable
class CandidateGenerator(Protocol):
    """Turns a document's shingle fingerprints (text order) into its posting values."""

    name: str

    def samples(self, hashes: U64) -> U64:
        """The sorted distinct values to post for (or look up with) a document."""
        ...


class Winnowing:
    """The minimum (by a fixed remix) of every window of ``window`` consecutive shingles.

    Expected density ``2 / (window + 1)`` of the shingles; a text shorter than one window keeps
    its single minimum.
    """

    name = "winnow"

    def __init__(self, *, window: int = 24) -> None:
        if window < 1:
            raise ConfigurationError(f"the winnowing window must be at least 1, got {window}")
        self.window = window

    def samples(self, hashes: U64) -> U64:
        hashes = np.ascontiguousarray(hashes, dtype=np.uint64)
        return distinct(winnow(hashes, self.window))

    def __repr__(self) -> str:
        return f"Winnowing(window={self.window})"


def generator_for(spec: IndexSpec) -> CandidateGenerator:
    """The candidate generator an index spec names."""
    if spec.candidates == "winnow":
        return Winnowing(window=spec.window)
    raise ConfigurationError(f"unknown candidate method {spec.candidates!r}")


def rank(query_samples: U64, post_values: U64, post_keys: I64, limit: int) -> tuple[I64, I64]:
    """Candidates of one query from postings sorted by value: ``(keys, shared samples)``.

    The keys sharing the most samples come first (ties by smaller key); at most ``limit``.
    ``post_values`` must be sorted (``post_keys`` in the same order).
    """
    if query_samples.shape[0] == 0 or post_values.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    lo = np.searchsorted(post_values, query_samples, side="left")
    hi = np.searchsorted(post_values, query_samples, side="right")
    lengths = hi - lo
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    idx = np.repeat(lo - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
    keys, shared = distinct_counts(post_keys[idx])
    order = np.lexsort((keys, -shared))[:limit]
    return keys[order].astype(np.int64), shared[order].astype(np.int64)


def rank_many(
    query_values: U64, query_pos: I64, post_values: U64, post_keys: I64, limit: int
) -> tuple[I64, I64, I64]:
    """Candidates of many queries at once: ``(query position, key, shared samples)`` triples.

    ``query_values``/``query_pos`` are every query's samples with the query they belong to;
    ``post_values`` must be sorted. Per query the keys sharing the most samples come first
    (ties by smaller key), at most ``limit``; triples are ordered by query position.
    """
    empty = np.zeros(0, dtype=np.int64)
    if query_values.shape[0] == 0 or post_values.shape[0] == 0:
        return empty, empty, empty
    lo = np.searchsorted(post_values, query_values, side="left")
    hi = np.searchsorted(post_values, query_values, side="right")
    lengths = hi - lo
    total = int(lengths.sum())
    if total == 0:
        return empty, empty, empty
    idx = np.repeat(lo - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
    pos = np.repeat(query_pos, lengths)
    keys = post_keys[idx]
    # count each (query, key) pair: sort by both, then run lengths
    order = np.lexsort((keys, pos))
    pos, keys = pos[order], keys[order]
    start = np.flatnonzero(
        np.concatenate(([True], (pos[1:] != pos[:-1]) | (keys[1:] != keys[:-1])))
    )
    counts = np.diff(np.append(start, pos.shape[0]))
    pos, keys = pos[start], keys[start]
    # best first within each query, then keep the first ``limit`` of each
    order = np.lexsort((keys, -counts, pos))
    pos, keys, counts = pos[order], keys[order], counts[order]
    first = np.flatnonzero(np.concatenate(([True], pos[1:] != pos[:-1])))
    rank_in_query = np.arange(pos.shape[0]) - np.repeat(
        first, np.diff(np.append(first, pos.shape[0]))
    )
    keep = rank_in_query < limit
    return pos[keep].astype(np.int64), keys[keep].astype(np.int64), counts[keep].astype(np.int64)

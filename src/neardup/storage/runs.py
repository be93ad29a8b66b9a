"""Postings ``(value, key)`` held in memory as sorted runs, log-structured.

Each batch of postings becomes a sorted run; a run is merged into the one before it while that
one is not at least twice as large, so there are O(log n) runs, a lookup is one
``searchsorted`` per run, and adding n postings costs O(n log n) in all — never a re-sort of
everything held per batch. Keys only grow (documents get increasing keys), so the newer of two
runs goes after the older one among equal values and two runs merge in one linear pass.

Arrays are never modified in place: :meth:`SortedRuns.copy` is a snapshot (the memory backend's
transactions rely on it).
"""

from __future__ import annotations

import numpy as np

from neardup.errors import StorageError
from neardup.storage.base import I64, U64

_NO_U64 = np.zeros(0, dtype=np.uint64)
_NO_I64 = np.zeros(0, dtype=np.int64)


def _merge(older: tuple[U64, I64], newer: tuple[U64, I64]) -> tuple[U64, I64]:
    """Two runs sorted by (value, key) merged into one; ``newer``'s keys are all larger."""
    at = np.searchsorted(older[0], newer[0], side="right")
    return np.insert(older[0], at, newer[0]), np.insert(older[1], at, newer[1])


def _gather(sorted_values: U64, payload: I64, wanted: U64) -> tuple[U64, I64]:
    """Every entry whose value is in ``wanted`` (sorted, unique)."""
    lo = np.searchsorted(sorted_values, wanted, side="left")
    hi = np.searchsorted(sorted_values, wanted, side="right")
    lengths = hi - lo
    total = int(lengths.sum())
    if not total:
        return _NO_U64, _NO_I64
    idx = np.repeat(lo - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
    return sorted_values[idx], payload[idx]


class SortedRuns:
    """A multiset of ``(value, key)`` postings; values uint64, keys int64."""

    __slots__ = ("max_key", "runs")

    def __init__(self) -> None:
        self.runs: list[tuple[U64, I64]] = []  # largest first
        self.max_key = -1

    def copy(self) -> SortedRuns:
        out = SortedRuns()
        out.runs = list(self.runs)
        out.max_key = self.max_key
        return out

    @property
    def size(self) -> int:
        return sum(int(v.shape[0]) for v, _ in self.runs)

    @property
    def nbytes(self) -> int:
        return sum(int(v.nbytes + k.nbytes) for v, k in self.runs)

    def add(self, values: U64, keys: I64) -> None:
        """Add postings (any order); their keys must all be larger than every key held."""
        if not values.shape[0]:
            return
        values = np.asarray(values, dtype=np.uint64)
        keys = np.asarray(keys, dtype=np.int64)
        if int(keys.min()) <= self.max_key:
            raise StorageError(
                f"postings must come in increasing key order: key {int(keys.min())} "
                f"after {self.max_key}"
            )
        order = np.lexsort((keys, values))
        runs = self.runs
        runs.append((values[order], keys[order]))
        self.max_key = int(keys.max())
        while len(runs) > 1 and runs[-2][0].shape[0] < 2 * runs[-1][0].shape[0]:
            runs[-2:] = [_merge(runs[-2], runs[-1])]

    def lookup(self, wanted: U64) -> tuple[U64, I64]:
        """Postings whose value is in ``wanted`` (sorted, unique), in no particular order."""
        if not wanted.shape[0]:
            return _NO_U64, _NO_I64
        found = [_gather(v, k, wanted) for v, k in self.runs]
        found = [f for f in found if f[0].shape[0]]
        if not found:
            return _NO_U64, _NO_I64
        if len(found) == 1:
            return found[0]
        return np.concatenate([f[0] for f in found]), np.concatenate([f[1] for f in found])

    def arrays(self) -> tuple[U64, I64]:
        """All postings, sorted by (value, key)."""
        if not self.runs:
            return _NO_U64, _NO_I64
        if len(self.runs) == 1:
            return self.runs[0]
        values = np.concatenate([v for v, _ in self.runs])
        keys = np.concatenate([k for _, k in self.runs])
        order = np.lexsort((keys, values))
        return values[order], keys[order]

    def without(self, gone: I64) -> SortedRuns:
        """A copy without the postings of the keys in ``gone``."""
        out = SortedRuns()
        out.max_key = self.max_key
        for v, k in self.runs:
            keep = ~np.isin(k, gone)
            if keep.any():
                out.runs.append((v[keep], k[keep]))
        return out

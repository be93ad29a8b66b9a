"""Exact verification: the index re-scores every candidate from the stored fingerprint sets.

Candidates only propose; the numbers the index reports are the exact measures of
:func:`neardup.fingerprints.similarity.measures_from_counts` over ``|A|``, ``|B|`` and ``|A ∩ B|``
(``Σ min``
of the counts for multiset specs) — the same numbers
:func:`neardup.fingerprints.similarity.compare` gives.
One kernel call merges the query against all its candidates and also marks which of the
query's fingerprints any candidate has, which is what the uniqueness % is made of.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from neardup._kernels.winnow import verify_many
from neardup.fingerprints.similarity import Measures, measures_from_counts

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

_NO_COUNTS = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class Verified:
    """The exact measures of a query against each candidate, and its uniqueness."""

    measures: list[Measures]
    found: npt.NDArray[np.bool_]

    @property
    def uniqueness(self) -> float:
        """Share of the query's distinct fingerprints that no candidate has (1.0 for none)."""
        n = self.found.shape[0]
        return 1.0 - float(self.found.sum()) / n if n else 1.0


def set_size(values: U64, counts: I64 | None) -> int:
    return int(counts.sum()) if counts is not None else int(values.shape[0])


def verify(
    query: U64,
    query_counts: I64 | None,
    candidates: Sequence[tuple[U64, I64 | None]],
) -> Verified:
    """Measures of ``query`` against each ``(values, counts)`` candidate, in the given order."""
    multiset = query_counts is not None
    if candidates:
        lengths = np.array([c[0].shape[0] for c in candidates], dtype=np.int64)
        offsets = np.zeros(len(candidates) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        values = np.concatenate([c[0] for c in candidates]).astype(np.uint64, copy=False)
        if multiset:
            counts = np.concatenate(
                [
                    c[1] if c[1] is not None else np.ones(c[0].shape[0], dtype=np.int64)
                    for c in candidates
                ]
            ).astype(np.int64, copy=False)
        else:
            counts = _NO_COUNTS
    else:
        offsets = np.zeros(1, dtype=np.int64)
        values = np.zeros(0, dtype=np.uint64)
        counts = _NO_COUNTS
    q_counts = query_counts if query_counts is not None else _NO_COUNTS
    shared, found = verify_many(
        np.ascontiguousarray(query, dtype=np.uint64),
        q_counts,
        values,
        counts,
        offsets,
        multiset,
    )
    size_q = set_size(query, query_counts)
    measures = [
        measures_from_counts(size_q, set_size(v, c), int(s))
        for (v, c), s in zip(candidates, shared.tolist(), strict=True)
    ]
    return Verified(measures, found)

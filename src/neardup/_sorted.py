"""Sorted distinct values of an integer array, with counts on request.

What ``np.unique`` gives, from one ``np.sort`` and a mask of the positions that differ from
their left neighbour. NumPy 2's ``np.unique`` takes a hash-based path for integers that is
7–16 times slower on the arrays the index handles (measured with NumPy 2.4: 38,000 uint64
values 11.9 ms against 1.7 ms; 9 million 12.6 s against 0.77 s).
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import numpy.typing as npt

A = TypeVar("A", bound=npt.NDArray[np.integer])


def _first_of_runs(ordered: npt.NDArray[np.integer]) -> npt.NDArray[np.bool_]:
    first = np.empty(ordered.shape[0], dtype=np.bool_)
    if ordered.shape[0]:
        first[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return first


def distinct(values: A) -> A:
    """The sorted distinct values (``np.unique(values)``)."""
    ordered = np.sort(np.ravel(values))
    return ordered[_first_of_runs(ordered)]  # type: ignore[return-value]


def distinct_counts(values: A) -> tuple[A, npt.NDArray[np.int64]]:
    """The sorted distinct values and how often each occurs.

    As ``np.unique(values, return_counts=True)``.
    """
    ordered = np.sort(np.ravel(values))
    first = _first_of_runs(ordered)
    bounds = np.flatnonzero(first)
    return ordered[first], np.diff(bounds, append=ordered.shape[0]).astype(np.int64)  # type: ignore[return-value]

"""Stage 4, groups: connected components of the verified edges and the kept document of each."""

from __future__ import annotations

from typing import Any

import numpy as np

from neardup.corpus.arrays import F64, I64
from neardup.errors import DatasetError


def components(n: int, a: I64, b: I64) -> I64:
    """The component label of each of ``n`` nodes given the edges: the smallest node of its
    component (a union–find kernel)."""
    from neardup._kernels.pairs import component_minima

    if n == 0:
        return np.zeros(0, dtype=np.int64)
    return component_minima(n, np.ascontiguousarray(a, np.int64), np.ascontiguousarray(b, np.int64))


def representatives(group: I64, priority: F64) -> I64:
    """The kept document of each document's group: the highest ``priority``, ties to the
    first in input order."""
    n = group.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    index = np.arange(n, dtype=np.int64)
    order = np.lexsort((index, -priority, group))
    first = np.concatenate(([True], group[order][1:] != group[order][:-1]))
    rep_of_group = np.empty(n, dtype=np.int64)
    rep_of_group[group[order][first]] = order[first]
    return rep_of_group[group]


def keep_priority(rule: str, lengths: I64, values: list[Any] | None) -> F64:
    """Priorities for :func:`representatives` under a keep rule (missing values rank last)."""
    n = lengths.shape[0]
    if rule == "first":
        return np.zeros(n, dtype=np.float64)
    if rule == "longest":
        return lengths.astype(np.float64)
    assert values is not None
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, str) for v in present):
        ranks = {v: i for i, v in enumerate(sorted(set(present)))}
        raw = np.array([ranks[v] if v is not None else np.nan for v in values], dtype=np.float64)
    elif all(not isinstance(v, str) for v in present):
        raw = np.array([v if v is not None else np.nan for v in values], dtype=np.float64)
    else:
        raise DatasetError("the keep column mixes numbers and strings; it must hold one kind")
    if rule == "min":
        raw = -raw
    return np.where(np.isnan(raw), -np.inf, raw)

"""Stage 2, candidates: pairs of documents that share an LSH band key (or a winnowed sample),
by the bucket window rule, so no step is quadratic."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from neardup.dedup.arrays import I64, U64


def bucket_pairs(keys: U64, window: int) -> tuple[I64, I64, int, int]:
    """Candidate pairs ``(a, b)`` (``a < b``, row positions) of one band's keys: documents with
    equal keys at most ``window`` places apart within their bucket (input order). Also returns
    how many buckets were larger than ``window + 1`` (capped) and the largest bucket's size."""
    n = keys.shape[0]
    if n < 2:
        empty = np.zeros(0, np.int64)
        return empty, empty, 0, min(n, 1)
    order = np.argsort(keys, kind="stable").astype(np.int64)
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])))
    sizes = np.diff(np.append(starts, n))
    largest = int(sizes.max())
    capped = int((sizes > window + 1).sum())
    a_parts: list[I64] = []
    b_parts: list[I64] = []
    for d in range(1, min(window, largest - 1) + 1):
        same = sorted_keys[d:] == sorted_keys[:-d]
        idx = np.flatnonzero(same)
        if idx.shape[0] == 0:
            break
        a_parts.append(order[idx])
        b_parts.append(order[idx + d])
    if not a_parts:
        empty = np.zeros(0, np.int64)
        return empty, empty, capped, largest
    a = np.concatenate(a_parts)
    b = np.concatenate(b_parts)
    return np.minimum(a, b), np.maximum(a, b), capped, largest


def candidate_pairs(band_columns: Iterable[U64], n: int, window: int) -> tuple[I64, I64, int, int]:
    """Distinct candidate pairs over every band (each band's keys in turn)."""
    codes: list[U64] = []
    capped = 0
    largest = 0
    for keys in band_columns:
        a, b, c, big = bucket_pairs(keys, window)
        capped += c
        largest = max(largest, big)
        if a.shape[0]:
            codes.append(np.unique(a.astype(np.uint64) * np.uint64(n) + b.astype(np.uint64)))
    if not codes:
        empty = np.zeros(0, np.int64)
        return empty, empty, capped, largest
    pairs = np.unique(np.concatenate(codes))
    a = (pairs // np.uint64(n)).astype(np.int64)
    b = (pairs % np.uint64(n)).astype(np.int64)
    return a, b, capped, largest


def winnowed_pairs(samples: U64, rows: I64, window: int) -> tuple[I64, I64]:
    """Pairs of documents that share a winnowed sample (``rows[i]`` is the document of
    ``samples[i]``, in input order), by the bucket rule of the LSH bands: a sample posted by
    many documents (boilerplate) pairs each with its ``window`` neighbours only."""
    a, b, _, _ = bucket_pairs(samples, window)
    da, db = rows[a], rows[b]
    other = da != db
    return np.minimum(da[other], db[other]), np.maximum(da[other], db[other])


def with_winnowed_pairs(
    a: I64, b: I64, samples: U64, rows: I64, n: int, window: int
) -> tuple[I64, I64]:
    wa, wb = winnowed_pairs(samples, rows, window)
    size = np.uint64(max(n, 1))
    codes = np.unique(
        np.concatenate(
            [
                a.astype(np.uint64) * size + b.astype(np.uint64),
                wa.astype(np.uint64) * size + wb.astype(np.uint64),
            ]
        )
    )
    return (codes // size).astype(np.int64), (codes % size).astype(np.int64)

"""Stage 2, candidates: pairs of documents that share an LSH band key (or a winnowed sample),
by the bucket window rule, so no step is quadratic.

The bucket window is how many places apart (in input order) two members of one bucket may be
to pair. The option that sets it is named ``window`` (``DedupOptions.window``, ``--window``,
the ``spec.json`` key) and so are the parameters of the public functions here; inside, it is
``bucket_window``, not to be taken for winnowing's window of shingles (``winnow``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from neardup.corpus.arrays import I64, U64
from neardup.corpus.progress import StageProgress
from neardup.corpus.workspace import Workspace, band_columns

#: Memory for the band keys read at once (a band of a million documents is 8 MB).
COLUMN_BYTES = 64 << 20


def stable_order(keys: U64) -> tuple[I64, U64]:
    """``np.argsort(keys, kind="stable")`` and the sorted keys, by numpy's unstable sort (SIMD,
    several times faster than its stable one on 64-bit keys) with only the runs of equal keys
    then put back in input order: the same permutation."""
    order = np.argsort(keys).astype(np.int64, copy=False)
    sorted_keys = keys[order]
    tie = sorted_keys[1:] == sorted_keys[:-1]
    if tie.any():
        in_run = np.zeros(keys.shape[0], dtype=np.bool_)
        in_run[1:] |= tie
        in_run[:-1] |= tie
        at = np.flatnonzero(in_run)
        # the runs lie in key order already: sorting by (run, position) orders each run alone
        # (distinct values, so the unstable sort is exact)
        run = np.cumsum(np.concatenate(([True], sorted_keys[at][1:] != sorted_keys[at][:-1])))
        pos = order[at]
        order[at] = pos[np.argsort(run.astype(np.int64) * np.int64(keys.shape[0]) + pos)]
    return order, sorted_keys


def bucket_pairs(keys: U64, window: int) -> tuple[I64, I64, int, int]:
    """Candidate pairs ``(a, b)`` (``a < b``, row positions) of one band's keys: documents with
    equal keys at most ``window`` (the bucket window) places apart within their bucket (input
    order). Also returns
    how many buckets were larger than ``window + 1`` (capped) and the largest bucket's size."""
    n = keys.shape[0]
    if n < 2:
        empty = np.zeros(0, np.int64)
        return empty, empty, 0, min(n, 1)
    order, sorted_keys = stable_order(keys)
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
    """Distinct candidate pairs over every band (each band's keys in turn); ``window`` is the
    bucket window."""
    codes, capped, largest = _band_codes(band_columns, n, window, lambda: None)
    a, b = _pairs_of(codes, n)
    return a, b, capped, largest


def workspace_candidates(
    work: Workspace, bands: int, bucket_window: int, progress: StageProgress, jobs: int = 1
) -> tuple[I64, I64, int, int]:
    """:func:`candidate_pairs` of the bands a workspace holds: their keys read a few bands at
    a time (:data:`COLUMN_BYTES`), each key file once per batch, and a batch's bands paired
    in ``jobs`` threads (numpy's sorts and comparisons run without the GIL). The pair codes
    are merged by one sort, so the result does not depend on ``jobs``."""
    task = progress.task("candidates", bands)
    n = max(work.n, 1)
    per = max(1, COLUMN_BYTES // max(8 * work.n, 1))
    batches = (
        band_columns(work.root, work.key_chunks, work.n, range(lo, min(lo + per, bands)))
        for lo in range(0, bands, per)
    )

    def one(keys: U64) -> tuple[U64, int, int]:
        return _band_codes([keys], n, bucket_window, lambda: progress.advance(task))

    if jobs <= 1:
        results = [one(keys) for batch in batches for keys in batch]
    else:
        with ThreadPoolExecutor(jobs) as pool:
            results = [result for batch in batches for result in pool.map(one, batch)]
    codes = [part for part, _, _ in results if part.shape[0]]
    merged = np.unique(np.concatenate(codes)) if codes else np.zeros(0, np.uint64)
    a, b = _pairs_of(merged, n)
    return a, b, sum(r[1] for r in results), max((r[2] for r in results), default=0)


def _band_codes(
    band_columns: Iterable[U64], n: int, bucket_window: int, advance: Callable[[], None]
) -> tuple[U64, int, int]:
    """The distinct codes ``a · n + b`` of the candidate pairs of these bands, how many buckets
    were capped and the largest bucket's size."""
    codes: list[U64] = []
    capped = 0
    largest = 0
    for keys in band_columns:
        a, b, c, big = bucket_pairs(keys, bucket_window)
        capped += c
        largest = max(largest, big)
        if a.shape[0]:
            codes.append(np.unique(a.astype(np.uint64) * np.uint64(n) + b.astype(np.uint64)))
        advance()
    merged = np.unique(np.concatenate(codes)) if codes else np.zeros(0, np.uint64)
    return merged, capped, largest


def _pairs_of(codes: U64, n: int) -> tuple[I64, I64]:
    if not codes.shape[0]:
        empty = np.zeros(0, np.int64)
        return empty, empty
    return (codes // np.uint64(n)).astype(np.int64), (codes % np.uint64(n)).astype(np.int64)


def winnowed_pairs(samples: U64, rows: I64, window: int) -> tuple[I64, I64]:
    """Pairs of documents that share a winnowed sample (``rows[i]`` is the document of
    ``samples[i]``, in input order), by the bucket rule of the LSH bands: a sample posted by
    many documents (boilerplate) pairs each with its ``window`` (bucket window) neighbours
    only."""
    a, b, _, _ = bucket_pairs(samples, window)
    da, db = rows[a], rows[b]
    other = da != db
    return np.minimum(da[other], db[other]), np.maximum(da[other], db[other])


def with_winnowed_pairs(
    a: I64, b: I64, samples: U64, rows: I64, n: int, bucket_window: int
) -> tuple[I64, I64]:
    """The candidate pairs ``a``–``b`` and those of shared winnowed samples, merged (distinct,
    in code order, as the bands' pairs are)."""
    wa, wb = winnowed_pairs(samples, rows, bucket_window)
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

"""A batch of texts' shingle hashes to what a collection keeps of each, in one nogil call.

:meth:`neardup.index.collection.Collection.analyze` makes, per text, its distinct shingle
values (with counts for a multiset), its winnowed samples and, under a length-adaptive spec,
its short form and the words it posts and looks up (:meth:`neardup.index.short.ShortRule.
samples`): a dozen NumPy and kernel calls whose Python glue holds the GIL.
:func:`index_parts` does the same for a whole batch (what
:func:`~neardup._kernels.sign_batch.shingle_words_batch` gives), so threads analyzing batches
run side by side. Each result is a sorted distinct set, so it is the same array the
per-document path makes (``tests/index/test_collection_jobs.py``).

Document ``d``'s input is ``hashes[starts[d]:ends[d]]`` (and ``short[short_starts[d]:
short_ends[d]]``); each output is joined with ``n + 1`` offsets.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from neardup._kernels.sign_batch import grown
from neardup._kernels.winnow import winnow

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


@njit(cache=True, nogil=True, inline="always")
def _distinct_count(ordered: U64) -> int:
    """How many distinct values a sorted array holds."""
    n = 0
    for i in range(ordered.shape[0]):
        if i == 0 or ordered[i] != ordered[i - 1]:
            n += 1
    return n


@njit(cache=True, nogil=True)
def _append_distinct(
    out: U64, size: int, values: U64, counts: I64, with_counts: bool
) -> tuple[U64, int, I64]:
    """Append the sorted distinct values of ``values`` to ``out[:size]`` (and, with
    ``with_counts``, how often each occurs to ``counts[:size]``); returns both grown."""
    ordered = np.sort(values)
    out = grown(out, size + _distinct_count(ordered))
    if with_counts:
        counts = grown(counts, out.shape[0])
    m = size
    for i in range(ordered.shape[0]):
        if i == 0 or ordered[i] != ordered[i - 1]:
            out[m] = ordered[i]
            if with_counts:
                counts[m] = 1
            m += 1
        elif with_counts:
            counts[m - 1] += 1
    return out, m, counts


@njit(cache=True, nogil=True)
def index_parts(
    hashes: U64,
    starts: I64,
    ends: I64,
    multiset: bool,
    window: int,
    short: U64,
    short_starts: I64,
    short_ends: I64,
    tokens: I64,
    short_rule: bool,
    short_below: int,
    short_window: int,
    tag: np.uint64,
) -> tuple[U64, I64, I64, U64, I64, U64, I64, U64, I64, I64]:
    """What the collection keeps of each document of a batch.

    ``multiset``: the values carry counts. ``window``: the winnowing window of the samples
    (0: no samples, the pseudo-matrix filter's collections). ``short_rule``: the
    length-adaptive rule is on (``short_below`` tokens, word minima of ``short_window`` short
    shingles, ``tag`` mixed into a short text's words); its short values (with counts for a
    multiset) are made, and, when there are samples, its posts and probes.

    Returns ``(values, counts, value_offsets, samples, sample_offsets, probes,
    probe_offsets, short_values, short_counts, short_offsets)``: counts are empty unless
    ``multiset`` (then they share their values' offsets), probes empty unless the rule adds
    them (their offsets all zero)."""
    n = starts.shape[0]
    no_counts = np.zeros(0, dtype=np.int64)
    values = np.empty(1024, dtype=np.uint64)
    counts = np.empty(1024 if multiset else 0, dtype=np.int64)
    value_offsets = np.zeros(n + 1, dtype=np.int64)
    samples = np.empty(256, dtype=np.uint64)
    sample_offsets = np.zeros(n + 1, dtype=np.int64)
    probes = np.empty(256 if short_rule and window > 0 else 0, dtype=np.uint64)
    probe_offsets = np.zeros(n + 1, dtype=np.int64)
    short_values = np.empty(256 if short_rule else 0, dtype=np.uint64)
    short_counts = np.empty(256 if short_rule and multiset else 0, dtype=np.int64)
    short_offsets = np.zeros(n + 1, dtype=np.int64)
    n_values = 0
    n_samples = 0
    n_probes = 0
    n_short = 0
    for d in range(n):
        own = hashes[starts[d] : ends[d]]
        values, n_values, counts = _append_distinct(values, n_values, own, counts, multiset)
        value_offsets[d + 1] = n_values
        if window > 0:
            chosen = winnow(np.ascontiguousarray(own), window)
        else:
            chosen = np.zeros(0, dtype=np.uint64)
        if short_rule:
            words_hashes = short[short_starts[d] : short_ends[d]]
            at = n_short
            short_values, n_short, short_counts = _append_distinct(
                short_values, n_short, words_hashes, short_counts, multiset
            )
            short_offsets[d + 1] = n_short
            words = short_values[at:n_short]
            if window > 0:
                if tokens[d] < short_below:
                    tagged = words ^ tag
                    posts = np.concatenate((chosen, tagged))
                    looks = np.concatenate((chosen, tagged, words))
                elif short_window > 0:
                    minima = winnow(np.ascontiguousarray(words_hashes), short_window)
                    posts = np.concatenate((chosen, minima))
                    looks = np.concatenate((chosen, minima ^ tag))
                else:
                    posts = chosen
                    looks = chosen
                samples, n_samples, _ = _append_distinct(
                    samples, n_samples, posts, no_counts, False
                )
                probes, n_probes, _ = _append_distinct(probes, n_probes, looks, no_counts, False)
            else:
                samples, n_samples, _ = _append_distinct(
                    samples, n_samples, chosen, no_counts, False
                )
        else:
            samples, n_samples, _ = _append_distinct(samples, n_samples, chosen, no_counts, False)
        sample_offsets[d + 1] = n_samples
        probe_offsets[d + 1] = n_probes
    return (
        values[:n_values].copy(),
        counts[: n_values if multiset else 0].copy(),
        value_offsets,
        samples[:n_samples].copy(),
        sample_offsets,
        probes[:n_probes].copy(),
        probe_offsets,
        short_values[:n_short].copy(),
        short_counts[: n_short if multiset else 0].copy(),
        short_offsets,
    )

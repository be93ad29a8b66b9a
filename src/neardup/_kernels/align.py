"""Hot loops of fragment alignment: seed matching, chaining seeds into passages, overlaps.

A *seed* is a pair ``(i, j)``: word shingle ``i`` of the query text has the same fingerprint as
shingle ``j`` of the source text. Seeds are chained greedily in query order into passages:
a seed extends a chain when it lies after the chain's last seed in BOTH texts and the tokens
left unmatched between them are at most ``gap`` in each text. Everything here works on plain
numpy arrays and returns arrays; the public wrapper is :mod:`neardup.passages.align`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]


@njit(cache=True, nogil=True)
def find_seeds(
    query: U64, source_sorted: U64, source_order: I64, max_occurrences: int
) -> tuple[I64, I64]:
    """All ``(i, j)`` with ``query[i] == source[j]``, ordered by ``i`` then ``j``.

    ``source_sorted`` is the source's shingle fingerprints sorted (stably), ``source_order``
    the positions they came from (``np.argsort(source, kind="stable")``). A fingerprint that
    occurs more than ``max_occurrences`` times in the source (boilerplate, a refrain) makes no
    seeds: it cannot tell one place from another and would only multiply the chains.
    """
    n = query.shape[0]
    lo = np.empty(n, dtype=np.int64)
    hi = np.empty(n, dtype=np.int64)
    total = 0
    for i in range(n):
        a = np.searchsorted(source_sorted, query[i], side="left")
        b = np.searchsorted(source_sorted, query[i], side="right")
        if b - a > max_occurrences:
            b = a
        lo[i] = a
        hi[i] = b
        total += b - a
    seeds_i = np.empty(total, dtype=np.int64)
    seeds_j = np.empty(total, dtype=np.int64)
    pos = 0
    for i in range(n):
        first = pos
        for t in range(lo[i], hi[i]):
            seeds_i[pos] = i
            seeds_j[pos] = source_order[t]
            pos += 1
        # a stable argsort keeps equal fingerprints in source order already; make sure anyway
        if pos - first > 1:
            seeds_j[first:pos] = np.sort(seeds_j[first:pos])
    return seeds_i, seeds_j


@njit(cache=True, nogil=True)
def chain_seeds(
    seeds_i: I64,
    seeds_j: I64,
    k: int,
    n_tokens_a: int,
    n_tokens_b: int,
    gap: int,
) -> tuple[I64, I64, I64, I64, I64, I64, I64]:
    """Chain seeds (sorted by ``i`` then ``j``) into passages.

    Seed ``(i, j)`` covers query tokens ``[i, min(i + k, n_tokens_a))`` and source tokens
    ``[j, min(j + k, n_tokens_b))``. It may extend an active chain whose last seed ``(li, lj)``
    has ``li < i``, ``lj < j`` and at most ``gap`` unmatched tokens between the two seeds in
    each text; the cost of the step is ``max(di, dj) + |di - dj|`` (near, and on the same
    diagonal, is cheap). The seeds of one query position compete: the cheapest (seed, chain)
    step is taken first, each chain takes at most one seed per position, and a seed that finds
    no chain starts a new one — so a repeated phrase in the source cannot pull a seed away from
    the diagonal it continues. A chain is closed once no later seed can reach it.

    Returns per chain: ``a_first, a_end, b_first, b_end`` (token ranges, end exclusive) and
    ``matched_a, matched_b`` (tokens covered by its seeds in each text); then per seed, the
    chain it joined.
    """
    n = seeds_i.shape[0]
    seed_chain = np.empty(n, dtype=np.int64)
    a_first = np.empty(n, dtype=np.int64)
    b_first = np.empty(n, dtype=np.int64)
    last_i = np.empty(n, dtype=np.int64)
    last_j = np.empty(n, dtype=np.int64)
    matched_a = np.empty(n, dtype=np.int64)
    matched_b = np.empty(n, dtype=np.int64)
    n_chains = 0
    active = np.empty(n, dtype=np.int64)
    n_active = 0
    reach = gap + k  # a seed at i may join a chain whose last seed is at i - reach or after
    assigned = np.empty(n, dtype=np.int64)  # per seed of the current group: its chain, or -1
    s = 0
    while s < n:
        i = seeds_i[s]
        g_end = s
        while g_end < n and seeds_i[g_end] == i:
            g_end += 1
        # close chains no seed from here on can extend (seeds come in ascending i)
        kept = 0
        for t in range(n_active):
            c = active[t]
            if last_i[c] >= i - reach:
                active[kept] = c
                kept += 1
        n_active = kept
        for q in range(s, g_end):
            assigned[q] = -1
        # cheapest (seed, chain) steps first; chains extended at this i are no longer candidates
        while True:
            best_q = -1
            best_c = -1
            best_cost = 1 << 62
            for q in range(s, g_end):
                if assigned[q] >= 0:
                    continue
                j = seeds_j[q]
                for t in range(n_active):
                    c = active[t]
                    if last_i[c] == i:
                        continue
                    di = i - last_i[c]
                    dj = j - last_j[c]
                    if dj < 1 or di > reach or dj > reach:
                        continue
                    cost = max(di, dj) + abs(di - dj)
                    if cost < best_cost:
                        best_cost = cost
                        best_q = q
                        best_c = c
            if best_q < 0:
                break
            j = seeds_j[best_q]
            c = best_c
            # seeds overlap when they are closer than k: count only the new tokens
            cover_a = min(i + k, n_tokens_a) - i
            cover_b = min(j + k, n_tokens_b) - j
            matched_a[c] += min(cover_a, min(i + k, n_tokens_a) - min(last_i[c] + k, n_tokens_a))
            matched_b[c] += min(cover_b, min(j + k, n_tokens_b) - min(last_j[c] + k, n_tokens_b))
            last_i[c] = i
            last_j[c] = j
            assigned[best_q] = c
            seed_chain[best_q] = c
        for q in range(s, g_end):
            if assigned[q] >= 0:
                continue
            j = seeds_j[q]
            c = n_chains
            n_chains += 1
            a_first[c] = i
            b_first[c] = j
            matched_a[c] = min(i + k, n_tokens_a) - i
            matched_b[c] = min(j + k, n_tokens_b) - j
            last_i[c] = i
            last_j[c] = j
            seed_chain[q] = c
            active[n_active] = c
            n_active += 1
        s = g_end
    a_end = np.empty(n_chains, dtype=np.int64)
    b_end = np.empty(n_chains, dtype=np.int64)
    for c in range(n_chains):
        a_end[c] = min(last_i[c] + k, n_tokens_a)
        b_end[c] = min(last_j[c] + k, n_tokens_b)
    return (
        a_first[:n_chains].copy(),
        a_end,
        b_first[:n_chains].copy(),
        b_end,
        matched_a[:n_chains].copy(),
        matched_b[:n_chains].copy(),
        seed_chain,
    )


@njit(cache=True, nogil=True)
def matched_mask(
    seeds: I64, seed_chain: I64, kept: npt.NDArray[np.bool_], k: int, n_tokens: int
) -> npt.NDArray[np.bool_]:
    """Per token, whether a seed of a kept chain covers it (``seeds``: the seeds' positions in
    one text; ``kept``: a mask over the chains)."""
    mask = np.zeros(n_tokens, dtype=np.bool_)
    for s in range(seeds.shape[0]):
        if kept[seed_chain[s]]:
            for x in range(seeds[s], min(seeds[s] + k, n_tokens)):
                mask[x] = True
    return mask


@njit(cache=True, nogil=True)
def select_non_overlapping(
    a_first: I64, a_end: I64, score: I64, n_tokens_a: int
) -> npt.NDArray[np.bool_]:
    """Keep chains greedily by descending ``score`` while their query ranges stay disjoint.

    Ties go to the chain that starts first. Returns a mask over the chains.
    """
    n = a_first.shape[0]
    keep = np.zeros(n, dtype=np.bool_)
    taken = np.zeros(n_tokens_a, dtype=np.bool_)
    order = np.argsort(-score * (n_tokens_a + 1) + a_first, kind="mergesort")
    for t in range(n):
        c = order[t]
        free = True
        for x in range(a_first[c], a_end[c]):
            if taken[x]:
                free = False
                break
        if free:
            keep[c] = True
            for x in range(a_first[c], a_end[c]):
                taken[x] = True
    return keep


@njit(cache=True, nogil=True)
def covered_tokens(first: I64, end: I64, n_tokens: int) -> int:
    """How many of ``n_tokens`` tokens lie in the union of the ranges ``[first, end)``."""
    mask = np.zeros(n_tokens, dtype=np.bool_)
    for t in range(first.shape[0]):
        for x in range(first[t], end[t]):
            mask[x] = True
    return int(np.count_nonzero(mask))

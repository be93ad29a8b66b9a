"""Hot loops of rewrite detection: matching sentences one to one and grouping them into passages.

Everything here works on plain numpy arrays and returns arrays; the public wrapper is
:mod:`neardup.passages.rewrites`. A *match* is a pair ``(i, j)``: sentence ``i`` of the query is
taken as
a rewrite of sentence ``j`` of the source.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
B1 = npt.NDArray[np.bool_]


@njit(cache=True, nogil=True)
def pair_scores(
    a_ptr: I64, a_ids: I64, b_ptr: I64, b_ids: I64, weights: F64, floor: float
) -> tuple[I64, I64, F64]:
    """The cosine of every query sentence with every source sentence it shares a term with,
    for the pairs scoring at least ``floor``: ``(i, j, score)`` ordered by ``i`` then ``j``.

    A sentence is the set of its distinct term ids (``ids[ptr[s]:ptr[s + 1]]``, no repeats);
    a term weighs ``weights[term]`` (its IDF), so the cosine is the sum of the shared terms'
    squared weights over the product of the two sentences' norms. Pairs sharing nothing are
    never visited: the source's sentences are reached through an inverted list per term.
    """
    n_a = a_ptr.shape[0] - 1
    n_b = b_ptr.shape[0] - 1
    n_terms = weights.shape[0]
    norm_a = np.zeros(n_a, dtype=np.float64)
    for i in range(n_a):
        for p in range(a_ptr[i], a_ptr[i + 1]):
            norm_a[i] += weights[a_ids[p]] ** 2
    norm_b = np.zeros(n_b, dtype=np.float64)
    for j in range(n_b):
        for p in range(b_ptr[j], b_ptr[j + 1]):
            norm_b[j] += weights[b_ids[p]] ** 2
    # the source's inverted lists: for each term, the sentences holding it (in order)
    starts = np.zeros(n_terms + 1, dtype=np.int64)
    for p in range(b_ids.shape[0]):
        starts[b_ids[p] + 1] += 1
    for t in range(n_terms):
        starts[t + 1] += starts[t]
    fill = starts[:-1].copy()
    holders = np.empty(b_ids.shape[0], dtype=np.int64)
    for j in range(n_b):
        for p in range(b_ptr[j], b_ptr[j + 1]):
            t = b_ids[p]
            holders[fill[t]] = j
            fill[t] += 1
    acc = np.zeros(n_b, dtype=np.float64)
    touched = np.empty(n_b, dtype=np.int64)
    out_i = np.empty(16, dtype=np.int64)
    out_j = np.empty(16, dtype=np.int64)
    out_s = np.empty(16, dtype=np.float64)
    count = 0
    for i in range(n_a):
        n_touched = 0
        for p in range(a_ptr[i], a_ptr[i + 1]):
            t = a_ids[p]
            w2 = weights[t] ** 2
            for q in range(starts[t], starts[t + 1]):
                j = holders[q]
                if acc[j] == 0.0:
                    touched[n_touched] = j
                    n_touched += 1
                acc[j] += w2
        row = np.sort(touched[:n_touched])
        for r in range(n_touched):
            j = row[r]
            score = acc[j] / np.sqrt(norm_a[i] * norm_b[j])
            acc[j] = 0.0
            if score < floor:
                continue
            if count == out_i.shape[0]:
                out_i = np.concatenate((out_i, np.empty(count, dtype=np.int64)))
                out_j = np.concatenate((out_j, np.empty(count, dtype=np.int64)))
                out_s = np.concatenate((out_s, np.empty(count, dtype=np.float64)))
            out_i[count] = i
            out_j[count] = j
            out_s[count] = min(score, 1.0)
            count += 1
    return out_i[:count], out_j[:count], out_s[:count]


@njit(cache=True, nogil=True)
def match_sentences(
    n_a: int,
    n_b: int,
    cand_i: I64,
    cand_j: I64,
    cand_s: F64,
    threshold: float,
    hole_threshold: float,
    window: int,
) -> tuple[I64, F64]:
    """Each query sentence's partner in the source (``-1``: none) and the pair's score.

    ``cand_*`` are the candidate pairs (ordered by ``i`` then ``j``). Greedy one-to-one
    matching, best pair first: a pair is taken when its score is at least ``threshold`` and
    both sentences are still free; ties go to the smaller ``i``, then the smaller ``j``, so the
    result depends on the scores alone. Greedy rather than a monotone programme because
    rewriters move sentences around; the order is judged afterwards, when matches are grouped
    into passages (``window``).

    Then matches extend to their neighbours: an unmatched query sentence next to a matched one
    takes the best free source sentence within ``window`` sentences of that one's partner if
    their pair scores at least ``hole_threshold`` (a heavily reworded sentence inside or at the
    edge of a rewritten passage); forward and backward sweeps repeat until nothing changes.
    """
    partner = np.full(n_a, -1, dtype=np.int64)
    partner_score = np.zeros(n_a, dtype=np.float64)
    taken_b = np.zeros(n_b, dtype=np.bool_)
    count = cand_i.shape[0]
    # best first; a stable sort of the negated scores keeps (i, j) order among equal scores
    order = np.argsort(-cand_s, kind="mergesort")
    for t in range(count):
        c = order[t]
        if cand_s[c] < threshold:
            break
        i = cand_i[c]
        j = cand_j[c]
        if partner[i] >= 0 or taken_b[j]:
            continue
        partner[i] = j
        partner_score[i] = cand_s[c]
        taken_b[j] = True
    row_start = np.searchsorted(cand_i, np.arange(n_a + 1))
    changed = True
    while changed:
        changed = False
        for sweep in range(2):
            for step in range(n_a):
                i = step if sweep == 0 else n_a - 1 - step
                if partner[i] >= 0:
                    continue
                best_j = -1
                best_s = hole_threshold
                for c in range(row_start[i], row_start[i + 1]):
                    j = cand_j[c]
                    if taken_b[j] or cand_s[c] < best_s or (best_j >= 0 and cand_s[c] == best_s):
                        continue
                    near = False
                    for k in (i - 1, i + 1):
                        if 0 <= k < n_a and partner[k] >= 0 and abs(j - partner[k]) <= window:
                            near = True
                    if near:
                        best_j = j
                        best_s = cand_s[c]
                if best_j >= 0:
                    partner[i] = best_j
                    partner_score[i] = best_s
                    taken_b[best_j] = True
                    changed = True
    return partner, partner_score


@njit(cache=True, nogil=True)
def group_passages(partner: I64, blank: B1, window: int) -> tuple[I64, I64]:
    """Runs of matched query sentences that form one passage: ``(first, end)`` sentence ranges.

    Consecutive query sentences with partners join one passage when the partners lie within
    ``window`` sentences of each other in the source (either way: sentences moved inside a
    passage stay in it). Sentences without tokens (``blank``: a heading of stop words, a line
    of markup) neither break a run nor join it.
    """
    n = partner.shape[0]
    firsts = np.empty(n, dtype=np.int64)
    ends = np.empty(n, dtype=np.int64)
    count = 0
    current = -1
    last_matched = -1
    for i in range(n):
        if blank[i]:
            continue
        j = partner[i]
        if j < 0:
            if current >= 0:
                firsts[count] = current
                ends[count] = last_matched + 1
                count += 1
                current = -1
            continue
        if current >= 0 and abs(j - partner[last_matched]) > window:
            firsts[count] = current
            ends[count] = last_matched + 1
            count += 1
            current = -1
        if current < 0:
            current = i
        last_matched = i
    if current >= 0:
        firsts[count] = current
        ends[count] = last_matched + 1
        count += 1
    return firsts[:count], ends[:count]


@njit(cache=True, nogil=True)
def best_two(keys: I64, others: I64, scores: F64, n: int) -> tuple[F64, I64, F64]:
    """For each of ``n`` sentences, its best score over the candidate pairs naming it in
    ``keys`` (``0.0`` when none), the partner of that best pair in ``others`` (``-1``) and its
    second-best score: what a pair's margin over its rivals is read from."""
    best = np.zeros(n, dtype=np.float64)
    best_at = np.full(n, -1, dtype=np.int64)
    second = np.zeros(n, dtype=np.float64)
    for c in range(keys.shape[0]):
        k = keys[c]
        s = scores[c]
        if s > best[k]:
            second[k] = best[k]
            best[k] = s
            best_at[k] = others[c]
        elif s > second[k]:
            second[k] = s
    return best, best_at, second


@njit(cache=True, nogil=True)
def pair_margins(
    rows: I64,
    cols: I64,
    scores: F64,
    row_best: F64,
    row_best_at: I64,
    row_second: F64,
    col_best: F64,
    col_best_at: I64,
    col_second: F64,
) -> F64:
    """The margin of each matched pair ``(rows[k], cols[k])``: its score less the best score
    either sentence reaches with any OTHER sentence of the other text (its rivals)."""
    out = np.empty(rows.shape[0], dtype=np.float64)
    for k in range(rows.shape[0]):
        i = rows[k]
        j = cols[k]
        rival_a = row_second[i] if row_best_at[i] == j else row_best[i]
        rival_b = col_second[j] if col_best_at[j] == i else col_best[j]
        out[k] = scores[k] - max(rival_a, rival_b)
    return out

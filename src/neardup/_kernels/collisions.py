"""Kernels for counting fingerprint collisions over the distinct shingles of a corpus.

Distinct shingles are told apart by a 128-bit identity of their text (two independent 64-bit
hashes). :func:`insert_new` keeps a set of identities in an open-addressing table (linear
probing, power-of-two capacity) and marks the first occurrence of each, so a corpus streams
through chunk by chunk and only its distinct shingles are kept. :func:`equal_runs` counts the
runs of equal values in a sorted array: the collisions of one hash family.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

U64 = npt.NDArray[np.uint64]


@njit(cache=True, nogil=True)
def insert_new(
    table_hi: U64,
    table_lo: U64,
    used: npt.NDArray[np.bool_],
    hi: U64,
    lo: U64,
    limit: int,
) -> tuple[npt.NDArray[np.bool_], int]:
    """Insert the identities ``(hi[i], lo[i])`` in order; ``True`` where one was new.

    Stops adding once ``limit`` new identities were added in this call (later ones are
    marked ``False`` and not inserted). The table must have room: the caller keeps its load
    below one. ``hi`` is a well-mixed hash, so its low bits pick the slot.
    """
    mask = np.uint64(table_hi.shape[0] - 1)
    m = hi.shape[0]
    new = np.zeros(m, dtype=np.bool_)
    added = 0
    for i in range(m):
        if added >= limit:
            break
        slot = hi[i] & mask
        while used[slot]:
            if table_hi[slot] == hi[i] and table_lo[slot] == lo[i]:
                break
            slot = (slot + np.uint64(1)) & mask
        if not used[slot]:
            used[slot] = True
            table_hi[slot] = hi[i]
            table_lo[slot] = lo[i]
            new[i] = True
            added += 1
    return new, added


@njit(cache=True, nogil=True)
def rehash(
    table_hi: U64, table_lo: U64, used: npt.NDArray[np.bool_], capacity: int
) -> tuple[U64, U64, npt.NDArray[np.bool_]]:
    """The same set of identities in a table of ``capacity`` slots (a power of two)."""
    new_hi = np.zeros(capacity, dtype=np.uint64)
    new_lo = np.zeros(capacity, dtype=np.uint64)
    new_used = np.zeros(capacity, dtype=np.bool_)
    mask = np.uint64(capacity - 1)
    for s in range(table_hi.shape[0]):
        if not used[s]:
            continue
        slot = table_hi[s] & mask
        while new_used[slot]:
            slot = (slot + np.uint64(1)) & mask
        new_used[slot] = True
        new_hi[slot] = table_hi[s]
        new_lo[slot] = table_lo[s]
    return new_hi, new_lo, new_used


@njit(cache=True, nogil=True)
def equal_runs(
    sorted_values: npt.NDArray[np.uint64] | npt.NDArray[np.uint32],
) -> tuple[int, int, int]:
    """Over runs of equal neighbours of a sorted array, of lengths ``r``:
    ``(sum r(r-1)/2, number of runs with r >= 2, sum (r - 1))`` — colliding pairs, values
    shared by several items, and items lost when the values are made distinct."""
    n = sorted_values.shape[0]
    pairs = 0
    shared = 0
    lost = 0
    i = 0
    while i < n:
        j = i + 1
        while j < n and sorted_values[j] == sorted_values[i]:
            j += 1
        r = j - i
        if r > 1:
            pairs += r * (r - 1) // 2
            shared += 1
            lost += r - 1
        i = j
    return pairs, shared, lost


@njit(cache=True, nogil=True)
def equal_runs_wide(
    sorted_hi: npt.NDArray[np.uint64], lo: npt.NDArray[np.uint64]
) -> tuple[int, int, int]:
    """:func:`equal_runs` over 128-bit values given as ``(hi, lo)`` halves, sorted by ``hi``
    only: the (rare) runs of equal ``hi`` are sorted by ``lo`` here, so the caller needs one
    plain sort, not a two-key one."""
    n = sorted_hi.shape[0]
    pairs = 0
    shared = 0
    lost = 0
    i = 0
    while i < n:
        j = i + 1
        while j < n and sorted_hi[j] == sorted_hi[i]:
            j += 1
        if j - i > 1:
            run = np.sort(lo[i:j])
            p, s, q = equal_runs(run)
            pairs += p
            shared += s
            lost += q
        i = j
    return pairs, shared, lost

"""The dedup write stage's byte loops: where each JSONL record's kept bytes end, and the output
records (each record's own bytes, then its added fields) assembled into one buffer, so no Python
code runs per record (:mod:`neardup.corpus.splice`)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]


@njit(cache=True, nogil=True)
def record_stops(data: U8, starts: I64, ends: I64, out: I64) -> None:
    """``out[i]``: where record ``i``'s bytes end once its closing brace (the byte before
    ``ends[i]``) and the whitespace before it are cut, as ``bytes.rstrip`` cuts (ASCII
    whitespace: 9–13 and 32), never before ``starts[i]``."""
    for i in range(starts.shape[0]):
        start = starts[i]
        stop = ends[i] - 1
        while stop > start:
            c = data[stop - 1]
            if c == 32 or (c >= 9 and c <= 13):
                stop -= 1
            else:
                break
        out[i] = stop


@njit(cache=True, nogil=True, inline="always")
def _put(out: U8, at: int, src: U8, lo: int, hi: int) -> int:
    """``src[lo:hi]`` copied to ``out[at:]``. Unsigned indices: numba then checks no index for
    a negative (wrap-around) one, and LLVM makes the loop a vectorized copy, about 4× faster
    than numba's slice assignment."""
    n = np.uint64(hi - lo)
    to = np.uint64(at)
    frm = np.uint64(lo)
    for j in range(n):
        out[to + j] = src[frm + j]
    return at + hi - lo


@njit(cache=True, nogil=True)
def fill_records(
    out: U8,
    lo: int,
    hi: int,
    out_offsets: I64,
    src: U8,
    src_base: int,
    starts: I64,
    stops: I64,
    override: I64,
    over_blob: U8,
    over_offsets: I64,
    group: I64,
    rep: I64,
    sim_code: I64,
    id_blob: U8,
    id_offsets: I64,
    sim_blob: U8,
    sim_offsets: I64,
    fixed: U8,
    fixed_offsets: I64,
) -> int:
    """Records ``lo``–``hi`` into ``out`` (which starts at ``out_offsets[lo]``; a record with
    no bytes there is not written): each its own bytes (``src`` holds the file from
    ``src_base``; ``starts``–``stops``) or, when ``override[i] ≥ 0``, that re-encoded head of
    ``over_blob``; then the added fields from the pieces of ``fixed`` (``, "group": ``,
    the kept and not-kept ``, "kept": …, "similarity": ``, ``, "representative": ``, ``}``
    and a newline) and the JSON of the group's id, the similarity and the kept record's id.
    Returns the bytes written (the caller checks them against ``out_offsets``)."""
    base = out_offsets[lo]
    at = 0
    for i in range(lo, hi):
        if out_offsets[i + 1] == out_offsets[i]:
            continue
        k = override[i]
        if k < 0:
            at = _put(out, at, src, starts[i] - src_base, stops[i] - src_base)
        else:
            at = _put(out, at, over_blob, over_offsets[k], over_offsets[k + 1])
        at = _put(out, at, fixed, fixed_offsets[0], fixed_offsets[1])
        g = group[i]
        at = _put(out, at, id_blob, id_offsets[g], id_offsets[g + 1])
        r = rep[i]
        kept = 1 if r == i else 2
        at = _put(out, at, fixed, fixed_offsets[kept], fixed_offsets[kept + 1])
        c = sim_code[i]
        at = _put(out, at, sim_blob, sim_offsets[c], sim_offsets[c + 1])
        at = _put(out, at, fixed, fixed_offsets[3], fixed_offsets[4])
        at = _put(out, at, id_blob, id_offsets[r], id_offsets[r + 1])
        at = _put(out, at, fixed, fixed_offsets[4], fixed_offsets[5])
        if at != out_offsets[i + 1] - base:
            return -1 - i
    return at

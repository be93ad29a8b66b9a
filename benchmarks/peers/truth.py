"""The exact truth of ``benchmarks/dedup_peers.py``: every pair of documents whose Jaccard
resemblance of neardup's ``plain`` 5-word shingle fingerprint sets is at least 0.5, found by an
exact all-pairs similarity join, and the scores of a tool's pairs or clusters against it.

The join is prefix filtering (Chaudhuri et al.; Bayardo et al.'s All-Pairs): tokens are ranked
by how many documents hold them, rarest first; a set ``x`` of ``|x|`` tokens indexes its first
``|x| − ⌈0.5·|x|⌉ + 1`` tokens in that order, and two sets with J ≥ 0.5 must share one of those
prefix tokens. Each document probes the prefixes of the documents before it; every candidate
that passes the length bound (J ≥ 0.5 needs the smaller set at least half the larger) is scored
by a merge of the two sorted rank lists, so the answer is exact, not sampled.

Runs in the project's venv (numpy, numba, neardup). Cached in the cache folder as
``truth_<corpus stem>.npz``.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
F64 = npt.NDArray[np.float64]
#: The lowest resemblance the truth holds.
FLOOR = 0.5
_PIPELINE: Any = None


# --- fingerprints ---------------------------------------------------------------------------
def _init() -> None:
    global _PIPELINE
    from neardup.fingerprints.pipeline import Pipeline, make_spec

    _PIPELINE = Pipeline(make_spec("plain"))


def _fingerprint(lines: list[bytes]) -> list[npt.NDArray[np.uint64]]:
    return [_PIPELINE.fingerprints(json.loads(line).get("text") or "").values for line in lines]


def fingerprints(corpus: Path, workers: int) -> tuple[list[str], npt.NDArray[np.uint64], I64]:
    """Ids and the CSR fingerprint sets (flat sorted distinct values, offsets) of every record:
    ``Pipeline(make_spec("plain")).fingerprints``, what ``neardup dedup -p plain`` verifies."""
    with corpus.open("rb") as fh:
        lines = [line for line in fh if line.strip()]
    ids = [str(json.loads(line)["id"]) for line in lines]
    chunks = [lines[lo : lo + 500] for lo in range(0, len(lines), 500)]
    with mp.get_context("fork").Pool(workers, _init) as pool:
        sets = [s for part in pool.imap(_fingerprint, chunks) for s in part]
    offsets = np.zeros(len(sets) + 1, dtype=np.int64)
    np.cumsum([s.shape[0] for s in sets], out=offsets[1:])
    values = np.concatenate(sets) if sets else np.zeros(0, np.uint64)
    return ids, values, offsets


# --- the join -------------------------------------------------------------------------------
@njit(cache=True)
def _sort_slices(ranks: I32, offsets: I64) -> None:
    for d in range(offsets.shape[0] - 1):
        ranks[offsets[d] : offsets[d + 1]] = np.sort(ranks[offsets[d] : offsets[d + 1]])


@njit(cache=True)
def _overlap(a: I32, b: I32) -> int:
    i = 0
    j = 0
    n = 0
    while i < a.shape[0] and j < b.shape[0]:
        if a[i] == b[j]:
            n += 1
            i += 1
            j += 1
        elif a[i] < b[j]:
            i += 1
        else:
            j += 1
    return n


@njit(cache=True)
def _join(
    ranks: I32, offsets: I64, prefix: I64, post_off: I64, post_doc: I64
) -> tuple[I64, I64, I64, int]:
    """Pairs ``(y, x)``, ``y < x``, with J ≥ 0.5 and their overlaps; the candidate count."""
    n = offsets.shape[0] - 1
    mark = np.full(n, -1, dtype=np.int64)
    cap = 1 << 16
    out_a = np.empty(cap, dtype=np.int64)
    out_b = np.empty(cap, dtype=np.int64)
    out_s = np.empty(cap, dtype=np.int64)
    m = 0
    candidates = 0
    for x in range(n):
        sx = offsets[x + 1] - offsets[x]
        xs = ranks[offsets[x] : offsets[x + 1]]
        for k in range(prefix[x]):
            t = xs[k]
            for q in range(post_off[t], post_off[t + 1]):
                y = post_doc[q]
                if y >= x:
                    break
                if mark[y] == x:
                    continue
                mark[y] = x
                sy = offsets[y + 1] - offsets[y]
                if 2 * sy < sx or 2 * sx < sy:
                    continue
                candidates += 1
                shared = _overlap(xs, ranks[offsets[y] : offsets[y + 1]])
                if 3 * shared >= sx + sy:  # shared / (sx + sy − shared) ≥ 0.5
                    if m == cap:
                        cap *= 2
                        grown_a = np.empty(cap, dtype=np.int64)
                        grown_b = np.empty(cap, dtype=np.int64)
                        grown_s = np.empty(cap, dtype=np.int64)
                        grown_a[:m] = out_a[:m]
                        grown_b[:m] = out_b[:m]
                        grown_s[:m] = out_s[:m]
                        out_a, out_b, out_s = grown_a, grown_b, grown_s
                    out_a[m] = y
                    out_b[m] = x
                    out_s[m] = shared
                    m += 1
    return out_a[:m], out_b[:m], out_s[:m], candidates


def all_pairs(values: npt.NDArray[np.uint64], offsets: I64) -> tuple[I64, I64, F64, int]:
    """Every pair ``a < b`` with exact J ≥ 0.5, its J, and the number of candidates scored."""
    uniq, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    del uniq
    order = np.argsort(counts, kind="stable")  # rarest first; ties by value
    rank_of = np.empty(order.shape[0], dtype=np.int32)
    rank_of[order] = np.arange(order.shape[0], dtype=np.int32)
    ranks = rank_of[inverse.ravel()]
    del inverse, rank_of, order
    _sort_slices(ranks, offsets)
    sizes = np.diff(offsets)
    prefix = np.where(sizes > 0, sizes - np.ceil(FLOOR * sizes).astype(np.int64) + 1, 0)
    n = sizes.shape[0]
    doc = np.repeat(np.arange(n, dtype=np.int64), prefix)
    first = np.repeat(offsets[:-1] - np.concatenate(([0], np.cumsum(prefix)[:-1])), prefix)
    tokens = ranks[first + np.arange(doc.shape[0], dtype=np.int64)]
    by_token = np.argsort(tokens, kind="stable")  # documents ascending within a token
    post_doc = doc[by_token]
    post_off = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(tokens, minlength=counts.shape[0]), out=post_off[1:])
    a, b, shared, candidates = _join(ranks, offsets, prefix, post_off, post_doc)
    union = sizes[a] + sizes[b] - shared
    return a, b, shared / union, candidates


# --- the truth and the scores ---------------------------------------------------------------
@dataclass
class Truth:
    ids: list[str]
    a: I64
    b: I64
    j: F64
    candidates: int
    seconds: float
    threshold: float = 0.7

    @property
    def n(self) -> int:
        return len(self.ids)

    def codes(self) -> npt.NDArray[np.uint64]:
        return self.a.astype(np.uint64) * np.uint64(self.n) + self.b.astype(np.uint64)

    def summary(self) -> dict[str, Any]:
        high = int((self.j >= self.threshold).sum())
        return {
            "pairs_high": high,
            "pairs_mid": int(self.j.shape[0] - high),
            "candidates": self.candidates,
            "seconds": round(self.seconds, 1),
        }

    def check_scores(self, pairs_file: Path) -> float:
        """The largest difference between a tool's reported resemblance (third column) and
        the truth's J over the pairs both hold: 0 when they measure the same sets."""
        row = {d: i for i, d in enumerate(self.ids)}
        truth = dict(zip(self.codes().tolist(), self.j.tolist(), strict=True))
        worst = 0.0
        with pairs_file.open(encoding="utf-8") as fh:
            for line in fh:
                a_id, b_id, value = line.rstrip("\n").split("\t")
                a, b = sorted((row[a_id], row[b_id]))
                j = truth.get(a * self.n + b)
                if j is not None:
                    worst = max(worst, abs(j - float(value)))
        return round(worst, 6)


def load_or_make_truth(corpus: Path, docs: int, cache: Path, workers: int) -> Truth:
    path = cache / f"truth_{corpus.stem}.npz"
    if path.exists():
        z = np.load(path, allow_pickle=False)
        if int(z["docs"]) == docs:
            return Truth(
                [str(x) for x in z["ids"].tolist()],
                z["a"],
                z["b"],
                z["j"],
                int(z["candidates"]),
                float(z["seconds"]),
            )
    t0 = time.perf_counter()
    ids, values, offsets = fingerprints(corpus, workers)
    a, b, j, candidates = all_pairs(values, offsets)
    seconds = time.perf_counter() - t0
    np.savez(
        path,
        ids=np.asarray(ids),
        a=a,
        b=b,
        j=j,
        candidates=candidates,
        seconds=seconds,
        docs=docs,
    )
    return Truth(ids, a, b, j, candidates, seconds)


def score(truth: Truth, found: Path, reports: str, threshold: float) -> dict[str, Any]:
    """Recall of the truth pairs with J ≥ ``threshold`` and in [0.5, threshold), precision
    (the share of reported pairs with J ≥ ``threshold``, and ≥ 0.5). ``reports``: ``pairs``
    (a tab-separated id pair a line) or ``clusters`` (a cluster's ids a line; a pair is found
    when both share a cluster, and its reported pairs are all pairs inside its clusters)."""
    truth.threshold = threshold
    row = {d: i for i, d in enumerate(truth.ids)}
    n = truth.n
    high = truth.j >= threshold
    out: dict[str, Any] = {"reports": reports}
    with found.open(encoding="utf-8") as fh:
        lines = [line.rstrip("\n").split("\t") for line in fh if line.strip()]
    if reports == "clusters":
        label = np.arange(n, dtype=np.int64) + n  # alone: a label of its own
        reported = 0
        in_clusters = 0
        for c, members in enumerate(lines):
            label[[row[m] for m in members]] = c
            reported += len(members) * (len(members) - 1) // 2
            in_clusters += len(members)
        hit = label[truth.a] == label[truth.b]
        out["clusters"] = len(lines)
        out["removed"] = in_clusters - len(lines)
    else:
        a = np.array([row[p[0]] for p in lines], dtype=np.int64)
        b = np.array([row[p[1]] for p in lines], dtype=np.int64)
        lo, hi = np.minimum(a, b).astype(np.uint64), np.maximum(a, b).astype(np.uint64)
        codes = np.unique(lo * np.uint64(n) + hi)
        reported = int(codes.shape[0])
        hit = np.isin(truth.codes(), codes)
    found_high = int((hit & high).sum())
    found_mid = int((hit & ~high).sum())
    out.update(
        pairs_reported=reported,
        recall_high=found_high / max(1, int(high.sum())),
        recall_mid=found_mid / max(1, int((~high).sum())),
        precision_high=found_high / reported if reported else None,
        precision_half=(found_high + found_mid) / reported if reported else None,
        missed_high=int(high.sum()) - found_high,
    )
    missed = truth.j[high & ~hit]
    if missed.shape[0]:
        out["missed_high_j"] = [round(float(np.quantile(missed, q)), 3) for q in (0, 0.5, 1)]
    return out

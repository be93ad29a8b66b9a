"""Quality measures: ROC AUC, precision/recall/F1 and the best threshold for scored pairs, the
adjusted Rand index for clusters, and PAN's character-level measures for reused fragments.

Why our own and not scikit-learn's: the curves, the best-F1 threshold and "recall at a
precision" all come from one sort of the scores, and the PAN measures exist nowhere in a
maintained library; the formulas are short and the tests check them against scikit-learn
where it has them. Conventions, kept the same everywhere:

* a pair is called a duplicate when ``score >= threshold``;
* precision with nothing predicted is 0.0, recall with no positives is 0.0;
* the best threshold is the score value that maximizes F1 (ties: the higher threshold);
* ROC AUC is the Mann–Whitney probability that a positive outscores a negative, ties
  counting one half; NaN when either class is missing.

The fragment measures follow Potthast et al., "An Evaluation Framework for Plagiarism
Detection" (COLING 2010), as used at PAN: a case ``s`` and a detection ``r`` are each the set
of characters they cover in the source *and* the suspicious document; ``r`` detects ``s`` when
both concern the same pair of documents and overlap in both; then (macro-averaged)

    precision   = 1/|R| Σ_r |∪_s (s ∩ r)| / |r|
    recall      = 1/|S| Σ_s |∪_r (s ∩ r)| / |s|
    granularity = 1/|S_R| Σ_{s ∈ S_R} |R_s|     (S_R: detected cases, R_s: their detections)
    plagdet     = F1 / log2(1 + granularity)
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import numpy.typing as npt

from neardup.eval.formats import Fragment

F64 = npt.NDArray[np.float64]
Labels = npt.ArrayLike


def _check(labels: Labels, scores: npt.ArrayLike) -> tuple[npt.NDArray[np.int8], F64]:
    y = np.asarray(labels).astype(np.int8, copy=False)
    s = np.asarray(scores, dtype=np.float64)
    if y.shape != s.shape or y.ndim != 1:
        raise ValueError(
            f"labels and scores must be 1-d of one length, got {y.shape} and {s.shape}"
        )
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite numbers")
    if np.any((y != 0) & (y != 1)):
        raise ValueError("labels must be 0 or 1")
    return y, s


def roc_auc(labels: Labels, scores: npt.ArrayLike) -> float:
    """Area under the ROC curve (Mann–Whitney U with average ranks for ties)."""
    y, s = _check(labels, scores)
    n_pos = int(y.sum())
    n_neg = int(y.shape[0] - n_pos)
    if n_pos == 0 or n_neg == 0:
        return math.nan
    order = np.argsort(s, kind="mergesort")
    sorted_s = s[order]
    ranks = np.empty(s.shape[0], dtype=np.float64)
    # average rank (1-based) of each run of equal scores
    boundaries = np.flatnonzero(np.diff(sorted_s)) + 1
    starts = np.concatenate(([0], boundaries))
    ends = np.concatenate((boundaries, [s.shape[0]]))
    run_rank = (starts + ends + 1) / 2.0
    ranks[order] = np.repeat(run_rank, ends - starts)
    u = ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2.0
    return float(u / (n_pos * n_neg))


@dataclass(frozen=True)
class Curve:
    """Counts at each distinct threshold, highest first: ``score >= thresholds[k]`` is positive."""

    thresholds: F64
    tp: npt.NDArray[np.int64]
    fp: npt.NDArray[np.int64]
    positives: int
    negatives: int

    @property
    def precision(self) -> F64:
        predicted = self.tp + self.fp
        return np.divide(self.tp, predicted, out=np.zeros(predicted.shape), where=predicted > 0)

    @property
    def recall(self) -> F64:
        return self.tp / self.positives if self.positives else np.zeros(self.tp.shape)

    @property
    def fpr(self) -> F64:
        return self.fp / self.negatives if self.negatives else np.zeros(self.fp.shape)

    @property
    def f1(self) -> F64:
        denominator = 2 * self.tp + self.fp + (self.positives - self.tp)
        return np.divide(
            2 * self.tp, denominator, out=np.zeros(self.tp.shape), where=denominator > 0
        )


def curve(labels: Labels, scores: npt.ArrayLike) -> Curve:
    """True and false positives at every distinct score used as the threshold."""
    y, s = _check(labels, scores)
    order = np.argsort(-s, kind="mergesort")
    s_desc = s[order]
    y_desc = y[order].astype(np.int64)
    positives = int(y.sum())
    if s.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Curve(np.zeros(0), empty, empty, 0, 0)
    # the last index of each run of equal scores
    last = np.concatenate((np.flatnonzero(np.diff(s_desc)), [s_desc.shape[0] - 1]))
    tp = np.cumsum(y_desc)[last]
    fp = (last + 1) - tp
    return Curve(
        s_desc[last],
        tp.astype(np.int64),
        fp.astype(np.int64),
        positives,
        int(y.shape[0]) - positives,
    )


@dataclass(frozen=True)
class Confusion:
    """Precision, recall and F1 at one threshold, and the counts they come from."""

    threshold: float
    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int
    tn: int

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


def at_threshold(labels: Labels, scores: npt.ArrayLike, threshold: float) -> Confusion:
    """Pairs with ``score >= threshold`` are called duplicates."""
    y, s = _check(labels, scores)
    predicted = s >= threshold
    tp = int(np.count_nonzero(predicted & (y == 1)))
    fp = int(np.count_nonzero(predicted & (y == 0)))
    fn = int(np.count_nonzero(~predicted & (y == 1)))
    tn = int(np.count_nonzero(~predicted & (y == 0)))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return Confusion(float(threshold), precision, recall, f1, tp, fp, fn, tn)


def best_threshold(labels: Labels, scores: npt.ArrayLike) -> Confusion:
    """The threshold (one of the scores) with the highest F1; ties go to the higher threshold."""
    c = curve(labels, scores)
    if c.thresholds.size == 0 or c.positives == 0:
        return at_threshold(labels, scores, math.inf)
    k = int(np.argmax(c.f1))
    return at_threshold(labels, scores, float(c.thresholds[k]))


def recall_at_precision(labels: Labels, scores: npt.ArrayLike, min_precision: float) -> Confusion:
    """The highest recall among thresholds whose precision is at least ``min_precision``
    (ties: the higher threshold); recall 0 at threshold +inf when none reaches it."""
    c = curve(labels, scores)
    ok = np.flatnonzero(c.precision >= min_precision)
    if ok.size == 0:
        return at_threshold(labels, scores, math.inf)
    recalls = c.recall[ok]
    k = int(ok[int(np.argmax(recalls))])
    return at_threshold(labels, scores, float(c.thresholds[k]))


# ---------------------------------------------------------------------------------------------
# clusters


def _codes(values: Sequence[object] | npt.ArrayLike) -> npt.NDArray[np.int64]:
    arr = values if isinstance(values, np.ndarray) else np.asarray([str(v) for v in values])  # type: ignore[union-attr]
    _, codes = np.unique(arr, return_inverse=True)
    return codes.astype(np.int64).ravel()


def _pairs(counts: npt.NDArray[np.int64]) -> int:
    return int(sum(int(c) * (int(c) - 1) // 2 for c in counts.tolist()))


@dataclass(frozen=True)
class PairConfusion:
    """Document pairs put together / apart by the truth and by the prediction."""

    together_both: int
    together_true_only: int
    together_pred_only: int
    apart_both: int

    @property
    def precision(self) -> float:
        predicted = self.together_both + self.together_pred_only
        return self.together_both / predicted if predicted else 0.0

    @property
    def recall(self) -> float:
        true = self.together_both + self.together_true_only
        return self.together_both / true if true else 0.0


def pair_confusion(
    truth: Sequence[object] | npt.ArrayLike, predicted: Sequence[object] | npt.ArrayLike
) -> PairConfusion:
    """How many of the n(n-1)/2 document pairs each labelling puts in one cluster."""
    t = _codes(truth)
    p = _codes(predicted)
    if t.shape != p.shape:
        raise ValueError("truth and prediction must label the same documents")
    n = int(t.shape[0])
    joint = np.unique(t * (int(p.max(initial=0)) + 1) + p, return_counts=True)[1]
    both = _pairs(joint)
    true_pairs = _pairs(np.bincount(t))
    pred_pairs = _pairs(np.bincount(p))
    total = n * (n - 1) // 2
    return PairConfusion(
        both, true_pairs - both, pred_pairs - both, total - true_pairs - pred_pairs + both
    )


def adjusted_rand_index(
    truth: Sequence[object] | npt.ArrayLike, predicted: Sequence[object] | npt.ArrayLike
) -> float:
    """Hubert and Arabie's adjusted Rand index (1.0 for identical partitions, ~0 for chance)."""
    c = pair_confusion(truth, predicted)
    tp, fn, fp, tn = c.together_both, c.together_true_only, c.together_pred_only, c.apart_both
    if fn == 0 and fp == 0:
        return 1.0
    return float(2 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn)))


# ---------------------------------------------------------------------------------------------
# fragments (PAN)


@dataclass(frozen=True)
class FragmentScores:
    """PAN's character-level measures over a set of cases and a set of detections."""

    precision: float
    recall: float
    granularity: float
    plagdet: float
    cases: int
    detections: int
    detected_cases: int

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


def _union_length(intervals: list[tuple[int, int]]) -> int:
    total = 0
    end = -1
    for a, b in sorted(intervals):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total


def _overlap(a0: int, a1: int, b0: int, b1: int) -> tuple[int, int] | None:
    lo, hi = max(a0, b0), min(a1, b1)
    return (lo, hi) if lo < hi else None


def _spans(f: Fragment) -> tuple[int, int, int, int]:
    return (
        f.source_offset,
        f.source_offset + f.source_length,
        f.suspicious_offset,
        f.suspicious_offset + f.suspicious_length,
    )


def fragment_scores(truth: Sequence[Fragment], detections: Sequence[Fragment]) -> FragmentScores:
    """Macro precision, recall, granularity and plagdet of ``detections`` against ``truth``."""
    by_pair: dict[tuple[str, str], list[int]] = defaultdict(list)
    for j, r in enumerate(detections):
        by_pair[(r.source_id, r.suspicious_id)].append(j)
    # per detection: the pieces of cases it covers, in the source and in the suspicious text
    det_src: list[list[tuple[int, int]]] = [[] for _ in detections]
    det_susp: list[list[tuple[int, int]]] = [[] for _ in detections]
    recall_sum = 0.0
    granularity_sum = 0
    detected = 0
    for s in truth:
        s0, s1, u0, u1 = _spans(s)
        size = (s1 - s0) + (u1 - u0)
        src_pieces: list[tuple[int, int]] = []
        susp_pieces: list[tuple[int, int]] = []
        hits = 0
        for j in by_pair.get((s.source_id, s.suspicious_id), ()):
            r0, r1, v0, v1 = _spans(detections[j])
            src = _overlap(s0, s1, r0, r1)
            susp = _overlap(u0, u1, v0, v1)
            if src is None or susp is None:
                continue
            hits += 1
            src_pieces.append(src)
            susp_pieces.append(susp)
            det_src[j].append(src)
            det_susp[j].append(susp)
        if size:
            recall_sum += (_union_length(src_pieces) + _union_length(susp_pieces)) / size
        if hits:
            detected += 1
            granularity_sum += hits
    precision_sum = 0.0
    for j, r in enumerate(detections):
        size = r.source_length + r.suspicious_length
        if size:
            precision_sum += (_union_length(det_src[j]) + _union_length(det_susp[j])) / size
    precision = precision_sum / len(detections) if detections else 0.0
    recall = recall_sum / len(truth) if truth else 0.0
    granularity = granularity_sum / detected if detected else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    plagdet = f1 / math.log2(1 + granularity)
    return FragmentScores(
        precision, recall, granularity, plagdet, len(truth), len(detections), detected
    )

"""Run a method over a dataset and report the measures: pairs, clusters, fragments.

Why apart from the CLI: the benchmarks put our methods and other tools' through the same
datasets in one process and need the same reports as ``neardup eval`` prints; both call these
functions. Reports are plain dicts (JSON-ready, keys stable): a pairs report always has
``n``, ``auc``, ``best_f1`` and ``best_threshold``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup.errors import DatasetError, require
from neardup.eval import metrics
from neardup.eval.formats import ClusterDataset, Fragment, PairDataset
from neardup.eval.methods import (
    FingerprintTable,
    FragmentDetector,
    NeighbourScorer,
    RetrievingScorer,
    Scorer,
    fingerprint_table,
    shared_candidates,
)
from neardup.fingerprints.pipeline import Pipeline
from neardup.spec import Spec

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
Progress = Callable[[int], None] | None

#: The pseudo-method that takes the scores written in the pairs file.
GIVEN = "given"

#: Below this many documents the clusters evaluation scores every pair.
ALL_PAIRS_LIMIT = 2000


def _level_name(level: float) -> str:
    return "-" if math.isnan(level) else f"{level:g}"


def _r(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 6)


# ---------------------------------------------------------------------------------------------
# pairs


def score_dataset(dataset: PairDataset, scorer: Scorer, progress: Progress = None) -> F64:
    """The method's score of every pair of ``dataset``."""
    features = scorer.features(dataset.texts, progress)
    scores = np.asarray(scorer.score(features, dataset.a, dataset.b), dtype=np.float64)
    if scores.shape != dataset.labels.shape:
        raise ValueError(f"the method returned {scores.shape[0]} scores for {len(dataset)} pairs")
    return scores


def given_scores(dataset: PairDataset) -> F64:
    """The ``score`` column of the file; every pair must have one."""
    missing = np.flatnonzero(np.isnan(dataset.scores))
    if missing.size:
        raise DatasetError(
            f"{dataset.path}: --method {GIVEN} needs a 'score' in every pair; "
            f"pair {int(missing[0]) + 1} (of {len(dataset)}) has none"
        )
    return dataset.scores


def pair_report(
    labels: npt.ArrayLike,
    scores: npt.ArrayLike,
    kinds: Sequence[str] | None = None,
    levels: npt.ArrayLike | None = None,
    *,
    threshold: float = 0.5,
    min_precision: float = 0.99,
) -> dict[str, Any]:
    """AUC, P/R/F1 at ``threshold`` and at the best threshold, recall at ``min_precision``;
    with kinds and levels, the same per kind of positive (against all negatives), recall per
    edit level, and the scores of each kind of negative."""
    y = np.asarray(labels).astype(np.int8)
    s = np.asarray(scores, dtype=np.float64)
    kinds = list(kinds) if kinds is not None else [""] * y.shape[0]
    lv = np.asarray(levels, dtype=np.float64) if levels is not None else np.full(y.shape[0], np.nan)
    at = metrics.at_threshold(y, s, threshold)
    best = metrics.best_threshold(y, s)
    rap = metrics.recall_at_precision(y, s, min_precision)
    report: dict[str, Any] = {
        "n": int(y.shape[0]),
        "positives": int(y.sum()),
        "negatives": int(y.shape[0] - y.sum()),
        "auc": _r(metrics.roc_auc(y, s)),
        "threshold": threshold,
        "precision": _r(at.precision),
        "recall": _r(at.recall),
        "f1": _r(at.f1),
        "best_threshold": _r(best.threshold) if math.isfinite(best.threshold) else None,
        "best_precision": _r(best.precision),
        "best_recall": _r(best.recall),
        "best_f1": _r(best.f1),
        "min_precision": min_precision,
        "recall_at_min_precision": _r(rap.recall),
        "threshold_at_min_precision": _r(rap.threshold) if math.isfinite(rap.threshold) else None,
    }
    kind_arr = np.asarray(kinds, dtype=object)
    negative = y == 0
    pos_kinds = sorted({k for k, label in zip(kinds, y.tolist(), strict=True) if label == 1})
    if len(pos_kinds) > 1 or (pos_kinds and pos_kinds[0]):
        by_kind: dict[str, Any] = {}
        by_level: dict[str, Any] = {}
        for kind in pos_kinds:
            mine = (kind_arr == kind) & (y == 1)
            subset = mine | negative
            ks = s[subset]
            ky = y[subset]
            kbest = metrics.best_threshold(ky, ks)
            krap = metrics.recall_at_precision(ky, ks, min_precision)
            by_kind[kind] = {
                "positives": int(mine.sum()),
                "auc": _r(metrics.roc_auc(ky, ks)),
                "recall": _r(float(np.mean(s[mine] >= threshold))),
                "best_f1": _r(kbest.f1),
                "best_threshold": _r(kbest.threshold) if math.isfinite(kbest.threshold) else None,
                "recall_at_min_precision": _r(krap.recall),
                "mean_score": _r(float(s[mine].mean())),
            }
            levels_here = sorted({float(v) for v in lv[mine] if not math.isnan(v)})
            if levels_here:
                rows = {}
                for level in levels_here:
                    at_level = mine & (lv == level)
                    ls = s[at_level]
                    rows[_level_name(level)] = {
                        "n": int(at_level.sum()),
                        "recall": _r(float(np.mean(ls >= threshold))),
                        "recall_at_best": _r(float(np.mean(ls >= best.threshold))),
                        "recall_at_min_precision": _r(float(np.mean(ls >= rap.threshold))),
                        "mean_score": _r(float(ls.mean())),
                        "median_score": _r(float(np.median(ls))),
                    }
                by_level[kind] = rows
        report["by_kind"] = by_kind
        if by_level:
            report["by_level"] = by_level
    neg_kinds = sorted({k for k, label in zip(kinds, y.tolist(), strict=True) if label == 0})
    if neg_kinds and (len(neg_kinds) > 1 or neg_kinds[0]):
        rows = {}
        for kind in neg_kinds:
            mine = (kind_arr == kind) & negative
            ns = s[mine]
            rows[kind] = {
                "n": int(mine.sum()),
                "false_positive_rate": _r(float(np.mean(ns >= threshold))),
                "false_positive_rate_at_best": _r(float(np.mean(ns >= best.threshold))),
                "mean_score": _r(float(ns.mean())),
                "max_score": _r(float(ns.max())),
            }
        report["negatives_by_kind"] = rows
    return report


def evaluate_pairs(
    dataset: PairDataset,
    scorer: Scorer | None,
    *,
    threshold: float = 0.5,
    min_precision: float = 0.99,
    progress: Progress = None,
) -> tuple[dict[str, Any], F64]:
    """The pairs report of ``scorer`` on ``dataset`` (``None``: the scores in the file), and
    the scores. A scorer that retrieves candidates first (the collection) also gets a
    ``retrieval`` section (:func:`retrieval_report`)."""
    found = None
    if scorer is None:
        scores = given_scores(dataset)
    elif isinstance(scorer, RetrievingScorer):
        features = scorer.features(dataset.texts, progress)
        scores = np.asarray(scorer.score(features, dataset.a, dataset.b), dtype=np.float64)
        found = np.asarray(scorer.retrieved(features, dataset.a, dataset.b), dtype=np.bool_)
    else:
        scores = score_dataset(dataset, scorer, progress)
    report = pair_report(
        dataset.labels,
        scores,
        dataset.kinds,
        dataset.levels,
        threshold=threshold,
        min_precision=min_precision,
    )
    if found is not None:
        report["retrieval"] = retrieval_report(dataset.labels, scores, found)
    return report, scores


def retrieval_report(
    labels: npt.ArrayLike, scores: npt.ArrayLike, found: npt.ArrayLike
) -> dict[str, Any]:
    """How a retrieving method's candidate generation did, apart from its ranking.

    ``recall``: the share of positive pairs it retrieved (an upper bound of the recall at any
    threshold); ``negatives_retrieved``: the share of negative pairs it retrieved;
    ``auc_retrieved``: ROC AUC among the retrieved pairs only (None without both classes).
    The report's own ``auc`` ranks every pair, the unretrieved ones at 0.
    """
    y = np.asarray(labels) == 1
    s = np.asarray(scores, dtype=np.float64)
    hit = np.asarray(found, dtype=np.bool_)
    positives, negatives = int(y.sum()), int((~y).sum())
    both = bool((hit & y).any() and (hit & ~y).any())
    return {
        "retrieved": int(hit.sum()),
        "recall": _r(int((hit & y).sum()) / positives) if positives else None,
        "negatives_retrieved": _r(int((hit & ~y).sum()) / negatives) if negatives else None,
        "auc_retrieved": _r(metrics.roc_auc(y[hit].astype(np.int8), s[hit])) if both else None,
    }


# ---------------------------------------------------------------------------------------------
# clusters


def links(scorer: Scorer, features: Any, threshold: float, n: int) -> tuple[I64, I64, F64]:
    """Every pair ``i < j`` of the ``n`` documents scoring at least ``threshold`` and above 0
    (two documents with nothing in common are never linked): the scorer's own ``neighbours``
    when it has one, otherwise every pair scored (small collections)."""
    if isinstance(scorer, NeighbourScorer):
        return scorer.neighbours(features, threshold)
    out_i: list[I64] = []
    out_j: list[I64] = []
    out_s: list[F64] = []
    i_all, j_all = np.triu_indices(n, k=1)
    chunk = 1 << 18
    for start in range(0, i_all.shape[0], chunk):
        i = i_all[start : start + chunk].astype(np.int64)
        j = j_all[start : start + chunk].astype(np.int64)
        s = np.asarray(scorer.score(features, i, j), dtype=np.float64)
        keep = (s >= threshold) & (s > 0)
        out_i.append(i[keep])
        out_j.append(j[keep])
        out_s.append(s[keep])
    if not out_i:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return np.concatenate(out_i), np.concatenate(out_j), np.concatenate(out_s)


def _candidate_links(
    scorer: Scorer, features: Any, table: FingerprintTable, threshold: float
) -> tuple[I64, I64, F64]:
    out_i: list[I64] = []
    out_j: list[I64] = []
    out_s: list[F64] = []
    for i, j, _ in shared_candidates(table):
        s = np.asarray(scorer.score(features, i, j), dtype=np.float64)
        keep = (s >= threshold) & (s > 0)
        out_i.append(i[keep])
        out_j.append(j[keep])
        out_s.append(s[keep])
    if not out_i:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return np.concatenate(out_i), np.concatenate(out_j), np.concatenate(out_s)


def components(n: int, i: I64, j: I64) -> I64:
    """Connected components of the graph with edges ``(i[k], j[k])``: a label per node."""
    sp: Any = require("scipy.sparse", "eval")
    csgraph: Any = require("scipy.sparse.csgraph", "eval")
    graph = sp.coo_matrix((np.ones(i.shape[0], dtype=np.int8), (i, j)), shape=(n, n))
    _, labels = csgraph.connected_components(graph, directed=False)
    return labels.astype(np.int64)


def cluster_report(
    truth: Sequence[str],
    predicted: npt.ArrayLike,
    true_pair_scores: F64,
    threshold: float,
    links_found: int,
) -> dict[str, Any]:
    """ARI and pair measures of predicted clusters against the truth."""
    confusion = metrics.pair_confusion(truth, predicted)
    t_codes = np.unique(np.asarray(truth, dtype=object).astype(str), return_inverse=True)[1].ravel()
    p_codes = np.asarray(predicted)
    sizes = np.bincount(t_codes)
    multi = np.flatnonzero(sizes > 1)
    recovered = 0
    for c in multi.tolist():
        if np.unique(p_codes[t_codes == c]).shape[0] == 1:
            recovered += 1
    direct = float(np.mean(true_pair_scores >= threshold)) if true_pair_scores.size else math.nan
    return {
        "n": len(truth),
        "threshold": threshold,
        "ari": _r(metrics.adjusted_rand_index(truth, predicted)),
        "pair_precision": _r(confusion.precision),
        "pair_recall": _r(confusion.recall),
        "true_clusters": int(sizes.shape[0]),
        "true_groups": int(multi.shape[0]),
        "true_pairs": int(confusion.together_both + confusion.together_true_only),
        "predicted_clusters": int(np.unique(p_codes).shape[0]),
        "predicted_pairs": int(confusion.together_both + confusion.together_pred_only),
        "groups_recovered": int(recovered),
        "group_recall": _r(recovered / multi.shape[0]) if multi.shape[0] else None,
        "direct_pair_recall": _r(direct),
        "min_true_pair_score": _r(float(true_pair_scores.min())) if true_pair_scores.size else None,
        "links": int(links_found),
    }


def true_pairs(labels: Sequence[str]) -> tuple[I64, I64]:
    """Every pair ``i < j`` of documents in one true cluster."""
    groups: dict[str, list[int]] = {}
    for idx, label in enumerate(labels):
        groups.setdefault(label, []).append(idx)
    out_i: list[int] = []
    out_j: list[int] = []
    for members in groups.values():
        if len(members) < 2:
            continue
        m = np.asarray(members, dtype=np.int64)
        a, b = np.triu_indices(m.shape[0], k=1)
        out_i.extend(m[a].tolist())
        out_j.extend(m[b].tolist())
    return np.asarray(out_i, dtype=np.int64), np.asarray(out_j, dtype=np.int64)


def evaluate_clusters(
    dataset: ClusterDataset,
    scorer: Scorer,
    spec: Spec,
    *,
    threshold: float = 0.5,
    progress: Progress = None,
    features: Any = None,
    table: FingerprintTable | None = None,
) -> tuple[dict[str, Any], I64]:
    """Link documents scoring at least ``threshold``, take connected components, and compare
    them with the true clusters. Returns the report and the predicted cluster of each document.

    ``features`` (the scorer's, already computed) and ``table`` (the fingerprints under
    ``spec``, for candidates when the scorer cannot list neighbours) save recomputing them."""
    texts = dataset.texts
    truth = dataset.clusters
    if features is None:
        features = scorer.features(texts, progress)
    n = len(texts)
    if isinstance(scorer, NeighbourScorer) or n <= ALL_PAIRS_LIMIT:
        i, j, _ = links(scorer, features, threshold, n)
    else:  # candidates sharing a shingle under the spec: exact for shingle-based measures
        if table is None:
            table = (
                features
                if isinstance(features, FingerprintTable)
                else fingerprint_table(Pipeline(spec), texts)
            )
        i, j, _ = _candidate_links(scorer, features, table, threshold)
    predicted = components(n, i, j)
    ti, tj = true_pairs(truth)
    true_scores = (
        np.asarray(scorer.score(features, ti, tj), dtype=np.float64) if ti.size else np.zeros(0)
    )
    return cluster_report(truth, predicted, true_scores, threshold, int(i.shape[0])), predicted


# ---------------------------------------------------------------------------------------------
# fragments


def detect_all(
    detector: FragmentDetector,
    docs: Mapping[str, str],
    pairs: Sequence[tuple[str, str]],
    progress: Progress = None,
) -> list[Fragment]:
    """Run the detector on each (source id, suspicious id) pair."""
    out: list[Fragment] = []
    for source_id, suspicious_id in pairs:
        for s_off, s_len, u_off, u_len in detector.detect(docs[source_id], docs[suspicious_id]):
            out.append(
                Fragment(source_id, suspicious_id, int(s_off), int(s_len), int(u_off), int(u_len))
            )
        if progress is not None:
            progress(1)
    return out


def fragment_report(
    truth: Sequence[Fragment], detections: Sequence[Fragment], pairs_examined: int
) -> dict[str, Any]:
    """PAN measures overall, and per kind and level of the cases (detections on the cases'
    document pairs only)."""
    overall = metrics.fragment_scores(truth, detections)
    report: dict[str, Any] = {
        k: (_r(v) if isinstance(v, float) else v) for k, v in overall.to_dict().items()
    }
    report["pairs_examined"] = pairs_examined
    groups: dict[tuple[str, str], list[Fragment]] = {}
    for case in truth:
        groups.setdefault((case.kind or "-", _level_name(case.level)), []).append(case)
    if len(groups) > 1:
        by_pair: dict[tuple[str, str], list[Fragment]] = {}
        for d in detections:
            by_pair.setdefault((d.source_id, d.suspicious_id), []).append(d)
        rows: dict[str, dict[str, Any]] = {}
        for (kind, level), cases in sorted(groups.items()):
            mine = [
                d
                for key in dict.fromkeys((c.source_id, c.suspicious_id) for c in cases)
                for d in by_pair.get(key, ())
            ]
            scores = metrics.fragment_scores(cases, mine)
            rows.setdefault(kind, {})[level] = {
                k: (_r(v) if isinstance(v, float) else v) for k, v in scores.to_dict().items()
            }
        report["by_level"] = rows
    return report

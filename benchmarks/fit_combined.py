"""Fit the combined score (neardup.score.combined) in one place and write its one artefact.

    NEARDUP_DATA=/work/shared/data .venv/bin/python benchmarks/fit_combined.py

reads every real labelled set of benchmarks/calibration_sets.py — the seven human-labelled dev
sets, the long real sets mined from ru_news and Reuters, the long real documents that share a
paragraph (or only a subject) — measures each pair once under the default spec (cached in
``/tmp/neardup-calibration``, keyed by what the default analyzer makes of a probe text: after
an analyzer change, a stop list say, the same command measures again by itself), fits the model
and writes ``src/neardup/score/_model.json``, with ``version`` one above the shipped model's
when anything changed (the same fit again writes the same file). The generated sets are not
fitted on: their negatives share quotations and site furniture verbatim, which this model calls
reuse (benchmarks/quality_dev.py reports them as a guard).

**The model** (:mod:`neardup.score.model`): a pair is routed to a regime by its canonical
tokens — ``part`` (the shorter text less than :data:`PART_RATIO` of the longer's), else by the
shorter text's tokens against :data:`TOKEN_BOUNDS`: ``sentence``, ``paragraph``, ``document``.
Each regime has two logistic channels over :data:`FEATURES` — **verbatim** (the word 5-shingle
features) and **vocabulary** (the others; the sentence regime reads only
:data:`SENTENCE_FEATURES`) — joined as a noisy OR and fitted together by weighted maximum
likelihood (scipy's L-BFGS-B; L2, ``C`` = :data:`C`; each set weighing the same), every
evidence weight at least 0 (more evidence never lowers a score), the lengths (the context, read
by the vocabulary channel) of either sign.

**The calibration**, per regime, on logits the model was not fitted on (:data:`FOLDS`-fold
out-of-fold logits, folds cut within each set): a Platt map (a one-feature logistic regression
of the label on the logit gives the slope), whose 0.5 is put at the threshold that brings the
F1 of every set closest to that set's own best F1 — the regimes' thresholds searched together
over :data:`GRID` quantiles each, judged leximin (the worst set first, then the next). So 0.5
means "call it a duplicate" on a sentence, a paragraph against a document and two documents
alike. Held-out figures (halves, leave one set out): benchmarks/quality_dev.py, which calls
:func:`fit` itself.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import calibration_sets as cs

from neardup.eval import metrics
from neardup.score.combined import FEATURE_FUNCTIONS, MEASURES, features_of
from neardup.score.model import CHANNELS, MODEL_PATH, CombinedModel, Regime, regime_names

#: The features the model reads: the verbatim evidence (word 5-shingles: their resemblance,
#: the containment of the shorter text in the longer, and how many are shared — a passage
#: copied whole), the vocabulary (word 1-grams, the pair's TF-IDF cosine, character 3-grams
#: of the written text) and the context (the length ratio, the shortness).
FEATURES = (
    "resemblance_word5",
    "containment_word5",
    "shared_word5",
    "resemblance_word1",
    "containment_word1",
    "tfidf_pair",
    "resemblance_written3",
    "length_ratio",
    "shortness",
)
#: A sentence pair's model reads the written characters and the words alone: on the
#: human-labelled sentence sets they rank a rewrite above a pair on one topic best (the length
#: of a sentence says which set it comes from, not whether it is a copy).
SENTENCE_FEATURES = ("resemblance_written3", "resemblance_word1")
TOKEN_BOUNDS = (32, 128)
PART_RATIO = 1 / 3
C = 30.0
FOLDS = 5
#: A regime's threshold is chosen among this many quantiles of its out-of-fold logits.
GRID = 80
COMMAND = "NEARDUP_DATA=/work/shared/data .venv/bin/python benchmarks/fit_combined.py"


@dataclass(frozen=True)
class Config:
    features: tuple[str, ...] = FEATURES
    token_bounds: tuple[int, ...] = TOKEN_BOUNDS
    part_ratio: float = PART_RATIO
    c: float = C
    #: The features whose weight may be negative (the context of a pair, not evidence).
    free: tuple[str, ...] = ("length_ratio", "shortness")
    #: The verbatim channel's evidence (the vocabulary channel reads the rest).
    verbatim: tuple[str, ...] = ("resemblance_word5", "containment_word5", "shared_word5")
    #: The channels that read the context (0: verbatim, 1: vocabulary).
    context_channels: tuple[int, ...] = (1,)
    #: A set's weight in the fit, relative to the others' (1 when not named).
    set_weights: tuple[tuple[str, float], ...] = ()
    #: Each regime's features (the others weigh 0 there); ``None``: all of them.
    regime_features: tuple[tuple[str, ...] | None, ...] = (None, SENTENCE_FEATURES)

    @property
    def regimes(self) -> tuple[str, ...]:
        return regime_names(len(self.token_bounds))

    def bounds(self, regime: int, channel: int) -> list[tuple[float | None, float | None]]:
        """Each feature's bounds in one channel of one regime: 0 when the channel or the regime
        does not read it, free for the context, at least 0 for evidence."""
        allowed = dict(zip(self.regimes, self.regime_features)).get(self.regimes[regime])
        out: list[tuple[float | None, float | None]] = []
        for f in self.features:
            if allowed is not None and f not in allowed:
                out.append((0.0, 0.0))
            elif f in self.free:
                out.append((None, None) if channel in self.context_channels else (0.0, 0.0))
            elif (f in self.verbatim) != (channel == 0):
                out.append((0.0, 0.0))
            else:
                out.append((0.0, None))
        return out


def rows_of(p: cs.Pairs, config: Config) -> tuple[np.ndarray, np.ndarray]:
    """Features and regime of each pair of ``p``."""
    assert p.measures is not None
    m = p.measures
    shorter = np.minimum(m[:, MEASURES.index("tokens_a")], m[:, MEASURES.index("tokens_b")])
    ratio = FEATURE_FUNCTIONS["length_ratio"](m)
    bins = 1 + np.searchsorted(np.asarray(config.token_bounds), shorter, side="right")
    regime = np.where(ratio < config.part_ratio, 0, bins)
    return features_of(m, config.features), regime


def _stack(
    sets: Sequence[cs.Pairs], config: Config
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Features, labels, regimes, weights (each set weighing the same) and the set of each
    pair."""
    xs, ys, rs, ws, gs = [], [], [], [], []
    for g, p in enumerate(sets):
        x, r = rows_of(p, config)
        xs.append(x)
        ys.append(p.y.astype(np.int64))
        rs.append(r)
        ws.append(np.full(len(p.y), dict(config.set_weights).get(p.name, 1.0) / len(p.y)))
        gs.append(np.full(len(p.y), g))
    w = np.concatenate(ws)
    return (
        np.vstack(xs),
        np.concatenate(ys),
        np.concatenate(rs),
        w * len(w) / w.sum(),
        np.concatenate(gs),
    )


def _noisy_or(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, c: float, bounds: Sequence[list[Any]]
) -> tuple[np.ndarray, np.ndarray]:
    """The two channels' weights ``(2, features)`` and intercepts ``(2,)`` of a noisy OR of two
    logistic models (:class:`neardup.score.model.Regime`), fitted by weighted maximum
    likelihood with an L2 penalty ``1 / (2c) · |weights|²`` per pair (scipy's L-BFGS-B,
    within ``bounds``)."""
    from scipy.optimize import minimize

    n = x.shape[1]
    if len(np.unique(y)) < 2:  # a regime with one label: a constant of that side
        side = 4.0 if y.size and y[0] == 1 else -4.0
        return np.zeros((2, n)), np.array([side, side])
    scale = w / w.sum()
    positive = y == 1

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        b, weights = theta[:2], theta[2:].reshape(2, n)
        z = b[None, :] + x @ weights.T
        u = np.logaddexp(0.0, z).sum(axis=1)  # −log(1 − p)
        u = np.maximum(u, 1e-12)
        nll = np.where(positive, -np.log(-np.expm1(-u)), u)
        sig = 1.0 / (1.0 + np.exp(-z))
        du = np.where(positive, -1.0 / np.expm1(u), 1.0) * scale  # d loss / d u
        dz = du[:, None] * sig
        penalty = (weights**2).sum() / (2 * c * len(y))
        grad = np.concatenate([dz.sum(axis=0), (dz.T @ x + weights / (c * len(y))).ravel()])
        return float(scale @ nll) + penalty, grad

    start = np.zeros(2 + 2 * n)
    start[:2] = -2.0
    fit = minimize(
        loss,
        start,
        jac=True,
        method="L-BFGS-B",
        bounds=[(None, None), (None, None), *bounds[0], *bounds[1]],
        options={"ftol": 1e-12, "gtol": 1e-9, "maxiter": 10_000},
    )
    return fit.x[2:].reshape(2, n), fit.x[:2]


def _raw_logit(x: np.ndarray, weights: np.ndarray, intercepts: np.ndarray) -> np.ndarray:
    """logit(p) of the noisy OR (the uncalibrated score)."""
    regime = Regime("", (tuple(weights[0]), tuple(weights[1])), (intercepts[0], intercepts[1]))
    return regime.logit(x)


def _out_of_fold(
    x: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    group: np.ndarray,
    c: float,
    bounds: Sequence[list[Any]],
) -> np.ndarray:
    """Each pair's logit from a model fitted without its fold (folds cut within each set)."""
    fold = np.zeros(len(y), dtype=np.int64)
    rng = np.random.default_rng(16)
    for g in np.unique(group):
        idx = np.flatnonzero(group == g)
        fold[idx] = rng.permutation(len(idx)) % FOLDS
    out = np.zeros(len(y))
    for k in range(FOLDS):
        held = fold == k
        if held.any():
            weights, intercepts = _noisy_or(x[~held], y[~held], w[~held], c, bounds)
            out[held] = _raw_logit(x[held], weights, intercepts)
    return out


def _platt_slope(z: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    from sklearn.linear_model import LogisticRegression

    if len(np.unique(y)) < 2:
        return 1.0
    fit = LogisticRegression(C=1e6, max_iter=10_000).fit(z[:, None], y, sample_weight=w)
    return max(float(fit.coef_[0, 0]), 1e-3)


def _leximin(gaps: np.ndarray) -> int:
    """The column of ``gaps`` (sets × candidates) whose worst set is best, then the next worst,
    … (each to 1e-3), then the mean."""
    ranked = np.round(np.sort(gaps, axis=0), 3)
    return int(np.lexsort((gaps.mean(axis=0), *ranked[::-1]))[-1])


def choose_thresholds(
    z: np.ndarray,
    y: np.ndarray,
    regime: np.ndarray,
    group: np.ndarray,
    regimes: int,
) -> tuple[np.ndarray, dict[int, float]]:
    """The regimes' thresholds of the logit that bring the F1 of every judged set closest to
    its best F1 (leximin over the sets: the worst set first), each searched over quantiles of
    its regime's logits, one regime at a time until none moves. A regime no pair falls in keeps
    the threshold 0 (the noisy OR's own 0.5). Returns the thresholds and each set's gap."""
    sets = np.unique(group).tolist()
    mine = np.isin(group, sets)
    grids = []
    for r in range(regimes):
        zr = z[mine & (regime == r)]
        grid = np.unique(np.quantile(zr, np.linspace(0, 1, GRID))) if zr.size else np.zeros(0)
        grids.append(np.concatenate([grid, [0.0, np.inf]]))
    width = max(len(g) for g in grids)
    tp = np.zeros((len(sets), regimes, width))
    fp = np.zeros_like(tp)
    positives, best = np.zeros(len(sets)), np.zeros(len(sets))
    for i, g in enumerate(sets):
        rows = group == g
        positives[i] = y[rows].sum()
        best[i] = metrics.best_threshold(y[rows], z[rows]).f1
        for r in range(regimes):
            zr, yr = z[rows & (regime == r)], y[rows & (regime == r)]
            above = zr[None, :] >= grids[r][:, None]
            tp[i, r, : len(grids[r])] = (above & (yr[None, :] == 1)).sum(axis=1)
            fp[i, r, : len(grids[r])] = (above & (yr[None, :] == 0)).sum(axis=1)
    at = [len(g) - 2 for g in grids]  # the threshold 0 of each regime
    for _ in range(50):
        moved = False
        for r in range(regimes):
            none = np.zeros(len(sets))
            others_tp = sum((tp[:, q, at[q]] for q in range(regimes) if q != r), none)
            others_fp = sum((fp[:, q, at[q]] for q in range(regimes) if q != r), none)
            t = others_tp[:, None] + tp[:, r, : len(grids[r])]
            f = others_fp[:, None] + fp[:, r, : len(grids[r])]
            f1 = 2 * t / np.maximum(t + f + positives[:, None], 1)
            k = _leximin(f1 - best[:, None])
            gaps = f1 - best[:, None]
            if k != at[r] and _leximin(gaps[:, [at[r], k]]) == 1:
                at[r], moved = k, True
        if not moved:
            break
    t = sum(tp[:, r, at[r]] for r in range(regimes))
    f = sum(fp[:, r, at[r]] for r in range(regimes))
    gaps = dict(zip(sets, (2 * t / np.maximum(t + f + positives, 1) - best).tolist()))
    out = np.array([grids[r][at[r]] for r in range(regimes)])
    top = np.array([g[-3] + 1.0 if len(g) > 2 else 0.0 for g in grids])  # above every logit
    return np.where(np.isfinite(out), out, top), gaps


def fit(sets: Sequence[cs.Pairs], config: Config = Config()) -> CombinedModel:
    """The model fitted and calibrated on ``sets`` (see the module docstring); its ``fit``
    record holds the thresholds chosen and each set's F1 gap at them (out of fold)."""
    x, y, regime, w, group = _stack(sets, config)
    z = np.zeros(len(y))
    slopes = []
    for r in range(len(config.regimes)):
        rows = regime == r
        bounds = [config.bounds(r, 0), config.bounds(r, 1)]
        z[rows] = _out_of_fold(x[rows], y[rows], w[rows], group[rows], config.c, bounds)
        slopes.append(_platt_slope(z[rows], y[rows], w[rows]))
    thresholds, gaps = choose_thresholds(z, y, regime, group, len(config.regimes))
    regimes = []
    for r, name in enumerate(config.regimes):
        rows = regime == r
        bounds = [config.bounds(r, 0), config.bounds(r, 1)]
        weights, intercepts = _noisy_or(x[rows], y[rows], w[rows], config.c, bounds)
        regimes.append(
            Regime(
                name,
                (_rounded(weights[0]), _rounded(weights[1])),
                (round(float(intercepts[0]), 4), round(float(intercepts[1]), 4)),
                round(slopes[r], 4),
                round(-slopes[r] * float(thresholds[r]), 4),
            )
        )
    record = {
        "thresholds": {n: round(float(t), 4) for n, t in zip(config.regimes, thresholds)},
        "out_of_fold_f1_gap_at_0.5": {sets[g].name: round(v, 4) for g, v in gaps.items()},
    }
    return CombinedModel(
        features=config.features,
        regimes=tuple(regimes),
        token_bounds=config.token_bounds,
        part_ratio=round(config.part_ratio, 4),
        context=config.free,
        trained_on="",
        version=0,
        fit=record,
    )


def _rounded(values: np.ndarray) -> tuple[float, ...]:
    return tuple(round(float(v), 4) + 0.0 for v in values)  # + 0.0: no -0.0 in the file


def scores(model: CombinedModel, p: cs.Pairs) -> np.ndarray:
    """``model``'s score of every pair of ``p`` (what neardup.score.combined computes)."""
    from neardup.score.combined import regime_of

    assert p.measures is not None
    s = model.apply(features_of(p.measures, model.features), regime_of(model, p.measures))
    tokens = p.measures[:, [MEASURES.index("tokens_a"), MEASURES.index("tokens_b")]]
    s[(tokens == 0).any(axis=1)] = 0.0
    return s


def load() -> list[cs.Pairs]:
    """Every set the fit reads, measured."""
    sets = cs.real_sets()
    cs.measure(sets)
    return sets


def main() -> None:
    argparse.ArgumentParser(description=__doc__).parse_args()
    t0 = time.perf_counter()
    sets = load()
    model = fit(sets)
    shipped = CombinedModel.load(MODEL_PATH) if MODEL_PATH.exists() else None
    same = shipped is not None and [r.to_dict() for r in shipped.regimes] == [
        r.to_dict() for r in model.regimes
    ]
    version = 1 if shipped is None else shipped.version if same else shipped.version + 1
    groups = {p.group: [0, 0] for p in sets}
    for p in sets:
        groups[p.group][0] += len(p.y)
        groups[p.group][1] += int(p.y.sum())
    trained_on = (
        f"{COMMAND}: {len(sets)} real labelled sets ("
        + "; ".join(f"{g}: {n} pairs, {k} positive" for g, (n, k) in groups.items())
        + "): "
        + ", ".join(p.name for p in sets)
    )
    record = {
        "command": COMMAND,
        "sets": {p.name: [len(p.y), int(p.y.sum())] for p in sets},
        "c": C,
        "folds": FOLDS,
        **(model.fit or {}),
    }
    model = replace(model, trained_on=trained_on, version=version, fit=record)
    text = json.dumps(model.to_dict(), indent=1, ensure_ascii=False) + "\n"
    MODEL_PATH.write_text(text, encoding="utf-8")
    for r in model.regimes:
        for channel, weights, intercept in zip(CHANNELS, r.weights, r.intercepts, strict=True):
            used = {f: w for f, w in zip(model.features, weights, strict=True) if w}
            print(f"{r.name:9} {channel:10} {intercept:+.3f} {used}")
        print(f"{r.name:9} calibration: slope {r.slope}, offset {r.offset}")
    print(f"version {version}; written to {MODEL_PATH} ({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()

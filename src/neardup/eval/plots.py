"""Plots of evaluation results: ROC and precision–recall curves, score distributions by edit
level, recall by level for several methods.

Why a module: ``neardup eval --plot-dir`` and the benchmarks draw the same figures; matplotlib
(the ``eval`` or ``plot`` extra) is imported only here, only when a plot is asked for, with
the non-interactive Agg backend.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup.errors import InputError, require
from neardup.eval import metrics

Series = Mapping[str, tuple[npt.ArrayLike, npt.ArrayLike]]  # name → (labels, scores)


def _pyplot() -> Any:
    matplotlib: Any = require("matplotlib", "eval")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: str | Path) -> Path:
    out = Path(path)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=110, bbox_inches="tight", metadata={"Software": None})
    except OSError as exc:
        raise InputError(f"cannot write {out}: {exc.strerror or exc}") from None
    finally:
        _pyplot().close(fig)
    return out


def roc(series: Series, path: str | Path, title: str = "ROC") -> Path:
    """ROC curves of several methods on one dataset."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    for name, (labels, scores) in series.items():
        c = metrics.curve(labels, scores)
        fpr = np.concatenate(([0.0], c.fpr))
        tpr = np.concatenate(([0.0], c.recall))
        ax.plot(fpr, tpr, label=f"{name} (AUC {metrics.roc_auc(labels, scores):.3f})", lw=1.4)
    ax.plot([0, 1], [0, 1], color="0.8", lw=0.8, ls="--")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate (recall)")
    ax.set_title(title)
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(alpha=0.3)
    return _save(fig, path)


def precision_recall(series: Series, path: str | Path, title: str = "Precision–recall") -> Path:
    """Precision–recall curves of several methods on one dataset."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    for name, (labels, scores) in series.items():
        c = metrics.curve(labels, scores)
        best = metrics.best_threshold(labels, scores)
        ax.plot(c.recall, c.precision, label=f"{name} (best F1 {best.f1:.3f})", lw=1.4)
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_ylim(0, 1.02)
    ax.set_xlim(0, 1.02)
    ax.set_title(title)
    ax.legend(fontsize=7, loc="lower left")
    ax.grid(alpha=0.3)
    return _save(fig, path)


def score_distributions(
    labels: npt.ArrayLike,
    scores: npt.ArrayLike,
    kinds: Sequence[str],
    levels: npt.ArrayLike,
    path: str | Path,
    title: str = "Scores by edit level",
    threshold: float | None = None,
) -> Path:
    """Box plots of the scores of each kind of positive by level, beside the negatives'."""
    plt = _pyplot()
    y = np.asarray(labels)
    s = np.asarray(scores, dtype=np.float64)
    lv = np.asarray(levels, dtype=np.float64)
    kind_arr = np.asarray(list(kinds), dtype=object)
    pos_kinds = sorted({k for k, label in zip(kind_arr.tolist(), y.tolist()) if label == 1}) or [""]
    neg_kinds = sorted({k for k, label in zip(kind_arr.tolist(), y.tolist()) if label == 0})
    panels = len(pos_kinds)
    cols = min(3, panels)
    rows = math.ceil(panels / cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(4.3 * cols, 3.3 * rows), squeeze=False, sharey=True
    )
    for n, kind in enumerate(pos_kinds):
        ax = axes[n // cols][n % cols]
        mine = (kind_arr == kind) & (y == 1)
        levels_here = sorted({float(v) for v in lv[mine] if not math.isnan(v)})
        data = [s[mine & (lv == level)] for level in levels_here] or [s[mine]]
        names = [f"{level:g}" for level in levels_here] or ["all"]
        for neg in neg_kinds:
            data.append(s[(kind_arr == neg) & (y == 0)])
            names.append(f"neg:{neg or 'all'}")
        ax.boxplot(data, showfliers=False)
        ax.set_xticks(range(1, len(names) + 1), names, rotation=60, fontsize=7)
        if threshold is not None:
            ax.axhline(threshold, color="tab:red", lw=0.8, ls="--")
        ax.set_title(kind or "positives", fontsize=9)
        ax.grid(alpha=0.3, axis="y")
    for n in range(panels, rows * cols):
        axes[n // cols][n % cols].axis("off")
    fig.suptitle(title, fontsize=10)
    fig.supylabel("score", fontsize=9)
    fig.subplots_adjust(hspace=0.75)
    return _save(fig, path)


def recall_by_level(
    rows: Mapping[str, Mapping[str, float]],
    path: str | Path,
    title: str = "Recall by edit level",
    xlabel: str = "edit level",
) -> Path:
    """Lines of recall against level, one per method: ``rows[method][level] = recall``."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.6, 4.2))
    for name, by_level in rows.items():
        xs = sorted(by_level, key=float)
        ax.plot(
            [float(x) for x in xs],
            [by_level[x] for x in xs],
            marker="o",
            ms=3.5,
            lw=1.3,
            label=name,
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel("recall")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return _save(fig, path)

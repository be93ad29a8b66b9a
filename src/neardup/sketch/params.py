"""Candidate probabilities of banded sketches (the S-curves), a parameter chooser, and plots.

With MinHash, one position agrees with probability ``s`` (the resemblance), and positions are
independent. A band (supershingle) of ``r`` positions agrees with probability ``p = s^r``, and
the ``b`` bands are independent, so the number ``X`` of agreeing bands is ``Binomial(b, p)``:

* supershingles / LSH bands — a candidate when ``X ≥ 1``: ``P = 1 − (1 − s^r)^b``
  (the shingle-method paper, formula 10, and the web-articles compilation's S-curve);
* megashingles — one key per PAIR of supershingles, a candidate when they share a pair, i.e.
  when ``X ≥ 2``: ``P = 1 − (1 − p)^b − b·p·(1 − p)^(b−1)``. The tempting
  ``1 − (1 − p²)^(b(b−1)/2)`` is wrong: two pairs that share a supershingle are not independent.

The chooser picks ``b × r`` (with ``b·r ≤ N``) minimizing ``w_fp · ∫₀ᵗ P(s) ds + w_fn ·
∫ₜ¹ (1 − P(s)) ds``: the area under the curve left of the threshold (pairs proposed though not
similar enough) plus the area above it right of the threshold (similar pairs missed), weighted.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import numpy.typing as npt

from neardup.errors import InputError, SpecError, require

F64 = npt.NDArray[np.float64]

_GRID = np.linspace(0.0, 1.0, 4001)


def _check(bands: int, rows: int) -> None:
    if not isinstance(bands, int) or not isinstance(rows, int) or bands < 1 or rows < 1:
        raise SpecError(f"bands and rows must be positive integers, got {bands!r} × {rows!r}")


def _similarities(s: float | Sequence[float] | F64) -> F64:
    arr = np.asarray(s, dtype=np.float64)
    if np.any((arr < 0.0) | (arr > 1.0)) or np.any(np.isnan(arr)):
        raise InputError(f"similarities must lie in [0, 1], got {s!r}")
    return arr


def at_least_probability(
    s: float | Sequence[float] | F64, bands: int, rows: int, at_least: int = 1
) -> F64:
    """``P(X ≥ at_least)`` for ``X ~ Binomial(bands, s^rows)``: the chance that at least
    ``at_least`` of ``bands`` bands of ``rows`` minhashes agree at resemblance ``s``.

    ``at_least = 1`` is ``-expm1(bands · log1p(-p))``; otherwise the binomial terms are summed
    one by one in log space (all positive), so tiny probabilities keep their precision.
    """
    _check(bands, rows)
    if not 0 <= at_least <= bands:
        raise SpecError(f"at_least must be in [0, {bands}], got {at_least}")
    p = np.power(_similarities(s), rows)
    if at_least == 0:
        return np.ones_like(p)
    certain = p >= 1.0
    inner = np.where(certain, 0.5, p)  # placeholder where p == 1, overwritten below
    log_p = np.log(np.where(inner > 0.0, inner, 1.0))
    log_q = np.log1p(-inner)
    if at_least == 1:
        out = -np.expm1(bands * log_q)
    else:
        out = np.zeros_like(p)
        for k in range(at_least, bands + 1):
            log_comb = math.lgamma(bands + 1) - math.lgamma(k + 1) - math.lgamma(bands - k + 1)
            out += np.exp(log_comb + k * log_p + (bands - k) * log_q)
        out = np.where(inner > 0.0, out, 0.0)
    return np.clip(np.where(certain, 1.0, out), 0.0, 1.0)


def candidate_probability(s: float | Sequence[float] | F64, bands: int, rows: int) -> F64:
    """Supershingles / LSH: ``1 − (1 − s^rows)^bands``, the chance of ≥ 1 shared band key."""
    return at_least_probability(s, bands, rows, 1)


def megashingle_probability(s: float | Sequence[float] | F64, bands: int, rows: int) -> F64:
    """Megashingles over all pairs of ``bands`` supershingles: ``P(X ≥ 2)``,
    ``X ~ Binomial(bands, s^rows)``."""
    if bands < 2:
        raise SpecError("megashingles need at least 2 supershingles")
    return at_least_probability(s, bands, rows, 2)


def probability(
    s: float | Sequence[float] | F64, bands: int, rows: int, *, mega: bool = False
) -> F64:
    """:func:`megashingle_probability` when ``mega``, else :func:`candidate_probability`."""
    return (
        megashingle_probability(s, bands, rows) if mega else candidate_probability(s, bands, rows)
    )


def threshold_estimate(bands: int, rows: int) -> float:
    """Where the S-curve is steepest, roughly: ``(1/b)^(1/r)`` (Mining of Massive Datasets)."""
    _check(bands, rows)
    return float((1.0 / bands) ** (1.0 / rows))


def error_areas(
    threshold: float, bands: int, rows: int, *, mega: bool = False
) -> tuple[float, float]:
    """``(false positive area ∫₀ᵗ P, false negative area ∫ₜ¹ (1 − P))`` of one S-curve."""
    if not 0.0 < threshold < 1.0:
        raise InputError(f"the threshold must be in (0, 1), got {threshold}")
    left = _GRID[_GRID <= threshold]
    left = np.append(left, threshold) if left[-1] < threshold else left
    right = _GRID[_GRID >= threshold]
    right = np.insert(right, 0, threshold) if right[0] > threshold else right
    fp = float(np.trapezoid(probability(left, bands, rows, mega=mega), left))
    fn = float(np.trapezoid(1.0 - probability(right, bands, rows, mega=mega), right))
    return fp, fn


@dataclass(frozen=True)
class Choice:
    """A recommended ``bands × rows`` and what it costs."""

    bands: int
    rows: int
    mega: bool
    threshold: float
    fp_area: float
    fn_area: float
    score: float
    steepest: float

    @property
    def num_perm(self) -> int:
        """Minhashes the bands use (``bands · rows``)."""
        return self.bands * self.rows

    def to_dict(self) -> dict[str, float | int | bool]:
        out = asdict(self)
        out["num_perm"] = self.num_perm
        return out


def choose(
    threshold: float,
    num_perm: int = 128,
    *,
    fp_weight: float = 1.0,
    fn_weight: float = 1.0,
    mega: bool = False,
    exact: bool = False,
) -> Choice:
    """The ``bands × rows`` (``bands·rows ≤ num_perm``, or ``== num_perm`` with ``exact``)
    minimizing ``fp_weight · FP area + fn_weight · FN area`` around ``threshold``.

    Ties go to fewer minhashes, then fewer bands (fewer keys to store).
    """
    if not 0.0 < threshold < 1.0:
        raise InputError(f"the threshold must be in (0, 1), got {threshold}")
    if not isinstance(num_perm, int) or num_perm < 1:
        raise InputError(f"num_perm must be a positive integer, got {num_perm!r}")
    if fp_weight < 0 or fn_weight < 0 or fp_weight + fn_weight == 0:
        raise InputError("the weights must be non-negative and not both zero")
    best: Choice | None = None
    best_key: tuple[float, int, int] | None = None
    left = np.append(_GRID[_GRID < threshold], threshold)
    right = np.insert(_GRID[_GRID > threshold], 0, threshold)
    for rows in range(1, num_perm + 1):
        max_bands = num_perm // rows
        candidates: Iterable[int] = [max_bands] if exact else range(1, max_bands + 1)
        for bands in candidates:
            if exact and bands * rows != num_perm:
                continue
            if mega and bands < 2:
                continue
            fp = float(np.trapezoid(probability(left, bands, rows, mega=mega), left))
            fn = float(np.trapezoid(1.0 - probability(right, bands, rows, mega=mega), right))
            score = fp_weight * fp + fn_weight * fn
            key = (round(score, 12), bands * rows, bands)
            if best_key is None or key < best_key:
                best_key = key
                best = Choice(
                    bands, rows, mega, threshold, fp, fn, score, threshold_estimate(bands, rows)
                )
    if best is None:
        raise InputError(
            f"no bands × rows fit in num_perm={num_perm}" + (" with megashingles" if mega else "")
        )
    return best


def rates(
    threshold: float, similarities: Sequence[float], bands: int, rows: int, *, mega: bool = False
) -> list[dict[str, float | str]]:
    """At each similarity: the candidate probability, and which error it is — a false
    positive rate below the threshold, a false negative rate (1 − P) at or above it."""
    probs = probability(np.asarray(similarities, dtype=np.float64), bands, rows, mega=mega)
    out: list[dict[str, float | str]] = []
    for s, p in zip(similarities, probs.tolist()):
        kind = "false positive" if s < threshold else "false negative"
        out.append(
            {
                "similarity": float(s),
                "probability": p,
                "error": kind,
                "rate": p if s < threshold else 1.0 - p,
            }
        )
    return out


def plot_s_curves(
    path: str | os.PathLike[str],
    configs: Sequence[tuple[int, int, bool]],
    *,
    threshold: float | None = None,
    title: str | None = None,
) -> None:
    """Draw the S-curves of ``(bands, rows, mega)`` configurations into ``path`` (``.png`` or
    ``.svg``), with the threshold and, for the first curve, its FP and FN areas shaded."""
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in (".png", ".svg"):
        raise InputError(f"the plot file must end in .png or .svg, got {os.fspath(path)!r}")
    if not configs:
        raise InputError("nothing to plot: give at least one bands × rows")
    require("matplotlib", "plot")
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 5.0), dpi=110)
    try:
        for i, (bands, rows, mega) in enumerate(configs):
            y = probability(_GRID, bands, rows, mega=mega)
            label = f"{bands}×{rows}" + (" megashingles" if mega else "") + f" (N={bands * rows})"
            (line,) = ax.plot(_GRID, y, lw=2, label=label)
            if i == 0 and threshold is not None:
                below = _GRID <= threshold
                ax.fill_between(
                    _GRID[below],
                    0,
                    y[below],
                    color=line.get_color(),
                    alpha=0.15,
                    label="false positives (first curve)",
                )
                above = _GRID >= threshold
                ax.fill_between(
                    _GRID[above],
                    y[above],
                    1,
                    color="grey",
                    alpha=0.15,
                    label="false negatives (first curve)",
                )
        if threshold is not None:
            ax.axvline(threshold, color="black", ls="--", lw=1, label=f"threshold {threshold:g}")
        ax.set_xlabel("resemblance s")
        ax.set_ylabel("probability of becoming a candidate")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", fontsize=8)
        ax.set_title(title or "S-curves: P(candidate) against resemblance")
        fig.tight_layout()
        fig.savefig(os.fspath(path))
    finally:
        plt.close(fig)

"""Fit the combined score's coefficients (neardup.score.combined) on generated training pairs only.

The pairs are benchmarks/quality_sets.py's six sets in Russian and English, built from the
*train* half of the documents (the odd ones; the evaluation uses the even ones), with a fixed
seed. The features are :func:`neardup.score.combined.pair_features` under
:func:`neardup.fingerprints.pipeline.default_spec` (``auto``); the model is scikit-learn's
``LogisticRegression`` (L2, C=1, lbfgs), each set weighing the same. The coefficients are
written to src/neardup/score/_coefficients.py, rounded to 4 decimals, with ``VERSION`` one
above the shipped model's when they differ from it (a refit changes every combined score; the
same fit again writes the same file).

    NEARDUP_DATA=/work/shared/data .venv/bin/python benchmarks/fit_combined.py
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from quality_sets import PairSet, all_sets

from neardup.eval import metrics
from neardup.fingerprints.pipeline import default_spec
from neardup.score.combined import FEATURES, MODEL, CombinedFeatures, CombinedModel, pair_features

OUT = Path(__file__).resolve().parents[1] / "src" / "neardup" / "score" / "_coefficients.py"


def features_of(sets: dict[str, PairSet]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, labels and the set (an index) of every pair."""
    texts: dict[str, int] = {}
    for pairs in sets.values():
        for t in (*pairs.a, *pairs.b):
            texts.setdefault(t, len(texts))
    table = CombinedFeatures(default_spec()).table(list(texts))
    xs, ys, groups = [], [], []
    for g, pairs in enumerate(sets.values()):
        a = np.array([texts[t] for t in pairs.a])
        b = np.array([texts[t] for t in pairs.b])
        xs.append(pair_features(table, a, b))
        ys.append(pairs.y)
        groups.append(np.full(len(pairs.labels), g))
    return np.vstack(xs), np.concatenate(ys), np.concatenate(groups)


def _chunks(text: str, width: int) -> list[str]:
    """``text`` cut at spaces into pieces of at most about ``width`` characters."""
    pieces: list[str] = []
    while len(text) > width:
        cut = text.rfind(" ", 0, width) + 1 or width
        pieces.append(text[:cut])
        text = text[cut:]
    return [*pieces, text]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=150, help="source documents per language")
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    from sklearn.linear_model import LogisticRegression

    sets = all_sets("train", args.docs, args.seed)
    x, y, group = features_of(sets)
    weight = 1.0 / np.bincount(group)[group]
    weight *= len(y) / weight.sum()
    fit = LogisticRegression(C=1.0, max_iter=10_000).fit(x, y, sample_weight=weight)
    weights = [round(float(w), 4) for w in fit.coef_[0]]
    intercept = round(float(fit.intercept_[0]), 4)
    trained_on = (
        f"benchmarks/fit_combined.py --docs {args.docs} --seed {args.seed}: "
        f"{len(y)} generated training pairs ({int(y.sum())} positive), "
        f"{len(sets)} sets (ru, en × {', '.join(s.split()[1] for s in list(sets)[:6])})"
    )
    unchanged = (tuple(weights), intercept) == (MODEL.weights, MODEL.intercept)
    version = MODEL.version if unchanged else MODEL.version + 1
    model = CombinedModel(FEATURES, tuple(weights), intercept, trained_on, version)
    score = model.apply(x)
    print(f"training pairs: {len(y)}; AUC on them {metrics.roc_auc(y, score):.4f}")
    for name, w in zip(FEATURES, weights, strict=True):
        print(f"  {name:26} {w:+.4f}")
    print(f"  {'intercept':26} {intercept:+.4f}")
    lines = [
        '"""The combined model\'s coefficients (written by benchmarks/fit_combined.py; do not '
        'edit)."""',
        "",
        "FEATURES = [",
        *[f'    "{name}",' for name in FEATURES],
        "]",
        f"WEIGHTS = {weights!r}",
        f"INTERCEPT = {intercept!r}",
        f"VERSION = {version!r}",
        "TRAINED_ON = (",
        # double quotes, as ruff format writes them
        *[f"    {json.dumps(part, ensure_ascii=False)}" for part in _chunks(trained_on, 80)],
        ")",
        "",
    ]
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print(f"written to {OUT}")


if __name__ == "__main__":
    main()

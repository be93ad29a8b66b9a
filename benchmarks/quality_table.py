"""docs/quality.md's leading table: every method and the defaults on the generated sets, in
one run beside datasketch and scikit-learn (issue #16).

The sets are benchmarks/quality_sets.py's (exact copies, light edits, inflection + synonyms,
paraphrase-like rewrites, short pastes, sentence pairs; Russian and English), built from the
*eval* half of the documents — the combined model (benchmarks/fit_combined.py) was fitted on the
other half. Each cell is the ROC AUC of a method on a set; ``mixed`` is every pair of every set
in one ranking (one threshold for all: what a user with one setting gets). "Best single" is the
best AUC of the single settings (every row but the combined score and the default spec's
measures). The default row is the combined score: what ``compare``, ``matrix`` and ``eval``
lead with. Whether it beats the best single measure on the mixed set is judged with a 95 %
paired bootstrap interval of the AUC difference, not by its third decimal.

    NEARDUP_DATA=/work/shared/data .venv/bin/python benchmarks/quality_table.py --update-docs
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
from quality_common import DatasketchMinHash, SklearnTfidf, update_section
from quality_sets import PairSet, all_sets, mixed

from neardup.eval import methods, metrics
from neardup.fingerprints.pipeline import default_spec, make_spec

DOCS = Path(__file__).resolve().parents[1] / "docs" / "quality.md"


def single_settings() -> dict[str, tuple[str, Any]]:
    """Row name → (method, spec or a foreign scorer)."""
    specs = {
        "`auto` word k=5": make_spec("auto"),
        "`auto` word k=2": make_spec("auto", k=2),
        "`auto` word k=1": make_spec("auto", k=1),
        "`plain` word k=5": make_spec("plain"),
        "`plain` char k=4": make_spec("plain", k=4, unit="char"),
        "`plain` char k=3": make_spec("plain", k=3, unit="char"),
    }
    rows: dict[str, tuple[str, Any]] = {}
    for name, spec in specs.items():
        rows[f"resemblance {name}"] = ("resemblance", spec)
        rows[f"containment {name}"] = ("containment", spec)
    rows["TF-IDF cosine `auto` (IDF of the set)"] = ("tfidf", make_spec("auto"))
    rows["MinHash `auto` word k=5 (128)"] = ("minhash", make_spec("auto"))
    rows["datasketch MinHash (k=5, 128)"] = ("foreign", DatasketchMinHash(5))
    rows["scikit-learn TF-IDF cosine"] = ("foreign", SklearnTfidf())
    return rows


DEFAULT = "**default**: combined (`compare`, `matrix`, `eval`)"


def defaults() -> dict[str, tuple[str, Any]]:
    """The score the commands lead with, and the single measures of the default spec (what
    ``compare --method sets`` shows and a collection's verification uses)."""
    spec = default_spec()
    return {
        DEFAULT: ("combined", spec),
        "default spec: resemblance (`auto`, adaptive)": ("resemblance", spec),
        "default spec: containment (`auto`, adaptive)": ("containment", spec),
    }


def score(method: str, target: Any, pairs: PairSet) -> np.ndarray:
    if method == "foreign":
        texts: dict[str, int] = {}
        for t in (*pairs.a, *pairs.b):
            texts.setdefault(t, len(texts))
        a = np.array([texts[t] for t in pairs.a])
        b = np.array([texts[t] for t in pairs.b])
        return np.asarray(target.score(target.features(list(texts)), a, b))
    return np.asarray(methods.score_pairs(method, pairs.a, pairs.b, target))


def bootstrap_gain(y: np.ndarray, ours: np.ndarray, theirs: np.ndarray) -> tuple[float, float]:
    """The 95 % interval of AUC(ours) − AUC(theirs), pairs resampled with replacement (1,000
    times, seed 0)."""
    rng = np.random.default_rng(0)
    gains = []
    for _ in range(1000):
        pick = rng.integers(0, y.shape[0], y.shape[0])
        if y[pick].min() == y[pick].max():
            continue
        gains.append(metrics.roc_auc(y[pick], ours[pick]) - metrics.roc_auc(y[pick], theirs[pick]))
    low, high = np.percentile(gains, [2.5, 97.5])
    return float(low), float(high)


def edit_rates(sets: dict[str, PairSet]) -> str:
    """What the edits of the inflect, rewrite and sentence positives achieved."""
    parts = []
    for name, pairs in sets.items():
        if name.split()[-1] in ("inflect", "rewrite", "sentence") and pairs.edits.words:
            rates = ", ".join(
                f"{edit} {100 * pairs.edits.rate(edit):.0f} %"
                for edit in sorted(pairs.edits.counts)
            )
            parts.append(f"{name}: {rates}")
    return "; ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=100, help="source documents per language")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--update-docs", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    sets = all_sets("eval", args.docs, args.seed)
    sets["mixed"] = mixed(sets)
    names = list(sets)
    singles = single_settings()
    rows = {**singles, **defaults()}
    results: dict[str, list[float]] = {}
    mixed_scores: dict[str, np.ndarray] = {}
    for row, (method, target) in rows.items():
        values = [score(method, target, sets[n]) for n in names]
        mixed_scores[row] = values[-1]
        results[row] = [metrics.roc_auc(sets[n].y, v) for n, v in zip(names, values, strict=True)]
        print(f"{row:52} " + " ".join(f"{v:.3f}" for v in results[row]), flush=True)
    best = [max(results[r][c] for r in singles) for c in range(len(names))]
    header = ["method", *[n.replace(" ", " ") for n in names]]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row, values in results.items():
        cells = [
            f"**{v:.3f}**" if v >= best[c] - 1e-9 else f"{v:.3f}" for c, v in enumerate(values)
        ]
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    lines.append("| best single setting | " + " | ".join(f"{v:.3f}" for v in best) + " |")
    gaps: list[str] = []
    for row in defaults():
        shortfalls = [(best[c] - results[row][c], names[c]) for c in range(len(names))]
        worst, where = max(shortfalls)
        gaps.append(
            f"{row}: largest shortfall from the best single setting {worst:.3f} ({where}); "
            f"{'within' if worst <= 0.01 else 'NOT within'} 0.01 on every set"
            if worst > 0
            else f"{row}: at or above the best single setting on every set"
        )
    combined = results[DEFAULT][-1]
    runner_up = max(singles, key=lambda r: results[r][-1])
    low, high = bootstrap_gain(sets["mixed"].y, mixed_scores[DEFAULT], mixed_scores[runner_up])
    verdict = (
        "better, beyond the bootstrap interval"
        if low > 0
        else "better, within the bootstrap interval"
        if combined > best[-1]
        else "NOT better"
    )
    sizes = ", ".join(f"{n} {len(sets[n].labels)}" for n in names[:-1])
    elapsed = time.perf_counter() - started
    load = Path("/proc/loadavg").read_text().split()[:3]
    body = "\n".join(
        [
            f"`NEARDUP_DATA=/work/shared/data .venv/bin/python benchmarks/quality_table.py "
            f"--update-docs` (docs {args.docs} per language, seed {args.seed}; "
            f"{elapsed:.0f} s, load average {' '.join(load)}). ROC AUC; bold: the best single "
            "setting of the column (or at it). The sets are described below the table.",
            "",
            *lines,
            "",
            f"Pairs per set: {sizes}; mixed {len(sets['mixed'].labels)}. Edits achieved (share "
            f"of the positives' words): {edit_rates(sets)}.",
            "",
            *[f"- {g}" for g in gaps],
            f"- combined on the mixed set: {combined:.3f} against the best single measure "
            f"{best[-1]:.3f} ({runner_up}): {verdict} (95 % interval of the difference, pairs "
            f"resampled: {low:+.3f} to {high:+.3f}).",
        ]
    )
    print(body)
    if args.update_docs:
        update_section("leading-table", body, DOCS)


if __name__ == "__main__":
    main()

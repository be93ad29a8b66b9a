"""The combined score on real labelled pairs, held out: AUC, best F1 and F1 at the default 0.5.

Reads every real labelled set of benchmarks/calibration_sets.py — the seven human-labelled dev
sets of ``../shared/data/dev/`` (headlines, sentences, whole news articles), the long real sets
mined from ru_news and Reuters (reprints, corrections, re-issues) and the long real documents
that share a paragraph (or do not) — by path (no text of them is copied into the project), and
the generated *eval* sets of benchmarks/quality_sets.py as a guard. Each pair is measured once
(:func:`neardup.score.combined.pair_measures`, cached), and scored by:

* the combined score **held out**, fitted by benchmarks/fit_combined.py's :func:`fit` (the one
  fit that writes the shipped model) without the pairs it is measured on, two ways:

  - **halves** — each set split once into two halves (stratified by label, fixed seed); the
    model fitted and calibrated on the training halves of every set, measured on the held-out
    halves;
  - **leave one set out** — for each set, the model fitted and calibrated on the other sets,
    measured on the set left out (a set whose meaning of "duplicate" no other set shares — the
    same news event, ``tgcontest`` — cannot be learned this way: its figures say so);

* the shipped model (``src/neardup/score/_model.json``) on every whole set — fitted on these
  very pairs, so it is reported apart and never as a held-out figure;
* the baselines a user tries first: exact Jaccard of lowercase words (``\\w+``), of lowercase
  whitespace-split words and of lowercase character 3-grams (a few lines here); scikit-learn's
  ``TfidfVectorizer()`` (defaults) fitted on the set's texts, cosine; datasketch ``MinHash``
  (128 permutations) of lowercase whitespace-split words, ``jaccard`` (cached too).

Per set: the held-out AUC against the best of the five baselines on the same pairs (picked
after the fact per set: a hard bar), the best F1 over all thresholds, the F1 at the default
threshold 0.5, and their gap — the calibration's test: at 0.5 the F1 should be within 0.05 of
the set's best.

    NEARDUP_DATA=/work/shared/data .venv/bin/python benchmarks/quality_dev.py  # the tables
    ... --update-docs      # and docs/quality.md, docs/quality-pairs.md
    ... --no-loso          # the halves only (one fit instead of thirteen)
    ... --no-generated     # without the generated guard sets
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import calibration_sets as cs
from doc_sections import rewrite_section

from neardup.eval import metrics
from neardup.score.model import CombinedModel

Pairs = cs.Pairs
DOCS = ROOT / "docs" / "quality.md"
BUILD = ROOT / "build" / "quality"
BASELINES = (
    "Jaccard words \\w+",
    "Jaccard words (whitespace)",
    "Jaccard char 3-grams",
    "scikit-learn TF-IDF",
    "datasketch MinHash",
)
SPLIT_SEED = 23
TOLERANCE = 0.05


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# the baselines


_WORD = re.compile(r"\w+")


def _jaccard(sets: list[frozenset[str]], a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.zeros(len(a))
    for p, (i, j) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
        union = len(sets[i] | sets[j])
        out[p] = len(sets[i] & sets[j]) / union if union else 0.0
    return out


def _char_grams(text: str, n: int = 3) -> frozenset[str]:
    t = text.lower()
    return frozenset(t[i : i + n] for i in range(len(t) - n + 1))


def baselines(pairs: Pairs) -> None:
    """What a user tries first (see the module docstring), into ``pairs.scores``."""
    import datasketch
    from sklearn.feature_extraction.text import TfidfVectorizer

    from neardup.eval.methods import rowwise_cosine

    texts, a, b = pairs.texts, pairs.a, pairs.b
    regex = [frozenset(_WORD.findall(t.lower())) for t in texts]
    spaces = [frozenset(t.lower().split()) for t in texts]
    pairs.scores[BASELINES[0]] = _jaccard(regex, a, b)
    pairs.scores[BASELINES[1]] = _jaccard(spaces, a, b)
    pairs.scores[BASELINES[2]] = _jaccard([_char_grams(t) for t in texts], a, b)
    x = TfidfVectorizer().fit_transform(texts).tocsr()
    pairs.scores[BASELINES[3]] = rowwise_cosine(x, a, b)
    hashes = datasketch.MinHash.bulk([[w.encode() for w in s] for s in spaces], num_perm=128)
    pairs.scores[BASELINES[4]] = np.array(
        [hashes[i].jaccard(hashes[j]) for i, j in zip(a.tolist(), b.tolist(), strict=True)]
    )


def cached_baselines(sets: Sequence[Pairs]) -> None:
    """:func:`baselines` of each set, kept in the calibration cache (they read only text)."""
    for p in sets:
        h = hashlib.sha256("\0".join(p.texts).encode())
        h.update(p.a.tobytes())
        h.update(p.b.tobytes())
        path = cs.CACHE / f"baselines-{h.hexdigest()[:20]}.npz"
        if path.exists():
            with np.load(path) as saved:
                p.scores.update({name: saved[f"b{i}"] for i, name in enumerate(BASELINES)})
            continue
        t0 = time.perf_counter()
        baselines(p)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, **{f"b{i}": p.scores[name] for i, name in enumerate(BASELINES)})
        log(f"[{p.name}] baselines of {len(p.y)} pairs: {time.perf_counter() - t0:.0f} s")


def generated(split: str, docs: int = 100, seed: int = 16) -> dict[str, Pairs]:
    """benchmarks/quality_sets.py's twelve sets of one half, by name ("ru exact", …)."""
    return {p.name.split(" ", 1)[1]: p for p in cs.generated(split, docs, seed)}


# ---------------------------------------------------------------------------------------------
# the figures


def auc(y: np.ndarray, s: np.ndarray) -> float:
    return metrics.roc_auc(y, s) if 0 < int(y.sum()) < len(y) else float("nan")


def best_f1(y: np.ndarray, s: np.ndarray) -> float:
    return metrics.best_threshold(y, s).f1


def f1_at(y: np.ndarray, s: np.ndarray, threshold: float = 0.5) -> float:
    said = s >= threshold
    hit = int((said & (y == 1)).sum())
    return 2 * hit / max(1, int(said.sum()) + int(y.sum()))


def best_baseline(p: Pairs) -> tuple[str, float]:
    return max(((b, auc(p.y, p.scores[b])) for b in BASELINES), key=lambda t: t[1])


@dataclass(frozen=True)
class Figures:
    """One set's figures under one score."""

    pairs: int
    positives: int
    auc: float
    baseline: float
    baseline_name: str
    best_f1: float
    f1: float  # at 0.5

    @property
    def margin(self) -> float:
        return self.auc - self.baseline

    @property
    def gap(self) -> float:
        return self.f1 - self.best_f1

    @classmethod
    def of(cls, p: Pairs, scores: np.ndarray) -> Figures:
        name, base = best_baseline(p)
        return cls(
            len(p.y),
            int(p.y.sum()),
            auc(p.y, scores),
            base,
            name,
            best_f1(p.y, scores),
            f1_at(p.y, scores),
        )


Fit = Callable[[Sequence[Pairs]], CombinedModel]


def held_out_halves(sets: Sequence[Pairs], fit: Fit, judged: Sequence[Pairs]) -> dict[str, Figures]:
    import fit_combined

    split = {p.name: p.halves(SPLIT_SEED) for p in sets}
    model = fit([p.subset(split[p.name][0], "training half") for p in sets])
    out = {}
    for p in judged:
        held = p.subset(split[p.name][1], "held-out half")
        out[p.name] = Figures.of(held, fit_combined.scores(model, held))
    return out


def held_out_sets(sets: Sequence[Pairs], fit: Fit, judged: Sequence[Pairs]) -> dict[str, Figures]:
    import fit_combined

    out = {}
    for p in judged:
        model = fit([q for q in sets if q is not p])
        out[p.name] = Figures.of(p, fit_combined.scores(model, p))
        log(f"left out {p.name}: AUC {out[p.name].auc:.3f}, F1 at 0.5 {out[p.name].f1:.3f}")
    return out


@dataclass
class Result:
    sets: list[Pairs]  # the real sets
    guard: list[Pairs]  # the generated eval sets
    halves: dict[str, Figures]
    loso: dict[str, Figures]
    shipped: dict[str, Figures]
    model: CombinedModel
    seconds: float


def run(args: argparse.Namespace) -> Result:
    import fit_combined

    t0 = time.perf_counter()
    fitted = fit_combined.load()
    real = [p for p in fitted if p.group != "generated"]
    guard = [] if args.no_generated else cs.generated("eval")
    cs.measure(guard)
    cached_baselines([*real, *guard])
    halves = held_out_halves(fitted, fit_combined.fit, real)
    log(f"halves: {time.perf_counter() - t0:.0f} s")
    loso = {} if args.no_loso else held_out_sets(fitted, fit_combined.fit, real)
    model = CombinedModel.load()
    shipped = {p.name: Figures.of(p, fit_combined.scores(model, p)) for p in [*real, *guard]}
    return Result(real, guard, halves, loso, shipped, model, time.perf_counter() - t0)


# ---------------------------------------------------------------------------------------------
# the tables


def _verdict(f: Figures) -> str:
    word = "at or above" if f.margin >= 0 else "**below**"
    return f"{f.auc:.3f} vs {f.baseline:.3f}: {word} ({f.margin:+.3f})"


def _gap(f: Figures) -> str:
    text = f"{f.best_f1:.3f} / {f.f1:.3f} ({f.gap:+.3f})"
    return text if f.gap >= -TOLERANCE else f"**{text}**"


def main_table(result: Result) -> str:
    header = [
        "set",
        "kind",
        "pairs (label 1)",
        "best baseline",
        "halves: AUC vs best baseline",
        "halves: best F1 / F1 at 0.5 (gap)",
        "left out: AUC vs best baseline",
        "left out: best F1 / F1 at 0.5 (gap)",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for p in result.sets:
        half, lo = result.halves[p.name], result.loso.get(p.name)
        kind = "long" if p.name in cs.LONG_DEV or p.group != "dev" else "sentence"
        lines.append(
            "| "
            + " | ".join(
                [
                    p.name,
                    kind,
                    f"{len(p.y)} ({int(p.y.sum())})",
                    best_baseline(p)[0],
                    _verdict(half),
                    _gap(half),
                    _verdict(lo) if lo else "—",
                    _gap(lo) if lo else "—",
                ]
            )
            + " |"
        )
    return "\n".join(lines)


def worst_line(result: Result) -> str:
    parts = []
    for what, figures in (("halves", result.halves), ("left out", result.loso)):
        if not figures:
            continue
        margin = min(figures.items(), key=lambda kv: kv[1].margin)
        gap = min(figures.items(), key=lambda kv: kv[1].gap)
        parts.append(
            f"{what}: worst AUC margin {margin[1].margin:+.3f} ({margin[0]}), worst F1 gap at "
            f"0.5 {gap[1].gap:+.3f} ({gap[0]}); sets within {TOLERANCE} of their best F1: "
            f"{sum(f.gap >= -TOLERANCE for f in figures.values())} of {len(figures)}"
        )
    return "Worst set — " + "; ".join(parts) + "."


def shipped_table(result: Result) -> str:
    header = ["set", "pairs (label 1)", "AUC", "best baseline AUC", "best F1", "F1 at 0.5"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for p in [*result.sets, *result.guard]:
        f = result.shipped[p.name]
        lines.append(
            f"| {p.name} | {f.pairs} ({f.positives}) | {f.auc:.3f} | {f.baseline:.3f} | "
            f"{f.best_f1:.3f} | {f.f1:.3f} |"
        )
    return "\n".join(lines)


def kinds_table(result: Result) -> str:
    """The passage and mined sets, kind by kind: the share of each kind the shipped model
    calls a duplicate at 0.5."""
    lines = [
        "| set | kind of pair | label | pairs | called a duplicate at 0.5 |",
        "|---|---|---|---|---|",
    ]
    import fit_combined

    for p in result.sets:
        if p.kinds is None or p.group != "passage":
            continue
        s = fit_combined.scores(result.model, p)
        for kind in dict.fromkeys(p.kinds.tolist()):
            sel = p.kinds == kind
            lines.append(
                f"| {p.name} | {kind} | {int(p.y[sel][0])} | {int(sel.sum())} | "
                f"{float((s[sel] >= 0.5).mean()):.3f} |"
            )
    return "\n".join(lines)


def dev_json(result: Result) -> dict[str, Any]:
    """Every figure of the run (build/quality/dev.json)."""
    out: dict[str, Any] = {}
    for name, figures in (
        ("halves", result.halves),
        ("loso", result.loso),
        ("shipped", result.shipped),
    ):
        out[name] = {k: vars(v) for k, v in figures.items()}
    out["model_version"] = result.model.version
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-loso", action="store_true", help="the halves only")
    parser.add_argument("--no-generated", action="store_true", help="skip the generated guard")
    parser.add_argument("--update-docs", action="store_true")
    args = parser.parse_args()
    result = run(args)
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    note = (
        "`NEARDUP_DATA=/work/shared/data .venv/bin/python benchmarks/quality_dev.py "
        f"--update-docs` ({result.seconds:.0f} s on 2 shared cores, load average {load}; split "
        f"seed {SPLIT_SEED}; shipped model version {result.model.version}). Bold: more than "
        f"{TOLERANCE} below the set's best F1."
    )
    table, worst = main_table(result), worst_line(result)
    shipped, kinds = shipped_table(result), kinds_table(result)
    print(note, "", table, "", worst, "", shipped, "", kinds, sep="\n")
    BUILD.mkdir(parents=True, exist_ok=True)
    (BUILD / "dev.json").write_text(json.dumps(dev_json(result), indent=1), encoding="utf-8")
    if args.update_docs:
        rewrite_section(
            DOCS,
            "<!-- results: dev-table -->",
            "<!-- end: dev-table -->",
            f"{note}\n\n{table}\n\n{worst}",
        )
        rewrite_section(DOCS, "<!-- results: dev-shipped -->", "<!-- end: dev-shipped -->", shipped)
        rewrite_section(DOCS, "<!-- results: dev-kinds -->", "<!-- end: dev-kinds -->", kinds)


if __name__ == "__main__":
    main()

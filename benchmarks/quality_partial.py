"""Partial copies: passages of 5–50 % of a Russian news text pasted into another (seed 001's
experiment), verbatim or with 10 % of their words edited.

Two questions, on one generated dataset (``ru-partial`` in build/quality/):

1. Pairs — does a score tell (source, suspicious) from unrelated pairs? Containment is the
   measure made for it; the others are beside it, and so are datasketch and scikit-learn.
   Recall at precision ≥ 0.99 per share of the source pasted.
2. Fragments — are the pasted passages found where they are? PAN's character-level precision,
   recall, granularity and plagdet for each fragment detector, run on every positive pair and
   on the negatives (where any detection is a false one).

(``benchmarks/quality_fragments.py`` is the aligner's own tuning benchmark, on cases it
generates itself; this one runs the detectors through ``neardup.eval`` on the generator's
dataset, beside the pair scores.)

    .venv/bin/python benchmarks/quality_partial.py                  # figures in docs/quality.md
    .venv/bin/python benchmarks/quality_partial.py --docs 10 --no-docs
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
from quality_common import (
    DATA,
    IMG,
    WORK,
    Entry,
    FeatureCache,
    ensure_dataset,
    fmt,
    log,
    machine_note,
    need_data,
    ours,
    table,
    theirs,
    timed,
    update_section,
)

from neardup.eval import formats, methods, metrics, plots, run
from neardup.eval import generate as gen
from neardup.fingerprints.pipeline import make_spec

MIN_PRECISION = 0.99
SHARES = (0.05, 0.1, 0.2, 0.3, 0.5)


def pair_entries() -> list[Entry]:
    return [
        ours("containment", "ru"),
        ours("containment", "plain"),
        ours("resemblance", "ru"),
        ours("collection", "ru", "collection [ru, containment]", params={"measure": "containment"}),
        ours("minhash", "ru"),
        ours("tfidf", "ru"),
    ] + [e for e in theirs(0.5) if "LSH" not in e.label]


def recall_by_share(
    dataset: formats.PairDataset, scores: np.ndarray, kind: str
) -> tuple[dict[str, float], float]:
    y = dataset.labels
    kinds = np.asarray(dataset.kinds, dtype=object)
    mine = (kinds == kind) & (y == 1)
    subset = mine | (y == 0)
    point = metrics.recall_at_precision(y[subset], scores[subset], MIN_PRECISION)
    out = {}
    for share in SHARES:
        at = mine & (dataset.levels == share)
        if at.any():
            out[f"{share:g}"] = (
                float(np.mean(scores[at] >= point.threshold))
                if math.isfinite(point.threshold)
                else 0.0
            )
    return out, point.recall


def partial_config(docs: int = 120, seed: int = 2024) -> gen.GenerateConfig:
    """The ``ru-partial`` dataset (also read by ``benchmarks/bloom_collection.py``)."""
    return gen.GenerateConfig(
        corpus=str(DATA / "ru_news.jsonl.gz"),
        lang="ru",
        task="partial",
        docs=docs,
        shares=SHARES,
        obfuscation=(0.0, 0.1),
        seed=seed,
        min_chars=2000,
        max_chars=6000,
        negatives=("random", "same_source", "rare_words"),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=120, help="source documents (default 120)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--no-docs", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    need_data("ru_news.jsonl.gz")
    directory = ensure_dataset("ru-partial", partial_config(args.docs, args.seed), args.work)
    dataset = formats.read_pairs(directory / "pairs.jsonl")
    docs = formats.read_documents(directory / "documents.jsonl")
    cases = formats.read_fragments(directory / "fragments.jsonl", docs)
    meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
    log(f"[ru-partial] {len(dataset)} pairs, {len(cases)} fragments")

    cache = FeatureCache()
    pair_rows = []
    by_share: dict[str, dict[str, float]] = {}
    series = {}
    results: dict[str, Any] = {"pairs": {}, "fragments": {}}
    for entry in pair_entries():
        scores, seconds = timed(
            lambda entry=entry: np.asarray(  # type: ignore[misc]
                entry.scorer.score(cache.features(entry, dataset.texts, "p"), dataset.a, dataset.b),
                dtype=np.float64,
            )
        )
        report = run.pair_report(
            dataset.labels, scores, dataset.kinds, dataset.levels, min_precision=MIN_PRECISION
        )
        verbatim, r_verbatim = recall_by_share(dataset, scores, "partial")
        edited, r_edited = recall_by_share(dataset, scores, "partial-edited")
        by_share[entry.label] = verbatim
        series[entry.label] = (dataset.labels, scores)
        pair_rows.append(
            [
                entry.label,
                report["auc"],
                report["best_f1"],
                report["best_threshold"],
                report["recall_at_min_precision"],
                r_verbatim,
                r_edited,
                *verbatim.values(),
                seconds,
            ]
        )
        results["pairs"][entry.label] = {
            "report": report,
            "verbatim_by_share": verbatim,
            "edited_by_share": edited,
        }
        log(
            f"[ru-partial] {entry.label:<28} AUC {fmt(report['auc'])}  R@P≥{MIN_PRECISION:g} "
            f"{fmt(report['recall_at_min_precision'])}  by share {verbatim}"
        )

    examine = list(
        dict.fromkeys(
            [(c.source_id, c.suspicious_id) for c in cases]
            + [
                (dataset.ids[a], dataset.ids[b])
                for a, b, label in zip(
                    dataset.a.tolist(), dataset.b.tolist(), dataset.labels.tolist()
                )
                if label == 0
            ]
        )
    )
    fragment_rows = []
    level_rows = []
    ru = make_spec("ru")
    for label, name, spec, params in (
        ("align [ru]", "align", ru, {}),
        ("align [plain]", "align", make_spec("plain"), {}),
        ("shingle-spans [ru] (baseline)", "shingle-spans", make_spec("ru", k=3), {}),
    ):
        if not methods.FRAGMENT_METHODS[name].available():
            continue
        detector = methods.build_fragments(name, spec, params)
        detections, seconds = timed(
            lambda detector=detector: run.detect_all(detector, docs, examine)
        )  # type: ignore[misc]
        report = run.fragment_report(cases, detections, len(examine))
        results["fragments"][label] = report
        fragment_rows.append(
            [
                label,
                report["cases"],
                report["detections"],
                report["precision"],
                report["recall"],
                report["granularity"],
                report["plagdet"],
                seconds,
            ]
        )
        for kind, rows in report.get("by_level", {}).items():
            for level, row in rows.items():
                level_rows.append(
                    [
                        label,
                        kind,
                        level,
                        row["precision"],
                        row["recall"],
                        row["granularity"],
                        row["plagdet"],
                    ]
                )
        log(
            f"[ru-partial] {label:<30} plagdet {fmt(report['plagdet'])}  P "
            f"{fmt(report['precision'])}  R {fmt(report['recall'])}  gran "
            f"{fmt(report['granularity'])}  ({seconds:.0f} s)"
        )

    img = IMG if not args.no_docs else args.work / "img"
    images = [
        plots.roc(series, img / "quality_ru_partial_roc.png", "ROC — Russian partial copies"),
        plots.recall_by_level(
            by_share,
            img / "quality_ru_partial_shares.png",
            f"verbatim partial copies: recall at precision ≥ {MIN_PRECISION:g}",
            xlabel="share of the source pasted",
        ),
    ]
    counts = meta["counts"]
    shares_header = [f"share {s:g}" for s in SHARES]
    body = "\n".join(
        [
            (
                f"Dataset: {counts['sources']} source documents, {counts['fragments']} pasted "
                f"fragments (shares {', '.join(f'{s:g}' for s in SHARES)}; verbatim and with 10 % "
                f"of the words edited), {counts['pairs']} pairs ({counts['negatives']} negative: "
                f"{', '.join(f'{k} {v}' for k, v in counts['pairs_by_kind'].items())}); generator "
                f"seed {meta['params']['seed']}. {machine_note()}."
            ),
            "",
            (
                f"Pairs (recall at precision ≥ {MIN_PRECISION:g}; the share columns: verbatim "
                "copies at the verbatim kind's threshold):"
            ),
            "",
            table(
                [
                    "method [preset]",
                    "ROC AUC",
                    "best F1",
                    "at t",
                    f"R@P≥{MIN_PRECISION:g} (all)",
                    "R verbatim",
                    "R edited",
                    *shares_header,
                    "seconds",
                ],
                pair_rows,
            ),
            "",
            f"Fragments (PAN measures; {len(examine)} document pairs examined, the negatives "
            "included):",
            "",
            table(
                [
                    "detector [preset]",
                    "cases",
                    "detections",
                    "precision",
                    "recall",
                    "granularity",
                    "plagdet",
                    "seconds",
                ],
                fragment_rows,
            ),
            "",
            "By kind and share of the source pasted:",
            "",
            table(
                [
                    "detector [preset]",
                    "kind",
                    "share",
                    "precision",
                    "recall",
                    "granularity",
                    "plagdet",
                ],
                level_rows,
            ),
            "",
            *[f"![{p.stem}]({p.relative_to(img.parent)})" for p in images],
        ]
    )
    if not args.no_docs:
        update_section("ru-partial", body)
    else:
        print(body)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=float), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

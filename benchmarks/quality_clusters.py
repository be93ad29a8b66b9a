"""Exact-duplicate groups already in the corpora: every method must find all of them.

ru_news.jsonl.gz and reuters21578.jsonl.gz hold groups of documents with the same text. The
truth here: documents are grouped by their text with runs of whitespace collapsed (ru_news:
338 groups; Reuters: 279 — the README's counts; with the text only stripped it is 339 and 260,
both printed below), every other document alone. Each method links every pair scoring at least
the threshold (0.9), clusters are the connected components, and we report:

* ``group recall`` — share of the true groups found whole in one predicted cluster;
* ``direct pair recall`` — share of the pairs inside true groups that score ≥ 0.9 themselves
  (and the lowest such score);
* ARI and pair precision — against this exact-only truth, so the many real near-duplicates
  (updates, corrections; unlabelled) count as false positives: read them as "how much more
  than exact duplicates the method groups", not as errors.

    .venv/bin/python benchmarks/quality_clusters.py               # both corpora, docs/quality.md
    .venv/bin/python benchmarks/quality_clusters.py --limit 2000 --no-docs   # a quick check
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from quality_common import (
    DATA,
    Entry,
    FeatureCache,
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

from neardup.eval import methods, run
from neardup.eval.formats import ClusterDataset, LabelledText

THRESHOLD = 0.9


def load(name: str, limit: int | None) -> tuple[ClusterDataset, dict[str, int]]:
    """Documents with a text, clustered by their whitespace-collapsed text."""
    docs: list[tuple[str, str]] = []
    with gzip.open(DATA / name, "rt", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            text = record.get("text") or ""
            if text.strip():
                docs.append((str(record["id"]), text))
    if limit:
        docs = docs[:limit]
    collapsed = [" ".join(t.split()) for _, t in docs]
    first: dict[str, str] = {}
    for (doc_id, _), key in zip(docs, collapsed, strict=True):
        first.setdefault(key, doc_id)
    dataset = ClusterDataset(
        name,
        [
            LabelledText(doc_id, text, first[key])
            for (doc_id, text), key in zip(docs, collapsed, strict=True)
        ],
    )
    counts = {
        "documents": len(docs),
        "groups (whitespace collapsed)": sum(1 for c in Counter(collapsed).values() if c > 1),
        "documents in groups": sum(c for c in Counter(collapsed).values() if c > 1),
        "groups (text stripped)": sum(
            1 for c in Counter(t.strip() for _, t in docs).values() if c > 1
        ),
        "groups (text as is)": sum(1 for c in Counter(t for _, t in docs).values() if c > 1),
    }
    return dataset, counts


def entries(lang: str) -> list[Entry]:
    rows = [ours(m, lang) for m in ("resemblance", "containment", "sorensen", "minhash", "tfidf")]
    rows += [ours("resemblance", "plain")]
    return rows + [e for e in theirs(THRESHOLD) if "LSH" not in e.label]


def evaluate(name: str, dataset: ClusterDataset, rows: list[Entry]) -> dict[str, Any]:
    cache = FeatureCache()
    texts = dataset.texts
    results: dict[str, Any] = {}
    for entry in rows:

        def work(entry: Entry = entry) -> dict[str, Any]:
            features = cache.features(entry, texts, name)
            table_ = None
            if entry.spec is not None and not isinstance(entry.scorer, methods.NeighbourScorer):
                # the fingerprints of the same spec (already computed for resemblance) give the
                # candidates
                set_entry = Entry(
                    "", methods.SetScorer(entry.spec, "resemblance"), "", spec=entry.spec
                )
                table_ = cache.features(set_entry, texts, name)
            report, _ = run.evaluate_clusters(
                dataset,
                entry.scorer,
                entry.spec or ours("resemblance", "plain").spec,
                threshold=THRESHOLD,
                features=features,
                table=table_,
            )
            return report

        report, seconds = timed(work)
        report["seconds"] = seconds
        results[entry.label] = report
        log(
            f"[{name}] {entry.label:<30} group recall {fmt(report['group_recall'])}  "
            f"direct pair recall {fmt(report['direct_pair_recall'])} "
            f"(min {fmt(report['min_true_pair_score'])})  ARI {fmt(report['ari'])}  "
            f"({seconds:.0f} s)"
        )
    return results


def section(name: str, counts: dict[str, int], results: dict[str, Any]) -> str:
    rows = [
        [
            label,
            r["true_groups"],
            r["groups_recovered"],
            r["group_recall"],
            r["direct_pair_recall"],
            r["min_true_pair_score"],
            r["ari"],
            r["pair_precision"],
            r["predicted_clusters"],
            r["seconds"],
        ]
        for label, r in results.items()
    ]
    return "\n".join(
        [
            f"{name}: "
            + ", ".join(f"{k} {v}" for k, v in counts.items())
            + f". Threshold {THRESHOLD:g}. "
            + machine_note()
            + ".",
            "",
            table(
                [
                    "method [preset]",
                    "true groups",
                    "recovered",
                    "group recall",
                    "direct pair recall",
                    "lowest in-group score",
                    "ARI",
                    "pair precision",
                    "predicted clusters",
                    "seconds",
                ],
                rows,
            ),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--limit", type=int, default=None, help="only the first N documents of each corpus"
    )
    parser.add_argument("--only", choices=["ru_news", "reuters"], default=None)
    parser.add_argument("--no-docs", action="store_true", help="do not touch docs/quality.md")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    need_data("ru_news.jsonl.gz", "reuters21578.jsonl.gz")
    everything = {}
    failed = False
    for key, file, lang in (
        ("ru_news", "ru_news.jsonl.gz", "ru"),
        ("reuters", "reuters21578.jsonl.gz", "en"),
    ):
        if args.only not in (None, key):
            continue
        dataset, counts = load(file, args.limit)
        log(f"[{key}] {counts}")
        results = evaluate(key, dataset, entries(lang))
        everything[key] = {"counts": counts, "results": results}
        failed |= any(r["group_recall"] not in (1.0, None) for r in results.values())
        if not args.no_docs:
            update_section(f"exact-{key}", section(file, counts, results))
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1), encoding="utf-8")
    if failed:
        log("some method missed an exact-duplicate group")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

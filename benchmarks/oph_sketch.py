"""The ``oph1`` MinHash family (one permutation hashing with optimal densification) against
the classic ``splitmix`` family: the estimator's variance, measured, and the signing cost as
the number of functions grows.

Variance: for each set size and resemblance, ``--seeds`` pairs of random 64-bit sets (a shared
part and a part of each alone, sized for the exact Jaccard asked) are signed under as many
sketch seeds; the variance of the share of equal positions is printed beside the classic
``J(1 − J)/N``. Cost: CPU seconds of ``MinHasher.sign_hashes`` over ``--docs`` sets of 200
values (the shingles of a short news item), best of 3, at N = 64, 128, 256, 512, and of
``sign_texts`` over the first documents of ru_news when ``NEARDUP_DATA`` is set.

Run (``--update-docs`` writes the tables into docs/sketches.md, "One permutation hashing")::

    NEARDUP_DATA=/work/shared/data .venv/bin/python benchmarks/oph_sketch.py --update-docs
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from neardup import MinHasher, default_spec  # noqa: E402
from neardup.spec import SketchSpec  # noqa: E402

FAMILIES = ("splitmix", "oph1")


def pair(rng: np.random.Generator, size: int, jaccard: float) -> tuple[np.ndarray, np.ndarray]:
    """Two sets of ``size`` values each whose Jaccard is ``jaccard`` (to the nearest count)."""
    shared = int(round(2 * size * jaccard / (1 + jaccard)))
    common = rng.integers(0, 2**64, shared, dtype=np.uint64)
    own = rng.integers(0, 2**64, 2 * (size - shared), dtype=np.uint64)
    return np.concatenate([common, own[: size - shared]]), np.concatenate(
        [common, own[size - shared :]]
    )


def variance_rows(seeds: int, num_perm: int) -> list[str]:
    rng = np.random.default_rng(1)
    hashers = {
        (fam, s): MinHasher(SketchSpec(family=fam, seed=s, num_perm=num_perm))
        for fam in FAMILIES
        for s in range(seeds)
    }
    rows = []
    for size in (20, 64, 200, 2000):
        for jaccard in (0.3, 0.5, 0.7, 0.9):
            a, b = pair(rng, size, jaccard)
            shared = np.intersect1d(a, b).shape[0]
            exact = shared / (a.shape[0] + b.shape[0] - shared)
            cells = []
            for fam in FAMILIES:
                est = []
                for s in range(seeds):
                    x, y = hashers[(fam, s)].sign_hashes([a, b])
                    est.append(float(np.mean(x == y)))
                cells.append(f"{np.mean(est) - exact:+.4f} / {np.var(est) * num_perm:.3f}")
            theory = exact * (1 - exact)
            rows.append(f"| {size} | {exact:.3f} | {theory:.3f} | " + " | ".join(cells) + " |")
    return rows


def cost_rows(docs: int) -> list[str]:
    rng = np.random.default_rng(2)
    sets = [rng.integers(0, 2**64, 200, dtype=np.uint64) for _ in range(docs)]
    rows = []
    for num_perm in (64, 128, 256, 512):
        cells = []
        seconds = {}
        for fam in FAMILIES:
            hasher = MinHasher(SketchSpec(family=fam, num_perm=num_perm))
            hasher.sign_hashes(sets[:2])
            best = float("inf")
            for _ in range(3):
                t0 = time.process_time()
                hasher.sign_hashes(sets)
                best = min(best, time.process_time() - t0)
            seconds[fam] = best
            cells.append(f"{docs / best:,.0f}")
        ratio = seconds["splitmix"] / seconds["oph1"]
        rows.append(f"| {num_perm} | " + " | ".join(cells) + f" | {ratio:.1f}× |")
    return rows


def text_rows(limit: int) -> list[str]:
    data = os.environ.get("NEARDUP_DATA")
    path = Path(data or "") / "ru_news.jsonl.gz"
    if not data or not path.exists():
        return ["| (NEARDUP_DATA not set: texts not measured) | | | |"]
    texts = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            texts.append(json.loads(line)["text"])
            if len(texts) >= limit:
                break
    size = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    rows = []
    for num_perm in (128, 512):
        cells = []
        seconds = {}
        for fam in FAMILIES:
            spec = default_spec("plain").replace(sketch=SketchSpec(family=fam, num_perm=num_perm))
            hasher = MinHasher(spec)
            hasher.sign_texts(texts[:5])
            best = float("inf")
            for _ in range(3):
                t0 = time.process_time()
                hasher.sign_texts(texts)
                best = min(best, time.process_time() - t0)
            seconds[fam] = best
            cells.append(f"{size / best:.1f}")
        ratio = seconds["splitmix"] / seconds["oph1"]
        rows.append(f"| {num_perm} | " + " | ".join(cells) + f" | {ratio:.2f}× |")
    return rows


SECTION = "<!-- section: oph -->"
SECTION_END = "<!-- end: oph -->"
NOTES = "<!-- oph: notes -->"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=300)
    ap.add_argument("--docs", type=int, default=20000)
    ap.add_argument("--texts", type=int, default=2000)
    ap.add_argument("--update-docs", action="store_true")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    variance = variance_rows(args.seeds, 128)
    cost = cost_rows(args.docs)
    texts = text_rows(args.texts)
    load_after = os.getloadavg()[0]
    body = "\n".join(
        [
            '## One permutation hashing (`family="oph1"`)',
            "",
            "Produced by `benchmarks/oph_sketch.py` "
            f"(`--seeds {args.seeds} --docs {args.docs} --texts {args.texts}`; one core, "
            f"load average {load:.1f} before, {load_after:.1f} after; CPU time, best of 3).",
            "",
            f"Estimator at N = 128, {args.seeds} seeds a cell: bias / N × variance of the share "
            "of equal positions (classic theory: J(1 − J)).",
            "",
            "| set size | J | J(1 − J) | splitmix bias / N·var | oph1 bias / N·var |",
            "|---:|---:|---:|---:|---:|",
            *variance,
            "",
            f"Signing {args.docs:,} sets of 200 values (`sign_hashes`), sets per CPU second:",
            "",
            "| N | splitmix | oph1 | oph1 ÷ splitmix |",
            "|---:|---:|---:|---:|",
            *cost,
            "",
            f"Signing texts (`sign_texts`, `plain`, the first {args.texts:,} ru_news documents), "
            "MB per CPU second:",
            "",
            "| N | splitmix | oph1 | oph1 ÷ splitmix |",
            "|---:|---:|---:|---:|",
            *texts,
        ]
    )
    print(body)
    if args.update_docs:
        from doc_sections import rewrite_section

        rewrite_section(ROOT / "docs" / "sketches.md", SECTION, SECTION_END, body, keep=NOTES)


if __name__ == "__main__":
    main()

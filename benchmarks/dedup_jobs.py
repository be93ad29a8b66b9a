"""One process against two: ``neardup dedup --jobs 1`` and ``--jobs 2`` on the same corpus, one
after the other, in pairs; wall and CPU seconds of each whole command, its stages, its peak
memory, and the ratio of each pair.

Corpus: the ``web`` corpus of ``dedup_speed.py`` (``web_N_seed11.jsonl`` in ``--cache``, made
there when missing). Each run is ``neardup dedup CORPUS -o OUT -p plain --threshold 0.7 --jobs J
-q`` as a child process timed by ``os.wait4`` (CPU: user + system of the command and of the
worker processes it waited for); the stages' seconds and peak memory are its ``summary.json``.
Each pair's two outputs must be the same bytes (the run stops if not). One untimed run on a few
documents first, so numba's compiled kernels are cached as after any earlier use.

Run::

    .venv/bin/python benchmarks/dedup_jobs.py --docs 1000000 --cache /work/bench_cache \\
        --pairs 2 --update-docs

Prints one JSON object (also ``build/dedup_jobs/results_N.json``) and the docs section, which
``--update-docs`` writes into docs/benchmarks.md (between the ``dedup-jobs`` markers).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from dedup_peers import warm_neardup  # noqa: E402
from dedup_speed import build, load_average  # noqa: E402
from doc_sections import rewrite_section  # noqa: E402

WORK = ROOT / "build" / "dedup_jobs"
STAGES = ("sign", "candidates", "verify", "groups", "write")


def neardup_command(corpus: Path, out: Path, jobs: int, threshold: float) -> list[str]:
    exe = str(Path(sys.executable).with_name("neardup"))
    return [
        *(exe, "dedup", str(corpus), "-o", str(out), "-p", "plain"),
        *("--threshold", str(threshold), "--jobs", str(jobs), "-q", "--overwrite"),
    ]


def run(corpus: Path, jobs: int, threshold: float) -> dict[str, Any]:
    """One timed ``neardup dedup`` (its output's digest kept, the output removed)."""
    out = WORK / f"out_{jobs}"
    shutil.rmtree(out, ignore_errors=True)
    load = load_average()
    t0 = time.perf_counter()
    proc = subprocess.Popen(neardup_command(corpus, out, jobs, threshold))
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"neardup dedup --jobs {jobs} failed ({status})")
    summary = json.loads((out / "summary.json").read_text())
    with (out / "documents.jsonl").open("rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    result = {
        "jobs": jobs,
        "wall_s": round(wall, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "stage_wall_s": {k: summary["seconds"][k] for k in STAGES},
        "stage_cpu_s": {k: summary["cpu_seconds"][k] for k in STAGES},
        "peak_memory_mb": summary["peak_memory_mb"],
        "digest": digest,
        "load_before": load,
        "load_after": load_average(),
    }
    shutil.rmtree(out, ignore_errors=True)
    return result


def markdown(r: dict[str, Any], command: str) -> str:
    rows = [
        "| pair | `--jobs` | wall s | CPU s | sign / verify / write wall s | peak memory MB "
        "(main; largest worker) | load before → after |",
        "|---|---:|---:|---:|---|---|---|",
    ]
    for k, pair in enumerate(r["pairs"], 1):
        for one in pair["runs"]:
            st = one["stage_wall_s"]
            mem = one["peak_memory_mb"]
            rows.append(
                f"| {k} | {one['jobs']} | {one['wall_s']:.1f} | {one['cpu_s']:.1f} | "
                f"{st['sign']:.1f} / {st['verify']:.1f} / {st['write']:.1f} | "
                f"{mem['main']:,.0f}; {mem['workers']:,.0f} | "
                f"{one['load_before']} → {one['load_after']} |"
            )
    ratios = [p["ratio"] for p in r["pairs"]]
    stage_ratios = {
        k: statistics.median(p["stage_ratios"][k] for p in r["pairs"])
        for k in ("sign", "verify", "write")
    }
    median = statistics.median(ratios)
    return (
        f"### One process against two ({r['docs']:,} web-corpus documents)\n\n"
        '<!-- doc-example: no-run="minutes on a million documents; its figures are below" -->\n'
        f"```console\n$ {command}\n```\n\n"
        f"`neardup dedup CORPUS -o OUT -p plain --threshold {r['threshold']} --jobs J -q`, "
        f"{r['docs']:,} documents ({r['bytes']:,} bytes of JSONL), `--jobs 1` then `--jobs 2`, "
        f"{len(r['pairs'])} pair(s) one after the other; each pair's outputs byte for byte the "
        "same. Wall and CPU seconds of the whole command (`os.wait4`); stages and memory from "
        "its `summary.json`.\n\n" + "\n".join(rows) + "\n\n"
        f"Two processes give **{median:.2f}×** one (median of "
        f"{', '.join(f'{x:.2f}×' for x in ratios)}; goal 1.8×: "
        f"**{'met' if median >= 1.8 else 'not met'}**); by stage (medians): signing "
        f"{stage_ratios['sign']:.2f}×, verification {stage_ratios['verify']:.2f}×, write "
        f"{stage_ratios['write']:.2f}×.\n"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--cache", type=Path, default=ROOT / "build" / "dedup_speed")
    ap.add_argument("--threshold", type=float, default=0.7)
    ap.add_argument("--pairs", type=int, default=1, help="pairs of runs (--jobs 1, then 2)")
    ap.add_argument(
        "--update-docs", action="store_true", help="rewrite the section in docs/benchmarks.md"
    )
    args = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    corpus = build(args.docs, args.seed, 2, args.cache)
    warm_neardup(corpus, WORK)
    pairs = []
    for k in range(args.pairs):
        runs = [run(corpus, jobs, args.threshold) for jobs in (1, 2)]
        one, two = runs
        if one["digest"] != two["digest"]:
            raise SystemExit(f"pair {k + 1}: --jobs 1 and --jobs 2 wrote different documents")
        pair = {
            "runs": runs,
            "ratio": round(one["wall_s"] / two["wall_s"], 3),
            "stage_ratios": {
                s: round(one["stage_wall_s"][s] / max(two["stage_wall_s"][s], 1e-9), 3)
                for s in ("sign", "verify", "write")
            },
        }
        print(f"pair {k + 1}: {pair['ratio']:.2f}× {json.dumps(pair['stage_ratios'])}", flush=True)
        pairs.append(pair)
    results = {
        "docs": args.docs,
        "bytes": corpus.stat().st_size,
        "threshold": args.threshold,
        "pairs": pairs,
    }
    (WORK / f"results_{args.docs}.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    command = (
        f".venv/bin/python benchmarks/dedup_jobs.py --docs {args.docs} --cache {args.cache} "
        f"--pairs {args.pairs} --update-docs"
    )
    section = markdown(results, command)
    print(section)
    if args.update_docs:
        rewrite_section(
            ROOT / "docs" / "benchmarks.md",
            "<!-- section: dedup-jobs -->",
            "<!-- end: dedup-jobs -->",
            section,
        )


if __name__ == "__main__":
    main()

"""Speed of ``neardup dedup``: the local engine per stage, Spark local[2] on the same input, and
a worked estimate for a billion documents from the measured per-core rates.

Corpus: the ``web`` corpus of collection_bench.py (web_corpus.py: real news, Reuters, 20
Newsgroups and RusLit pieces, then generated documents of which 30 % are variants of earlier
ones), written once to ``build/dedup_speed/web_N.jsonl`` (made in ``--workers`` processes).

Run (the corpus is made once into ``--cache`` and reused)::

    .venv/bin/python benchmarks/dedup_speed.py --docs 1000000 --jobs 2 \\
        --cache /work/bench_cache --update-docs        # [--spark] [--preset plain] [--no-sign]

Runs ``neardup sign`` on the same file first (its CPU seconds against the dedup's signing
stage), then the dedup; prints one JSON object (also in ``build/dedup_speed/results_N.json``)
and the docs section, which ``--update-docs`` writes into docs/benchmarks.md (between the
``dedup-local`` markers).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import collection_data as cd  # noqa: E402

for _data in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data"):
    if _data.is_dir():  # ../shared/data, or two levels up from a worktree under /work/wt/
        cd.DATA = _data
        break

from doc_sections import rewrite_section  # noqa: E402

from neardup.corpus import DedupOptions, dedup  # noqa: E402
from neardup.fingerprints.pipeline import make_spec  # noqa: E402

WORK = ROOT / "build" / "dedup_speed"
_CORPUS: Any = None


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _make(span: tuple[int, int]) -> list[str]:
    return [
        json.dumps({"id": d[0], "text": d[1]}, ensure_ascii=False)
        for d in (_CORPUS.doc(i) for i in range(*span))
    ]


def build(n: int, seed: int, workers: int, cache: Path) -> Path:
    global _CORPUS
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"web_{n}_seed{seed}.jsonl"
    if path.exists():
        return path
    from collection_bench import real_texts
    from web_corpus import WebCorpus

    _CORPUS = WebCorpus(real_texts(n), seed)
    tmp = path.with_suffix(".partial")
    t0 = time.perf_counter()
    with mp.get_context("fork").Pool(workers) as pool, tmp.open("w", encoding="utf-8") as fh:
        spans = [(lo, min(lo + 1000, n)) for lo in range(0, n, 1000)]
        for k, lines in enumerate(pool.imap(_make, spans)):
            fh.write("\n".join(lines) + "\n")
            if k % 50 == 0:
                log(f"corpus: {spans[k][1]:,} of {n:,} ({time.perf_counter() - t0:.0f} s)")
    os.replace(tmp, path)
    return path


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def run_sign(corpus: Path, preset: str, jobs: int) -> dict[str, Any]:
    """`neardup sign` on the same input, as a user runs it: wall and CPU seconds (the command
    and its worker processes, from ``wait4``)."""
    out = WORK / "sign_out"
    shutil.rmtree(out, ignore_errors=True)
    cmd = [
        str(Path(sys.executable).with_name("neardup")),
        "sign",
        str(corpus),
        "-o",
        str(out),
        "-p",
        preset,
        "--jobs",
        str(jobs),
        "-q",
    ]
    load = load_average()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"neardup sign failed ({status})")
    shutil.rmtree(out, ignore_errors=True)
    return {
        "command": " ".join(["neardup", *cmd[1:]]).replace(str(ROOT) + "/", ""),
        "wall_s": round(wall, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "load_before": load,
        "load_after": load_average(),
    }


def markdown(r: dict[str, Any], command: str) -> str:
    """The docs section of a run (docs/benchmarks.md, between the dedup-local markers)."""
    local = r["local"]
    wall, cpu = local["seconds"], local["cpu_seconds"]
    n, size = r["docs"], r["bytes"]
    mb = size / 1e6
    rows = [
        (
            "sign (workers read and parse their JSONL slices; MinHash by `neardup sign`'s "
            "fused path; band keys)",
            "sign",
        ),
        (
            f"candidates ({local['bands']} bands × {local['rows']} rows: "
            f"a sort of {n:,} keys each)",
            "candidates",
        ),
        (
            "verify (the candidate documents re-read by byte span and fingerprinted in worker "
            "tasks of whole components of the candidate graph; exact scores and groups there)",
            "verify",
        ),
        ("groups (union–find components, keep rule, similarity to the kept)", "groups"),
        (
            "write (each record's bytes spliced with the added fields, written past the page "
            "cache; edges, summary)",
            "write",
        ),
    ]
    table = ["| stage | wall s | CPU s | |", "|---|---|---|---|"]
    notes = {
        "sign": f"{mb / cpu['sign']:.1f} MB per CPU-second",
        "candidates": (
            f"{local['candidate_pairs']:,} candidate pairs, "
            f"largest bucket {local['largest_bucket']}"
        ),
        "verify": f"{local['verified_pairs']:,} pairs ≥ {r['threshold']}",
        "groups": (
            f"{local['groups']:,} groups, {local['duplicate_groups']:,} with near-copies, "
            f"{local['removed']:,} removed"
        ),
        "write": f"{mb / max(cpu['write'], 1e-9):.0f} MB per CPU-second",
    }
    for label, key in rows:
        table.append(f"| {label} | {wall[key]:.1f} | {cpu[key]:.1f} | {notes[key]} |")
    table.append(
        f"| **total** | **{wall['total']:.1f}** | **{cpu['total']:.1f}** | "
        f"{n / wall['total']:,.0f} docs/s, {mb / wall['total']:.1f} MB/s wall; "
        f"{mb / cpu['total']:.1f} MB per CPU-second |"
    )
    sign = r.get("neardup_sign")
    sign_line = ""
    if sign:
        ratio = (mb / cpu["sign"]) / (mb / sign["cpu_s"])
        sign_line = (
            f"\n`{sign['command']}` on the same file in the same run: {sign['wall_s']:.1f} s wall, "
            f"{sign['cpu_s']:.1f} CPU-seconds ({mb / sign['cpu_s']:.1f} MB per CPU-second; load "
            f"{sign['load_before']} before, {sign['load_after']} after). Dedup's signing stage, "
            "which also parses the JSON in the workers and computes the band keys: "
            f"{mb / cpu['sign']:.1f} MB per CPU-second, **{ratio:.2f}×** "
            "`neardup sign` per CPU-second.\n"
        )
    per_million = 1_000_000 / n
    if n >= 1_000_000:
        goal = (
            f"Goal (1M documents in under 5 minutes end to end on 2 cores): "
            f"**{'met' if wall['total'] < 300 else 'not met'}** in this run"
        )
    else:
        goal = (
            f"Goal (1M documents in under 5 minutes on 2 cores): not measured by this run of "
            f"{n:,}; scaled linearly, 1M would take {wall['total'] * per_million:.0f} s wall at "
            f"this load, {cpu['total'] * per_million:.0f} CPU-seconds"
        )
    b = r["billion"]
    est = (
        f"For 10^9 documents of this kind ({b['mean_bytes']:,} bytes each, "
        f"{b['mean_bytes'] / 1e3:.1f} TB in all) at the measured CPU rates: signing "
        f"**{b['sign_core_hours']:,} core-hours**, everything after signing "
        f"{b['after_sign_core_hours']:,} core-hours on one machine's arrays (on a cluster these "
        "stages become shuffles, below); the whole job "
        f"{b['total_core_hours']:,} core-hours, so on N executors of 4 cores about "
        f"{b['total_core_hours'] / 200:.1f} hours at N = 50 and "
        f"{b['total_core_hours'] / 800 * 60:.0f} minutes at N = 200, plus the shuffles: "
        f"band keys {b['shuffle']['band_rows_GB']:,.0f} GB, the signed table "
        f"(signature + fingerprints + keys) ≈ {b['shuffle']['signed_table_GB']:,.0f} GB "
        f"checkpointed, candidate pairs {b['candidate_pairs_per_doc']} a document "
        f"({b['candidate_pairs_per_doc'] * 1e9 / 1e6:,.0f} M pairs, each joined with two "
        f"fingerprint sets ≈ {b['shuffle']['verify_join_GB']:,.0f} GB)."
    )
    return (
        f"### The local engine on {n:,} web-corpus documents\n\n"
        '<!-- doc-example: no-run="minutes on a million documents; its figures are below" -->\n'
        f"```console\n$ {command}\n```\n\n"
        f"Corpus: web_corpus.py (seed {r['seed']}), {n:,} documents, {size:,} bytes of JSONL "
        f"({size / n:,.0f} bytes a document), made once by the same command into the cache "
        f"directory. `{r['preset']}` preset, t = {r['threshold']}, {r['verify']} verification, "
        f"`--jobs {r['jobs']}`. Load average {r['load_before']} before the dedup, "
        f"{r['load_after_local']} after (2 cores; other work was running: the CPU seconds are the "
        "machine-independent figures, the wall seconds what this run saw).\n\n"
        + "\n".join(table)
        + "\n\n"
        f"{goal} ({wall['total']:.0f} s wall; {cpu['total']:.0f} CPU-seconds, i.e. "
        f"{cpu['total'] / 2:.0f} s on two idle cores).\n" + sign_line + "\n" + est + "\n"
    )


def update_docs(section: str) -> None:
    rewrite_section(
        ROOT / "docs" / "benchmarks.md",
        "<!-- section: dedup-local -->",
        "<!-- end: dedup-local -->",
        section,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--workers", type=int, default=2, help="processes making the corpus")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--preset", default="plain")
    ap.add_argument("--threshold", type=float, default=0.7)
    ap.add_argument("--verify", default="exact", choices=["exact", "estimate"])
    ap.add_argument("--spark", action="store_true", help="also run Spark local[JOBS]")
    ap.add_argument(
        "--cache",
        type=Path,
        default=WORK,
        help="where the corpus is made once and kept (e.g. /work/bench_cache, outside the repo)",
    )
    ap.add_argument("--corpus-only", action="store_true", help="make the corpus and stop")
    ap.add_argument(
        "--corpus", type=Path, default=None, help="a JSONL file to use instead (its line count)"
    )
    ap.add_argument("--no-sign", action="store_true", help="skip the `neardup sign` comparison")
    ap.add_argument(
        "--update-docs", action="store_true", help="rewrite the section in docs/benchmarks.md"
    )
    args = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    if args.corpus is not None:
        corpus = args.corpus
        with corpus.open("rb") as fh:
            args.docs = sum(1 for line in fh if line.strip())
    else:
        corpus = build(args.docs, args.seed, args.workers, args.cache)
    if args.corpus_only:
        print(corpus)
        return
    size = corpus.stat().st_size
    spec = make_spec(args.preset)
    results: dict[str, Any] = {
        "docs": args.docs,
        "seed": args.seed,
        "bytes": size,
        "preset": args.preset,
        "threshold": args.threshold,
        "verify": args.verify,
        "jobs": args.jobs,
    }
    if not args.no_sign:
        results["neardup_sign"] = run_sign(corpus, args.preset, args.jobs)
        log(json.dumps(results["neardup_sign"]))
    results["load_before"] = load_average()
    out = WORK / f"out_{args.docs}"
    shutil.rmtree(out, ignore_errors=True)  # an earlier spec may differ
    t0 = time.perf_counter()
    local = dedup(
        [corpus],
        out,
        spec=spec,
        options=DedupOptions(threshold=args.threshold, verify=args.verify),  # type: ignore[arg-type]
        jobs=args.jobs,
        overwrite=True,
        progress=False,
    )
    wall = time.perf_counter() - t0
    shutil.rmtree(out, ignore_errors=True)
    results["local"] = local.to_dict() | {"wall_s": round(wall, 1)}
    results["load_after_local"] = load_average()
    log(json.dumps(results["local"]["seconds"]) + " " + json.dumps(local.cpu_seconds))
    cpu = local.cpu_seconds
    if args.spark:
        from neardup.spark import dedup_files

        t0 = time.perf_counter()
        shutil.rmtree(WORK / f"spark_{args.docs}", ignore_errors=True)
        summary = dedup_files(
            [str(corpus)],
            WORK / f"spark_{args.docs}",
            DedupOptions(threshold=args.threshold, verify=args.verify),  # type: ignore[arg-type]
            spec=spec,
            master=f"local[{args.jobs}]",
            overwrite=True,
        )
        results["spark"] = summary | {"wall_s": round(time.perf_counter() - t0, 1)}
        results["spark"]["same_group_count"] = summary["groups"] == local.groups
    # a billion documents, at this corpus's mean size and the measured CPU rates
    billion = 1_000_000_000
    mean_bytes = size / args.docs
    scale = billion / args.docs
    fps_per_doc = 0.074 * mean_bytes  # fingerprints per byte of text, measured in the 100k run
    results["billion"] = {
        "mean_bytes": round(mean_bytes),
        "sign_core_hours": round(cpu["sign"] * scale / 3600),
        "after_sign_core_hours": round((cpu["total"] - cpu["sign"]) * scale / 3600),
        "total_core_hours": round(cpu["total"] * scale / 3600),
        "shuffle": {
            "band_rows_GB": round(billion * local.bands * 24 / 1e9),
            "signed_table_GB": round(billion * (128 * 8 + fps_per_doc * 8 + local.bands * 8) / 1e9),
            "verify_join_GB": round(
                local.candidate_pairs / args.docs * billion * 2 * fps_per_doc * 8 / 1e9
            ),
        },
        "candidate_pairs_per_doc": round(local.candidate_pairs / args.docs, 3),
    }
    (WORK / f"results_{args.docs}.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    command = (
        f".venv/bin/python benchmarks/dedup_speed.py --jobs {args.jobs} "
        + (f"--corpus {args.corpus}" if args.corpus else f"--docs {args.docs} --cache {args.cache}")
        + " --update-docs"
    )
    section = markdown(results, command)
    print(section)
    if args.update_docs:
        update_docs(section)


if __name__ == "__main__":
    main()

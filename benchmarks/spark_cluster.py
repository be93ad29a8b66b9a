"""``neardup dedup`` on the local engine against Spark on a multi-process cluster, one run.

The same command on the same input, side by side (issue 26): the local engine
(``--jobs 2``), then ``--engine spark --master local-cluster[2,1,1024]`` — a standalone master
and two workers in the driver JVM, each executor a JVM of its own with its Python workers —
and, with ``--local-mode``, Spark ``local[2]`` (one JVM) as well. Each run is a child process
of this script, which makes itself the *subreaper* of everything the run starts
(``PR_SET_CHILD_SUBREAPER``): the driver JVM that pyspark leaves to exit on its own, the
executor JVMs and the Python workers are all reaped here, so their CPU seconds are all in
this process's ``RUSAGE_CHILDREN`` (no sampling gap). Memory is sampled every 0.5 s over the
whole process tree: the peak of the summed PSS (shared pages split between the processes
sharing them) and of the summed RSS; ``ru_maxrss`` gives the largest single process.

Corpus: the ``web`` corpus of dedup_speed.py (web_corpus.py: real texts read by path from
``../shared/data``, then generated documents of which 30 % are variants of earlier ones),
made once into ``--cache`` (outside the repository) and reused::

    .venv/bin/python benchmarks/spark_cluster.py --docs 100000 --cache /work/bench_cache \\
        --update-docs            # [--local-mode] [--corpus FILE.jsonl]

Prints one JSON object (also ``build/spark_cluster/results_N.json``) and the docs section,
which ``--update-docs`` writes at the end of docs/benchmarks.md (between the ``spark-cluster``
markers). Identical output means the same ``documents.jsonl`` and ``edges.jsonl`` bytes
(every group, kept flag, similarity and verified pair).
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from dedup_speed import build, load_average  # noqa: E402
from doc_sections import rewrite_section  # noqa: E402

WORK = ROOT / "build" / "spark_cluster"
EXECUTOR_CLASS = "org.apache.spark.executor.CoarseGrainedExecutorBackend"
PR_SET_CHILD_SUBREAPER = 36


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def become_subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def descendants(root: int) -> list[int]:
    """Pids of every process under ``root`` (from /proc)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as fh:
                    parent[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    out = []
    for pid in parent:
        p = pid
        while p in parent and p != root:
            p = parent[p]
        if p == root and pid != root:
            out.append(pid)
    return out


def _memory_kb(pid: int) -> tuple[int, int]:
    """(PSS, RSS) of a process in kB, zeros when it is gone."""
    pss = rss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    pss = int(line.split()[1])
                elif line.startswith("Rss:"):
                    rss = int(line.split()[1])
    except OSError:
        pass
    return pss, rss


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def measure(cmd: list[str]) -> dict[str, Any]:
    """Run ``cmd`` to the end of every process it started: wall, CPU seconds of all of them,
    peak summed PSS / RSS, the largest process, how many processes and executor JVMs ran."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = load_average()
    peak = {"pss": 0, "rss": 0}
    seen: set[int] = set()
    executors: set[int] = set()
    done = threading.Event()
    me = os.getpid()

    def sample() -> None:
        while not done.wait(0.5):
            pids = descendants(me)
            pss = rss = 0
            for pid in pids:
                p, r = _memory_kb(pid)
                pss, rss = pss + p, rss + r
                if pid not in seen:
                    seen.add(pid)
                    if EXECUTOR_CLASS in _cmdline(pid):
                        executors.add(pid)
            peak["pss"], peak["rss"] = max(peak["pss"], pss), max(peak["rss"], rss)

    sampler = threading.Thread(target=sample, daemon=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    sampler.start()
    out, _ = proc.communicate()
    wall_cmd = time.perf_counter() - t0
    while True:  # the orphans (the driver JVM shutting down, ...) are ours to reap
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    wall = time.perf_counter() - t0
    done.set()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode})")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "wall_s": round(wall_cmd, 1),
        "wall_all_exited_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "peak_pss_mb": round(peak["pss"] / 1024),
        "peak_rss_mb": round(peak["rss"] / 1024),
        "largest_process_mb": round(after.ru_maxrss / 1024),
        "processes": len(seen),
        "executor_jvms": len(executors),
        "load_before": load,
        "load_after": load_average(),
        "stdout": out.strip().splitlines()[-1] if out.strip() else "",
    }


def digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run(name: str, corpus: Path, args: argparse.Namespace, extra: list[str]) -> dict[str, Any]:
    out = WORK / f"out_{name}"
    shutil.rmtree(out, ignore_errors=True)
    cmd = [str(Path(sys.executable).with_name("neardup")), "dedup", str(corpus), "--out", str(out)]
    cmd += ["-p", args.preset, "-t", str(args.threshold), "--format", "jsonl", "-q", *extra]
    log(f"{name}: {' '.join(cmd)}")
    r = measure(cmd)
    summary = json.loads((out / "summary.json").read_text("utf-8"))
    r |= {
        "command": " ".join(["neardup", *cmd[1:]]).replace(str(ROOT) + "/", ""),
        "groups": summary["groups"],
        "verified_pairs": summary["verified_pairs"],
        "stage_seconds": summary["seconds"],
        "documents_sha256": digest(out / "documents.jsonl"),
        "edges_sha256": digest(out / "edges.jsonl"),
    }
    with (out / "documents.jsonl").open(encoding="utf-8") as fh:
        r["group_of"] = {d["id"]: d["group"] for d in map(json.loads, fh)}
    r["out"] = str(out.relative_to(ROOT))  # kept until the next run, to compare by hand
    log(json.dumps({k: v for k, v in r.items() if k != "group_of"}))
    return r


def markdown(res: dict[str, Any], command: str) -> str:
    runs: dict[str, dict[str, Any]] = res["runs"]
    local = runs["local"]
    labels = {
        "local": "local engine, `--jobs 2`",
        "cluster": f"Spark `{res['master']}`",
        "local_mode": "Spark `local[2]`",
    }
    lines = [
        "## Spark on a multi-process cluster against the local engine (issue 26)",
        "",
        '<!-- doc-example: no-run="half an hour of Spark on 100,000 documents" -->',
        "```console",
        f"$ {command}",
        "```",
        "",
        (
            f"Corpus: {res['corpus']}, "
            if res["corpus"]
            else f"Corpus: web_corpus.py (seed {res['seed']}), made once into the cache directory, "
        )
        + f"{res['docs']:,} documents, {res['bytes']:,} bytes of JSONL. `{res['preset']}` "
        f"preset, t = {res['threshold']}, exact verification, the same `neardup dedup` command "
        "for each engine, one after the other in one run. Measured on a shared, loaded 2-core "
        "machine (other agents' work was running; the load average before and after each run "
        "is in the table): CPU seconds are the figures that depend least on it. CPU is every "
        "process the command started (the driver, its JVM, the executor JVMs, the Python "
        "workers), reaped by the benchmark as their subreaper; memory is the peak of the sum "
        "over the process tree, sampled every 0.5 s (PSS splits shared pages).",
        "",
        "| engine | wall s | CPU s | CPU × local | peak PSS MB (sum) | peak RSS MB (sum) "
        "| largest process MB | processes | identical output | load before → after |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for name, r in runs.items():
        same = (
            "—"
            if name == "local"
            else ("**yes**" if r["identical_output"] else "**no**")
            + f" ({'same' if r['identical_groups'] else 'different'} groups)"
        )
        lines.append(
            f"| {labels[name]} | {r['wall_s']} | {r['cpu_s']} | "
            f"{r['cpu_s'] / local['cpu_s']:.1f}× | {r['peak_pss_mb']:,} | {r['peak_rss_mb']:,} | "
            f"{r['largest_process_mb']:,} | {r['processes']} | {same} | "
            f"{r['load_before'].split()[0]} → {r['load_after'].split()[0]} |"
        )
    lines.append("")
    cluster = runs["cluster"]
    lines.append(
        f"{local['groups']:,} groups and {local['verified_pairs']:,} verified pairs on the local "
        f"engine; the cluster ran {cluster['executor_jvms']} executor JVMs and gave "
        + (
            "byte-identical `documents.jsonl` and `edges.jsonl`."
            if cluster["identical_output"]
            else "a different output."
        )
        + f" Its {cluster['wall_s']} s of wall time were {cluster['stage_seconds']['read']} s "
        "of the driver streaming the input through the one reader into Parquet parts, "
        f"{cluster['stage_seconds']['spark']} s of the Spark plan and "
        f"{cluster['stage_seconds']['write']} s of writing the records; the local engine's: "
        + ", ".join(f"{k} {v}" for k, v in local["stage_seconds"].items())
        + " s."
    )
    return "\n".join(lines)


def update_docs(section: str) -> None:
    rewrite_section(
        ROOT / "docs" / "benchmarks.md",
        "<!-- section: spark-cluster -->",
        "<!-- end: spark-cluster -->",
        section,
        keep="<!-- notes -->",
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--workers", type=int, default=2, help="processes making the corpus")
    ap.add_argument("--preset", default="plain")
    ap.add_argument("--threshold", type=float, default=0.7)
    ap.add_argument("--master", default="local-cluster[2,1,1024]")
    ap.add_argument("--local-mode", action="store_true", help="also run Spark local[2]")
    ap.add_argument(
        "--cache",
        type=Path,
        default=WORK,
        help="where the corpus is made once and kept (e.g. /work/bench_cache, outside the repo)",
    )
    ap.add_argument(
        "--corpus", type=Path, default=None, help="a JSONL file to use instead (its line count)"
    )
    ap.add_argument(
        "--update-docs", action="store_true", help="rewrite the section in docs/benchmarks.md"
    )
    args = ap.parse_args()
    if args.corpus is not None:
        corpus = args.corpus
        with corpus.open("rb") as fh:
            args.docs = sum(1 for _ in fh)
    else:
        corpus = build(args.docs, args.seed, args.workers, args.cache)
    WORK.mkdir(parents=True, exist_ok=True)
    become_subreaper()
    runs: dict[str, dict[str, Any]] = {}
    plan = [("local", ["--jobs", "2"]), ("cluster", ["--engine", "spark", "--master", args.master])]
    if args.local_mode:
        plan.append(("local_mode", ["--engine", "spark", "--master", "local[2]"]))
    for name, extra in plan:
        runs[name] = run(name, corpus, args, extra)
        partial = {k: {f: v for f, v in r.items() if f != "group_of"} for k, r in runs.items()}
        (WORK / f"partial_{args.docs}.json").write_text(json.dumps(partial, indent=2) + "\n")
    for r in list(runs.values())[1:]:
        r["identical_groups"] = r["group_of"] == runs["local"]["group_of"]
        r["identical_output"] = (r["documents_sha256"], r["edges_sha256"]) == (
            runs["local"]["documents_sha256"],
            runs["local"]["edges_sha256"],
        )
    for r in runs.values():
        del r["group_of"]
    results = {
        "docs": args.docs,
        "bytes": corpus.stat().st_size,
        "seed": args.seed,
        "corpus": str(args.corpus) if args.corpus else None,
        "preset": args.preset,
        "threshold": args.threshold,
        "master": args.master,
        "runs": runs,
    }
    (WORK / f"results_{args.docs}.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    command = (
        ".venv/bin/python benchmarks/spark_cluster.py "
        + (f"--corpus {args.corpus}" if args.corpus else f"--docs {args.docs} --cache {args.cache}")
        + (f" --master '{args.master}'" if args.master != "local-cluster[2,1,1024]" else "")
        + (" --local-mode" if args.local_mode else "")
        + " --update-docs"
    )
    section = markdown(results, command)
    print(section)
    if args.update_docs:
        update_docs(section)


if __name__ == "__main__":
    main()

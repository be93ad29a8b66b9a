"""The whole dedup job side by side with its peers (issue 26): ``neardup dedup`` and gaoya,
rensa, datasketch, datatrove's MinHash pipeline and FastSketchLSH (the Fast Similarity
Sketch), each doing the whole job on the same JSONL as its users would, measured from
outside, scored against the exact truth.

Corpus: the ``web`` corpus of ``dedup_speed.py`` (``web_100000_seed11.jsonl`` in ``--cache``,
made by ``dedup_speed.build`` when missing); ``--docs N`` takes its first N records (a prefix
file written into the cache).

Each peer runs in its own venv, ``build/peers/<name>/`` (made here when missing: ``python3 -m
venv`` and ``pip install`` of the pinned package, never the project's extras), as a child
process running ``benchmarks/peers/run_<name>.py``: read the JSONL, tokenize (lowercase word
5-grams, the library's own tokenizer where it has one), 128 permutations, LSH at the threshold
(the library's own bands where it chooses them; else datasketch's optimal parameters for the
threshold), and write the pairs or clusters it finds. A peer that cannot be installed or run
is a row saying so. neardup runs as ``neardup dedup CORPUS -o OUT -p plain --threshold T --jobs
J -q`` (exact verification, the default; one untimed warm-up run on a few documents first, so
that numba's compiled kernels are cached as after any earlier use); its pairs are
``edges.jsonl``.

Each run is one child process timed with ``os.wait4``: wall seconds, CPU seconds (user +
system of the child and the descendants it waited for) and peak RSS (the largest of those
processes, not their sum); the load average before and after.

Truth: exact Jaccard of neardup's ``plain`` 5-word shingle fingerprint sets, every pair of
J ≥ 0.5 found by an exact all-pairs join (``peers/truth.py``: prefix filtering on tokens
ordered by rarity, every candidate scored exactly), cached in ``--cache``. Scores per tool:
recall of the truth pairs with J ≥ T and of those in [0.5, T) (a clustering tool finds a pair
when both documents share a cluster), precision (the share of reported pairs, or of the pairs
inside reported clusters, with true J ≥ T; also ≥ 0.5).

Run (sequentially, one tool at a time)::

    .venv/bin/python benchmarks/dedup_peers.py --docs 100000 --cache /work/bench_cache \\
        --update-docs        # [--tools neardup,rensa:2] [--jobs 1,2] [--skip-truth]

Prints one JSON object (also ``build/dedup_peers/results_N.json``) and a markdown table, which
``--update-docs`` writes into docs/benchmarks.md (between the ``dedup-peers`` markers).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "benchmarks" / "peers"))

from doc_sections import rewrite_section  # noqa: E402
from truth import Truth, load_or_make_truth, score  # noqa: E402

WORK = ROOT / "build" / "dedup_peers"
PEERS_DIR = ROOT / "build" / "peers"
RUNNERS = ROOT / "benchmarks" / "peers"
FULL = 100_000
#: Where the hand-written notes of the docs section start (kept by ``--update-docs``).
NOTES = "<!-- notes: dedup-peers -->"
#: What each peer's venv installs: the library at the version measured, and what its dedup
#: path imports that the package does not require (datatrove's tokenizer, hashing and
#: text-normalisation modules sit behind its optional extras).
PACKAGES: dict[str, list[str]] = {
    "gaoya": ["gaoya==0.2.2"],
    "rensa": ["rensa==0.5.0"],
    "datasketch": ["datasketch==2.0.0"],
    "datatrove": ["datatrove==0.10.1", "xxhash<4", "regex", "spacy", "tokenizers", "orjson"],
    "fastsketchlsh": ["fastsketchlsh==1.0.1", "numpy"],
}
IMPORTS = {
    "gaoya": "gaoya",
    "rensa": "rensa",
    "datasketch": "datasketch",
    "datatrove": "datatrove",
    "fastsketchlsh": "FastSketchLSH",
}
TOOLS = ("neardup", "gaoya", "rensa", "datasketch", "datatrove", "fastsketchlsh")
#: Tools that run in one process whatever ``--jobs`` says.
SINGLE = {"datasketch"}
#: Bands × rows when datasketch cannot be asked (its optimal parameters at 0.7, 128).
FALLBACK_BANDS = (14, 9)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


# --- the corpus ---------------------------------------------------------------------------------
def corpus_path(docs: int, seed: int, workers: int, cache: Path) -> Path:
    """The web corpus of ``max(docs, 100,000)`` documents (made by ``dedup_speed.build`` when
    missing), or a file of its first ``docs`` records beside it."""
    from dedup_speed import build

    full = build(max(docs, FULL), seed, workers, cache)
    if docs >= FULL:
        return full
    prefix = cache / f"{full.stem}_first{docs}.jsonl"
    if not prefix.exists():
        tmp = prefix.with_suffix(".partial")
        with full.open("rb") as src, tmp.open("wb") as out:
            for k, line in enumerate(src):
                if k >= docs:
                    break
                out.write(line)
        os.replace(tmp, prefix)
    return prefix


# --- peers' environments ------------------------------------------------------------------------
def peer_python(name: str) -> tuple[Path | None, str]:
    """The python of the peer's venv, made and checked here; ``(None, why)`` when it cannot
    be installed or imported."""
    venv = PEERS_DIR / name
    python = venv / "bin" / "python"
    try:
        if not python.exists():
            log(f"{name}: making {venv.relative_to(ROOT)} (pip install {' '.join(PACKAGES[name])})")
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run(
                [str(python), "-m", "pip", "install", "-q", *PACKAGES[name]],
                check=True,
                capture_output=True,
                text=True,
            )
        subprocess.run(
            [str(python), "-c", f"import {IMPORTS[name]}"], check=True, capture_output=True
        )
    except subprocess.CalledProcessError as exc:
        err = (exc.stderr or "") if isinstance(exc.stderr, str) else (exc.stderr or b"").decode()
        last = err.strip().splitlines()[-1] if err.strip() else str(exc)
        return None, f"cannot install or import: {last}"
    except OSError as exc:
        return None, f"cannot install: {exc}"
    return python, ""


def datasketch_bands(threshold: float, num_perm: int) -> tuple[int, int, str]:
    """Bands and rows for the libraries without a chooser: datasketch's optimal parameters
    (equal weights of false positives and negatives), asked of datasketch in its venv."""
    python, why = peer_python("datasketch")
    if python is not None:
        code = (
            "from datasketch.lsh import _optimal_param;"
            f"print(*_optimal_param({threshold}, {num_perm}, 0.5, 0.5))"
        )
        done = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
        if done.returncode == 0:
            b, r = (int(x) for x in done.stdout.split())
            return b, r, "datasketch's _optimal_param"
    return *FALLBACK_BANDS, f"fixed (datasketch unavailable: {why})"


# --- one timed child ----------------------------------------------------------------------------
class Launcher:
    """``peers/launch.py``, started before anything large is loaded: it runs each timed
    child, so that the child's peak RSS is its own (a child of this process would start
    from this process's peak)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(RUNNERS / "launch.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run(self, command: list[str], env: dict[str, str], out: Path, err: Path) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        request = {"command": command, "env": env, "stdout": str(out), "stderr": str(err)}
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return dict(json.loads(self.proc.stdout.readline()))

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


LAUNCHER: Launcher | None = None


def timed(command: list[str], env: dict[str, str], log_path: Path) -> dict[str, Any]:
    """Run ``command`` to its end: wall, CPU (user + system, the child and the descendants
    it waited for) and peak RSS (the largest of them), its last stdout line as JSON."""
    assert LAUNCHER is not None
    load = load_average()
    out = log_path.with_suffix(".out")
    usage = LAUNCHER.run(command, env, out, log_path)
    lines = out.read_text(errors="replace").strip().splitlines()
    out.unlink()
    result: dict[str, Any] = {
        "wall_s": round(usage["wall"], 2),
        "cpu_s": round(usage["user"] + usage["system"], 2),
        "user_s": round(usage["user"], 2),
        "peak_rss_mb": round(usage["maxrss_kib"] / 1024, 1),
        "load_before": load,
        "load_after": load_average(),
        "exit": usage["exit"],
    }
    if result["exit"] != 0:
        tail = log_path.read_text(errors="replace").strip().splitlines()[-3:]
        result["error"] = f"exit {result['exit']}: " + " | ".join(tail)
    elif lines:
        try:
            result["info"] = json.loads(lines[-1])
        except json.JSONDecodeError:
            result["info"] = {"stdout": lines[-1][:200]}
    return result


def child_env(jobs: int) -> dict[str, str]:
    """The environment of a run: Rayon's threads (gaoya, rensa) and BLAS threads held to
    ``jobs``; Python's bytecode cached as an installed package has it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        RAYON_NUM_THREADS=str(jobs),
        OMP_NUM_THREADS=str(jobs),
        OPENBLAS_NUM_THREADS=str(jobs),
        MKL_NUM_THREADS=str(jobs),
    )
    return env


def run_neardup(corpus: Path, threshold: float, jobs: int) -> tuple[dict[str, Any], Path | None]:
    out = WORK / f"neardup_out_{jobs}"
    shutil.rmtree(out, ignore_errors=True)
    exe = str(Path(sys.executable).with_name("neardup"))
    args = ["dedup", "-p", "plain", "--threshold", str(threshold), "--jobs", str(jobs), "-q"]
    command = [exe, args[0], str(corpus), "-o", str(out), *args[1:], "--overwrite"]
    result = timed(command, child_env(jobs), WORK / f"neardup_{jobs}.log")
    result["command"] = " ".join(["neardup", args[0], "CORPUS", "-o", "OUT", *args[1:]])
    if "error" in result:
        return result, None
    summary = json.loads((out / "summary.json").read_text())
    result["info"] = {
        "reports": "pairs",
        "bands_rows": f"{summary['bands']}x{summary['rows']}",
        "candidate_pairs": summary["candidate_pairs"],
        "pairs": summary["verified_pairs"],
        "removed": summary["removed"],
        "stage_cpu_s": summary.get("cpu_seconds"),
    }
    pairs = WORK / f"neardup_{jobs}.tsv"
    with (out / "edges.jsonl").open(encoding="utf-8") as fh, pairs.open("w") as dst:
        for line in fh:
            edge = json.loads(line)
            dst.write(f"{edge['a']}\t{edge['b']}\t{edge['resemblance']}\n")
    return result, pairs


def warm_neardup(corpus: Path, work: Path = WORK) -> None:
    """One small untimed run, so numba's compiled kernels are in its cache (as after any
    earlier use of neardup on this machine)."""
    small = work / "warm.jsonl"
    with corpus.open("rb") as src, small.open("wb") as dst:
        for k, line in enumerate(src):
            if k >= 300:
                break
            dst.write(line)
    for jobs in (1, 2):
        out = work / "warm_out"
        exe = str(Path(sys.executable).with_name("neardup"))
        cmd = [exe, "dedup", str(small), "-o", str(out), "-p", "plain", "--jobs", str(jobs)]
        subprocess.run([*cmd, "-q", "--overwrite"], check=True, capture_output=True)
        shutil.rmtree(out, ignore_errors=True)


def run_peer(
    name: str, corpus: Path, threshold: float, jobs: int, bands: tuple[int, int]
) -> tuple[dict[str, Any], Path | None]:
    python, why = peer_python(name)
    if python is None:
        return {"error": why}, None
    out = WORK / f"{name}_{jobs}.tsv"
    out.unlink(missing_ok=True)
    b, r = (0, 0) if name in ("gaoya", "datasketch") else bands
    command = [
        str(python),
        str(RUNNERS / f"run_{name}.py"),
        "--corpus",
        str(corpus),
        "--out",
        str(out),
        "--work",
        str(WORK / f"{name}_work"),
        "--threshold",
        str(threshold),
        "--num-perm",
        "128",
        "--bands",
        str(b),
        "--rows",
        str(r),
        "--jobs",
        str(jobs),
    ]
    result = timed(command, child_env(jobs), WORK / f"{name}_{jobs}.log")
    shutil.rmtree(WORK / f"{name}_work", ignore_errors=True)
    result["command"] = (
        f"build/peers/{name}/bin/python benchmarks/peers/run_{name}.py --corpus CORPUS "
        f"--out PAIRS --threshold {threshold} --num-perm 128 --bands {b} --rows {r} "
        f"--jobs {jobs}"
    )
    return result, (None if "error" in result else out)


# --- the report ---------------------------------------------------------------------------------
def plan(tools_arg: str, jobs_arg: str) -> list[tuple[str, int]]:
    """(tool, jobs) runs: ``--tools`` names tools (every ``--jobs`` count) or ``tool:jobs``."""
    jobs = [int(j) for j in jobs_arg.split(",") if j]
    runs: list[tuple[str, int]] = []
    for item in (t.strip() for t in tools_arg.split(",") if t.strip()):
        name, _, j = item.partition(":")
        if name not in TOOLS:
            raise SystemExit(f"unknown tool {name!r} (one of {', '.join(TOOLS)})")
        counts = [int(j)] if j else ([1] if name in SINGLE else jobs)
        runs += [(name, c) for c in counts if (name, c) not in runs]
    return runs


def fmt(value: Any, spec: str = ".3f") -> str:
    return "–" if value is None else format(value, spec)


def markdown(results: dict[str, Any], command: str) -> str:
    rows = results["runs"]
    neardup = {r["jobs"]: r for r in rows if r["tool"] == "neardup" and "cpu_s" in r}
    best = neardup.get(1) or next(iter(neardup.values()), None)
    head = (
        "| tool | jobs | bands × rows | reports | CPU s | wall s | peak RSS MB | recall ≥ "
        f"{results['threshold']} | recall 0.5–{results['threshold']} | precision (≥ "
        f"{results['threshold']} / ≥ 0.5) | pairs reported | removed | neardup × tool (CPU) |"
    )
    table = [head, "|" + "---|" * 13]
    for r in rows:
        label = r["tool"] + (f" {r['version']}" if r.get("version") else "")
        if "error" in r:
            table.append(f"| {label} | {r['jobs']} | | | {r['error'][:120]} |||||||||")
            continue
        s = r.get("score", {})
        ratio = ""
        if best is not None and r["tool"] != "neardup":
            ratio = f"{r['cpu_s'] / best['cpu_s']:.1f}×"
        elif r["tool"] == "neardup" and best is not None:
            ratio = "1.0×" if r is best else f"{r['cpu_s'] / best['cpu_s']:.2f}×"
        shape = r.get("bands_rows", "").replace("x", " × ")
        removed = f"{r['removed']:,}" if r.get("removed") is not None else "–"
        table.append(
            f"| {label} | {r['jobs']} | {shape} | {r.get('reports', '')} | "
            f"{r['cpu_s']:.1f} | {r['wall_s']:.1f} | {r['peak_rss_mb']:,.0f} | "
            f"{fmt(s.get('recall_high'))} | {fmt(s.get('recall_mid'))} | "
            f"{fmt(s.get('precision_high'))} / {fmt(s.get('precision_half'))} | "
            f"{s.get('pairs_reported', r.get('pairs', '')):,} | {removed} | "
            f"{ratio} |"
        )
    truth = results.get("truth") or {}
    loads = ", ".join(
        f"{r['tool']} {r['jobs']}: {r['load_before']} → {r['load_after']}"
        for r in rows
        if "load_before" in r
    )
    truth_line = (
        f"Truth: {truth['pairs_high']:,} pairs with J ≥ {results['threshold']} and "
        f"{truth['pairs_mid']:,} with 0.5 ≤ J < {results['threshold']} (exact all-pairs join "
        f"on neardup's `plain` 5-word shingle sets; {truth['candidates']:,} candidates from "
        f"prefix filtering, each scored exactly; {truth['seconds']:.0f} s to make, cached)."
        if truth
        else "Truth: not computed in this run (`--skip-truth`)."
    )
    return (
        f"### The whole job against its peers ({results['docs']:,} web-corpus documents)\n\n"
        '<!-- doc-example: no-run="minutes of five libraries on 100,000 documents; its figures '
        'are below" -->\n'
        f"```console\n$ {command}\n```\n\n"
        f"Corpus: `{results['corpus']}` ({results['bytes']:,} bytes of JSONL, the corpus of "
        "`dedup_speed.py`, ~30 % near-copies). Every tool reads the JSONL, tokenizes, signs "
        f"with 128 functions and runs LSH at t = {results['threshold']} in its own child process "
        "(each peer in its own venv under `build/peers/`, `benchmarks/peers/run_<name>.py`); "
        "CPU is user + system of the process and the workers it waited for, peak RSS the "
        "largest of those processes. Rayon threads (gaoya, rensa) are held to `jobs`; "
        "datasketch has no parallel path. Bands × rows: neardup's chooser; gaoya's own "
        f"(S-curve); datasketch's own; rensa, datatrove and FastSketchLSH, which choose none, "
        f"{results['bands_source']} ({results['bands'][0]} × {results['bands'][1]}).\n\n"
        + "\n".join(table)
        + "\n\n"
        + truth_line
        + " Recall of a clustering tool counts a pair as found when both documents share a "
        "cluster; its precision is over all pairs inside its clusters. Precision is the share "
        f"of reported pairs whose true J ≥ {results['threshold']} (and ≥ 0.5). neardup × tool "
        "is the tool's CPU seconds over neardup's with one process (above 1: neardup is "
        "that many times cheaper).\n\n"
        + verdict(rows)
        + f"Load average before → after each run: {loads}.\n"
    )


def verdict(rows: list[dict[str, Any]]) -> str:
    """Issue 26's goal: neardup's CPU seconds (one process) against the cheapest peer's run,
    with both recalls at the threshold."""
    ones = (r for r in rows if r["tool"] == "neardup" and r["jobs"] == 1 and "score" in r)
    ours = next(ones, None)
    peers = [r for r in rows if r["tool"] != "neardup" and "score" in r]
    if ours is None or not peers:
        return ""
    cheapest = min(peers, key=lambda r: r["cpu_s"])
    ratio = cheapest["cpu_s"] / ours["cpu_s"]
    recall, theirs = ours["score"]["recall_high"], cheapest["score"]["recall_high"]
    met = ratio >= 2 and recall >= theirs
    return (
        f"Goal of issue 26 (≥ 2× the best peer per CPU-second at equal or better recall): "
        f"the cheapest peer run is {cheapest['tool']} with {cheapest['jobs']} "
        f"{'thread' if cheapest['jobs'] == 1 else 'threads'}, {cheapest['cpu_s']:.1f} "
        f"CPU-seconds against neardup's {ours['cpu_s']:.1f}: **{ratio:.2f}×**, at recall "
        f"{recall:.3f} against {theirs:.3f}; **{'met' if met else 'not met'}** in this run.\n\n"
    )


def update_docs(section: str) -> None:
    rewrite_section(
        ROOT / "docs" / "benchmarks.md",
        "<!-- section: dedup-peers -->",
        "<!-- end: dedup-peers -->",
        section,
        keep=NOTES,
        missing_before="### Spark local[2] against the local engine",
    )


def command_line(args: argparse.Namespace) -> str:
    return (
        f".venv/bin/python benchmarks/dedup_peers.py --docs {args.docs} --cache {args.cache}"
        + (f" --tools {args.tools}" if args.tools != ",".join(TOOLS) else "")
        + (f" --jobs {args.jobs}" if args.jobs != "1,2" else "")
        + " --update-docs"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=FULL, help="the first N records of the corpus")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--workers", type=int, default=2, help="processes making corpus and truth")
    ap.add_argument("--cache", type=Path, default=WORK, help="corpus and truth, kept")
    ap.add_argument("--tools", default=",".join(TOOLS), help="tool or tool:jobs, comma-separated")
    ap.add_argument("--jobs", default="1,2", help="process (thread) counts of each tool")
    ap.add_argument("--threshold", type=float, default=0.7)
    ap.add_argument("--skip-truth", action="store_true", help="time only; no recall")
    ap.add_argument("--update-docs", action="store_true", help="rewrite docs/benchmarks.md")
    ap.add_argument(
        "--report-only",
        action="store_true",
        help="no runs: the table of the saved build/dedup_peers/results_N.json",
    )
    args = ap.parse_args()
    if args.report_only:
        saved = json.loads((WORK / f"results_{args.docs}.json").read_text())
        section = markdown(saved, command_line(args))
        print(section)
        if args.update_docs:
            update_docs(section)
        return
    global LAUNCHER
    LAUNCHER = Launcher()  # first, while this process is small
    WORK.mkdir(parents=True, exist_ok=True)
    corpus = corpus_path(args.docs, args.seed, args.workers, args.cache)
    runs = plan(args.tools, args.jobs)
    t = args.threshold
    truth: Truth | None = None
    if not args.skip_truth:
        truth = load_or_make_truth(corpus, args.docs, args.cache, args.workers)
        log(f"truth: {truth.summary()}")
    b, r, source = datasketch_bands(t, 128)
    results: dict[str, Any] = {
        "docs": args.docs,
        "corpus": corpus.name,
        "bytes": corpus.stat().st_size,
        "threshold": t,
        "bands": [b, r],
        "bands_source": source,
        "truth": truth.summary() if truth is not None else None,
        "runs": [],
    }
    if any(name == "neardup" for name, _ in runs):
        warm_neardup(corpus)
    for name, jobs in runs:
        log(f"{name} --jobs {jobs} (load {load_average()})")
        found: Path | None
        if name == "neardup":
            result, found = run_neardup(corpus, t, jobs)
        else:
            result, found = run_peer(name, corpus, t, jobs, (b, r))
        info = result.pop("info", {})
        row = {"tool": name, "jobs": jobs, **result}
        row.update({k: info[k] for k in info if k != "steps"})
        row["steps"] = info.get("steps")
        if found is not None and truth is not None:
            row["score"] = score(truth, found, info.get("reports", "pairs"), t)
            if name == "neardup":
                row["score"]["max_abs_resemblance_diff"] = truth.check_scores(found)
        log(json.dumps(row))
        results["runs"].append(row)
        # after each run, so a long run's finished rows survive a later failure
        (WORK / f"results_{args.docs}.json").write_text(json.dumps(results, indent=2) + "\n")
    (WORK / f"results_{args.docs}.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    command = command_line(args)
    section = markdown(results, command)
    print(section)
    if args.update_docs:
        update_docs(section)
    LAUNCHER.close()


if __name__ == "__main__":
    main()

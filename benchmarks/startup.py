"""Start-up: the wall time of a whole one-shot ``neardup`` process (issue 15).

Runs, each as a fresh process, several times, and prints the median (and min, max) wall time
and CPU time (user + system, from the kernel's accounting of the finished child):

* ``neardup --version``;
* ``neardup compare A B`` of two short files (two sentences each), with the default preset
  (``ru``: lemmas) and with ``--preset plain``;

cold — an empty Unicode table cache (``NEARDUP_CACHE_DIR`` pointed at a new empty directory
for every run, so the analyzer builds its tables, as the first run after an install does) —
and warm (the cache filled by a run first). numba's compiled kernels are cached next to the
code (``cache=True``) from the first use after an install in both cases; removing
``src/neardup/_kernels/__pycache__`` would add their compilation (tens of seconds) once.

    .venv/bin/python benchmarks/startup.py                  # 7 runs of each
    .venv/bin/python benchmarks/startup.py --update-docs    # also rewrite docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NEARDUP = Path(sys.executable).with_name("neardup")
TEXT_A = "Городская библиотека открылась после ремонта. Читатели пришли в первый же день.\n"
TEXT_B = "Городская библиотека открылась после долгого ремонта. Читатели пришли в первый день.\n"
GOAL = 0.5  # seconds, warm, `neardup compare` of two short files


def run_once(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one whole process. Python's bytecode is cached as an installed
    package has it (``PYTHONDONTWRITEBYTECODE``, set in some shells here, is dropped: it would
    make every run compile neardup's modules from source)."""
    env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed: {process.stderr.read().decode()[-500:]}")  # type: ignore[union-attr]
    process.stderr.close()  # type: ignore[union-attr]
    return wall, usage.ru_utime + usage.ru_stime


def measure(name: str, command: list[str], runs: int, cold: bool, base: Path) -> dict[str, object]:
    walls: list[float] = []
    cpus: list[float] = []
    loads: list[float] = []
    warm_dir = base / "warm"
    if not cold:
        run_once(command, {**os.environ, "NEARDUP_CACHE_DIR": str(warm_dir)})  # fill the cache
    for i in range(runs):
        cache = base / f"cold-{name.replace(' ', '_')}-{i}" if cold else warm_dir
        wall, cpu = run_once(command, {**os.environ, "NEARDUP_CACHE_DIR": str(cache)})
        walls.append(wall)
        cpus.append(cpu)
        loads.append(os.getloadavg()[0])
    row = {
        "name": name,
        "state": "cold" if cold else "warm",
        "median": statistics.median(walls),
        "min": min(walls),
        "max": max(walls),
        "cpu": statistics.median(cpus),
        "load": statistics.median(loads),
    }
    print(
        f"  {name:34s} {row['state']}: median {row['median']:.3f} s wall "
        f"(min {row['min']:.3f}, max {row['max']:.3f}), CPU {row['cpu']:.3f} s, "
        f"load {row['load']:.2f}",
        flush=True,
    )
    return row


BREAKDOWN = """
import sys, time
clock = time.process_time
t0 = clock(); import numpy; t1 = clock(); import numba; t2 = clock()
from neardup.cli.main import SkipNumbaBlasProbe, main
sys.meta_path.insert(0, SkipNumbaBlasProbe())
from neardup._kernels import setops
a = numpy.arange(3, dtype=numpy.uint64)
t3 = clock(); setops.intersection_size(a, a); t4 = clock()
main(["compare", "--preset", "plain", sys.argv[1], sys.argv[2]]); t5 = clock()
print(f"{t0:.3f} {t1 - t0:.3f} {t2 - t1:.3f} {t4 - t3:.3f} {t5 - t4 + t3 - t2:.3f} {t5:.3f}",
      file=sys.stderr)
"""


def breakdown(a: Path, b: Path, env: dict[str, str], runs: int) -> str:
    """Where a warm ``compare --preset plain`` process spends its CPU (medians, in-process
    ``time.process_time``): the interpreter's start, numpy's import, numba's import, the
    first cached kernel's load (numba's type registries), and the rest of the command."""
    env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    rows = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", BREAKDOWN, str(a), str(b)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        rows.append([float(x) for x in out.stderr.strip().splitlines()[-1].split()])
    start, np_s, numba_s, kernel_s, rest_s, total = (
        statistics.median(column) for column in zip(*rows, strict=True)
    )
    line = (
        f"where a warm `compare --preset plain` spends its CPU (median of {runs}, load "
        f"{os.getloadavg()[0]:.2f}): interpreter start {start:.3f} s, numpy import {np_s:.3f} s, "
        f"numba import {numba_s:.3f} s, the first cached kernel's load (numba's registries) "
        f"{kernel_s:.3f} s, neardup's imports and the comparison {rest_s:.3f} s; total "
        f"{total:.3f} s"
    )
    print(line, flush=True)
    return line


def update_docs(markdown: str) -> None:
    doc = ROOT / "docs" / "benchmarks.md"
    text = doc.read_text(encoding="utf-8")
    start, end = "<!-- section: startup -->", "<!-- end: startup -->"
    a = text.index(start) + len(start)
    b = text.index(end)
    doc.write_text(text[:a] + "\n" + markdown.strip() + "\n" + text[b:], encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7, help="runs of each (default 7)")
    parser.add_argument("--update-docs", action="store_true", help="rewrite the docs section")
    args = parser.parse_args(argv)
    before = os.getloadavg()[0]
    print(
        f"start-up, {args.runs} runs each; Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load average {before:.2f}",
        flush=True,
    )
    rows = []
    with tempfile.TemporaryDirectory(prefix="neardup-startup-") as tmp:
        base = Path(tmp)
        a, b = base / "a.txt", base / "b.txt"
        a.write_text(TEXT_A, encoding="utf-8")
        b.write_text(TEXT_B, encoding="utf-8")
        commands = [
            ("neardup --version", [str(NEARDUP), "--version"]),
            ("neardup compare A B", [str(NEARDUP), "compare", str(a), str(b)]),
            (
                "neardup compare --preset plain A B",
                [str(NEARDUP), "compare", "--preset", "plain", str(a), str(b)],
            ),
        ]
        for name, command in commands:
            for cold in (True, False):
                rows.append(measure(name, command, args.runs, cold, base))
        where = breakdown(a, b, {**os.environ, "NEARDUP_CACHE_DIR": str(base / "warm")}, args.runs)
    after = os.getloadavg()[0]
    lines = [
        "| command | caches | median wall s | min–max s | median CPU s | load avg |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| `{row['name']}` | {row['state']} | {row['median']:.3f} | "
            f"{row['min']:.3f}–{row['max']:.3f} | {row['cpu']:.3f} | {row['load']:.2f} |"
        )
    warm = next(r for r in rows if r["name"] == "neardup compare A B" and r["state"] == "warm")
    verdict = (
        f"`neardup compare` of two short files, warm: median {warm['median']:.3f} s wall "
        f"(goal < {GOAL} s: {'met' if float(warm['median']) < GOAL else 'not met'}), "  # type: ignore[arg-type]
        f"{warm['cpu']:.3f} s CPU"
    )
    table = "\n".join(lines)
    print()
    print(table)
    print(verdict)
    print(f"load average before {before:.2f}, after {after:.2f}")
    if args.update_docs:
        update_docs(
            "## Start-up: a one-shot `neardup` process (issue 15)\n\n"
            f"Whole processes, {args.runs} runs of each, median (min–max) wall time and median "
            "CPU time (user + system of the finished process). Cold: an empty Unicode table "
            "cache (`NEARDUP_CACHE_DIR` a new empty directory each run: the analyzer builds its "
            "tables); warm: the cache filled. numba's compiled kernels are cached beside the code "
            "in both. The files are two short Russian sentences each. Produced by "
            "`.venv/bin/python benchmarks/startup.py --update-docs`; load average "
            f"{before:.2f} before and {after:.2f} after (a shared 2-core machine: wall time above "
            "CPU time is time spent waiting for a core).\n\n"
            + table
            + "\n\n- "
            + verdict
            + "\n- "
            + where
            + "\n"
        )
        print("docs/benchmarks.md updated (startup)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

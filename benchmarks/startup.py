"""Start-up: a one-shot ``neardup`` process, whole, timed from outside (issue 15).

The goal: ``neardup compare`` of two short files answers in under 0.5 s of wall time, warm,
with the default preset (``auto``) and with ``--preset plain`` (both with compare's default
method, the combined score and the shingle-set measures) — the median of several runs of
the whole process. Each command runs ``--runs`` times, each a fresh process, after one untimed
run that fills the caches; each run's wall time (a monotonic clock around the child) and CPU
time (user + system of the finished child, the kernel's accounting) are kept, and the median,
min and max printed with the load average over the runs. On a shared machine wall time above
CPU time is time spent waiting for a core: compare CPU times when the load is high.

Warm: the caches as a user has them after a first run — numba's compiled kernels beside the
code, the Unicode tables and the Russian word-form table in neardup's cache folder
(``NEARDUP_CACHE_DIR`` as set, else the user's), the forms learned by earlier runs as they are.
Cold (``--preset plain`` only): an empty cache folder for each run, so the analyzer builds its
Unicode tables. The Russian form table's first build (about a minute, once per dictionary
version) is not timed here; the fill run does it if it has never been done.

A last part splits a warm ``compare --preset plain`` process's CPU time, measured inside it:
the interpreter's start, numpy's and numba's imports, the first cached kernel's load, and the
rest (neardup's imports, the comparison and the output).

First run (``--first-run``): the README's main job (``index create``, ``index add
examples/collection/``, ``index check examples/essay_with_quote.txt --fragments``) as three
processes on empty caches (``NUMBA_CACHE_DIR`` and ``NEARDUP_CACHE_DIR`` fresh temporary
folders), wall and CPU seconds of each, then the same again on the caches it left; and, in one
more first run inside one process per command, the CPU seconds numba spent compiling each
kernel (``Dispatcher.compile`` timed), the largest listed by module.

    .venv/bin/python benchmarks/startup.py                  # 9 runs of each
    .venv/bin/python benchmarks/startup.py --update-docs    # also rewrite docs/benchmarks.md
    .venv/bin/python benchmarks/startup.py --first-run      # the README's job on empty caches
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from child_runs import Medians, child_env, timed_child
from doc_sections import rewrite_section

ROOT = Path(__file__).resolve().parent.parent
NEARDUP = Path(sys.executable).with_name("neardup")
TEXT_A = "Городская библиотека открылась после ремонта. Читатели пришли в первый же день.\n"
TEXT_B = "Городская библиотека открылась после долгого ремонта. Читатели пришли в первый день.\n"
GOAL = 0.5  # seconds of wall time, warm, `neardup compare` of two short files


@dataclass(frozen=True)
class Row(Medians):
    name: str
    state: str
    walls: list[float]
    cpus: list[float]
    loads: list[float]


def measure(name: str, command: list[str], runs: int, cold_base: Path | None) -> Row:
    """``runs`` timed runs of ``command``: warm after one untimed run, or cold (a new empty
    cache folder under ``cold_base`` for each run)."""
    if cold_base is None:
        timed_child(command)  # fill the caches
    walls: list[float] = []
    cpus: list[float] = []
    loads: list[float] = []
    for i in range(runs):
        extra = {} if cold_base is None else {"NEARDUP_CACHE_DIR": str(cold_base / f"cold-{i}")}
        wall, cpu = timed_child(command, child_env(extra))
        walls.append(wall)
        cpus.append(cpu)
        loads.append(os.getloadavg()[0])
    row = Row(name, "warm" if cold_base is None else "cold", walls, cpus, loads)
    print(
        f"  {name:36s} {row.state}: median {row.wall:.3f} s wall "
        f"(min {min(walls):.3f}, max {max(walls):.3f}), CPU {row.cpu:.3f} s, load {row.load:.2f}",
        flush=True,
    )
    return row


BREAKDOWN = """
import gc, os, sys, time
clock = time.process_time
t0 = clock()
# as the `neardup compare` program does: no OpenBLAS threads, no cyclic collector, the finder
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
gc.disable()
from neardup.cli import _numba_startup
_numba_startup.install()
t1 = clock(); import numpy; t2 = clock()
import numba; t3 = clock()
from neardup._kernels import setops
a = numpy.arange(3, dtype=numpy.uint64)
t4 = clock(); setops.intersection_size(a, a); t5 = clock()
from neardup.cli.main import main
main(["compare", "--preset", "plain", sys.argv[1], sys.argv[2]]); t6 = clock()
print(f"{t0:.4f} {t2 - t1:.4f} {t3 - t2:.4f} {t5 - t4:.4f} {t6 - t5 + t4 - t3 + t1 - t0:.4f} "
      f"{t6:.4f}", file=sys.stderr)
"""


def breakdown(a: Path, b: Path, runs: int) -> str:
    """Where a warm ``compare --preset plain`` process spends its CPU (medians of ``runs``)."""
    rows = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", BREAKDOWN, str(a), str(b)],
            env=child_env(),
            capture_output=True,
            text=True,
            check=True,
        )
        rows.append([float(x) for x in out.stderr.strip().splitlines()[-1].split()])
    start, np_s, numba_s, kernel_s, rest_s, total = (
        statistics.median(column) for column in zip(*rows, strict=True)
    )
    line = (
        f"where a warm `compare --preset plain` spends its CPU (in process, median of {runs}, "
        f"load {os.getloadavg()[0]:.2f}): interpreter start {start:.3f} s, numpy import "
        f"{np_s:.3f} s, numba import {numba_s:.3f} s, the first cached kernel's load "
        f"{kernel_s:.3f} s, neardup's imports, the comparison and the output {rest_s:.3f} s; "
        f"total {total:.3f} s"
    )
    print(line, flush=True)
    return line


def update_docs(markdown: str) -> None:
    rewrite_section(
        ROOT / "docs" / "benchmarks.md",
        "<!-- section: startup -->",
        "<!-- end: startup -->",
        markdown,
    )


README_JOB = (
    ["index", "create", "{db}", "--policy", "group", "--threshold", "0.5"],
    ["index", "add", "{db}", str(ROOT / "examples" / "collection")],
    ["index", "check", "{db}", str(ROOT / "examples" / "essay_with_quote.txt"), "--fragments"],
)

#: Run inside the child: the command, with every numba compilation timed (CPU seconds by
#: function), the totals printed as JSON on standard error's last line.
_COMPILE_PROBE = """
import json, sys, time
from numba.core import dispatcher
spent = {}
original = dispatcher.Dispatcher.compile
def compile(self, sig):
    t0 = time.process_time()
    try:
        return original(self, sig)
    finally:
        name = self.py_func.__module__ + "." + self.py_func.__qualname__
        spent[name] = spent.get(name, 0.0) + time.process_time() - t0
dispatcher.Dispatcher.compile = compile
from neardup.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(spent), file=sys.stderr)
"""


def first_run(base: Path) -> str:
    """The README's main job on empty caches, then warm; and where the first run's
    compilation goes. Returns the markdown of the results."""
    rows = []
    for state in ("empty caches", "caches of the run before"):
        if state == "empty caches":
            caches = base / "caches"
            shutil.rmtree(caches, ignore_errors=True)
        env = child_env(
            {"NUMBA_CACHE_DIR": str(caches / "numba"), "NEARDUP_CACHE_DIR": str(caches / "nd")}
        )
        db = base / "texts.db"
        db.unlink(missing_ok=True)
        wall = cpu = 0.0
        for args in README_JOB:
            w, c = timed_child([str(NEARDUP), *(a.format(db=db) for a in args)], env)
            wall += w
            cpu += c
        rows.append(f"| {state} | {wall:.1f} | {cpu:.1f} |")
        print(rows[-1], flush=True)
    # where the first run's CPU goes: every kernel's compilation, timed inside
    caches = base / "probe"
    env = child_env(
        {"NUMBA_CACHE_DIR": str(caches / "numba"), "NEARDUP_CACHE_DIR": str(caches / "nd")}
    )
    db = base / "probe.db"
    spent: dict[str, float] = {}
    for args in README_JOB:
        command = [sys.executable, "-c", _COMPILE_PROBE, *(a.format(db=db) for a in args)]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        last = (done.stderr.strip().splitlines() or ["{}"])[-1]
        for name, sec in json.loads(last).items():
            spent[name] = spent.get(name, 0.0) + sec
    by_module: dict[str, float] = {}
    for name, sec in spent.items():
        module = name.rsplit(".", 1)[0].split(".<locals>")[0]
        module = ".".join(module.split(".")[:3])
        by_module[module] = by_module.get(module, 0.0) + sec
    top = sorted(by_module.items(), key=lambda kv: -kv[1])[:10]
    total = sum(spent.values())
    lines = [
        "| README's main job | wall s | CPU s |",
        "|---|---:|---:|",
        *rows,
        "",
        f"numba compiled {len(spent)} kernels in the first run, {total:.1f} CPU s (timed inside "
        "the processes; a kernel's time includes the kernels first compiled inside it, so the "
        "modules overlap and the sum exceeds the job's CPU); by module:",
        "",
        "| module | compile CPU s |",
        "|---|---:|",
        *(f"| `{m}` | {sec:.1f} |" for m, sec in top),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9, help="timed runs of each (default 9)")
    parser.add_argument("--update-docs", action="store_true", help="rewrite the docs section")
    parser.add_argument(
        "--first-run", action="store_true", help="only the README's job on empty caches"
    )
    args = parser.parse_args(argv)
    if args.first_run:
        load = os.getloadavg()[0]
        with tempfile.TemporaryDirectory(prefix="neardup-first-") as tmp:
            table = first_run(Path(tmp))
        print(table)
        print(f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
        return 0
    before = os.getloadavg()[0]
    print(
        f"start-up, {args.runs} runs each; Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load average {before:.2f}",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="neardup-startup-") as tmp:
        base = Path(tmp)
        a, b = base / "a.txt", base / "b.txt"
        a.write_text(TEXT_A, encoding="utf-8")
        b.write_text(TEXT_B, encoding="utf-8")
        plain = [str(NEARDUP), "compare", "--preset", "plain", str(a), str(b)]
        rows = [
            measure("neardup --version", [str(NEARDUP), "--version"], args.runs, None),
            measure(
                "neardup compare A B", [str(NEARDUP), "compare", str(a), str(b)], args.runs, None
            ),
            measure("neardup compare --preset plain A B", plain, args.runs, None),
            measure("neardup compare --preset plain A B", plain, args.runs, base),
        ]
        where = breakdown(a, b, args.runs)
    after = os.getloadavg()[0]
    lines = [
        "| command | caches | median wall s | min–max s | median CPU s | load avg |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| `{row.name}` | {row.state} | {row.wall:.3f} | "
            f"{min(row.walls):.3f}–{max(row.walls):.3f} | {row.cpu:.3f} | {row.load:.2f} |"
        )
    verdicts = [
        f"`{row.name}`, warm: median {row.wall:.3f} s wall (goal < {GOAL} s: "
        f"{'met' if row.wall < GOAL else 'not met'}), {row.cpu:.3f} s CPU"
        for row in rows[1:3]
    ]
    table = "\n".join(lines)
    print()
    print(table)
    print("\n".join(verdicts))
    print(f"load average before {before:.2f}, after {after:.2f}")
    if args.update_docs:
        update_docs(
            "## Start-up: a one-shot `neardup` process (issue 15)\n\n"
            f"Whole processes, {args.runs} timed runs of each, median (min–max) wall time and "
            "median CPU time (user + system of the finished process). Warm: the caches filled "
            "by a first run (numba's compiled kernels, the Unicode tables, the Russian "
            "word-form table); cold: an empty cache folder for each run, so the analyzer "
            "builds its Unicode tables. The files are two short Russian sentences each; "
            "`compare` gives its default answer (the combined score and the set measures). "
            "Produced by `.venv/bin/python benchmarks/startup.py --update-docs`; load average "
            f"{before:.2f} before and {after:.2f} after (a shared 2-core machine: wall time "
            "above CPU time is time spent waiting for a core).\n\n"
            + table
            + "\n\n"
            + "".join(f"- {v}\n" for v in verdicts)
            + f"- {where}\n"
        )
        print("docs/benchmarks.md updated (startup)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

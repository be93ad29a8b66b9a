"""Both cores for the collection: ``neardup index add --jobs 2`` against ``--jobs 1`` (issue 15).

``neardup index add DB FILE --json -j J``, timed from outside as a whole process, on the first
3,000 and on all 9,277 documents of ../shared/data/ru_news.jsonl.gz (their records written
once as JSONL under ``--cache``, or in a temporary folder), for the presets ``plain``,
``ru`` and ``auto`` (the default: a chain per language). Each run adds to a fresh SQLite
collection made by ``neardup index create DB --preset P`` (not timed) in a temporary folder.
With ``-j 2`` one thread analyzes the coming batches of texts (nogil kernels) while the main
thread checks candidates and stores each batch; with ``-j 1`` one thread does both in turn.
Then, in this process, the analysis alone (``Collection.analyze_many`` over the same texts) on
one thread and on two: what the analysis gains from the second core.

Runs are interleaved (``-j 1``, ``-j 2``, ``-j 1``, …) so a change of the machine's load hits
both; each row gives the median (min–max) wall time of ``--runs`` runs, the median CPU time
(user + system of the finished child, the kernel's accounting), documents per second by the
median wall time, ``-j 1``'s median wall over this row's, and the median of the one-minute
load average read after each run. Before a preset's runs an untimed warm-up run over the
largest input compiles (or loads) the numba kernels and, for ``ru``, builds the word-form table
(about a minute on a fresh cache folder) and learns the forms the runs meet; its time is
printed.

The answers must not depend on ``--jobs``: every run's ``--json`` output (counts and every
decision) must be byte-identical to the first ``-j 1`` run's of the same preset and size, and so
must the collection's ``neardup index export``; every table of the SQLite file is compared too
(what ``export`` leaves out: fingerprints, samples, postings, metadata). A difference is printed
(which run, which records and fields) and the script exits with status 1, leaving the docs as
they were.

``NEARDUP_CACHE_DIR`` is passed through to the children (neardup's caches: the word-form
table, the forms learned); the worktree's own ``.venv/bin/neardup`` runs.

    NEARDUP_CACHE_DIR=/work/bench_cache/x .venv/bin/python benchmarks/index_add_cores.py
    .venv/bin/python benchmarks/index_add_cores.py --docs 300 --runs 1 --presets plain  # quick
    .venv/bin/python benchmarks/index_add_cores.py --update-docs   # also docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import itertools
import json
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from child_runs import Medians, child_env, timed_child
from doc_sections import rewrite_section

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ru_news.jsonl.gz"
NEARDUP = ROOT / ".venv" / "bin" / "neardup"
DOCS_PAGE = ROOT / "docs" / "benchmarks.md"
SECTION = "index-cores"
PRESETS = ("plain", "ru", "auto")
SIZES = (3000, 9277)
JOBS = (1, 2)
# the "Current figures" row this script owns: found by its leading text, placed after the
# row of `neardup sign --jobs 2` when it is new
FIGURE_PREFIX = "| `neardup index add --jobs 2`, ru_news "
FIGURE_AFTER = "| `neardup sign --jobs 2`"


# --- input -----------------------------------------------------------------------------------


def corpus_slice(size: int, folder: Path) -> tuple[Path, int, float]:
    """The first ``size`` records of ru_news as JSONL in ``folder`` (written once; the whole
    file when ``size`` is at least its length): the path, the documents it holds and the MB of
    UTF-8 text in them."""
    path = folder / f"ru_news_first{size}.jsonl"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        with gzip.open(DATA, "rb") as f:
            head = b"".join(itertools.islice(f, size))
        part = path.with_suffix(".part")
        part.write_bytes(head)
        part.replace(path)
    docs = 0
    nbytes = 0
    with path.open("rb") as f:
        for line in f:
            if line.strip():
                docs += 1
                nbytes += len(json.loads(line)["text"].encode("utf-8"))
    return path, docs, nbytes / 1e6


# --- one process ----------------------------------------------------------------------------


def create(db: Path, preset: str) -> None:
    subprocess.run(
        [str(NEARDUP), "index", "create", str(db), "--preset", preset],
        env=child_env(),
        check=True,
        stdout=subprocess.DEVNULL,
    )


# --- what a run stored ----------------------------------------------------------------------


def file_digest(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def table_digests(db: Path) -> dict[str, tuple[int, str]]:
    """Rows and a digest of each table of a SQLite collection, rows in primary-key order."""
    digests: dict[str, tuple[int, str]] = {}
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        tables = [
            name
            for (name,) in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        for table in tables:
            columns = connection.execute(f'PRAGMA table_info("{table}")').fetchall()
            keys = [c[1] for c in sorted(columns, key=lambda c: c[5]) if c[5] > 0]
            order = ", ".join(f'"{k}"' for k in keys) or ", ".join(
                str(i + 1) for i in range(len(columns))
            )
            digest = hashlib.sha256()
            rows = 0
            for row in connection.execute(f'SELECT * FROM "{table}" ORDER BY {order}'):
                digest.update(repr(row).encode("utf-8"))
                rows += 1
            digests[table] = (rows, digest.hexdigest())
    connection.close()
    return digests


def json_difference(reference: bytes, other: bytes) -> str:
    """What differs between two ``--json`` outputs, in a few lines."""
    try:
        a, b = json.loads(reference), json.loads(other)
    except json.JSONDecodeError as error:
        return f"output is not JSON ({error})"
    lines = [
        f"{key}: {a.get(key)!r} → {b.get(key)!r}"
        for key in sorted(set(a) | set(b))
        if key != "decisions" and a.get(key) != b.get(key)
    ]
    first = {d.get("id"): d for d in a.get("decisions", [])}
    second = {d.get("id"): d for d in b.get("decisions", [])}
    changed = [i for i in first if i in second and first[i] != second[i]]
    only = sorted(set(first) ^ set(second), key=str)
    if len(a.get("decisions", [])) != len(b.get("decisions", [])) or only:
        lines.append(f"decisions: {len(first)} → {len(second)}; ids in one only: {only[:5]}")
    if [d.get("id") for d in a.get("decisions", [])] != [
        d.get("id") for d in b.get("decisions", [])
    ]:
        lines.append("decisions come in another order")
    lines.append(f"{len(changed)} decisions differ")
    for i in changed[:5]:
        fields = sorted(
            k for k in set(first[i]) | set(second[i]) if first[i].get(k) != second[i].get(k)
        )
        lines.append(
            f"  {i}: "
            + "; ".join(f"{k} {first[i].get(k)!r} → {second[i].get(k)!r}" for k in fields)
        )
    return "\n".join(lines)


def export_difference(reference: Path, other: Path) -> str:
    """Which exported records differ (by id), and in which fields."""

    def records(path: Path) -> dict[str, dict[str, object]]:
        with path.open("rb") as f:
            return {str(r["id"]): r for r in map(json.loads, f)}

    a, b = records(reference), records(other)
    only = sorted(set(a) ^ set(b))
    changed = [i for i in a if i in b and a[i] != b[i]]
    lines = [f"{len(a)} → {len(b)} records; ids in one only: {only[:5]}; {len(changed)} differ"]
    for i in changed[:5]:
        fields = sorted(k for k in set(a[i]) | set(b[i]) if a[i].get(k) != b[i].get(k))
        lines.append(f"  {i}: fields {', '.join(fields)}")
    if not only and not changed:
        lines.append("the same records in another order, or the same values written otherwise")
    return "\n".join(lines)


# --- the runs -------------------------------------------------------------------------------


@dataclass
class Row(Medians):
    preset: str
    docs: int
    mb: float
    jobs: int
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)


@dataclass
class Reference:
    """The first ``-j 1`` run of a preset and size: what every other run must match."""

    output: bytes
    export: Path
    export_digest: str
    tables: dict[str, tuple[int, str]]
    counts: dict[str, object]


class Runner:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.count = 0
        self.problems: list[str] = []

    def add(self, preset: str, path: Path, jobs: int) -> tuple[float, float, Path, Path]:
        """One timed ``index add`` into a fresh collection: wall s, CPU s, the collection, and
        the file holding its ``--json`` output."""
        self.count += 1
        db = self.work / f"run{self.count}.db"
        out = self.work / f"run{self.count}.json"
        create(db, preset)
        command = [str(NEARDUP), "index", "add", str(db), str(path), "--json", "-j", str(jobs)]
        wall, cpu = timed_child(command, stdout=out)
        return wall, cpu, db, out

    def export(self, db: Path) -> Path:
        target = db.with_suffix(".export.jsonl")
        subprocess.run(
            [str(NEARDUP), "index", "export", str(db), str(target)],
            env=child_env(),
            check=True,
            stdout=subprocess.DEVNULL,
        )
        return target

    def reference(self, db: Path, out: Path) -> Reference:
        output = out.read_bytes()
        export = self.export(db)
        counts = {k: v for k, v in json.loads(output).items() if k != "decisions"}
        return Reference(output, export, file_digest(export), table_digests(db), counts)

    def compare(self, what: str, reference: Reference, db: Path, out: Path) -> None:
        """Record every way the run's answers differ from the reference's."""
        output = out.read_bytes()
        if output != reference.output:
            self.problems.append(
                f"{what}: --json output differs from -j 1's\n"
                + json_difference(reference.output, output)
            )
        export = self.export(db)
        if file_digest(export) != reference.export_digest:
            self.problems.append(
                f"{what}: `neardup index export` differs from -j 1's\n"
                + export_difference(reference.export, export)
            )
        export.unlink()
        tables = table_digests(db)
        for table in sorted(set(tables) | set(reference.tables)):
            if tables.get(table) != reference.tables.get(table):
                was, now = reference.tables.get(table), tables.get(table)
                self.problems.append(
                    f"{what}: SQLite table {table} differs from -j 1's (rows "
                    f"{was[0] if was else '—'} → {now[0] if now else '—'})"
                )


def analysis_scaling(path: Path, preset: str, runs: int) -> str:
    """The analysis alone, in this process: ``Collection.analyze_many`` over the texts of
    ``path`` in batches of 256, on one thread and on two (what ``-j 2`` could give if checking
    and writing took no time); median wall of ``runs`` runs of each, interleaved."""
    from concurrent.futures import ThreadPoolExecutor

    from neardup.fingerprints.pipeline import default_spec
    from neardup.index import Collection

    with path.open(encoding="utf-8") as fh:
        texts = [json.loads(line)["text"] for line in fh]
    batches = [texts[i : i + 256] for i in range(0, len(texts), 256)]
    col = Collection.create("memory:", default_spec(preset))
    for batch in batches:  # warm: kernels loaded, forms learned
        col.analyze_many(batch)
    one, two = [], []
    with ThreadPoolExecutor(2) as pool:
        for _ in range(runs):
            t0 = time.perf_counter()
            for batch in batches:
                col.analyze_many(batch)
            one.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            list(pool.map(col.analyze_many, batches))
            two.append(time.perf_counter() - t0)
    a, b = statistics.median(one), statistics.median(two)
    return (
        f"{preset}, the analysis alone (`Collection.analyze_many`, {len(texts):,} documents in "
        f"batches of 256, in one process, median of {runs}): two threads {a / b:.2f}× one "
        f"({a:.2f} → {b:.2f} s wall)"
    )


def warm_up(runner: Runner, preset: str, path: Path) -> tuple[float, float]:
    """One untimed run over the largest input: kernels compiled or loaded, for ``ru`` the
    word-form table built (once per cache folder) and the forms the runs meet learned."""
    wall, cpu, db, out = runner.add(preset, path, 2)
    db.unlink()
    out.unlink()
    return wall, cpu


def measure(
    runner: Runner, preset: str, path: Path, docs: int, mb: float, runs: int
) -> tuple[list[Row], dict[str, object]]:
    """``runs`` interleaved runs of each ``-j``, every answer checked against the first
    ``-j 1`` run's; the rows and the reference run's counts."""
    rows = {jobs: Row(preset, docs, mb, jobs) for jobs in JOBS}
    reference: Reference | None = None
    for attempt in range(runs):
        for jobs in JOBS:
            wall, cpu, db, out = runner.add(preset, path, jobs)
            load = os.getloadavg()[0]
            row = rows[jobs]
            row.walls.append(wall)
            row.cpus.append(cpu)
            row.loads.append(load)
            if reference is None:
                reference = runner.reference(db, out)
            else:
                runner.compare(
                    f"{preset}, {docs:,} docs, -j {jobs} run {attempt + 1}", reference, db, out
                )
            db.unlink()
            out.unlink()
            print(
                f"  {preset:5s} {docs:5d} docs -j {jobs} run {attempt + 1}: {wall:7.2f} s wall "
                f"{cpu:7.2f} s CPU, load {load:.2f}",
                flush=True,
            )
    assert reference is not None
    reference.export.unlink()
    return list(rows.values()), reference.counts


# --- output ---------------------------------------------------------------------------------


def table(rows: list[Row]) -> str:
    lines = [
        "| preset | docs | MB | jobs | median wall s | min–max wall s | median CPU s | docs/s "
        "| × one thread | load avg |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        one = next(r for r in rows if (r.preset, r.docs, r.jobs) == (row.preset, row.docs, 1))
        lines.append(
            f"| {row.preset} | {row.docs:,} | {row.mb:.1f} | {row.jobs} | {row.wall:.2f} | "
            f"{min(row.walls):.2f}–{max(row.walls):.2f} | {row.cpu:.2f} | "
            f"{row.docs / row.wall:,.0f} | {one.wall / row.wall:.2f} | {row.load:.2f} |"
        )
    return "\n".join(lines)


def pair(rows: list[Row], preset: str, docs: int) -> tuple[Row, Row]:
    one = next(r for r in rows if (r.preset, r.docs, r.jobs) == (preset, docs, 1))
    two = next(r for r in rows if (r.preset, r.docs, r.jobs) == (preset, docs, 2))
    return one, two


def number(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def summary(
    rows: list[Row], counts: dict[tuple[str, int], dict[str, object]], runs: int, same: bool
) -> list[str]:
    lines = []
    for preset, docs in dict.fromkeys((r.preset, r.docs) for r in rows):
        one, two = pair(rows, preset, docs)
        of = counts[(preset, docs)]
        # CPU over wall: the cores the process had on average (at most 1 with -j 1)
        lines.append(
            f"{preset}, {docs:,} documents: `-j 2` {one.wall / two.wall:.2f}× `-j 1` by median "
            f"wall time ({one.wall:.2f} → {two.wall:.2f} s; CPU {one.cpu:.2f} → {two.cpu:.2f} s; "
            f"cores busy, median CPU over median wall, {one.cpu / one.wall:.2f} → "
            f"{two.cpu / two.wall:.2f}); {number(of.get('accepted'))} accepted, "
            f"{number(of.get('rejected'))} rejected"
        )
    slower = [
        f"{p} {d:,}"
        for p, d in dict.fromkeys((r.preset, r.docs) for r in rows)
        if pair(rows, p, d)[1].wall >= pair(rows, p, d)[0].wall
    ]
    lines.append("`-j 2` no faster than `-j 1` (median wall) at: " + (", ".join(slower) or "none"))
    lines.append(
        "answers: every run's `--json` output, `neardup index export` and SQLite tables "
        + ("identical" if same else "NOT ALL identical")
        + " to the first `-j 1` run's of its preset and size "
        + f"({runs} run{'s' if runs > 1 else ''} of each `-j`)"
    )
    return lines


def figure_row(rows: list[Row], command: str) -> str:
    largest = max(r.docs for r in rows)
    presets = list(dict.fromkeys(r.preset for r in rows if r.docs == largest))
    parts = []
    for preset in presets:
        one, two = pair(rows, preset, largest)
        parts.append(
            f"{preset} **{one.wall / two.wall:.2f}×** ({one.wall:.2f} → {two.wall:.2f} s wall, "
            f"{one.cpu:.2f} → {two.cpu:.2f} s CPU)"
        )
    loads = [load for r in rows if r.docs == largest for load in r.loads]
    return (
        f"{FIGURE_PREFIX}{largest:,} docs, SQLite, "
        + " / ".join(f"`{p}`" for p in presets)
        + ": two cores × one, median wall | "
        + "; ".join(parts)
        + f" (load {min(loads):.1f}–{max(loads):.1f}); decisions and stored collection identical"
        + f" | `{command}` |"
    )


def set_figure_row(row: str) -> None:
    """Put ``row`` in the "Current figures" table: in place of the row with its leading text,
    else after the row of ``neardup sign --jobs 2``, else at the table's end."""
    lines = DOCS_PAGE.read_text(encoding="utf-8").split("\n")
    start = lines.index("## Current figures")
    while not lines[start].startswith("|"):  # the table's header
        start += 1
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    table_lines = range(start, end)
    mine = [i for i in table_lines if lines[i].startswith(FIGURE_PREFIX)]
    if mine:
        lines[mine[0]] = row
        for i in reversed(mine[1:]):
            del lines[i]
    else:
        after = [i for i in table_lines if lines[i].startswith(FIGURE_AFTER)]
        lines.insert((after[0] if after else end - 1) + 1, row)
    DOCS_PAGE.write_text("\n".join(lines), encoding="utf-8")


def update_docs(markdown: str, row: str) -> None:
    rewrite_section(
        DOCS_PAGE,
        f"<!-- section: {SECTION} -->",
        f"<!-- end: {SECTION} -->",
        markdown,
        keep=f"<!-- {SECTION}: notes -->",
        missing_before="<!-- section: startup -->",
    )
    set_figure_row(row)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--docs",
        type=int,
        nargs="+",
        default=list(SIZES),
        help="sizes: the first this many documents of ru_news (default 3000 9277)",
    )
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each -j (default 3)")
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=PRESETS)
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="folder for the JSONL slices of ru_news, kept for reruns (default: a temporary one)",
    )
    parser.add_argument(
        "--update-docs",
        action="store_true",
        help=f"write the {SECTION} section and its Current figures row of docs/benchmarks.md",
    )
    args = parser.parse_args(argv)
    runs = max(1, args.runs)
    if not DATA.exists():
        print(f"no data at {DATA}", file=sys.stderr)
        return 2
    if not NEARDUP.exists():
        print(f"no {NEARDUP}: make the worktree's venv first", file=sys.stderr)
        return 2
    cache_dir = os.environ.get("NEARDUP_CACHE_DIR")
    before = os.getloadavg()[0]
    print(
        f"index add, -j {' vs -j '.join(map(str, JOBS))}, {runs} runs each; "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average {before:.2f}; "
        f"NEARDUP_CACHE_DIR={cache_dir or '(not set: the user cache folder)'}",
        flush=True,
    )
    rows: list[Row] = []
    counts: dict[tuple[str, int], dict[str, object]] = {}
    warmups: list[str] = []
    with tempfile.TemporaryDirectory(prefix="neardup-index-cores-") as tmp:
        work = Path(tmp)
        folder = args.cache or work
        inputs = [corpus_slice(size, folder) for size in sorted(set(args.docs))]
        runner = Runner(work)
        for preset in args.presets:
            largest = inputs[-1]
            wall, cpu = warm_up(runner, preset, largest[0])
            warmups.append(
                f"{preset} warm-up (untimed, `-j 2`, {largest[1]:,} docs): {wall:.1f} s wall, "
                f"{cpu:.1f} s CPU"
            )
            print(f"  {warmups[-1]}", flush=True)
            for path, docs, mb in inputs:
                measured, counts[(preset, docs)] = measure(runner, preset, path, docs, mb, runs)
                rows += measured
            warmups.append(analysis_scaling(largest[0], preset, runs))
            print(f"  {warmups[-1]}", flush=True)
    after = os.getloadavg()[0]
    markdown = table(rows)
    lines = summary(rows, counts, runs, not runner.problems)
    print()
    print(markdown)
    print()
    for line in lines + warmups:
        print(line)
    loads = [load for r in rows for load in r.loads]
    busy = max(loads) > 2.5
    print(
        f"load average before {before:.2f}, after {after:.2f}, over the runs "
        f"{min(loads):.2f}–{max(loads):.2f}"
        + (" (above 2.5: other work shared the 2 cores; ratios are what was left)" if busy else "")
    )
    if runner.problems:
        print("\nANSWERS DEPEND ON --jobs:", file=sys.stderr)
        for problem in runner.problems:
            print(problem, file=sys.stderr)
        print("docs not updated", file=sys.stderr)
        return 1
    if args.update_docs:
        options = ""
        if sorted(set(args.docs)) != sorted(SIZES):
            options += " --docs " + " ".join(str(d) for d in sorted(set(args.docs)))
        if runs != 3:
            options += f" --runs {runs}"
        if list(args.presets) != list(PRESETS):
            options += " --presets " + " ".join(args.presets)
        command = f".venv/bin/python benchmarks/index_add_cores.py{options} --update-docs"
        sizes = " and ".join(f"{d:,}" for d in sorted({r.docs for r in rows}))
        update_docs(
            "## Both cores: `neardup index add --jobs 2` (issue 15)\n\n"
            "`neardup index add DB FILE --json -j J` as a whole process, timed from outside "
            f"(wall; CPU = user + system of the finished process), on the first {sizes} "
            "documents of ru_news as JSONL, each run into a fresh SQLite collection made by "
            "`neardup index create DB --preset P` (not timed) with the default spec and policy "
            "(reject at resemblance 0.7, winnowed samples, texts stored). `-j 2`: one thread "
            "analyzes the coming batches of 256 texts in nogil kernels while the main thread "
            "checks candidates and writes each batch; `-j 1`: one thread does both in turn. "
            f"{runs} runs of each, interleaved (`-j 1`, `-j 2`, …); median and min–max wall, "
            "median CPU, docs/s by the median wall, × one thread = `-j 1`'s median wall over "
            "the row's, load = median of the one-minute load average after each run. Every "
            "preset starts warm: an untimed run over the largest input loads the kernels and, "
            "for `ru`, the word-form table and the forms the runs meet. Every run's `--json` "
            "output (counts and every decision), its `neardup index export` and every table of "
            "its SQLite file were checked identical to the first `-j 1` run's. Produced by "
            f"`NEARDUP_CACHE_DIR=… {command}`; load average {before:.2f} before and "
            f"{after:.2f} after, {min(loads):.2f}–{max(loads):.2f} over the runs (2 cores "
            "shared with other work: the two-core ratios are bounded by what the machine gave"
            + (
                "; above 2.5 during the runs, so the second core was partly taken by other work"
                if busy
                else ""
            )
            + ").\n\n"
            + markdown
            + "\n\n"
            + "\n".join(f"- {line}" for line in lines + warmups)
            + "\n",
            figure_row(rows, command.replace(".venv/bin/python ", "")),
        )
        print(f"docs/benchmarks.md updated ({SECTION} and its Current figures row)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

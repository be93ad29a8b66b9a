"""The pseudo-matrix filter at scale (synthetic fingerprint sets): stage 1 alone, and the
collection's ``check`` with each candidate method.

The filter's cost does not depend on what the fingerprints mean, so documents here are random
64-bit hash sequences whose lengths follow ru_news under the ``ru`` spec (a log-normal with
mean ≈ 580 shingles); each query is a fresh sequence of 570 with a run of 30 consecutive
shingles (5 %) of one stored document pasted into its middle.

* Stage 1 (``--stage1``): the filter alone (``n`` = 1,137, ``p`` = 0.001): build time, bytes,
  and per-query latency (p50 / p99) of ``candidates`` with the paper's bit count and with the
  member count, and the recall of the source at ``z ≥ 5``.
* The collection (``--methods winnow,pmbf,both``, the default): every document added to a
  SQLite collection (``policy allow``, batches of 1,000) under each candidate method with the
  index spec's defaults, then ``check`` of every query (analysis excluded: queries are
  ``IndexableText`` beforehand): wall and CPU latency p50 / p99, recall of the pasted source,
  candidates a query, the SQLite file a document. The first check after the adds is
  reported apart, not in the percentiles.

    .venv/bin/python benchmarks/bloom_check.py --docs 100000 --update-docs  # 2 docs
    .venv/bin/python benchmarks/bloom_check.py --docs 100000 --stage1
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from neardup.bloom import PseudoMatrixBloomFilter
from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec
from neardup.index.candidates import BloomRowsSource, Winnowing
from neardup.index.collection import IndexableText

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "bloom.md"
BENCHMARKS = ROOT / "docs" / "benchmarks.md"
PASTE = 30
OWN = 570


def loadavg() -> str:
    with open("/proc/loadavg") as fh:
        return " ".join(fh.read().split()[:3])


def sizes_of(n_docs: int, rng: np.random.Generator) -> np.ndarray:
    return np.clip(rng.lognormal(np.log(480), 0.6, n_docs).astype(np.int64), 20, 20_000)


def sequences(n_docs: int, seed: int) -> Iterator[np.ndarray]:
    """The documents in order, made one at a time (a million of them would hold 4.6 GB)."""
    rng = np.random.default_rng(seed)
    for size in sizes_of(n_docs, rng).tolist():
        yield rng.integers(0, 2**64, size=size, dtype=np.uint64)


def query_keys(n_docs: int, n: int, seed: int) -> tuple[np.random.Generator, list[int]]:
    rng = np.random.default_rng(seed + 1)
    return rng, rng.choice(n_docs, n, replace=False).tolist()


def queries(n_docs: int, n: int, seed: int) -> list[tuple[int, np.ndarray]]:
    """``n`` queries: fresh shingles with a run of ``PASTE`` of one stored document inside."""
    rng, keys = query_keys(n_docs, n, seed)
    wanted = set(keys)
    sources = {k: d for k, d in enumerate(sequences(n_docs, seed)) if k in wanted}
    out = []
    for key in keys:
        src = sources[key]
        start = int(rng.integers(0, max(1, src.size - PASTE)))
        own = rng.integers(0, 2**64, size=OWN, dtype=np.uint64)
        out.append(
            (key, np.concatenate([own[: OWN // 2], src[start : start + PASTE], own[OWN // 2 :]]))
        )
    return out


def analyzed(hashes: np.ndarray, winnowing: Winnowing | None) -> IndexableText:
    samples = winnowing.samples(hashes) if winnowing else np.zeros(0, np.uint64)
    return IndexableText(np.unique(hashes), None, samples)


def stage1(args: argparse.Namespace) -> list[str]:
    f = PseudoMatrixBloomFilter(n=1137, p=0.001, keep_fingerprints=False, fetch=lambda k: {})
    t0 = time.perf_counter()
    for key, hashes in enumerate(sequences(args.docs, args.seed)):
        f.add(key, np.unique(hashes))
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    f.sliced()
    slicing = time.perf_counter() - t0
    lines = [
        f"{len(f):,} documents → {f.n_rows:,} rows of {f.m:,} bits (k = {f.k}); rows "
        f"{f.rows.nbytes / 2**20:,.1f} MiB, bit-sliced copy {f.sliced().nbytes / 2**20:,.1f} MiB; "
        f"built in {build:.1f} s (+ {slicing:.1f} s slicing)"
    ]
    for measure in ("bits", "members"):
        times, found, cands = [], 0, []
        for key, query in queries(args.docs, args.queries, args.seed):
            t0 = time.perf_counter()
            c = f.candidates(np.unique(query), threshold=5.0, measure=measure)  # type: ignore[arg-type]
            times.append(time.perf_counter() - t0)
            found += key in set(c.keys.tolist())
            cands.append(len(c))
        ms = 1000 * np.array(times)
        lines.append(
            f"stage 1, {measure}: p50 {np.percentile(ms, 50):.1f} ms, p99 "
            f"{np.percentile(ms, 99):.1f} ms; recall of 5 % pastes {found / len(times):.3f}, "
            f"{np.mean(cands):.1f} candidates/query"
        )
    return lines


def scan(f: PseudoMatrixBloomFilter, qs: list[tuple[int, IndexableText]]) -> dict[str, float]:
    """Stage 1 alone (the member count over the bit-sliced rows), CPU time a query, and the
    bytes it reads: ``k`` columns of ``ceil(rows / 64)`` words for every query shingle."""
    width = -(-f.n_rows // 64)
    cpu, scanned = [], []
    for _, item in qs:
        c0 = time.process_time()
        f.candidates(item.values)
        cpu.append(time.process_time() - c0)
        scanned.append(item.values.shape[0] * f.k * width * 8)
    ms = 1000 * np.array(cpu)
    return {
        "mb": float(np.median(scanned)) / 1e6,
        "p50": float(np.percentile(ms, 50)),
        "p99": float(np.percentile(ms, 99)),
        "gbs": float(np.sum(scanned) / np.sum(cpu) / 1e9),
    }


def collection(method: str, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    spec = IndexSpec(policy="allow", candidates=method, store_text=False)
    winnowing = Winnowing(window=spec.window) if method != "pmbf" else None
    path = folder / f"{method}.db"
    check = args.build == "checked"
    out: dict[str, Any] = {"method": method, "load_before": loadavg()}
    with Collection.create(str(path), make_spec("ru"), spec) as col:
        t0, c0 = time.perf_counter(), time.process_time()
        col.add_many(
            (
                (str(key), analyzed(hashes, winnowing))
                for key, hashes in enumerate(sequences(args.docs, args.seed))
            ),
            batch_size=1000,
            check=check,
        )
        out["insert_s"], out["insert_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
        made = queries(args.docs, args.queries, args.seed)
        qs = [(key, analyzed(q, winnowing)) for key, q in made]
        t0 = time.perf_counter()
        col.look_up(qs[0][1], top=None, policy=None)
        out["first_s"] = time.perf_counter() - t0
        wall, cpu, found, cands = [], [], 0, []
        for key, item in qs:
            t0, c0 = time.perf_counter(), time.process_time()
            result = col.look_up(item, top=None, policy=None)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            found += str(key) in {m.id for m in result.matches}
            cands.append(result.candidates)
        src = next((s for s in col.sources if isinstance(s, BloomRowsSource)), None)
        out["rows"] = src.current(col.storage).n_rows if src else 0
        if src is not None:
            out["scan"] = scan(src.current(col.storage), qs)
    del col, src  # the loaded filter goes: the reopened collection reads it from the file
    t0, c0 = time.perf_counter(), time.process_time()
    with Collection.open(str(path)) as col:
        col.look_up(qs[0][1], top=None, policy=None)
    out["reopen_s"], out["reopen_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
    out["wall"], out["cpu"] = 1000 * np.array(wall), 1000 * np.array(cpu)
    out["recall"] = found / len(qs)
    out["candidates"] = float(np.mean(cands))
    out["file_per_doc"] = path.stat().st_size / args.docs
    out["load_after"] = loadavg()
    return out


def table_row(docs: int, build: str, r: dict[str, Any]) -> str:
    return (
        f"| {docs:,} | {r['method']} | {build} | {r['rows']:,} | {r['insert_s']:.0f} s "
        f"({r['insert_cpu_s']:.0f} s CPU) | {r['first_s']:.2f} s | "
        f"{np.percentile(r['wall'], 50):.2f} | {np.percentile(r['wall'], 99):.2f} | "
        f"{np.percentile(r['cpu'], 50):.2f} | {np.percentile(r['cpu'], 99):.2f} | "
        f"{r['recall']:.3f} | {r['candidates']:.1f} | {r['file_per_doc']:,.0f} | "
        f"{r['load_before']} → {r['load_after']} |"
    )


def reopen_row(docs: int, r: dict[str, Any]) -> str:
    return f"| {docs:,} | {r['method']} | {r['reopen_s']:.2f} | {r['reopen_cpu_s']:.2f} |"


def scan_row(docs: int, r: dict[str, Any]) -> str:
    s = r["scan"]
    return (
        f"| {docs:,} | {r['method']} | {r['rows']:,} | {s['mb']:,.0f} | {s['p50']:.2f} | "
        f"{s['p99']:.2f} | {s['gbs']:.1f} |"
    )


CHECK_HEAD = [
    "| docs | candidates | build | filter rows | insert | first check | check p50 ms | p99 ms | "
    "CPU p50 ms | CPU p99 ms | recall 5 % | candidates/query | file B/doc | load |",
    "|---:|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
]
REOPEN_HEAD = [
    "| docs | candidates | open + first check s | CPU s |",
    "|---:|---|---:|---:|",
]
SCAN_HEAD = [
    "| docs | candidates | rows | MB read a query | stage 1 CPU p50 ms | p99 ms | GB/s |",
    "|---:|---|---:|---:|---:|---:|---:|",
]


METHODS = "winnow,pmbf,both"


def merged(
    old: str,
    docs: int,
    methods: list[str],
    runs: list[str],
    tables: tuple[list[str], list[str], list[str]],
) -> str:
    """The section's new body: this run's lines, and the lines of earlier runs at other sizes
    or of other methods (a table row is one size and method; a run line is dropped once every
    method it ran has been run again at its size)."""

    def cells(line: str) -> list[str]:
        return [c.strip() for c in line.strip().strip("|").split("|")]

    def size(text: str) -> int:
        digits = text.split()[0].replace(",", "") if text.split() else ""
        return int(digits) if digits.isdigit() else -1

    def replaced_row(line: str) -> bool:
        return size(cells(line)[0]) == docs and cells(line)[1] in methods

    def run_methods(line: str) -> set[str]:
        command = line.split("`")[1] if line.count("`") >= 2 else ""
        words = command.split()
        after = words[words.index("--methods") + 1] if "--methods" in words[:-1] else METHODS
        return set(after.split(","))

    lines = old.splitlines()
    old_runs = [
        ln
        for ln in lines
        if ln.startswith("- ") and not (size(ln[2:]) == docs and run_methods(ln) <= set(methods))
    ]
    rows = [ln for ln in lines if ln.startswith("| ") and size(cells(ln)[0]) > 0]
    old_check = [
        ln for ln in rows if ln.count("|") == CHECK_HEAD[0].count("|") and not replaced_row(ln)
    ]
    old_scan = [
        ln for ln in rows if ln.count("|") == SCAN_HEAD[0].count("|") and not replaced_row(ln)
    ]
    old_reopen = [
        ln for ln in rows if ln.count("|") == REOPEN_HEAD[0].count("|") and not replaced_row(ln)
    ]
    order = {m: i for i, m in enumerate(METHODS.split(","))}
    checks, reopens, scans = tables

    def by_size(table: list[str]) -> list[str]:
        return sorted(table, key=lambda ln: (size(cells(ln)[0]), order.get(cells(ln)[1], 9)))

    return "\n".join(
        [
            "Runs (one each; synthetic documents, 200 queries with a 5 % paste, SQLite, "
            f"{os.cpu_count()} cores shared with other developers' jobs, the load average before "
            "→ after each method in the last column):",
            "",
            *sorted(old_runs + runs, key=lambda ln: size(ln[2:])),
            "",
            *CHECK_HEAD,
            *by_size(old_check + checks),
            "",
            "The first check in a fresh `Collection.open` of the same file (in the same "
            "process, the file in the OS cache): what a one-shot `neardup index check` adds to "
            "its check — with the filter, reading its rows and placement from SQLite and "
            "building the bit-sliced copy:",
            "",
            *REOPEN_HEAD,
            *by_size(old_reopen + reopens),
            "",
            "Stage 1 of `check` alone with the filter (the member count over the rows' "
            "bit-sliced copy): the bytes it reads a query (query shingles × k columns × "
            "rows / 64 words × 8 bytes), its CPU time, and bytes read a CPU second:",
            "",
            *SCAN_HEAD,
            *by_size(old_scan + scans),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--methods", default=METHODS)
    ap.add_argument(
        "--build",
        choices=("checked", "unchecked"),
        default="checked",
        help="checked: every add compares the text with the collection (as `index add`); "
        "unchecked: the bulk load (`index add --no-check`)",
    )
    ap.add_argument("--stage1", action="store_true", help="the filter alone, not the collection")
    ap.add_argument(
        "--update-docs",
        action="store_true",
        help="rewrite its section of docs/bloom.md and docs/benchmarks.md (rows of other "
        "--docs sizes are kept)",
    )
    ap.add_argument("--work", type=Path, default=Path("/work/bench_cache/pmbf"))
    args = ap.parse_args(argv)
    commit = subprocess.run(  # the code measured: the commit when the run starts
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    if args.stage1:
        print(f"load average {loadavg()}")
        print("\n".join(stage1(args)))
        print(f"load average {loadavg()}")
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    checks, reopens, scans = [], [], []
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        for method in args.methods.split(","):
            r = collection(method, args, Path(tmp))
            (Path(tmp) / f"{method}.db").unlink()
            checks.append(table_row(args.docs, args.build, r))
            print(checks[-1], flush=True)
            reopens.append(reopen_row(args.docs, r))
            print(reopens[-1], flush=True)
            if "scan" in r:
                scans.append(scan_row(args.docs, r))
                print(scans[-1], flush=True)
    flags = "" if args.build == "checked" else " --build unchecked"
    methods = "" if args.methods == METHODS else f" --methods {args.methods}"
    runs = [
        f"- {args.docs:,} documents ({args.methods.replace(',', ', ')}): "
        f"`benchmarks/bloom_check.py --docs {args.docs}{flags}{methods} --update-docs`, "
        f"{time.strftime('%Y-%m-%d')}, commit {commit or 'unknown'}"
    ]
    if args.update_docs:
        for doc in (DOC, BENCHMARKS):
            text = doc.read_text(encoding="utf-8")
            start, end = "<!-- results: bloom-check -->", "<!-- end: bloom-check -->"
            head, rest = text.split(start, 1)
            old, tail = rest.split(end, 1)
            body = merged(old, args.docs, args.methods.split(","), runs, (checks, reopens, scans))
            doc.write_text(f"{head}{start}\n{body}\n{end}{tail}", encoding="utf-8")
        print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())

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
  ``Analyzed`` beforehand): wall and CPU latency p50 / p99, recall of the pasted source,
  candidates a query, the SQLite file a document. The first check after the adds is
  reported apart, not in the percentiles.

    .venv/bin/python benchmarks/bloom_check.py --docs 100000 --update-docs  # 2 docs
    .venv/bin/python benchmarks/bloom_check.py --docs 100000 --stage1
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from neardup.bloom import PseudoMatrixBloomFilter
from neardup.index import Collection, IndexSpec
from neardup.index.candidates import BloomRowsSource, Winnowing
from neardup.index.collection import Analyzed
from neardup.pipeline import make_spec

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "bloom.md"
BENCHMARKS = ROOT / "docs" / "benchmarks.md"
PASTE = 30
OWN = 570


def loadavg() -> str:
    with open("/proc/loadavg") as fh:
        return " ".join(fh.read().split()[:3])


def sequences(n_docs: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    sizes = np.clip(rng.lognormal(np.log(480), 0.6, n_docs).astype(np.int64), 20, 20_000)
    return [rng.integers(0, 2**64, size=s, dtype=np.uint64) for s in sizes.tolist()]


def queries(docs: list[np.ndarray], n: int, seed: int) -> list[tuple[int, np.ndarray]]:
    rng = np.random.default_rng(seed + 1)
    out = []
    for key in rng.choice(len(docs), n, replace=False).tolist():
        src = docs[key]
        start = int(rng.integers(0, max(1, src.size - PASTE)))
        own = rng.integers(0, 2**64, size=OWN, dtype=np.uint64)
        out.append(
            (key, np.concatenate([own[: OWN // 2], src[start : start + PASTE], own[OWN // 2 :]]))
        )
    return out


def analyzed(hashes: np.ndarray, winnowing: Winnowing | None) -> Analyzed:
    samples = winnowing.samples(hashes) if winnowing else np.zeros(0, np.uint64)
    return Analyzed(np.unique(hashes), None, samples)


def stage1(args: argparse.Namespace, docs: list[np.ndarray]) -> list[str]:
    f = PseudoMatrixBloomFilter(n=1137, p=0.001, keep_fingerprints=False, fetch=lambda k: {})
    t0 = time.perf_counter()
    for key, hashes in enumerate(docs):
        f.add(key, np.unique(hashes))
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    f.sliced()
    slicing = time.perf_counter() - t0
    lines = [
        f"{len(docs):,} documents → {f.n_rows:,} rows of {f.m:,} bits (k = {f.k}); rows "
        f"{f.rows.nbytes / 2**20:,.1f} MiB, bit-sliced copy {f.sliced().nbytes / 2**20:,.1f} MiB; "
        f"built in {build:.1f} s (+ {slicing:.1f} s slicing)"
    ]
    for measure in ("bits", "members"):
        times, found, cands = [], 0, []
        for key, query in queries(docs, args.queries, args.seed):
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


def collection(
    method: str, docs: list[np.ndarray], args: argparse.Namespace, folder: Path
) -> dict[str, Any]:
    spec = IndexSpec(policy="allow", candidates=method, store_text=False)
    winnowing = Winnowing(window=spec.window) if method != "pmbf" else None
    path = folder / f"{method}.db"
    out: dict[str, Any] = {"method": method, "load_before": loadavg()}
    with Collection.create(str(path), make_spec("ru"), spec) as col:
        t0, c0 = time.perf_counter(), time.process_time()
        for start in range(0, len(docs), 1000):
            col.add_many(
                (
                    (str(key), analyzed(docs[key], winnowing))
                    for key in range(start, min(start + 1000, len(docs)))
                ),
                batch_size=1000,
            )
        out["insert_s"], out["insert_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
        qs = [(key, analyzed(q, winnowing)) for key, q in queries(docs, args.queries, args.seed)]
        t0 = time.perf_counter()
        col.check(qs[0][1])
        out["first_s"] = time.perf_counter() - t0
        wall, cpu, found, cands = [], [], 0, []
        for key, item in qs:
            t0, c0 = time.perf_counter(), time.process_time()
            result = col.check(item, top=None)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            found += str(key) in {m.id for m in result.matches}
            cands.append(result.candidates)
        src = next((s for s in col.sources if isinstance(s, BloomRowsSource)), None)
        out["rows"] = src.current(col.storage).n_rows if src else 0
    out["wall"], out["cpu"] = 1000 * np.array(wall), 1000 * np.array(cpu)
    out["recall"] = found / len(qs)
    out["candidates"] = float(np.mean(cands))
    out["file_per_doc"] = path.stat().st_size / len(docs)
    out["load_after"] = loadavg()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--methods", default="winnow,pmbf,both")
    ap.add_argument("--stage1", action="store_true", help="the filter alone, not the collection")
    ap.add_argument(
        "--update-docs",
        action="store_true",
        help="rewrite its section of docs/bloom.md and docs/benchmarks.md",
    )
    ap.add_argument("--work", type=Path, default=Path("/work/bench_cache/pmbf"))
    args = ap.parse_args(argv)
    docs = sequences(args.docs, args.seed)
    if args.stage1:
        print(f"load average {loadavg()}")
        print("\n".join(stage1(args, docs)))
        print(f"load average {loadavg()}")
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        for method in args.methods.split(","):
            r = collection(method, docs, args, Path(tmp))
            (Path(tmp) / f"{method}.db").unlink()
            line = (
                f"| {method} | {r['rows']:,} | {r['insert_s']:.0f} s "
                f"({r['insert_cpu_s']:.0f} s CPU) | "
                f"{r['first_s']:.2f} s | {np.percentile(r['wall'], 50):.2f} | "
                f"{np.percentile(r['wall'], 99):.2f} | {np.percentile(r['cpu'], 50):.2f} | "
                f"{np.percentile(r['cpu'], 99):.2f} | {r['recall']:.3f} | {r['candidates']:.1f} | "
                f"{r['file_per_doc']:,.0f} | {r['load_before']} → {r['load_after']} |"
            )
            print(line, flush=True)
            rows.append(line)
    body = "\n".join(
        [
            f"`benchmarks/bloom_check.py --docs {args.docs} --update-docs` (one run, "
            f"{time.strftime('%Y-%m-%d')}): {args.docs:,} synthetic documents, {args.queries} "
            f"queries with a 5 % paste; SQLite, {os.cpu_count()} cores shared with other "
            "developers' jobs (load average before → after each method).",
            "",
            "| candidates | filter rows | insert | first check | check p50 ms | p99 ms | "
            "CPU p50 ms | CPU p99 ms | recall 5 % | candidates/query | file B/doc | load |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
            *rows,
        ]
    )
    print(body)
    if args.update_docs:
        for doc in (DOC, BENCHMARKS):
            text = doc.read_text(encoding="utf-8")
            start, end = "<!-- results: bloom-check -->", "<!-- end: bloom-check -->"
            head, rest = text.split(start, 1)
            _, tail = rest.split(end, 1)
            doc.write_text(f"{head}{start}\n{body}\n{end}{tail}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

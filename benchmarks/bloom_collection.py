"""The collection's candidates for short pastes: winnowing, the pseudo-matrix Bloom filter
and both, in one run on the ``ru-partial`` dataset (the one ``benchmarks/quality_partial.py``
generates: passages of 5–50 % of a ru_news text pasted into another, verbatim and with 10 %
of the words edited).

Every text of the dataset goes into a SQLite collection (``policy allow``, ``containment``,
no texts stored) under each candidate method; then every text is checked against it. A
pasted passage is *found* when the collection's ``check`` of the suspicious text reports the
source among its matches (or the reverse): its candidates proposed it and the exact
verification saw shared shingles. Reported per method: the share found of 5 %, 10 %, … pastes,
candidates a query (mean, p95), the candidate index's bytes a document (postings: 16 bytes
each, a value and a key; the filter: its rows, 8 bytes of free space a row, 32 bytes a
placement part), the SQLite file a document, and ``check``'s CPU time a query (p50, p99).

    .venv/bin/python benchmarks/bloom_collection.py                # docs/bloom.md + quality.md
    .venv/bin/python benchmarks/bloom_collection.py --no-docs      # print only
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
from quality_common import WORK, ensure_dataset, log, need_data, table, update_section
from quality_partial import SHARES, partial_config

from neardup.eval import formats
from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec

ROOT = Path(__file__).resolve().parents[1]
BLOOM_DOCS = ROOT / "docs" / "bloom.md"
#: name → the index spec's candidate settings: the default before issue 26 (``winnow-24``:
#: window 24, samples looked up), the default since (``winnow``: window 11, every shingle
#: looked up), the pseudo-matrix filter and both
METHODS: dict[str, dict[str, Any]] = {
    "winnow-24": {"window": 24, "lookup": "samples"},
    "winnow": {},
    "pmbf": {"candidates": "pmbf"},
    "both": {"candidates": "both"},
    # not run unless named (--methods): the window's trade
    "winnow-8": {"window": 8},
    "winnow-16": {"window": 16},
    "winnow-11-samples": {"lookup": "samples"},
    "winnow-24-all": {"window": 24, "lookup": "shingles"},
}
DEFAULT_METHODS = "winnow-24,winnow,pmbf,both"


def run_method(method: str, texts: list[str], folder: Path) -> dict[str, Any]:
    """Build the collection under ``method``, check every text; matches, costs, timings."""
    path = folder / f"{method}.db"
    spec = IndexSpec(policy="allow", measure="containment", store_text=False, **METHODS[method])
    t0 = time.perf_counter()
    with Collection.create(str(path), make_spec("ru"), spec) as col:
        col.add_many((str(i), t) for i, t in enumerate(texts))
        build = time.perf_counter() - t0
        analyzed = [col.analyze(t) for t in texts]
        found: set[tuple[int, int]] = set()
        candidates, cpu = [], []
        for i, item in enumerate(analyzed):
            c0 = time.process_time()
            result = col.look_up(item, top=None, policy=None)
            cpu.append(time.process_time() - c0)
            candidates.append(result.candidates)
            for m in result.matches:
                j = int(m.id)
                if j != i:
                    found.add((min(i, j), max(i, j)))
        counts = col.storage.counts()
        state = col.storage.pmbf_state()
    filter_bytes = state.bits.nbytes + 8 * state.rows.shape[0] + 32 * state.parts.shape[0]
    n = len(texts)
    return {
        "found": found,
        "candidates": np.array(candidates, dtype=np.float64),
        "cpu_ms": 1000 * np.array(cpu),
        "index_bytes": (16 * counts["postings"] + filter_bytes) / n,
        "file_bytes": path.stat().st_size / n,
        "rows": int(state.rows.shape[0]),
        "build_s": build,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=120, help="source documents (default 120)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--work", type=Path, default=WORK)
    ap.add_argument("--no-docs", action="store_true")
    ap.add_argument("--methods", default=DEFAULT_METHODS)
    args = ap.parse_args(argv)
    need_data("ru_news.jsonl.gz")
    directory = ensure_dataset("ru-partial", partial_config(args.docs, args.seed), args.work)
    dataset = formats.read_pairs(directory / "pairs.jsonl")
    texts = list(dataset.texts)
    kinds = np.asarray(dataset.kinds, dtype=object)
    positive = dataset.labels == 1
    load_before = open("/proc/loadavg").read().split()[:3]
    results = {}
    Path("/work/bench_cache/pmbf").mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir="/work/bench_cache/pmbf") as tmp:
        for method in args.methods.split(","):
            results[method] = run_method(method, texts, Path(tmp))
            log(f"[bloom-collection] {method}: built in {results[method]['build_s']:.1f} s")
    load_after = open("/proc/loadavg").read().split()[:3]
    union = {**results}
    rows = []
    for method in results:
        r = union[method]
        row: list[Any] = [method]
        for kind in ("partial", "partial-edited"):
            for share in SHARES:
                at = np.flatnonzero(positive & (kinds == kind) & (dataset.levels == share))
                hit = [
                    (min(int(a), int(b)), max(int(a), int(b))) in r["found"]
                    for a, b in zip(dataset.a[at], dataset.b[at], strict=True)
                ]
                row.append(float(np.mean(hit)) if hit else None)
        c, ms = r["candidates"], r["cpu_ms"]
        row += [
            float(c.mean()),
            float(np.percentile(c, 95)),
            round(r["index_bytes"]),
            round(r["file_bytes"]),
            float(np.percentile(ms, 50)),
            float(np.percentile(ms, 99)),
        ]
        rows.append(row)
    header = (
        ["candidates"]
        + [f"{s:g} verbatim" for s in SHARES]
        + [f"{s:g} edited" for s in SHARES]
        + [
            "candidates/query",
            "p95",
            "index B/doc",
            "file B/doc",
            "check CPU ms p50",
            "p99",
        ]
    )
    n_pos = {
        kind: int(np.count_nonzero(positive & (kinds == kind)))
        for kind in ("partial", "partial-edited")
    }
    filter_rows = results.get("pmbf", {}).get("rows", 0)
    body = "\n".join(
        [
            f"`benchmarks/bloom_collection.py` (one run): {len(texts):,} texts of `ru-partial` "
            f"({n_pos['partial']} verbatim and {n_pos['partial-edited']} edited pastes, shares "
            f"{', '.join(f'{s:g}' for s in SHARES)}), each method's SQLite collection under the "
            "`ru` spec, `IndexSpec(policy='allow', measure='containment', candidates=…)` with "
            "the defaults otherwise (window 11 and every shingle looked up; `winnow-24`: window "
            "24, samples looked up, the default before issue 26; max_candidates 100; pmbf_n "
            "1000, pmbf_p 0.001, "
            f"pmbf_max_rows 50; the filter has {filter_rows:,} rows here). "
            f"Share found of the pastes by share pasted; load average "
            f"{' '.join(load_before)} before, {' '.join(load_after)} after, "
            f"{os.cpu_count()} cores shared with other developers' jobs; "
            f"{time.strftime('%Y-%m-%d')}.",
            "",
            table(header, rows),
        ]
    )
    print(body)
    if not args.no_docs:
        update_section("bloom-collection", body, BLOOM_DOCS)
    return 0


if __name__ == "__main__":
    sys.exit(main())

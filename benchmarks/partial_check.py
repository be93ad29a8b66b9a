"""Partial copies at scale (issue 26): the share of 5 % and 10 % pastes a collection's ``check``
finds, and what the check costs, for each candidate source.

Documents are synthetic shingle fingerprint sequences (random 64-bit values: the candidates
do not depend on what the fingerprints mean) of 300–1,500 words (uniform, ``--words``; a text
of ``w`` words has ``w − 4`` word 5-shingles). A query is a fresh text of the same length
distribution into which a run of 5 % (or 10 %) of a stored document's words is pasted at a
random place: the run's own shingles, and 4 new shingles on each side where the paste meets
the essay's words. So a 5 % paste of a 300-word text is 15 words, 11 shingles of the source.

Candidate sources, each in its own SQLite collection (``policy allow``, texts not stored):

* ``winnow-24`` — the default before issue 26: winnowing window 24, a text looks up its own
  samples (``IndexSpec(window=24, lookup="samples")``);
* ``winnow-24-all`` — the same stored collection, a text looking up every one of its shingles;
* ``winnow-11-samples`` — window 11, samples looked up (denser sampling on both sides);
* ``winnow-11`` — the default since issue 26: window 11, every shingle looked up;
* ``pmbf`` — seed 001's pseudo-matrix filter (``candidates="pmbf"``, its defaults).

A collection is built once per window (``--build checked``: every add compared with the
collection, as ``neardup index add``; ``unchecked``: the bulk load) and checked with both
lookups. Reported: recall of the pasted source among ``check``'s matches, ``check`` wall and
CPU time p50 / p99 (``Collection.look_up``, the storage's part of ``check``: candidates and
their exact verification; the queries are ``IndexableText`` beforehand), candidates a
query, postings a document, the SQLite file a document, and the insert's wall and CPU time.

    .venv/bin/python benchmarks/partial_check.py --docs 100000
    .venv/bin/python benchmarks/partial_check.py --docs 100000 --sources winnow-11,pmbf
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec
from neardup.index.candidates import Winnowing, sources_for
from neardup.index.collection import IndexableText

ROOT = Path(__file__).resolve().parents[1]
K = 5
EDGE = K - 1
SHARES = (0.05, 0.10)
#: source name → (stored spec changes, lookup)
SOURCES: dict[str, tuple[dict[str, Any], str]] = {
    "winnow-24": ({"window": 24}, "samples"),
    "winnow-24-all": ({"window": 24}, "shingles"),
    "winnow-11-samples": ({"window": 11}, "samples"),
    "winnow-11": ({"window": 11}, "shingles"),
    "pmbf": ({"candidates": "pmbf"}, "samples"),
}


def loadavg() -> str:
    with open("/proc/loadavg") as fh:
        return " ".join(fh.read().split()[:3])


#: the words of a text: uniform in this range (``--words``)
WORDS = [300, 1500]


def words_of(n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.integers(WORDS[0], WORDS[1] + 1, n)


def documents(n_docs: int, seed: int) -> Iterator[np.ndarray]:
    """The stored documents' shingle sequences, made one at a time."""
    rng = np.random.default_rng(seed)
    for words in words_of(n_docs, rng).tolist():
        yield rng.integers(0, 2**64, size=words - EDGE, dtype=np.uint64)


def queries(n_docs: int, per_share: int, seed: int) -> list[tuple[float, int, np.ndarray]]:
    """``(share, source key, shingles)``: a fresh text with ``share`` of a stored one's words."""
    rng = np.random.default_rng(seed + 1)
    keys = rng.choice(n_docs, per_share * len(SHARES), replace=False).tolist()
    wanted = set(keys)
    stored = {k: d for k, d in enumerate(documents(n_docs, seed)) if k in wanted}
    out = []
    for i, key in enumerate(keys):
        share = SHARES[i // per_share]
        src = stored[key]
        words = src.shape[0] + EDGE
        run = max(1, round(share * words) - EDGE)  # the paste's own shingles
        start = int(rng.integers(0, src.shape[0] - run + 1))
        host = rng.integers(0, 2**64, size=int(words_of(1, rng)[0]) - EDGE, dtype=np.uint64)
        at = int(rng.integers(0, host.shape[0] + 1))
        edges = rng.integers(0, 2**64, size=2 * EDGE, dtype=np.uint64)
        shingles = np.concatenate(
            [host[:at], edges[:EDGE], src[start : start + run], edges[EDGE:], host[at:]]
        )
        out.append((share, key, shingles))
    return out


def analyzed(hashes: np.ndarray, window: int | None) -> IndexableText:
    samples = Winnowing(window=window).samples(hashes) if window else np.zeros(0, np.uint64)
    return IndexableText(np.unique(hashes), None, samples)


def build(name: str, args: argparse.Namespace, folder: Path) -> tuple[Collection, dict[str, Any]]:
    changes, _ = SOURCES[name]
    spec = IndexSpec(policy="allow", store_text=False, **changes)
    window = spec.window if spec.candidates != "pmbf" else None
    checked = (args.pmbf_build if spec.candidates == "pmbf" else args.build) == "checked"
    path = folder / f"{name}.db"
    out: dict[str, Any] = {"load_before": loadavg(), "build": "checked" if checked else "unchecked"}
    col = Collection.create(str(path), make_spec("plain"), spec)
    t0, c0 = time.perf_counter(), time.process_time()
    col.add_many(
        ((str(k), analyzed(h, window)) for k, h in enumerate(documents(args.docs, args.seed))),
        batch_size=1000,
        check=checked,
    )
    out["insert_s"], out["insert_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
    out["postings_per_doc"] = col.storage.counts().get("postings", 0) / args.docs
    out["path"] = path
    return col, out


def measure(
    col: Collection, name: str, made: list[tuple[float, int, np.ndarray]], out: dict[str, Any]
) -> dict[str, Any]:
    changes, lookup = SOURCES[name]
    spec = col.index_spec.replace(lookup=lookup)
    col.sources = sources_for(spec, col.generator)  # the same stored collection, this lookup
    window = spec.window if spec.candidates != "pmbf" else None
    qs = [(share, key, analyzed(h, window)) for share, key, h in made]
    col.look_up(qs[0][2], top=None, policy=None)  # the first (reads the tail, …) apart
    wall, cpu, cands = [], [], []
    found: dict[float, list[bool]] = {s: [] for s in SHARES}
    for share, key, item in qs:
        t0, c0 = time.perf_counter(), time.process_time()
        result = col.look_up(item, top=None, policy=None)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        found[share].append(str(key) in {m.id for m in result.matches})
        cands.append(result.candidates)
    w, c = 1000 * np.array(wall), 1000 * np.array(cpu)
    return {
        **{k: v for k, v in out.items() if k != "path"},
        "source": name,
        "lookup": lookup,
        "recall": {f"{s:g}": float(np.mean(found[s])) for s in SHARES},
        "found": {f"{s:g}": f"{sum(found[s])}/{len(found[s])}" for s in SHARES},
        "wall_p50": float(np.percentile(w, 50)),
        "wall_p99": float(np.percentile(w, 99)),
        "cpu_p50": float(np.percentile(c, 50)),
        "cpu_p99": float(np.percentile(c, 99)),
        "candidates": float(np.mean(cands)),
        "file_per_doc": out["path"].stat().st_size / len(col),
        "load_after": loadavg(),
    }


def row(docs: int, r: dict[str, Any]) -> str:
    return (
        f"| {docs:,} | {r['source']} | {r['build']} | {r['found']['0.05']} "
        f"({r['recall']['0.05']:.3f}) | {r['found']['0.1']} ({r['recall']['0.1']:.3f}) | "
        f"{r['cpu_p50']:.2f} | {r['cpu_p99']:.2f} | {r['wall_p50']:.2f} | {r['wall_p99']:.2f} | "
        f"{r['candidates']:.1f} | {r['postings_per_doc']:.1f} | {r['file_per_doc']:,.0f} | "
        f"{r['insert_s']:.0f} s ({r['insert_cpu_s']:.0f} s CPU) | "
        f"{r['load_before']} → {r['load_after']} |"
    )


HEAD = [
    "| docs | candidates | build | 5 % pastes found | 10 % | check CPU p50 ms | CPU p99 ms | "
    "wall p50 ms | wall p99 ms | candidates/query | postings/doc | file B/doc | insert | load |",
    "|---:|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200, help="queries per share pasted")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sources", default=",".join(SOURCES))
    ap.add_argument("--build", choices=("checked", "unchecked"), default="checked")
    ap.add_argument("--pmbf-build", choices=("checked", "unchecked"), default="unchecked")
    ap.add_argument("--work", type=Path, default=Path("/work/bench_cache/partial"))
    ap.add_argument("--json", type=Path, help="write the results here too")
    ap.add_argument(
        "--words", default="300,1500", help="the range of a text's words (default 300,1500)"
    )
    args = ap.parse_args(argv)
    WORDS[:] = [int(w) for w in args.words.split(",")]
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    wanted = args.sources.split(",")
    made = queries(args.docs, args.queries, args.seed)
    print(
        f"{os.cpu_count()} cores shared with other jobs; commit {commit}; texts of "
        f"{WORDS[0]}–{WORDS[1]} words; load {loadavg()}"
    )
    print("\n".join(HEAD), flush=True)
    results = []
    args.work.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        builds: dict[str, list[str]] = {}
        for name in wanted:
            builds.setdefault(json.dumps(SOURCES[name][0], sort_keys=True), []).append(name)
        for names in builds.values():
            col, out = build(names[0], args, Path(tmp))
            with col:
                for name in names:
                    results.append(measure(col, name, made, out))
                    print(row(args.docs, results[-1]), flush=True)
            out["path"].unlink()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark of the collection (issue 4): insert throughput, check latency, bytes per document,
recall against exact brute force, and the same queries against datasketch's MinHashLSH.

    .venv/bin/python benchmarks/collection_bench.py --docs 100000 --queries 1000 --write-docs

Documents: real texts from ../shared/data (ru_news, reuters21578, 20newsgroups, and ruslit cut
into ~5,000-character pieces), then seeded variants of them (benchmarks/collection_data.py:
word edits at rates 0.02–0.5, morphology changes, pasted paragraphs) until ``--docs`` is
reached; they are inserted in a fixed shuffled order. Queries: variants of stored documents
(edits 0.02–0.2, pastes of 100–300 words) and new variants (edit rate 0.5, nearly unrelated),
never stored.

Phases, each timed on its own:

1. analysis (``Collection.analyze`` in ``--workers`` processes; cached under
   build/collection_bench so reruns skip it) — reported, but not part of the index figures;
2. bulk insert of the analyzed documents into SQLite (``add_many``, batches of 1,000, policy
   ``allow`` so every document is stored) — docs/s overall and per 10% of the run;
3. ``check`` of every query against the SQLite collection — latency p50/p90/p99, analysis
   excluded (queries are analyzed beforehand), as the target says;
4. the same on the memory backend (bytes of arrays held and process RSS growth) and, with
   ``--postgres-docs``, on PostgreSQL;
5. datasketch: ``MinHash(num_perm=128, scheme='affine64', hashfunc=identity)`` over the same
   64-bit shingle fingerprints with ``update_batch``, a ``MinHashLSH(threshold=0.5)`` in
   memory, insert throughput and query latency (signatures made beforehand);
6. ground truth: exact shared-shingle counts of every query with every stored document from a
   full (unsampled) inverted index; recall of both at several thresholds.

For sizes where the in-memory and brute-force phases take too long, ``--sqlite-only`` runs
phases 1–3 and writes build/collection_bench/results_<tag>_<synchronous>_sqlite.json;
``--synchronous normal`` times the insert with SQLite's opt-in ``synchronous=NORMAL``.

Results go to build/collection_bench/results.json, plots to docs/img/collection_*.png and, with
``--write-docs``, a table into the ``collection`` section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing as mp
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import collection_data as cd

from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec
from neardup.index.collection import IndexableText
from neardup.spec import Spec
from neardup.storage.sqlite import SQLiteStorage

WORK = ROOT / "build" / "collection_bench"
IMG = ROOT / "docs" / "img"
DOC = ROOT / "docs" / "benchmarks.md"


def rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


# --- documents ---------------------------------------------------------------------------------


def ruslit_pieces(limit: int) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for doc_id, text in cd.iter_texts("ruslit.jsonl.gz", min_chars=1000, max_chars=10**9):
        words = text.split()
        for i in range(0, len(words), 800):
            piece = " ".join(words[i : i + 800])
            if len(piece) >= 1000:
                out.append((f"ruslit:{doc_id}:{i // 800}", piece))
                if len(out) >= limit:
                    return out
    return out


def real_texts(limit: int) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for name, prefix in (
        ("ru_news.jsonl.gz", "news"),
        ("reuters21578.jsonl.gz", "reuters"),
        ("20newsgroups.jsonl.gz", "ng"),
    ):
        for doc_id, text in cd.iter_texts(name, min_chars=500, max_chars=30000):
            out.append((f"{prefix}:{doc_id}", text))
            if len(out) >= limit:
                return out
    out += ruslit_pieces(limit - len(out))
    return out


def build_corpus(
    n_docs: int, n_queries: int, seed: int
) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]], int]:
    real = real_texts(n_docs)
    n_real = len(real)
    docs = list(real)
    rng = np.random.default_rng(seed)
    vocab = cd.vocabulary([t for _, t in real[:3000]])
    kinds = [
        ("edit", 0.02),
        ("edit", 0.1),
        ("edit", 0.3),
        ("edit", 0.5),
        ("morph", 0.3),
        ("paste", 300),
    ]
    i = 0
    while len(docs) < n_docs:
        src_id, src = real[int(rng.integers(n_real))]
        kind, arg = kinds[i % len(kinds)]
        if kind == "edit":
            text = cd.edit(src, float(arg), rng, vocab)
        elif kind == "morph":
            text = cd.morph(src, float(arg), rng)
        else:
            text = cd.paste(real[int(rng.integers(n_real))][1], src, int(arg), rng)
        docs.append((f"gen{i}:{kind}{arg}:{src_id}", text))
        i += 1
    queries = []
    qkinds = [
        ("edit", 0.02),
        ("edit", 0.05),
        ("edit", 0.1),
        ("edit", 0.2),
        ("paste", 300),
        ("paste", 100),
        ("edit", 0.5),
        ("edit", 0.5),
    ]
    for j in range(n_queries):
        src_id, src = docs[int(rng.integers(len(docs)))]
        kind, arg = qkinds[j % len(qkinds)]
        if kind == "edit":
            text = cd.edit(src, float(arg), rng, vocab)
        else:
            text = cd.paste(real[int(rng.integers(n_real))][1], src, int(arg), rng)
        queries.append((f"q{j}:{kind}{arg}:{src_id}", text, f"{kind}{arg}"))
    return docs, queries, n_real


# --- analysis (in worker processes, cached) ----------------------------------------------------

_WORKER: Collection | None = None


def _init_worker(preset: str, window: int) -> None:
    global _WORKER
    _WORKER = Collection.create(
        "memory:", make_spec(preset), IndexSpec(window=window, store_text=False)
    )


def _analyze(text: str) -> tuple[np.ndarray, np.ndarray]:
    assert _WORKER is not None
    a = _WORKER.analyze(text)
    return a.values, a.samples


def analyze_all(
    texts: list[str], preset: str, window: int, workers: int, cache: Path
) -> tuple[list[IndexableText], float]:
    if cache.exists():
        z = np.load(cache)
        vo, so = z["v_off"], z["s_off"]
        v, s = z["values"], z["samples"]
        out = [
            IndexableText(v[vo[i] : vo[i + 1]], None, s[so[i] : so[i + 1]])
            for i in range(len(vo) - 1)
        ]
        return out, float(z["seconds"])
    t0 = time.perf_counter()
    with mp.get_context("fork").Pool(workers, _init_worker, (preset, window)) as pool:
        pairs = pool.map(_analyze, texts, chunksize=64)
    seconds = time.perf_counter() - t0
    return _save_analyzed(cache, [p[0] for p in pairs], [p[1] for p in pairs], seconds), seconds


_CORPUS: Any = None


def _init_web_worker(preset: str, window: int) -> None:
    _init_worker(preset, window)


def _make_and_analyze(
    task: tuple[str, int, int, int],
) -> tuple[list[str], list[int], list[np.ndarray], list[np.ndarray]]:
    """Documents ``lo … hi-1`` (or queries, against ``n_docs`` documents), made and analyzed."""
    what, lo, hi, n_docs = task
    assert _WORKER is not None and _CORPUS is not None
    ids, chars, values, samples = [], [], [], []
    for i in range(lo, hi):
        if what == "doc":
            doc_id, text = _CORPUS.doc(i)
        else:
            doc_id, text, _ = _CORPUS.query(i, n_docs)
        a = _WORKER.analyze(text)
        ids.append(doc_id)
        chars.append(len(text))
        values.append(a.values)
        samples.append(a.samples)
    return ids, chars, values, samples


def _save_analyzed(
    cache: Path, values: list[np.ndarray], samples: list[np.ndarray], seconds: float
) -> list[IndexableText]:
    v_off = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum([x.shape[0] for x in values], out=v_off[1:])
    s_off = np.zeros(len(samples) + 1, dtype=np.int64)
    np.cumsum([x.shape[0] for x in samples], out=s_off[1:])
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        cache,
        values=np.concatenate(values),
        samples=np.concatenate(samples),
        v_off=v_off,
        s_off=s_off,
        seconds=seconds,
    )
    return [IndexableText(v, None, s) for v, s in zip(values, samples)]


def build_web(
    n_docs: int,
    n_queries: int,
    seed: int,
    preset: str,
    window: int,
    workers: int,
    doc_cache: Path,
    query_cache: Path,
) -> tuple[dict[str, Any], list[str], list[IndexableText], list[IndexableText], float]:
    """The ``web`` corpus (web_corpus.py), made and analyzed in ``workers`` processes by ranges."""
    global _CORPUS
    from rich.progress import track
    from web_corpus import WebCorpus

    real = real_texts(n_docs)
    _CORPUS = WebCorpus(real, seed)
    step = 500
    out: dict[str, tuple[list[str], list[int], list[np.ndarray], list[np.ndarray]]] = {}
    t0 = time.perf_counter()
    with mp.get_context("fork").Pool(workers, _init_web_worker, (preset, window)) as pool:
        for what, n in (("doc", n_docs), ("query", n_queries)):
            tasks = [(what, lo, min(lo + step, n), n_docs) for lo in range(0, n, step)]
            ids: list[str] = []
            chars: list[int] = []
            values: list[np.ndarray] = []
            samples: list[np.ndarray] = []
            for part in track(
                pool.imap(_make_and_analyze, tasks),
                total=len(tasks),
                description=f"{what} texts ({n:,})",
            ):
                ids += part[0]
                chars += part[1]
                values += part[2]
                samples += part[3]
            out[what] = (ids, chars, values, samples)
            if what == "doc":
                seconds = time.perf_counter() - t0
    docs = _save_analyzed(doc_cache, out["doc"][2], out["doc"][3], seconds)
    queries = _save_analyzed(query_cache, out["query"][2], out["query"][3], 0.0)
    kinds: dict[str, int] = {}
    for doc_id in out["doc"][0][len(real) :]:
        kind = doc_id.split(":")[1]
        kinds[kind] = kinds.get(kind, 0) + 1
    info = {
        "name": "web",
        "docs": n_docs,
        "real": len(real),
        "generated": n_docs - len(real),
        "new": kinds.get("new", 0),
        "variants": n_docs - len(real) - kinds.get("new", 0),
        "kinds": kinds,
        "queries": n_queries,
        "mean_chars": float(np.mean(out["doc"][1])),
    }
    return info, out["doc"][0], docs, queries, seconds


# --- the collection ----------------------------------------------------------------------------


def bulk_insert(
    col: Collection, ids: list[str], analyzed: list[IndexableText], batch: int
) -> dict[str, Any]:
    n = len(ids)
    marks = []
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    done = 0
    step = max(1, n // 10)
    next_mark = step
    for _ in col.iter_add(zip(ids, analyzed), batch_size=batch):
        done += 1
        if done >= next_mark:
            marks.append((done, time.perf_counter() - t0))
            next_mark += step
    seconds = time.perf_counter() - t0
    per_tenth = []
    prev = (0, 0.0)
    for m in marks:
        per_tenth.append((m[0], (m[0] - prev[0]) / max(m[1] - prev[1], 1e-9)))
        prev = m
    return {
        "docs": n,
        "seconds": seconds,
        "docs_per_s": n / seconds,
        "per_tenth": per_tenth,
        "load_average_1min": [load_before, os.getloadavg()[0]],
    }


def check_latency(
    col: Collection, queries: list[IndexableText], top: int | None = None
) -> tuple[dict[str, Any], list]:
    lat = []
    results = []
    for q in queries:
        t0 = time.perf_counter()
        r = col.check(q, top=top)
        lat.append(time.perf_counter() - t0)
        results.append(r)
    ms = [x * 1000 for x in lat]
    return {
        "queries": len(ms),
        "p50_ms": pct(ms, 50),
        "p90_ms": pct(ms, 90),
        "p99_ms": pct(ms, 99),
        "max_ms": max(ms),
        "mean_ms": float(np.mean(ms)),
        "mean_candidates": float(np.mean([r.candidates for r in results])),
    }, results


def sqlite_table_bytes(path: Path) -> dict[str, int]:
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
    finally:
        conn.close()
    groups: dict[str, int] = {}
    for name, size in rows:
        key = {
            "docs_grp": "docs",
            "sqlite_autoindex_docs_1": "docs",
            "links_b": "links",
            "sqlite_autoindex_meta_1": "meta",
        }.get(name, name)
        groups[key] = groups.get(key, 0) + int(size)
    return groups


# --- ground truth ------------------------------------------------------------------------------


def exact_truth(
    docs: list[IndexableText], queries: list[IndexableText], chunk_docs: int = 20000
) -> list[tuple[np.ndarray, np.ndarray]]:
    """For each query: (doc indices sharing a shingle, shared counts), by brute force.

    Every shingle of every document is looked up among the queries' shingles (a sorted array
    of them), a chunk of documents at a time, so memory stays bounded at any corpus size.
    """
    q_sizes = np.array([q.values.shape[0] for q in queries], dtype=np.int64)
    q_vals = np.concatenate([q.values for q in queries])
    q_owner = np.repeat(np.arange(len(queries), dtype=np.int64), q_sizes)
    order = np.lexsort((q_owner, q_vals))
    q_vals, q_owner = q_vals[order], q_owner[order]
    pairs: list[np.ndarray] = []  # (query, doc) of every shared shingle, as query * n + doc
    n = len(docs)
    for lo_doc in range(0, n, chunk_docs):
        part = docs[lo_doc : lo_doc + chunk_docs]
        sizes = np.array([d.values.shape[0] for d in part], dtype=np.int64)
        values = np.concatenate([d.values for d in part])
        owner = np.repeat(np.arange(lo_doc, lo_doc + len(part), dtype=np.int64), sizes)
        lo = np.searchsorted(q_vals, values, "left")
        hi = np.searchsorted(q_vals, values, "right")
        hit = np.flatnonzero(hi > lo)
        if not hit.size:
            continue
        lengths = (hi - lo)[hit]
        idx = np.repeat(lo[hit] - np.cumsum(lengths) + lengths, lengths) + np.arange(
            int(lengths.sum())
        )
        pairs.append(q_owner[idx] * n + np.repeat(owner[hit], lengths))
    keys, counts = np.unique(
        np.concatenate(pairs) if pairs else np.zeros(0, np.int64), return_counts=True
    )
    query_of, doc_of = keys // n, keys % n
    bounds = np.searchsorted(query_of, np.arange(len(queries) + 1))
    return [
        (doc_of[bounds[i] : bounds[i + 1]], counts[bounds[i] : bounds[i + 1]])
        for i in range(len(queries))
    ]


# --- datasketch ----------------------------------------------------------------------------------


def datasketch_run(
    docs: list[IndexableText],
    ids: list[str],
    queries: list[IndexableText],
    threshold: float,
    num_perm: int,
) -> tuple[dict[str, Any], list[list[str]]]:
    from datasketch import LeanMinHash, MinHash, MinHashLSH

    shared = MinHash(num_perm=num_perm, scheme="affine64").permutations

    def sig(a: IndexableText) -> LeanMinHash:
        # one permutation table for all, and only seed + hash values kept per document (1M
        # documents fit in memory beside the LSH tables)
        m = MinHash(num_perm=num_perm, scheme="affine64", hashfunc=lambda x: x, permutations=shared)
        m.update_batch(a.values.tolist())
        return LeanMinHash(m)

    t0 = time.perf_counter()
    sigs = [sig(a) for a in docs]
    sign_s = time.perf_counter() - t0
    qsigs = [sig(a) for a in queries]
    gc.collect()
    rss0 = rss_bytes()
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    t0 = time.perf_counter()
    with lsh.insertion_session() as session:
        for doc_id, m in zip(ids, sigs):
            session.insert(doc_id, m)
    insert_s = time.perf_counter() - t0
    gc.collect()
    lsh_rss = rss_bytes() - rss0
    lat = []
    found = []
    for m in qsigs:
        t0 = time.perf_counter()
        found.append(lsh.query(m))
        lat.append((time.perf_counter() - t0) * 1000)
    sig_bytes = sum(m.hashvalues.nbytes for m in sigs)
    return {
        "num_perm": num_perm,
        "threshold": threshold,
        "bands_rows": list(lsh.b_r) if hasattr(lsh, "b_r") else None,
        "sign_docs_per_s": len(docs) / sign_s,
        "insert_docs_per_s": len(docs) / insert_s,
        "query_p50_ms": pct(lat, 50),
        "query_p90_ms": pct(lat, 90),
        "query_p99_ms": pct(lat, 99),
        "query_max_ms": max(lat),
        "lsh_rss_bytes_per_doc": lsh_rss / len(docs),
        "signature_bytes_per_doc": sig_bytes / len(docs),
        "mean_candidates": float(np.mean([len(f) for f in found])),
    }, found


# --- main ----------------------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument(
        "--corpus",
        choices=("web", "sources"),
        default="web",
        help="web: real texts, then new texts (30%% near-copies of earlier documents) so the "
        "share of duplicates stays the same at any size; sources: real texts, then only "
        "variants of them (more variants per source as the corpus grows)",
    )
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--preset", default="plain")
    ap.add_argument("--window", type=int, default=24)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--postgres-docs",
        type=int,
        default=0,
        help="also insert this many documents into PostgreSQL and time check there",
    )
    ap.add_argument("--postgres-url", default="postgresql://postgres@127.0.0.1:5432/test")
    ap.add_argument("--no-datasketch", action="store_true")
    ap.add_argument(
        "--synchronous",
        choices=("full", "normal"),
        default="full",
        help="SQLite synchronous setting for the insert (full: the default durability)",
    )
    ap.add_argument(
        "--sqlite-only",
        action="store_true",
        help="only the SQLite insert and check phases (for large sizes; no recall)",
    )
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument(
        "--docs-from",
        type=Path,
        nargs="+",
        default=None,
        help="only rewrite the plot and the docs section from earlier results files: the "
        "first is described in full, the others in a table of other sizes",
    )
    ap.add_argument(
        "--history",
        nargs="+",
        default=None,
        metavar="LABEL=RESULTS.json",
        help="only plot SQLite insert throughput per tenth of several earlier runs "
        "(docs/img/collection_history.png)",
    )
    return ap.parse_args()


def main() -> None:
    args = parse_args()
    if args.history is not None:
        plot_history(
            [
                (
                    item.partition("=")[0],
                    json.loads(Path(item.partition("=")[2]).read_text(encoding="utf-8")),
                )
                for item in args.history
            ]
        )
        return
    if args.docs_from is not None:
        saved = [json.loads(f.read_text(encoding="utf-8")) for f in args.docs_from]
        plot(saved[0], "")
        write_docs(saved[0], "", others=saved[1:])
        return

    WORK.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {
        "args": vars(args),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
    }
    tag = f"{args.docs}_{args.queries}_{args.preset}_w{args.window}_s{args.seed}"
    if args.corpus == "web":
        tag += "_web"
    ids, analyzed, q_analyzed = load_corpus(args, tag, results)

    spec = make_spec(args.preset)
    index_spec = IndexSpec(policy="allow", threshold=0.7, window=args.window, store_text=False)

    sqlite_results = sqlite_phase(args, tag, spec, index_spec, ids, analyzed, q_analyzed, results)
    if args.sqlite_only:
        out = WORK / f"results_{tag}_{args.synchronous}_sqlite.json"
        out.write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
        print(f"wrote {out}", flush=True)
        return

    memory_phase(args, spec, index_spec, ids, analyzed, q_analyzed, results)
    if args.postgres_docs:
        postgres_phase(args, spec, index_spec, ids, analyzed, q_analyzed, results)
    quality_phase(args, ids, analyzed, q_analyzed, sqlite_results, results)

    out = WORK / f"results_{tag}.json"
    out.write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"wrote {out}", flush=True)
    plot(results, tag)
    if args.write_docs:
        write_docs(results, tag)


def load_corpus(
    args: argparse.Namespace, tag: str, results: dict[str, Any]
) -> tuple[list[str], list[IndexableText], list[IndexableText]]:
    """The documents' ids and analyses (in the insertion order) and the queries' analyses,
    made or read from the cache in WORK; ``results`` gets the corpus and analysis figures."""
    corpus_cache = WORK / f"corpus_{tag}.json"
    doc_cache, query_cache = WORK / f"docs_{tag}.npz", WORK / f"queries_{tag}.npz"
    if corpus_cache.exists() and doc_cache.exists() and query_cache.exists():
        results["corpus"], ids = json.loads(corpus_cache.read_text(encoding="utf-8"))
        analyzed, analysis_s = analyze_all([], args.preset, args.window, args.workers, doc_cache)
        q_analyzed, _ = analyze_all([], args.preset, args.window, args.workers, query_cache)
        print(f"reusing the analyzed corpus of {corpus_cache}", flush=True)
    elif args.corpus == "web":
        print(
            f"making and analyzing {args.docs} documents and {args.queries} queries …", flush=True
        )
        results["corpus"], ids, analyzed, q_analyzed, analysis_s = build_web(
            args.docs,
            args.queries,
            args.seed,
            args.preset,
            args.window,
            args.workers,
            doc_cache,
            query_cache,
        )
    else:
        print(f"building {args.docs} documents and {args.queries} queries …", flush=True)
        docs, queries, n_real = build_corpus(args.docs, args.queries, args.seed)
        results["corpus"] = {
            "name": "sources",
            "docs": len(docs),
            "real": n_real,
            "generated": len(docs) - n_real,
            "queries": len(queries),
            "mean_chars": float(np.mean([len(t) for _, t in docs])),
        }
        ids = [i for i, _ in docs]
        doc_texts = [t for _, t in docs]
        query_texts = [t for _, t, _ in queries]
        del docs, queries
        analyzed, analysis_s = analyze_all(
            doc_texts, args.preset, args.window, args.workers, doc_cache
        )
        q_analyzed, _ = analyze_all(
            query_texts, args.preset, args.window, args.workers, query_cache
        )
        del doc_texts, query_texts
    corpus_cache.write_text(
        json.dumps([results["corpus"], ids], ensure_ascii=False), encoding="utf-8"
    )
    # insert in a fixed shuffled order, so real texts and variants are mixed all along the run
    perm = np.random.default_rng(args.seed).permutation(len(ids))
    ids = [ids[i] for i in perm.tolist()]
    analyzed = [analyzed[i] for i in perm.tolist()]
    results["analysis"] = {
        "seconds": analysis_s,
        "docs_per_s": len(ids) / analysis_s,
        "workers": args.workers,
        "mean_shingles": float(np.mean([a.values.shape[0] for a in analyzed])),
        "mean_samples": float(np.mean([a.samples.shape[0] for a in analyzed])),
    }
    print(f"analysis: {results['analysis']}", flush=True)
    return ids, analyzed, q_analyzed


def sqlite_phase(
    args: argparse.Namespace,
    tag: str,
    spec: Spec,
    index_spec: IndexSpec,
    ids: list[str],
    analyzed: list[IndexableText],
    q_analyzed: list[IndexableText],
    results: dict[str, Any],
) -> list:
    """Insert into and check against SQLite; returns the check results of the queries."""
    db = WORK / f"bench_{tag}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    col = Collection.create(
        SQLiteStorage(db, create=True, synchronous=args.synchronous), spec, index_spec
    )
    results["sqlite_insert"] = bulk_insert(col, ids, analyzed, args.batch)
    print(f"sqlite insert: {results['sqlite_insert']['docs_per_s']:.0f} docs/s", flush=True)
    col.close()
    size = db.stat().st_size + (
        Path(str(db) + "-wal").stat().st_size if Path(str(db) + "-wal").exists() else 0
    )
    results["sqlite_bytes"] = {
        "file": size,
        "per_doc": size / len(ids),
        "tables": sqlite_table_bytes(db),
    }
    col = Collection.open(db)
    check_latency(col, q_analyzed[:50])  # warm the kernels and the page cache
    results["sqlite_check"], sqlite_results = check_latency(col, q_analyzed)
    results["sqlite_stats"] = {
        k: v
        for k, v in col.stats().items()
        if k in ("documents", "postings", "links", "groups", "postings_per_document")
    }
    col.close()
    print(f"sqlite check: {results['sqlite_check']}", flush=True)
    return sqlite_results


def memory_phase(
    args: argparse.Namespace,
    spec: Spec,
    index_spec: IndexSpec,
    ids: list[str],
    analyzed: list[IndexableText],
    q_analyzed: list[IndexableText],
    results: dict[str, Any],
) -> None:
    gc.collect()
    rss0 = rss_bytes()
    mem = Collection.create("memory:", spec, index_spec)
    results["memory_insert"] = bulk_insert(mem, ids, analyzed, args.batch)
    gc.collect()
    results["memory_bytes"] = {
        "arrays_per_doc": mem.storage.size_bytes() / len(ids),
        "rss_growth_per_doc": (rss_bytes() - rss0) / len(ids),
    }
    results["memory_check"], _ = check_latency(mem, q_analyzed)
    del mem
    gc.collect()
    print(
        f"memory: {results['memory_insert']['docs_per_s']:.0f} docs/s, {results['memory_bytes']}, "
        f"{results['memory_check']}",
        flush=True,
    )


def postgres_phase(
    args: argparse.Namespace,
    spec: Spec,
    index_spec: IndexSpec,
    ids: list[str],
    analyzed: list[IndexableText],
    q_analyzed: list[IndexableText],
    results: dict[str, Any],
) -> None:
    url = f"{args.postgres_url}?schema=neardup_bench"
    try:
        from neardup.storage.postgres import PostgresStorage

        PostgresStorage(url, create=True).drop()
        n = min(args.postgres_docs, len(ids))
        pg = Collection.create(url, spec, index_spec)
        results["postgres_insert"] = bulk_insert(pg, ids[:n], analyzed[:n], args.batch)
        results["postgres_bytes_per_doc"] = pg.storage.size_bytes() / n
        check_latency(pg, q_analyzed[:50])
        results["postgres_check"], _ = check_latency(pg, q_analyzed)
        pg.storage.drop()  # type: ignore[attr-defined]
        pg.close()
        print(
            f"postgres ({n} docs): {results['postgres_insert']['docs_per_s']:.0f} docs/s, "
            f"{results['postgres_check']}",
            flush=True,
        )
    except Exception as exc:  # report and go on: the rest of the run stands
        results["postgres_error"] = str(exc)
        print(f"postgres skipped: {exc}", flush=True)


def quality_phase(
    args: argparse.Namespace,
    ids: list[str],
    analyzed: list[IndexableText],
    q_analyzed: list[IndexableText],
    sqlite_results: list,
    results: dict[str, Any],
) -> None:
    """Ground truth by brute force; exactness of the reported values, recall of ours and of
    datasketch's LSH, and the LSH's precision."""
    truth = exact_truth(analyzed, q_analyzed)
    qsizes = np.array([q.values.shape[0] for q in q_analyzed])
    dsizes = np.array([d.values.shape[0] for d in analyzed])
    ours = [{m.id for m in r.matches} for r in sqlite_results]
    lsh_found: list[list[str]] | None = None
    if not args.no_datasketch:
        results["datasketch"], lsh_found = datasketch_run(analyzed, ids, q_analyzed, 0.5, 128)
        print(f"datasketch: {results['datasketch']}", flush=True)
    # exactness of our reported values
    mismatches = 0
    for qi, (r, (d, c)) in enumerate(zip(sqlite_results, truth)):
        exact = {ids[di]: int(ci) for di, ci in zip(d.tolist(), c.tolist())}
        for m in r.matches:
            s = exact.get(m.id, 0)
            if m.shared != s or m.resemblance != s / (qsizes[qi] + m.shingles - s):
                mismatches += 1
    results["reported_values_not_exact"] = mismatches
    recall = recall_table(truth, qsizes, dsizes, ids, ours, lsh_found)
    results["recall"] = recall
    print(f"recall: {json.dumps(recall)}", flush=True)
    if lsh_found is not None:
        returned = sum(len(f) for f in lsh_found)
        good = 0
        for qi, (f, (d, c)) in enumerate(zip(lsh_found, truth)):
            exact = {ids[di]: int(ci) for di, ci in zip(d.tolist(), c.tolist())}
            idx = {ids[di]: di for di in d.tolist()}
            for doc_id in f:
                s = exact.get(doc_id, 0)
                if doc_id in idx and s / (qsizes[qi] + dsizes[idx[doc_id]] - s) >= 0.5:
                    good += 1
        results["datasketch"]["precision_at_0.5"] = good / returned if returned else None


def recall_table(
    truth: list[tuple[np.ndarray, np.ndarray]],
    qsizes: np.ndarray,
    dsizes: np.ndarray,
    ids: list[str],
    ours: list[set[str]],
    lsh_found: list[list[str]] | None,
) -> dict[str, Any]:
    """Recall of ours and of the LSH's answers among the true pairs above each threshold."""
    recall: dict[str, Any] = {}
    for name, thr in (
        ("resemblance>=0.3", 0.3),
        ("resemblance>=0.5", 0.5),
        ("resemblance>=0.7", 0.7),
        ("resemblance>=0.9", 0.9),
        ("containment>=0.5", -0.5),
    ):
        total = hit_ours = hit_lsh = 0
        for qi, (d, c) in enumerate(truth):
            res = c / (qsizes[qi] + dsizes[d] - c)
            cont = np.maximum(c / max(qsizes[qi], 1), c / np.maximum(dsizes[d], 1))
            sel = d[(res >= thr) if thr > 0 else (cont >= -thr)]
            for di in sel.tolist():
                total += 1
                hit_ours += ids[di] in ours[qi]
                if lsh_found is not None:
                    hit_lsh += ids[di] in set(lsh_found[qi])
        recall[name] = {
            "pairs": total,
            "ours": hit_ours / total if total else None,
            "datasketch_lsh_0.5": (hit_lsh / total if total and lsh_found is not None else None),
        }
    return recall


def plot(results: dict[str, Any], tag: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    IMG.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    ins = results["sqlite_insert"]["per_tenth"]
    axes[0].plot([p[0] for p in ins], [p[1] for p in ins], marker="o", label="SQLite")
    mem = results["memory_insert"]["per_tenth"]
    axes[0].plot([p[0] for p in mem], [p[1] for p in mem], marker="s", label="memory")
    axes[0].axhline(2000, color="grey", linestyle=":", label="target 2,000/s")
    axes[0].set_xlabel("documents in the collection")
    axes[0].set_ylabel("insert throughput (docs/s, analysis excluded)")
    axes[0].legend()
    axes[0].set_ylim(bottom=0)
    names = list(results["recall"])
    x = np.arange(len(names))
    ours = [results["recall"][n]["ours"] or 0 for n in names]
    lsh = [results["recall"][n]["datasketch_lsh_0.5"] or 0 for n in names]
    axes[1].bar(x - 0.2, ours, 0.4, label="neardup index (winnowing + exact)")
    if any(lsh):
        axes[1].bar(x + 0.2, lsh, 0.4, label="datasketch MinHashLSH(0.5)")
    axes[1].set_xticks(x, [n.replace(">=", "≥") for n in names], rotation=20)
    axes[1].set_ylabel("recall of pairs (exact brute force)")
    axes[1].set_ylim(0, 1.05)
    axes[1].legend(loc="lower left")
    fig.tight_layout()
    fig.savefig(IMG / "collection_bench.png", dpi=110)
    plt.close(fig)


def plot_history(runs: list[tuple[str, dict[str, Any]]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    IMG.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(7.5, 4))
    for label, r in runs:
        ins = r["sqlite_insert"]
        ax.plot(
            [p[0] for p in ins["per_tenth"]],
            [p[1] for p in ins["per_tenth"]],
            marker="o",
            label=f"{label}: {ins['docs_per_s']:,.0f} docs/s overall",
        )
    ax.axhline(2000, color="grey", linestyle=":", label="target 2,000/s")
    ax.set_xlabel("documents in the collection")
    ax.set_ylabel("SQLite insert, docs/s per tenth of the run")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(IMG / "collection_history.png", dpi=110)
    plt.close(fig)
    print(f"wrote {IMG / 'collection_history.png'}", flush=True)


def write_docs(
    results: dict[str, Any], tag: str, others: list[dict[str, Any]] | None = None
) -> None:
    r = results
    ds = r.get("datasketch")
    c = r["corpus"]
    load = r["sqlite_insert"].get("load_average_1min", [float("nan"), float("nan")])
    shape = (
        f"mean {c['mean_chars']:.0f} characters, {r['analysis']['mean_shingles']:.0f} shingles and "
        f"{r['analysis']['mean_samples']:.1f} postings (winnowing w = {r['args']['window']}) per "
        f"document; preset `{r['args']['preset']}`, k = 5, rabin 64. {c['queries']:,} queries "
        "(variants of stored documents and new texts), never stored."
    )
    if c.get("name") == "web":
        corpus_text = (
            f"Collection: **{c['docs']:,} documents** (`--corpus web`, benchmarks/web_corpus.py): "
            f"{c['real']:,} real texts from ../shared/data (ru_news, reuters21578, 20newsgroups, "
            f"ruslit in ~800-word pieces), then {c['new']:,} new texts from a first-order word "
            "chain over the real texts of their language (benchmarks/markov_text.py) and "
            f"{c['variants']:,} variants of earlier documents (30 % of the generated ones; word "
            "edits at 0.02/0.1/0.3/0.5, morphology changes at 0.3, a pasted 300-word run), so the "
            f"share of near-copies is the same at any size, as on the web; {shape}"
        )
    else:
        corpus_text = (
            f"Collection: **{c['docs']:,} documents** (`--corpus sources`): {c['real']:,} real "
            f"texts from ../shared/data, then {c['generated']:,} generated variants of them (a "
            f"larger run holds more variants of each source); {shape}"
        )
    lines = [
        "<!-- section: collection -->",
        "## The collection (issue 4)",
        "",
        f"Command: `.venv/bin/python benchmarks/collection_bench.py --docs {r['args']['docs']} "
        f"--queries {r['args']['queries']}"
        + (f" --corpus {c.get('name', 'sources')}" if c.get("name", "sources") != "web" else "")
        + (f" --postgres-docs {r['args']['postgres_docs']}" if r["args"]["postgres_docs"] else "")
        + " --write-docs` (results in `build/collection_bench/results_*.json`). "
        f"Machine: {r['machine']}; 1-minute load average {load[0]:.2f} when the insert started and "
        f"{load[1]:.2f} when it ended (2 cores; the insert itself uses one).",
        "",
        corpus_text,
        "",
        "| measure | value |",
        "|---|---|",
        f"| analysis (text → fingerprints, {r['analysis']['workers']} processes; not part of the "
        f"index) | {r['analysis']['docs_per_s']:,.0f} docs/s |",
        f"| bulk insert, SQLite (`add_many`, batches of {r['args']['batch']}, analysis excluded) | "
        f"**{r['sqlite_insert']['docs_per_s']:,.0f} docs/s** |",
        "| … SQLite throughput in the first / last tenth of the run | "
        f"{r['sqlite_insert']['per_tenth'][0][1]:,.0f} / "
        f"{r['sqlite_insert']['per_tenth'][-1][1]:,.0f} docs/s |",
        f"| bulk insert, memory | {r['memory_insert']['docs_per_s']:,.0f} docs/s |",
        f"| `check` latency, SQLite, analysis excluded: p50 / p90 / p99 / max | "
        f"{r['sqlite_check']['p50_ms']:.2f} / {r['sqlite_check']['p90_ms']:.2f} / "
        f"**{r['sqlite_check']['p99_ms']:.2f}** / {r['sqlite_check']['max_ms']:.1f} ms "
        f"({r['sqlite_check']['mean_candidates']:.1f} candidates verified on average) |",
        f"| `check` latency, memory: p50 / p99 | {r['memory_check']['p50_ms']:.2f} / "
        f"{r['memory_check']['p99_ms']:.2f} ms |",
        "| bytes per document on disk (SQLite file, texts not stored) | "
        f"{r['sqlite_bytes']['per_doc']:,.0f} (fingerprints "
        f"{r['sqlite_bytes']['tables'].get('docs', 0) / r['corpus']['docs']:,.0f}, postings "
        f"{r['sqlite_bytes']['tables'].get('postings', 0) / r['corpus']['docs']:,.0f}, links "
        f"{r['sqlite_bytes']['tables'].get('links', 0) / r['corpus']['docs']:,.0f}, Bloom filters "
        f"{r['sqlite_bytes']['tables'].get('bloom', 0) / r['corpus']['docs']:,.0f}) |",
        "| bytes per document in RAM, memory backend (numpy arrays held: fingerprints + postings; "
        "plus process RSS growth for the Python objects around them) | "
        f"{r['memory_bytes']['arrays_per_doc']:,.0f} + "
        f"{r['memory_bytes']['rss_growth_per_doc']:,.0f} |",
        "| reported similarities that differ from the exact value | "
        f"{r['reported_values_not_exact']} |",
    ]
    if "postgres_insert" in r:
        lines += [
            f"| PostgreSQL ({r['postgres_insert']['docs']:,} documents): insert / check p50 / p99 "
            f"| {r['postgres_insert']['docs_per_s']:,.0f} docs/s / "
            f"{r['postgres_check']['p50_ms']:.2f} / {r['postgres_check']['p99_ms']:.2f} ms; "
            f"{r['postgres_bytes_per_doc']:,.0f} bytes/doc |",
        ]
    lines += [
        "",
        "Recall of (query, document) pairs found by exact brute force (every shingle of every "
        "document looked up among the queries' shingles):",
        "",
        "| pairs | count | neardup index | datasketch MinHashLSH(threshold 0.5, 128 perm) |",
        "|---|---|---|---|",
    ]
    for name, v in r["recall"].items():
        lsh = "—" if v["datasketch_lsh_0.5"] is None else f"{v['datasketch_lsh_0.5']:.4f}"
        ours = "—" if v["ours"] is None else f"{v['ours']:.4f}"
        lines.append(f"| {name.replace('>=', ' ≥ ')} | {v['pairs']:,} | {ours} | {lsh} |")
    if ds:
        lines += [
            "",
            "datasketch on the same fingerprints (`MinHash(num_perm=128, scheme='affine64')`, "
            "identity hash, `MinHashLSH(threshold=0.5)` in memory): signing "
            f"{ds['sign_docs_per_s']:,.0f} docs/s, insert {ds['insert_docs_per_s']:,.0f} docs/s, "
            f"query p50 / p99 {ds['query_p50_ms']:.2f} / {ds['query_p99_ms']:.2f} ms "
            f"({ds['mean_candidates']:.1f} candidates per query, "
            f"{(ds.get('precision_at_0.5') or 0):.3f} of them truly ≥ 0.5 — LSH reports unverified "
            f"candidates), {ds['signature_bytes_per_doc']:,.0f} bytes of signature and "
            f"{ds['lsh_rss_bytes_per_doc']:,.0f} bytes of LSH tables (RSS growth) per document. "
            "neardup's `check` returns exact resemblance and containment for every match; LSH "
            "answers one threshold of estimated Jaccard and finds no partial copies.",
        ]
    if others:
        lines += [
            "",
            "Other sizes (same generator and kinds of queries, same machine; "
            "each run with `--docs N --queries 1000`, then this section rebuilt with "
            "`--docs-from` the results files, the main run first):",
            "",
            "| documents | real / generated | SQLite insert (all / last tenth) | memory insert | "
            "check p50 / p99 (SQLite) | candidates | recall res ≥ 0.5 / cont ≥ 0.5 (ours; LSH) | "
            "bytes/doc on disk |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for o in others:
            rec = o["recall"]
            lsh = (
                f"; {rec['resemblance>=0.5']['datasketch_lsh_0.5']:.4f} / "
                f"{rec['containment>=0.5']['datasketch_lsh_0.5']:.4f}"
                if rec["resemblance>=0.5"]["datasketch_lsh_0.5"] is not None
                else ""
            )
            lines.append(
                f"| {o['corpus']['docs']:,} | {o['corpus']['real']:,} / "
                f"{o['corpus']['generated']:,} | {o['sqlite_insert']['docs_per_s']:,.0f} / "
                f"{o['sqlite_insert']['per_tenth'][-1][1]:,.0f} docs/s | "
                f"{o['memory_insert']['docs_per_s']:,.0f} docs/s | "
                f"{o['sqlite_check']['p50_ms']:.2f} / {o['sqlite_check']['p99_ms']:.2f} ms | "
                f"{o['sqlite_check']['mean_candidates']:.1f} | "
                f"{rec['resemblance>=0.5']['ours']:.4f} / "
                f"{rec['containment>=0.5']['ours']:.4f}{lsh} | "
                f"{o['sqlite_bytes']['per_doc']:,.0f} |"
            )
        if c.get("name") != "web":
            lines += [
                "",
                "The generated variants come from the same real texts, so a larger run holds more "
                "variants of each source: more candidates and links per new document, which is "
                "most of why insert slows with size.",
            ]
    lines += [
        "",
        "![insert throughput and recall](img/collection_bench.png)",
        "",
        "<!-- end: collection -->",
    ]
    text = DOC.read_text(encoding="utf-8")
    start = text.index("<!-- section: collection -->")
    end = text.index("<!-- end: collection -->") + len("<!-- end: collection -->")
    DOC.write_text(text[:start] + "\n".join(lines) + text[end:], encoding="utf-8")
    print(f"updated {DOC}", flush=True)


if __name__ == "__main__":
    main()

"""Seed 001's experiments redone on our data (docs/bloom.md), in one run.

Texts are Russian news of ``../shared/data/ru_news.jsonl.gz`` (read at run time, never copied).
A passage of a share (5–50 %) of a *source* text's characters is pasted at a sentence boundary
of a *host* text (``neardup.eval.generate.take_fragment`` / ``paste``: the same construction as
``benchmarks/quality_partial.py``, whose 5 % figure is the collection's 0.77). Every text is
analysed once under the ``ru`` spec (5-word shingles, 64-bit Rabin) by the collection's own
``analyze``; the filters take those fingerprints.

1. Table 1 on our corpus: rows and bytes of the pseudo-matrix filter (rows of ``n`` = the 95th
   percentile of document sizes, the paper's rule) beside the matrix filter.
2. Fig. 2: each source text as a query against a matrix filter of hosts (one per row), some of
   which hold a passage of it; the similarity of every row against the background, per source.
3. Table 2: false positives / false negatives of one-row (``whole``) and multi-row (``split``)
   placement, queries = hosts with a pasted passage, stored = the corpus.
4. Candidate recall for 5 % and 10 % pastes, candidates per query and index bytes per document:
   the collection's winnowing (memory storage), the pseudo-matrix filter, both.

Row scan speed is ``benchmarks/bloom_scan.py``.

    .venv/bin/python benchmarks/bloom_experiments.py                  # the figures in docs/bloom.md
    .venv/bin/python benchmarks/bloom_experiments.py --docs 500 --queries 20 --no-plots
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from neardup.bloom import MatrixBloomFilter, PseudoMatrixBloomFilter, corpus_size
from neardup.bloom.sizing import PAPER_M, PAPER_N, PAPER_ROWS
from neardup.eval.generate import paste, take_fragment
from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection
from neardup.spec import IndexSpec

ROOT = Path(__file__).resolve().parent.parent
#: ``../shared/data`` beside the project (a worktree under ``wt/`` looks one level further up)
DATA = next(
    (
        d
        for d in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data")
        if d.exists()
    ),
    ROOT.parent / "shared" / "data",
)
OUT = ROOT / "build" / "bloom"
IMG = ROOT / "docs" / "img"
SHARES = (0.05, 0.1, 0.2, 0.3, 0.5)
#: seed 001, Table 2 (PAN-PC-09): false positives of all pairwise comparisons, false negatives
#: of the documents with plagiarism
PAPER_TABLE_2 = {
    "whole": {"fp": "301,977 (~0.31 %)", "fn": "51 (~1.5 %)"},
    "split": {"fp": "9,322 (~0.01 %)", "fn": "117 (~3 %)"},
}


def iter_texts(path: Path, min_chars: int = 1000, max_chars: int = 20000) -> Any:
    """``(id, text)`` of a corpus, skipping texts out of range and exact repeats."""
    seen: set[str] = set()
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            text = row.get("text") or ""
            if min_chars <= len(text) <= max_chars and text not in seen:
                seen.add(text)
                yield str(row["id"]), text


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def make_queries(
    pool: list[tuple[str, str]],
    sources: list[tuple[str, str]],
    per_share: int,
    rng: np.random.Generator,
) -> list[dict[str, Any]]:
    """Hosts of ``pool`` with a passage of a random source pasted in, ``per_share`` a share."""
    out = []
    i = 0
    for share in SHARES:
        for _ in range(per_share):
            host_id, host = pool[i % len(pool)]
            i += 1
            s = int(rng.integers(len(sources)))
            src_id, src = sources[s]
            start, length = take_fragment(src, share, rng)
            text, _ = paste(host, src[start : start + length], rng)
            out.append(
                {"host": host_id, "source": s, "source_id": src_id, "share": share, "text": text}
            )
    return out


def table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def exp_table1(sizes: np.ndarray, p: float) -> tuple[int, str]:
    n = int(np.percentile(sizes, 95))
    corpus = corpus_size(n, p, documents=int(sizes.size), total_shingles=int(sizes.sum()))
    paper = corpus_size(PAPER_N, 0.05, documents=14_428, total_shingles=PAPER_ROWS * PAPER_N)
    rows = [
        ["documents", f"{paper.documents:,}", f"{corpus.documents:,}"],
        ["mean shingles (≈ words) a document", "≈ 38,000", f"{corpus.mean_shingles:,.0f}"],
        ["n (95 % of documents fit a row)", f"{PAPER_N:,}", f"{n:,}"],
        ["p", "0.05", f"{p:g}"],
        ["m (bits a row)", f"{PAPER_M:,} (≈ 94 KB)", f"{corpus.row.m:,} ({corpus.row.bytes:,} B)"],
        ["k", "—", str(corpus.row.k)],
        ["d (rows, packed)", f"{PAPER_ROWS:,}", f"{corpus.rows:,}"],
        ["M (bytes)", "≈ 411 MB", f"{corpus.bytes / 2**20:,.2f} MiB"],
        ["matrix filter rows (one a document)", "14,428", f"{corpus.matrix_rows:,}"],
        ["compression", "1 : 3.2", f"1 : {corpus.compression:.1f}"],
    ]
    return n, table(["", "paper (PAN-PC-09)", "ours (ru_news)"], rows)


def exp_fig2(
    hosts: list[np.ndarray],
    host_src: list[int],
    host_share: list[float],
    src_fps: list[np.ndarray],
    n: int,
    p: float,
    plots: bool,
) -> str:
    out_rows = []
    series: dict[str, list[np.ndarray]] = {"bits": [], "members": []}
    mbf = MatrixBloomFilter(n=n, p=p)
    for key, values in enumerate(hosts):
        mbf.add(key, values)
    src_arr = np.asarray(host_src)
    share_arr = np.asarray(host_share)
    for s, query in enumerate(src_fps):
        cells: list[Any] = [s]
        for measure in ("bits", "members"):
            sc = mbf.scores(query, measure=measure)  # type: ignore[arg-type]
            rows_of = np.array(
                [
                    mbf.placement_of(k)[0].row if mbf.placement_of(k) else -1
                    for k in range(len(hosts))
                ]
            )
            z = np.full(len(hosts), np.nan)
            ok = rows_of >= 0
            z[ok] = sc.z[rows_of[ok]]
            series[measure].append(z)
            bg = z[(src_arr != s) & ok]
            cells += [f"{np.nanmean(bg):.2f} ± {np.nanstd(bg):.2f}", f"{np.nanmax(bg):.1f}"]
            for share in (0.05, 0.1, 0.5):
                mine = z[(src_arr == s) & (share_arr == share) & ok]
                cells.append(f"{mine.min():.1f}" if mine.size else "—")
        out_rows.append(cells)
    if plots:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(2, 1, figsize=(10, 6.5), sharex=True)
        for ax, measure in zip(axes, ("bits", "members"), strict=True):
            for s in range(min(3, len(src_fps))):
                z = series[measure][s]
                ax.plot(np.arange(len(hosts)), z, lw=0.7, label=f"source {s}")
                mine = np.flatnonzero(src_arr == s)
                ax.scatter(mine, z[mine], s=14, zorder=3)
            ax.set_ylabel(f"z ({measure})")
            ax.axhline(0, color="grey", lw=0.5)
        axes[0].set_title(
            "Sources against a matrix filter of hosts: peaks are hosts holding a passage"
        )
        axes[0].legend(fontsize=8)
        axes[1].set_xlabel("host (row); hosts sorted by share pasted, 5 % … 50 %")
        fig.tight_layout()
        IMG.mkdir(parents=True, exist_ok=True)
        fig.savefig(IMG / "bloom_fig2.png", dpi=110)
        plt.close(fig)
    header = ["source", "bits: background z", "max", "5 %", "10 %", "50 %"]
    header += ["members: background z", "max", "5 %", "10 %", "50 %"]
    return table(header, out_rows)


def load(args: argparse.Namespace, rng: np.random.Generator) -> dict[str, list[tuple[str, str]]]:
    need = args.docs + args.queries * len(SHARES) + args.fig2_hosts + args.fig2_sources
    texts = []
    for item in iter_texts(DATA / "ru_news.jsonl.gz"):
        texts.append(item)
        if len(texts) >= need:
            break
    texts = [texts[i] for i in rng.permutation(len(texts))]
    cut = np.cumsum([0, args.docs, args.queries * len(SHARES), args.fig2_hosts, args.fig2_sources])
    names = ("stored", "pool", "fig_hosts", "fig_sources")
    return {name: texts[cut[i] : cut[i + 1]] for i, name in enumerate(names)}


def run_fig2(
    col: Collection, parts: dict[str, list[tuple[str, str]]], p: float, plots: bool, rng: Any
) -> str:
    sources = parts["fig_sources"]
    hosts = parts["fig_hosts"]
    hs_src, hs_share, hs_fps = [], [], []
    src_fps = [col.analyze(t).values for _, t in sources]
    for i, (_, host) in enumerate(hosts):
        share = SHARES[i * len(SHARES) // len(hosts)]
        s = int(rng.integers(len(sources)))
        src = sources[s][1]
        start, length = take_fragment(src, share, rng)
        text, _ = paste(host, src[start : start + length], rng)
        hs_src.append(s)
        hs_share.append(share)
        hs_fps.append(col.analyze(text).values)
    n = int(np.percentile([h.shape[0] for h in hs_fps], 95))
    body = exp_fig2(hs_fps, hs_src, hs_share, src_fps, n, p, plots)
    return f"## Fig. 2 (matrix filter of {len(hosts)} hosts, n = {n}, p = {p})\n\n{body}\n"


def run_winnowing(
    col: Collection, queries: list[dict[str, Any]], q_an: list[Any], id_of: list[str]
) -> tuple[list[dict[str, Any]], float]:
    out = []
    t0 = time.perf_counter()
    for q, a in zip(queries, q_an, strict=True):
        res = col.check(a)
        ids = {m.id for m in res.matches}
        out.append({"found": id_of[q["source"]] in ids, "candidates": res.candidates, "ids": ids})
    return out, time.perf_counter() - t0


def run_filter(
    f: PseudoMatrixBloomFilter,
    measure: str,
    queries: list[dict[str, Any]],
    q_an: list[Any],
    stored_sets: list[np.ndarray],
    threshold: float,
    max_rows: int | None = None,
) -> tuple[list[dict[str, Any]], float]:
    """Stage 1 for every query (timed alone); a candidate other than the source that shares
    no shingle with the query (exact) is a false positive of the filter."""
    out = []
    spent = 0.0
    for q, a in zip(queries, q_an, strict=True):
        t0 = time.perf_counter()
        c = f.candidates(a.values, threshold=threshold, measure=measure, max_rows=max_rows)  # type: ignore[arg-type]
        spent += time.perf_counter() - t0
        keys = c.keys.tolist()
        false = sum(
            1
            for k in keys
            if k != q["source"] and np.intersect1d(stored_sets[k], a.values).size == 0
        )
        out.append(
            {
                "found": q["source"] in set(keys),
                "candidates": len(keys),
                "false": false,
                "keys": keys,
            }
        )
    return out, spent


def table2(
    runs: dict[tuple[str, str, int | None], list[dict[str, Any]]],
    filters: dict[str, PseudoMatrixBloomFilter],
    n_queries: int,
    n_stored: int,
) -> list[list[Any]]:
    pairs = n_queries * n_stored
    rows = []
    for (name, measure, cap), r in runs.items():
        if cap is not None:
            measure = f"{measure}, best {cap} rows"
        fp = sum(x["false"] for x in r)
        fn = sum(not x["found"] for x in r)
        f = filters[name]
        paper = PAPER_TABLE_2.get(name, {}) if measure == "bits" and cap is None else {}
        rows.append(
            [
                f"{name} ({f.n_rows} rows, {n_stored / max(f.n_rows, 1):.1f} docs/row)",
                measure,
                f"{fp:,} ({100 * fp / pairs:.3f} %)",
                f"{fn} ({100 * fn / n_queries:.1f} %)",
                paper.get("fp", "—"),
                paper.get("fn", "—"),
            ]
        )
    return rows


def recall_row(
    label: str, shares: np.ndarray, found: list[bool], cands: list[int], nbytes: float, ms: str
) -> list[Any]:
    f_arr = np.array(found)
    c_arr = np.array(cands)
    cells: list[Any] = [label]
    cells += [f"{f_arr[shares == share].mean():.3f}" for share in (0.05, 0.1)]
    cells += [f"{f_arr.mean():.3f}", f"{c_arr.mean():.1f}", f"{np.percentile(c_arr, 95):.0f}"]
    cells += [f"{nbytes:,.0f}", ms]
    return cells


def plot_recall(shares: np.ndarray, series: dict[str, list[bool]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for label, found in series.items():
        f_arr = np.array(found)
        ax.plot(
            [100 * s for s in SHARES],
            [f_arr[shares == s].mean() for s in SHARES],
            marker="o",
            label=label,
        )
    ax.set_xlabel("share of the source pasted, %")
    ax.set_ylabel("candidate recall")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    IMG.mkdir(parents=True, exist_ok=True)
    fig.savefig(IMG / "bloom_recall.png", dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--docs", type=int, default=3000, help="stored documents")
    ap.add_argument("--queries", type=int, default=100, help="queries per share")
    ap.add_argument("--p", type=float, default=0.05, help="row risk (the paper: 0.05)")
    ap.add_argument("--tuned-p", type=float, default=0.001, help="a second, smaller risk")
    ap.add_argument("--threshold", type=float, default=5.0, help="row z threshold")
    ap.add_argument("--max-rows", type=int, default=50, help="a run with at most this many rows")
    ap.add_argument("--fig2-hosts", type=int, default=300)
    ap.add_argument("--fig2-sources", type=int, default=10)
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if not (DATA / "ru_news.jsonl.gz").exists():
        print(f"needs {DATA / 'ru_news.jsonl.gz'}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    parts = load(args, rng)
    stored = parts["stored"]
    col = Collection.create("memory:", make_spec("ru"), IndexSpec(policy="allow"))
    t0 = time.perf_counter()
    analyzed = [col.analyze(t) for _, t in stored]
    log(f"analysed {len(stored)} stored texts in {time.perf_counter() - t0:.0f} s")
    n, t1 = exp_table1(np.array([a.values.shape[0] for a in analyzed]), args.p)
    print("## Table 1\n\n" + t1 + "\n")
    fig2 = run_fig2(col, parts, args.p, not args.no_plots, rng)
    print(fig2)

    t0 = time.perf_counter()
    col.add_many(list(zip([i for i, _ in stored], analyzed, strict=True)), batch_size=500)
    log(f"collection: {len(stored)} added in {time.perf_counter() - t0:.0f} s")
    postings = col.stats()["postings"]
    filters: dict[str, PseudoMatrixBloomFilter] = {}
    for name, placement, p in [
        ("whole", "whole", args.p),
        ("split", "split", args.p),
        (f"split p={args.tuned_p:g}", "split", args.tuned_p),
    ]:
        f = PseudoMatrixBloomFilter(n=n, p=p, placement=placement)  # type: ignore[arg-type]
        for key, a in enumerate(analyzed):
            f.add(key, a.values)
        filters[name] = f
    id_of = [i for i, _ in stored]
    queries = make_queries(parts["pool"], stored, args.queries, rng)
    q_an = [col.analyze(q["text"]) for q in queries]
    stored_sets = [a.values for a in analyzed]
    win, win_s = run_winnowing(col, queries, q_an, id_of)
    runs: dict[tuple[str, str, int | None], list[dict[str, Any]]] = {}
    timing: dict[tuple[str, str, int | None], float] = {}
    plan: list[tuple[str, str, int | None]] = [
        (name, measure, None) for name in filters for measure in ("bits", "members")
    ]
    plan.append((list(filters)[-1], "members", args.max_rows))
    for name, measure, cap in plan:
        run_key = (name, measure, cap)
        runs[run_key], timing[run_key] = run_filter(
            filters[name], measure, queries, q_an, stored_sets, args.threshold, cap
        )
        log(f"{name} / {measure} / {cap}: {timing[run_key]:.1f} s")

    t2 = table2(runs, filters, len(queries), len(stored))
    header2 = ["placement", "measure", "false positives (of pairs)"]
    header2 += ["false negatives (of queries)", "paper FP", "paper FN"]
    print(
        f"## Table 2 ({len(queries)} queries × {len(stored)} stored = "
        f"{len(queries) * len(stored):,} pairs; z ≥ {args.threshold}; n = {n})\n\n"
        + table(header2, t2)
        + "\n"
    )

    shares = np.array([q["share"] for q in queries])
    win_bytes = postings * 16 / len(stored)
    ms = f"{1000 * win_s / len(queries):.2f}"
    rec = [
        recall_row(
            "winnowing (w = 24)",
            shares,
            [w["found"] for w in win],
            [w["candidates"] for w in win],
            win_bytes,
            ms,
        )
    ]
    for (name, measure, cap), r in runs.items():
        bpd = filters[name].nbytes / len(stored)
        ms = f"{1000 * timing[(name, measure, cap)] / len(queries):.2f}"
        if cap is not None:
            measure = f"{measure}, best {cap} rows"
        found = [x["found"] for x in r]
        rec.append(
            recall_row(
                f"pmbf {name}, {measure}", shares, found, [x["candidates"] for x in r], bpd, ms
            )
        )
        both_found = [x["found"] or w["found"] for x, w in zip(r, win, strict=True)]
        both_c = [
            x["candidates"] + w["candidates"] - len({id_of[k] for k in x["keys"]} & w["ids"])
            for x, w in zip(r, win, strict=True)
        ]
        rec.append(
            recall_row(
                f"both: winnowing + {name}, {measure}",
                shares,
                both_found,
                both_c,
                bpd + win_bytes,
                "—",
            )
        )
    header = ["method", "recall 5 %", "recall 10 %", "recall 5–50 %", "candidates/query"]
    header += ["p95", "index bytes/doc", "ms/query (stage 1)"]
    print(
        f"## Candidate recall ({args.queries} queries a share, {len(stored)} stored; "
        f"winnowing postings: {postings:,})\n\n" + table(header, rec) + "\n"
    )
    if not args.no_plots:
        series = {"winnowing (w = 24)": [w["found"] for w in win]}
        for (name, measure, cap), r in runs.items():
            if cap is None and name != "whole":
                series[f"pmbf {name}, {measure}"] = [x["found"] for x in r]
        plot_recall(shares, series)
    OUT.mkdir(parents=True, exist_ok=True)
    results = {"args": vars(args), "n": n, "table1": t1, "fig2": fig2, "table2": t2, "recall": rec}
    (OUT / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

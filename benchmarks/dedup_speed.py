"""Speed of ``neardup dedup``: the local engine per stage, Spark local[2] on the same input, and
a worked estimate for a billion documents from the measured per-core rates.

Corpus: the ``web`` corpus of collection_bench.py (web_corpus.py: real news, Reuters, 20
Newsgroups and RusLit pieces, then generated documents of which 30 % are variants of earlier
ones), written once to ``build/dedup_speed/web_N.jsonl`` (made in ``--workers`` processes).

Run::

    .venv/bin/python benchmarks/dedup_speed.py --docs 100000 --jobs 2 [--spark] [--preset plain]

Prints one JSON object (also in ``build/dedup_speed/results_N.json``); docs/benchmarks.md has
the figures.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import collection_data as cd  # noqa: E402

for _data in (ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data"):
    if _data.is_dir():  # ../shared/data, or two levels up from a worktree under /work/wt/
        cd.DATA = _data
        break

from neardup.dedup import dedup  # noqa: E402
from neardup.pipeline import make_spec  # noqa: E402

WORK = ROOT / "build" / "dedup_speed"
_CORPUS: Any = None


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _make(span: tuple[int, int]) -> list[str]:
    return [
        json.dumps({"id": d[0], "text": d[1]}, ensure_ascii=False)
        for d in (_CORPUS.doc(i) for i in range(*span))
    ]


def build(n: int, seed: int, workers: int, cache: Path) -> Path:
    global _CORPUS
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"web_{n}_seed{seed}.jsonl"
    if path.exists():
        return path
    from collection_bench import real_texts
    from web_corpus import WebCorpus

    _CORPUS = WebCorpus(real_texts(n), seed)
    tmp = path.with_suffix(".partial")
    t0 = time.perf_counter()
    with mp.get_context("fork").Pool(workers) as pool, tmp.open("w", encoding="utf-8") as fh:
        spans = [(lo, min(lo + 1000, n)) for lo in range(0, n, 1000)]
        for k, lines in enumerate(pool.imap(_make, spans)):
            fh.write("\n".join(lines) + "\n")
            if k % 50 == 0:
                log(f"corpus: {spans[k][1]:,} of {n:,} ({time.perf_counter() - t0:.0f} s)")
    os.replace(tmp, path)
    return path


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--preset", default="plain")
    ap.add_argument("--threshold", type=float, default=0.7)
    ap.add_argument("--verify", default="exact", choices=["exact", "estimate"])
    ap.add_argument("--spark", action="store_true", help="also run Spark local[JOBS]")
    ap.add_argument(
        "--cache",
        type=Path,
        default=WORK,
        help="where the corpus is made once and kept (e.g. /work/bench_cache, outside the repo)",
    )
    ap.add_argument("--corpus-only", action="store_true", help="make the corpus and stop")
    args = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    corpus = build(args.docs, args.seed, args.workers, args.cache)
    if args.corpus_only:
        print(corpus)
        return
    size = corpus.stat().st_size
    spec = make_spec(args.preset)
    results: dict[str, Any] = {
        "docs": args.docs,
        "bytes": size,
        "preset": args.preset,
        "threshold": args.threshold,
        "verify": args.verify,
        "jobs": args.jobs,
        "load_before": load_average(),
    }
    shutil.rmtree(WORK / f"out_{args.docs}", ignore_errors=True)  # an earlier spec may differ
    t0 = time.perf_counter()
    local = dedup(
        [corpus],
        WORK / f"out_{args.docs}",
        spec=spec,
        threshold=args.threshold,
        verify=args.verify,  # type: ignore[arg-type]
        jobs=args.jobs,
        overwrite=True,
        progress=False,
    )
    wall = time.perf_counter() - t0
    results["local"] = local.to_dict() | {"wall_s": round(wall, 1)}
    results["load_after_local"] = load_average()
    sign_s = local.seconds["sign"]
    rest_s = local.seconds["total"] - sign_s
    per_core_sign = size / sign_s / args.jobs  # bytes per second per core (read + sign)
    results["rates"] = {
        "docs_per_s": round(args.docs / wall, 1),
        "MB_per_s": round(size / wall / 1e6, 2),
        "sign_MB_per_s_per_core": round(per_core_sign / 1e6, 2),
        "after_sign_docs_per_s": round(args.docs / rest_s, 1) if rest_s else None,
    }
    log(json.dumps(results["rates"]))
    if args.spark:
        from neardup.spark import dedup_files

        t0 = time.perf_counter()
        shutil.rmtree(WORK / f"spark_{args.docs}", ignore_errors=True)
        summary = dedup_files(
            [str(corpus)],
            WORK / f"spark_{args.docs}",
            spec=spec,
            master=f"local[{args.jobs}]",
            threshold=args.threshold,
            verify=args.verify,
            overwrite=True,
        )
        results["spark"] = summary | {"wall_s": round(time.perf_counter() - t0, 1)}
        results["spark"]["same_group_count"] = summary["groups"] == local.groups
    # a billion documents, at this corpus's mean size and the measured per-core rates
    billion = 1_000_000_000
    mean_bytes = size / args.docs
    sign_core_h = billion * mean_bytes / per_core_sign / 3600
    n_perm = 128
    bands = local.bands
    shuffle = {
        "band_rows_GB": billion * bands * 24 / 1e9,  # (band, key, order) longs
        "fingerprints_GB": None,
        "signatures_GB": billion * n_perm * 8 / 1e9,
    }
    results["billion"] = {
        "mean_bytes": round(mean_bytes),
        "sign_core_hours": round(sign_core_h),
        "shuffle": shuffle,
        "candidate_pairs_per_doc": round(local.candidate_pairs / args.docs, 3),
    }
    (WORK / f"results_{args.docs}.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

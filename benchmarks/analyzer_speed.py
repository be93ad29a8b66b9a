"""Analyzer throughput: MB/s of UTF-8 input per core, text → canonical tokens → fingerprints.

For each preset (plain, ru, en, auto) on ../shared/data/ru_news.jsonl.gz, in one process and
one thread:

* ``canonical``: ``Pipeline.canonical(text)`` for every document (the whole analysis chain:
  HTML check, NFKC, lowercase, ё→е and stress marks, tokenizer, stop words, parts of speech,
  lemmas or stems);
* ``fingerprints``: ``Pipeline.fingerprints(text)`` with the default shingles and family
  (word 5-grams, Rabin–Karp 64 bit): the above plus shingling, hashing and sorting.

Throughput is UTF-8 bytes of input text per second. Both the wall-clock figure and the
figure per CPU second of this process are printed: the machine may be shared, and the CPU
figure is the one that says what one core does. Before timing, each preset is warmed up on a
few documents (numba loads or compiles its kernels, pymorphy3 loads its dictionaries, the
character tables are built; the ``ru`` dictionary's word-form table is built or loaded, see
``benchmarks/ru_sign_speed.py``); then the lemma cache (pymorphy3's parses, now asked only for
forms the dictionary's table does not hold) and the tables of forms learned by the compiled
token filters are emptied, so every timed pass starts with a cold cache and the hit rate
printed is that of one pass over the corpus. ``--warm`` adds a
second ``canonical`` pass with the cache kept (the steady state of a long-running process).

    .venv/bin/python benchmarks/analyzer_speed.py                    # all 9,277 documents
    .venv/bin/python benchmarks/analyzer_speed.py --limit 300        # a quick check
    .venv/bin/python benchmarks/analyzer_speed.py --profile ru       # where the time goes

Targets (issue 2): plain ≥ 30 MB/s, ru ≥ 5 MB/s on one core.
"""

from __future__ import annotations

import os

# one thread, whatever the libraries would choose (set before numpy and numba load)
for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import cProfile
import gzip
import io
import itertools
import json
import platform
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ru_news.jsonl.gz"
PRESETS = ("plain", "ru", "en", "auto")
TARGETS = {"plain": 30.0, "ru": 5.0}
WARMUP_DOCS = 20


def load(path: Path, limit: int | None) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        lines = itertools.islice(fh, limit) if limit else fh
        return [json.loads(line).get("text") or "" for line in lines]


def reset_morph_cache(pipeline: Any = None) -> Any:
    """Empty the lemma cache and its counters (``None`` when pymorphy3 is not installed), and
    the pipeline's tables of forms learned (the dictionary's word-form table stays loaded)."""
    from neardup.analysis import resources

    if pipeline is not None:
        pipeline.analyzer.forget_learned()
    try:
        morph = resources.morph()
    except ImportError:
        return None
    morph.entries.clear()
    morph.hits = 0
    morph.misses = 0
    return morph


def timed(func: Callable[[str], Any], texts: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds of this process and tokens or shingles made."""
    count = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for text in texts:
        count += len(func(text))
    return time.perf_counter() - wall0, time.process_time() - cpu0, count


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "load_average": os.getloadavg(),
    }


def run(texts: list[str], presets: list[str], warm: bool) -> list[dict[str, Any]]:
    from neardup.fingerprints.pipeline import Pipeline, make_spec

    megabytes = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    rows = []
    for name in presets:
        pipeline = Pipeline(make_spec(name))
        for text in texts[:WARMUP_DOCS]:
            pipeline.fingerprints(text)
        passes: list[tuple[str, Callable[[str], Any], bool]] = [
            ("canonical", pipeline.canonical, True),
            ("fingerprints", pipeline.fingerprints, True),
        ]
        if warm:
            passes.insert(1, ("canonical, warm cache", pipeline.canonical, False))
        for stage, func, cold in passes:
            morph = reset_morph_cache(pipeline) if cold else None
            if not cold:
                from neardup.analysis import resources

                morph = resources.morph()
                morph.hits = morph.misses = 0
            wall, cpu, count = timed(func, texts)
            uses_lemmas = name in ("ru", "auto")
            row = {
                "preset": name,
                "stage": stage,
                "docs": len(texts),
                "megabytes": round(megabytes, 3),
                "wall_s": round(wall, 3),
                "cpu_s": round(cpu, 3),
                "mb_per_s_wall": round(megabytes / wall, 2),
                "mb_per_s_cpu": round(megabytes / cpu, 2),
                "items": count,
                "items_per_s_cpu": round(count / cpu),
                "lemma_hit_rate": round(morph.hit_rate, 4)
                if (morph is not None and uses_lemmas)
                else None,
                "lemma_misses": morph.misses if (morph is not None and uses_lemmas) else None,
            }
            rows.append(row)
            print(json.dumps(row, ensure_ascii=False), file=sys.stderr)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    head = (
        "| preset | stage | MB/s per CPU s | MB/s wall | CPU s | wall s | tokens or shingles | "
        "lemma cache hit rate (misses) | target |"
    )
    lines = [head, "|" + "---|" * 9]
    for r in rows:
        target = TARGETS.get(r["preset"])
        verdict = ""
        if target is not None and r["stage"] == "canonical":
            verdict = f"≥ {target:g}: {'met' if r['mb_per_s_cpu'] >= target else 'MISSED'}"
        hit = (
            ""
            if r["lemma_hit_rate"] is None
            else f"{r['lemma_hit_rate']:.2%} ({r['lemma_misses']:,})"
        )
        lines.append(
            f"| {r['preset']} | {r['stage']} | {r['mb_per_s_cpu']:.1f} | {r['mb_per_s_wall']:.1f} "
            f"| {r['cpu_s']:.1f} | {r['wall_s']:.1f} | {r['items']:,} | {hit} | {verdict} |"
        )
    return "\n".join(lines)


def profile(texts: list[str], name: str, top: int) -> str:
    from neardup.fingerprints.pipeline import Pipeline, make_spec

    pipeline = Pipeline(make_spec(name))
    for text in texts[:WARMUP_DOCS]:
        pipeline.fingerprints(text)
    reset_morph_cache()
    profiler = cProfile.Profile()
    profiler.enable()
    for text in texts:
        pipeline.fingerprints(text)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="JSONL(.gz) with a text field")
    parser.add_argument("--limit", type=int, default=None, help="only the first N documents")
    parser.add_argument("--presets", default=",".join(PRESETS), help="comma-separated presets")
    parser.add_argument(
        "--warm", action="store_true", help="also a canonical pass with a warm cache"
    )
    parser.add_argument(
        "--profile", metavar="PRESET", help="cProfile one fingerprints pass instead"
    )
    parser.add_argument("--top", type=int, default=25, help="functions shown by --profile")
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"no data file {args.data}", file=sys.stderr)
        return 2
    texts = load(args.data, args.limit)
    if args.profile:
        print(profile(texts, args.profile, args.top))
        return 0
    before = machine()
    rows = run(texts, [p.strip() for p in args.presets.split(",") if p.strip()], args.warm)
    after = os.getloadavg()
    print(markdown(rows))
    print(
        f"\n{len(texts):,} documents of {args.data.name}; {before['cpu']}, {before['cores']} "
        f"cores, Python {before['python']}; load average before {before['load_average'][0]:.2f}, "
        f"after {after[0]:.2f}"
    )
    if args.json:
        args.json.write_text(
            json.dumps({"machine": before, "load_after": after, "rows": rows}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

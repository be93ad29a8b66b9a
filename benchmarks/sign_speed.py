"""End-to-end MinHash signing speed: neardup against rensa and datasketch, in one process run.

Raw text → 128-function signatures of lowercase word 5-gram shingles, on texts of
../shared/data/ru_news.jsonl.gz:

* neardup, ``plain`` preset (NFKC + lowercase words), 5-word shingles, fingerprints by
  ``rabin`` and by ``xxh3``; one core (``MinHasher.sign_texts`` in batches of 256).
* rensa ``RMinHash(num_perm=128)``: each text's shingles made in Python (lowercase,
  ``str.split``, space-joined 5-grams; this preparation is counted), ``update`` + ``digest``;
  and rensa's own batch path ``RMinHash.digest_matrix_from_token_sets`` on the same shingles.
* neardup under the ``oph1`` MinHash family too (one permutation hashing with optimal
  densification: one hash per shingle whatever the number of functions), ``rabin``.
* FastSketchLSH ``FastSimilaritySketch(size=128)`` (the Fast Similarity Sketch of Dahlgaard,
  Knudsen and Thorup), ``batch(..., num_threads=1)`` over the same Python shingles as rensa's;
  a row says so when the package is not installed (``pip install fastsketchlsh``).
* datasketch ``MinHash(num_perm=128)`` with its defaults (SHA-1 per shingle), updated shingle
  by shingle, on a subset (it is slow; the subset size is printed); and its fastest documented
  CPU path, ``MinHash.bulk`` (same shingles, as bytes).

Both cores (issue 15): ``neardup sign``'s own path (``sign_reader`` over a ``CorpusReader`` of
the file, reading included) for the ``plain`` and ``ru`` presets, on one core, two threads, two
processes (each reads its own share of the file) and ``--executor auto``, on all of ru_news and
on its first 100, 1,000 and 3,000 documents (gzipped JSONL written once under
/work/bench_cache/), with the ratio to one core by wall time and the load average of each run.
Every run starts warm, as a process with the word forms kept on disk does: a warm-up run over
the largest input loads the dictionary's table and learns every form the runs meet (one
``MinHasher`` per spec is shared by the process's threads, and forked workers inherit it).
"2 processes" is ``--executor process``, which signs with threads below ``PROCESS_MIN_BYTES``
of input; the table says which ran.

Every engine is warmed up on a few documents first (numba loads its cached kernels). The
machine may be shared: the script prints the load average before and after.

    .venv/bin/python benchmarks/sign_speed.py                 # all 9,277 documents
    .venv/bin/python benchmarks/sign_speed.py --limit 500     # a quick check
    .venv/bin/python benchmarks/sign_speed.py --update-docs   # also rewrite docs/benchmarks.md
    .venv/bin/python benchmarks/sign_speed.py --cores-only    # only the both-cores table

Writes the chart to docs/img/sign_speed.png (``--chart`` to change).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import platform
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from doc_sections import rewrite_section

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ru_news.jsonl.gz"
NUM_PERM = 128
K = 5


def load(limit: int | None) -> list[str]:
    with gzip.open(DATA, "rt", encoding="utf-8") as f:
        lines = itertools.islice(f, limit) if limit else f
        return [json.loads(line)["text"] for line in lines]


def python_shingles(text: str) -> list[str]:
    """Lowercase word 5-grams, space-joined, as rensa and datasketch users write them."""
    words = text.lower().split()
    if len(words) <= K:
        return [" ".join(words)] if words else []
    return [" ".join(words[i : i + K]) for i in range(len(words) - K + 1)]


class Result:
    def __init__(
        self,
        name: str,
        docs: int,
        nbytes: int,
        seconds: float,
        note: str = "",
        cpu: float | None = None,
        single: bool = True,
    ) -> None:
        self.name = name
        self.docs = docs
        self.nbytes = nbytes
        self.seconds = seconds
        self.note = note
        self.cpu = cpu  # CPU seconds of this process and of its worker processes
        self.single = single  # one thread of work: its CPU-time rate compares engines fairly

    @property
    def docs_per_cpu_s(self) -> float | None:
        return self.docs / self.cpu if self.cpu else None

    @property
    def docs_per_s(self) -> float:
        return self.docs / self.seconds

    @property
    def mb_per_s(self) -> float:
        return self.nbytes / 1e6 / self.seconds


REPEAT = 1


def timed(
    name: str,
    texts: list[str],
    run: Callable[[list[str]], Any],
    note: str = "",
    repeat: int | None = None,
    in_process: bool = True,
) -> Result:
    """Best wall-clock time of ``repeat`` runs (this process's CPU time is printed too: on a
    shared machine, wall time above CPU time means the process waited for a core)."""
    nbytes = sum(len(t.encode("utf-8")) for t in texts)
    best = float("inf")
    cpu = float("inf")
    for _ in range(repeat or REPEAT):
        start = time.perf_counter()
        cpu_start = time.process_time()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = run(texts)
        wall = time.perf_counter() - start
        if wall < best:
            best = wall
            cpu = time.process_time() - cpu_start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)  # workers, once reaped
            cpu += (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime)
    if out is not None and hasattr(out, "shape"):
        assert out.shape[0] == len(texts), (name, out.shape)
    result = Result(name, len(texts), nbytes, best, note, cpu, single=in_process)
    print(
        f"  {name:44s} {result.docs_per_s:9.1f} docs/s {result.mb_per_s:7.2f} MB/s "
        f"({len(texts)} docs, {best:.2f} s wall, {cpu:.2f} s CPU in this process)",
        flush=True,
    )
    return result


def neardup_runs(texts: list[str], family: str, minhash: str = "splitmix") -> list[Result]:
    from neardup.fingerprints.pipeline import make_spec
    from neardup.sketch.minhash import MinHasher
    from neardup.spec import SketchSpec

    spec = make_spec("plain", k=K, family=family).replace(
        sketch=SketchSpec(num_perm=NUM_PERM, family=minhash)
    )
    hasher = MinHasher(spec)
    hasher.sign_texts(texts[:20])  # warm-up: load the cached kernels, build the analyzer

    def one_core(batch: list[str]) -> np.ndarray:
        parts = [hasher.sign_texts(batch[i : i + 256]) for i in range(0, len(batch), 256)]
        return np.concatenate(parts)

    name = f"neardup {family}" + ("" if minhash == "splitmix" else f" {minhash}")
    results = [timed(f"{name}, 1 core", texts, one_core)]
    return results


def breakdown(texts: list[str], family: str) -> str:
    """CPU time per document of each stage of ``sign_texts`` (best of REPEAT): the analyzer
    (canonical tokens), shingle fingerprints on top of it, and the MinHash kernel."""
    from neardup._kernels import minhash as kernels
    from neardup.fingerprints.pipeline import make_spec
    from neardup.sketch.minhash import MinHasher, pack
    from neardup.spec import SketchSpec

    hasher = MinHasher(
        make_spec("plain", k=K, family=family).replace(sketch=SketchSpec(num_perm=NUM_PERM))
    )
    pipeline = hasher.pipeline
    hasher.sign_texts(texts[:20])
    best = {"analyzer": 1e9, "shingle fingerprints": 1e9, "MinHash kernel": 1e9}
    hashes: list[np.ndarray] = []
    for _ in range(REPEAT):
        t = time.process_time()
        for text in texts:
            pipeline.canonical(text)
        analyzer = time.process_time() - t
        t = time.process_time()
        hashes = [pipeline.shingles(text).hashes for text in texts]
        best["shingle fingerprints"] = min(
            best["shingle fingerprints"], time.process_time() - t - analyzer
        )
        best["analyzer"] = min(best["analyzer"], analyzer)
        flat, offsets = pack(hashes)
        t = time.process_time()
        kernels.minhash_flat(flat, offsets, hasher.seeds)
        best["MinHash kernel"] = min(best["MinHash kernel"], time.process_time() - t)
    total = sum(best.values())
    shingles = sum(h.shape[0] for h in hashes) / len(texts)
    parts = ", ".join(
        f"{name} {sec / len(texts) * 1e6:.0f} µs ({sec / total:.0%})" for name, sec in best.items()
    )
    line = (
        f"where a document's CPU time goes ({family}, {shingles:.0f} shingles per document): "
        f"{parts}"
    )
    print(line, flush=True)
    return line


def rensa_runs(texts: list[str]) -> list[Result]:
    from rensa import RMinHash

    def per_doc(batch: list[str]) -> np.ndarray:
        out = np.empty((len(batch), NUM_PERM), dtype=np.uint32)
        for i, text in enumerate(batch):
            m = RMinHash(num_perm=NUM_PERM, seed=42)
            m.update(python_shingles(text))
            out[i] = m.digest()
        return out

    def matrix(batch: list[str]) -> Any:
        return RMinHash.digest_matrix_from_token_sets(
            (python_shingles(t) for t in batch), NUM_PERM, 42
        )

    per_doc(texts[:20])
    return [
        timed("rensa RMinHash update+digest", texts, per_doc),
        timed("rensa digest_matrix_from_token_sets", texts, matrix),
    ]


def fastsketch_runs(texts: list[str]) -> list[Result]:
    """FastSketchLSH's sketch on one thread, or nothing when it is not installed."""
    try:
        from FastSketchLSH import FastSimilaritySketch
    except ImportError:
        print("FastSketchLSH: not installed (pip install fastsketchlsh)", flush=True)
        return []
    sketcher = FastSimilaritySketch(size=NUM_PERM, seed=42)

    def batch(texts_: list[str]) -> Any:
        return sketcher.batch([python_shingles(t) for t in texts_], num_threads=1)

    batch(texts[:20])
    return [timed("FastSketchLSH FastSimilaritySketch.batch", texts, batch)]


def datasketch_runs(texts: list[str]) -> list[Result]:
    from datasketch import MinHash

    def default(batch: list[str]) -> None:
        for text in batch:
            m = MinHash(num_perm=NUM_PERM)
            for shingle in python_shingles(text):
                m.update(shingle.encode("utf-8"))
            m.digest()

    def bulk(batch: list[str]) -> None:
        for m in MinHash.bulk(
            [[s.encode("utf-8") for s in python_shingles(t)] for t in batch], num_perm=NUM_PERM
        ):
            m.digest()

    return [
        timed("datasketch MinHash, update per shingle", texts, default, repeat=1),
        timed("datasketch MinHash.bulk", texts, bulk),
    ]


# --- both cores (issue 15) -------------------------------------------------------------------

CACHE = Path("/work/bench_cache")
CORE_SIZES = (100, 1000, 3000, None)
#: The presets of the both-cores runs: every one signs in batches of nogil kernel calls.
CORE_PRESETS = ("plain", "ru", "auto")
MODES = (("1 core", 1, "thread"), ("2 threads", 2, "thread"), ("2 processes", 2, "process"))


def corpus_file(size: int | None) -> Path:
    """ru_news itself, or its first ``size`` records as gzipped JSONL (written once)."""
    if size is None:
        return DATA
    path = CACHE / f"ru_news_first{size}.jsonl.gz"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        with gzip.open(DATA, "rb") as f:
            head = b"".join(itertools.islice(f, size))
        part = path.with_suffix(".part")
        with gzip.open(part, "wb") as out:
            out.write(head)
        part.replace(path)
    return path


class CoreRun:
    def __init__(self, preset: str, size: int, mb: float, mode: str, executor: str) -> None:
        self.preset, self.size, self.mb, self.mode, self.executor = preset, size, mb, mode, executor
        self.wall = 0.0
        self.cpu = 0.0
        self.load = 0.0


def run_reader(preset: str, path: Path, jobs: int, executor: str) -> tuple[float, float, int, str]:
    """Wall and CPU seconds (this process and its reaped workers) of signing ``path`` as
    ``neardup sign`` does; the documents signed and the executor that ran."""
    from neardup.fingerprints.pipeline import make_spec
    from neardup.inputs import CorpusReader
    from neardup.sketch.parallel import executor_that_runs, sign_reader
    from neardup.spec import SketchSpec

    spec = make_spec(preset, k=K).replace(sketch=SketchSpec(num_perm=NUM_PERM))
    reader = CorpusReader([path])
    ran = executor_that_runs(spec, reader.total_bytes, jobs, executor)  # type: ignore[arg-type]
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time()
    start = time.perf_counter()
    docs = 0
    for ids, _ in sign_reader(spec, reader, jobs=jobs, batch_size=256, executor=executor):  # type: ignore[arg-type]
        docs += len(ids)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - cpu + (after.ru_utime - children.ru_utime)
    cpu += after.ru_stime - children.ru_stime
    return wall, cpu, docs, ran


#: An input of one batch (100 documents) is signed by the same code in one thread under every
#: mode (``sign_stream``), yet the best times of the modes differ by up to about 1 %: a mode is
#: called slower than one core only beyond this share.
SAME_CODE_SPREAD = 0.02
#: Inputs of at most this many documents sign in a tenth of a second: their best wall time is
#: taken of SMALL_REPEAT runs, so a ratio is not a millisecond of noise.
SMALL_DOCS = 1000
SMALL_REPEAT = 7


def small_repeat(docs: int) -> int:
    """How many runs the best wall time of an input is taken of."""
    return max(REPEAT, SMALL_REPEAT) if docs <= SMALL_DOCS else REPEAT


def cores_runs(limit: int | None) -> list[CoreRun]:
    """Every preset × size × mode, best wall time of REPEAT runs, load average beside it."""
    runs: list[CoreRun] = []
    sizes = [n for n in CORE_SIZES if n is None or limit is None or n < limit]
    if limit is not None and limit not in sizes:
        sizes = [n for n in sizes if n is not None] + [limit]
    for preset in CORE_PRESETS:
        # warm-up on the largest input: kernels, tables, and every word form the runs meet
        # learned, so no run (the first, one core) pays for predicting them
        run_reader(preset, corpus_file(sizes[-1]), 1, "thread")
        for size in sizes:
            path = corpus_file(size)
            texts = load(size)
            mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
            for mode, jobs, executor in (*MODES, ("2, auto", 2, "auto")):
                run = CoreRun(preset, len(texts), mb, mode, executor)
                run.wall = float("inf")
                for _ in range(small_repeat(len(texts))):
                    wall, cpu, docs, ran = run_reader(preset, path, jobs, executor)
                    assert docs == len(texts), (docs, len(texts))
                    if wall < run.wall:
                        run.wall, run.cpu, run.load = wall, cpu, os.getloadavg()[0]
                if executor != "thread":
                    run.mode = f"{mode} ({'processes' if ran == 'process' else 'threads'})"
                runs.append(run)
                print(
                    f"  {preset:5s} {len(texts):5d} docs {mode:18s} {run.wall:7.2f} s wall "
                    f"{run.cpu:7.2f} s CPU {mb / run.wall:7.2f} MB/s, load {run.load:.2f}",
                    flush=True,
                )
    return runs


def cores_table(runs: list[CoreRun]) -> tuple[str, list[str]]:
    lines = [
        "| preset | docs | MB | mode | wall s | CPU s | MB/s | × 1 core (wall) | load avg |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    summary: list[str] = []
    for run in runs:
        base = next(
            r for r in runs if (r.preset, r.size, r.mode) == (run.preset, run.size, "1 core")
        )
        ratio = base.wall / run.wall
        lines.append(
            f"| {run.preset} | {run.size:,} | {run.mb:.1f} | {run.mode} | {run.wall:.2f} | "
            f"{run.cpu:.2f} | {run.mb / run.wall:.1f} | {ratio:.2f} | {run.load:.2f} |"
        )
    largest = max(r.size for r in runs)
    for preset in CORE_PRESETS:
        of = {r.mode.split(" (")[0]: r for r in runs if r.preset == preset and r.size == largest}
        one = of["1 core"]
        summary.append(
            f"{preset}, {largest:,} documents: two threads {one.wall / of['2 threads'].wall:.2f}×, "
            f"two processes {one.wall / of['2 processes'].wall:.2f}×, auto "
            f"{one.wall / of['2, auto'].wall:.2f}× one core (wall time)"
        )
        for label, prefix in (("processes", "2 processes"), ("auto", "2, auto")):
            slower = [
                f"{r.size:,} docs"
                for r in runs
                if r.preset == preset
                and r.mode.startswith(prefix)
                and r.wall
                > (1 + SAME_CODE_SPREAD)
                * next(
                    b.wall for b in runs if (b.preset, b.size, b.mode) == (preset, r.size, "1 core")
                )
            ]
            summary.append(
                f"{preset}: {label} slower than one core (by more than "
                f"{SAME_CODE_SPREAD:.0%}) at " + (", ".join(slower) if slower else "no size tried")
            )
    return "\n".join(lines), summary


def table(results: list[Result], refs: dict[str, Result]) -> str:
    """Wall-clock rates, and ratios by CPU time of this process (fairer on a shared machine,
    where wall time includes waiting for a core; not available for worker-process runs)."""
    heads = " | ".join(f"× {name} (CPU)" for name in refs)
    lines = [
        f"| engine | docs | wall s | CPU s | docs/s | MB/s | docs per CPU-s | {heads} | note |",
        "|---|---:|---:|---:|---:|---:|---:|" + "---:|" * len(refs) + "---|",
    ]
    for r in results:
        per_cpu = r.docs_per_cpu_s
        ratios = " | ".join(
            f"{per_cpu / ref.docs_per_cpu_s:.2f}"
            if r.single and per_cpu and ref.docs_per_cpu_s
            else "—"
            for ref in refs.values()
        )
        lines.append(
            f"| {r.name} | {r.docs} | {r.seconds:.2f} | {f'{r.cpu:.2f}' if r.cpu else '—'} | "
            f"{r.docs_per_s:,.0f} | {r.mb_per_s:.2f} | {f'{per_cpu:,.0f}' if per_cpu else '—'} | "
            f"{ratios} | {r.note} |"
        )
    return "\n".join(lines)


def chart(results: list[Result], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(8.5, 0.5 * len(results) + 1.5), dpi=110)
    names = [r.name for r in results][::-1]
    speeds = [r.docs_per_s for r in results][::-1]
    colors = [
        "tab:blue"
        if n.startswith("neardup")
        else "tab:orange"
        if n.startswith("rensa")
        else "tab:grey"
        for n in names
    ]
    bars = ax.barh(names, speeds, color=colors)
    ax.bar_label(bars, labels=[f"{s:,.0f}" for s in speeds], padding=3, fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel(
        "documents per second (log scale), ru_news, 128 functions, word 5-grams;\n"
        "datasketch on the first documents only"
    )
    ax.set_title("MinHash signing, raw text → signature")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def update_docs(markdown: str, section: str = "signing") -> None:
    # hand-written notes (the memory run, conclusions) that follow the notes marker stay
    rewrite_section(
        ROOT / "docs" / "benchmarks.md",
        f"<!-- section: {section} -->",
        f"<!-- end: {section} -->",
        markdown,
        keep="<!-- signing: notes -->",
    )


def both_cores(args: argparse.Namespace) -> None:
    before = os.getloadavg()[0]
    print(
        f"both cores: {os.cpu_count()} CPUs, Python {platform.python_version()}, load average "
        f"{before:.2f}",
        flush=True,
    )
    runs = cores_runs(args.limit)
    after = os.getloadavg()[0]
    markdown, summary = cores_table(runs)
    print()
    print(markdown)
    for line in summary:
        print(line)
    print(f"load average before {before:.2f}, after {after:.2f}")
    if args.update_docs:
        command = (
            "`.venv/bin/python benchmarks/sign_speed.py"
            + (f" --limit {args.limit}" if args.limit else "")
            + " --update-docs` (or `--cores-only --update-docs` for this section alone)"
        )
        update_docs(
            "## Both cores: `neardup sign --jobs 2` (issue 15)\n\n"
            "`neardup sign`'s own path (`neardup.sketch.parallel.sign_reader` over a "
            "`CorpusReader` of the gzipped JSONL file, reading and decoding included), 128 "
            "MinHash values of word 5-shingles, batches of 256: one core; two threads; two "
            "processes (`--executor process`), each reading its own share of the file (the "
            "parent holds no text; below 4 MB of input on disk it signs with threads, and the "
            "table says so); and `--executor auto`, which picks threads where nogil kernels "
            "sign a batch (`plain`, `ru`, `auto`: every preset) or the input is under 4 MB, "
            "processes otherwise. "
            "ru_news and its first 100, 1,000 and 3,000 documents. Best of "
            f"{REPEAT} runs by wall time (of {max(REPEAT, SMALL_REPEAT)} up to "
            f"{SMALL_DOCS:,} documents); CPU s counts the workers; every run starts with the "
            "word forms learned (as a process with them on disk). Produced by "
            f"{command}; load average {before:.2f} before and {after:.2f} after (2 cores shared "
            "with other work: two-core ratios are bounded by what the machine gave).\n\n"
            + markdown
            + "\n\n"
            + "\n".join(f"- {line}" for line in summary)
            + "\n",
            section="sign-cores",
        )
        print("docs/benchmarks.md updated (sign-cores)")


def main(argv: list[str] | None = None) -> int:
    global REPEAT
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="documents of ru_news (default: all)"
    )
    parser.add_argument(
        "--subset",
        type=int,
        default=500,
        help="documents for the datasketch comparison, run by every engine (default 500)",
    )
    parser.add_argument("--repeat", type=int, default=2, help="best of this many runs (default 2)")
    parser.add_argument("--no-jobs", action="store_true", help="skip the both-cores runs")
    parser.add_argument(
        "--cores-only", action="store_true", help="only the both-cores runs (and their section)"
    )
    parser.add_argument("--chart", type=Path, default=ROOT / "docs" / "img" / "sign_speed.png")
    parser.add_argument(
        "--update-docs",
        action="store_true",
        help="write the tables into the signing section of docs/benchmarks.md",
    )
    args = parser.parse_args(argv)
    REPEAT = max(1, args.repeat)
    if not DATA.exists():
        print(f"no data at {DATA}", file=sys.stderr)
        return 2
    if not args.no_jobs:
        both_cores(args)
    if args.cores_only:
        return 0
    texts = load(args.limit)
    subset = texts[: args.subset]
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    sub_mb = sum(len(t.encode("utf-8")) for t in subset) / 1e6
    load_before = os.getloadavg()
    print(
        f"{len(texts)} documents, {mb:.1f} MB of UTF-8; Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load average {load_before[0]:.2f}",
        flush=True,
    )
    print(f"all {len(texts)} documents:")
    results: list[Result] = []
    for family in ("rabin", "xxh3"):
        results += neardup_runs(texts, family)
    results += neardup_runs(texts, "rabin", "oph1")
    rensa_results = rensa_runs(texts)
    results += rensa_results
    fast_results = fastsketch_runs(texts)
    results += fast_results
    print(f"the first {len(subset)} documents ({sub_mb:.1f} MB), every engine:")
    sub_results: list[Result] = []
    for family in ("rabin", "xxh3"):
        sub_results += neardup_runs(subset, family)
    sub_results += rensa_runs(subset)[:1]
    ds_results = datasketch_runs(subset)
    sub_results += ds_results
    stages = [breakdown(texts, family) for family in ("rabin", "xxh3")]
    load_after = os.getloadavg()
    md_all = table(results, {"rensa": rensa_results[0]})
    if not fast_results:
        md_all += "\n| FastSketchLSH | not installed (`pip install fastsketchlsh`) | | | | | | | |"
    md_sub = table(sub_results, {"rensa": sub_results[2], "datasketch default": ds_results[0]})
    print()
    print(md_all)
    print()
    print(md_sub)
    one = {r.name: r for r in results}
    sub = {r.name: r for r in sub_results}
    summary = []

    def ratio(a: Result, b: Result) -> str:
        wall = a.docs_per_s / b.docs_per_s
        if a.single and b.single and a.docs_per_cpu_s and b.docs_per_cpu_s:
            return (
                f"{a.docs_per_cpu_s / b.docs_per_cpu_s:.2f}× by CPU time ({wall:.2f}× by wall time)"
            )
        return f"{wall:.2f}× by wall time"

    for family in ("rabin", "xxh3"):
        single = one[f"neardup {family}, 1 core"]
        sub_single = sub[f"neardup {family}, 1 core"]
        line = (
            f"neardup {family}, 1 core: {ratio(single, rensa_results[0])} rensa update+digest; "
            f"{ratio(single, rensa_results[1])} rensa digest matrix; on the subset "
            f"{ratio(sub_single, ds_results[0])} datasketch default, "
            f"{ratio(sub_single, ds_results[1])} datasketch bulk"
        )
        summary.append(line)
        print(line)
    oph = one["neardup rabin oph1, 1 core"]
    line = f"neardup rabin oph1, 1 core: {ratio(oph, rensa_results[0])} rensa update+digest; " + (
        f"{ratio(oph, fast_results[0])} FastSketchLSH; "
        f"FastSketchLSH {ratio(fast_results[0], rensa_results[0])} rensa update+digest"
        if fast_results
        else "FastSketchLSH not installed"
    )
    summary.append(line)
    print(line)
    print(
        f"\nload average before {load_before[0]:.2f}, after {load_after[0]:.2f} (a shared machine "
        "adds noise)"
    )
    chart(results + [r for r in sub_results if r.name.startswith("datasketch")], args.chart)
    print(f"chart written to {args.chart}")
    if args.update_docs:
        command = (
            "`.venv/bin/python benchmarks/sign_speed.py"
            + (f" --limit {args.limit}" if args.limit else "")
            + " --update-docs`"
        )
        update_docs(
            "## MinHash signing against rensa and datasketch (issue 3)\n\n"
            "Raw text → 128 minhashes of lowercase word 5-grams, on ru_news. neardup: `plain` "
            "preset (NFKC + lowercase words), 5-word shingles, `MinHasher.sign_texts` in batches "
            "of 256; rensa and datasketch: shingles made in Python (`lower().split()`, "
            f"space-joined 5-grams), their preparation counted. Best of {REPEAT} runs (datasketch "
            f"default: one run). Produced by {command}; load average {load_before[0]:.2f} before "
            f"and {load_after[0]:.2f} after: the 2-core machine was shared with other work, so the "
            "figures are noisy and the two-core runs could not have both cores to themselves.\n\n"
            f"All {len(texts)} documents ({mb:.1f} MB):\n\n"
            + md_all
            + f"\n\nThe first {len(subset)} documents ({sub_mb:.1f} MB), every engine on the same "
            "texts (datasketch is too slow for the whole corpus):\n\n"
            + md_sub
            + "\n\n"
            + "\n".join(f"- {line}" for line in summary + stages)
            + "\n\n![signing speed](img/sign_speed.png)\n"
        )
        print("docs/benchmarks.md updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The ``ru`` preset's signing speed with the dictionary compiled for the kernels (issue 15).

Raw text → 128 MinHash values (word 5-shingles, rabin 64), one core, on every document of
../shared/data/ru_news.jsonl.gz, side by side in one run with the ``plain`` preset and rensa
(``RMinHash(num_perm=128)``, lowercase whitespace 5-grams made in Python, counted) on the same
texts. Each state runs in a fresh process:

* **cold**: an empty cache folder (``NEARDUP_CACHE_DIR``), so the dictionary's word-form table
  is built in the run (its build time is reported apart and with the signing), then one pass;
* **warm**: the table on disk, loaded (mapped) by a new process, one pass with the in-process
  table of unknown forms empty ("table loaded"), then a second pass with it filled ("table +
  forms learned"); ``plain`` and rensa in the same process, and the filters run in Python on
  lists of terms (the path before issue 15, ``Analyzer(compile_filters=False)``) on the first
  ``--before-docs`` documents for the ratio; the forms the cold run predicted, which it kept
  on disk, are set aside for this state;
* **warm, forms on disk**: a new process with the table and the forms the cold run kept on
  disk (:mod:`neardup.analysis.learned_cache`), one pass (loading those forms is timed apart).

Rates are MB of UTF-8 input per CPU second of the process (the figure for one core; the
machine is shared, so the load average is printed beside each run). Also the table's size on
disk and in memory.

    .venv/bin/python benchmarks/ru_sign_speed.py                  # all 9,277 documents
    .venv/bin/python benchmarks/ru_sign_speed.py --limit 1000     # a quick check
    .venv/bin/python benchmarks/ru_sign_speed.py --update-docs    # also rewrite docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from doc_sections import rewrite_section

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ru_news.jsonl.gz"
NUM_PERM = 128
K = 5
BATCH = 256


def load(limit: int | None) -> list[str]:
    with gzip.open(DATA, "rt", encoding="utf-8") as f:
        lines = itertools.islice(f, limit) if limit else f
        return [json.loads(line)["text"] for line in lines]


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split(" ")[:3])


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def timed(name: str, texts: list[str], run: Callable[[list[str]], Any]) -> dict[str, Any]:
    nbytes = sum(len(t.encode("utf-8")) for t in texts)
    load_before = loadavg()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    run(texts)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    row = {
        "run": name,
        "docs": len(texts),
        "mb": nbytes / 1e6,
        "cpu_s": cpu,
        "wall_s": wall,
        "mb_per_cpu_s": nbytes / 1e6 / cpu,
        "load": f"{load_before} → {loadavg()}",
    }
    print(
        f"  {name:42s} {row['mb_per_cpu_s']:7.1f} MB/s per CPU s  ({cpu:.2f} s CPU, "
        f"{wall:.2f} s wall, load {row['load']})",
        flush=True,
    )
    return row


def signer(preset: str, compile_filters: bool = True) -> Callable[[list[str]], Any]:
    import numpy as np

    from neardup.analysis.analyzer import Analyzer
    from neardup.fingerprints.pipeline import make_spec
    from neardup.sketch.minhash import MinHasher
    from neardup.spec import SketchSpec

    spec = make_spec(preset, k=K).replace(sketch=SketchSpec(num_perm=NUM_PERM))
    hasher = MinHasher(spec)
    if not compile_filters:
        hasher.pipeline.analyzer = Analyzer(spec.analyzer, compile_filters=False)

    def sign(texts: list[str]) -> Any:
        return np.concatenate(
            [hasher.sign_texts(texts[i : i + BATCH]) for i in range(0, len(texts), BATCH)]
        )

    chains = hasher.pipeline.analyzer._chains
    sign.compiled = next(iter(chains.values())).compiled  # type: ignore[attr-defined]
    return sign


def rensa_sign(texts: list[str]) -> Any:
    import numpy as np
    from rensa import RMinHash

    out = np.empty((len(texts), NUM_PERM), dtype=np.uint32)
    for i, text in enumerate(texts):
        words = text.lower().split()
        if len(words) <= K:
            shingles = [" ".join(words)] if words else []
        else:
            shingles = [" ".join(words[j : j + K]) for j in range(len(words) - K + 1)]
        m = RMinHash(num_perm=NUM_PERM, seed=42)
        m.update(shingles)
        out[i] = m.digest()
    return out


def child(state: str, limit: int | None, before_docs: int) -> dict[str, Any]:
    from neardup.analysis import morph_table

    texts = load(limit)
    rows = []
    info: dict[str, Any] = {"state": state}
    rss0 = rss_mb()
    cpu0 = time.process_time()
    wall0 = time.perf_counter()
    table = morph_table.dictionary_table()
    info["table_cpu_s"] = time.process_time() - cpu0
    info["table_wall_s"] = time.perf_counter() - wall0
    info["table_entries"] = len(table)
    info["table_nbytes"] = table.nbytes
    path = morph_table.cache_dir() / f"{table.key}.bin"
    info["table_file_bytes"] = path.stat().st_size if path.exists() else None
    info["table_key"] = table.key
    sign_ru = signer("ru")
    cpu0 = time.process_time()
    sign_ru(texts[:1])  # the kernels from numba's cache (the table is already there)
    info["first_doc_cpu_s"] = time.process_time() - cpu0
    info["rss_table_mb"] = rss_mb() - rss0
    if state == "disk":
        folder = morph_table.cache_dir() / "learned"
        files = list(folder.rglob("*.bin")) if folder.exists() else []
        info["learned_files"] = len(files)
        info["learned_bytes"] = sum(f.stat().st_size for f in files)
        compiled = sign_ru.compiled  # type: ignore[attr-defined]
        info["learned_forms"] = len(compiled.on_disk())
        rows.append(timed("ru, fresh process: table + forms on disk", texts, sign_ru))
    elif state == "cold":
        row = timed("ru, cold: table built in this run", texts, sign_ru)
        row["table_cpu_s"] = info["table_cpu_s"]
        row["with_table_mb_per_cpu_s"] = row["mb"] / (row["cpu_s"] + info["table_cpu_s"])
        rows.append(row)
    else:
        rows.append(timed("ru, warm: table loaded", texts, sign_ru))
        rows.append(timed("ru, warm: table + forms learned", texts, sign_ru))
        sign_plain = signer("plain")
        sign_plain(texts[:20])
        rows.append(timed("plain", texts, sign_plain))
        rensa_sign(texts[:20])
        rows.append(timed("rensa RMinHash update+digest", texts, rensa_sign))
        if before_docs:
            sign_before = signer("ru", compile_filters=False)
            subset = texts[:before_docs]
            sign_before(subset[:1])
            rows.append(
                timed(f"ru, filters in Python (before), first {len(subset)}", subset, sign_before)
            )
            rows.append(timed(f"ru, warm, same first {len(subset)}", subset, sign_ru))
    info["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    info["rows"] = rows
    return info


def run_child(state: str, cache: Path, args: argparse.Namespace) -> dict[str, Any]:
    env = dict(os.environ, NEARDUP_CACHE_DIR=str(cache))
    cmd = [sys.executable, __file__, "--child", state, "--before-docs", str(args.before_docs)]
    if args.limit:
        cmd += ["--limit", str(args.limit)]
    print(f"{state} (cache {cache}), load {loadavg()}", flush=True)
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
    sys.stderr.write(out.stderr)
    lines = out.stdout.strip().splitlines()
    print("\n".join(lines[:-1]), flush=True)
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def markdown(cold: dict[str, Any], warm: dict[str, Any], disk: dict[str, Any], command: str) -> str:
    rows = cold["rows"] + warm["rows"][:2] + disk["rows"] + warm["rows"][2:]
    ref = {r["run"]: r for r in rows}
    rensa = ref["rensa RMinHash update+digest"]
    plain = ref["plain"]
    lines = [
        f"Raw text → 128 MinHash values (word 5-shingles, rabin 64), one core, "
        f"{rows[0]['docs']:,} documents of ru_news ({rows[0]['mb']:.1f} MB); rates are MB of "
        f"input per CPU second of the process; each state in a fresh process. Produced by "
        f"`{command}`.",
        "",
        "| run | MB/s per CPU s | CPU s | wall s | × rensa (CPU) | × plain | load average |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['run']} | {r['mb_per_cpu_s']:.1f} | {r['cpu_s']:.2f} | {r['wall_s']:.2f} | "
            f"{r['mb_per_cpu_s'] / rensa['mb_per_cpu_s']:.2f} | "
            f"{r['mb_per_cpu_s'] / plain['mb_per_cpu_s']:.2f} | {r['load']} |"
        )
    c = cold["rows"][0]
    lines += [
        "",
        f"- Cold: building the table took {cold['table_cpu_s']:.1f} s CPU "
        f"({cold['table_wall_s']:.1f} s wall) for {cold['table_entries']:,} forms; with it, "
        f"the first run signs at {c['with_table_mb_per_cpu_s']:.1f} MB/s per CPU s. "
        f"Peak RSS of the building process {cold['maxrss_mb']:.0f} MB.",
        f"- Warm: loading the table took {warm['table_cpu_s'] * 1000:.0f} ms CPU (mapped, "
        f"checksum read).",
        f"- Warm, forms on disk: {disk['learned_forms']:,} forms the cold run predicted, in "
        f"{disk['learned_files']} file(s) of {disk['learned_bytes'] / 1e6:.1f} MB; the first "
        f"document, which loads them, took {disk['first_doc_cpu_s'] * 1000:.0f} ms CPU "
        f"(without them, in the warm state: {warm['first_doc_cpu_s'] * 1000:.0f} ms).",
        f"- The table (`{warm['table_key']}`): {warm['table_file_bytes'] / 1e6:.1f} MB on "
        f"disk, {warm['table_nbytes'] / 1e6:.1f} MB of arrays in memory (mapped from the file, "
        f"shared between processes); the process's RSS grew by {warm['rss_table_mb']:.0f} MB "
        f"once the table and pymorphy3 were loaded.",
    ]
    before = [r for r in rows if r["run"].startswith("ru, filters in Python")]
    if before:
        same = [r for r in rows if r["run"].startswith("ru, warm, same first")][0]
        lines.append(
            f"- The filters in Python on lists of terms (before issue 15) on the same "
            f"{before[0]['docs']:,} documents: {before[0]['mb_per_cpu_s']:.1f} MB/s per CPU s; "
            f"compiled: {same['mb_per_cpu_s']:.1f} "
            f"({same['mb_per_cpu_s'] / before[0]['mb_per_cpu_s']:.1f}×)."
        )
    return "\n".join(lines)


def update_docs(text_md: str) -> None:
    rewrite_section(
        ROOT / "docs" / "benchmarks.md",
        "<!-- section: ru-sign -->",
        "<!-- end: ru-sign -->",
        "## The `ru` preset with the dictionary in the kernels (issue 15)\n\n" + text_md.strip(),
        keep="<!-- ru-sign: notes -->",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limit", type=int, default=None, help="only the first N documents")
    parser.add_argument("--before-docs", type=int, default=1000, help="docs for the old path")
    parser.add_argument("--update-docs", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--child", choices=("cold", "warm", "disk"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        result = child(args.child, args.limit, args.before_docs)
        print(json.dumps(result))
        return 0
    with tempfile.TemporaryDirectory(prefix="neardup-ru-sign-") as tmp:
        cache = Path(tmp)
        cold = run_child("cold", cache, args)
        learned, kept = cache / "learned", cache / "learned-kept"
        if learned.exists():
            learned.rename(kept)
        warm = run_child("warm", cache, args)
        shutil.rmtree(learned, ignore_errors=True)
        if kept.exists():
            kept.rename(learned)
        disk = run_child("disk", cache, args)
    command = ".venv/bin/python benchmarks/ru_sign_speed.py" + (
        f" --limit {args.limit}" if args.limit else ""
    )
    text_md = markdown(cold, warm, disk, command + " --update-docs")
    print(text_md)
    if args.json:
        args.json.write_text(json.dumps({"cold": cold, "warm": warm, "disk": disk}, indent=1))
    if args.update_docs:
        update_docs(text_md)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Memory stays flat while ``neardup sign`` streams a corpus far bigger than memory would allow
as Python objects: ruslit + ru_news, ten times over (about 1 GB of text as Python strings).

The script runs the real command in a subprocess:

    neardup sign ruslit.jsonl.gz ru_news.jsonl.gz … (×REPEAT) -o TMP --preset plain --jobs J

and samples, every 0.25 s, the resident memory (VmRSS) of the command and of all its worker
processes together (PSS, and summed RSS), printing the peak and a few samples along the way.
It then reads the signature directory back and checks the row count.

    .venv/bin/python benchmarks/sign_memory.py                  # 10 rounds, 2 jobs
    .venv/bin/python benchmarks/sign_memory.py --repeat 1       # a quick check
"""

from __future__ import annotations

import argparse
import gzip
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
FILES = [DATA / "ruslit.jsonl.gz", DATA / "ru_news.jsonl.gz"]


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        tree.setdefault(int(fields[1]), []).append(int(entry))
    return tree


def _field_kb(path: str, name: str) -> int:
    try:
        with open(path, encoding="ascii") as f:
            for line in f:
                if line.startswith(name):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_memory_mb(pid: int) -> tuple[float, float]:
    """``(PSS, RSS)`` of ``pid`` and all its descendants together, in MB.

    PSS (proportional set size) splits each shared page among the processes sharing it, so
    forked workers are not charged again for the parent's pages; summed RSS counts them once
    per process and overstates the total.
    """
    tree = _children()
    pss = rss = 0
    stack = [pid]
    while stack:
        p = stack.pop()
        stack.extend(tree.get(p, []))
        pss += _field_kb(f"/proc/{p}/smaps_rollup", "Pss:")
        rss += _field_kb(f"/proc/{p}/status", "VmRSS:")
    return pss / 1024, rss / 1024


def corpus_size() -> tuple[int, int]:
    docs = chars = 0
    for path in FILES:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            for line in f:
                docs += 1
                chars += len(line)
    return docs, chars


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--repeat", type=int, default=10, help="rounds over ruslit + ru_news (default 10)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    args = parser.parse_args(argv)
    missing = [str(p) for p in FILES if not p.exists()]
    if missing:
        print(f"missing data: {', '.join(missing)}", file=sys.stderr)
        return 2
    docs, chars = corpus_size()
    print(
        f"one round: {docs} documents, {chars / 1e6:.0f} M characters of JSON; {args.repeat} "
        f"rounds ≈ {args.repeat * chars / 1e6:.0f} M characters (as Python str at 2 bytes per "
        f"Cyrillic character ≈ {args.repeat * chars * 2 / 1e9:.1f} GB)",
        flush=True,
    )
    exe = Path(sys.executable).with_name("neardup")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "sigs"
        cmd = [
            str(exe),
            "sign",
            *[str(p) for p in FILES] * args.repeat,
            "-o",
            str(out),
            "--preset",
            "plain",
            "--jobs",
            str(args.jobs),
            "-q",
        ]
        start = time.perf_counter()
        proc = subprocess.Popen(cmd)
        peak_pss = peak_rss = 0.0
        samples: list[tuple[float, float, float]] = []
        while proc.poll() is None:
            pss, rss = tree_memory_mb(proc.pid)
            peak_pss, peak_rss = max(peak_pss, pss), max(peak_rss, rss)
            samples.append((time.perf_counter() - start, pss, rss))
            time.sleep(0.25)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            print(f"neardup sign failed with exit code {proc.returncode}", file=sys.stderr)
            return 1
        single_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        sys.path.insert(0, str(ROOT / "src"))
        from neardup.sketch import read_signatures

        sigs = read_signatures(out)
        assert len(sigs) == docs * args.repeat, (len(sigs), docs * args.repeat)
        size_mb = sum(f.stat().st_size for f in out.iterdir()) / 1e6
    step = max(1, len(samples) // 12)
    print("time (s)  command + workers: PSS (MB)  summed RSS (MB)")
    for t, pss, rss in samples[::step]:
        print(f"{t:8.1f}  {pss:26.1f}  {rss:15.1f}")
    print(
        f"signed {len(sigs)} documents in {elapsed:.0f} s ({args.jobs} jobs); signature directory "
        f"{size_mb:.0f} MB"
    )
    print(
        f"peak memory of the command + workers together: PSS {peak_pss:.0f} MB (summed RSS "
        f"{peak_rss:.0f} MB, shared pages counted per process); largest single process RSS "
        f"{single_peak:.0f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The seed rows of issue 16, side by side in one run: MinHash families, and MD5 against hashlib.

* MinHash: raw text → 128-function signatures (``plain`` preset, rabin 64, word 5-shingles) of
  the first ``--docs`` documents of ../shared/data/ru_news.jsonl.gz, with the default
  ``splitmix`` family and with the classic ``affine`` one, ``(a·x + b) mod 2^61−1``
  (``SketchSpec.family``). Documents per CPU second (``time.process_time``, best of
  ``--repeat``) and the ratio; the signatures' agreement with exact resemblance is tested in
  tests/sketch/test_minhash_affine.py, not here.
* MD5: the distinct word 5-shingles of the same documents (their canonical UTF-8 bytes), hashed
  by neardup's numba MD5 kernel in one call (``neardup._kernels.md5.md5_spans``) and by
  ``hashlib.md5`` one shingle at a time (the usual Python way); shingles per CPU second, the
  ratio, and a check that every digest is equal.

The machine may be shared: the load average is printed before and after, and CPU time is used.

    .venv/bin/python benchmarks/seed_rows.py                  # print the tables
    .venv/bin/python benchmarks/seed_rows.py --update-docs    # also rewrite its section of
                                                              # docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import itertools
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from doc_sections import rewrite_section

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ru_news.jsonl.gz"
SECTION = "seed-rows"


def load(limit: int) -> list[str]:
    with gzip.open(DATA, "rt", encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in itertools.islice(f, limit)]


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def best_cpu(run: Callable[[], Any], repeat: int) -> float:
    """The least CPU time of ``repeat`` runs (after one warm-up run)."""
    run()
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def minhash_rows(texts: list[str], repeat: int) -> tuple[str, dict[str, float]]:
    from neardup import make_spec
    from neardup.sketch import MinHasher
    from neardup.spec import SketchSpec

    rates = {}
    for family in SketchSpec.FAMILIES:
        hasher = MinHasher(make_spec("plain").replace(sketch=SketchSpec(family=family)))
        seconds = best_cpu(lambda h=hasher: h.sign_texts(texts), repeat)
        rates[family] = len(texts) / seconds
    lines = [
        "| MinHash family | documents per CPU s | relative |",
        "|---|---:|---:|",
    ]
    for family, rate in rates.items():
        lines.append(f"| `{family}` | {rate:,.0f} | {rate / rates['splitmix']:.2f}× |")
    return "\n".join(lines), rates


def shingle_spans(texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The canonical buffer of the texts and the byte spans of their distinct 5-shingles."""
    from neardup import make_spec
    from neardup.fingerprints.pipeline import Pipeline
    from neardup.research.collisions import ShingleChunk

    chunk = ShingleChunk.of(Pipeline(make_spec("plain")), texts)
    starts, ends = chunk.byte_spans(5)
    seen: dict[bytes, int] = {}
    buf = chunk.buf
    for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
        seen.setdefault(buf[s:e].tobytes(), s)
    keep = np.array(sorted({(s, s + len(b)) for b, s in seen.items()}), dtype=np.int64)
    return buf, keep[:, 0].copy(), keep[:, 1].copy()


def md5_rows(texts: list[str], repeat: int) -> tuple[str, dict[str, float]]:
    from neardup._kernels.md5 import md5_spans

    buf, starts, ends = shingle_spans(texts)
    pieces = [buf[s:e].tobytes() for s, e in zip(starts.tolist(), ends.tolist(), strict=True)]
    hi, lo = md5_spans(buf, starts, ends)
    ours = [(int(h) << 64) | int(low) for h, low in zip(hi.tolist(), lo.tolist(), strict=True)]
    theirs = [int.from_bytes(hashlib.md5(p).digest(), "big") for p in pieces]
    if ours != theirs:
        raise SystemExit("the MD5 kernel disagrees with hashlib")
    n = len(pieces)
    kernel = n / best_cpu(lambda: md5_spans(buf, starts, ends), repeat)
    python = n / best_cpu(lambda: [hashlib.md5(p).digest() for p in pieces], repeat)
    mean_bytes = float(np.mean(ends - starts))
    lines = [
        f"{n:,} distinct shingles, {mean_bytes:.0f} bytes on average; every digest equal.",
        "",
        "| MD5 of each shingle | shingles per CPU s | relative |",
        "|---|---:|---:|",
        f"| neardup kernel, one call (`md5_spans`) | {kernel:,.0f} | {kernel / python:.2f}× |",
        f"| `hashlib.md5(bytes).digest()` per shingle | {python:,.0f} | 1.00× |",
    ]
    return "\n".join(lines), {"kernel": kernel, "hashlib": python, "shingles": n}


def update_docs(markdown: str) -> None:
    rewrite_section(
        ROOT / "docs" / "benchmarks.md",
        f"<!-- section: {SECTION} -->",
        f"<!-- end: {SECTION} -->",
        markdown,
        missing_before="## History",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--docs", type=int, default=2000, help="documents of ru_news (2000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs, best kept (3)")
    parser.add_argument("--update-docs", action="store_true", help="rewrite the docs section")
    args = parser.parse_args(argv)
    before = loadavg()
    texts = load(args.docs)
    minhash, _ = minhash_rows(texts, args.repeat)
    md5, _ = md5_rows(texts, args.repeat)
    after = loadavg()
    command = "`.venv/bin/python benchmarks/seed_rows.py" + (
        f" --docs {args.docs}" if args.docs != 2000 else ""
    )
    markdown = f"""## Seed rows: MinHash families, MD5 (issue 16)

The first {len(texts):,} documents of `../shared/data/ru_news.jsonl.gz`; CPU time, best of
{args.repeat}; load average {before} before, {after} after. Rerun (and rewrite this section):
{command} --update-docs`.

Raw text → 128 MinHash values (`plain`, rabin 64, word 5-shingles), the default family and the
classic `(a·x + b) mod 2^61−1` one (`SketchSpec(family="affine")`, docs/sketches.md):

{minhash}

MD5 of the canonical bytes of each distinct word 5-shingle (the 128-bit fingerprints of
`neardup collisions --families md5`, docs/collisions.md), our numba kernel against Python's
`hashlib`:

{md5}
"""
    print(markdown)
    if args.update_docs:
        update_docs(markdown)
        print("docs/benchmarks.md updated")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

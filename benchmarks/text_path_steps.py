"""CPU time per document of each stage of the text → fingerprints → signature path.

On the first ``--limit`` documents of ../shared/data/ru_news.jsonl.gz (default 2,000), one
process, one thread, for one preset (default ``plain``) and family (default rabin 64):

* ``canonical``: ``Pipeline.canonical(text)``;
* ``shingles``: ``shingle(canonical, …)`` on the canonical streams made above;
* ``from_hashes``: ``Fingerprints.from_hashes`` of the shingle hashes made above;
* ``fingerprints``: ``Pipeline.fingerprints(text)`` end to end;
* ``sign_texts``: ``MinHasher.sign_texts`` (128 functions) in batches of 256, end to end.

Each stage runs ``--repeat`` times; the median of the process CPU times is printed (the machine
is shared: CPU time, not wall time, and the median, not one run).

    .venv/bin/python benchmarks/text_path_steps.py --repeat 5
    .venv/bin/python benchmarks/text_path_steps.py --preset ru --limit 500
"""

from __future__ import annotations

import os

for _var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import gzip
import itertools
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ru_news.jsonl.gz"


def load(limit: int) -> list[str]:
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        return [json.loads(line).get("text") or "" for line in itertools.islice(fh, limit)]


def median_cpu(func: Callable[[], object], repeat: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeat):
        t = time.process_time()
        func()
        times.append(time.process_time() - t)
    return statistics.median(times), times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--preset", default="plain")
    parser.add_argument("--family", default="rabin")
    parser.add_argument("--bits", type=int, default=64)
    parser.add_argument(
        "--stages", default="canonical,shingles,from_hashes,fingerprints,sign_texts"
    )
    args = parser.parse_args(argv)
    from neardup.fingerprints.pipeline import Pipeline, make_spec
    from neardup.fingerprints.shingles import shingle
    from neardup.fingerprints.similarity import Fingerprints
    from neardup.sketch.minhash import MinHasher
    from neardup.spec import SketchSpec

    texts = load(args.limit)
    spec = make_spec(args.preset, family=args.family, bits=args.bits)
    pipeline = Pipeline(spec)
    hasher = MinHasher(spec.replace(sketch=SketchSpec(num_perm=128)))
    for text in texts[:20]:
        pipeline.fingerprints(text)
    hasher.sign_texts(texts[:20])
    canon = [pipeline.canonical(t) for t in texts]
    hashes = [shingle(c, spec.shingles, pipeline.family).hashes for c in canon]
    multiset = spec.fingerprint_family.multiset

    def sign() -> None:
        for i in range(0, len(texts), 256):
            hasher.sign_texts(texts[i : i + 256])

    stages: dict[str, Callable[[], object]] = {
        "canonical": lambda: [pipeline.canonical(t) for t in texts],
        "shingles": lambda: [shingle(c, spec.shingles, pipeline.family) for c in canon],
        "from_hashes": lambda: [Fingerprints.from_hashes(h, multiset=multiset) for h in hashes],
        "fingerprints": lambda: [pipeline.fingerprints(t) for t in texts],
        "sign_texts": sign,
    }
    n = len(texts)
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    print(
        f"{n} documents ({mb:.1f} MB), preset {args.preset}, {args.family} {args.bits}, "
        f"{np.mean([h.shape[0] for h in hashes]):.0f} shingles per document; "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    for name in args.stages.split(","):
        med, times = median_cpu(stages[name], args.repeat)
        print(
            f"  {name:13s} {med / n * 1e6:8.1f} µs/doc  {mb / med:7.1f} MB/s per CPU s   "
            f"(runs: {', '.join(f'{t / n * 1e6:.0f}' for t in times)})",
            flush=True,
        )
    print(f"load average after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

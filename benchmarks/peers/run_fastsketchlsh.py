"""FastSketchLSH's whole dedup job: Fast Similarity Sketches (Dahlgaard, Knudsen and Thorup)
of each document's word 5-gram set (``FastSimilaritySketch.batch``, 2,000 documents at a
time), its banded ``LSH`` index (``insert``), every document's candidates (``query`` of the
whole matrix), and each candidate pair kept when ``estimate_jaccard`` reaches the threshold, as
rensa's deduplicator checks its candidates.
FastSketchLSH has no tokenizer and no band chooser: the words are ``_common.shingles``, the
bands and rows come from the parent (datasketch's optimal parameters for the threshold, 14 × 9
at 0.7: 126 sketch values, so that the bands cover the sketch). Threads: its OpenMP calls are
given ``--jobs``.

Runs in its own venv: ``build/peers/fastsketchlsh/bin/python benchmarks/peers/run_fastsketchlsh.py
...``.
"""

from __future__ import annotations

import time
from importlib.metadata import version

import _common
import numpy as np
from FastSketchLSH import LSH, FastSimilaritySketch, estimate_jaccard


def main() -> None:
    args = _common.parse_args(__doc__.splitlines()[0])
    steps = _common.Steps()
    num_perm = args.bands * args.rows
    sketcher = FastSimilaritySketch(size=num_perm, seed=42)
    ids: list[str] = []
    parts = []
    tokenize = sign = 0.0
    for batch_ids, texts in _common.batches(args.corpus):
        t0 = time.perf_counter()
        tokens = [_common.shingles(t) for t in texts]
        t1 = time.perf_counter()
        parts.append(np.asarray(sketcher.batch(tokens, num_threads=args.jobs), dtype=np.uint64))
        sign += time.perf_counter() - t1
        tokenize += t1 - t0
        ids += batch_ids
    sketches = np.ascontiguousarray(np.concatenate(parts))
    steps.lap("read+tokenize+sign")
    steps.info.update(tokenize_s=round(tokenize, 2), sign_s=round(sign, 2))
    lsh = LSH(num_perm=num_perm, num_bands=args.bands, num_threads=args.jobs)
    lsh.insert(sketches)
    candidates = lsh.query(sketches)
    steps.lap("lsh")
    checked = 0
    pairs = []
    for i, j in _common.unique_pairs(enumerate(candidates)):
        checked += 1
        if estimate_jaccard(sketches[i], sketches[j]) >= args.threshold:
            pairs.append((i, j))
    steps.lap("check")
    n = _common.write_pairs(args.out, ids, pairs)
    steps.lap("write")
    steps.info.update(
        version=version("fastsketchlsh"),
        reports="pairs",
        bands_rows=f"{args.bands}x{args.rows}",
        candidate_pairs=checked,
        pairs=n,
    )
    steps.done()


if __name__ == "__main__":
    main()

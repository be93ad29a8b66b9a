"""rensa's whole dedup job: R-MinHash signatures of each document's word 5-gram set
(``RMinHash.from_token_sets``, a batch of 2,000 documents at a time), an ``RMinHashLSH`` index
(``insert_many``), every document's candidates (``query_all``), and each candidate pair kept
when ``is_similar`` (the estimated Jaccard against the index's threshold) says so, as rensa's
deduplicator checks its candidates.
rensa has no tokenizer and no band chooser: the words are ``_common.shingles``, the bands
and rows come from the parent (datasketch's optimal parameters for the threshold, 14 × 9 at
0.7: 126 functions, since rensa's index needs bands × rows to be the signature length).
Threads: rensa's batch calls use Rayon, which the parent limits with ``RAYON_NUM_THREADS``.

Runs in rensa's own venv: ``build/peers/rensa/bin/python benchmarks/peers/run_rensa.py ...``.
"""

from __future__ import annotations

import time
from importlib.metadata import version

import _common
import rensa


def main() -> None:
    args = _common.parse_args(__doc__.splitlines()[0])
    steps = _common.Steps()
    # rensa's index wants the signature length a multiple of the bands: bands × rows of the
    # 128 (126 for 14 × 9)
    num_perm = args.bands * args.rows
    ids: list[str] = []
    minhashes = []
    tokenize = sign = 0.0
    for batch_ids, texts in _common.batches(args.corpus):
        t0 = time.perf_counter()
        tokens = [_common.shingles(t) for t in texts]
        t1 = time.perf_counter()
        minhashes += rensa.RMinHash.from_token_sets(tokens, num_perm, 42)
        sign += time.perf_counter() - t1
        tokenize += t1 - t0
        ids += batch_ids
    steps.lap("read+tokenize+sign")
    steps.info.update(tokenize_s=round(tokenize, 2), sign_s=round(sign, 2))
    lsh = rensa.RMinHashLSH(args.threshold, num_perm, args.bands)
    lsh.insert_many(minhashes)
    candidates = lsh.query_all(minhashes)
    steps.lap("lsh")
    checked = 0
    pairs = []
    for i, j in _common.unique_pairs(enumerate(candidates)):
        checked += 1
        if lsh.is_similar(minhashes[i], minhashes[j]):
            pairs.append((i, j))
    steps.lap("check")
    n = _common.write_pairs(args.out, ids, pairs)
    steps.lap("write")
    steps.info.update(
        version=version("rensa"),
        reports="pairs",
        bands_rows=f"{args.bands}x{args.rows}",
        candidate_pairs=checked,
        pairs=n,
    )
    steps.done()


if __name__ == "__main__":
    main()

"""datasketch's whole dedup job: ``MinHash.bulk`` over each document's word 5-gram set
(UTF-8 bytes, its default SHA-1 hashing, 128 permutations; a batch of 2,000 documents at a
time) into ``LeanMinHash`` objects, a ``MinHashLSH(threshold, num_perm)`` with its own optimal
bands and rows, filled in an ``insertion_session``, and every document queried; a pair is a
document and any other its query returns (datasketch's LSH answer, unverified, as its users
take it). datasketch has no tokenizer (the words are ``_common.shingles``) and runs in one process.

Runs in datasketch's own venv: ``build/peers/datasketch/bin/python
benchmarks/peers/run_datasketch.py ...``.
"""

from __future__ import annotations

import time
from importlib.metadata import version

import _common
from datasketch import LeanMinHash, MinHash, MinHashLSH


def main() -> None:
    args = _common.parse_args(__doc__.splitlines()[0])
    steps = _common.Steps()
    ids: list[str] = []
    minhashes: list[LeanMinHash] = []
    tokenize = sign = 0.0
    for batch_ids, texts in _common.batches(args.corpus):
        t0 = time.perf_counter()
        tokens = [[s.encode("utf-8") for s in _common.shingles(t)] for t in texts]
        t1 = time.perf_counter()
        minhashes += [LeanMinHash(m) for m in MinHash.bulk(tokens, num_perm=args.num_perm)]
        sign += time.perf_counter() - t1
        tokenize += t1 - t0
        ids += batch_ids
    steps.lap("read+tokenize+sign")
    steps.info.update(tokenize_s=round(tokenize, 2), sign_s=round(sign, 2))
    lsh = MinHashLSH(threshold=args.threshold, num_perm=args.num_perm)
    with lsh.insertion_session() as session:
        for i, m in enumerate(minhashes):
            session.insert(i, m, check_duplication=False)
    found = ((i, lsh.query(m)) for i, m in enumerate(minhashes))
    n = _common.write_pairs(args.out, ids, _common.unique_pairs(found))
    steps.lap("lsh+write")
    steps.info.update(
        version=version("datasketch"), reports="pairs", bands_rows=f"{lsh.b}x{lsh.r}", pairs=n
    )
    steps.done()


if __name__ == "__main__":
    main()

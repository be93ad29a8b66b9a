"""datasketch's whole dedup job: ``MinHash.bulk`` over each document's word 5-gram set (UTF-8
bytes, its default SHA-1 hashing, 128 permutations) into ``LeanMinHash`` objects, a
``MinHashLSH(threshold, num_perm)`` with its own optimal bands and rows, filled in an
``insertion_session``, and every document queried; a pair is a document and any other its
query returns (datasketch's LSH answer, unverified, as its users take it). datasketch has no
tokenizer (the words are ``_common.shingles``) and runs in one process.

Runs in datasketch's own venv: ``build/peers/datasketch/bin/python
benchmarks/peers/run_datasketch.py ...``.
"""

from __future__ import annotations

from importlib.metadata import version

import _common
from datasketch import LeanMinHash, MinHash, MinHashLSH


def main() -> None:
    args = _common.parse_args(__doc__.splitlines()[0])
    steps = _common.Steps()
    ids, texts = _common.read_jsonl(args.corpus)
    steps.lap("read")
    tokens = [[s.encode("utf-8") for s in _common.shingles(t)] for t in texts]
    del texts
    steps.lap("tokenize")
    minhashes = [LeanMinHash(m) for m in MinHash.bulk(tokens, num_perm=args.num_perm)]
    del tokens
    steps.lap("sign")
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

"""gaoya's whole dedup job: a ``MinHashStringIndex`` with its own word tokenizer (lowercase,
word 5-grams), 128 hashes and its own bands and rows for the threshold (its S-curve choice
when ``num_bands`` and ``band_size`` are not given), every document inserted with
``par_bulk_insert_docs`` and queried with ``par_bulk_query`` (each query signs its text again
and returns the indexed documents whose estimated Jaccard is at least the threshold). Threads:
Rayon, limited by the parent with ``RAYON_NUM_THREADS``.

Runs in gaoya's own venv: ``build/peers/gaoya/bin/python benchmarks/peers/run_gaoya.py ...``.
"""

from __future__ import annotations

import re
from importlib.metadata import version

import _common
from gaoya.minhash import MinHashStringIndex


def main() -> None:
    args = _common.parse_args(__doc__.splitlines()[0])
    steps = _common.Steps()
    ids, texts = _common.read_jsonl(args.corpus)
    steps.lap("read")
    index = MinHashStringIndex(
        hash_size=32,
        jaccard_threshold=args.threshold,
        num_bands=args.bands or None,
        band_size=args.rows or None,
        num_hashes=args.num_perm,
        analyzer="word",
        lowercase=True,
        ngram_range=(5, 5),
        id_container="vec",
    )
    index.par_bulk_insert_docs(list(range(len(texts))), texts)
    steps.lap("sign+insert")
    found = index.par_bulk_query(texts)
    steps.lap("query")
    n = _common.write_pairs(args.out, ids, _common.unique_pairs(enumerate(found)))
    steps.lap("write")
    shape = re.search(r"bands = (\d+), rows_per_band = (\d+)", str(index))
    steps.info.update(
        version=version("gaoya"),
        reports="pairs",
        bands_rows=f"{shape.group(1)}x{shape.group(2)}" if shape else str(index),
        pairs=n,
    )
    steps.done()


if __name__ == "__main__":
    main()

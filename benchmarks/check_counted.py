"""What counting every source costs a check: CPU time and the figure with the sources listed
only (``top``, 10) against every source found (up to ``COUNTED_SOURCES_MAX``), on real news.

A SQLite collection (the default spec and index spec, texts stored) holds the first ``--docs``
documents of ``ru_news.jsonl.gz`` with a text of 800 characters or more. Three kinds of query:

* ``held out`` — news documents not in the collection (the usual check of a new text);
* ``stored`` — documents of the collection checked again (a reprint: itself and its
  near-duplicates are matches);
* ``pasted`` — ``--pasted`` stored documents pasted whole, then a held-out document as the
  writer's own essay (a text pasted together from many sources).

Each query is checked twice in one process, alternating: with the sources listed alone
aligned (``COUNTED_SOURCES_MAX`` set to 0: how the figure was counted before, when only the
``top`` matches were aligned) and with every source counted (the default). Reported per kind:
the mean and largest CPU time of one ``Collection.check`` (``time.process_time``, after a
warm-up check), the sources counted, and the mean uniqueness both ways.

    NEARDUP_DATA=/work/shared/data .venv/bin/python benchmarks/check_counted.py --docs 3000
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from neardup.fingerprints.pipeline import default_spec
from neardup.index import Collection, checking

DATA = Path(os.environ.get("NEARDUP_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def news(path: Path, min_chars: int) -> Iterator[tuple[str, str]]:
    """``(id, text)`` of the news documents of at least ``min_chars`` characters, in order."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            text = doc.get("text") or ""
            if len(text) >= min_chars:
                yield str(doc["id"]), text


def timed(col: Collection, text: str, counted: int) -> tuple[float, float, int]:
    """CPU seconds, uniqueness and sources counted of one check under ``counted``."""
    checking.COUNTED_SOURCES_MAX = counted  # type: ignore[misc]
    start = time.process_time()
    result = col.check(text)
    return time.process_time() - start, result.uniqueness, result.sources_counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=3000, help="documents in the collection")
    parser.add_argument("--queries", type=int, default=20, help="held-out and stored queries")
    parser.add_argument("--pasted", type=int, default=30, help="documents in a pasted text")
    parser.add_argument("--pasted-texts", type=int, default=5, help="pasted texts checked")
    args = parser.parse_args()
    full = checking.COUNTED_SOURCES_MAX
    docs = news(DATA / "ru_news.jsonl.gz", 800)
    stored = [next(docs) for _ in range(args.docs)]
    held_out = [next(docs)[1] for _ in range(args.queries + args.pasted_texts)]
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        with Collection.create(str(Path(tmp) / "news.db"), default_spec()) as col:
            col.add_many(stored, policy="allow", jobs=1)
        built = time.perf_counter() - start
        step = max(1, len(stored) // args.queries)
        again = [stored[i][1] for i in range(0, len(stored), step)][: args.queries]
        pasted = [
            "\n\n".join(
                [*(stored[(7 * n + 97 * i) % len(stored)][1] for i in range(args.pasted)), own]
            )
            for n, own in enumerate(held_out[args.queries :])
        ]
        kinds = {"held out": held_out[: args.queries], "stored": again, "pasted": pasted}
        with Collection.open(str(Path(tmp) / "news.db"), readonly=True) as col:
            for counted in (0, full):  # warm-up: the analyzer's tables, the kernels
                timed(col, pasted[0], counted)
            load = os.getloadavg()[0]
            print(f"collection: {args.docs} documents, built in {built:.0f} s; load {load:.1f}")
            print(
                "| queries | n | CPU ms listed only: mean / max | every source: mean / max "
                "| sources counted: mean / max | uniqueness listed only | every source |"
            )
            print("|---|---|---|---|---|---|---|")
            for kind, texts in kinds.items():
                before, after = [], []
                for text in texts:
                    before.append(timed(col, text, 0))
                    after.append(timed(col, text, full))
                b_cpu = [1000 * t for t, _, _ in before]
                a_cpu = [1000 * t for t, _, _ in after]
                counted = [n for _, _, n in after]
                print(
                    f"| {kind} | {len(texts)} | {statistics.mean(b_cpu):.0f} / {max(b_cpu):.0f} "
                    f"| {statistics.mean(a_cpu):.0f} / {max(a_cpu):.0f} "
                    f"| {statistics.mean(counted):.1f} / {max(counted)} "
                    f"| {100 * statistics.mean(u for _, u, _ in before):.1f} % "
                    f"| {100 * statistics.mean(u for _, u, _ in after):.1f} % |"
                )
            print(f"load at the end: {os.getloadavg()[0]:.1f}")
    checking.COUNTED_SOURCES_MAX = full  # type: ignore[misc]


if __name__ == "__main__":
    main()

"""What the peer runners of ``benchmarks/dedup_peers.py`` share: their command line, reading
the JSONL as a user of each library would, the word shingles of the libraries that take
tokens from their caller, and the pairs or clusters file they write.

Standard library only: each runner runs in its peer's own venv (``build/peers/<name>/``),
which has that library and nothing of neardup.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

#: Words for the libraries without a tokenizer of their own (rensa, datasketch): runs of
#: letters, digits and underscores of the lowercased text, the nearest one-line equivalent
#: of neardup's ``plain`` words (which also keep hyphenated words whole).
WORD = re.compile(r"\w+")


def parse_args(description: str) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True, help="the pairs or clusters file")
    ap.add_argument("--work", type=Path, required=True, help="a scratch folder of this run")
    ap.add_argument("--threshold", type=float, default=0.7)
    ap.add_argument("--num-perm", type=int, default=128)
    ap.add_argument("--bands", type=int, default=0, help="0: the library's own choice")
    ap.add_argument("--rows", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    return ap.parse_args()


def read_jsonl(path: Path) -> tuple[list[str], list[str]]:
    """Ids and texts of every record, one ``json.loads`` a line."""
    ids: list[str] = []
    texts: list[str] = []
    for batch_ids, batch_texts in batches(path):
        ids += batch_ids
        texts += batch_texts
    return ids, texts


def batches(path: Path, size: int = 2000) -> Iterator[tuple[list[str], list[str]]]:
    """The records in batches of ``size`` (ids, texts): the way to feed a batch API a corpus
    larger than its token lists can be held at once (a whole 100,000-document corpus as
    Python lists of shingle strings would take about 10 GB)."""
    ids: list[str] = []
    texts: list[str] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                record = json.loads(line)
                ids.append(str(record["id"]))
                texts.append(record.get("text") or "")
                if len(ids) == size:
                    yield ids, texts
                    ids, texts = [], []
    if ids:
        yield ids, texts


def shingles(text: str, k: int = 5) -> list[str]:
    """Distinct lowercased word ``k``-grams (the whole text as one when it is shorter)."""
    words = WORD.findall(text.lower())
    if len(words) <= k:
        return [" ".join(words)] if words else []
    return list({" ".join(words[i : i + k]) for i in range(len(words) - k + 1)})


def write_pairs(path: Path, ids: list[str], pairs: Iterable[tuple[int, int]]) -> int:
    """Tab-separated id pairs, one a line; their count."""
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for a, b in pairs:
            fh.write(f"{ids[a]}\t{ids[b]}\n")
            n += 1
    return n


def write_clusters(path: Path, clusters: Iterable[list[str]]) -> int:
    """Clusters of two or more ids, tab-separated, one a line; their count."""
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for members in clusters:
            if len(members) > 1:
                fh.write("\t".join(members) + "\n")
                n += 1
    return n


def unique_pairs(found: Iterable[tuple[int, Iterable[int]]]) -> Iterator[tuple[int, int]]:
    """Each unordered pair once, from (query, results) rows; a document never pairs itself."""
    seen: set[tuple[int, int]] = set()
    for i, results in found:
        for j in results:
            j = int(j)
            if j == i:
                continue
            pair = (i, j) if i < j else (j, i)
            if pair not in seen:
                seen.add(pair)
                yield pair


class Steps:
    """Wall seconds of the runner's steps, printed as one JSON line with ``info`` at the end
    (the parent measures CPU, wall and memory of the whole process from outside)."""

    def __init__(self) -> None:
        self.info: dict[str, Any] = {"steps": {}}
        self._t = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.info["steps"][name] = round(now - self._t, 2)
        self._t = now

    def done(self) -> None:
        print(json.dumps(self.info), flush=True)
        sys.stdout.flush()

"""Child process of the kill probe: adds or removes documents, printing what is committed.

Usage: ``python -m tests.index._kill_child LOCATION add FIRST COUNT [TAIL_MIN]`` — bulk-add
documents ``FIRST … FIRST+COUNT-1`` (``TAIL_MIN``: SQLite merges its postings tail that often),
printing ``ack ID`` once each batch is committed; ``… LOCATION remove IDS_FILE`` — remove the
ids listed in the file, two per call, printing ``gone ID`` once each call returned.
"""

from __future__ import annotations

import sys

from neardup.index import Collection
from neardup.storage import backend_of
from neardup.storage.sqlite import SQLiteStorage
from tests import _textgen as tg


def doc_text(i: int) -> str:
    """Document ``i``: every third one a near-duplicate of an earlier one, so groups form."""
    if i % 3 == 2:
        return tg.edit(tg.text(300, i - 2), 0.03, i)
    return tg.text(300, i)


def _open(location: str, tail_min: int | None) -> Collection:
    if tail_min is not None and backend_of(location) == "sqlite":
        return Collection.open(SQLiteStorage(location, tail_min=tail_min))
    return Collection.open(location)


def main() -> None:
    location, mode = sys.argv[1], sys.argv[2]
    tail_min = int(sys.argv[5]) if len(sys.argv) > 5 else None
    col = _open(location, tail_min)
    col.check(doc_text(0))  # load the compiled kernels before the clock starts
    print("ready", flush=True)
    if mode == "add":
        first, count = int(sys.argv[3]), int(sys.argv[4])
        items = ((f"doc{i}", doc_text(i), {"i": i}) for i in range(first, first + count))
        for dec in col.iter_add(items, batch_size=8):
            print(f"ack {dec.id}", flush=True)
    else:
        with open(sys.argv[3], encoding="utf-8") as fh:
            ids = fh.read().split()
        for start in range(0, len(ids), 2):
            chunk = ids[start : start + 2]
            col.remove(chunk)
            for doc_id in chunk:
                print(f"gone {doc_id}", flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    main()

"""Child process of the kill test: bulk-adds documents, printing each id once it is committed.

Usage: python -m tests.index._kill_child DB FIRST COUNT
"""

from __future__ import annotations

import sys

from neardup.index import Collection
from tests import _textgen as tg


def doc_text(i: int) -> str:
    """Document ``i``: every third one a near-duplicate of an earlier one, so groups form."""
    if i % 3 == 2:
        return tg.edit(tg.text(300, i - 2), 0.03, i)
    return tg.text(300, i)


def main() -> None:
    db, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    col = Collection.open(db)
    col.check(doc_text(first))  # load the compiled kernels before the clock starts
    print("ready", flush=True)
    items = ((f"doc{i}", doc_text(i), {"i": i}) for i in range(first, first + count))
    for dec in col.iter_add(items, batch_size=8):
        print(f"ack {dec.id}", flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    main()

"""The full kill probe (issue 11): at least 100 SIGKILLs per backend during add, merge, remove.

    .venv/bin/python benchmarks/kill_probe.py --kills 102 [--backend sqlite|postgres|both]

Each round starts a child that adds documents never stored before, adds with SQLite's
postings tail kept tiny (so batches merge it into the B-tree), or removes stored documents,
and SIGKILLs it at a random moment while it works (tests/index/_kill_probe.py; the default
test run does 10 per backend). At the end every acknowledged document is checked byte for byte
(text, meta, fingerprints), every acknowledged removal is checked gone, and
``verify_integrity()`` must find nothing. Prints the counts (kept in docs/collection.md).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from neardup.fingerprints.pipeline import make_spec  # noqa: E402
from neardup.index import Collection, IndexSpec  # noqa: E402
from tests.index._kill_probe import check, probe  # noqa: E402

PG_URL = os.environ.get("NEARDUP_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")


def run(location: str, kills: int) -> bool:
    Collection.create(
        location, make_spec("plain"), IndexSpec(policy="group", threshold=0.5)
    ).close()
    t0 = time.perf_counter()
    tally = probe(location, kills, verbose=True)
    problems = check(location, tally)
    print(
        f"{location.split('?')[0]}: {sum(tally.kills.values())} kills in live children "
        f"(add {tally.kills['add']}, merge {tally.kills['merge']}, "
        f"remove {tally.kills['remove']}); "
        f"{tally.finished} children finished before their kill; {tally.added} adds and "
        f"{len(tally.removed)} removals acknowledged, {len(tally.present)} documents checked "
        f"byte for byte; problems: {len(problems)}; {time.perf_counter() - t0:.0f} s",
        flush=True,
    )
    for p in problems[:20]:
        print(f"  {p}", flush=True)
    return not problems


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kills", type=int, default=102)
    ap.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    args = ap.parse_args()
    ok = True
    if args.backend in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as tmp:
            ok &= run(str(Path(tmp) / "kill.db"), args.kills)
    if args.backend in ("postgres", "both"):
        import psycopg

        schema = f"kill_probe_{os.getpid()}"
        try:
            ok &= run(f"{PG_URL}?schema={schema}", args.kills)
        finally:
            with psycopg.connect(PG_URL, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

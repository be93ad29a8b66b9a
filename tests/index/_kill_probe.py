"""The kill probe: SIGKILL a child adding, removing or merging, round after round, then check.

Each round starts a child (:mod:`tests.index._kill_child`) on a collection and kills it at a
random moment while it works: an ``add`` round adds only documents never stored before (so
the kill always lands in live work), a ``merge`` round adds with SQLite's postings tail kept
tiny so nearly every batch also merges the tail into the B-tree, a ``remove`` round removes
stored documents two at a time. Afterwards every document acknowledged as added (and not
acknowledged as removed) must be there byte for byte — text, meta and fingerprints — every
document acknowledged as removed must be gone, and ``verify_integrity()`` must find nothing.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from neardup.index import Collection
from tests.index._kill_child import doc_text

ROOT = Path(__file__).resolve().parents[2]
MODES = ("add", "merge", "remove")
PER_ROUND = 5000  # more than a child can add before any kill


@dataclass
class Tally:
    """What the rounds did and what the store must now hold."""

    kills: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MODES, 0))
    finished: int = 0
    present: set[str] = field(default_factory=set)  # acknowledged added, not removed
    removed: set[str] = field(default_factory=set)  # acknowledged removed
    added: int = 0


def _child(args: list[str], delay: float) -> tuple[list[str], bool]:
    """Run the child, SIGKILL it ``delay`` s after its first commit; its output, finished?

    Waiting for the first commit (not a fixed time) keeps the kill inside live work however
    loaded the machine is; the delay after it spreads the kills over the run.
    """
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.index._kill_child", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    lines: list[str] = []
    working = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.strip())
            if line.startswith(("ack ", "gone ", "done")):
                working.set()
        working.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if not working.wait(300) or proc.poll() is not None and "done" not in lines:
        proc.kill()
        raise RuntimeError(f"the child failed: {proc.stderr.read() if proc.stderr else ''}")
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    reader.join(10)
    if proc.stderr is not None:
        proc.stderr.close()
    return lines, "done" in lines


def _round(location: str, mode: str, r: int, tally: Tally, rng: random.Random) -> None:
    delay = rng.uniform(0.0, 1.0)
    if mode == "remove":
        if len(tally.present) < 40:
            mode = "add"
        else:
            victims = rng.sample(sorted(tally.present), min(400, len(tally.present) // 2))
            delay = rng.uniform(0.0, 0.5)
            with tempfile.NamedTemporaryFile("w", suffix=".ids", delete=False) as fh:
                fh.write("\n".join(victims))
            try:
                lines, finished = _child([location, "remove", fh.name], delay)
            finally:
                os.unlink(fh.name)
            gone = {line.split(" ", 1)[1] for line in lines if line.startswith("gone ")}
            tally.present -= gone
            tally.removed |= gone
            # the call in flight: each of its ids is wholly there or wholly gone
            with Collection.open(location) as col:
                there = col.storage.keys_for_ids(sorted(set(victims) - gone))
            for doc_id in set(victims) - gone:
                if doc_id not in there:
                    tally.present.discard(doc_id)
                    tally.removed.add(doc_id)
            tally.kills["remove"] += not finished
            tally.finished += finished
            return
    tail = ["16"] if mode == "merge" else []
    lines, finished = _child([location, "add", str(r * 10_000), str(PER_ROUND), *tail], delay)
    acked = [line.split(" ", 1)[1] for line in lines if line.startswith("ack ")]
    tally.present |= set(acked)
    tally.added += len(acked)
    tally.kills[mode] += not finished
    tally.finished += finished


def check(location: str, tally: Tally, sample: int | None = None) -> list[str]:
    """Problems: acknowledged documents missing or changed, removed ones back, verify's."""
    problems: list[str] = []
    with Collection.open(location) as col:
        problems += col.verify_integrity()
        stored = col.storage.keys_for_ids(sorted(tally.present | tally.removed))
        missing = tally.present - set(stored)
        back = tally.removed & set(stored)
        if missing:
            problems.append(f"{len(missing)} acknowledged documents missing: {sorted(missing)[:5]}")
        if back:
            problems.append(f"{len(back)} removed documents present: {sorted(back)[:5]}")
        ids = sorted(tally.present & set(stored))
        if sample is not None:
            ids = random.Random(7).sample(ids, min(sample, len(ids)))
        for doc_id in ids:
            doc = col.get(doc_id)
            i = int(doc_id[3:])
            stored_fp = col.storage.fingerprints([doc.key])[0]
            if (
                doc.text != doc_text(i)
                or doc.meta != {"i": i}
                or not np.array_equal(stored_fp.values, col.analyze(doc_text(i)).values)
            ):
                problems.append(f"{doc_id} is not as acknowledged")
    return problems


def probe(location: str, kills: int, seed: int = 2026, *, verbose: bool = False) -> Tally:
    """Rounds cycling add, merge, remove until ``kills`` children were killed while working
    (a child that finished first is counted apart; PostgreSQL has no merge: add instead)."""
    rng = random.Random(seed)
    tally = Tally()
    postgres = location.startswith(("postgresql://", "postgres://"))
    r = 0
    while sum(tally.kills.values()) < kills and r < 2 * kills:
        mode = MODES[r % len(MODES)]
        if postgres and mode == "merge":
            mode = "add"
        _round(location, mode, r, tally, rng)
        r += 1
        if verbose:
            print(
                f"round {r}: kills {tally.kills}, finished {tally.finished}, "
                f"added {tally.added}, removed {len(tally.removed)}",
                flush=True,
            )
    return tally

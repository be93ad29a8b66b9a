"""Durability: SIGKILL a child doing a bulk add at random moments, 20 times, then check.

Every document the child acknowledged (printed after its batch committed) must be present and
whole (its text and meta as given, its fingerprints those of its text), and the index must be
consistent: postings are exactly the samples of the stored documents, groups are the
components of the links, no document is half-present.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from neardup.index import Collection, IndexSpec
from neardup.pipeline import make_spec
from tests.index._kill_child import doc_text

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 20
PER_ROUND = 5000


def _run_and_kill(db: Path, first: int, delay: float) -> tuple[list[str], bool]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.index._kill_child", str(db), str(first), str(PER_ROUND)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.strip())
            if line.startswith("ready"):
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if not ready.wait(60):
        proc.kill()
        pytest.fail(f"the child did not start: {proc.stderr.read() if proc.stderr else ''}")
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    reader.join(10)
    finished = "done" in lines
    return [line.split(" ", 1)[1] for line in lines if line.startswith("ack ")], finished


def test_sigkill_during_bulk_add_leaves_a_consistent_index(tmp_path: Path) -> None:
    db = tmp_path / "kill.db"
    Collection.create(db, make_spec("plain"), IndexSpec(policy="group", threshold=0.5)).close()
    rng = random.Random(2026)
    acked: list[str] = []
    finished_rounds = 0
    for r in range(ROUNDS):
        ids, finished = _run_and_kill(db, r * 10_000, rng.uniform(0.05, 0.5))
        acked += ids
        finished_rounds += finished
    assert finished_rounds < ROUNDS // 2, (
        "the child finished before the kill too often to test anything"
    )
    assert len(acked) > 100, f"only {len(acked)} documents were acknowledged in all rounds"
    with Collection.open(db) as col:
        assert col.verify_integrity() == []
        present = col.storage.keys_for_ids(acked)
        assert sorted(present) == sorted(acked), "an acknowledged document is missing"
        for doc_id in rng.sample(acked, min(200, len(acked))):
            doc = col.get(doc_id)
            i = int(doc_id[3:])
            assert doc.text == doc_text(i)
            assert doc.meta == {"i": i}
            stored = col.storage.fingerprints([doc.key])[0]
            np.testing.assert_array_equal(stored.values, col.analyze(doc_text(i)).values)
        assert len(col) >= len(acked)

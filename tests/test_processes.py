"""Workers die with their parent: a job killed outright (``kill -9`` of the parent alone, as
the OOM killer or an impatient user does) leaves no worker behind holding its output pipe.

Each test kills only the parent and then waits for every worker to be gone. The wait is a
liveness bound (a worker that never ends fails it), not a speed check: a worker ends within
``WATCH_INTERVAL`` of its parent's death on any machine, and the bound is two minutes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.corpus._corpus import records, write

ROOT = Path(__file__).resolve().parents[1]
GONE_WITHIN = 120.0


def children(pid: int) -> set[int]:
    """The live child processes of ``pid`` (Linux's ``/proc``)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text()
        found.update(int(child) for child in text.split())
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"  # a zombie has ended


def kill_parent_and_wait(parent: subprocess.Popen[str], workers: set[int]) -> None:
    assert workers, "the job started no worker"
    os.kill(parent.pid, signal.SIGKILL)  # the parent alone, not its process group
    parent.wait()
    deadline = time.monotonic() + GONE_WITHIN
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = sorted(w for w in workers if alive(w))
    for worker in left:  # do not leave them to the next test
        os.kill(worker, signal.SIGKILL)
    assert not left, f"workers {left} outlived their killed parent"


def wait_for_line(child: subprocess.Popen[str], expected: str) -> list[str]:
    assert child.stdout is not None
    lines = []
    for line in child.stdout:
        lines.append(line.strip())
        if line.strip() in (expected, "done"):
            break
    assert lines and lines[-1] == expected, f"the child never said {expected!r}: {lines}"
    return lines


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

POOL_CHILD = """
import os, sys, time
from neardup._processes import worker_pool, run_watched, start_method
import multiprocessing
kind = sys.argv[1]
if kind == "pool":
    pool = worker_pool(2)
    futures = [pool.submit(time.sleep, 600) for _ in range(4)]
    time.sleep(0.5)
    pids = list(pool._processes)
else:
    context = multiprocessing.get_context(start_method())
    workers = [context.Process(target=run_watched, args=(os.getpid(), time.sleep, 600))
               for _ in range(2)]
    for w in workers:
        w.start()
    pids = [w.pid for w in workers]
print(" ".join(map(str, pids)), flush=True)
print("ready", flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("kind", ["pool", "process"])
def test_workers_of_a_killed_parent_end(kind: str) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", POOL_CHILD, kind],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        lines = wait_for_line(child, "ready")
        workers = {int(pid) for pid in lines[-2].split()}
        assert workers <= children(child.pid)
        kill_parent_and_wait(child, workers)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()


def test_dedup_workers_end_with_their_parent(tmp_path: Path) -> None:
    """``neardup dedup --jobs 2`` killed while its workers sign."""
    corpus = write(tmp_path / "in.jsonl", records(120))
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.corpus._kill_child", str(corpus), str(tmp_path / "out")]
        + ["2", "sign"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        wait_for_line(child, "at sign")
        kill_parent_and_wait(child, children(child.pid))
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()

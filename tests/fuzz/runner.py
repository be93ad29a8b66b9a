"""Runs fuzz cases in worker processes that the parent bounds from outside.

A worker is a spawned process that first warms the kernels (runs one case of each command with
no limit of any kind, so numba compiles, or loads from its cache, what the cases will use),
then takes cases one at a time and answers each with its outcome and the peak memory the
case reached. Nothing in a worker sets an alarm: the parent waits for an answer up to the hang
limit (generous: it only catches a real hang) and, past it, kills the whole worker and starts
a new one. So no case can interrupt a compilation that a later case in the same process would
then find half done (issue 22's flaky "no compiled object yet").

Peak memory per case: the worker resets the kernel's high-water mark of its resident memory
(``/proc/self/clear_refs``) before a case and reads ``VmHWM`` after it; processes the case
started count through ``RUSAGE_CHILDREN``.
"""

from __future__ import annotations

import multiprocessing
import re
import resource
import time
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from tests.fuzz.harness import Outcome, Tally, run_case
from tests.fuzz.makers import cases

#: Seconds a case may run before its worker is taken for hung (compilations are warmed first,
#: so a case that takes this long is stuck, not slow).
HANG_LIMIT = 600.0
#: Seconds the warm-up may take (it compiles every kernel on an empty numba cache).
WARM_LIMIT = 3600.0


def _reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _peak() -> int:
    """The peak resident bytes of this process since the last reset, and of its waited
    children."""
    own = 0
    try:
        status = Path("/proc/self/status").read_text()
        found = re.search(r"VmHWM:\s+(\d+) kB", status)
        own = int(found.group(1)) * 1024 if found else 0
    except OSError:
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return own


def _input_bytes(argv: list[str]) -> int:
    total = 0
    for arg in argv:
        path = Path(arg)
        try:
            if path.is_file() and not arg.startswith("/proc") and not arg.startswith("/dev"):
                total += path.stat().st_size
            elif path.is_dir() and len(path.parts) > 2:
                total += sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        except OSError:
            continue
    return total


def _warm(folder: Path) -> None:
    """One case of every kind with valid input, run before any limit applies."""
    from tests.fuzz.library import run_special

    folder.mkdir(parents=True, exist_ok=True)
    text = folder / "warm.txt"
    text.write_text("парк город река дом улица школа учитель ученик книга газета " * 8)
    english = folder / "warm-en.txt"
    english.write_text("the park city river house street school teacher book paper " * 8)
    corpus = folder / "warm.jsonl"
    corpus.write_text(
        "".join(
            f'{{"id": "d{i}", "text": "{("парк город река дом " * 6)} {i}"}}\n' for i in range(6)
        )
    )
    db, pmbf = str(folder / "warm.db"), str(folder / "warm.pmbf")
    for argv in (
        ["compare", str(text), str(english)],
        ["compare", str(text), str(text), "--fragments", "--json"],
        ["compare", str(text), str(english), "--preset", "plain", "--unit", "char"],
        ["analyze", str(text)],
        ["matrix", str(text), str(english), str(corpus)],
        ["matrix", str(text), str(english), "-m", "minhash"],
        ["sign", str(corpus), "-o", str(folder / "sig"), "--force", "-q"],
        ["index", "create", db],
        ["index", "add", db, str(corpus)],
        ["index", "check", db, str(text), "--fragments"],
        ["dedup", str(corpus), "--out", str(folder / "dd"), "--overwrite"],
        ["bloom", "build", str(corpus), "-o", pmbf],
        ["bloom", "query", pmbf, str(text)],
        ["params", "--bands", "6", "--rows", "14"],
    ):
        run_case(argv)
    for api in ("compare", "pipeline", "collection_add", "collection_check", "aligner"):
        run_special(["@library", api, "bytes"])


def _worker(conn: Connection, folder: str) -> None:
    import uvicorn

    def no_server(*args: Any, **kwargs: Any) -> None:
        """``serve`` cases test the arguments, not a server."""

    uvicorn.run = no_server
    from tests.fuzz.library import run_special

    _warm(Path(folder) / "warm")
    conn.send("ready")
    while True:
        argv = conn.recv()
        if argv is None:
            return
        resettable = _reset_peak()
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        if argv[0].startswith("@"):
            outcome = run_special(argv)
        else:
            outcome = run_case(argv)
        outcome.input_bytes = _input_bytes(argv)
        after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        outcome.peak = max(_peak() if resettable else 0, after if after > children else 0)
        conn.send(outcome)


class Worker:
    """One worker process and the end of its pipe."""

    def __init__(self, folder: Path) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_worker, args=(theirs, str(folder)), daemon=True)
        self.process.start()
        theirs.close()
        if not self.conn.poll(WARM_LIMIT) or self.conn.recv() != "ready":
            self.stop()
            raise RuntimeError(f"a fuzz worker did not warm up in {WARM_LIMIT:.0f} s")
        self.case: list[str] | None = None
        self.started = 0.0

    def send(self, argv: list[str]) -> None:
        self.case, self.started = argv, time.monotonic()
        self.conn.send(argv)

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()


def run(
    seed: int,
    count: int,
    folder: Path,
    *,
    workers: int = 1,
    hang_limit: float = HANG_LIMIT,
    on_outcome: Callable[[Outcome], None] | None = None,
) -> Tally:
    """Run COUNT seeded cases in WORKERS processes and tally how each ended."""
    made = cases(seed, count, folder, lanes=workers)
    return run_cases(made, folder, workers=workers, hang_limit=hang_limit, on_outcome=on_outcome)


def run_cases(
    argvs: Iterable[list[str]],
    folder: Path,
    *,
    workers: int = 1,
    hang_limit: float = HANG_LIMIT,
    on_outcome: Callable[[Outcome], None] | None = None,
) -> Tally:
    """Run the cases ``argvs`` (case ``i`` in worker ``i % workers``) and tally them."""
    tally = Tally()
    pool = [Worker(folder / f"worker{i}") for i in range(workers)]
    try:
        for index, argv in enumerate(argvs):
            lane = index % workers
            _finish(pool, lane, folder, tally, hang_limit, on_outcome)
            pool[lane].send(argv)
        for lane in range(workers):
            _finish(pool, lane, folder, tally, hang_limit, on_outcome)
    finally:
        for worker in pool:
            if worker.process.is_alive():
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
                worker.process.join(timeout=30)
            worker.stop()
    return tally


def _finish(
    pool: list[Worker],
    lane: int,
    folder: Path,
    tally: Tally,
    hang_limit: float,
    report: Callable[[Outcome], None] | None,
) -> None:
    """Wait for lane's case (if one runs) within the hang limit; a hung worker is replaced."""
    worker = pool[lane]
    if worker.case is None:
        return
    left = max(0.0, worker.started + hang_limit - time.monotonic())
    ready = wait([worker.conn, worker.process.sentinel], timeout=left)
    if worker.conn in ready:
        outcome: Outcome = worker.conn.recv()
    elif ready:  # the worker died: a crash of the interpreter itself (a segfault, an abort)
        code = worker.process.exitcode
        outcome = Outcome(worker.case, None, "traceback", f"the worker died (exit {code})")
    else:
        outcome = Outcome(worker.case, None, "hang", f"no answer in {hang_limit:.0f} s")
    worker.case = None
    tally.add(outcome)
    if report is not None:
        report(outcome)
    if outcome.verdict in ("hang",) or not worker.process.is_alive():
        worker.stop()
        pool[lane] = Worker(folder / f"worker{lane}")

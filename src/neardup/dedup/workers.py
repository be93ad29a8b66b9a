"""Tasks run in worker processes, their results taken in task order."""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any


def map_in_order(tasks: Iterable[tuple[Any, ...]], jobs: int, store: Any, warm_up: Any) -> None:
    """Run ``(function, *arguments)`` tasks in ``jobs`` processes (here when 1, or when there is
    only one task: a process would only add its start), at most ``2 · jobs`` at a time, and
    ``store`` each result in task order."""
    import multiprocessing

    todo = iter(tasks)
    ahead = [task for task in (next(todo, None), next(todo, None)) if task is not None]
    tasks = _chain(ahead, todo)
    # a daemonic process (a worker of a pool) may not start processes: it does the work itself
    if jobs == 1 or len(ahead) < 2 or multiprocessing.current_process().daemon:
        for fn, *args in tasks:
            store(fn(*args))
        return
    warm_up()
    method = "fork" if sys.platform.startswith("linux") else "spawn"
    pool: Executor = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method))
    pending: deque[Future[Any]] = deque()
    try:
        for fn, *args in tasks:
            pending.append(pool.submit(fn, *args))
            if len(pending) >= 2 * jobs:
                store(pending.popleft().result())
        while pending:
            store(pending.popleft().result())
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


def _chain(
    ahead: list[tuple[Any, ...]], rest: Iterable[tuple[Any, ...]]
) -> Iterator[tuple[Any, ...]]:
    yield from ahead
    yield from rest

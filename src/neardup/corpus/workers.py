"""Tasks run in worker processes, their results taken in task order."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from typing import Any

from neardup._processes import worker_pool


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
    pool: Executor = worker_pool(jobs)
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


def map_unordered(
    tasks: Sequence[tuple[Any, ...]], jobs: int, store: Any, *, weights: Sequence[int] | None = None
) -> None:
    """Run ``(function, *arguments)`` tasks in ``jobs`` processes (here when 1 or one task),
    the heaviest first by ``weights`` so no large task is left to run alone at the end, and
    ``store(index, result)`` each as it finishes. Every task is submitted at once: for tasks
    whose arguments and results are small."""
    import multiprocessing

    order = sorted(range(len(tasks)), key=lambda i: -weights[i]) if weights else range(len(tasks))
    if jobs == 1 or len(tasks) < 2 or multiprocessing.current_process().daemon:
        for index in order:
            fn, *args = tasks[index]
            store(index, fn(*args))
        return
    pool: Executor = worker_pool(jobs)
    pending: dict[Future[Any], int] = {}
    try:
        for index in order:
            fn, *args = tasks[index]
            pending[pool.submit(fn, *args)] = index
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                store(pending.pop(future), future.result())
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


def _chain(
    ahead: list[tuple[Any, ...]], rest: Iterable[tuple[Any, ...]]
) -> Iterator[tuple[Any, ...]]:
    yield from ahead
    yield from rest

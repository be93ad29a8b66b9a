"""Pools of worker processes that die with their parent.

A worker of :class:`~concurrent.futures.ProcessPoolExecutor` waits on its task pipe and a
lock; when its parent is killed outright (``kill -9``, the OOM killer) nothing tells it, so it
waits forever, holding the parent's stdout and stderr — and whatever reads the job's output
(a shell pipe, a scheduler) hangs with it. Each worker here starts a watcher thread that looks
at its parent's process id twice a second and ends the worker at once when the parent is gone
(the worker is re-parented, so ``os.getppid()`` changes). Linux's ``PR_SET_PDEATHSIG`` is not
used: it fires when the *thread* that forked the worker ends, and pools fork from whichever
thread submits first.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

#: Seconds between two looks at the parent: a worker outlives a killed parent by at most this.
WATCH_INTERVAL = 0.5


def start_method() -> str:
    """``fork`` on Linux (a worker starts in milliseconds with the parent's compiled kernels and
    warmed analyzer), ``spawn`` elsewhere."""
    return "fork" if sys.platform.startswith("linux") else "spawn"


def worker_pool(jobs: int) -> ProcessPoolExecutor:
    """``jobs`` worker processes, each ending itself when this process is gone."""
    return ProcessPoolExecutor(
        jobs,
        mp_context=multiprocessing.get_context(start_method()),
        initializer=watch_parent,
        initargs=(os.getpid(),),
    )


def watch_parent(parent: int) -> None:
    """Run in a worker as it starts: end the worker when ``parent`` is no longer its parent."""
    if os.getppid() != parent:  # the parent died between the fork and this call
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(WATCH_INTERVAL)
            if os.getppid() != parent:
                os._exit(1)  # no clean-up: the parent that would collect the results is gone

    threading.Thread(target=watch, name="neardup-parent-watch", daemon=True).start()


def run_watched(parent: int, target: Callable[..., object], *args: object) -> None:
    """The body of a worker started as a plain :class:`multiprocessing.Process`: watch
    ``parent``, then run ``target(*args)``."""
    watch_parent(parent)
    target(*args)

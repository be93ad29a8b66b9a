"""Child process of the dedup kill test: runs ``dedup`` and stops for good at one point.

Usage: ``python -m tests.corpus._kill_child CORPUS OUT JOBS POINT`` — deduplicate ``CORPUS``
into ``OUT`` (with ``--overwrite``) in ``JOBS`` processes, and at ``POINT`` print ``at POINT``
and wait to be killed: ``sign`` (the first signed block stored, worker processes running),
``write`` (the documents file written, before the edges), ``publish`` (the finished output
ready and an existing ``OUT`` renamed aside, before the new one takes its place). Prints
``done`` if the run ends without reaching the point.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import neardup.corpus.job as job
import neardup.corpus.options as options_module
import neardup.corpus.signing as signing
from neardup.corpus import dedup
from neardup.corpus.workspace import Workspace


def stop(point: str) -> None:
    print(f"at {point}", flush=True)
    while True:  # the parent kills this process
        time.sleep(60)


class _StopAtSecondReplace:
    """``os`` for the publishing step: the second ``replace`` (the new output into place,
    after the old one was renamed aside) stops instead."""

    def __init__(self) -> None:
        self.calls = 0

    def replace(self, src: Any, dst: Any) -> None:
        self.calls += 1
        if self.calls == 2:
            stop("publish")
        os.replace(src, dst)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


def main() -> None:
    corpus, out, jobs, point = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    signing.SLICE_BYTES = 4096  # several slices: the workers read a few each
    if point == "sign":
        add = Workspace.add

        def add_then_stop(self: Workspace, *args: Any) -> None:
            add(self, *args)
            stop("sign")

        Workspace.add = add_then_stop  # type: ignore[method-assign]
    elif point == "write":

        def write_edges(*args: Any) -> None:
            stop("write")

        job.write_edges = write_edges  # type: ignore[assignment]
    elif point == "publish":
        options_module.os = _StopAtSecondReplace()  # type: ignore[assignment]
    print("ready", flush=True)
    dedup([corpus], Path(out), jobs=jobs, overwrite=True)
    print("done", flush=True)


if __name__ == "__main__":
    main()

"""Whole processes timed from outside, and the medians of repeated runs: what the benchmarks
that time neardup's commands (startup.py, index_add_cores.py) share."""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment (``NEARDUP_CACHE_DIR`` included) with ``extra``, and Python's
    bytecode cached as an installed package has it: ``PYTHONDONTWRITEBYTECODE``, set in some
    shells here, would make every run compile neardup's modules from source."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **(extra or {})}


def timed_child(
    command: list[str], env: dict[str, str] | None = None, stdout: Path | None = None
) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, the kernel's accounting) of one whole process; its
    standard output goes to the file ``stdout`` (or nowhere), its standard error to a
    temporary file (never a pipe: the child never waits for this process to read), shown when
    it fails."""
    with tempfile.TemporaryFile() as err:
        out = stdout.open("wb") if stdout is not None else subprocess.DEVNULL
        try:
            start = time.perf_counter()
            process = subprocess.Popen(
                command, env=child_env() if env is None else env, stdout=out, stderr=err
            )
            _, status, usage = os.wait4(process.pid, 0)
            wall = time.perf_counter() - start
        finally:
            if stdout is not None:
                out.close()  # type: ignore[union-attr]
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            err.seek(0)
            message = err.read().decode(errors="replace")[-2000:]
            raise SystemExit(f"{' '.join(command)} exited with {process.returncode}:\n{message}")
    return wall, usage.ru_utime + usage.ru_stime


class Medians:
    """The medians of a row's runs: ``walls`` and ``cpus`` (seconds) and ``loads`` (the
    one-minute load average read after each run)."""

    walls: list[float]
    cpus: list[float]
    loads: list[float]

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpus)

    @property
    def load(self) -> float:
        return statistics.median(self.loads)

"""A progress bar and a clock (wall and CPU seconds) per stage of a dedup run."""

from __future__ import annotations

import time
from typing import Any


class StageProgress:
    """A rich progress bar per stage (or nothing)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._progress: Any = None

    def __enter__(self) -> StageProgress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import Progress

            self._progress = Progress(console=Console(stderr=True), transient=False)
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def task(self, name: str, total: float | None) -> Any:
        if self._progress is None:
            return None
        return self._progress.add_task(name, total=total)

    def advance(self, task: Any, amount: float = 1) -> None:
        if self._progress is not None and task is not None:
            self._progress.update(task, advance=amount)

    def done(self, task: Any) -> None:
        if self._progress is not None and task is not None:
            t = self._progress.tasks[task]
            self._progress.update(task, total=t.completed, completed=t.completed)


def _cpu_now() -> float:
    """CPU seconds of this process and of its finished children (the stage's workers)."""
    import resource

    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


class StageClock:
    """Wall and CPU seconds of each stage, in the order they run."""

    def __init__(self, wall: dict[str, float], cpu: dict[str, float]) -> None:
        self.wall, self.cpu = wall, cpu
        self.wall0 = self.wall_mark = time.perf_counter()
        self.cpu0 = self.cpu_mark = _cpu_now()

    def lap(self, name: str) -> None:
        now, cpu = time.perf_counter(), _cpu_now()
        self.wall[name], self.cpu[name] = now - self.wall_mark, cpu - self.cpu_mark
        self.wall_mark, self.cpu_mark = now, cpu

    def total(self) -> None:
        self.wall["total"] = time.perf_counter() - self.wall0
        self.cpu["total"] = _cpu_now() - self.cpu0


def peak_memory_mb() -> dict[str, float]:
    """Peak resident memory (MB) of this process and of its largest finished child."""
    import resource

    def mb(who: int) -> float:
        return round(resource.getrusage(who).ru_maxrss / 1024, 1)  # Linux: kilobytes

    return {"main": mb(resource.RUSAGE_SELF), "workers": mb(resource.RUSAGE_CHILDREN)}

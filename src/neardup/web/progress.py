"""How far a check sent from the page has gone, by its stages: what the page shows while it
waits for the answer.

A check is one request that the server answers when it is done, so the page cannot see inside
it; instead its script sends a random ticket with the form (``progress``) and asks
``GET /progress/{ticket}`` while it waits. The server says which stage the check has reached —
the file read, the text analysed, the sources looked up, the passages aligned, the check
kept — as step *k* of *n*: stages as they happen, not a guess of the time left. A ticket is
not a secret of anyone's (it names a stage, nothing of the text); tickets that do not have the
right form are ignored, and the table keeps at most :data:`MAX_TICKETS`, the oldest dropped
first, each for at most :data:`KEEP_SECONDS`.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict

#: The stages of a check from the page, in order.
STAGES = ("reading", "analysing", "looking_up", "aligning", "keeping")
#: Tickets followed at once; past that the oldest is forgotten.
MAX_TICKETS = 1024
#: A ticket is forgotten this long after its last stage.
KEEP_SECONDS = 600.0
#: What the page's script sends: 16 to 64 URL-safe characters.
TICKET = re.compile(r"[A-Za-z0-9_-]{16,64}")


class Progress:
    """The stage each ticket's check has reached (thread-safe: checks run in threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stages: OrderedDict[str, tuple[int, float]] = OrderedDict()

    def reach(self, ticket: str, stage: str) -> None:
        """``ticket``'s check has reached ``stage`` (a ticket of the wrong form is ignored)."""
        if not TICKET.fullmatch(ticket):
            return
        step = STAGES.index(stage) + 1
        now = time.monotonic()
        with self._lock:
            self._stages[ticket] = (step, now)
            self._stages.move_to_end(ticket)
            while len(self._stages) > MAX_TICKETS:
                self._stages.popitem(last=False)
            while self._stages:
                oldest, (_, at) = next(iter(self._stages.items()))
                if now - at <= KEEP_SECONDS:
                    break
                del self._stages[oldest]

    def of(self, ticket: str) -> dict[str, object]:
        """``{"stage", "step", "steps"}`` of ``ticket`` (stage ``""`` and step 0 when the
        server has not seen it)."""
        with self._lock:
            step, _ = self._stages.get(ticket, (0, 0.0))
        return {"stage": STAGES[step - 1] if step else "", "step": step, "steps": len(STAGES)}

    def stage(self, ticket: str) -> StageReporter:
        """A callable that moves ``ticket`` to a stage (a no-op for no ticket)."""
        return StageReporter(self, ticket)


class StageReporter:
    """``reporter("aligning")``: one check's stages, told to its :class:`Progress`."""

    def __init__(self, progress: Progress, ticket: str) -> None:
        self.progress = progress
        self.ticket = ticket

    def __call__(self, stage: str) -> None:
        if self.ticket:
            self.progress.reach(self.ticket, stage)


#: The process's one table (the page's checks run in this process's threads).
PROGRESS = Progress()

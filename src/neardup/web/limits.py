"""How many checks a client without the token may make: a sliding window per client address,
per server process (each worker counts its own), so that anonymous checks cannot fill the
store or the processor. A token holder is not limited.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

from fastapi import Request

from neardup.web.i18n import CodedHTTPException

#: The window the rate counts over, seconds.
WINDOW = 60.0
#: Clients remembered before the idle ones are forgotten.
_SWEEP_AT = 10_000


class RateLimit:
    """At most ``per_window`` events per client in any ``WINDOW`` seconds (0: no limit);
    ``clock``: seconds, monotonic (the tests give their own)."""

    def __init__(self, per_window: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_window = per_window
        self.clock = clock
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def take(self, client: str) -> float | None:
        """Count one event of ``client``: None when it may go on, else the seconds until it
        may (nothing counted then)."""
        if self.per_window <= 0:
            return None
        now = self.clock()
        with self._lock:
            if len(self._seen) > _SWEEP_AT:
                self._seen = {k: q for k, q in self._seen.items() if q and q[-1] > now - WINDOW}
            times = self._seen.setdefault(client, deque())
            while times and times[0] <= now - WINDOW:
                times.popleft()
            if len(times) >= self.per_window:
                return max(1.0, times[0] + WINDOW - now)
            times.append(now)
            return None


def client_of(request: Request) -> str:
    """The client's address (behind a proxy, the proxy's unless uvicorn trusts its headers)."""
    return request.client.host if request.client is not None else "?"


def limit_checks(request: Request, holder: bool) -> None:
    """Refuse (429, ``Retry-After``) a check of a client without the token over its rate."""
    if holder:
        return
    limit: RateLimit = request.app.state.service.rate
    wait = limit.take(client_of(request))
    if wait is not None:
        seconds = int(wait + 0.999)
        raise CodedHTTPException(
            429,
            f"too many checks from this client: at most {limit.per_window} in "
            f"{int(WINDOW)} s without a token; try again in {seconds} s",
            code="rate_limited",
            params={"n": limit.per_window, "window": int(WINDOW), "wait": seconds},
            headers={"Retry-After": str(seconds)},
        )

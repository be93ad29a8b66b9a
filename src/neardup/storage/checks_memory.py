"""Kept checks in memory (a memory collection, and the tests): lost when the process ends."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from neardup.errors import DuplicateIdError
from neardup.storage.kept_checks import KeptCheck, KeptSummary


class MemoryCheckStore:
    """:class:`~neardup.storage.kept_checks.CheckStore` in a dict."""

    def __init__(self) -> None:
        self._checks: dict[str, KeptCheck] = {}
        self._gone: dict[str, float] = {}
        self._lock = threading.Lock()

    def keep(self, check: KeptCheck) -> None:
        with self._lock:
            if check.id in self._checks:
                raise DuplicateIdError(f"a check {check.id!r} is already kept")
            self._checks[check.id] = check

    def get(self, check_id: str) -> KeptCheck | None:
        with self._lock:
            return self._checks.get(check_id)

    def owner(self, check_id: str) -> str | None:
        with self._lock:
            found = self._checks.get(check_id)
        return None if found is None else found.owner

    def list(
        self, *, owner: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[KeptSummary]:
        with self._lock:
            chosen = [c for c in self._checks.values() if owner is None or c.owner == owner]
        chosen.sort(key=lambda c: (-c.created, c.id))
        return [c.summary() for c in chosen[offset : offset + limit]]

    def delete(self, check_id: str) -> bool:
        with self._lock:
            return self._checks.pop(check_id, None) is not None

    def purge(self, before: float) -> int:
        with self._lock:
            old = [k for k, c in self._checks.items() if c.created < before]
            for k in old:
                del self._checks[k]
            self._gone = {k: t for k, t in self._gone.items() if t >= before}
            return len(old)

    def sizes(self, owner: str | None = None) -> Sequence[tuple[str, int]]:
        with self._lock:
            chosen = [c for c in self._checks.values() if owner is None or c.owner == owner]
        chosen.sort(key=lambda c: (-c.created, c.id))
        return [(c.id, len(c.body().encode("utf-8", "surrogatepass"))) for c in chosen]

    def evict(self, ids: Sequence[str], when: float) -> int:
        with self._lock:
            removed = [i for i in ids if self._checks.pop(i, None) is not None]
            self._gone.update(dict.fromkeys(removed, when))
            return len(removed)

    def gone(self, check_id: str) -> bool:
        with self._lock:
            return check_id in self._gone

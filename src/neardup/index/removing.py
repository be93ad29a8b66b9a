"""The remover part of the collection: documents removed by id, their groups recomputed.

Every candidate source is told before the delete (a source may rebuild its own state from the
documents left beside the removed ones), and the short rule forgets the removed documents'
cached short forms.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from neardup.errors import NotFoundError
from neardup.index.finding import CandidateFinder
from neardup.index.groups import components
from neardup.index.items import check_id
from neardup.index.short import ShortRule
from neardup.storage import Storage


class Remover:
    """``remove``."""

    def __init__(self, storage: Storage, finder: CandidateFinder, short: ShortRule | None) -> None:
        self.storage = storage
        self.finder = finder
        self.short = short

    @property
    def location(self) -> str:
        return self.storage.location

    def remove(self, ids: str | Iterable[str], *, batch_size: int = 1000) -> int:
        """Remove documents by id, in batches of one transaction each; groups are recomputed.

        ``ids`` is one id (a string is never taken as a sequence of ids) or an iterable of
        them. Every id is checked first: an unknown one raises NotFoundError and nothing is
        removed.
        """
        if isinstance(ids, str | bytes):
            ids = [ids]
        wanted = list(dict.fromkeys(check_id(i) for i in ids))
        known = self.storage.keys_for_ids(wanted)
        missing = [i for i in wanted if i not in known]
        if missing:
            shown = ", ".join(repr(i) for i in missing[:5]) + (" …" if len(missing) > 5 else "")
            raise NotFoundError(
                f"not in the collection {self.location}: {shown}; nothing was removed"
            )
        removed = 0
        for start in range(0, len(wanted), batch_size):
            chunk = wanted[start : start + batch_size]
            with self.storage.transaction():
                keys = self.storage.keys_for_ids(chunk)
                if len(keys) != len(chunk):
                    gone = [i for i in chunk if i not in keys]
                    raise NotFoundError(f"removed meanwhile by another process: {gone[:5]}")
                infos = self.storage.docs(list(keys.values()))
                groups = sorted({d.group for d in infos})
                # before the delete: rows are rebuilt from row-mates
                self.finder.removing(sorted(keys.values()), self.storage)
                self.storage.delete(list(keys.values()))
                if self.short is not None:
                    self.short.forget(list(keys.values()))
                self._regroup(groups)
                removed += len(keys)
        return removed

    def _regroup(self, groups: Sequence[int]) -> None:
        """Recompute the components of the given groups after members left."""
        members = self.storage.group_members(groups)
        keys = sorted(k for m in members.values() for k in m)
        if not keys:
            return
        links = self.storage.links_of(keys)
        roots = components(keys, ((lk.a, lk.b) for lk in links))
        current = {k: g for g, m in members.items() for k in m}
        changes = {k: r for k, r in roots.items() if current.get(k) != r}
        if changes:
            self.storage.set_groups(changes)

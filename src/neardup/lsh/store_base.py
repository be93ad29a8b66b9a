"""The stores of an :class:`~neardup.lsh.LSHIndex`: what they share (:class:`Entry`, the
:class:`LSHStore` protocol, the layout version) and the stores that need nothing but Python
(:class:`MemoryStore`, :class:`NullStore`). The SQLite and PostgreSQL stores build on this
module; :func:`neardup.lsh.store.open_store`, above them all, picks one for a location.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from neardup.errors import DuplicateIdError, NotFoundError

#: The layout of the stored entries; a store of another version is refused.
FORMAT_VERSION = "1"


@dataclass(frozen=True)
class Entry:
    """One stored document: its key (encoded as text by the index), its signature's bytes,
    and under verification its fingerprints' bytes (and counts, for multisets)."""

    key: str
    signature: bytes
    values: bytes | None = None
    counts: bytes | None = None


@runtime_checkable
class LSHStore(Protocol):
    """What an index needs from a store. Keys are the index's encoded keys (text)."""

    #: ``memory``, ``sqlite`` or ``postgres``.
    kind: str
    #: Where it is, for messages (a PostgreSQL URL without its password).
    location: str

    def read_params(self) -> dict[str, str]:
        """The stored parameters (empty for a new store)."""
        ...

    def write_params(self, params: Mapping[str, str]) -> None:
        """Keep the parameters (once, when the index is made)."""
        ...

    def load(self) -> list[Entry]:
        """Every entry, in the order it was added (a replaced entry counts as added anew)."""
        ...

    def put(self, entries: Sequence[Entry], *, replace: bool = False) -> None:
        """Add entries in one transaction. A key already stored raises
        :class:`~neardup.errors.DuplicateIdError` (nothing is written) unless ``replace``,
        which writes them as new (at the end of the order)."""
        ...

    def delete(self, keys: Sequence[str]) -> None:
        """Remove entries in one transaction; a key not stored raises
        :class:`~neardup.errors.NotFoundError` (nothing is removed)."""
        ...

    def close(self) -> None: ...


class MemoryStore:
    """Entries in a dict (insertion ordered): the default store of an index."""

    kind = "memory"
    location = "memory:"

    def __init__(self) -> None:
        self._params: dict[str, str] = {}
        self._entries: dict[str, Entry] = {}

    def read_params(self) -> dict[str, str]:
        return dict(self._params)

    def write_params(self, params: Mapping[str, str]) -> None:
        self._params = dict(params)

    def load(self) -> list[Entry]:
        return list(self._entries.values())

    def put(self, entries: Sequence[Entry], *, replace: bool = False) -> None:
        keys = [e.key for e in entries]
        if len(set(keys)) != len(keys):
            raise DuplicateIdError("a key is given twice in one batch")
        if not replace:
            there = [k for k in keys if k in self._entries]
            if there:
                raise DuplicateIdError(f"key {there[0]} is already in the index")
        for entry in entries:
            self._entries.pop(entry.key, None)
            self._entries[entry.key] = entry

    def delete(self, keys: Sequence[str]) -> None:
        missing = [k for k in keys if k not in self._entries]
        if missing:
            raise NotFoundError(f"key {missing[0]} is not in the index")
        for key in keys:
            del self._entries[key]

    def close(self) -> None:
        pass


class NullStore(MemoryStore):
    """No store: what ``store=None`` gives. The index itself is the memory; nothing is written
    anywhere (the index skips its calls) and nothing can be reopened."""

    kind = "none"
    location = "none"

    def put(self, entries: Sequence[Entry], *, replace: bool = False) -> None:
        pass

    def delete(self, keys: Sequence[str]) -> None:
        pass

    def load(self) -> list[Entry]:
        return []

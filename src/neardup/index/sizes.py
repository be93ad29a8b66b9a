"""The shingle count of each stored document, remembered by key.

A bulk insert compares every new document's size with its candidates' before fetching their
fingerprints (sizes alone rule most of them out under a resemblance threshold), so a batch asks
for thousands of sizes. A key's size never changes — documents are immutable and keys are never
reused — so a collection remembers every size it has seen (its own inserts, once committed, and
answers from the storage) in one int64 array indexed by key: 8 bytes a document.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from neardup.storage.base import Storage

I64 = npt.NDArray[np.int64]

_UNKNOWN = -1
_GONE = -2  # asked for and not stored (removed, or never committed by the writer that took it)


class KnownSizes:
    def __init__(self) -> None:
        self._sizes: I64 = np.full(1024, _UNKNOWN, dtype=np.int64)

    def _fit(self, top: int) -> None:
        if top >= self._sizes.shape[0]:
            grown = np.full(max(top + 1, 2 * self._sizes.shape[0]), _UNKNOWN, dtype=np.int64)
            grown[: self._sizes.shape[0]] = self._sizes
            self._sizes = grown

    def remember(self, keys: I64, sizes: I64) -> None:
        """Sizes of documents just committed."""
        if keys.shape[0]:
            self._fit(int(keys.max()))
            self._sizes[keys] = sizes

    def lookup(self, keys: I64, storage: Storage) -> I64:
        """The size of each key (distinct, non-negative), -2 for a key no longer stored."""
        if not keys.shape[0]:
            return np.zeros(0, dtype=np.int64)
        self._fit(int(keys.max()))
        found = self._sizes[keys]
        missing = keys[found == _UNKNOWN]
        if missing.shape[0]:
            stored = storage.sizes(missing.tolist())
            fetched = np.array([stored.get(k, _GONE) for k in missing.tolist()], dtype=np.int64)
            # a key not stored now may be a writer's uncommitted one: do not remember it as gone
            self._sizes[missing[fetched >= 0]] = fetched[fetched >= 0]
            found[found == _UNKNOWN] = fetched
        return found

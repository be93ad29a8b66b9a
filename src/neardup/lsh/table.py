"""The in-memory part of an LSH index: by slot, each document's band keys and the low 16 bits
of its minhashes (what the similarity check needs), and the bucket table over the band keys
(the kernels are :mod:`neardup._kernels.lsh`).

A document lives in a *slot* (a row of :attr:`SlotTable.keys` and :attr:`SlotTable.sketch`);
slots are handed out in order and never reused until :meth:`SlotTable.compact`, which
renumbers the live ones in the same order. Keys (the user's ids) are the business of
:class:`~neardup.lsh.index.LSHIndex`. The signatures themselves are not kept: 1 KB a document
at 128 64-bit minhashes, four times the sketch the estimate reads.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._kernels import lsh as kernels
from neardup._kernels import minhash as minhash_kernels
from neardup.errors import NotSupportedError
from neardup.sketch.supershingles import band_seeds

U64 = npt.NDArray[np.uint64]
U16 = npt.NDArray[np.uint16]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
Signatures = npt.NDArray[np.uint64] | npt.NDArray[np.uint32]

_MIN_SLOTS = 64
_MIN_TABLE = 1024
#: The bits of each minhash the similarity check keeps (b-bit minwise hashing).
SKETCH_BITS = 16


def _power_of_two(n: int) -> int:
    return 1 << max(0, int(n) - 1).bit_length()


@dataclass(frozen=True)
class Candidates:
    """The answer of a batch query in CSR form: query ``i``'s candidates are
    ``slots[offsets[i]:offsets[i + 1]]``, best first (similarity, then the earlier slot)."""

    offsets: I64
    slots: I64
    similarities: F64


class SlotTable:
    """Band keys and sketches by slot, which slots are live, and the bucket table."""

    def __init__(self, num_perm: int, bands: int, rows: int, seed: int, dtype: type) -> None:
        self.num_perm = num_perm
        self.bands = bands
        self.rows = rows
        self.seed = seed
        self.dtype = dtype
        self.empty = np.uint64(np.iinfo(dtype).max)
        self.band_seeds = band_seeds(seed, bands)
        self.used = 0  # slots handed out (live or dead)
        self.live = 0
        self._lock = threading.Lock()
        self._stamp = 0
        self._allocate_slots(_MIN_SLOTS)
        self._allocate_table(_MIN_TABLE)

    # --- pickling: everything but the lock and the scratch rows ----------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"], state["_scratch"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._scratch = np.full((4, self.capacity), -1, dtype=np.int64)
        self._stamp = 0

    # --- storage of the arrays -------------------------------------------------------------
    def _allocate_slots(self, capacity: int) -> None:
        if capacity * self.bands > kernels.MAX_ENTRIES:
            raise NotSupportedError(
                f"an LSH index holds at most {kernels.MAX_ENTRIES // self.bands:,} documents "
                f"at {self.bands} bands"
            )
        self.keys: U64 = np.empty((capacity, self.bands), dtype=np.uint64)
        self.sketch: U16 = np.empty((capacity, self.num_perm), dtype=np.uint16)
        self.alive = np.zeros(capacity, dtype=np.uint8)
        self.entry_next = np.full(capacity * self.bands, -1, dtype=np.int32)
        self._scratch = np.full((4, capacity), -1, dtype=np.int64)
        self._stamp = 0

    def _allocate_table(self, size: int) -> None:
        self.table = np.zeros(size, dtype=np.uint64)
        self.buckets = 0

    @property
    def capacity(self) -> int:
        return int(self.alive.shape[0])

    def keys_of(self, signatures: Signatures) -> U64:
        """``(n, bands)`` band keys of ``(n, num_perm)`` signatures."""
        return minhash_kernels.band_keys(signatures, self.bands, self.rows, self.band_seeds)

    def _rebuild(self, capacity: int, table_size: int) -> None:
        """Reallocate for ``capacity`` slots and a table of ``table_size``, keeping the used
        slots (live and dead) where they are; only the live ones go back into buckets."""
        old_keys, old_sketch, old_alive, used = self.keys, self.sketch, self.alive, self.used
        self._allocate_slots(capacity)
        self.keys[:used] = old_keys[:used]
        self.sketch[:used] = old_sketch[:used]
        self.alive[:used] = old_alive[:used]
        self._allocate_table(table_size)
        live = np.flatnonzero(self.alive[:used]).astype(np.int64)
        if live.shape[0]:
            self.buckets = kernels.table_insert(self.table, self.entry_next, self.keys[live], live)

    @staticmethod
    def _table_size_for(buckets: int) -> int:
        """A table at most 3/4 full: linear probing stays short (eight places share a cache
        line), and the table is half the size of one kept half full."""
        return max(_MIN_TABLE, _power_of_two((4 * buckets) // 3 + 2))

    # --- changes ---------------------------------------------------------------------------
    def add(self, signatures: Signatures) -> I64:
        """Put ``(n, num_perm)`` signatures into new slots; returns the slots."""
        keys = self.keys_of(signatures)
        sketch = (signatures & np.array(0xFFFF, dtype=signatures.dtype)).astype(np.uint16)
        state = np.where(
            (signatures == signatures.dtype.type(self.empty)).all(axis=1),
            np.uint8(kernels.EMPTY_SET),
            np.uint8(1),
        )
        return self._add_rows(keys, sketch, state)

    def _add_rows(self, keys: U64, sketch: U16, state: npt.NDArray[np.uint8]) -> I64:
        with self._lock:
            n = int(keys.shape[0])
            start = self.used
            capacity = self.capacity
            if start + n > capacity:
                capacity = max(_power_of_two(start + n), 2 * capacity)
            worst = self.buckets + n * self.bands
            size = self.table.shape[0]
            if 4 * worst > 3 * size:
                # sized for the worst case, so the insert below never needs to stop and grow
                size = self._table_size_for(worst)
            if capacity != self.capacity or size != self.table.shape[0]:
                self._rebuild(capacity, size)
            slots = np.arange(start, start + n, dtype=np.int64)
            self.keys[start : start + n] = keys
            self.sketch[start : start + n] = sketch
            self.alive[start : start + n] = state
            self.used += n
            self.live += n
            if n:
                self.buckets += kernels.table_insert(self.table, self.entry_next, keys, slots)
            return slots

    def kill(self, slots: I64) -> None:
        """Mark slots dead: they are skipped from now on (and dropped by :meth:`compact`)."""
        with self._lock:
            self.live -= int(np.count_nonzero(self.alive[slots]))
            self.alive[slots] = 0

    def needs_compaction(self) -> bool:
        dead = self.used - self.live
        return dead > 1024 and dead > self.live

    def compact(self) -> I64:
        """Renumber the live slots ``0 … live-1`` in their order and rebuild the buckets.
        Returns the old slot of every new one."""
        with self._lock:
            old = np.flatnonzero(self.alive[: self.used]).astype(np.int64)
            keys, sketch, state = self.keys[old], self.sketch[old], self.alive[old]
            self.used = 0
            self.live = 0
            self._allocate_slots(max(_MIN_SLOTS, _power_of_two(old.shape[0])))
            self._allocate_table(self._table_size_for(old.shape[0] * self.bands))
        self._add_rows(keys, sketch, state)
        return old

    # --- reads -----------------------------------------------------------------------------
    def min_same(self, min_similarity: float | None) -> int:
        """The fewest equal minhashes of a similarity (a share of ``num_perm``) at least
        ``min_similarity``."""
        if min_similarity is None:
            return 1
        k = max(0, math.ceil(min_similarity * self.num_perm))
        while k > 0 and (k - 1) / self.num_perm >= min_similarity:
            k -= 1
        while k / self.num_perm < min_similarity:
            k += 1
        return k

    def _fresh_stamps(self, n: int) -> int:
        """The first of ``n`` unused stamps (the marks restart before they could overflow)."""
        if self._stamp + n >= (1 << 62):
            self._scratch[0] = -1
            self._stamp = 0
        stamp = self._stamp
        self._stamp += n
        return stamp

    def query(self, signatures: Signatures, *, min_same: int, min_bands: int = 1) -> Candidates:
        """Candidates of ``(n, num_perm)`` query signatures sharing at least ``min_bands``
        bands and ``min_same`` minhashes, each query's best first."""
        with self._lock:
            offsets, codes = kernels.query(
                self.table,
                self.entry_next,
                self.alive,
                self.sketch,
                signatures,
                self.band_seeds,
                self.rows,
                min_bands,
                min_same,
                self.empty,
                self._scratch,
                self._fresh_stamps(int(signatures.shape[0])),
            )
        return self._candidates(offsets, codes)

    def query_slots(self, slots: I64, *, min_same: int, min_bands: int = 1) -> Candidates:
        """:meth:`query` for stored documents, each left out of its own candidates."""
        with self._lock:
            offsets, codes = kernels.query_slots(
                self.table,
                self.entry_next,
                self.alive,
                self.sketch,
                self.keys,
                slots,
                min_bands,
                min_same,
                self._scratch,
                self._fresh_stamps(int(slots.shape[0])),
            )
        return self._candidates(offsets, codes)

    def _candidates(self, offsets: I64, codes: I64) -> Candidates:
        differ, slots = np.divmod(codes, self.capacity)
        return Candidates(offsets, slots, (self.num_perm - differ) / self.num_perm)

    def query_one(self, signature: Signatures, min_bands: int, min_same: int) -> list[int]:
        """The codes of one ``(num_perm,)`` signature's candidates, best first: a code is
        ``(num_perm − equal minhashes) · capacity + slot``."""
        with self._lock:
            count = kernels.query_one(
                self.table,
                self.entry_next,
                self.alive,
                self.sketch,
                signature,
                self.band_seeds,
                self.rows,
                min_bands,
                min_same,
                self.empty,
                self._scratch,
                self._fresh_stamps(1),
            )
            return self._scratch[3, :count].tolist()

    def bucket_sizes(self) -> I64:
        return kernels.bucket_sizes(self.table, self.entry_next, self.alive, self.bands)

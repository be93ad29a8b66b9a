"""KnownSizes: sizes remembered by key, misses asked of the storage, removed keys not remembered."""

from __future__ import annotations

import numpy as np

from neardup.index.sizes import KnownSizes
from neardup.storage import NewDoc
from neardup.storage.memory import MemoryStorage


class CountingStorage(MemoryStorage):
    def __init__(self) -> None:
        super().__init__()
        self.asked: list[list[int]] = []

    def sizes(self, keys):  # type: ignore[no-untyped-def]
        self.asked.append(sorted(keys))
        return super().sizes(keys)


def _doc(key: int, size: int) -> NewDoc:
    values = np.arange(size, dtype=np.uint64)
    return NewDoc(key, f"d{key}", key, size, values, None, values[:1])


def test_remembered_then_asked_once_then_gone() -> None:
    st = CountingStorage()
    st.create({"format_version": "1", "next_key": "1", "spec": "{}"})
    with st.transaction():
        st.insert([_doc(1, 3), _doc(2000, 5), _doc(7, 2)])
    known = KnownSizes()
    known.remember(np.array([1]), np.array([3]))
    keys = np.array([1, 7, 2000, 4000], dtype=np.int64)
    assert known.lookup(keys, st).tolist() == [3, 2, 5, -2]
    assert st.asked == [[7, 2000, 4000]]
    assert known.lookup(keys, st).tolist() == [3, 2, 5, -2]
    assert st.asked[-1] == [4000]  # a key not stored is asked again: it may be committed later
    with st.transaction():
        st.insert([_doc(4000, 9)])
    assert known.lookup(np.array([4000], dtype=np.int64), st).tolist() == [9]
    assert known.lookup(np.zeros(0, dtype=np.int64), st).tolist() == []

"""A stored index keeps the banding it was made with when it is opened without weights (an
index made with datasketch's equal weights still opens), and is refused when other weights are
asked for explicitly."""

from __future__ import annotations

from pathlib import Path

import pytest

from neardup.errors import SpecMismatchError
from neardup.lsh.index import LSHIndex

TEXT = "один два три четыре пять шесть семь восемь девять десять одиннадцать двенадцать"


def test_a_store_opened_without_weights_keeps_its_bands(tmp_path: Path) -> None:
    path = str(tmp_path / "lsh.db")
    made = LSHIndex(threshold=0.7, weights=(0.5, 0.5), store=path)
    made.add("a", TEXT)
    assert (made.b, made.r) == (14, 9)
    made.store.close()
    again = LSHIndex(threshold=0.7, store=path)
    assert (again.b, again.r) == (14, 9)
    assert [r.id for r in again.query(TEXT)] == ["a"]
    again.store.close()
    assert (LSHIndex(threshold=0.7).b, LSHIndex(threshold=0.7).r) == (23, 5)


def test_other_weights_asked_for_a_store_are_refused(tmp_path: Path) -> None:
    path = str(tmp_path / "lsh.db")
    LSHIndex(threshold=0.7, weights=(0.5, 0.5), store=path).store.close()
    with pytest.raises(SpecMismatchError):
        LSHIndex(threshold=0.7, weights=(0.02, 0.98), store=path)

"""``Collection.check(..., exclude=...)``: the excluded documents are neither matches nor
passages, and the figure is the text's against the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from neardup.index import Collection
from neardup.storage.memory import MemoryStorage
from tests.storage._postgres import PG_URL, postgres_or_fail, unique_schema
from tests.web._kept import copied_text, make_titled_collection


def test_exclude_drops_sources_before_verification(tmp_path: Path) -> None:
    db = make_titled_collection(tmp_path)
    with Collection.open(db) as col:
        full = col.check(copied_text(), fragments=True)
        less = col.check(copied_text(), fragments=True, exclude=["school.txt"])
        assert [m.id for m in full.matches] == ["school.txt", "bakery.txt"]
        assert [m.id for m in less.matches] == ["bakery.txt"]
        assert less.alignment is not None
        assert [s.id for s in less.alignment.found] == ["bakery.txt"]
        assert less.candidates == full.candidates - 1
        assert less.uniqueness > full.uniqueness + 0.2
        # the bakery's share does not change: only the school's words become unique
        bakery = full.alignment.source("bakery.txt") if full.alignment else None
        assert bakery is not None
        assert less.alignment.source("bakery.txt").borrowed == bakery.borrowed
        assert less.uniqueness == pytest.approx(
            full.uniqueness + full.alignment.source("school.txt").borrowed, abs=1e-9
        )
        # ids that are not stored, or could not be, change nothing
        same = col.check(copied_text(), exclude=["nobody", "bad\x00id", "\ud800", ""])
        assert same.uniqueness == full.uniqueness
        assert [m.id for m in same.matches] == [m.id for m in full.matches]


@pytest.mark.parametrize("kind", ["memory", "postgres"])
def test_exclude_on_other_backends(tmp_path: Path, kind: str) -> None:
    db = make_titled_collection(tmp_path)
    if kind == "memory":
        target: object = MemoryStorage()
    else:
        postgres_or_fail()
        target = f"{PG_URL}?schema={unique_schema()}"
    with Collection.open(db) as src:
        items = [(d.id, d.text, d.meta) for d in (src.get(i) for i in sorted(_ids(src)))]
        spec, index_spec = src.spec, src.index_spec
    col = Collection.create(target, spec, index_spec)  # type: ignore[arg-type]
    try:
        col.add_many(items)
        less = col.check(copied_text(), exclude=["school.txt", "bad\x00id"])
        assert [m.id for m in less.matches] == ["bakery.txt"]
    finally:
        if kind == "postgres":
            col.storage.drop()  # type: ignore[attr-defined]
        col.close()


def _ids(col: Collection) -> list[str]:
    return [d.id for batch in col.storage.iter_docs() for d in batch]

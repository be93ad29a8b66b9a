"""The collection as a composition of parts: a candidate source appended to its list is
consulted by checks, adds and removals, and every check — the collection's and the web
service's — goes through the one orchestration (:meth:`neardup.index.checking.Checker.run`),
the service holding its lock around the storage's part alone."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from neardup.errors import InputError
from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec
from neardup.index.candidates import CandidatePairs, CandidateSource, PostingsSource, Query
from neardup.index.checking import Checker
from neardup.storage import NewDoc, Storage
from neardup.web.service import Service, ServiceConfig
from tests import _textgen as tg
from tests.web._kept import copied_text, make_titled_collection

SPEC = make_spec("plain")


class FixedSource:
    """Proposes the same stored keys for every query (evidence 1.0 each), none in a batch,
    and records what it is told."""

    name = "fixed"

    def __init__(self, keys: Sequence[int] = ()) -> None:
        self.keys = list(keys)
        self.asked = 0
        self.inserted_keys: list[int] = []
        self.removed_keys: list[int] = []

    def stored(self, queries: Sequence[Query], storage: Storage) -> CandidatePairs:
        self.asked += 1
        n, k = len(queries), len(self.keys)
        pos = np.repeat(np.arange(n, dtype=np.int64), k)
        other = np.tile(np.array(self.keys, dtype=np.int64), n)
        return CandidatePairs(pos, other, np.ones(n * k, dtype=np.float64))

    def in_batch(self, queries: Sequence[Query]) -> CandidatePairs:
        return CandidatePairs.empty()

    def inserted(self, docs: Sequence[NewDoc], storage: Storage) -> None:
        self.inserted_keys.extend(d.key for d in docs)

    def removing(self, keys: Sequence[int], storage: Storage) -> None:
        self.removed_keys.extend(keys)


def _two_near_copies() -> tuple[Collection, str, dict[str, int]]:
    # the postings source alone
    col = Collection.create("memory:", SPEC, IndexSpec(policy="allow", sentence_bands=0))
    base = tg.text(200, 1)
    col.add_many([("a", base), ("b", tg.edit(base, 0.05, 2))])
    keys = {d: col.get(d).key for d in ("a", "b")}
    return col, base, keys


def test_a_custom_source_is_a_candidate_source() -> None:
    assert isinstance(FixedSource(), CandidateSource)


def test_an_appended_source_is_consulted_by_check_with_its_evidence() -> None:
    col, base, keys = _two_near_copies()
    (postings,) = col.sources
    assert isinstance(postings, PostingsSource)
    both = col.check(base, top=None)
    assert sorted(m.id for m in both.matches) == ["a", "b"]

    fixed = FixedSource([keys["a"]])
    col.sources = [fixed]  # the fixed source alone: only what it proposes is verified
    alone = col.check(base, top=None)
    assert fixed.asked == 1
    assert [m.id for m in alone.matches] == ["a"] and alone.candidates == 1
    assert alone.matches[0] == next(m for m in both.matches if m.id == "a")  # verified alike

    col.sources.append(postings)  # a second source: the union is verified, each pair once
    again = col.check(base, top=None)
    assert fixed.asked == 2
    assert again.matches == both.matches and again.candidates == both.candidates
    found = col.finder.stored([col.analyze(base)], col.storage)
    assert [name for name, _ in found.by_source] == ["fixed", postings.name]
    evidence = found.evidence(0, keys["a"])
    assert evidence["fixed"] == 1.0
    shared = evidence[postings.name]
    assert shared is not None and shared > 0  # the samples the postings found shared
    assert found.evidence(0, keys["b"]).keys() == {postings.name}
    col.close()


def test_an_appended_source_decides_what_add_verifies_and_hears_of_writes() -> None:
    col = Collection.create("memory:", SPEC, IndexSpec(policy="reject"))
    base = tg.text(200, 3)
    col.add("a", base)
    key_a = col.get("a").key
    blind = FixedSource()
    col.sources = [blind]  # proposes nothing: a copy is never compared, so it is new
    assert col.add("copy1", base).reason == "new"
    assert blind.asked == 1 and blind.inserted_keys == [col.get("copy1").key]
    seeing = FixedSource([key_a])
    col.sources.append(seeing)
    refused = col.add("copy2", base)
    assert refused.reason == "duplicate" and [m.id for m in refused.matches] == ["a"]
    assert seeing.asked == 1 and seeing.inserted_keys == []  # nothing written
    col.remove("copy1")
    assert blind.removed_keys == seeing.removed_keys == [blind.inserted_keys[0]]
    col.close()


def test_check_goes_through_the_one_orchestration(monkeypatch: pytest.MonkeyPatch) -> None:
    col, base, _ = _two_near_copies()
    calls: list[dict[str, Any]] = []
    run = col.checker.run

    def spy(text: Any, **kwargs: Any) -> Any:
        calls.append(kwargs)
        return run(text, **kwargs)

    monkeypatch.setattr(col.checker, "run", spy)
    result = col.check(base, top=1)
    assert len(calls) == 1 and calls[0]["top"] == 1
    assert [m.id for m in result.matches] == ["a"]
    col.close()


def test_the_service_checks_through_the_one_orchestration_under_its_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = make_titled_collection(tmp_path)
    service = Service(ServiceConfig(db=db), Collection.open(db))
    checker = service.collection.checker
    held: dict[str, list[bool]] = {}

    def watch(name: str) -> None:
        real = getattr(checker, name)

        def spy(*args: Any, **kwargs: Any) -> Any:
            held.setdefault(name, []).append(service.lock.locked())
            return real(*args, **kwargs)

        monkeypatch.setattr(checker, name, spy)

    for name in ("run", "analyze", "look_up", "report"):
        watch(name)
    try:
        checked = service.check(copied_text(), fragments=True, exclude=["bakery.txt"])
        # one run: analysis and passages outside the lock, the storage's part under it
        assert held == {"run": [False], "analyze": [False], "look_up": [True], "report": [False]}
        assert not service.lock.locked()
        assert [m.id for m in checked.result.matches] == ["school.txt"]
        assert list(checked.info) == ["school.txt"]  # its title, read under the lock
        with Collection.open(db) as col:
            alone = col.check(copied_text(), fragments=True, exclude=["bakery.txt"])
        assert checked.to_dict() == alone.to_dict()
    finally:
        service.close()


def test_run_releases_the_guard_when_the_storage_part_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    col, base, _ = _two_near_copies()
    lock = threading.Lock()

    def fail(*args: Any, **kwargs: Any) -> Any:
        assert lock.locked()
        raise RuntimeError("storage gone")

    monkeypatch.setattr(col.checker, "look_up", fail)
    with pytest.raises(RuntimeError, match="storage gone"):
        Checker.run(col.checker, base, guard=lock)
    assert not lock.locked()
    col.close()


@pytest.mark.parametrize("top", [0, -1, 101, 2.5, True, "10"])
def test_check_refuses_a_top_out_of_bounds(top: object) -> None:
    """``top`` is bounded as the CLI and the API bound it (``defaults.TOP_MAX``)."""
    col = Collection.create("memory:", SPEC, IndexSpec(policy="allow"))
    with pytest.raises(InputError, match="top must be"):
        col.check("some words to check here", top=top)  # type: ignore[arg-type]

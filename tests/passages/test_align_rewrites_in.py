"""``Aligner.align(rewrites_in=…)``: the collection check looks for reworded passages only in
the sources it names and in those a copied passage was found in (a chance match of a large
collection is aligned for copies, the figure's part, but not searched for rewrites)."""

from __future__ import annotations

from neardup.fingerprints.pipeline import default_spec
from neardup.passages.align import Aligner
from tests.passages.test_rewrites import RU_SOURCE
from tests.passages.test_rewrites_marked import COPIED, QUERY


def _rewritten(rewrites_in: frozenset[str] | None, source: str = RU_SOURCE) -> int:
    alignment = Aligner(default_spec()).align(QUERY, [("src", source)], rewrites_in=rewrites_in)
    return sum(len(s.rewritten) for s in alignment.sources)


def test_every_source_is_searched_by_default() -> None:
    assert _rewritten(None) > 0


def test_a_source_not_named_and_with_nothing_copied_is_not_searched() -> None:
    assert _rewritten(frozenset()) == 0
    assert _rewritten(frozenset({"another"})) == 0


def test_a_named_source_is_searched() -> None:
    assert _rewritten(frozenset({"src"})) == _rewritten(None)


def test_a_source_with_a_copied_passage_is_searched_unnamed() -> None:
    query = QUERY + " " + COPIED
    aligner = Aligner(default_spec())
    source = RU_SOURCE + " " + COPIED
    limited = aligner.align(query, [("src", source)], rewrites_in=frozenset())
    every = aligner.align(query, [("src", source)])
    assert limited.sources[0].passages and limited.sources[0].rewritten
    assert limited.counts == every.counts

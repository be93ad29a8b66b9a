"""The policy object asked by add and check, and the candidate-source interface."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pytest

from neardup.errors import InputError
from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec
from neardup.index.candidates import (
    CandidatePairs,
    CandidateSource,
    PostingsSource,
    Query,
    sources_for,
)
from neardup.index.policy import Measure, Policy, PolicyKind, Reason, Verdict
from neardup.storage.base import NewDoc, Storage
from tests import _textgen as tg

SPEC = make_spec("plain")


@dataclass(frozen=True)
class M:
    group: int


def test_policy_of_spec_and_override() -> None:
    spec = IndexSpec(policy="group", measure="containment", threshold=0.4, group_cap=3)
    assert Policy.of(spec) == Policy(PolicyKind.GROUP, Measure.CONTAINMENT, 0.4, 3)
    assert Policy.of(spec, "allow").kind is PolicyKind.ALLOW
    with pytest.raises(InputError, match="policy must be one of reject, group, allow, got 'x'"):
        Policy.of(spec, "x")


def test_decisive_is_one_formula_for_scalars_and_arrays() -> None:
    res = Policy(PolicyKind.REJECT, Measure.RESEMBLANCE, 0.5, 10)
    cont = Policy(PolicyKind.REJECT, Measure.CONTAINMENT, 0.5, 10)
    assert res.decisive(0.2, 0.9, 0.1) == 0.2
    assert cont.decisive(0.2, 0.9, 0.1) == 0.9
    assert cont.reaches(0.2, 0.3, 0.5) and not res.reaches(0.2, 0.3, 0.5)
    # |Q ∩ D| = 5 of |Q| = 10, |D| = 5: resemblance 0.5, containments 0.5 and 1.0
    shared = np.array([5, 0, 2], dtype=np.int64)
    sq = np.array([10, 10, 10], dtype=np.int64)
    sd = np.array([5, 0, 100], dtype=np.int64)
    assert res.reaches_counts(shared, sq, sd).tolist() == [True, False, False]
    assert cont.reaches_counts(shared, sq, sd).tolist() == [True, False, False]
    assert res.could_reach(sq, np.array([5, 4, 20])).tolist() == [True, False, True]
    assert cont.could_reach(sq, sd) is None


def test_decide_every_policy() -> None:
    def size(groups: Sequence[int]) -> int:
        return {3: 2, 7: 1}[groups[0]] + (1 if len(groups) > 1 else 0)

    strongest_in_7 = [M(7), M(3)]
    reject = Policy(PolicyKind.REJECT, Measure.RESEMBLANCE, 0.5, 3)
    group = Policy(PolicyKind.GROUP, Measure.RESEMBLANCE, 0.5, 3)
    allow = Policy(PolicyKind.ALLOW, Measure.RESEMBLANCE, 0.5, 3)
    for p in (reject, group, allow):
        assert p.decide([], size) == Verdict(True, Reason.NEW, None)
    assert reject.decide(strongest_in_7, size) == Verdict(False, Reason.DUPLICATE, 7)
    assert allow.decide(strongest_in_7, size) == Verdict(True, Reason.LINKED, 3)
    assert group.decide([M(7)], size) == Verdict(True, Reason.GROUPED, 7)
    assert group.decide(strongest_in_7, size) == Verdict(False, Reason.GROUP_FULL, 3)
    assert Reason.GROUP_FULL == "group_full" and f"{Reason.NEW}" == "new"


def test_check_and_add_ask_the_same_policy() -> None:
    base = tg.text(200, 1)
    with Collection.create("memory:", SPEC, IndexSpec(policy="reject", threshold=0.5)) as col:
        col.add("a", base)
        near = tg.edit(base, 0.02, 2)
        for policy, reason in (("reject", "duplicate"), ("group", "grouped"), ("allow", "linked")):
            would = col.check(near, policy=policy).would
            assert (would.accepted, would.reason) == (policy != "reject", reason)
        decision = col.add("b", near)
        assert (decision.accepted, decision.reason) == (False, Reason.DUPLICATE)
        assert decision.to_dict()["reason"] == "duplicate"


def test_union_of_pairs() -> None:
    a = CandidatePairs(np.array([0, 0, 2]), np.array([5, 6, 5]))
    b = CandidatePairs(np.array([0, 1, 2]), np.array([6, 9, 7]))
    u = CandidatePairs.union([a, b])
    assert list(zip(u.pos.tolist(), u.other.tolist(), strict=True)) == [
        (0, 5),
        (0, 6),
        (1, 9),
        (2, 5),
        (2, 7),
    ]
    assert CandidatePairs.union([a]) is a
    assert len(CandidatePairs.union([])) == 0


class Everything:
    """A second source: proposes every stored document and every earlier text of the batch."""

    name = "everything"

    def stored(self, queries: Sequence[Query], storage: Storage) -> CandidatePairs:
        keys = np.array(sorted(storage.sizes(range(1, 1000))), dtype=np.int64)
        pos = np.repeat(np.arange(len(queries), dtype=np.int64), keys.shape[0])
        return CandidatePairs(pos, np.tile(keys, len(queries)))

    def in_batch(self, queries: Sequence[Query]) -> CandidatePairs:
        pairs = [(p, o) for p in range(len(queries)) for o in range(p)]
        return CandidatePairs(
            np.array([p for p, _ in pairs], dtype=np.int64),
            np.array([o for _, o in pairs], dtype=np.int64),
        )

    def inserted(self, docs: Sequence[NewDoc], storage: Storage) -> None:
        """Keeps no state of its own."""

    def removing(self, keys: Sequence[int], storage: Storage) -> None:
        """Keeps no state of its own."""


def test_a_second_source_slots_in_beside_winnowing() -> None:
    spec = IndexSpec(
        policy="allow", measure="containment", threshold=0.3, window=400, sentence_bands=0
    )
    (winnow,) = sources_for(spec, Collection.create("memory:", SPEC, spec).generator)
    assert isinstance(winnow, PostingsSource) and isinstance(winnow, CandidateSource)
    assert isinstance(Everything(), CandidateSource)
    # a run shorter than the window: winnowing (400 shingles) keeps one sample per text here,
    # and the copy's is not in the shared run
    source = tg.text(60, 5)
    copy = tg.text(200, 6) + " " + " ".join(source.split()[10:40])
    alone = Collection.create("memory:", SPEC, spec)
    both = Collection.create("memory:", SPEC, spec)
    both.sources = (*both.sources, Everything())
    for col in (alone, both):
        col.add_many([("s", source), ("t", tg.text(60, 7))])
    assert alone.check(copy).matches == ()
    assert [m.id for m in both.check(copy).matches] == ["s"]
    d_alone = alone.add_many([("c1", copy), ("c2", copy)])
    d_both = both.add_many([("c1", copy), ("c2", copy)])
    assert [d.reason for d in d_alone] == ["new", "linked"]
    assert [m.id for m in d_alone[1].matches] == ["c1"]
    assert [d.reason for d in d_both] == ["linked", "linked"]
    assert [m.id for m in d_both[0].matches] == ["s"]
    assert [m.id for m in d_both[1].matches] == ["c1", "s"]
    assert both.verify_integrity() == []

"""Exact measures: known values, the empty rule, and properties (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import SpecMismatchError
from neardup.fingerprints.similarity import Fingerprints, compare


def fps(values: list[int], multiset: bool = False, spec: str = "") -> Fingerprints:
    return Fingerprints.from_hashes(
        np.array(values, dtype=np.uint64), multiset=multiset, spec_fingerprint=spec
    )


def test_known_values() -> None:
    m = compare(fps([1, 2, 3, 4]), fps([3, 4, 5]))
    assert (m.shared, m.shingles_a, m.shingles_b) == (2, 4, 3)
    assert m.resemblance == pytest.approx(2 / 5)
    assert m.sorensen == pytest.approx(4 / 7)
    assert m.containment_ab == pytest.approx(2 / 4)
    assert m.containment_ba == pytest.approx(2 / 3)


def test_seed_000_example_sets_and_multisets() -> None:
    # seed 000: "A B C" vs "A C C", shingle size 1: with repeats a=3, b=3, c=2 → 4/6;
    # ignoring repeats a=3, b=2, c=2 → 4/5.
    a, b, c = 11, 22, 33
    assert compare(fps([a, b, c], True), fps([a, c, c], True)).sorensen == pytest.approx(4 / 6)
    assert compare(fps([a, b, c]), fps([a, c, c])).sorensen == pytest.approx(4 / 5)


def test_empty_sets_give_zero() -> None:
    empty = fps([])
    for m in (compare(empty, empty), compare(empty, fps([1, 2])), compare(fps([1]), empty)):
        assert (m.resemblance, m.sorensen, m.containment_ab, m.containment_ba) == (0, 0, 0, 0)


def test_refuses_mixed_specs_and_kinds() -> None:
    with pytest.raises(SpecMismatchError):
        compare(fps([1], spec="aaaa"), fps([1], spec="bbbb"))
    with pytest.raises(ValueError):
        compare(fps([1], True), fps([1]))


SETS = st.lists(st.integers(0, 40), max_size=40)


@settings(max_examples=200, deadline=None)
@given(a=SETS, b=SETS, multiset=st.booleans())
def test_properties(a: list[int], b: list[int], multiset: bool) -> None:
    fa, fb = fps(a, multiset), fps(b, multiset)
    ab, ba = compare(fa, fb), compare(fb, fa)
    for value in (ab.resemblance, ab.sorensen, ab.containment_ab, ab.containment_ba):
        assert 0.0 <= value <= 1.0
    assert ab.resemblance == ba.resemblance
    assert ab.sorensen == ba.sorensen
    assert ab.containment_ab == ba.containment_ba
    if a:
        same = compare(fa, fps(a, multiset))
        assert same.resemblance == same.sorensen == same.containment_ab == 1.0
    # a fragment is wholly contained in the whole
    if a:
        part = fps(a[: len(a) // 2 + 1], multiset)
        assert compare(part, fa).containment_ab == 1.0
    # the brute-force definition
    if not multiset:
        sa, sb = set(a), set(b)
        union = len(sa | sb)
        assert ab.resemblance == pytest.approx(len(sa & sb) / union if union else 0.0)

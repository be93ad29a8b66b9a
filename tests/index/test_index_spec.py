"""IndexSpec: defaults, validation, and the dict round trip stored in every collection."""

from __future__ import annotations

import pytest

from neardup.errors import SpecError
from neardup.spec import IndexSpec


def test_defaults_and_round_trip() -> None:
    spec = IndexSpec()
    assert spec.to_dict() == {
        "policy": "reject",
        "measure": "resemblance",
        "threshold": 0.7,
        "group_cap": 10,
        "candidates": "winnow",
        "window": 11,
        "max_candidates": 100,
        "max_postings_per_sample": 200,
        "store_text": True,
        "min_length": 0,
        "max_length": 0,
        "pmbf_n": 1000,
        "pmbf_p": 0.001,
        "pmbf_max_rows": 50,
        "short_window": 8,
        "lookup": "shingles",
        "sentence_bands": 12,
    }
    # a collection stored before short_window existed reads back with the default
    old = {k: v for k, v in spec.to_dict().items() if k != "short_window"}
    assert IndexSpec.from_dict(old) == spec
    other = IndexSpec(policy="group", measure="containment", threshold=1, group_cap=3, window=8)
    assert IndexSpec.from_dict(other.to_dict()) == other
    assert IndexSpec.from_dict(other.to_dict()).threshold == 1.0


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"policy": "maybe"}, "policy"),
        ({"measure": "cosine"}, "measure"),
        ({"threshold": 0.0}, "threshold"),
        ({"threshold": 1.5}, "threshold"),
        ({"threshold": True}, "threshold"),
        ({"group_cap": 0}, "group_cap"),
        ({"candidates": "bloom"}, "candidate method"),
        ({"window": 0}, "window"),
        ({"max_candidates": 0}, "max_candidates"),
        ({"max_postings_per_sample": -1}, "max_postings_per_sample"),
        ({"max_postings_per_sample": 2.5}, "max_postings_per_sample"),
        ({"min_length": -1}, "min_length"),
        ({"max_length": 1.5}, "max_length"),
        ({"min_length": 10, "max_length": 9}, "min_length 10 is above max_length 9"),
        ({"pmbf_n": 15}, "pmbf_n"),
        ({"pmbf_p": 0.0}, "pmbf_p"),
        ({"pmbf_p": 0.5}, "pmbf_p"),
        ({"pmbf_max_rows": -1}, "pmbf_max_rows"),
    ],
)
def test_invalid(changes: dict, match: str) -> None:
    with pytest.raises(SpecError, match=match):
        IndexSpec(**changes)


def test_unknown_keys_are_refused() -> None:
    with pytest.raises(SpecError, match="unknown index spec keys: colour"):
        IndexSpec.from_dict({"colour": "red"})


def test_length_range() -> None:
    spec = IndexSpec(min_length=2000, max_length=6000)
    assert [spec.length_refusal(n) for n in (0, 1999, 2000, 6000, 6001)] == [
        "too_short",
        "too_short",
        None,
        None,
        "too_long",
    ]
    assert spec.length_range() == "2000 to 6000 characters"
    assert IndexSpec(max_length=5).length_range() == "at most 5 characters"
    assert IndexSpec(min_length=5).length_range() == "at least 5 characters"
    assert IndexSpec().length_range() == "any length"
    assert IndexSpec().length_refusal(10**9) is None
    # collections stored before the limits existed open with none
    old = IndexSpec().to_dict()
    del old["min_length"], old["max_length"]
    assert IndexSpec.from_dict(old) == IndexSpec()


def test_a_collection_stored_before_the_filter_settings_opens_with_their_defaults() -> None:
    stored = {k: v for k, v in IndexSpec().to_dict().items() if not k.startswith("pmbf_")}
    assert IndexSpec.from_dict(stored) == IndexSpec()
    assert IndexSpec.from_dict({**stored, "candidates": "both"}).candidates == "both"

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
        "window": 24,
        "max_candidates": 100,
        "max_postings_per_sample": 200,
        "store_text": True,
        "pmbf_n": 1000,
        "pmbf_p": 0.001,
        "pmbf_max_rows": 50,
    }
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


def test_a_collection_stored_before_the_filter_settings_opens_with_their_defaults() -> None:
    stored = {k: v for k, v in IndexSpec().to_dict().items() if not k.startswith("pmbf_")}
    assert IndexSpec.from_dict(stored) == IndexSpec()
    assert IndexSpec.from_dict({**stored, "candidates": "both"}).candidates == "both"

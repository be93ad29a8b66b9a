"""Specs: round trips, stable fingerprints, validation."""

from __future__ import annotations

import pytest

from neardup import Spec, make_spec
from neardup.errors import SpecError, SpecMismatchError
from neardup.spec import FingerprintSpec, ShingleSpec


def test_round_trip_and_stable_fingerprint() -> None:
    spec = make_spec("ru", k=4, step=2, family="xxh3", bits=48, seed=9)
    again = Spec.from_json(spec.to_json())
    assert again == spec
    assert again.fingerprint() == spec.fingerprint()
    assert len(spec.fingerprint()) == 16


def test_plain_spec_fingerprint_is_pinned() -> None:
    # Changes only when ALGORITHM_VERSION or the spec's meaning changes; then bump both.
    assert make_spec("plain", k=3, html="never").fingerprint() == "5d106f85b595378b"


def test_every_parameter_changes_the_fingerprint() -> None:
    base = make_spec("plain")
    variants = [
        make_spec("ru"),
        make_spec("plain", k=4),
        make_spec("plain", step=2),
        make_spec("plain", unit="char"),
        make_spec("plain", family="xxh3"),
        make_spec("plain", bits=56),
        make_spec("plain", seed=1),
        make_spec("plain", multiset=True),
        make_spec("plain", html="never"),
        make_spec("plain", stop_words=("и",)),
    ]
    prints = {v.fingerprint() for v in variants}
    assert base.fingerprint() not in prints
    assert len(prints) == len(variants)


def test_validation() -> None:
    with pytest.raises(SpecError, match="positive"):
        ShingleSpec(k=0)
    with pytest.raises(SpecError, match="positive"):
        ShingleSpec(step=-1)
    with pytest.raises(SpecError, match="32 to 64 bits"):
        FingerprintSpec(bits=80)
    with pytest.raises(SpecError, match="takes a width of 32 bits"):
        FingerprintSpec(family="crc32", bits=64)
    with pytest.raises(SpecError, match="unknown hash family"):
        FingerprintSpec(family="md5")
    with pytest.raises(SpecError, match="takes no seed"):
        FingerprintSpec(family="crc64", seed=3)
    with pytest.raises(SpecError):
        Spec.from_json("{not json")
    with pytest.raises(SpecError):
        Spec.from_dict({"shingles": {}})


def test_check_same() -> None:
    spec = make_spec("plain")
    spec.check_same(make_spec("plain"))
    with pytest.raises(SpecMismatchError, match="different specs"):
        spec.check_same(make_spec("ru"), "the index")

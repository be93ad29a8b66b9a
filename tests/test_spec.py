"""Specs: round trips, stable fingerprints, validation."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from neardup import Spec, make_spec
from neardup.errors import SpecError, SpecMismatchError
from neardup.spec import (
    FingerprintSpec,
    IndexSpec,
    ShingleSpec,
    SketchSpec,
    default_bits,
)


def test_round_trip_and_stable_fingerprint() -> None:
    spec = make_spec("ru", k=4, step=2, family="xxh3", bits=48, seed=9)
    again = Spec.from_json(spec.to_json())
    assert again == spec
    assert again.fingerprint() == spec.fingerprint()
    assert len(spec.fingerprint()) == 16


def test_plain_spec_fingerprint_is_pinned() -> None:
    # Changes only when ALGORITHM_VERSION or the spec's meaning changes; then bump both.
    # the spec before the fold filter (issue 24) and the spec with it
    assert make_spec("plain", k=3, html="never", fold_tricks=False).fingerprint() == (
        "5d106f85b595378b"
    )
    assert make_spec("plain", k=3, html="never").fingerprint() == "98985e9a94cc605b"


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
    with pytest.raises(SpecError, match=r"^shingle k must be an integer in \[1, 1024\], got 0$"):
        ShingleSpec(k=0)
    with pytest.raises(
        SpecError, match=r"^shingle step must be an integer in \[1, 1024\], got -1$"
    ):
        ShingleSpec(step=-1)
    with pytest.raises(SpecError, match="rabin takes a width of 32 to 64 bits, got 80"):
        FingerprintSpec(bits=80)
    with pytest.raises(SpecError, match=r"fingerprint bits must be an integer in \[32, 64\]"):
        FingerprintSpec(bits=80.0)
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


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ShingleSpec(k=True), "shingle k must be an integer in [1, 1024], got True"),
        (lambda: ShingleSpec(k=2.0), "shingle k must be an integer in [1, 1024], got 2.0"),
        (lambda: ShingleSpec(k=2**63), f"shingle k must be an integer in [1, 1024], got {2**63}"),
        (
            lambda: ShingleSpec(unit="line"),
            "shingle unit must be one of 'word', 'char', got 'line'",
        ),
        (
            lambda: FingerprintSpec(seed=2**64),
            f"fingerprint seed must be an integer in [0, {2**64 - 1}], got {2**64}",
        ),
        (lambda: FingerprintSpec(bits=False), "fingerprint bits must be an integer in [32, 64]"),
        (lambda: FingerprintSpec(multiset=1), "fingerprint multiset must be true or false, got 1"),
        (
            lambda: SketchSpec(num_perm=True),
            "sketch num_perm must be an integer in [1, 65536], got True",
        ),
        (
            lambda: SketchSpec(value_bits=32.0),
            "sketch value_bits must be one of 32, 64, got 32.0",
        ),
        (
            lambda: IndexSpec(threshold=float("nan")),
            "index threshold must be a number in (0, 1], got nan",
        ),
        (
            lambda: IndexSpec(window=10**6),
            "index window must be an integer in [1, 4096], got 1000000",
        ),
        (lambda: IndexSpec(store_text="yes"), "index store_text must be true or false"),
    ],
)
def test_bad_values_are_named_with_what_was_expected(
    make: Callable[[], object], message: str
) -> None:
    with pytest.raises(SpecError) as info:
        make()
    assert str(info.value).startswith(message)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("cls", "data", "message"),
    [
        (ShingleSpec, {"k": 3, "size": 4}, "unknown shingle spec keys: size"),
        (FingerprintSpec, {"colour": 1}, "unknown fingerprint spec keys: colour"),
        (SketchSpec, {"num_perm": 64, "b": 2}, "unknown sketch spec keys: b"),
        (IndexSpec, {"colour": "red"}, "unknown index spec keys: colour"),
        (ShingleSpec, [("k", 3)], "shingle spec must be an object"),
    ],
)
def test_from_dict_refuses_unknown_keys_by_name(cls: Any, data: Any, message: str) -> None:
    with pytest.raises(SpecError, match=re.escape(message)):
        cls.from_dict(data)


def test_spec_from_dict_refuses_unknown_keys_at_every_level() -> None:
    good = make_spec("plain").to_dict()
    assert Spec.from_dict(good) == make_spec("plain")
    cases = [
        ({**good, "extra": 1}, "unknown spec keys: extra"),
        ({**good, "analyzer": {**good["analyzer"], "x": 1}}, "unknown analyzer spec keys: x"),
        (
            {**good, "analyzer": {"preset": "plain", "chains": {"*": {"tokeniser": {}}}}},
            "unknown analysis chain keys: tokeniser",
        ),
        ({**good, "shingles": {"k": 5, "kk": 1}}, "unknown shingle spec keys: kk"),
        ({**good, "analyzer": "plain"}, "analyzer spec must be an object"),
        ([1, 2], "spec must be an object"),
    ]
    for data, message in cases:
        with pytest.raises(SpecError, match=re.escape(message)):
            Spec.from_dict(data)


def test_index_threshold_is_kept_as_a_float() -> None:
    assert IndexSpec(threshold=1).threshold == 1.0
    assert isinstance(IndexSpec(threshold=1).threshold, float)
    assert IndexSpec.from_dict({"threshold": 1}).to_dict()["threshold"] == 1.0


def test_default_bits_is_the_widest_width() -> None:
    assert [default_bits(f) for f in ("rabin", "crc32", "crc64", "xxh3")] == [64, 32, 64, 64]
    assert make_spec("plain", family="crc32").fingerprint_family.bits == 32
    with pytest.raises(SpecError, match="unknown hash family 'md5'"):
        default_bits("md5")


def test_spec_module_does_not_import_the_registry() -> None:
    code = "import sys, neardup.spec; print('neardup.analysis.registry' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_resource_versions_name_the_packages_of_the_chain() -> None:
    assert make_spec("plain").analyzer.resource_versions() == {}
    # neardup's own stop list is fixed by its name: no package's version changes it
    assert sorted(make_spec("ru").analyzer.resource_versions()) == ["pymorphy3-dicts-ru"]
    assert sorted(make_spec("ru", stem=True).analyzer.resource_versions()) == [
        "PyStemmer",
        "pymorphy3-dicts-ru",
    ]
    assert sorted(make_spec("ru", stop_list="stop-words").analyzer.resource_versions()) == [
        "pymorphy3-dicts-ru",
        "stop-words",
    ]


def test_chains_keep_one_order_through_json() -> None:
    from neardup.analysis.analyzer import Analyzer
    from neardup.spec import AnalyzerSpec

    spec = make_spec("auto")
    assert spec.analyzer.languages == ("ru", "en")
    back = Spec.from_json(spec.to_json())  # the JSON's keys are sorted: "en" first
    assert back.analyzer.languages == ("ru", "en") and back == spec
    assert AnalyzerSpec("auto", tuple(reversed(spec.analyzer.chains))) == spec.analyzer
    # the first chain's char filters count the letters: Cyrillic combining marks, which the ru
    # chain strips, decided this text for the other language in a spec read back from JSON
    text = "the cats были here и\u0483\u0483\u0483\u0483\u0483\u0483 да\u0483\u0483\u0483\u0483"
    got = Analyzer(back.analyzer).canonical(text)
    assert got.language == "en"
    assert got.terms == Analyzer(spec.analyzer).canonical(text).terms

"""SketchSpec: defaults, validation, bands/rows completion, serialization inside a Spec."""

from __future__ import annotations

import pytest

from neardup import Spec, make_spec
from neardup.errors import SpecError
from neardup.spec import SketchSpec


def test_defaults_and_round_trip() -> None:
    sk = SketchSpec()
    assert (sk.method, sk.num_perm, sk.seed, sk.value_bits, sk.bands, sk.rows, sk.mega) == (
        "minhash",
        128,
        0,
        64,
        0,
        0,
        False,
    )
    full = make_spec("plain").replace(sketch=SketchSpec(num_perm=84, bands=6, rows=14, seed=5))
    again = Spec.from_json(full.to_json())
    assert again == full and again.fingerprint() == full.fingerprint()
    assert full.fingerprint() != make_spec("plain").fingerprint()
    assert (
        full.fingerprint()
        != full.replace(sketch=SketchSpec(num_perm=84, bands=14, rows=6, seed=5)).fingerprint()
    )


def test_bands_or_rows_alone_complete_each_other() -> None:
    assert (SketchSpec(num_perm=84, bands=6).rows, SketchSpec(num_perm=84, rows=6).bands) == (
        14,
        14,
    )
    with pytest.raises(SpecError, match="not divisible"):
        SketchSpec(num_perm=128, bands=5)
    with pytest.raises(SpecError, match="not divisible"):
        SketchSpec(num_perm=128, rows=3)
    assert SketchSpec(num_perm=128, bands=9, rows=14).bands == 9  # leftovers are allowed


@pytest.mark.parametrize(
    "kwargs",
    [
        {"method": "simhash"},
        {"num_perm": 0},
        {"num_perm": 1 << 17},
        {"num_perm": 2.5},
        {"seed": -1},
        {"value_bits": 16},
        {"value_bits": True},
        {"bands": -1},
        {"bands": 20, "rows": 7},
        {"mega": True},
        {"mega": True, "bands": 1, "rows": 2},
        {"method": "mod_m"},
        {"modulus": 4},
        {"method": "bottom_k", "bands": 4},
    ],
)
def test_invalid(kwargs: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(SpecError):
        SketchSpec(**kwargs)


def test_from_dict_rejects_unknown_keys() -> None:
    with pytest.raises(SpecError, match="unknown"):
        SketchSpec.from_dict({"num_perm": 64, "colour": "red"})
    assert SketchSpec.from_dict({"method": "mod_m", "modulus": 8}).modulus == 8

"""CLI option types come from the constraints the specs declare: same bounds, same refusals."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from neardup._constraints import Boolean, Integer, OneOf, Real
from neardup.cli._types import constraint_type, field_type
from neardup.cli.main import cli
from neardup.passages.align import CONSTRAINTS as ALIGN_CONSTRAINTS
from neardup.spec import MAX_SHINGLE_LENGTH, FingerprintSpec, IndexSpec, ShingleSpec, SketchSpec

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples" / "original.txt")


def test_types_carry_the_declared_bounds() -> None:
    k = field_type(ShingleSpec, "k")
    assert isinstance(k, click.IntRange) and (k.min, k.max) == (1, MAX_SHINGLE_LENGTH)
    seed = field_type(FingerprintSpec, "seed")
    assert isinstance(seed, click.IntRange) and (seed.min, seed.max) == (0, 2**64 - 1)
    num_perm = field_type(SketchSpec, "num_perm")
    assert isinstance(num_perm, click.IntRange) and num_perm.max == SketchSpec.MAX_NUM_PERM
    threshold = field_type(IndexSpec, "threshold")
    assert isinstance(threshold, click.FloatRange)
    assert (threshold.min, threshold.max, threshold.min_open) == (0.0, 1.0, True)
    policy = field_type(IndexSpec, "policy")
    assert isinstance(policy, click.Choice) and list(policy.choices) == ["reject", "group", "allow"]
    gap = constraint_type(ALIGN_CONSTRAINTS["gap"])
    assert isinstance(gap, click.IntRange) and gap.min == 0


def test_a_constraint_without_a_click_type_is_refused() -> None:
    with pytest.raises(TypeError):
        constraint_type(Boolean())
    with pytest.raises(TypeError):
        constraint_type(OneOf((32, 64)))


def test_the_float_type_refuses_nan_and_infinity() -> None:
    share = constraint_type(Real(0.0, 1.0))
    assert share.convert("0.25", None, None) == 0.25
    for bad in ("nan", "inf", "-inf", "1.5"):
        with pytest.raises(click.BadParameter):
            share.convert(bad, None, None)
    assert constraint_type(Integer(1, 3)).convert("3", None, None) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["compare", EXAMPLE, EXAMPLE, "-k", "9223372036854775808"], "1<=x<=1024"),
        (["compare", EXAMPLE, EXAMPLE, "--step", "0"], "1<=x<=1024"),
        (["compare", EXAMPLE, EXAMPLE, "--seed", str(2**64)], "0<=x<=18446744073709551615"),
        (["compare", EXAMPLE, EXAMPLE, "--fragments", "--gap", "-1"], "0<=x<=1000000"),
        (["sign", EXAMPLE, "-o", "out", "--num-perm", "99999999999"], "1<=x<=65536"),
        (["sign", EXAMPLE, "-o", "out", "--jobs", "-1"], "0<=x<=1024"),
        (["params", "--threshold", "nan"], "not a finite number"),
        (["params", "--bands", "0"], "1<=x<=65536"),
        (["index", "create", "x.db", "--threshold", "0"], "0<x<=1"),
        (["index", "create", "x.db", "--window", "100000"], "1<=x<=4096"),
        (["matrix", EXAMPLE, EXAMPLE, "--num-perm", "0"], "1<=x<=65536"),
    ],
)
def test_out_of_range_options_are_usage_errors(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not (tmp_path / "x.db").exists() and not (tmp_path / "out").exists()

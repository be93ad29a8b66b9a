"""Probability curves, the figures of seed 000 and 004, the megashingle formula, the chooser,
and the S-curve plots."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from neardup.errors import InputError, SpecError
from neardup.sketch import params as P


def test_seed_000_figures() -> None:
    # "для подобия 0,7 вероятность составляет всего лишь 0,04, а для подобия 0,5 – только 0,0003"
    p07, p05 = P.candidate_probability([0.7, 0.5], 6, 14).tolist()
    assert round(p07, 2) == 0.04
    assert 0.0003 <= p05 < 0.0004  # 0.000366: the paper truncates to 0.0003
    # 14 groups of 6: "при подобии 0,7 составляет примерно 0,83"
    assert round(float(P.candidate_probability(0.7, 14, 6)), 2) == 0.83
    # "для подобия ... 0,9, вероятность ... составит примерно 0,98" is wrong: it is 0.79
    p09 = float(P.candidate_probability(0.9, 6, 14))
    assert round(p09, 2) == 0.79 and abs(p09 - 0.98) > 0.15


def test_seed_004_figure() -> None:
    # b = 20, r = 5: a pair at 30 % becomes a candidate with probability ≈ 4.74 %
    assert round(float(P.candidate_probability(0.3, 20, 5)), 4) == 0.0475
    assert float(P.candidate_probability(0.8, 20, 5)) > 0.999


def test_formula_edges_and_monotonicity() -> None:
    s = np.linspace(0, 1, 101)
    for mega in (False, True):
        y = P.probability(s, 7, 4, mega=mega)
        assert y[0] == 0.0 and y[-1] == 1.0 and np.all(np.diff(y) >= 0)
    with pytest.raises(InputError):
        P.candidate_probability(1.5, 2, 2)
    with pytest.raises(SpecError):
        P.candidate_probability(0.5, 0, 2)
    with pytest.raises(SpecError):
        P.megashingle_probability(0.5, 1, 2)


def test_megashingle_probability_is_at_least_two_of_binomial() -> None:
    s, bands, rows = 0.75, 6, 5
    p = s**rows
    closed = 1 - (1 - p) ** bands - bands * p * (1 - p) ** (bands - 1)
    assert float(P.megashingle_probability(s, bands, rows)) == pytest.approx(closed, rel=1e-12)
    rng = np.random.default_rng(0)
    simulated = float(np.mean((rng.random((400_000, bands)) < p).sum(axis=1) >= 2))
    assert simulated == pytest.approx(closed, abs=0.004)
    naive = 1 - (1 - p * p) ** (bands * (bands - 1) // 2)  # treats overlapping pairs as independent
    assert abs(naive - closed) > 0.05
    # tiny probabilities keep their precision: P ≈ C(M, 2) p² for small p
    tiny = float(P.megashingle_probability(0.1, 6, 14))
    assert tiny == pytest.approx(15 * (0.1**14) ** 2, rel=1e-6)


def test_chooser() -> None:
    choice = P.choose(0.7, 128)
    assert choice.bands * choice.rows <= 128
    fp, fn = P.error_areas(0.7, choice.bands, choice.rows)
    assert choice.fp_area == pytest.approx(fp, abs=1e-9) and choice.fn_area == pytest.approx(
        fn, abs=1e-9
    )
    for b, r in (
        (choice.bands + 1, choice.rows),
        (choice.bands - 1, choice.rows),
        (choice.bands, choice.rows + 1),
        (choice.bands, choice.rows - 1),
    ):
        if 0 < b and 0 < r and b * r <= 128:
            assert sum(P.error_areas(0.7, b, r)) >= choice.score - 1e-12
    exact = P.choose(0.8, 84, exact=True)
    assert exact.bands * exact.rows == 84
    # missing similar pairs costs more → the curve moves left (a lower steepest point)
    cautious = P.choose(0.7, 128, fn_weight=5.0)
    assert cautious.steepest < choice.steepest
    mega = P.choose(0.7, 84, mega=True)
    assert mega.mega and mega.bands >= 2
    with pytest.raises(InputError):
        P.choose(1.2)


def test_rates_name_the_error() -> None:
    rows = P.rates(0.7, [0.5, 0.9], 14, 6)
    assert rows[0]["error"] == "false positive" and rows[0]["rate"] == rows[0]["probability"]
    assert rows[1]["error"] == "false negative" and rows[1]["rate"] == pytest.approx(
        1 - rows[1]["probability"]
    )


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot_files_are_written(tmp_path: Path, suffix: str) -> None:
    pytest.importorskip("matplotlib")
    path = tmp_path / f"curves{suffix}"
    P.plot_s_curves(path, [(6, 14, False), (14, 6, False), (14, 6, True)], threshold=0.7)
    data = path.read_bytes()
    assert len(data) > 10_000
    if suffix == ".png":
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
    else:
        assert b"<svg" in data[:2000] and data.count(b"<path") > 5


def test_plot_rejects_other_formats(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        P.plot_s_curves(tmp_path / "x.gif", [(2, 2, False)])

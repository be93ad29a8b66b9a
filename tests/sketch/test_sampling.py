"""Mod-m and bottom-k samples (Broder): unbiased selection, estimators, spec checks."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.errors import SpecError, SpecMismatchError
from neardup.fingerprints.similarity import Fingerprints, compare
from neardup.sketch import BottomK, ModM
from neardup.spec import SketchSpec


def fps(values: np.ndarray) -> Fingerprints:
    return Fingerprints(np.unique(values.astype(np.uint64)))


def overlapping(
    rng: np.random.Generator, shared: int, only_a: int, only_b: int
) -> tuple[Fingerprints, Fingerprints]:
    values = rng.choice(2**62, size=shared + only_a + only_b, replace=False).astype(np.uint64)
    a = values[: shared + only_a]
    b = np.concatenate([values[:shared], values[shared + only_a :]])
    return fps(a), fps(b)


@pytest.mark.parametrize("kind", ["consecutive", "multiples of m", "random"])
def test_mod_m_keeps_one_in_m_whatever_the_fingerprints(kind: str) -> None:
    m = 8
    n = 40_000
    if kind == "consecutive":  # small structured values, like CRCs or short Rabin fingerprints
        values = np.arange(n, dtype=np.uint64)
    elif kind == "multiples of m":  # x mod m would keep all of them
        values = np.arange(n, dtype=np.uint64) * np.uint64(m)
    else:
        values = np.random.default_rng(1).integers(0, 2**64 - 1, size=n, dtype=np.uint64)
    kept = len(ModM(modulus=m).sample(fps(values)))
    expected = n / m
    sd = np.sqrt(n * (1 / m) * (1 - 1 / m))
    assert abs(kept - expected) < 5 * sd, (kind, kept, expected)


def test_mod_m_estimates_resemblance_and_containment() -> None:
    rng = np.random.default_rng(2)
    sampler = ModM(SketchSpec(method="mod_m", modulus=4, seed=9))
    res_err, con_err = [], []
    for _ in range(60):
        a, b = overlapping(rng, 3000, 1000, 4000)
        exact = compare(a, b)
        sa, sb = sampler.sample_many([a, b])
        assert sa.size == len(a) and set(sa.values.tolist()) <= set(a.values.tolist())
        res_err.append(sampler.resemblance(sa, sb) - exact.resemblance)
        con_err.append(sampler.containment(sa, sb) - exact.containment_ab)
    # resemblance 0.375 from a 1/4 sample of 8000: sd ≈ sqrt(J(1-J)/2000) ≈ 0.011
    assert abs(np.mean(res_err)) < 0.006 and np.sqrt(np.mean(np.square(res_err))) < 0.02
    # containment 0.75 from ≈1000 sampled shingles of A: sd ≈ 0.014
    assert abs(np.mean(con_err)) < 0.008 and np.sqrt(np.mean(np.square(con_err))) < 0.025


def test_mod_m_identical_disjoint_and_empty() -> None:
    rng = np.random.default_rng(3)
    a, b = overlapping(rng, 0, 500, 500)
    sampler = ModM(modulus=2)
    sa, sb = sampler.sample_many([a, b])
    assert sampler.resemblance(sa, sa) == 1.0 and sampler.containment(sa, sa) == 1.0
    assert sampler.resemblance(sa, sb) == 0.0
    empty = sampler.sample(Fingerprints(np.zeros(0, dtype=np.uint64)))
    assert sampler.resemblance(empty, empty) == 0.0 and sampler.containment(empty, sa) == 0.0


def test_bottom_k_is_exact_for_small_sets_and_unbiased_for_large_ones() -> None:
    rng = np.random.default_rng(4)
    sketcher = BottomK(k=64)
    a, b = overlapping(rng, 20, 10, 5)  # |A ∪ B| = 35 ≤ k: the sample is the whole union
    sa, sb = sketcher.sample_many([a, b])
    assert sketcher.resemblance(sa, sb) == compare(a, b).resemblance
    errors, truth = [], []
    for _ in range(300):
        a, b = overlapping(rng, 500, 300, 200)
        sa, sb = sketcher.sample_many([a, b])
        j = compare(a, b).resemblance
        errors.append(sketcher.resemblance(sa, sb) - j)
        truth.append(j)
    sd = np.sqrt(0.5 * 0.5 / 64)
    assert abs(np.mean(errors)) < 4 * sd / np.sqrt(300)
    assert np.sqrt(np.mean(np.square(errors))) < 1.1 * sd


def test_bottom_k_containment_from_resemblance_and_sizes() -> None:
    rng = np.random.default_rng(5)
    sketcher = BottomK(k=256)
    errs = []
    for _ in range(50):
        a, b = overlapping(rng, 400, 100, 1500)  # A mostly inside B: containment 0.8
        sa, sb = sketcher.sample_many([a, b])
        errs.append(sketcher.containment(sa, sb) - compare(a, b).containment_ab)
    assert abs(np.mean(errs)) < 0.03 and np.sqrt(np.mean(np.square(errs))) < 0.12


def test_bottom_k_empty_and_checks() -> None:
    sketcher = BottomK(k=8)
    empty = sketcher.sample(Fingerprints(np.zeros(0, dtype=np.uint64)))
    some = sketcher.sample(Fingerprints(np.arange(1, 20, dtype=np.uint64)))
    assert len(empty) == 0 and len(some) == 8
    assert sketcher.resemblance(empty, some) == 0.0 and sketcher.containment(some, empty) == 0.0
    with pytest.raises(SpecMismatchError):
        sketcher.resemblance(
            some, BottomK(k=8, seed=1).sample(Fingerprints(np.arange(5, dtype=np.uint64)))
        )
    with pytest.raises(SpecMismatchError):
        ModM(modulus=2).resemblance(
            ModM(modulus=2).sample(Fingerprints(np.arange(5, dtype=np.uint64))),
            ModM(modulus=3).sample(Fingerprints(np.arange(5, dtype=np.uint64))),
        )
    with pytest.raises(SpecMismatchError):
        ModM(modulus=2).resemblance(some, some)  # type: ignore[arg-type]
    with pytest.raises(SpecError):
        BottomK(SketchSpec(method="minhash"))
    with pytest.raises(SpecError):
        ModM(SketchSpec(method="minhash"))

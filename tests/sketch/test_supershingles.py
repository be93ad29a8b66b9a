"""Supershingles / LSH band keys and megashingles: keys, positions, and the candidate rates
the formulas of neardup.sketch.params predict."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.errors import SpecError
from neardup.fingerprints.similarity import Fingerprints
from neardup.sketch import Banding, MinHasher, band_keys, megashingles, shares_key, supershingles
from neardup.sketch.params import candidate_probability, megashingle_probability
from neardup.spec import SketchSpec


def test_band_keys_shape_and_locality() -> None:
    rng = np.random.default_rng(1)
    sigs = rng.integers(0, 2**64 - 1, size=(2, 84), dtype=np.uint64)
    sigs[1] = sigs[0]
    sigs[1, 20] ^= np.uint64(1)  # one minhash differs: only band 20 // 14 = 1 changes
    keys = supershingles(sigs, 6, 14)
    assert keys.shape == (2, 6) and keys.dtype == np.uint64
    same = (keys[0] == keys[1]).tolist()
    assert same == [True, False, True, True, True, True]
    assert band_keys(sigs[0], 6, 14).tolist() == keys[0].tolist()


def test_keys_are_positional_and_seeded() -> None:
    flat = np.zeros((1, 12), dtype=np.uint64)  # every band holds the same values
    keys = band_keys(flat, 4, 3)
    assert len(set(keys[0].tolist())) == 4  # the band index is in the key
    assert band_keys(flat, 4, 3, seed=1).tolist() != keys.tolist()


def test_uint32_signatures_and_leftover_minhashes() -> None:
    sigs = np.arange(2 * 130, dtype=np.uint32).reshape(2, 130)
    keys = band_keys(sigs, 10, 13)
    assert keys.shape == (2, 10)
    with pytest.raises(SpecError):
        band_keys(sigs, 11, 12)
    with pytest.raises(ValueError):
        band_keys(sigs.astype(np.int64), 2, 2)


def test_megashingles_match_when_two_supershingles_match() -> None:
    keys_a = np.array([[1, 2, 3, 4]], dtype=np.uint64)
    one_shared = np.array([[1, 9, 9, 9]], dtype=np.uint64)
    two_shared = np.array([[1, 9, 3, 9]], dtype=np.uint64)
    mega_a = megashingles(keys_a)
    assert mega_a.shape == (1, 6)
    assert shares_key(keys_a, one_shared) and not shares_key(mega_a, megashingles(one_shared))
    assert shares_key(mega_a, megashingles(two_shared))
    with pytest.raises(SpecError):
        megashingles(np.array([[1]], dtype=np.uint64))


def test_banding_from_a_spec() -> None:
    spec = SketchSpec(num_perm=84, bands=14, mega=True)
    banding = Banding(spec)
    assert (banding.bands, banding.rows, banding.keys_per_document) == (14, 6, 91)
    sigs = MinHasher(spec).sign_many([Fingerprints(np.arange(1, 50, dtype=np.uint64))])
    assert banding.keys(sigs).shape == (1, 91)
    with pytest.raises(SpecError):
        Banding(SketchSpec())


def _pairs_at(
    rng: np.random.Generator, j: float, count: int, union: int = 300
) -> tuple[list[Fingerprints], list[Fingerprints]]:
    shared = round(j * union)
    a_list, b_list = [], []
    for _ in range(count):
        values = rng.choice(2**62, size=union, replace=False).astype(np.uint64)
        only = (union - shared) // 2
        a_list.append(Fingerprints(np.sort(values[: shared + only])))
        b_list.append(
            Fingerprints(np.sort(np.concatenate([values[:shared], values[shared + only :]])))
        )
    return a_list, b_list


@pytest.mark.parametrize(
    ("bands", "rows", "mega", "j"),
    [(14, 6, False, 0.7), (6, 14, False, 0.9), (20, 5, False, 0.5), (14, 6, True, 0.7)],
)
def test_candidate_rate_matches_the_formula(bands: int, rows: int, mega: bool, j: float) -> None:
    rng = np.random.default_rng(bands * 100 + rows)
    count = 600
    a_list, b_list = _pairs_at(rng, j, count)
    spec = SketchSpec(num_perm=bands * rows, bands=bands, rows=rows, mega=mega, seed=3)
    hasher, banding = MinHasher(spec), Banding(spec)
    ka, kb = banding.keys(hasher.sign_many(a_list)), banding.keys(hasher.sign_many(b_list))
    rate = float(np.mean(np.any(ka == kb, axis=1)))
    exact_j = round(j * 300) / 300
    p = float((megashingle_probability if mega else candidate_probability)(exact_j, bands, rows))
    sd = np.sqrt(p * (1 - p) / count)
    assert abs(rate - p) < 4.5 * sd + 0.01, (rate, p)

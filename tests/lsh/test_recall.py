"""Recall against brute force: on a generated set of 600 signatures (200 groups of 3 sets at
resemblances from 0.5 to 1), every pair whose estimated similarity is at least the threshold
is looked for with the index; the share found is measured with a fixed seed, on every store.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from neardup import LSHIndex, MinHasher
from neardup.spec import SketchSpec
from tests.lsh.conftest import Place

GROUPS = 200
PER_GROUP = 3
SET_SIZE = 200


def signatures(seed: int = 11) -> npt.NDArray[np.uint64]:
    """Group ``g``'s members are its base set with a share of the values swapped for fresh
    ones, the share drawn so that a member's resemblance to the base is uniform in
    [0.5, 1]."""
    rng = np.random.default_rng(seed)
    sets = []
    for _ in range(GROUPS):
        base = rng.integers(0, 2**63, SET_SIZE, dtype=np.uint64)
        for _ in range(PER_GROUP):
            j = rng.uniform(0.5, 1.0)
            swapped = int(round(SET_SIZE * (1 - j) / (1 + j)))  # |A∩B|/|A∪B| = j
            member = base.copy()
            member[:swapped] = rng.integers(0, 2**63, swapped, dtype=np.uint64)
            sets.append(rng.permutation(member))
    return np.asarray(MinHasher(SketchSpec()).sign_hashes(sets), dtype=np.uint64)


def brute_force(sigs: npt.NDArray[np.uint64], threshold: float) -> set[tuple[int, int]]:
    pairs = set()
    for i in range(sigs.shape[0]):
        share = (sigs[i + 1 :] == sigs[i]).mean(axis=1)
        pairs.update((i, i + 1 + int(j)) for j in np.flatnonzero(share >= threshold))
    return pairs


def found_pairs(index: LSHIndex, sigs: npt.NDArray[np.uint64]) -> set[tuple[int, int]]:
    out = set()
    for i, rows in enumerate(index.query_batch(sigs)):
        out.update((min(i, int(r.id)), max(i, int(r.id))) for r in rows if r.id != i)
    return out


def test_recall_against_brute_force(place: Place) -> None:
    sigs = signatures()
    truth = brute_force(sigs, 0.7)
    assert len(truth) == 213  # pairs at or above 0.7, for this seed
    index = LSHIndex(threshold=0.7, weights=(0.1, 0.9), spec=SketchSpec(), store=place.target)
    assert (index.bands, index.rows) == (20, 6)
    index.add_batch(list(range(sigs.shape[0])), sigs)
    found = found_pairs(index, sigs)
    recall = len(truth & found) / len(truth)
    assert recall >= 0.95
    assert len(truth & found) == 211
    assert len(found - truth) == 237  # the price: candidates below 0.7
    # the candidates' similarities are the brute force's estimates, pair for pair
    for rows, i in zip(index.query_batch(sigs[:50]), range(50), strict=True):
        for r in rows:
            assert r.similarity == float((sigs[i] == sigs[int(r.id)]).mean())


def test_the_default_weights_trade_recall_for_fewer_candidates() -> None:
    sigs = signatures()
    truth = brute_force(sigs, 0.7)
    index = LSHIndex(threshold=0.7, spec=SketchSpec())
    assert (index.bands, index.rows) == (14, 9)
    index.add_batch(list(range(sigs.shape[0])), sigs)
    found = found_pairs(index, sigs)
    assert len(truth & found) == 169  # recall 0.79
    assert len(found - truth) == 47  # candidates below 0.7

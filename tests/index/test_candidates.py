"""Winnowing: the definition, the shared-run guarantee, golden values; ranking of candidates."""

from __future__ import annotations

import numpy as np
import pytest

from neardup._kernels.winnow import remix, winnow
from neardup.fingerprints.hashing import splitmix64
from neardup.index.candidates import CandidateGenerator, Winnowing, generator_for, rank
from neardup.spec import IndexSpec

GOLDEN_IN = np.arange(1, 21, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
GOLDEN_OUT = [
    15755400384260043839,
    1663341875487337577,
    6018027440424182931,
    10372713005361028285,
    14727398570297873639,
    635340061525167377,
    16390740445785211216,
    9344711191398858085,
    13699396756335703439,
]


def _reference(hashes: np.ndarray, w: int) -> set[int]:
    """The definition in plain Python: per window the value with the smallest remix."""
    h = [int(x) for x in hashes]
    if not h:
        return set()
    w = min(w, len(h))
    key = [splitmix64((x - 0x9E3779B97F4A7C15) % 2**64) for x in h]
    return {h[min(range(i, i + w), key=lambda j: (key[j], -j))] for i in range(len(h) - w + 1)}


def test_remix_is_the_splitmix_finalizer() -> None:
    for x in (0, 1, 2**63, 2**64 - 1, 123456789):
        assert int(remix(np.uint64(x))) == splitmix64((x - 0x9E3779B97F4A7C15) % 2**64)


def test_golden() -> None:
    assert winnow(GOLDEN_IN, 4).tolist() == GOLDEN_OUT


@pytest.mark.parametrize("w", [1, 2, 5, 24, 100])
def test_matches_the_definition(w: int) -> None:
    rng = np.random.default_rng(w)
    for n in (0, 1, 3, 50, 400):
        h = rng.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2)
        assert set(winnow(h, w).tolist()) == _reference(h, w)


def test_ties_and_repeats() -> None:
    h = np.array([5, 5, 5, 5, 5], dtype=np.uint64)
    assert set(winnow(h, 2).tolist()) == {5}
    assert Winnowing(window=3).samples(h).tolist() == [5]


def test_every_shared_run_of_w_shingles_shares_a_sample() -> None:
    rng = np.random.default_rng(3)
    w = 16
    gen = Winnowing(window=w)
    for trial in range(50):
        run = rng.integers(0, 2**64 - 1, w, dtype=np.uint64)
        a = np.concatenate(
            [
                rng.integers(0, 2**64 - 1, 300, dtype=np.uint64),
                run,
                rng.integers(0, 2**64 - 1, 200, dtype=np.uint64),
            ]
        )
        b = np.concatenate([rng.integers(0, 2**64 - 1, 37 * trial % 500, dtype=np.uint64), run])
        assert np.intersect1d(gen.samples(a), gen.samples(b)).shape[0] >= 1


def test_density_is_about_two_over_w_plus_one() -> None:
    h = np.random.default_rng(9).integers(0, 2**64 - 1, 200_000, dtype=np.uint64)
    for w in (8, 24, 50):
        density = Winnowing(window=w).samples(h).shape[0] / h.shape[0]
        assert density == pytest.approx(2 / (w + 1), rel=0.05)


def test_generator_for_spec() -> None:
    gen = generator_for(IndexSpec(window=7))
    assert isinstance(gen, CandidateGenerator)
    assert isinstance(gen, Winnowing) and gen.window == 7


def test_rank_orders_by_shared_samples_then_key() -> None:
    values = np.array([1, 1, 2, 2, 2, 3, 9], dtype=np.uint64)
    keys = np.array([10, 11, 10, 11, 12, 12, 13], dtype=np.int64)
    got_keys, shared = rank(np.array([1, 2, 3], dtype=np.uint64), values, keys, limit=10)
    assert got_keys.tolist() == [10, 11, 12]
    assert shared.tolist() == [2, 2, 2]
    got_keys, shared = rank(np.array([2, 3], dtype=np.uint64), values, keys, limit=2)
    assert got_keys.tolist() == [12, 10] and shared.tolist() == [2, 1]
    assert rank(np.array([7], dtype=np.uint64), values, keys, limit=5)[0].tolist() == []

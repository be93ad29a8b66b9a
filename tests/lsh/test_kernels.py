"""The LSH kernels against a plain-Python reference: candidates (``min_similarity=0``: every
one) are exactly the live documents that share a band key with the query (keys of
:func:`neardup.sketch.band_keys`), with the share of minhashes equal in their low 16 bits as
similarity, best first; the default floor below the threshold; and the index without a store."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from neardup import LSHIndex
from neardup.errors import InputError, SpecError
from neardup.lsh.params import estimate_floor
from neardup.lsh.store import NullStore
from neardup.sketch import band_keys
from neardup.spec import SketchSpec

U64 = npt.NDArray[np.uint64]
LOW16 = 0xFFFF


def planted(n: int, seed: int, num_perm: int = 128, dtype: type = np.uint64) -> U64:
    """Random signatures where document ``i`` copies a random stretch of document ``i // 3``
    (so some share bands, at assorted similarities)."""
    rng = np.random.default_rng(seed)
    top = np.iinfo(dtype).max - 1
    sigs = rng.integers(0, top, size=(n, num_perm), dtype=dtype)
    for i in range(1, n):
        j = i // 3
        start = int(rng.integers(0, num_perm))
        stop = int(rng.integers(start, num_perm + 1))
        sigs[i, start:stop] = sigs[j, start:stop]
    return sigs


def reference(
    sigs: U64,
    alive: list[int],
    query: U64,
    bands: int,
    rows: int,
    seed: int,
    min_bands: int = 1,
) -> list[tuple[int, float]]:
    keys = band_keys(sigs, bands, rows, seed=seed)
    qkeys = band_keys(query, bands, rows, seed=seed)
    num = sigs.shape[1]
    out = []
    for d in alive:
        if np.count_nonzero(keys[d] == qkeys) >= min_bands:
            same = int(np.count_nonzero((sigs[d] & LOW16) == (query & LOW16)))
            if same:
                out.append((d, same / num))
    return sorted(out, key=lambda x: (-x[1], x[0]))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_candidates_are_the_documents_sharing_a_band(seed: int) -> None:
    sigs = planted(900, seed)
    index = LSHIndex(threshold=0.5, spec=SketchSpec(seed=seed))
    index.add_batch(list(range(900)), sigs)
    gone = list(range(0, 900, 7))
    index.remove_batch(gone)
    alive = [d for d in range(900) if d % 7]
    batch = index.query_batch(sigs[:300], min_similarity=0.0)
    for q in range(300):
        want = reference(sigs, alive, sigs[q], index.bands, index.rows, seed)
        got = [(r.id, r.similarity) for r in index.query(sigs[q], min_similarity=0.0)]
        assert got == want
        assert batch[q] == index.query(sigs[q], min_similarity=0.0)
    assert sum(len(rows) for rows in batch) > 400  # the planted copies are there


@pytest.mark.parametrize("min_bands", [2, 5])
def test_min_bands_counts_the_shared_bands(min_bands: int) -> None:
    sigs = planted(600, 12)
    index = LSHIndex(threshold=0.5, spec=SketchSpec())
    index.add_batch(list(range(600)), sigs)
    batch = index.query_batch(sigs[:200], min_bands=min_bands, min_similarity=0.0)
    kept = 0
    for q in range(200):
        want = reference(sigs, list(range(600)), sigs[q], index.bands, index.rows, 0, min_bands)
        assert [(r.id, r.similarity) for r in batch[q]] == want
        assert index.query(sigs[q], min_bands=min_bands, min_similarity=0.0) == batch[q]
        kept += len(want)
    everything = sum(len(rows) for rows in index.query_batch(sigs[:200], min_similarity=0.0))
    assert 200 < kept < everything  # some candidates share fewer bands
    assert index.bands == 34  # the recall weights' choice at 0.5
    with pytest.raises(InputError, match=r"min_bands must be in \[1, 34\]"):
        index.query(sigs[0], min_bands=35)


def test_growth_keeps_every_document_findable() -> None:
    index = LSHIndex(spec=SketchSpec())
    sigs = planted(5000, 9)
    for start in range(0, 5000, 37):  # many small batches: the slots and the table grow
        index.add_batch(list(range(start, min(start + 37, 5000))), sigs[start : start + 37])
    assert len(index) == 5000
    found = index.query_batch(sigs)
    assert all(rows and rows[0].id == i for i, rows in enumerate(found))
    assert index.query_key(4999) == [r for r in found[4999] if r.id != 4999]


def test_min_similarity_keeps_exactly_the_shares_at_or_above_it() -> None:
    sigs = planted(600, 4)
    index = LSHIndex(threshold=0.5, spec=SketchSpec())
    index.add_batch(list(range(600)), sigs)
    everything = [r for rows in index.query_batch(sigs, min_similarity=0.0) for r in rows]
    for floor in (0.25, 0.5, 81 / 128, 0.7, 1.0):
        kept = [r for rows in index.query_batch(sigs, min_similarity=floor) for r in rows]
        assert kept == [r for r in everything if r.similarity >= floor]
        one = [r for q in sigs for r in index.query(q, min_similarity=floor)]
        assert one == kept
    with pytest.raises(InputError, match="min_similarity must be in"):
        index.query(sigs[0], min_similarity=1.5)


def test_empty_set_signatures_find_nothing_and_are_not_found() -> None:
    index = LSHIndex(spec=SketchSpec())
    empty = np.full(128, np.iinfo(np.uint64).max, dtype=np.uint64)
    index.add_batch(["e1", "e2"], [empty, empty])
    index.add("x", planted(1, 5)[0])
    assert index.query(empty) == []
    assert index.query_key("e1") == []
    assert index.adjacency_list() == {"e1": [], "e2": [], "x": []}
    with pytest.raises(SpecError, match="made with a SketchSpec alone, so it takes signatures"):
        index.add("text", "some words")
    texts = LSHIndex()
    texts.add_batch(["empty", "blank"], ["", "  "])
    assert texts.query("") == [] and texts.query_key("empty") == []


def test_32_bit_signatures() -> None:
    index = LSHIndex(spec=SketchSpec(value_bits=32))
    sigs = planted(300, 6, dtype=np.uint32)
    index.add_batch(list(range(300)), sigs)
    want = reference(sigs, list(range(300)), sigs[4], index.bands, index.rows, 0)
    assert [(r.id, r.similarity) for r in index.query(sigs[4], min_similarity=0.0)] == want
    with pytest.raises(Exception, match="uint64 signatures; this index keeps uint32"):
        index.query(sigs[4].astype(np.uint64))


def test_without_a_store_nothing_is_kept_apart() -> None:
    index = LSHIndex(spec=SketchSpec())
    assert isinstance(index.store, NullStore)
    sigs = planted(30, 8)
    index.add_batch(list(range(30)), sigs)
    index.update(3, sigs[0])
    index.remove(4)
    assert index.store.load() == []
    assert [r.id for r in index.query(sigs[0])][:2] == [0, 3]
    assert len(LSHIndex(spec=SketchSpec())) == 0


def test_the_default_floor_is_the_threshold_less_the_estimates_margin() -> None:
    sigs = planted(600, 4)
    index = LSHIndex(threshold=0.5, spec=SketchSpec())
    index.add_batch(list(range(600)), sigs)
    floor = estimate_floor(0.5, 128)
    assert round(floor, 4) == 0.397  # 0.5 − 2.33 · sqrt(0.25 / 128)
    everything = [r for rows in index.query_batch(sigs, min_similarity=0.0) for r in rows]
    kept = [r for rows in index.query_batch(sigs) for r in rows]
    assert kept == [r for r in everything if r.similarity >= floor]
    assert [r for q in sigs for r in index.query(q)] == kept
    assert len(everything) > len(kept) > 600

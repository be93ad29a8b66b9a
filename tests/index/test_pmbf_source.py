"""The pseudo-matrix filter as a collection's candidate source: removal against from-scratch
construction (a property test), reloading after others' writes and failed ones."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.bloom import PseudoMatrixBloomFilter
from neardup.errors import DamagedCollectionError
from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec
from neardup.index.candidates import BloomRowsSource, NoSamples, generator_for, sources_for
from neardup.storage import FilterState
from neardup.storage.memory import MemoryStorage
from tests import _textgen as tg

SPEC = make_spec("plain")


def _source(col: Collection) -> BloomRowsSource:
    return next(s for s in col.sources if isinstance(s, BloomRowsSource))


def test_sources_for_each_method() -> None:
    names = [s.name for s in sources_for(IndexSpec(), generator_for(IndexSpec()))]
    assert names == ["winnow", "sentences"]
    pmbf = IndexSpec(candidates="pmbf")
    assert isinstance(generator_for(pmbf), NoSamples)
    assert [s.name for s in sources_for(pmbf, generator_for(pmbf))] == ["pmbf", "sentences"]
    both = IndexSpec(candidates="both", sentence_bands=0)
    assert [s.name for s in sources_for(both, generator_for(both))] == ["winnow", "pmbf"]


def test_a_pmbf_collection_keeps_no_postings() -> None:
    spec = IndexSpec(candidates="pmbf", pmbf_n=300, sentence_bands=0)
    col = Collection.create(MemoryStorage(), SPEC, spec)
    col.add_many([(f"d{i}", tg.text(120, i)) for i in range(5)])
    assert col.storage.counts()["postings"] == 0
    assert col.storage.pmbf_state().parts.shape[0] >= 5
    # with sentence keys, those are all it posts
    keyed = Collection.create(MemoryStorage(), SPEC, spec.replace(sentence_bands=6))
    texts = [(f"d{i}", tg.text(120, i)) for i in range(5)]
    keyed.add_many(texts)
    posted = keyed.storage.all_postings()[0]
    keys = np.concatenate([keyed.analyze(t).sentence_keys.reshape(-1) for _, t in texts])
    assert posted.shape[0] > 0 and np.array_equal(np.sort(posted), np.sort(keys))


@settings(max_examples=25, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 260), min_size=1, max_size=14),
    gone=st.sets(st.integers(0, 13), max_size=8),
    seed=st.integers(0, 10_000),
    batch=st.integers(1, 5),
)
def test_removal_leaves_the_rows_the_remaining_documents_give(
    sizes: list[int], gone: set[int], seed: int, batch: int
) -> None:
    """After removals the stored rows are exactly the remaining documents' parts set in place
    (the removed documents leave holes, per the placement rule), rows that held none of them
    are untouched, and re-packing them is exactly the filter that adding the remaining
    documents to an empty one gives."""
    spec = IndexSpec(candidates="pmbf", policy="allow", pmbf_n=200, pmbf_max_rows=0)
    col = Collection.create(MemoryStorage(), SPEC, spec)
    docs = [(f"d{i}", tg.text(n, seed + i) if n else "") for i, n in enumerate(sizes)]
    col.add_many(docs, batch_size=batch)
    src = _source(col)
    before = col.storage.pmbf_state()
    removed = sorted(i for i in gone if i < len(docs))
    keys = {d.id: d.key for batch_ in col.storage.iter_docs() for d in batch_}
    held = {
        p.row
        for i in removed
        if keys[f"d{i}"] in src.current(col.storage)
        for p in src.current(col.storage).placement_of(keys[f"d{i}"])
    }
    if removed:
        col.remove([f"d{i}" for i in removed])
    after = col.storage.pmbf_state()
    # rows that held no removed document are byte for byte what they were
    untouched = [r for r in before.rows.tolist() if r not in held]
    assert np.array_equal(after.bits[untouched], before.bits[untouched])
    # every row is exactly its remaining parts, set into an empty row
    remaining = {
        f.key: f.values
        for batch_ in col.storage.iter_fingerprints()
        for f in batch_
        if f.values.shape[0]
    }
    loaded = src.load(col.storage)
    expected = np.zeros_like(after.bits)
    for key, row, start, stop in after.parts.tolist():
        scratch = PseudoMatrixBloomFilter(n=200, p=spec.pmbf_p)
        scratch.add(0, remaining[key][start:stop])
        expected[row] |= scratch.rows[0]
    assert np.array_equal(after.bits, expected)
    assert sorted(set(after.parts[:, 0].tolist())) == sorted(remaining)
    assert np.array_equal(after.free, loaded.free_space())
    # re-packed, the filter is the one adding the remaining documents from scratch gives
    fresh = src.empty_filter(lambda ks: {k: remaining[k] for k in ks})
    for key in sorted(remaining):
        fresh.add(key, remaining[key])
    loaded.compact()
    got, want = loaded.to_arrays(), fresh.to_arrays()
    for name in ("rows", "free", "placement", "sizes"):
        assert np.array_equal(got[name], want[name]), name
    # and the collection with the same documents added afresh stores that same filter
    again = Collection.create(MemoryStorage(), SPEC, spec)
    again.add_many([d for i, d in enumerate(docs) if i not in removed], batch_size=batch)
    if not removed:
        assert np.array_equal(again.storage.pmbf_state().bits, after.bits)


def test_a_failed_write_is_forgotten() -> None:
    spec = IndexSpec(candidates="pmbf", policy="allow", pmbf_n=300)
    col = Collection.create(MemoryStorage(), SPEC, spec)
    col.add("a", tg.text(150, 1))
    src = _source(col)
    stored = col.storage.pmbf_state()

    def fail(changes: FilterState, *, drop_keys: object = ()) -> None:
        raise OSError("disk full")

    col.storage.write_pmbf = fail  # type: ignore[method-assign]
    with pytest.raises(OSError):
        col.add("b", tg.text(150, 2))
    del col.storage.write_pmbf
    assert col.storage.pmbf_state().parts.tolist() == stored.parts.tolist()
    assert list(src.current(col.storage).keys()) == [1]
    col.add("b", tg.text(150, 2))
    assert list(src.current(col.storage).keys()) == [1, 2]


def test_damaged_free_space_is_refused() -> None:
    spec = IndexSpec(candidates="pmbf", pmbf_n=300)
    col = Collection.create(MemoryStorage(), SPEC, spec)
    col.add("a", tg.text(150, 1))
    state = col.storage.pmbf_state()
    with col.storage.transaction():
        col.storage.write_pmbf(FilterState(state.rows, state.bits, state.free + 1, state.parts[:0]))
    with pytest.raises(DamagedCollectionError, match="free-space"):
        _source(col).load(col.storage)


def test_integrity_check_finds_damaged_rows_and_placements() -> None:
    spec = IndexSpec(candidates="both", policy="allow", pmbf_n=300)
    col = Collection.create(MemoryStorage(), SPEC, spec)
    col.add_many([(f"d{i}", tg.text(150, i)) for i in range(6)])
    assert col.verify_integrity() == []
    state = col.storage.pmbf_state()
    flipped = state.bits[:1].copy()
    flipped[0, 0] ^= np.uint64(1)
    with col.storage.transaction():
        col.storage.write_pmbf(
            FilterState(state.rows[:1], flipped, state.free[:1], state.parts[:0])
        )
    assert col.verify_integrity() == [
        "Bloom filter rows [0] are not the bits of the documents placed in them"
    ]
    with col.storage.transaction():
        col.storage.write_pmbf(FilterState(state.rows, state.bits, state.free, state.parts[:0]))
    assert col.verify_integrity() == []
    # parts dropped without their free space: the placement and free-space indexes disagree
    with col.storage.transaction():
        col.storage.write_pmbf(FilterState.empty(), drop_keys=[3])
    assert col.verify_integrity() == [
        "the stored Bloom filter's free-space index disagrees with its placement index"
    ]
    # a document taken out of the filter consistently, but still stored
    with col.storage.transaction():
        back = state.parts[state.parts[:, 0] == 3]
        col.storage.write_pmbf(FilterState(state.rows, state.bits, state.free, back))
        f = _source(col).load(col.storage)
        rows = np.array(f.remove(3), dtype=np.int64)
        col.storage.write_pmbf(
            FilterState(rows, f.rows[rows], f.free_space()[rows], state.parts[:0]), drop_keys=[3]
        )
    assert col.verify_integrity() == ["doc 3 is not in the Bloom filter"]


@pytest.mark.parametrize("method", ["winnow", "pmbf", "both"])
def test_an_unchecked_load_stores_what_a_checked_one_does_without_links(method: str) -> None:
    """``check=False`` stores every text inside the length range, each a group of its own,
    with no links; the stored index (postings, Bloom rows, placement) is the one checked adds
    of the same texts under ``allow`` give, so later checks find the same matches."""
    base = [tg.text(150, 300 + i) for i in range(6)]
    texts = [*base, tg.edit(base[2], 0.01, 7), tg.edit(base[4], 0.01, 8), "too short"]
    items = [(f"d{i}", t) for i, t in enumerate(texts)]
    spec = IndexSpec(candidates=method, pmbf_n=300, min_length=100, policy="reject")
    bulk = Collection.create(MemoryStorage(), SPEC, spec)
    decisions = bulk.add_many(items, batch_size=3, check=False)
    assert [(d.accepted, str(d.reason)) for d in decisions] == [(True, "unchecked")] * 8 + [
        (False, "too_short")
    ]
    assert [d.group for d in decisions[:8]] == [d.key for d in decisions[:8]] == list(range(1, 9))
    assert all(d.matches == () for d in decisions)
    assert bulk.storage.counts()["links"] == 0 and bulk.storage.counts()["groups"] == 0
    checked = Collection.create(MemoryStorage(), SPEC, replace(spec, policy="allow"))
    linked = checked.add_many(items, batch_size=3)
    assert [str(d.reason) for d in linked].count("linked") == 2  # the two edits
    assert checked.storage.counts()["links"] == 2
    assert np.array_equal(bulk.storage.all_postings()[0], checked.storage.all_postings()[0])
    a, b = bulk.storage.pmbf_state(), checked.storage.pmbf_state()
    assert np.array_equal(a.bits, b.bits) and np.array_equal(a.parts, b.parts)
    query = tg.edit(base[2], 0.02, 9)
    assert [m.id for m in bulk.check(query).matches] == ["d2", "d6"]
    assert [m.id for m in checked.check(query).matches] == ["d2", "d6"]
    assert bulk.verify_integrity() == []

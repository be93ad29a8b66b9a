"""The LSH index's behaviour, the same on every store: memory, SQLite and PostgreSQL.

Texts are generated (tests/_textgen.py); near copies are edits of a few words, so their
resemblance is far above the threshold, and unrelated texts share no band.
"""

from __future__ import annotations

import numpy as np
import pytest

from neardup import DEFAULTS, LSHIndex, MinHasher, default_spec
from neardup.errors import (
    DuplicateIdError,
    InputError,
    NotFoundError,
    SpecMismatchError,
)
from neardup.fingerprints.similarity import resemblance
from neardup.lsh import LSHResult
from neardup.sketch import choose
from tests._textgen import edit, text
from tests.lsh.conftest import Place

BASE = [text(300, seed) for seed in range(6)]
NEAR = edit(BASE[0], 0.02, 100)
OTHER = text(300, 999)


def make(place: Place, **options: object) -> LSHIndex:
    return LSHIndex(store=place.target, **options)  # type: ignore[arg-type]


def estimate(index: LSHIndex, a: str, b: str) -> float:
    """The index's estimate for two texts: the share of their minhashes equal in the low 16
    bits (what the index keeps of each)."""
    one, two = MinHasher(index.spec).sign_texts([a, b])
    low = np.uint64(0xFFFF)
    return float(np.count_nonzero((one & low) == (two & low))) / index.num_perm


def filled(place: Place, **options: object) -> LSHIndex:
    index = make(place, **options)
    index.add_batch([f"d{i}" for i in range(len(BASE))], BASE)
    return index


def test_parameters_come_from_the_chooser_and_the_default_spec(place: Place) -> None:
    index = make(place)
    choice = choose(0.7, 128, fp_weight=0.02, fn_weight=0.98)
    assert (index.bands, index.rows) == (choice.bands, choice.rows) == (23, 5)
    assert (index.b, index.r, index.h) == (23, 5, 128)  # datasketch's names
    assert index.num_perm == 128
    spec = index.spec
    assert spec.replace(sketch=None) == default_spec().replace(sketch=None)  # type: ignore[union-attr]
    assert DEFAULTS.k == spec.shingles.k  # type: ignore[union-attr]


def test_a_near_copy_is_found_and_an_unrelated_text_is_not(place: Place) -> None:
    index = filled(place)
    found = index.query(NEAR)
    assert [r.id for r in found] == ["d0"]
    expected = estimate(index, NEAR, BASE[0])
    assert found[0].similarity == expected
    assert 0.7 < expected < 1.0
    assert index.query(OTHER) == []


def test_results_are_objects_sorted_best_first(place: Place) -> None:
    index = filled(place)
    index.add("near", NEAR)
    index.add("nearer", edit(BASE[0], 0.005, 7))
    found = index.query(BASE[0])
    assert [r.id for r in found] == ["d0", "nearer", "near"]
    assert all(isinstance(r, LSHResult) for r in found)
    sims = [r.similarity for r in found]
    assert sims[0] == 1.0 and sims == sorted(sims, reverse=True) and sims[2] < sims[1]
    assert [r.id for r in index.query(BASE[0], limit=2)] == ["d0", "nearer"]
    assert [r.id for r in index.query(BASE[0], min_similarity=sims[1])] == ["d0", "nearer"]


def test_query_by_key_leaves_the_key_out(place: Place) -> None:
    index = filled(place)
    index.add("near", NEAR)
    assert [r.id for r in index.query_key("d0")] == ["near"]
    assert [r.id for r in index.query_key("near")] == ["d0"]
    assert index.query_key("d3") == []
    with pytest.raises(NotFoundError, match="'nope' is not in the index"):
        index.query_key("nope")


def test_query_by_signature_is_the_query_by_text(place: Place) -> None:
    index = filled(place)
    sig = MinHasher(index.spec).sign_texts([NEAR])[0]
    assert index.query(sig) == index.query(NEAR)
    assert index.query(list(sig.tolist())) == index.query(NEAR)


def test_contains_length_and_keys_in_order(place: Place) -> None:
    index = filled(place)
    index.add(np.int64(7), OTHER)  # a numpy integer is taken as the int it holds
    assert "d0" in index and 7 in index and np.int64(7) in index
    assert "d9" not in index and "7" not in index and True not in index
    assert len(index) == 7
    assert index.keys() == ["d0", "d1", "d2", "d3", "d4", "d5", 7]
    assert list(index) == index.keys()


def test_adding_a_key_twice_is_refused_and_changes_nothing(place: Place) -> None:
    index = filled(place)
    with pytest.raises(DuplicateIdError, match="'d1' is already in the index: use update"):
        index.add("d1", NEAR)
    with pytest.raises(DuplicateIdError, match="given twice"):
        index.add_batch(["x", "x"], [NEAR, OTHER])
    with pytest.raises(DuplicateIdError):
        index.add_batch(["new", "d2"], [NEAR, OTHER])
    assert "new" not in index and len(index) == 6
    assert [r.id for r in index.query(NEAR)] == ["d0"]
    index.close()
    again = make(place)
    assert again.keys() == [f"d{i}" for i in range(6)]


def test_removal_forgets_and_persists(place: Place) -> None:
    index = filled(place)
    index.add("near", NEAR)
    index.remove("d0")
    assert "d0" not in index
    assert [r.id for r in index.query(BASE[0])] == ["near"]
    with pytest.raises(NotFoundError, match="'d0' is not in the index"):
        index.remove("d0")
    with pytest.raises(NotFoundError):
        index.remove_batch(["d1", "missing"])
    assert "d1" in index
    index.close()
    again = make(place)
    assert "d0" not in again and len(again) == 6
    assert [r.id for r in again.query(BASE[0])] == ["near"]


def test_update_replaces_the_content(place: Place) -> None:
    index = filled(place)
    index.update("d0", OTHER)
    assert index.query(BASE[0]) == []
    assert [r.id for r in index.query(OTHER)] == ["d0"]
    assert index.query(OTHER)[0].similarity == 1.0
    assert len(index) == 6
    with pytest.raises(NotFoundError, match="'zz' is not in the index"):
        index.update("zz", OTHER)
    index.close()
    again = make(place)
    assert [r.id for r in again.query(OTHER)] == ["d0"]
    assert again.query(BASE[0]) == []
    assert again.keys() == ["d1", "d2", "d3", "d4", "d5", "d0"]


def test_a_reopened_index_gives_the_same_answers(place: Place) -> None:
    index = filled(place)
    index.add_batch(["n1", "n2", 3], [NEAR, edit(BASE[1], 0.03, 5), edit(BASE[1], 0.01, 6)])
    queries = [NEAR, BASE[0], BASE[1], OTHER]
    before = index.query_batch(queries)
    adjacency = index.adjacency_list()
    edges = index.edge_list()
    index.close()
    for again in (make(place), LSHIndex.open(place.target)):
        assert again.query_batch(queries) == before
        assert again.adjacency_list() == adjacency
        assert again.edge_list() == edges
        assert (again.bands, again.rows, again.threshold) == (23, 5, 0.7)


def test_a_reopen_with_other_parameters_is_refused(place: Place) -> None:
    filled(place).close()
    with pytest.raises(SpecMismatchError, match=r"threshold: stored '0.7', asked '0.8'"):
        make(place, threshold=0.8)
    with pytest.raises(SpecMismatchError, match=r"num_perm: stored '128', asked '64'"):
        make(place, num_perm=64)
    with pytest.raises(SpecMismatchError, match=r"verify: stored '0', asked '1'"):
        make(place, verify=True)
    with pytest.raises(SpecMismatchError, match=r"spec_fingerprint"):
        make(place, spec=default_spec(k=4))
    assert len(make(place)) == 6


def test_adjacency_and_edge_lists(place: Place) -> None:
    index = filled(place)
    index.add_batch(["a", "b"], [NEAR, edit(BASE[2], 0.02, 3)])
    near = estimate(index, BASE[0], NEAR)
    two = estimate(index, BASE[2], edit(BASE[2], 0.02, 3))
    assert index.adjacency_list() == {
        "d0": ["a"],
        "d1": [],
        "d2": ["b"],
        "d3": [],
        "d4": [],
        "d5": [],
        "a": ["d0"],
        "b": ["d2"],
    }
    by_sim = sorted([("d0", "a", near), ("d2", "b", two)], key=lambda e: -e[2])
    assert index.edge_list() == by_sim
    assert index.edge_list(weighted=False) == [(x, y) for x, y, _ in by_sim]
    floor = max(near, two)
    assert index.edge_list(min_similarity=floor) == by_sim[:1]


def test_batch_queries_and_signature_matrices(place: Place) -> None:
    index = make(place)
    sigs = MinHasher(index.spec).sign_texts(BASE)
    index.add_batch(list(range(len(BASE))), sigs)
    assert index.keys() == list(range(6))
    queries = [NEAR, OTHER, BASE[3]]
    batch = index.query_batch(queries)
    assert batch == [index.query(q) for q in queries]
    assert [[r.id for r in rows] for rows in batch] == [[0], [], [3]]
    assert index.query_batch(MinHasher(index.spec).sign_texts(queries)) == batch


def test_wrong_signatures_and_keys_are_refused(place: Place) -> None:
    index = filled(place)
    with pytest.raises(SpecMismatchError, match="signatures of 64 values; this index takes 128"):
        index.add("x", np.zeros(64, dtype=np.uint64))
    with pytest.raises(SpecMismatchError, match="signatures of 64 values"):
        index.query(np.zeros(64, dtype=np.uint64))
    with pytest.raises(InputError, match="a key must be a str or an int"):
        index.add(1.5, NEAR)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="2 keys for 1 documents"):
        index.add_batch(["x", "y"], [NEAR])
    with pytest.raises(InputError, match="use query_batch"):
        index.query(np.zeros((2, 128), dtype=np.uint64))
    assert len(index) == 6


def test_verification_reports_the_exact_resemblance(place: Place) -> None:
    index = filled(place, verify=True)
    index.add("near", NEAR)
    pipeline = MinHasher(index.spec).pipeline
    exact = resemblance(pipeline.fingerprints(NEAR), pipeline.fingerprints(BASE[0]))
    assert [(r.id, r.similarity) for r in index.query(NEAR)] == [("near", 1.0), ("d0", exact)]
    assert index.edge_list() == [("d0", "near", exact)]
    with pytest.raises(InputError, match="verifies"):
        index.query(np.zeros(128, dtype=np.uint64))
    with pytest.raises(InputError, match="verifies"):
        index.add("sig", np.zeros(128, dtype=np.uint64))
    before = index.query_batch([NEAR, BASE[3]])
    index.close()
    again = make(place, verify=True)
    assert [(r.id, r.similarity) for r in again.query_key("near")] == [("d0", exact)]
    assert again.query_batch([NEAR, BASE[3]]) == before


def test_many_removals_compact_and_keep_the_answers(place: Place) -> None:
    index = make(place)
    rng = np.random.default_rng(3)
    sigs = rng.integers(0, 2**63, size=(3000, 128), dtype=np.uint64)
    index.add_batch(list(range(3000)), sigs)
    index.remove_batch(list(range(0, 2500)))
    assert len(index) == 500
    assert [r.id for r in index.query(sigs[2700])] == [2700]
    assert index.query(sigs[10]) == []
    index.add(10, sigs[10])
    assert [r.id for r in index.query(sigs[10])] == [10]
    assert index.keys() == [*range(2500, 3000), 10]

"""The pseudo-matrix filter: placement, free space, deletion, compaction, scores, persistence."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup._kernels import pmbf
from neardup.bloom import (
    BloomFilter,
    CountingBloomFilter,
    MatrixBloomFilter,
    Part,
    PseudoMatrixBloomFilter,
    verify,
)
from neardup.errors import (
    ConfigurationError,
    DuplicateIdError,
    InputError,
    NotFoundError,
    NotSupportedError,
    StorageError,
)


def fps(seed: int, size: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.unique(rng.integers(0, 2**63, size=size, dtype=np.uint64))


def reference_rows(bloom: PseudoMatrixBloomFilter, sets: dict[int, np.ndarray]) -> np.ndarray:
    """Rows set from the placement index alone, by plain NumPy (no kernel)."""
    rows = np.zeros((bloom.n_rows, bloom.words * 64), dtype=np.uint8)
    for key in bloom.keys():
        for part in bloom.placement_of(key):
            pos = pmbf.positions(sets[key][part.start : part.stop], bloom.k, bloom.m, bloom.seed)
            rows[part.row, pos.astype(np.int64)] = 1
    return np.packbits(rows, axis=1, bitorder="little").view(np.uint64)


def test_placement_packs_several_documents_and_spans_rows() -> None:
    bloom = PseudoMatrixBloomFilter(n=100, p=0.05, min_part=10)
    assert bloom.add(1, fps(1, 40)) == (Part(0, 0, 40),)
    assert bloom.add(2, fps(2, 50)) == (Part(0, 0, 50),)  # 60 free in row 0
    assert bloom.free_space().tolist() == [10]
    assert bloom.add(3, fps(3, 130)) == (Part(0, 0, 10), Part(1, 10, 110), Part(2, 110, 130))
    assert bloom.free_space().tolist() == [0, 0, 80]
    assert bloom.add(4, fps(4, 75)) == (Part(2, 0, 75),)
    assert bloom.add(5, fps(5, 8)) == (Part(3, 0, 8),)  # 5 free in row 2 < 8 and < min_part
    assert bloom.docs_in_row(0) == [1, 2, 3]
    assert bloom.docs_in_row(2) == [3, 4]
    assert bloom.load().tolist() == [100, 100, 95, 8]


def test_whole_placement_and_matrix_filter() -> None:
    whole = PseudoMatrixBloomFilter(n=100, p=0.05, placement="whole")
    assert whole.add(1, fps(1, 60)) == (Part(0, 0, 60),)
    assert whole.add(2, fps(2, 150)) == (Part(1, 0, 150),)  # over-full, never split
    assert whole.add(3, fps(3, 40)) == (Part(0, 0, 40),)
    assert whole.free_space().tolist() == [0, 0]
    matrix = MatrixBloomFilter(n=100, p=0.05)
    for key in range(3):
        matrix.add(key, fps(key, 10))
    assert matrix.n_rows == 3
    matrix.remove(1)
    matrix.add(7, fps(7, 10))
    assert matrix.placement_of(7) == (Part(1, 0, 10),)  # the emptied row is reused
    with pytest.raises(NotSupportedError):
        matrix.compact()
    back = PseudoMatrixBloomFilter.from_bytes(matrix.to_bytes())
    assert back.docs_per_row().tolist() == [1, 1, 1]
    back.add(8, fps(8, 10))
    assert back.placement_of(8) == (Part(3, 0, 10),)  # still one document a row


def test_rows_equal_the_reference() -> None:
    sets = {k: fps(k, s) for k, s in [(1, 300), (2, 50), (3, 700), (4, 1)]}
    bloom = PseudoMatrixBloomFilter(n=256, p=0.01, seed=3)
    for key, values in sets.items():
        bloom.add(key, values)
    assert np.array_equal(bloom.rows, reference_rows(bloom, sets))
    assert bloom.row_ones.tolist() == [
        int(np.unpackbits(r.view(np.uint8)).sum()) for r in bloom.rows
    ]


@settings(max_examples=30, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 300), min_size=1, max_size=14),
    data=st.data(),
    placement=st.sampled_from(["split", "whole"]),
    n=st.integers(20, 200),
)
def test_removal_rebuilds_exactly(
    sizes: list[int], data: st.DataObject, placement: str, n: int
) -> None:
    """After removals, every row is exactly what the remaining documents put in it, only the
    rows that held a removed document changed, and compaction gives the filter that adding
    the remaining documents to an empty one gives."""
    sets = {key: fps(100 + key, size) for key, size in enumerate(sizes)}
    bloom = PseudoMatrixBloomFilter(n=n, p=0.05, placement=placement, seed=9)  # type: ignore[arg-type]
    for key, values in sets.items():
        bloom.add(key, values)
    for key, values in sets.items():  # parts are non-empty, contiguous and cover the set
        parts = bloom.placement_of(key)
        assert all(p.size > 0 for p in parts)
        assert [p.start for p in parts] == [0, *[p.stop for p in parts[:-1]]][: len(parts)]
        assert (parts[-1].stop if parts else 0) == values.shape[0]
    assert (bloom.free_space() >= 0).all()
    gone = data.draw(st.lists(st.sampled_from(sorted(sets)), unique=True))
    before = bloom.rows.copy()
    touched: set[int] = set()
    for key in gone:
        touched.update(bloom.remove(key))
    remaining = {k: v for k, v in sets.items() if k not in gone}
    assert bloom.keys() == list(remaining)
    assert np.array_equal(bloom.rows, reference_rows(bloom, remaining))
    untouched = [r for r in range(bloom.n_rows) if r not in touched]
    assert np.array_equal(bloom.rows[untouched], before[untouched])
    assert bloom.load().tolist() == [
        sum(p.size for k in bloom.docs_in_row(r) for p in bloom.placement_of(k) if p.row == r)
        for r in range(bloom.n_rows)
    ]
    assert bloom.docs_per_row().tolist() == [len(bloom.docs_in_row(r)) for r in range(bloom.n_rows)]
    bloom.compact()
    scratch = PseudoMatrixBloomFilter(n=n, p=0.05, placement=placement, seed=9)  # type: ignore[arg-type]
    for key, values in remaining.items():
        scratch.add(key, values)
    assert np.array_equal(bloom.rows, scratch.rows)
    assert bloom.free_space().tolist() == scratch.free_space().tolist()
    assert [bloom.placement_of(k) for k in remaining] == [
        scratch.placement_of(k) for k in remaining
    ]


def first_fit(
    load: list[int], ndocs: list[int], size: int, n: int, min_part: int, placement: str, cap: int
) -> list[Part]:
    """The placement rule by plain Python over every row (what the filter's tree must give)."""
    open_rows = [r for r in range(len(load)) if ndocs[r] < cap]
    fits = [r for r in open_rows if n - load[r] >= size]
    if size == 0:
        return []
    if fits:
        return [Part(fits[0], 0, size)]
    if placement == "whole":
        return [Part(len(load), 0, size)]
    parts, start = [], 0
    for r in open_rows:
        if start < size and n - load[r] >= min_part:
            take = min(n - load[r], size - start)
            parts.append(Part(r, start, start + take))
            start += take
    row = len(load)
    while start < size:
        parts.append(Part(row, start, min(size, start + n)))
        start, row = min(size, start + n), row + 1
    return parts


def test_split_fills_the_holes_removals_leave_in_order() -> None:
    bloom = PseudoMatrixBloomFilter(n=100, p=0.05, min_part=10)
    for key in range(8):
        bloom.add(key, fps(key, 50))  # two a row, rows 0…3 full
    for key in (1, 3, 4, 7):
        bloom.remove(key)  # 50 free in every row
    assert bloom.add(9, fps(9, 60)) == (Part(0, 0, 50), Part(1, 50, 60))
    assert bloom.add(10, fps(10, 135)) == (Part(1, 0, 40), Part(2, 40, 90), Part(3, 90, 135))
    assert bloom.free_space().tolist() == [0, 0, 0, 5]
    assert bloom.add(11, fps(11, 5)) == (Part(3, 0, 5),)  # fits whole, under min_part


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(st.tuples(st.booleans(), st.integers(0, 260)), min_size=1, max_size=40),
    placement=st.sampled_from(["split", "whole"]),
    n=st.integers(16, 120),
    min_part=st.integers(1, 16),
    cap=st.sampled_from([None, 1, 3]),
    reload_at=st.integers(0, 40),
)
def test_placement_is_first_fit(
    steps: list[tuple[bool, int]],
    placement: str,
    n: int,
    min_part: int,
    cap: int | None,
    reload_at: int,
) -> None:
    """Adds and removals in any order, and a reload from arrays midway: every document goes
    where first fit over all rows puts it (the free-space tree only makes it faster)."""
    bloom = PseudoMatrixBloomFilter(
        n=n,
        p=0.05,
        placement=placement,
        min_part=min_part,
        max_docs_per_row=cap,  # type: ignore[arg-type]
    )
    for step, (remove, size) in enumerate(steps):
        if step == reload_at:
            bloom = PseudoMatrixBloomFilter.from_arrays(bloom.to_arrays())
        keys = bloom.keys()
        if remove and keys:
            bloom.remove(keys[size % len(keys)])
            continue
        load, ndocs = bloom.load().tolist(), bloom.docs_per_row().tolist()
        want = first_fit(load, ndocs, size, n, min_part, placement, cap or 10**9)
        assert bloom.add(1000 + step, fps(step, size)) == tuple(want)


def test_compaction_frees_rows() -> None:
    bloom = PseudoMatrixBloomFilter(n=100, p=0.05, placement="whole")
    for key in range(10):
        bloom.add(key, fps(key, 60))  # one a row: two do not fit
    for key in range(0, 10, 2):
        bloom.remove(key)
    assert bloom.n_rows == 10
    assert bloom.compact() == (10, 5)
    assert bloom.keys() == [1, 3, 5, 7, 9]


def test_scores_and_candidates() -> None:
    bloom = PseudoMatrixBloomFilter(n=2000, p=0.01, threshold=4.0)
    sources = {key: fps(key, 1000) for key in range(12)}  # two whole documents per row
    for key, values in sources.items():
        bloom.add(key, values)
    # a query of 900 fingerprints of its own and 100 of document 7
    query = np.union1d(fps(999, 900), sources[7][100:200])
    scores = bloom.scores(query)
    row7 = bloom.placement_of(7)[0].row
    assert (
        scores.shared.tolist()
        == pmbf.and_popcount(bloom.rows, bloom.query_bits(query), bloom.n_rows).tolist()
    )
    assert int(np.argmax(scores.z)) == row7
    assert round(float(scores.z[row7]), 2) == 5.73  # shared 3,310 bits, background 3,090
    others = np.delete(scores.z, row7)
    assert np.abs(others).max() < 1.0  # the background: unrelated rows
    found = bloom.candidates(query)
    assert found.rows.tolist() == [row7]
    assert set(found.keys.tolist()) == set(bloom.docs_in_row(row7))
    assert 7 in found.keys.tolist()
    verified = verify(bloom, query)
    assert verified[0].key == 7
    assert verified[0].measures.shared == 100
    assert [v.key for v in verified] == [7]  # the row-mates share nothing: dropped
    assert len(bloom.candidates(fps(12345, 900))) == 0
    members = bloom.scores(query, measure="members")
    rows = bloom.rows
    pos = pmbf.positions(query, bloom.k, bloom.m, bloom.seed).astype(np.int64).reshape(-1, bloom.k)
    bits = np.unpackbits(rows.view(np.uint8), axis=1, bitorder="little")
    assert members.shared.tolist() == [int(b[pos].all(axis=1).sum()) for b in bits]
    assert members.shared[row7] >= 100  # every element of document 7 tests present
    assert float(members.z[row7]) > 3 * float(scores.z[row7])  # a far stronger signal
    assert members.expected[row7] == pytest.approx(1000 * (rows_ones_f(bloom, row7)) ** bloom.k)


@pytest.mark.parametrize("measure", ["bits", "members"])
@pytest.mark.parametrize("threshold", [-1.0, 0.0, 2.5, 4.0, 40.0])
def test_candidates_are_the_rows_scores_name(measure: str, threshold: float) -> None:
    """Candidates skip the z-score of rows whose count cannot reach the threshold: the rows,
    their order and the documents are those the full :meth:`scores` names."""
    bloom = PseudoMatrixBloomFilter(n=300, p=0.01, min_part=20)
    sources = {key: fps(key, 100 + 37 * key) for key in range(30)}
    for key, values in sources.items():
        bloom.add(key, values)
    query = np.union1d(fps(999, 500), np.concatenate([sources[3][:60], sources[17][10:40]]))
    z = bloom.scores(query, measure=measure).z  # type: ignore[arg-type]
    named = np.flatnonzero(z >= threshold)
    named = named[np.argsort(-z[named], kind="stable")]
    for max_rows in (None, 2):
        found = bloom.candidates(query, threshold=threshold, max_rows=max_rows, measure=measure)  # type: ignore[arg-type]
        assert found.rows.tolist() == named[:max_rows].tolist()
        keys = list(dict.fromkeys(k for r in named[:max_rows] for k in bloom.docs_in_row(int(r))))
        assert found.keys.tolist() == keys
    if threshold == 4.0 and measure == "members":  # the pasted sources are named
        full = bloom.candidates(query, threshold=threshold, measure=measure)  # type: ignore[arg-type]
        assert {3, 17} <= set(full.keys.tolist())


def rows_ones_f(bloom: PseudoMatrixBloomFilter, row: int) -> float:
    return float(bloom.row_ones[row]) / bloom.m


def test_persistence_round_trip() -> None:
    bloom = PseudoMatrixBloomFilter(n=300, p=0.02, seed=5, placement="whole")
    for key in (10, 20, 30, 40):
        bloom.add(key, fps(key, 170))
    bloom.add(50, np.zeros(0, dtype=np.uint64))
    bloom.remove(20)
    back = PseudoMatrixBloomFilter.from_bytes(bloom.to_bytes())
    assert back.params() == bloom.params()
    assert np.array_equal(back.rows, bloom.rows)
    assert back.keys() == bloom.keys() == [10, 30, 40, 50]
    assert [back.placement_of(k) for k in back.keys()] == [
        bloom.placement_of(k) for k in bloom.keys()
    ]
    assert back.free_space().tolist() == bloom.free_space().tolist()
    back.remove(30)
    bloom.remove(30)
    assert np.array_equal(back.rows, bloom.rows)
    arrays = bloom.to_arrays()
    assert arrays["rows"].dtype == np.uint64 and arrays["placement"].shape[1] == 4
    with pytest.raises(StorageError):
        PseudoMatrixBloomFilter.from_bytes(b"not a filter")


def test_fetch_instead_of_kept_fingerprints() -> None:
    sets = {k: fps(k, 120) for k in range(6)}
    asked: list[list[int]] = []

    def fetch(keys: Sequence[int]) -> dict[int, np.ndarray]:
        asked.append(sorted(keys))
        return {k: sets[k] for k in keys}

    bloom = PseudoMatrixBloomFilter(n=250, p=0.05, keep_fingerprints=False, fetch=fetch)
    for key, values in sets.items():
        bloom.add(key, values)
    rows = bloom.remove(2)
    assert rows == [1]
    assert asked == [sorted(bloom.docs_in_row(1))]  # only the row-mates are fetched
    assert "fp_values" not in bloom.to_arrays()
    with pytest.raises(ConfigurationError):
        PseudoMatrixBloomFilter(keep_fingerprints=False)


def test_errors() -> None:
    bloom = PseudoMatrixBloomFilter(n=100)
    bloom.add(1, fps(1, 10))
    with pytest.raises(DuplicateIdError):
        bloom.add(1, fps(2, 10))
    with pytest.raises(NotFoundError):
        bloom.remove(2)
    with pytest.raises(InputError, match="sorted and distinct"):
        bloom.add(3, np.array([5, 3], dtype=np.uint64))
    with pytest.raises(InputError, match="integer"):
        bloom.add("a", fps(3, 3))  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        PseudoMatrixBloomFilter(placement="rows")  # type: ignore[arg-type]


def test_classic_and_counting() -> None:
    added = fps(1, 1000)
    absent = fps(2, 20000)
    bloom = BloomFilter.for_capacity(1000, 0.01, seed=1)
    bloom.add(added)
    assert bloom.contains(added).all()
    fp = bloom.contains(absent).mean()
    assert abs(fp - bloom.expected_fp_rate()) < 0.005  # formula (1): 0.0100
    counting = CountingBloomFilter.for_capacity(1000, 0.01, seed=1)
    counting.add(added)
    assert np.array_equal(counting.to_bloom().words, bloom.words)
    counting.remove(added[:500])
    assert counting.contains(added[500:]).all()
    rest = BloomFilter.for_capacity(1000, 0.01, seed=1)
    rest.add(added[500:])
    assert np.array_equal(counting.to_bloom().words, rest.words)


def test_member_count_follows_changes() -> None:
    """The bit-sliced copy behind measure="members" stays equal to the rows through adds
    (across the growth of the row capacity), removals and compaction."""
    bloom = PseudoMatrixBloomFilter(n=150, p=0.01)
    query = np.union1d(fps(5, 60), fps(500, 100))

    def check() -> None:
        pos = pmbf.positions(query, bloom.k, bloom.m, bloom.seed)
        expected = pmbf.member_counts(bloom.rows, pos, bloom.k, bloom.n_rows)
        got = bloom.scores(query, measure="members").shared
        assert got.tolist() == expected.tolist()

    for key in range(100):
        bloom.add(key, fps(key, 100))
        if key % 13 == 0:
            check()
    check()
    assert bloom.n_rows > 64  # the sliced copy was rebuilt wider on the way
    for key in (5, 6, 30):
        bloom.remove(key)
        check()
    bloom.compact()
    check()


def test_two_stages_with_fragments() -> None:
    """Stage 1 on pipeline fingerprints, stage 2 exact, then the aligner marks the passage."""
    from neardup.bloom import mark_fragments
    from neardup.fingerprints.pipeline import Pipeline, make_spec
    from neardup.passages.align import Aligner
    from tests._textgen import text

    spec = make_spec("plain")
    pipe = Pipeline(spec)
    docs = {key: text(300, seed=key) for key in range(20)}
    bloom = PseudoMatrixBloomFilter(n=1000, p=0.001, measure="members")
    for key, body in docs.items():
        bloom.add(key, pipe.fingerprints(body))
    passage = " ".join(docs[4].split()[50:110])
    query = f"{text(200, seed=77)} {passage} {text(100, seed=78)}"
    verified = verify(bloom, pipe.fingerprints(query))
    assert [v.key for v in verified] == [4]
    assert verified[0].measures.shared == 56  # 60 words → 56 five-word shingles
    marked = mark_fragments(verified, query, docs, aligner=Aligner(spec))
    fragments = marked[0].fragments
    assert fragments is not None and len(fragments.passages) == 1
    assert fragments.passages[0].a_text == passage

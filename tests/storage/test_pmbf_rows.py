"""The pseudo-matrix filter's rows and placement index through every backend, and a collection
with ``--candidates pmbf`` or ``both`` on each: reopening gives the identical filter, removal
rewrites only the rows that held the document."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.errors import StorageError
from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec
from neardup.index.candidates import BloomRowsSource
from neardup.storage import FORMAT_VERSION, FilterState, NewDoc, Storage
from tests import _textgen as tg
from tests.storage.conftest import Backend

META = {"format_version": str(FORMAT_VERSION), "next_key": "1", "spec": "{}"}
SPEC = make_spec("plain")


def _fresh(backend: Backend) -> Storage:
    st = backend.new()
    st.create(META)
    return st


def _rows(words: int, rows: list[int], fill: int) -> FilterState:
    bits = np.array(
        [
            [(fill * 1_000_003 + r * 7919 + w) * 0x9E3779B97F4A7C15 % 2**64 for w in range(words)]
            for r in rows
        ],
        dtype=np.uint64,
    ).reshape(len(rows), words)
    return FilterState(
        np.array(rows, dtype=np.int64),
        bits,
        np.array([100 - r for r in rows], dtype=np.int64),
        np.zeros((0, 4), np.int64),
    )


def test_empty_state(backend: Backend) -> None:
    st = _fresh(backend)
    state = st.pmbf_state()
    assert state.rows.shape == (0,) and state.parts.shape == (0, 4)
    st.close()


def test_rows_and_parts_round_trip_and_partial_rewrites(backend: Backend) -> None:
    st = _fresh(backend)
    first = _rows(3, [0, 1, 2], fill=1)
    parts = np.array([[5, 1, 0, 40], [2, 0, 0, 10], [5, 2, 40, 90], [7, 2, 0, 3]], np.int64)
    with st.transaction():
        st.write_pmbf(FilterState(first.rows, first.bits, first.free, parts))
    st.close()
    st = backend.reopen()
    got = st.pmbf_state()
    assert got.rows.tolist() == [0, 1, 2]
    assert np.array_equal(got.bits, first.bits)
    # the high bit survives the signed columns
    assert got.bits.dtype == np.uint64
    assert got.free.tolist() == [100, 99, 98]
    assert got.parts.tolist() == [[2, 0, 0, 10], [5, 1, 0, 40], [5, 2, 40, 90], [7, 2, 0, 3]]
    # rewrite row 1 only, drop key 5's parts, add key 9's: rows 0 and 2 stay as they were
    second = _rows(3, [1, 3], fill=2)
    with st.transaction():
        st.write_pmbf(
            FilterState(second.rows, second.bits, second.free, np.array([[9, 3, 0, 8]])),
            drop_keys=[5],
        )
    got = st.pmbf_state()
    assert got.rows.tolist() == [0, 1, 2, 3]
    assert np.array_equal(got.bits[[0, 2]], first.bits[[0, 2]])
    assert np.array_equal(got.bits[[1, 3]], second.bits)
    assert got.free.tolist() == [100, 99, 98, 97]
    assert got.parts.tolist() == [[2, 0, 0, 10], [7, 2, 0, 3], [9, 3, 0, 8]]
    st.close()


def test_writes_need_a_transaction_and_roll_back(backend: Backend) -> None:
    st = _fresh(backend)
    rows = _rows(2, [0], fill=3)
    with pytest.raises(StorageError, match="transaction"):
        st.write_pmbf(rows)
    with pytest.raises(RuntimeError), st.transaction():
        st.write_pmbf(FilterState(rows.rows, rows.bits, rows.free, np.array([[1, 0, 0, 5]])))
        raise RuntimeError("boom")
    state = st.pmbf_state()
    assert state.rows.shape == (0,) and state.parts.shape == (0, 4)
    st.close()


def test_deleting_documents_drops_their_parts(backend: Backend) -> None:
    st = _fresh(backend)
    v = np.arange(1, 6, dtype=np.uint64)
    rows = _rows(2, [0], fill=4)
    with st.transaction():
        st.insert([NewDoc(k, f"d{k}", k, 5, v, None, v) for k in (1, 2)])
        st.write_pmbf(
            FilterState(rows.rows, rows.bits, rows.free, np.array([[1, 0, 0, 5], [2, 0, 0, 5]]))
        )
    with st.transaction():
        st.delete([1])
    assert st.pmbf_state().parts.tolist() == [[2, 0, 0, 5]]
    st.close()


# --- a collection on each backend -----------------------------------------------------------


def _source(col: Collection) -> BloomRowsSource:
    return next(s for s in col.sources if isinstance(s, BloomRowsSource))


@pytest.mark.parametrize("check", [True, False])
@pytest.mark.parametrize("method", ["pmbf", "both"])
def test_collection_finds_a_short_paste_and_reopens_identically(
    backend: Backend, method: str, check: bool
) -> None:
    """Checked adds or an unchecked bulk load: the same filter, persisted and reopened."""
    spec = IndexSpec(candidates=method, policy="allow", pmbf_n=400)
    docs = [(f"d{i}", tg.text(250, 100 + i)) for i in range(30)]
    col = Collection.create(backend.target(), SPEC, spec)
    col.add_many(docs, batch_size=7, check=check)
    # 30 words of d11 (about 4 % of the query) inside unrelated text
    pasted = " ".join(docs[11][1].split()[100:130])
    query = f"{tg.text(400, 900)} {pasted} {tg.text(300, 901)}"
    assert "d11" in [m.id for m in col.check(query).matches]
    before = _source(col).current(col.storage).to_arrays()
    stored_before = col.storage.pmbf_state()
    holding = {p.row for p in _source(col).current(col.storage).placement_of(12)}
    col.remove("d12")
    stored_after = col.storage.pmbf_state()
    assert col.verify_integrity() == []
    # only the rows that held d12 changed
    same = [r for r in stored_before.rows.tolist() if r not in holding]
    assert np.array_equal(stored_after.bits[same], stored_before.bits[same])
    assert any(not np.array_equal(stored_after.bits[r], stored_before.bits[r]) for r in holding)
    after = _source(col).current(col.storage).to_arrays()
    col.close()
    col = Collection.open(backend.target())
    reopened = _source(col).load(col.storage).to_arrays()
    for name in ("rows", "free", "placement", "sizes"):
        assert np.array_equal(reopened[name], after[name]), name
    assert not np.array_equal(before["placement"], after["placement"])
    assert "d11" in [m.id for m in col.check(query).matches]
    col.close()


def test_collection_sees_another_handles_writes(backend: Backend) -> None:
    if backend.kind == "memory":
        pytest.skip("a memory collection lives in one object")
    spec = IndexSpec(candidates="pmbf", policy="allow", pmbf_n=400)
    a = Collection.create(backend.target(), SPEC, spec)
    a.add("x", tg.text(200, 1))
    b = Collection.open(backend.target())
    source = tg.text(200, 2)
    b.add("y", source)
    query = f"{tg.text(300, 3)} {' '.join(source.split()[50:80])}"
    assert [m.id for m in a.check(query).matches] == ["y"]
    b.remove("y")
    assert a.check(query).matches == ()
    a.close()
    b.close()

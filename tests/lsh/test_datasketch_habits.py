"""What a datasketch ``MinHashLSH`` user does with an index: ``insert``, ``is_empty``, ``b``,
``r``, ``h``, ``insertion_session``, pickling; a datasketch ``MinHash`` refused with how to
convert it, never taken silently; and what the index no longer keeps (the signatures)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from neardup import LSHIndex, MinHasher
from neardup.errors import DuplicateIdError, InputError, NotSupportedError, WrongTypeError
from neardup.spec import SketchSpec
from tests._textgen import edit, text

BASE = [text(300, seed) for seed in range(4)]
NEAR = edit(BASE[0], 0.02, 100)


def test_insert_is_empty_and_the_band_names() -> None:
    index = LSHIndex(threshold=0.5)
    assert index.is_empty()
    index.insert("a", BASE[0])
    index.insert("b", BASE[1], check_duplication=False)
    assert not index.is_empty() and len(index) == 2
    assert (index.b, index.r, index.h) == (index.bands, index.rows, 128) == (34, 3, 128)
    with pytest.raises(DuplicateIdError, match="already in the index"):
        index.insert("a", BASE[2])
    assert [r.id for r in index.query(NEAR)] == ["a"]


def test_an_insertion_session_adds_in_batches() -> None:
    index = LSHIndex()
    with index.insertion_session(buffer_size=3) as session:
        for i, doc in enumerate(BASE):
            session.insert(f"d{i}", doc)
        assert len(index) == 3  # one full buffer added, one insert waiting
    assert index.keys() == ["d0", "d1", "d2", "d3"]
    with pytest.raises(InputError, match="buffer_size must be a positive integer"):
        with index.insertion_session(buffer_size=0):
            pass


def test_a_pickled_index_gives_the_same_answers() -> None:
    index = LSHIndex()
    index.add_batch([f"d{i}" for i in range(4)], BASE)
    index.remove("d3")
    again = pickle.loads(pickle.dumps(index))
    assert again.keys() == ["d0", "d1", "d2"]
    assert again.query(NEAR) == index.query(NEAR) != []
    assert again.adjacency_list() == index.adjacency_list()
    again.add("near", NEAR)  # the copy lives on its own
    assert "near" in again and "near" not in index


def test_an_index_in_a_file_is_reopened_not_pickled(tmp_path: object) -> None:
    index = LSHIndex(store=f"{tmp_path}/lsh.db")
    with pytest.raises(NotSupportedError, match=r"reopen it with LSHIndex.open\("):
        pickle.dumps(index)


class MinHash:
    """Stands for datasketch's class: what the index sees of it is its module and name."""

    __module__ = "datasketch.minhash"

    def __init__(self) -> None:
        self.hashvalues = np.arange(128, dtype=np.uint64)


def test_a_datasketch_minhash_is_refused_with_how_to_convert() -> None:
    index = LSHIndex()
    index.add("a", BASE[0])
    for call in (
        lambda: index.insert("m", MinHash()),
        lambda: index.query(MinHash()),
        lambda: index.query_batch([MinHash()]),
        lambda: index.update("a", MinHash()),
    ):
        with pytest.raises(WrongTypeError) as caught:
            call()
        said = str(caught.value)
        assert "does not take a datasketch.MinHash" in said
        assert "MinHasher(spec).sign_texts" in said and ".hashvalues" in said
    assert index.keys() == ["a"]
    # what the message says works: datasketch's values alone, in an index of signatures
    values = LSHIndex(spec=SketchSpec(num_perm=128))
    values.insert("m", MinHash().hashvalues)
    assert [r.id for r in values.query(MinHash().hashvalues)] == ["m"]


def test_the_real_datasketch_minhash_is_refused() -> None:
    datasketch = pytest.importorskip("datasketch")
    m = datasketch.MinHash(num_perm=128)
    m.update(b"word")
    with pytest.raises(WrongTypeError, match="does not take a datasketch.MinHash"):
        LSHIndex().insert("m", m)
    lean = datasketch.LeanMinHash(m)
    with pytest.raises(WrongTypeError, match="does not take a datasketch.LeanMinHash"):
        LSHIndex().query(lean)


def test_signatures_are_not_kept() -> None:
    index = LSHIndex()
    index.add("a", BASE[0])
    with pytest.raises(NotSupportedError, match="not the signatures"):
        index.signature("a")
    signature = MinHasher(index.spec).sign_texts([BASE[0]])[0]
    assert index.query(signature)[0].similarity == 1.0

"""One conformance suite for every storage backend (memory, SQLite, PostgreSQL).

The first half drives the Storage protocol directly; the second half runs the collection on top
of each backend, so every behaviour the index relies on is pinned on all three.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import neardup
from neardup.errors import (
    DuplicateIdError,
    NotFoundError,
    SpecMismatchError,
    StorageError,
    TextLengthError,
)
from neardup.fingerprints.pipeline import default_spec, make_spec
from neardup.fingerprints.similarity import compare
from neardup.index import Collection, IndexSpec, Match
from neardup.spec import Spec
from neardup.storage import FORMAT_VERSION, Link, NewDoc, Storage
from tests import _textgen as tg
from tests.storage.conftest import Backend

META = {"format_version": str(FORMAT_VERSION), "next_key": "1", "spec": "{}"}
HIGH = np.array([0, 1, 2**63 - 1, 2**63, 2**64 - 1], dtype=np.uint64)


def _doc(
    key: int,
    doc_id: str,
    values: list[int] | np.ndarray,
    *,
    group: int | None = None,
    samples: list[int] | np.ndarray | None = None,
    counts: np.ndarray | None = None,
    text: str | None = "t",
    meta: dict | None = None,
) -> NewDoc:
    v = np.unique(np.asarray(values, dtype=np.uint64))
    s = v if samples is None else np.unique(np.asarray(samples, dtype=np.uint64))
    size = int(counts.sum()) if counts is not None else int(v.shape[0])
    return NewDoc(
        key, doc_id, key if group is None else group, size, v, counts, s, meta or {"m": key}, text
    )


def _fresh(backend: Backend) -> Storage:
    st = backend.new()
    st.create(META)
    return st


# --- the protocol ----------------------------------------------------------------------------


def test_create_and_meta(backend: Backend) -> None:
    st = backend.new()
    assert not st.exists()
    st.create(META)
    assert st.exists()
    assert st.read_meta() == META
    with pytest.raises(StorageError, match="already exists"):
        st.create(META)
    with st.transaction():
        st.write_meta({"next_key": "7", "extra": "x"})
    st2 = backend.reopen()
    assert st2.read_meta()["next_key"] == "7"
    assert st2.read_meta()["extra"] == "x"
    st.close()
    st2.close()


def test_fingerprints_roundtrip_full_64_bits(backend: Backend) -> None:
    st = _fresh(backend)
    counts = np.array([1, 2, 3, 4, 5], dtype=np.int64)
    with st.transaction():
        st.insert(
            [
                _doc(1, "a", HIGH, samples=HIGH[[1, 3, 4]]),
                _doc(2, "b", HIGH[:3], counts=counts[:3], samples=HIGH[:1]),
            ]
        )
    got = st.fingerprints([2, 1, 99])
    assert [f.key for f in got] == [1, 2]
    assert got[0].values.dtype == np.uint64
    np.testing.assert_array_equal(got[0].values, HIGH)
    np.testing.assert_array_equal(got[0].samples, HIGH[[1, 3, 4]])
    assert got[0].counts is None
    np.testing.assert_array_equal(got[1].counts, counts[:3])
    values, keys = st.postings(np.array([2**64 - 1, 0, 12345], dtype=np.uint64))
    pairs = sorted(zip(values.tolist(), keys.tolist()))
    assert pairs == [(0, 2), (2**64 - 1, 1)]
    assert values.dtype == np.uint64 and keys.dtype == np.int64
    packed = st.packed_fingerprints([2, 1, 99])
    assert packed.keys.tolist() == [1, 2] and packed.offsets.tolist() == [0, 5, 8]
    np.testing.assert_array_equal(packed.values, np.concatenate([HIGH, HIGH[:3]]))
    assert packed.counts is not None and packed.counts.tolist() == [1, 1, 1, 1, 1, 1, 2, 3]
    assert packed.sizes().tolist() == [5, 6]
    empty = st.packed_fingerprints([99])
    assert empty.keys.size == 0 and empty.offsets.tolist() == [0] and empty.counts is None
    sets_only = st.packed_fingerprints([1])
    assert sets_only.counts is None and sets_only.sizes().tolist() == [5]
    st.close()


def test_postings_limit_per_value_keeps_the_newest(backend: Backend) -> None:
    st = _fresh(backend)
    # value 7 is posted by 12 documents, value 8 by 2; batches of 3 so a backend with tiers
    # (SQLite's tail) holds them in several
    for first in range(1, 13, 3):
        with st.transaction():
            st.insert(
                [
                    _doc(k, f"d{k}", [k + 100], samples=[7] + ([8] if k <= 2 else []))
                    for k in range(first, first + 3)
                ]
            )
    wanted = np.array([7, 8, 9], dtype=np.uint64)
    for _ in range(2):  # twice: a backend may learn which values are frequent
        values, keys = st.postings(wanted, limit_per_value=4)
        got = sorted(zip(values.tolist(), keys.tolist()))
        assert {(8, 1), (8, 2)} <= set(got)
        assert {(7, k) for k in (9, 10, 11, 12)} <= set(got)
        assert set(got) <= {(7, k) for k in range(1, 13)} | {(8, 1), (8, 2)}
    values, keys = st.postings(wanted)
    assert sorted(zip(values.tolist(), keys.tolist())) == sorted(
        [(7, k) for k in range(1, 13)] + [(8, 1), (8, 2)]
    )
    st.close()


def test_sizes_of_stored_keys(backend: Backend) -> None:
    st = _fresh(backend)
    with st.transaction():
        st.insert(
            [
                _doc(1, "a", [1, 2, 3]),
                _doc(2, "b", [4]),
                _doc(3, "c", [5, 6], counts=np.array([2, 5])),
            ]
        )
    assert st.sizes([3, 1, 2, 99, 1]) == {1: 3, 2: 1, 3: 7}
    assert st.sizes([]) == {}
    with st.transaction():
        st.delete([2])
    assert st.sizes([1, 2]) == {1: 3}
    st.close()


def test_writes_need_a_transaction(backend: Backend) -> None:
    st = _fresh(backend)
    with pytest.raises(StorageError, match="transaction"):
        st.insert([_doc(1, "a", [1, 2])])
    with pytest.raises(StorageError, match="transaction"):
        st.write_meta({"x": "y"})
    st.close()


def test_rollback_leaves_nothing(backend: Backend) -> None:
    st = _fresh(backend)
    with st.transaction():
        st.insert([_doc(1, "a", [1, 2, 3])])
    with pytest.raises(RuntimeError), st.transaction():
        st.insert([_doc(2, "b", [4, 5])])
        st.add_links([Link(2, 1, 0.5, 0.5, 0.5)])
        st.write_meta({"next_key": "3"})
        raise RuntimeError("boom")
    assert st.keys_for_ids(["a", "b"]) == {"a": 1}
    assert st.counts() == {"docs": 1, "postings": 3, "links": 0, "groups": 0}
    assert st.read_meta()["next_key"] == "1"
    st.close()


def test_duplicate_id_rolls_back_the_batch(backend: Backend) -> None:
    st = _fresh(backend)
    with st.transaction():
        st.insert([_doc(1, "a", [1, 2])])
    with pytest.raises(DuplicateIdError), st.transaction():
        st.insert([_doc(2, "b", [3]), _doc(3, "a", [4])])
    assert st.keys_for_ids(["a", "b"]) == {"a": 1}
    assert st.counts()["postings"] == 2
    st.close()


def test_docs_texts_meta_and_iteration(backend: Backend) -> None:
    st = _fresh(backend)
    with st.transaction():
        st.insert(
            [
                _doc(
                    k,
                    f"id{k}",
                    [k, k + 100],
                    text=None if k == 3 else f"текст {k}",
                    meta={"n": k, "ru": "да"},
                )
                for k in range(1, 8)
            ]
        )
    infos = st.docs([5, 3, 1], text=True)
    assert [(d.key, d.id, d.text, d.meta) for d in infos] == [
        (1, "id1", "текст 1", {"n": 1, "ru": "да"}),
        (3, "id3", None, {"n": 3, "ru": "да"}),
        (5, "id5", "текст 5", {"n": 5, "ru": "да"}),
    ]
    assert st.docs([1])[0].text is None  # text only when asked
    assert st.docs([1], meta=False)[0].meta == {}  # meta only when asked
    assert st.docs([1], text=True, meta=False)[0].text == "текст 1"
    batches = list(st.iter_docs(batch_size=3))
    assert [len(b) for b in batches] == [3, 3, 1]
    assert [d.key for b in batches for d in b] == list(range(1, 8))
    assert [f.key for b in st.iter_fingerprints(batch_size=4) for f in b] == list(range(1, 8))
    assert st.keys_for_ids(["id2", "nope", "id7"]) == {"id2": 2, "id7": 7}
    st.close()


def test_groups_and_links(backend: Backend) -> None:
    st = _fresh(backend)
    with st.transaction():
        st.insert(
            [
                _doc(1, "a", [1]),
                _doc(2, "b", [2], group=1),
                _doc(3, "c", [3]),
                _doc(4, "d", [4], group=3),
            ]
        )
        st.add_links([Link(2, 1, 0.9, 0.9, 0.9), Link(4, 3, 0.8, 0.7, 0.95)])
    assert st.group_sizes([1, 3, 9]) == {1: 2, 3: 2}
    assert st.group_members([3]) == {3: [3, 4]}
    assert st.counts()["groups"] == 2
    with st.transaction():
        st.relabel_groups({3: 1})
    assert st.group_members([1, 3]) == {1: [1, 2, 3, 4]}
    with st.transaction():
        st.set_groups({3: 3, 4: 3})
    assert st.group_sizes([1, 3]) == {1: 2, 3: 2}
    links = st.links_of([3])
    assert [(lk.a, lk.b) for lk in links] == [(4, 3)]
    assert links[0].containment_ba == pytest.approx(0.95)
    assert [(lk.a, lk.b) for lk in st.iter_links()] == [(2, 1), (4, 3)]
    st.close()


def test_delete_removes_everything_of_a_doc(backend: Backend) -> None:
    st = _fresh(backend)
    with st.transaction():
        st.insert([_doc(1, "a", [1, 2, 3]), _doc(2, "b", [2, 3, 4], group=1), _doc(3, "c", [9])])
        st.add_links([Link(2, 1, 0.5, 0.66, 0.66)])
    with st.transaction():
        st.delete([2])
    assert st.keys_for_ids(["a", "b", "c"]) == {"a": 1, "c": 3}
    assert st.counts() == {"docs": 2, "postings": 4, "links": 0, "groups": 0}
    values, keys = st.postings(np.array([2, 3, 4], dtype=np.uint64))
    assert sorted(zip(values.tolist(), keys.tolist())) == [(2, 1), (3, 1)]
    assert st.docs([2]) == []
    pv, pk = st.all_postings()
    assert sorted(zip(pv.tolist(), pk.tolist())) == [(1, 1), (2, 1), (3, 1), (9, 3)]
    st.close()


def test_snapshot_reads(backend: Backend) -> None:
    st = _fresh(backend)
    with st.transaction():
        st.insert([_doc(1, "a", [1])])
    with st.snapshot():
        assert st.keys_for_ids(["a"]) == {"a": 1}
        assert st.counts()["docs"] == 1
    st.close()


# --- the collection on each backend ----------------------------------------------------------

SPEC = make_spec("plain")


def test_collection_policies_and_groups(backend: Backend) -> None:
    base = tg.text(300, 1)
    near = tg.edit(base, 0.02, 2)
    other = tg.text(300, 3)
    col = Collection.create(
        backend.target(), SPEC, IndexSpec(policy="group", threshold=0.5, group_cap=3)
    )
    decisions = col.add_many([("base", base), ("near", near), ("other", other)])
    assert [(d.id, d.accepted, d.reason) for d in decisions] == [
        ("base", True, "new"),
        ("near", True, "grouped"),
        ("other", True, "new"),
    ]
    assert decisions[1].group == decisions[0].key
    expected = compare(col.analyze(near).fingerprints, col.analyze(base).fingerprints)
    m = decisions[1].matches[0]
    assert (m.id, m.resemblance, m.containment_query_in_doc, m.containment_doc_in_query) == (
        "base",
        expected.resemblance,
        expected.containment_ab,
        expected.containment_ba,
    )
    # the group is capped at 3
    d3 = col.add("near2", tg.edit(base, 0.02, 4))
    d4 = col.add("near3", tg.edit(base, 0.02, 5))
    assert (d3.accepted, d3.reason) == (True, "grouped")
    assert (d4.accepted, d4.reason) == (False, "group_full")
    assert "near3" not in col
    # reject overrides per call
    d5 = col.add("copy", base, policy="reject")
    assert (d5.accepted, d5.reason) == (False, "duplicate")
    assert d5.matches[0].id == "base" and d5.matches[0].resemblance == 1.0
    groups = col.groups()
    assert [(g.id, g.representative, g.members) for g in groups] == [
        (decisions[0].key, "base", ("base", "near", "near2"))
    ]
    assert col.verify_integrity() == []
    col.close()
    reopened = Collection.open(backend.target())
    assert len(reopened) == 4
    assert reopened.get("near").group == decisions[0].key
    # removing the representative keeps the others together only if they are linked
    reopened.remove(["base"])
    assert reopened.verify_integrity() == []
    left = {g.representative: set(g.members) for g in reopened.groups()}
    for members in left.values():
        assert "base" not in members
    with pytest.raises(NotFoundError):
        reopened.remove(["near", "missing"])
    assert "near" in reopened
    reopened.close()


def test_collection_in_batch_duplicates(backend: Backend) -> None:
    base = tg.text(200, 11)
    col = Collection.create(backend.target(), SPEC, IndexSpec(policy="reject", threshold=0.8))
    decisions = col.add_many(
        [("a", base), ("b", base), ("c", tg.text(200, 12)), ("d", base + " tail")], batch_size=10
    )
    assert [(d.id, d.accepted, d.reason) for d in decisions] == [
        ("a", True, "new"),
        ("b", False, "duplicate"),
        ("c", True, "new"),
        ("d", False, "duplicate"),
    ]
    assert [m.id for m in decisions[1].matches] == ["a"]
    assert len(col) == 2
    assert col.verify_integrity() == []
    col.close()


def test_collection_allow_links_and_bridging_groups(backend: Backend) -> None:
    a = tg.text(200, 21)
    b = tg.text(200, 22)
    bridge = " ".join(a.split()[:150] + b.split()[:150])
    col = Collection.create(
        backend.target(), SPEC, IndexSpec(policy="allow", measure="containment", threshold=0.6)
    )
    col.add_many([("a", a), ("b", b)])
    d = col.add("bridge", bridge)
    assert (d.accepted, d.reason) == (True, "linked")
    assert sorted(m.id for m in d.matches) == ["a", "b"]
    assert [g.members for g in col.groups()] == [("a", "b", "bridge")]
    col.remove(["bridge"])
    assert col.groups() == []
    assert col.verify_integrity() == []
    col.close()


def test_collection_check_and_uniqueness(backend: Backend) -> None:
    src = tg.text(400, 31)
    col = Collection.create(backend.target(), SPEC)
    col.add_many([("src", src), ("noise", tg.text(400, 32))])
    essay_words = tg.words(1600, 33)
    pasted = src.split()[100:400]
    essay = " ".join(essay_words[:800] + pasted + essay_words[800:])
    result = col.check(essay)
    assert result.matches[0].id == "src"
    q = col.analyze(essay).fingerprints
    s = col.analyze(src).fingerprints
    exact = compare(q, s)
    m = result.matches[0]
    assert m.containment_doc_in_query == exact.containment_ba
    assert m.resemblance == exact.resemblance
    # uniqueness: share of the essay's words found in no stored document — all but the 300
    # pasted words of its 1,900
    assert (result.uniqueness, result.borrowed, result.cited) == (1 - 300 / 1900, 300 / 1900, 0)
    assert result.would.accepted  # resemblance is low
    col.close()


def _with_length(words: int, seed: int, length: int) -> str:
    """A generated text cut or padded (with spaces) to exactly ``length`` characters."""
    text = tg.text(words, seed)
    assert len(text) >= length
    return text[:length].rstrip().ljust(length, " ")


def test_collection_length_limits(backend: Backend) -> None:
    """Seed 000's store: only texts of min_length … max_length characters are admitted; a
    refusal names the length and the range, and a batch loses nothing else."""
    index_spec = IndexSpec(min_length=2000, max_length=6000)
    col = Collection.create(backend.target(), SPEC, index_spec)
    short = _with_length(400, 51, 1999)
    low = _with_length(400, 52, 2000)
    high = _with_length(1200, 53, 6000)
    long = _with_length(1200, 54, 6001)
    decisions = col.add_many(
        [("short", short), ("low", low), ("long", long), ("high", high), ("copy", low)]
    )
    assert [(d.id, d.accepted, d.reason) for d in decisions] == [
        ("short", False, "too_short"),
        ("low", True, "new"),
        ("long", False, "too_long"),
        ("high", True, "new"),
        ("copy", False, "duplicate"),
    ]
    assert decisions[0].detail == (
        f"the text of 'short' has 1999 characters; the collection {col.location} admits "
        "texts of 2000 to 6000 characters"
    )
    assert decisions[0].matches == () and decisions[0].key is None
    assert decisions[0].to_dict()["detail"] == decisions[0].detail
    assert "detail" not in decisions[1].to_dict()
    assert sorted(d.id for d, _ in col.iter_documents()) == ["high", "low"]
    # one add raises, from the one error tree, and writes nothing
    with pytest.raises(TextLengthError, match="'long2' has 6001 characters.*refused"):
        col.add("long2", long)
    assert "long2" not in col and len(col) == 2
    # check reports it: the would-be refusal, with the matches still measured
    result = col.check(short)
    assert (result.would.accepted, result.would.reason) == (False, "too_short")
    assert result.to_dict()["decision"]["detail"].startswith("the text has 1999 characters")
    assert col.check(low).would.reason == "duplicate"
    col.close()
    # the limits are stored with the collection
    reopened = Collection.open(backend.target())
    assert (reopened.index_spec.min_length, reopened.index_spec.max_length) == (2000, 6000)
    assert reopened.add_many([("short2", short)])[0].reason == "too_short"
    assert len(reopened) == 2
    reopened.close()


def test_collection_export_and_stats(backend: Backend, tmp_path) -> None:
    col = Collection.create(backend.target(), SPEC, IndexSpec(policy="group", threshold=0.5))
    base = tg.text(100, 41)
    col.add_many(
        [("a", base, {"src": "x"}), ("b", tg.edit(base, 0.01, 42)), ("c", tg.text(100, 43))]
    )
    out = tmp_path / "out.jsonl"
    assert col.export(out) == 3
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["representative"]) for r in rows] == [("a", "a"), ("b", "a"), ("c", "c")]
    assert rows[0]["meta"] == {"src": "x"} and rows[0]["text"] == base
    stats = col.stats()
    assert stats["documents"] == 3 and stats["groups"] == 1 and stats["largest_group"] == 2
    assert stats["backend"] == backend.kind
    col.close()


def test_collection_spec_mismatch(backend: Backend) -> None:
    Collection.create(backend.target(), SPEC).close()
    with pytest.raises(SpecMismatchError, match="built under spec"):
        Collection.open(backend.target(), spec=make_spec("plain", k=3))
    with pytest.raises(SpecMismatchError, match="threshold"):
        Collection.open(backend.target(), index_spec=IndexSpec(threshold=0.9))
    Collection.open(backend.target(), spec=SPEC).close()


# --- the length-adaptive rule (issue #16): short pairs verified as `compare` verifies them ---

SHORT_RU = "Вчера в Москве прошёл сильный дождь, и на дорогах образовались огромные пробки."
SHORT_RU_EDITED = (
    "Вчера в Москве прошел сильный ливень, поэтому на дорогах образовались большие пробки."
)
SHORT_EN = (
    "The regional committee approved the new transport budget after a long debate about "
    "rising fuel prices on Tuesday evening."
)
#: The same 13 canonical words reordered: no word 5-shingle in common with SHORT_EN.
SHORT_EN_EDITED = (
    "After a long debate about rising fuel prices on Tuesday evening, the regional committee "
    "approved its new transport budget."
)


def _measures(match: Match) -> tuple[float, float, float, int]:
    return (
        match.resemblance,
        match.containment_query_in_doc,
        match.containment_doc_in_query,
        match.shared,
    )


def _compared(a: str, b: str, spec: Spec) -> tuple[float, float, float, int]:
    c = neardup.compare(a, b, spec=spec)
    return c.resemblance, c.containment_ab, c.containment_ba, c.shared


def test_collection_short_pairs_score_as_compare(backend: Backend) -> None:
    spec = default_spec()
    long_text = tg.text(400, 41)
    source = f"{tg.text(200, 42)} {SHORT_EN} {tg.text(200, 43)}"
    with Collection.create(backend.target(), spec, IndexSpec(policy="allow")) as col:
        col.add_many([("ru", SHORT_RU), ("en", SHORT_EN), ("long", long_text), ("src", source)])
    with Collection.open(backend.target()) as col:
        assert col.spec.shingles == spec.shingles  # the rule is stored, in the fingerprint
        assert col.spec.fingerprint() == spec.fingerprint()
        assert col.spec.fingerprint() != spec.fixed().fingerprint()
        ru = {m.id: m for m in col.check(SHORT_RU_EDITED).matches}
        assert list(ru) == ["ru"]
        assert _measures(ru["ru"]) == _compared(SHORT_RU_EDITED, SHORT_RU, spec)
        assert _measures(ru["ru"]) == (7 / 11, 7 / 9, 7 / 9, 7)  # word 1-grams (lemmas)
        # a short sentence finds the long document it was taken from: the document posts a
        # word of every window of 8 words, and the sentence's 13 words are such a run
        en = {m.id: m for m in col.check(SHORT_EN_EDITED).matches}
        assert set(en) == {"en", "src"}
        assert _measures(en["en"]) == _compared(SHORT_EN_EDITED, SHORT_EN, spec) == (1, 1, 1, 13)
        assert _measures(en["src"]) == _compared(SHORT_EN_EDITED, source, spec)
        assert en["src"].containment_query_in_doc == 1.0
        # a long pair keeps the numbers of the spec's own shingles
        edited = tg.edit(long_text, 0.05, 44)
        long = {m.id: m for m in col.check(edited).matches}
        assert _measures(long["long"]) == _compared(edited, long_text, spec)
        assert _measures(long["long"]) == _compared(edited, long_text, spec.fixed())
        assert col.verify_integrity() == []


def test_collection_short_duplicates_decided_on_the_rule(backend: Backend) -> None:
    index_spec = IndexSpec(threshold=0.5)
    with Collection.create(backend.target(), default_spec(), index_spec) as col:
        first = col.add_many([("a", SHORT_RU), ("b", SHORT_RU_EDITED)])  # one batch
        assert [d.reason for d in first] == ["new", "duplicate"]
        assert first[1].matches[0].resemblance == 7 / 11
        later = col.add("c", SHORT_RU_EDITED)  # against the stored text
        assert later.reason == "duplicate" and later.matches[0].id == "a"
        assert col.verify_integrity() == []

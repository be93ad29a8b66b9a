"""The kept-check store behaves the same on memory, SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses

import pytest

from neardup.errors import InputError, NeardupError
from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection
from neardup.storage.checks import (
    CheckStore,
    KeptCheck,
    check_store,
    new_check_id,
    owner_digest,
    valid_id,
)
from tests.storage.conftest import Backend


def _check(check_id: str, created: float, owner: str = "", text: str = "текст") -> KeptCheck:
    result = {"uniqueness": 0.25, "matches": [{"id": "doc-1"}], "fragments": {"sources": []}}
    return KeptCheck(check_id, created, owner, "work.docx", "spec-fp", text, result)


@pytest.fixture
def store(backend: Backend) -> CheckStore:
    col = Collection.create(backend.target(), make_spec("ru"))
    return check_store(col.storage)


def test_keep_get_round_trip(store: CheckStore) -> None:
    text = 'Строка с NUL \x00, кавычками "\'", эмодзи 🙂, одиноким \udc80\nи второй строкой'
    kept = _check("abc", 1000.5, owner_digest("browser"), text)
    store.keep(kept)
    got = store.get("abc")
    assert got == kept
    assert got is not None and got.uniqueness == 0.25
    assert store.get("nope") is None


def test_list_newest_first_by_owner_with_paging(store: CheckStore) -> None:
    mine, theirs = owner_digest("mine"), owner_digest("theirs")
    store.keep(_check("a", 100.0, mine))
    store.keep(_check("b", 300.0, theirs))
    store.keep(_check("c", 200.0, mine))
    store.keep(_check("d", 200.0, ""))
    assert [s.id for s in store.list()] == ["b", "c", "d", "a"]
    assert [s.id for s in store.list(owner=mine)] == ["c", "a"]
    assert [s.id for s in store.list(owner="")] == ["d"]
    assert [s.id for s in store.list(limit=2, offset=1)] == ["c", "d"]
    first = store.list(owner=theirs)[0]
    assert (first.name, first.uniqueness, first.preview, first.created) == (
        "work.docx",
        0.25,
        "текст",
        300.0,
    )


def test_delete_and_purge(store: CheckStore) -> None:
    for i, created in enumerate([10.0, 20.0, 30.0, 40.0]):
        store.keep(_check(f"k{i}", created))
    assert store.delete("k1") is True
    assert store.delete("k1") is False
    assert store.purge(35.0) == 2  # k0 and k2; k1 is gone already
    assert [s.id for s in store.list()] == ["k3"]
    assert store.purge(0.0) == 0


def test_an_id_is_kept_once(store: CheckStore) -> None:
    store.keep(_check("same", 1.0))
    with pytest.raises(NeardupError):
        store.keep(_check("same", 2.0))
    assert store.get("same") is not None and store.get("same").created == 1.0  # type: ignore[union-attr]


def test_an_empty_store_answers(store: CheckStore) -> None:
    assert list(store.list()) == []
    assert store.delete("x") is False
    assert store.purge(1e12) == 0


def test_kept_checks_survive_reopening(backend: Backend) -> None:
    if backend.kind == "memory":
        pytest.skip("a memory collection ends with its process")
    col = Collection.create(backend.target(), make_spec("ru"))
    check_store(col.storage).keep(_check("lasting", 5.0))
    col.close()
    again = Collection.open(backend.target())
    try:
        got = check_store(again.storage).get("lasting")
        assert got is not None and got.text == "текст"
    finally:
        again.close()


def test_ids_are_unguessable_and_checked() -> None:
    ids = {new_check_id() for _ in range(100)}
    assert len(ids) == 100
    assert all(len(i) == 22 and valid_id(i) == i for i in ids)
    for bad in ("", "../x", "a" * 65, "a b"):
        with pytest.raises(InputError):
            valid_id(bad)
    assert owner_digest(None) == "" and owner_digest("k") != owner_digest("l")


def test_a_body_is_utf8_json_with_only_control_characters_and_surrogates_escaped() -> None:
    kept = KeptCheck("id", 1.0, "", "", "fp", "Щ\x00\ud83d🙂\\", {"источник": "ё\n"})
    body = kept.body()
    assert body == '{"text": "Щ\\u0000\\ud83d🙂\\\\", "result": {"источник": "ё\\n"}}'
    body.encode("utf-8")  # storable: no raw surrogate left
    assert KeptCheck.from_row("id", 1.0, "", "", "fp", body) == kept
    # a body an earlier version kept, every character escaped to ASCII, reads the same
    old = (
        '{"text": "\\u0429\\u0000\\ud83d\\ud83d\\ude42\\\\", "result": '
        '{"\\u0438\\u0441\\u0442\\u043e\\u0447\\u043d\\u0438\\u043a": "\\u0451\\n"}}'
    )
    assert KeptCheck.from_row("id", 1.0, "", "", "fp", old) == kept


def test_sizes_evict_and_the_marks_of_checks_gone(store: CheckStore) -> None:
    mine = owner_digest("mine")
    store.keep(_check("a", 100.0, mine, "короткий"))
    store.keep(_check("b", 200.0, "", "длиннее " * 50))
    store.keep(_check("c", 300.0, mine, "ещё"))
    sizes = dict(store.sizes())
    assert list(dict(store.sizes())) == ["c", "b", "a"]  # newest first
    # a row's bytes: its stored body, UTF-8 ("длиннее " is 15 bytes, 50 times)
    assert sizes["b"] - sizes["a"] == 15 * 50 - len("короткий".encode())
    assert sizes["a"] == len(_check("a", 100.0, mine, "короткий").body().encode())
    assert [i for i, _ in store.sizes(mine)] == ["c", "a"]
    assert store.evict(["a", "nope"], 400.0) == 1
    assert store.get("a") is None and store.gone("a") and not store.gone("b")
    assert not store.gone("nope")  # never there: not marked
    assert store.purge(300.0) == 1  # b; the mark of a (made at 400) stays
    assert store.gone("a")
    assert store.purge(500.0) == 1  # c, and the mark of a
    assert not store.gone("a")
    assert store.sizes() == []


def test_a_source_text_is_stored_once_for_every_check_that_shows_it(store: CheckStore) -> None:
    shared = "Общий текст источника, который показывают две проверки. " * 20

    def with_sources(check_id: str, created: float, *texts: str) -> KeptCheck:
        sources = [{"id": f"s{i}", "borrowed": 0.5, "text": t} for i, t in enumerate(texts)]
        result = {"uniqueness": 0.5, "matches": [], "fragments": {"sources": sources}}
        return KeptCheck(check_id, created, "", "", "spec-fp", "текст", result)

    one = with_sources("one", 10.0, shared, "только первой")
    two = with_sources("two", 20.0, shared)
    store.keep(one)
    store.keep(two)
    assert store.get("one") == one and store.get("two") == two
    sql = getattr(store, "storage", None)

    def stored() -> int:
        return int(sql._q("SELECT count(*) FROM kept_sources")[0][0]) if sql else -1

    if sql is not None:
        assert stored() == 2  # the shared text once, the other once
        body = sql._q("SELECT body FROM kept_checks WHERE id = 'two'")[0][0]
        assert "Общий текст" not in str(body)
    assert store.delete("one")
    assert store.get("two") == two
    assert stored() in (1, -1)
    store.evict(["two"], 30.0)
    assert stored() in (0, -1)


def test_a_table_made_before_the_sizes_gets_them(backend: Backend) -> None:
    if backend.kind == "memory":
        pytest.skip("a memory store has no table")
    col = Collection.create(backend.target(), make_spec("ru"))
    store = check_store(col.storage)
    old = _check("old", 10.0, "", "старый текст")
    # the table as an earlier version made it: no size column, no index on it
    schema = (
        "CREATE TABLE kept_checks (id TEXT PRIMARY KEY, created REAL NOT NULL, owner TEXT NOT "
        "NULL, name TEXT NOT NULL, spec TEXT NOT NULL, uniqueness REAL NOT NULL, preview TEXT "
        "NOT NULL, body TEXT NOT NULL)"
    )
    storage = col.storage
    p = "?" if storage.kind == "sqlite" else "%s"
    with storage._lock:
        storage._conn.execute(schema)
        storage._conn.execute(
            f"INSERT INTO kept_checks VALUES ({', '.join([p] * 8)})",
            (old.id, old.created, "", "", "spec-fp", 0.25, "старый", old.body()),
        )
    store.keep(_check("new", 20.0, "", "новый"))
    assert [i for i, _ in store.sizes()] == ["new", "old"]
    assert dict(store.sizes())["old"] == len(old.body().encode())
    assert store.get("old") == dataclasses.replace(old, name="", owner="")

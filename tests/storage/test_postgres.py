"""PostgreSQL specifics beyond the conformance suite: URLs, a locked collection, a missing
schema."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from neardup.errors import InputError, StorageError
from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection
from neardup.storage.postgres import parse_url
from tests import _textgen as tg
from tests.storage._postgres import PG_URL, drop_schemas, postgres_or_fail, unique_schema


def test_parse_url_hides_the_password_and_takes_the_schema() -> None:
    conninfo, schema, shown = parse_url(
        "postgresql://bob:secret@db.example:5433/main?schema=docs&sslmode=disable"
    )
    assert schema == "docs"
    assert "secret" not in shown and "bob:***@db.example:5433" in shown
    assert "schema" not in conninfo and "sslmode=disable" in conninfo and "secret" in conninfo
    assert parse_url("postgresql://h/db")[1] == "neardup"
    with pytest.raises(InputError, match="schema name"):
        parse_url("postgresql://h/db?schema=bad;drop")


@pytest.fixture
def url() -> Iterator[str]:
    postgres_or_fail()
    schema = unique_schema()
    yield f"{PG_URL}?schema={schema}"
    drop_schemas(schema)


def test_missing_schema_is_an_input_error(url: str) -> None:
    with pytest.raises(InputError, match="no collection in schema"):
        Collection.open(url)


def test_a_locked_collection_is_a_clear_error_and_readers_go_on(url: str) -> None:
    import psycopg

    Collection.create(url, make_spec("plain")).close()
    schema = url.rsplit("schema=", 1)[1]
    with psycopg.connect(PG_URL) as other:  # a writer holding the lock, in a transaction
        other.execute(f"SELECT value FROM \"{schema}\".meta WHERE key = 'next_key' FOR UPDATE")
        with Collection.open(url, timeout=0.3) as col:
            with pytest.raises(StorageError, match="locked"):
                col.add("a", tg.text(50, 1))
            assert col.check(tg.text(50, 1)).matches == ()
        other.rollback()
    with Collection.open(url) as col:
        assert len(col) == 0
        assert col.add("a", tg.text(50, 1)).accepted

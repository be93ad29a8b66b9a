"""A kept check whose row is damaged, on SQLite and PostgreSQL: reading it is a
DamagedCheckError that names it (or, when only the listing's copy of a value is damaged, the
check reads), the listing marks it and goes on with the other rows, and it can be removed."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from neardup.errors import DamagedCheckError
from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection
from neardup.report.check_record import record_damage
from neardup.storage.checks import CheckStore, KeptCheck, check_store, owner_digest
from tests.storage._kept_damage import DAMAGES, RECORD, Damage, damage_postgres, damage_sqlite
from tests.storage._postgres import PG_URL, drop_schemas, postgres_or_fail, unique_schema

OWNER = owner_digest("a browser's own key")


@dataclass
class Kept:
    """A store holding two checks, ``hurt`` (to be damaged) and ``whole``, and how to damage
    a row of it."""

    kind: str
    store: CheckStore
    location: str
    schema: str = ""

    def damage(self, check_id: str, damage: Damage) -> None:
        if self.kind == "sqlite":
            damage_sqlite(self.location, check_id, damage)
        else:
            damage_postgres(PG_URL, self.schema, check_id, damage)


@pytest.fixture(params=["sqlite", "postgres"])
def kept(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Kept]:
    if request.param == "sqlite":
        location, schema = str(tmp_path / "checks.db"), ""
    else:
        postgres_or_fail()
        schema = unique_schema()
        location = f"{PG_URL}?schema={schema}"
    col = Collection.create(location, make_spec("plain"))
    store = check_store(col.storage)
    for check_id, created in (("hurt", 2000.0), ("whole", 1000.0)):
        store.keep(KeptCheck(check_id, created, OWNER, "essay.docx", "fp", "one two", RECORD))
    try:
        yield Kept(request.param, store, location, schema)
    finally:
        col.close()
        if schema:
            drop_schemas(schema)


@pytest.mark.parametrize("damage", DAMAGES, ids=[d.name for d in DAMAGES])
def test_a_damaged_row_is_refused_listed_and_removable(kept: Kept, damage: Damage) -> None:
    if kept.kind == "postgres" and damage.postgres is None:
        pytest.skip("PostgreSQL's column type cannot hold this value")
    kept.damage("hurt", damage)
    # reading it
    if damage.read == "store":
        with pytest.raises(DamagedCheckError) as caught:
            kept.store.get("hurt")
        message = str(caught.value)
        assert message.startswith("the kept check 'hurt' is damaged (its ")
        assert message.endswith("; it cannot be shown, only removed")
        assert len(message) < 300 and caught.value.code == "damaged_check"
    else:
        found = kept.store.get("hurt")
        assert found is not None and found.text
        assert (record_damage(found.result) is None) == (damage.read == "ok")
    # the listing goes on, marking it
    listed = {s.id: s for s in kept.store.list()}
    assert set(listed) == {"hurt", "whole"}
    assert listed["hurt"].damaged is damage.listed
    assert listed["whole"].damaged is False and listed["whole"].created == 1000.0
    assert ("damaged" in listed["hurt"].to_dict()) is damage.listed
    # and its removal: its owner is read (empty when it is the damaged value)
    assert kept.store.owner("hurt") == ("" if damage.column == "owner" else OWNER)
    assert kept.store.delete("hurt") is True
    assert kept.store.purge(500.0) == 0  # nothing else is older
    assert kept.store.get("hurt") is None and kept.store.owner("hurt") is None
    assert [s.id for s in kept.store.list()] == ["whole"]


def test_the_whole_record_reads() -> None:
    assert record_damage(RECORD) is None
    assert record_damage({**RECORD, "exclude": [1]}) == "its excluded sources cannot be read"
    assert record_damage({**RECORD, "uniqueness": 2.0}) == "its uniqueness is not a share"
    assert record_damage({**RECORD, "suspicious": {"tricks": "x"}}) == "its tricks cannot be read"

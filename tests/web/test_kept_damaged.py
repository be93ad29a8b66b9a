"""A damaged kept check through the API and the page, on SQLite and PostgreSQL: its JSON, page
and PDF are a 500 of the documented kind (``DamagedCheckError`` with a message; the page says
it in its language and offers the removal), the history lists it marked, and its maker or a
token holder removes it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection
from neardup.storage.checks import KeptCheck, check_store, owner_digest
from neardup.web.service import ServiceConfig
from tests.storage._kept_damage import DAMAGES, RECORD, Damage, damage_postgres, damage_sqlite
from tests.storage._postgres import PG_URL, drop_schemas, postgres_or_fail, unique_schema
from tests.web.conftest import TOKEN, client_for, form_token

KEY = "a-browser-key-of-its-own-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@dataclass
class Served:
    kind: str
    location: str
    schema: str

    def damage(self, check_id: str, damage: Damage) -> None:
        if self.kind == "sqlite":
            damage_sqlite(self.location, check_id, damage)
        else:
            damage_postgres(PG_URL, self.schema, check_id, damage)


@pytest.fixture(params=["sqlite", "postgres"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    if request.param == "sqlite":
        location, schema = str(tmp_path / "checks.db"), ""
    else:
        postgres_or_fail()
        schema = unique_schema()
        location = f"{PG_URL}?schema={schema}"
    with Collection.create(location, make_spec("plain")) as col:
        store = check_store(col.storage)
        for check_id in ("hurt", "whole"):
            kept = KeptCheck(
                check_id, time.time(), owner_digest(KEY), "essay.docx", "fp", "one two", RECORD
            )
            store.keep(kept)
    try:
        yield Served(request.param, location, schema)
    finally:
        if schema:
            drop_schemas(schema)


@pytest.mark.parametrize("damage", DAMAGES, ids=[d.name for d in DAMAGES])
def test_a_damaged_check_is_a_500_listed_and_removable(served: Served, damage: Damage) -> None:
    if served.kind == "postgres" and damage.postgres is None:
        pytest.skip("PostgreSQL's column type cannot hold this value")
    served.damage("hurt", damage)
    with client_for(ServiceConfig(db=served.location, token=TOKEN)) as client:
        client.cookies.set("neardup_owner", KEY)
        answer = client.get("/api/checks/hurt")
        pdf = client.get("/api/checks/hurt/pdf")
        page = client.get("/checks/hurt", headers={"Accept-Language": "ru"})
        if damage.read == "ok":
            assert answer.status_code == 200 and answer.json()["text"] == "one two"
            assert page.status_code == 200
        else:
            assert answer.status_code == 500, answer.text
            body = answer.json()
            assert body["error"] == "DamagedCheckError"
            assert body["message"].startswith("the kept check 'hurt' is damaged (its ")
            assert pdf.status_code == 500 and pdf.json()["error"] == "DamagedCheckError"
            assert page.status_code == 500
            assert "Сохранённая проверка повреждена" in page.text
            assert ('id="kept-delete"' in page.text) is (damage.column != "owner")
            assert "Traceback" not in page.text
        # the history: the token holder's lists it, marked when its listed values are damaged
        listed = {c["id"]: c for c in client.get("/api/checks", headers=AUTH).json()["checks"]}
        assert set(listed) == {"hurt", "whole"}
        assert listed["hurt"].get("damaged", False) is damage.listed
        history = client.get("/checks", headers={**AUTH, "Accept-Language": "ru"})
        assert history.status_code == 200
        assert ("повреждена" in history.text) is damage.listed
        # its maker removes it (a token holder when its owner is what was damaged)
        if damage.column == "owner":
            assert client.delete("/api/checks/hurt").status_code == 403
            removed = client.delete("/api/checks/hurt", headers=AUTH)
        else:
            removed = client.delete("/api/checks/hurt")
        assert removed.json() == {"removed": True}
        assert client.get("/api/checks/hurt").status_code == 404
        assert client.get("/api/checks/whole").status_code == 200


def test_the_page_removes_a_damaged_check(served: Served) -> None:
    served.damage("hurt", DAMAGES[0])
    with client_for(ServiceConfig(db=served.location, token=TOKEN)) as client:
        client.cookies.set("neardup_owner", KEY)
        gone = client.post(
            "/checks/hurt/delete", data={"csrf": form_token(client)}, follow_redirects=False
        )
        assert gone.status_code == 303 and gone.headers["location"] == "/checks"
        assert client.get("/checks/hurt").status_code == 404


def test_the_schema_documents_the_500() -> None:
    from neardup.web.app import create_app

    schema = create_app(ServiceConfig(db="memory:")).openapi()
    route = schema["paths"]["/api/checks/{check_id}"]["get"]["responses"]
    assert "DamagedCheckError" in route["500"]["description"]

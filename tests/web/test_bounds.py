"""Every parameter bounded as the schema says, and the schema as tight as the server: an
offset past a 64-bit integer, blank ids, ids with text-direction controls, ``ids: []``,
``top: 69.0``, an upload named without a suffix; the methods of a path (OPTIONS, 405); the
PDF's link from the configured public URL, never the Host header."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from neardup.web.service import ServiceConfig
from tests.web.conftest import TOKEN, client_for

AUTH = {"Authorization": f"Bearer {TOKEN}"}
SPOOF = "id\u202e\u200bgpj.exe"


@pytest.mark.parametrize("offset", ["9223372036854775808", "-1", "1e3"])
def test_an_offset_out_of_range_is_a_422(client: TestClient, offset: str) -> None:
    r = client.get(f"/api/checks?offset={offset}")
    assert r.status_code == 422 and r.json()["error"] == "invalid_request"
    assert client.get("/api/checks?offset=9223372036854775807").json() == {"checks": []}
    assert client.get("/collection?group=9223372036854775808").status_code == 422


def test_the_schema_bounds_what_the_server_bounds(client: TestClient) -> None:
    schema = client.get("/api/openapi.json").json()
    parts = schema["components"]["schemas"]
    offset = next(
        p for p in schema["paths"]["/api/checks"]["get"]["parameters"] if p["name"] == "offset"
    )
    assert offset["schema"]["maximum"] == 2**63 - 1
    doc_id = parts["DocumentIn"]["properties"]["id"]
    pattern = re.compile(doc_id["pattern"])
    assert pattern.search("a.txt") and not pattern.search("   ") and not pattern.search(SPOOF)
    assert parts["MatrixIn"]["properties"]["ids"]["anyOf"][0]["minItems"] == 2
    assert "pattern" in parts["RemoveIn"]["properties"]["ids"]["items"]


def test_blank_and_spoofing_ids_are_refused_clearly(
    client: TestClient, auth: dict[str, str]
) -> None:
    for doc_id in ("", "   ", SPOOF):
        r = client.post(
            "/api/documents", json={"documents": [{"id": doc_id, "text": "т"}]}, headers=auth
        )
        assert r.status_code == 422, doc_id
    r = client.post(
        "/api/documents", json={"documents": [{"id": SPOOF, "text": "т"}]}, headers=auth
    )
    assert "text-direction control (U+202E at position 2)" in r.json()["message"]
    r = client.post("/api/remove", json={"ids": [" "]}, headers=auth)
    assert r.status_code == 422
    # the page says it in Russian, the id kept in its field
    page = client.post(
        "/collection/add", data={"id": SPOOF, "text": "Текст о реке.", "token": TOKEN}
    )
    assert page.status_code == 400
    assert "невидимый управляющий символ направления текста (U+202E, позиция 2)" in page.text
    assert client.get("/api/documents/" + SPOOF).status_code == 404


def test_matrix_ids_and_whole_numbers(client: TestClient, essay: str, park: str) -> None:
    r = client.post("/api/matrix", json={"texts": [essay, park], "ids": []})
    assert r.status_code == 422
    r = client.post("/api/matrix", json={"texts": [essay, park], "ids": ["a", SPOOF]})
    assert r.status_code == 422
    r = client.post("/api/compare", json={"a": essay, "b": park, "b_id": SPOOF})
    assert r.status_code == 422
    # 69.0 is an integer to JSON Schema, and to the server; 69.5 is not
    assert client.post("/api/check", json={"text": essay, "top": 69.0}).status_code == 200
    assert client.post("/api/check", json={"text": essay, "top": 69.5}).status_code == 422


def test_an_upload_without_a_suffix_is_read(client: TestClient, essay: str) -> None:
    plain = client.post("/api/check/file", files={"file": ("file", essay.encode())})
    assert plain.status_code == 200
    assert plain.json()["text"] == essay
    typed = client.post(
        "/api/check/file",
        files={"file": ("file", b"<p>\xd0\x9f\xd0\xb0\xd1\x80\xd0\xba</p>", "text/html")},
    )
    assert typed.status_code == 200 and typed.json()["text"] == "<p>Парк</p>"
    assert client.post("/api/check/file", files={"file": ("a.exe", b"MZ")}).status_code == 415


def test_the_methods_of_a_path(client: TestClient, auth: dict[str, str]) -> None:
    r = client.options("/api/documents/park.txt")
    assert r.status_code == 204
    assert r.headers["allow"] == "DELETE, GET, HEAD, OPTIONS"
    r = client.put("/api/documents/park.txt", headers=auth)
    assert r.status_code == 405 and r.headers["allow"] == "DELETE, GET, HEAD, OPTIONS"
    r = client.delete("/api/checks/abcdefghijklmnopqrstuv/pdf", headers=auth)
    assert r.status_code == 405 and "DELETE" not in r.headers["allow"]
    assert client.options("/api/check").headers["allow"] == "OPTIONS, POST"


def test_the_pdf_link_comes_from_the_public_url(db: str, essay: str) -> None:
    pytest.importorskip("fpdf")
    from neardup.web.kept import _pdf  # noqa: F401  (the report's writer is there)

    for public, expected in (
        (None, None),
        ("https://checks.example.org/", "https://checks.example.org/checks/"),
    ):
        with client_for(ServiceConfig(db=db, token=TOKEN, public_url=public)) as c:
            check_id = c.post("/api/check", json={"text": essay}).json()["check_id"]
            pdf = c.get(f"/api/checks/{check_id}/pdf", headers={"Host": "evil.example"}).content
            assert b"evil.example" not in pdf
            if expected is not None:
                assert (expected + check_id).encode() in pdf


def test_an_offset_out_of_range_is_a_422_on_postgresql_too(essay: str) -> None:
    from neardup.fingerprints.pipeline import make_spec
    from neardup.index import Collection
    from tests.storage._postgres import PG_URL, drop_schemas, postgres_or_fail, unique_schema

    postgres_or_fail()
    schema = unique_schema()
    location = f"{PG_URL}?schema={schema}"
    try:
        Collection.create(location, make_spec("ru")).close()
        with client_for(ServiceConfig(db=location, token=TOKEN)) as c:
            c.post("/api/check", json={"text": essay})
            assert c.get("/api/checks?offset=9223372036854775808").status_code == 422
            most = c.get("/api/checks?offset=9223372036854775807", headers=AUTH)
            assert most.status_code == 200 and most.json() == {"checks": []}
            assert len(c.get("/api/checks", headers=AUTH).json()["checks"]) == 1
    finally:
        drop_schemas(schema)


def test_the_settings_reach_the_workers() -> None:
    config = ServiceConfig(
        db="x.db",
        token=TOKEN,
        public_url="https://checks.example.org",
        owner_checks_max=7,
        keep_checks_bytes=12345,
        check_rate=0,
    )
    env = config.to_env()
    assert env["NEARDUP_SERVE_SECRET"] == config.secret
    again = ServiceConfig.from_env({**env, "NEARDUP_TOKEN": TOKEN})
    assert again == config and again.secret == config.secret
    assert ServiceConfig(db="x.db").secret != ServiceConfig(db="x.db").secret  # drawn per start

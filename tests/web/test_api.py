"""The HTTP API over a small collection: every endpoint, the CLI's JSON, every bad request."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from neardup.cli.main import main
from neardup.web.service import ServiceConfig
from tests.web._files import docx_bytes, pdf_bytes
from tests.web.conftest import EXAMPLES, TOKEN, client_for


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    capsys.readouterr()
    assert main(list(argv)) == 0
    out = capsys.readouterr().out.strip().splitlines()
    return [json.loads(line) for line in out] if len(out) > 1 else json.loads(out[0])


def count(client: TestClient) -> int:
    return int(client.get("/api/stats").json()["documents"])


# --- reads ---------------------------------------------------------------------------------


def test_check_is_the_cli_json(
    client: TestClient, db: str, essay: str, capsys: pytest.CaptureFixture[str]
) -> None:
    r = client.post("/api/check", json={"text": essay, "fragments": True})
    assert r.status_code == 200
    body = r.json()
    # the essay's one shared paragraph is quoted: cited, not borrowed, and not unique either
    assert (body["uniqueness_percent"], body["borrowed"], body["cited"]) == (75.23, 0.0, 0.247706)
    assert body["shingles"] == 105
    assert [m["id"] for m in body["matches"]] == ["park_repost.txt", "park.txt"]
    assert body["decision"] == {"accepted": True, "reason": "new", "group": None}
    assert "uniqueness" not in body["fragments"]  # said once
    # the check is kept: its id and addresses beside the CLI's JSON
    kept = {key: body.pop(key) for key in ("check_id", "check_url", "pdf_url")}
    assert kept["check_url"] == f"/checks/{kept['check_id']}"
    path = str(EXAMPLES / "essay_with_quote.txt")
    assert body == cli_json(capsys, "index", "check", db, path, "--json", "--fragments")
    plain = client.post("/api/check", json={"text": essay}).json()
    assert "fragments" not in plain
    assert plain.pop("check_id") != kept["check_id"]
    del plain["check_url"], plain["pdf_url"]
    assert plain == cli_json(capsys, "index", "check", db, path, "--json")


def test_stats_groups_get_are_the_cli_json(
    client: TestClient,
    db: str,
    park: str,
    capsys: pytest.CaptureFixture[str],
    auth: dict[str, str],
) -> None:
    # the token holder sees the CLI's JSON; an anonymous reader the same without the location
    stats = client.get("/api/stats", headers=auth).json()
    assert stats == cli_json(capsys, "index", "stats", db, "--json")
    anonymous = client.get("/api/stats").json()
    assert anonymous == {k: v for k, v in stats.items() if k != "location"}
    assert stats["documents"] == 4
    groups = client.get("/api/groups").json()["groups"]
    assert groups == [
        {
            "id": 2,
            "representative": "park.txt",
            "size": 2,
            "members": ["park.txt", "park_repost.txt"],
        }
    ]
    assert client.get("/api/groups", params={"min_size": 1}).json()["groups"][0]["id"] == 1
    doc = client.get("/api/documents/park.txt").json()
    assert (doc["id"], doc["key"], doc["group"], doc["text"]) == ("park.txt", 2, 2, park)
    assert doc["meta"]["path"].endswith("park.txt")
    r = client.get("/api/documents/nowhere.txt")
    assert r.status_code == 404
    assert r.json() == {
        "error": "NotFoundError",
        "message": "no document 'nowhere.txt' in the collection",
    }
    r = client.get("/api/documents/nowhere.txt", headers=auth)
    assert r.json()["message"] == f"no document 'nowhere.txt' in the collection {db}"


def test_compare_and_matrix_are_the_cli_json(
    client: TestClient, essay: str, park: str, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = EXAMPLES / "essay_with_quote.txt", EXAMPLES / "collection" / "park.txt"
    body = {"a": essay, "b": park, "b_id": str(b), "fragments": True}
    out = client.post("/api/compare", json=body).json()
    # the service compares under its collection's spec (conftest: ru, no length-adaptive rule)
    spec_flags = ("--preset", "ru", "--short-below", "0")
    out_cli = cli_json(capsys, "compare", str(a), str(b), "--json", "--fragments", *spec_flags)
    assert out == out_cli
    assert next(iter(out)) == "combined"  # the score both lead with by default
    assert out["fragments_summary"]["borrowed"] == 0.0  # quoted: cited, not borrowed
    assert out["fragments_summary"]["cited"] == 0.247706
    assert len(out["fragments"]) == 1
    passage = out["fragments"][0]
    assert essay[passage["a_start"] : passage["a_end"]] == passage["a_text"]
    assert park[passage["b_start"] : passage["b_end"]] == passage["b_text"]
    files = sorted((EXAMPLES / "collection").iterdir())
    texts = [f.read_text(encoding="utf-8") for f in files]
    ids = [str(f) for f in files]
    matrix = client.post("/api/matrix", json={"texts": texts, "ids": ids}).json()
    assert matrix == cli_json(capsys, "matrix", *ids, "--json", *spec_flags)
    default_ids = client.post("/api/matrix", json={"texts": texts[:2], "method": "resemblance"})
    assert default_ids.json()["ids"] == ["1", "2"]


def test_openapi_schema_lists_every_verb(client: TestClient) -> None:
    schema = client.get("/api/openapi.json").json()
    assert set(schema["paths"]) == {
        "/api/check",
        "/api/check/file",
        "/api/documents",
        "/api/documents/file",
        "/api/remove",
        "/api/documents/{doc_id}",
        "/api/groups",
        "/api/stats",
        "/api/compare",
        "/api/compare/files",
        "/api/matrix",
        "/api/checks",
        "/api/checks/{check_id}",
        "/api/checks/{check_id}/pdf",
    }


# --- uploads -------------------------------------------------------------------------------


def test_check_uploads_in_every_format(client: TestClient, essay: str) -> None:
    expected = client.post("/api/check", json={"text": essay}).json()["matches"]
    uploads = {
        "essay.txt": essay.encode("utf-8"),
        "essay-1251.txt": essay.encode("cp1251"),
        # KOI8-R has no «»: a KOI8 file writes the quote with straight quotes
        "essay-koi8.txt": essay.replace("«", '"').replace("»", '"').encode("koi8-r"),
        "essay.html": f"<html><body><p>{essay}</p></body></html>".encode(),
        "essay.docx": docx_bytes(essay.split("\n")),
        "essay.pdf": pdf_bytes(essay.split("\n")),
    }
    for name, data in uploads.items():
        r = client.post("/api/check/file", files={"file": (name, data)}, data={"fragments": "true"})
        assert r.status_code == 200, (name, r.text)
        body = r.json()
        assert body["matches"] == expected, name
        assert body["uniqueness_percent"] == 75.23, name
        for source in body["fragments"]["sources"]:
            for p in source["passages"]:  # offsets point into the extracted text returned
                assert body["text"][p["a_start"] : p["a_end"]] == p["a_text"], name
    docx = client.post("/api/check/file", files={"file": ("e.docx", uploads["essay.docx"])})
    assert docx.json()["text"] == essay


def test_add_file_and_remove(client: TestClient, auth: dict[str, str], park: str) -> None:
    data = docx_bytes(park.split("\n"))
    r = client.post(
        "/api/documents/file",
        data={"id": "copy.docx", "policy": "allow"},
        files={"file": ("copy.docx", data)},
        headers=auth,
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["accepted"], body["documents"], body["reasons"]) == (1, 5, {"linked": 1})
    assert [m["id"] for m in body["decisions"][0]["matches"]][0] == "park.txt"
    r = client.delete("/api/documents/copy.docx", headers=auth)
    assert r.json() == {"removed": 1, "documents": 4}


def test_add_json_with_policy_and_remove(
    client: TestClient, auth: dict[str, str], park: str
) -> None:
    docs = [{"id": "a/new.txt", "text": "Совсем другой текст о погоде и дожде.", "meta": {"k": 1}}]
    r = client.post("/api/documents", json={"documents": docs}, headers=auth)
    assert r.status_code == 200
    assert r.json()["reasons"] == {"new": 1}
    assert client.get("/api/documents/a/new.txt").json()["meta"] == {"k": 1}
    dup = [{"id": "dup", "text": park}]
    r = client.post("/api/documents", json={"documents": dup, "policy": "reject"}, headers=auth)
    assert r.json()["reasons"] == {"duplicate": 1}
    assert r.json()["documents"] == 5
    r = client.post("/api/documents", json={"documents": docs}, headers=auth)
    assert r.status_code == 409
    assert "a/new.txt" in r.json()["message"]
    r = client.post("/api/remove", json={"ids": ["a/new.txt", "missing"]}, headers=auth)
    assert r.status_code == 404
    assert count(client) == 5
    assert client.post("/api/remove", json={"ids": ["a/new.txt"]}, headers=auth).json() == {
        "removed": 1,
        "documents": 4,
    }


def test_add_unchecked_stores_a_copy_as_its_own_group(
    client: TestClient, auth: dict[str, str], park: str
) -> None:
    """``"check": false`` is the bulk load: a copy of a stored text is not refused or grouped
    but stored as a group of its own (reason ``unchecked``); checked, the same copy is refused;
    an id already taken is still refused."""
    checked = client.post(
        "/api/documents",
        json={"documents": [{"id": "copy", "text": park}], "policy": "reject"},
        headers=auth,
    )
    assert checked.json()["reasons"] == {"duplicate": 1}
    r = client.post(
        "/api/documents",
        json={"documents": [{"id": "copy", "text": park}], "check": False},
        headers=auth,
    )
    assert r.status_code == 200
    out = r.json()
    assert out["reasons"] == {"unchecked": 1} and out["accepted"] == 1
    (decision,) = out["decisions"]
    assert decision["matches"] == []
    stored = client.get("/api/documents/park.txt").json()
    assert client.get("/api/documents/copy").json()["group"] != stored["group"]
    again = client.post(
        "/api/documents",
        json={"documents": [{"id": "copy", "text": park}], "check": False},
        headers=auth,
    )
    assert again.status_code == 409


# --- bad requests: a clear 4xx, nothing changed --------------------------------------------


@pytest.mark.parametrize(
    ("headers", "status", "message"),
    [
        ({}, 401, "this needs a token (Authorization: Bearer TOKEN)"),
        ({"Authorization": "Bearer nope"}, 401, "wrong token"),
        ({"X-Neardup-Token": "nope"}, 401, "wrong token"),
    ],
)
def test_writes_need_the_token(
    client: TestClient, headers: dict[str, str], status: int, message: str
) -> None:
    docs = {"documents": [{"id": "x", "text": "text"}]}
    for method, url, kwargs in (
        ("POST", "/api/documents", {"json": docs}),
        ("POST", "/api/remove", {"json": {"ids": ["park.txt"]}}),
        ("DELETE", "/api/documents/park.txt", {}),
        ("POST", "/api/documents/file", {"data": {"id": "y"}, "files": {"file": ("y.txt", b"t")}}),
    ):
        r = client.request(method, url, headers=headers, **kwargs)
        assert (r.status_code, r.json()) == (status, {"error": "unauthorized", "message": message})
    assert count(client) == 4
    assert (
        client.post(
            "/api/check", json={"text": "x"}, headers={"X-Neardup-Token": TOKEN}
        ).status_code
        == 200
    )


def test_without_a_token_writes_are_off(db: str) -> None:
    with client_for(ServiceConfig(db=db)) as c:
        r = c.post("/api/documents", json={"documents": [{"id": "x", "text": "t"}]})
        assert r.status_code == 403
        assert r.json()["message"].startswith("writes are off")
        assert count(c) == 4


def test_reads_can_need_the_token(db: str, essay: str) -> None:
    with client_for(ServiceConfig(db=db, token=TOKEN, reads="token")) as c:
        assert c.get("/api/stats").status_code == 401
        assert c.post("/api/check", json={"text": essay}).status_code == 401
        assert c.get("/api/stats", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
        page = c.get("/")
        assert page.status_code == 401 and 'id="token-form"' in page.text
        r = c.post("/token", data={"token": TOKEN}, follow_redirects=False)
        assert r.status_code == 303
        assert c.get("/api/stats").status_code == 200  # the cookie


def test_oversize_body_and_text(client: TestClient, auth: dict[str, str]) -> None:
    big = {"text": "слово " * 40_000}  # 240,000 characters: over the 200,000-byte body limit
    r = client.post("/api/check", json=big)
    assert r.status_code == 413
    assert r.json() == {
        "error": "too_large",
        "message": "the request body is larger than this service's limit of 200,000 bytes",
    }

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while read
        yield b'{"text": "'
        for _ in range(30):
            yield b"a" * 10_000
        yield b'"}'

    r = client.post("/api/check", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    r = client.post("/api/check", json={"text": "a " * 30_000})  # under the body limit
    assert r.status_code == 413
    assert (
        r.json()["message"] == "the text has 60,000 characters; this service takes at most 50,000"
    )
    docs = {"documents": [{"id": "big", "text": "a " * 30_000}]}
    assert client.post("/api/documents", json=docs, headers=auth).status_code == 413
    up = client.post("/api/check/file", files={"file": ("big.txt", b"a " * 90_000)})
    assert up.status_code == 413
    assert count(client) == 4


def test_malformed_and_invalid_json(client: TestClient, auth: dict[str, str]) -> None:
    r = client.post(
        "/api/check", content=b'{"text": ', headers={"content-type": "application/json"}
    )
    assert r.status_code == 400
    assert r.json()["error"] == "malformed_json"
    r = client.post("/api/check", json={"text": 5})
    assert (r.status_code, r.json()["error"]) == (422, "invalid_request")
    assert r.json()["message"] == "text: Input should be a valid string"
    r = client.post("/api/check", json={"text": "x", "top": 0})
    assert r.status_code == 422
    r = client.post("/api/documents", json={"documents": [], "policy": "x"}, headers=auth)
    assert r.status_code == 422
    r = client.post("/api/documents", json={"documents": [{"id": "", "text": "t"}]}, headers=auth)
    assert r.status_code == 422
    twice = {"documents": [{"id": "d", "text": "a"}, {"id": "d", "text": "b"}]}
    r = client.post("/api/documents", json=twice, headers=auth)
    assert (r.status_code, r.json()["error"]) == (400, "InputError")
    r = client.post("/api/matrix", json={"texts": ["a"] * 21})
    assert r.status_code == 413
    r = client.post("/api/matrix", json={"texts": ["a", "b"], "ids": ["x"]})
    assert r.status_code == 422  # the schema says two ids at least
    r = client.post("/api/matrix", json={"texts": ["a", "b", "c"], "ids": ["x", "y"]})
    assert r.status_code == 400
    assert client.get("/api/groups", params={"min_size": "many"}).status_code == 422
    assert client.get("/api/nothing").status_code == 404
    assert client.put("/api/check").status_code == 405
    assert count(client) == 4


def test_unsupported_and_corrupt_files(client: TestClient, auth: dict[str, str]) -> None:
    r = client.post("/api/check/file", files={"file": ("virus.exe", b"MZ\x90\x00")})
    assert r.status_code == 415
    assert r.json()["message"].startswith("cannot read a file of type '.exe'")
    bad = {
        "bad.docx": (b"PK\x03\x04 not really a zip", "not a readable .docx file"),
        "bad2.docx": (b"plain text", "not a readable .docx file (it is not a ZIP package)"),
        "bad.pdf": (b"%PDF-1.4\n1 0 obj <<", "not a readable .pdf file"),
        "bad2.pdf": (b"hello", "not a readable .pdf file (no %PDF- header)"),
        "bin.txt": (bytes(range(256)) * 8, "binary"),
    }
    for name, (data, message) in bad.items():
        r = client.post("/api/check/file", files={"file": (name, data)})
        assert r.status_code == 400, name
        assert message in r.json()["message"], (name, r.json())
        r = client.post(
            "/api/documents/file", data={"id": name}, files={"file": (name, data)}, headers=auth
        )
        assert r.status_code == 400, name
    assert count(client) == 4


def test_no_traceback_on_unexpected_errors(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(service, "stats", boom)
    r = client.get("/api/stats")
    assert r.status_code == 500
    assert r.json() == {"error": "internal", "message": "internal error; see the server's log"}


def test_cli_compares_docx_with_pdf(
    tmp_path: Path, essay: str, park: str, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = tmp_path / "essay.docx", tmp_path / "src.pdf"
    a.write_bytes(docx_bytes(essay.split("\n")))
    b.write_bytes(pdf_bytes(park.split("\n")))
    txt = cli_json(
        capsys,
        "compare",
        str(EXAMPLES / "essay_with_quote.txt"),
        str(EXAMPLES / "collection" / "park.txt"),
        "--json",
    )
    office = cli_json(capsys, "compare", str(a), str(b), "--json", "--fragments")
    for key in ("resemblance", "containment_ab", "containment_ba", "shared"):
        assert office[key] == txt[key], key
    assert len(office["fragments"]) == 1
    broken = tmp_path / "broken.docx"
    broken.write_bytes(b"PK\x03\x04junk")
    assert main(["compare", str(broken), str(b)]) == 2
    assert "broken.docx: not a readable .docx file" in capsys.readouterr().err


def test_length_limits_refuse_one_document_of_a_request(
    tmp_path: Path, auth: dict[str, str], park: str
) -> None:
    """A collection with seed 000's length limits: the service refuses the short text alone,
    saying why, and adds the rest of the request."""
    from neardup.fingerprints.pipeline import make_spec
    from neardup.index import Collection, IndexSpec

    db = str(tmp_path / "limited.db")
    Collection.create(db, make_spec("ru"), IndexSpec(min_length=100)).close()
    with client_for(ServiceConfig(db=db, token=TOKEN)) as client:
        docs = [{"id": "short", "text": "Коротко."}, {"id": "park", "text": park}]
        r = client.post("/api/documents", json={"documents": docs}, headers=auth)
        assert r.status_code == 200, r.text
        body = r.json()
        assert (body["accepted"], body["rejected"], body["documents"]) == (1, 1, 1)
        refused = body["decisions"][0]
        assert (refused["id"], refused["reason"]) == ("short", "too_short")
        assert refused["detail"].startswith("the text of 'short' has 8 characters;")
        assert refused["detail"].endswith("admits texts of at least 100 characters")

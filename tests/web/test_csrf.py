"""Cross-site request forgery, as an attacker tries it with the TestClient: a write sent with
the service's cookies alone (from another port of the same host, from another site, with no
Origin at all) is refused; the page's own forms, which carry its form token, still work; the
login cookie never holds the token. The same attacks in Chromium: test_browser_csrf.py."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from neardup.web.auth import LOGIN_COOKIE, csrf_token
from neardup.web.service import ServiceConfig
from tests.web._kept import copied_text, make_titled_collection
from tests.web.conftest import TOKEN, client_for, form_token

OWN = "http://testserver"  # the TestClient's own origin
OTHER_PORT = "http://testserver:8001"  # another port of the same host: same site
EVIL = "http://evil.example"


def _logged_in(config: ServiceConfig) -> TestClient:
    client = client_for(config)
    client.__enter__()
    r = client.post("/token", data={"token": TOKEN}, follow_redirects=False)
    assert r.status_code == 303
    return client


def test_the_login_cookie_is_not_the_token(db: str) -> None:
    client = _logged_in(ServiceConfig(db=db, token=TOKEN, reads="token"))
    try:
        value = client.cookies[LOGIN_COOKIE]
        assert TOKEN not in value and len(value) > 60
        assert client.get("/api/stats").status_code == 200  # the login works for reads
    finally:
        client.__exit__(None, None, None)
    # the raw token in the cookie (what the cookie used to hold) is no login
    with client_for(ServiceConfig(db=db, token=TOKEN, reads="token")) as other:
        other.cookies.set(LOGIN_COOKIE, TOKEN)
        assert other.get("/api/stats").status_code == 401
        forged = value.split(".")[0] + "." + "0" * 64
        other.cookies.set(LOGIN_COOKIE, forged)
        assert other.get("/api/stats").status_code == 401


def test_cookie_writes_from_elsewhere_are_refused(db: str) -> None:
    client = _logged_in(ServiceConfig(db=db, token=TOKEN))
    try:
        # an auto-submitted form of another port of the same host, and curl's evil Origin
        for origin in (OTHER_PORT, EVIL, "null"):
            r = client.post("/doc-remove", data={"id": "park.txt"}, headers={"Origin": origin})
            assert r.status_code == 403, origin
            assert "с другого сайта" in r.text
        # a Referer of another origin, without an Origin
        r = client.post("/doc-remove", data={"id": "park.txt"}, headers={"Referer": f"{EVIL}/page"})
        assert r.status_code == 403
        # no Origin at all, the cookie alone: no form token, refused
        r = client.post("/doc-remove", data={"id": "park.txt"})
        assert r.status_code == 403 and "Форма устарела" in r.text
        r = client.post(
            "/api/documents/file",
            data={"id": "new.txt"},
            files={"file": ("new.txt", "Новый текст о реке.".encode())},
        )
        assert r.status_code == 403 and r.json()["error"] == "forbidden"
        r = client.post("/collection/add", data={"id": "n.txt", "text": "Новый текст о реке."})
        assert r.status_code == 403
        # a wrong form token is as good as none
        r = client.post("/doc-remove", data={"id": "park.txt", "csrf": "0" * 64})
        assert r.status_code == 403
        assert client.get("/api/documents/park.txt").status_code == 200  # still there
        assert client.get("/api/documents/new.txt").status_code == 404
        # the page's own form: its form token and its own Origin
        token = form_token(client, "/doc/park.txt")
        r = client.post(
            "/doc-remove", data={"id": "park.txt", "csrf": token}, headers={"Origin": OWN}
        )
        assert r.status_code == 200 and 'id="message"' in r.text
        assert client.get("/api/documents/park.txt").status_code == 404
        # the form token in a header, as a script would send it
        r = client.post(
            "/api/documents/file",
            data={"id": "new.txt"},
            files={"file": ("new.txt", "Новый текст о реке и парке.".encode())},
            headers={"X-CSRF-Token": form_token(client)},
        )
        assert r.status_code == 200 and r.json()["accepted"] == 1
    finally:
        client.__exit__(None, None, None)


def test_a_header_token_from_another_origin_is_refused_too(
    client: TestClient, auth: dict[str, str]
) -> None:
    r = client.post("/api/remove", json={"ids": ["park.txt"]}, headers={**auth, "Origin": EVIL})
    assert r.status_code == 403 and r.json()["error"] == "forbidden"
    # a script or curl with the token and no Origin: no cookie authority, no form token needed
    r = client.post("/api/remove", json={"ids": ["park.txt"]}, headers=auth)
    assert r.status_code == 200 and r.json()["removed"] == 1


def test_a_kept_check_is_not_removed_by_another_page(tmp_path: Path) -> None:
    db = make_titled_collection(tmp_path)
    with client_for(ServiceConfig(db=db, token=TOKEN)) as c:
        where = c.post("/check", data={"text": copied_text()}, follow_redirects=False)
        path = where.headers["location"]
        for headers in ({"Origin": OTHER_PORT}, {"Origin": EVIL}, {}):
            assert c.post(f"{path}/delete", headers=headers).status_code == 403
        assert c.get(path).status_code == 200
        # a form token of another browser (another owner key) does not fit this one
        config = c.app.state.config  # type: ignore[attr-defined]
        alien = csrf_token(config, "x" * 32, None)
        assert c.post(f"{path}/delete", data={"csrf": alien}).status_code == 403
        good = form_token(c, path)
        gone = c.post(
            f"{path}/delete", data={"csrf": good}, headers={"Origin": OWN}, follow_redirects=False
        )
        assert gone.status_code == 303
        assert c.get(path).status_code == 404


def test_a_public_url_is_an_own_origin(db: str) -> None:
    config = ServiceConfig(db=db, token=TOKEN, public_url="https://checks.example.org/")
    assert config.public_url == "https://checks.example.org"
    with client_for(config) as c:
        auth = {"Authorization": f"Bearer {TOKEN}"}
        for origin, status in (("https://checks.example.org", 200), (EVIL, 403)):
            r = c.post(
                "/api/remove", json={"ids": ["park.txt"]}, headers={**auth, "Origin": origin}
            )
            assert r.status_code == status, origin

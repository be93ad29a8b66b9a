"""Cross-site request forgery in a real browser (Debian's chromium through Playwright): a page
on another port of the same host (the same site, so SameSite cookies go along) auto-submits a
form to the service; the service refuses it, and the page's own forms still work.

Skips, saying why, when chromium or playwright is missing (as test_browser.py)."""

from __future__ import annotations

import json
import os
import shutil
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from neardup.web.service import ServiceConfig
from tests._chromium import ARGS, CHROMIUM
from tests.web._kept import copied_text, make_titled_collection
from tests.web._server import serving
from tests.web.conftest import TOKEN

sync_api = pytest.importorskip(
    "playwright.sync_api",
    reason="playwright is not installed (pip install playwright; no `playwright install`)",
)
pytest.importorskip("uvicorn", reason="the web extra is missing: pip install 'neardup[web]'")
EXECUTABLE = CHROMIUM if os.path.isfile(CHROMIUM) else shutil.which("chromium")
if EXECUTABLE is None:
    pytest.skip(
        f"no chromium at {CHROMIUM} nor on PATH: the browser tests did NOT run "
        "(apt-get install -y chromium)",
        allow_module_level=True,
    )


def _attacker(target: str, fields: dict[str, str]) -> Any:
    """An ASGI app whose one page auto-submits a form of ``fields`` to ``target``."""
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    inputs = "".join(f'<input type="hidden" name="{k}" value="{v}">' for k, v in fields.items())
    html = (
        f'<!DOCTYPE html><html><body><form id="f" method="post" action="{target}">{inputs}'
        "</form><script>document.getElementById('f').submit()</script></body></html>"
    )

    async def page(request: Any) -> HTMLResponse:
        return HTMLResponse(html)

    return Starlette(routes=[Route("/", page)])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from neardup.web.app import create_app

    db = make_titled_collection(Path(tmp_path_factory.mktemp("csrf")))
    with serving(create_app(ServiceConfig(db=db, token=TOKEN, reads="token"))) as url:
        yield url


@pytest.fixture()
def page(server: str) -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=EXECUTABLE, args=ARGS)
        try:
            context = browser.new_context(locale="ru-RU")
            pg = context.new_page()
            pg.goto(server + "/")  # reads need the token: the token form, then the login cookie
            pg.fill("#token", TOKEN)
            pg.click("#token-form button[type=submit]")
            pg.wait_for_selector("#check-form")
            yield pg
        finally:
            browser.close()


def _exists(server: str, path: str) -> bool:
    request = urllib.request.Request(server + path, headers={"Authorization": f"Bearer {TOKEN}"})
    try:
        with urllib.request.urlopen(request) as response:  # noqa: S310 (our own loopback server)
            json.load(response)
            return True
    except urllib.error.HTTPError as exc:
        assert exc.code == 404, exc.code
        return False


def test_another_port_cannot_remove_a_document(server: str, page: Any) -> None:
    attack = _attacker(server + "/doc-remove", {"id": "park.txt"})
    with serving(attack) as evil:
        assert evil.rsplit(":", 1)[0] == server.rsplit(":", 1)[0]  # the same host
        with page.expect_response(server + "/doc-remove") as answer:
            page.goto(evil + "/")
        assert answer.value.status == 403
        page.wait_for_selector("#error")
        assert "с другого сайта" in page.inner_text("#error")
    assert _exists(server, "/api/documents/park.txt")
    # the page's own form (the login cookie, no token typed) removes it
    page.goto(server + "/doc/park.txt")
    with page.expect_response(server + "/doc-remove") as answer:
        page.click("#remove-form button[type=submit]")
    assert answer.value.status == 200
    page.wait_for_selector("#message")
    assert not _exists(server, "/api/documents/park.txt")


def test_another_port_cannot_remove_a_kept_check(server: str, page: Any) -> None:
    page.fill("#text", copied_text())
    page.click("#check-form button[type=submit]")  # app.js sends the form, form token and all
    page.wait_for_selector("#kept-link")
    path = page.get_attribute("#kept-link", "href")
    assert path is not None and path.startswith("/checks/")
    with serving(_attacker(f"{server}{path}/delete", {})) as evil:
        with page.expect_response(f"{server}{path}/delete") as answer:
            page.goto(evil + "/")
        assert answer.value.status == 403
    assert _exists(server, f"/api{path}")
    page.goto(server + path)
    with page.expect_response(f"{server}{path}/delete") as answer:
        page.click("#kept-delete")
    assert answer.value.status == 303
    assert not _exists(server, f"/api{path}")

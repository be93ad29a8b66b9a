"""The page in a real browser: Debian's chromium driven by Playwright, against a real server.

Pastes a text, uploads a .docx and a .pdf, and sees the uniqueness, the sources and the
highlighted passages; clicking a passage brings its source beside the text; a text holding
``<script>`` shows as text and nothing in it runs; the basic check works without JavaScript.
Screenshots of the check and compare pages go to NEARDUP_SCREENSHOT_DIR when it is set
(docs/img/ was made so). Skips, saying why, when chromium or playwright is missing (CI
installs them: ``apt-get install -y chromium``; never ``playwright install``).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from neardup.web.service import ServiceConfig
from tests._chromium import ARGS, CHROMIUM
from tests.web._files import docx_bytes, pdf_bytes
from tests.web._server import serving
from tests.web.conftest import EXAMPLES, TOKEN, make_collection

SCRIPT = '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned2 = 1">'

sync_api = pytest.importorskip(
    "playwright.sync_api",
    reason="playwright is not installed (pip install playwright; no `playwright install`)",
)
uvicorn = pytest.importorskip(
    "uvicorn", reason="the web extra is missing: pip install 'neardup[web]'"
)
EXECUTABLE = CHROMIUM if os.path.isfile(CHROMIUM) else shutil.which("chromium")
if EXECUTABLE is None:
    pytest.skip(
        f"no chromium at {CHROMIUM} nor on PATH: the browser tests did NOT run "
        "(apt-get install -y chromium)",
        allow_module_level=True,
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from neardup.web.app import create_app

    db = make_collection(tmp_path_factory.mktemp("browser"))
    with serving(create_app(ServiceConfig(db=db, token=TOKEN))) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=EXECUTABLE, args=ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ru-RU")
    pg = context.new_page()
    problems: list[str] = []
    pg.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    pg.on(
        "console",
        lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None,
    )
    pg.problems = problems
    yield pg
    context.close()


def _shot(page: Any, name: str) -> None:
    where = os.environ.get("NEARDUP_SCREENSHOT_DIR")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(Path(where) / name), full_page=True)


def _essay() -> str:
    return (EXAMPLES / "essay_with_quote.txt").read_text(encoding="utf-8")


def _park() -> str:
    return (EXAMPLES / "collection" / "park.txt").read_text(encoding="utf-8")


def _assert_result(page: Any, uniqueness: str) -> None:
    page.wait_for_selector("#uniqueness", timeout=60_000)
    assert page.inner_text("#uniqueness") == uniqueness
    rows = page.locator("#sources tbody tr td:first-child").all_inner_texts()
    assert rows == ["park_repost.txt", "park.txt"]
    passages = page.locator("#query a.frag")
    assert passages.count() == 1
    colour = passages.first.evaluate("e => getComputedStyle(e).backgroundColor")
    # the essay quotes it with its reference: drawn as cited (#c9d3dd), as the legend says,
    # not in the source's colour
    assert colour == "rgb(201, 211, 221)"
    quoted = "Раньше к ней было трудно"  # the essay's quotation of park.txt starts elsewhere
    assert quoted not in passages.first.inner_text()
    assert len(passages.first.inner_text()) > 200


def test_paste_check_click_a_passage(server: str, page: Any) -> None:
    page.goto(server + "/")
    page.fill("#text", SCRIPT + "\n" + _essay())
    page.click("#check-form button[type=submit]")
    # the <img> makes the text look like HTML: its markup is stripped before analysis
    _assert_result(page, "Уникальность 75,2 %")
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("typeof window.__pwned2") == "undefined"
    assert SCRIPT in page.inner_text("#query pre")  # shown as text
    # one source beside the text at a time; clicking the passage shows it in its source
    assert page.is_visible("#source-0") and not page.is_visible("#source-1")
    page.click("#sources a.source-link[data-source='1']")
    assert page.is_visible("#source-1") and not page.is_visible("#source-0")
    page.click("#query a.frag")
    assert page.is_visible("#source-0") and not page.is_visible("#source-1")
    target = page.locator("#source-0 a.frag.active")
    assert target.count() == 1
    box = target.bounding_box()
    assert box is not None and 0 <= box["y"] < 900
    assert target.inner_text().startswith("В городском парке") or len(target.inner_text()) > 200
    page.fill("#text", _essay())
    page.click("#check-form button[type=submit]")
    # the page's CSP forbids eval, so wait_for_function cannot poll: poll from here
    deadline = time.monotonic() + 60
    while "__pwned" in (page.text_content("#query pre") or "__pwned"):
        assert time.monotonic() < deadline, "the second check never showed"
        time.sleep(0.1)
    assert page.inner_text("#uniqueness") == "Уникальность 75,2 %"
    page.click("#query a.frag")
    _shot(page, "check.png")
    assert page.problems == []


@pytest.mark.parametrize("kind", ["docx", "pdf"])
def test_upload_office_files(server: str, page: Any, tmp_path: Path, kind: str) -> None:
    path = tmp_path / f"сочинение.{kind}"
    lines = _essay().split("\n")
    path.write_bytes(docx_bytes(lines) if kind == "docx" else pdf_bytes(lines))
    page.goto(server + "/?lang=en")
    page.set_input_files("#file", str(path))
    page.click("#check-form button[type=submit]")
    page.wait_for_selector("#uniqueness", timeout=60_000)
    assert page.inner_text("#uniqueness") == "Uniqueness 75.2 %"
    assert page.inner_text("#query h2") == f"Your text: {path.name}"
    rows = page.locator("#sources tbody tr td:first-child").all_inner_texts()
    assert rows == ["park_repost.txt", "park.txt"]
    passage = page.locator("#query a.frag")
    assert passage.count() == 1
    # the offsets point into the extracted text the page shows
    shown = page.inner_text("#query pre")
    assert passage.first.inner_text() in shown
    assert page.problems == []


def test_progress_is_shown_for_uploads(server: str, page: Any) -> None:
    page.goto(server + "/")
    page.fill("#text", _essay() * 20)
    page.evaluate(
        "document.getElementById('check-form').addEventListener('submit', () => "
        "{ window.__shown = !document.getElementById('progress').hidden; })"
    )
    page.click("#check-form button[type=submit]")
    page.wait_for_selector("#uniqueness", timeout=60_000)
    # the page's own submit handler ran first and showed the progress bar
    assert page.evaluate("window.__shown") is True


def test_check_without_javascript(server: str, browser: Any) -> None:
    context = browser.new_context(java_script_enabled=False, locale="en-US")
    try:
        pg = context.new_page()
        pg.goto(server + "/")
        pg.fill("#text", _essay())
        pg.click("#check-form button[type=submit]")
        pg.wait_for_selector("#uniqueness")
        assert pg.inner_text("#uniqueness") == "Uniqueness 75.2 %"
        assert pg.is_visible("#source-0") and pg.is_visible("#source-1")  # both, stacked
        pg.click("#query a.frag")
        assert pg.url.endswith("#b-0-1")
    finally:
        context.close()


def test_compare_side_by_side(server: str, page: Any) -> None:
    page.goto(server + "/compare?lang=en")
    page.fill("#text_a", _essay())
    page.fill("#text_b", _park())
    page.click("#compare-form button[type=submit]")
    page.wait_for_selector("#compare-summary", timeout=60_000)
    assert page.inner_text("#compare-summary").startswith(
        "Uniqueness of text A against B: 75.2 % (borrowed 0.0 %, cited 24.8 %); 37.0 % of text B"
    )
    a = page.locator("#query a.frag")
    b = page.locator("#source-0 a.frag")
    assert a.count() == 1 and b.count() == 1
    a.first.click()
    assert page.locator("#source-0 a.frag.active").count() == 1
    b.first.click()
    assert page.locator("#query a.frag.active").count() == 1
    _shot(page, "compare.png")
    assert page.problems == []


def test_a_rewritten_paragraph_is_marked_apart(server: str, page: Any) -> None:
    """A paragraph reworded from its source (no word copied in a row) is marked hatched, in
    the source's colour, on both sides, and counted in the figure."""
    from tests.passages.test_rewrites import RU_AFTER, RU_BEFORE, RU_REWRITE, RU_SOURCE

    page.goto(server + "/compare")
    page.fill("#text_a", RU_BEFORE + RU_REWRITE + RU_AFTER)
    page.fill("#text_b", RU_SOURCE)
    page.click("#compare-form button[type=submit]")
    page.wait_for_selector("#compare-summary", timeout=60_000)
    rewritten = page.locator("#query a.frag.rew")
    assert rewritten.count() >= 1 and page.locator("#source-0 a.frag.rew").count() >= 1
    assert (rewritten.first.get_attribute("title") or "").startswith("пересказ B #")  # ru page
    summary = page.inner_text("#compare-summary")
    assert not summary.startswith("Уникальность текста A относительно B: 100,0 %")
    style = rewritten.first.evaluate("e => getComputedStyle(e).borderBottomStyle")
    assert style == "dashed"
    _shot(page, "rewritten.png")
    assert page.problems == []

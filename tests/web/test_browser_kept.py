"""Kept checks in a real browser (Debian's chromium, Playwright): a check gets its own address,
which opens the same result in another browser; the history lists it; the PDF downloads and
holds the figure and the sources; a file dropped on the form is checked; leaving a source out
changes the figure; next/previous passage; in compare every piece of a passage's counterpart
is outlined. Screenshots go to NEARDUP_SCREENSHOT_DIR when it is set (docs/img/ was made so).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from neardup.web.service import ServiceConfig
from tests.web._kept import EXAMPLES, TITLES, copied_text, make_titled_collection
from tests.web._server import serving
from tests.web.conftest import TOKEN
from tests.web.test_browser import _shot, browser, page  # noqa: F401

uvicorn = pytest.importorskip("uvicorn")
pypdf = pytest.importorskip("pypdf")

ID = re.compile(r"/checks/[A-Za-z0-9_-]{22}$")


@pytest.fixture(scope="module")
def kserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from neardup.web.app import create_app

    db = make_titled_collection(tmp_path_factory.mktemp("kept"))
    with serving(create_app(ServiceConfig(db=db, token=TOKEN))) as url:
        yield url


def _figure(pg: Any) -> str:
    pg.wait_for_selector("#uniqueness", timeout=60_000)
    return str(pg.inner_text("#uniqueness"))


def _sources(pg: Any) -> list[str]:
    return list(pg.locator("#sources tbody tr a.source-link").all_inner_texts())


def _wait_url(pg: Any, pattern: re.Pattern[str], old: str = "") -> str:
    """The page's address once it is a kept check's (and not ``old``)."""
    pg.wait_for_url(lambda url: bool(pattern.search(url)) and url != old, timeout=60_000)
    return str(pg.url)


@pytest.mark.slow
def test_check_gets_its_own_address_history_and_pdf(
    kserver: str,
    page: Any,  # noqa: F811
    browser: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    page.goto(kserver + "/")
    page.fill("#text", copied_text())
    page.click("#check-form button[type=submit]")
    figure = _figure(page)
    url = _wait_url(page, ID)
    sources = _sources(page)
    assert sources[:2] == [TITLES["school.txt"][0], TITLES["bakery.txt"][0]]
    link = page.locator("#sources a.ext").first
    assert link.get_attribute("href") == "https://example.org/news/school"
    # the address opens the same result in another browser (no cookie of ours there)
    other = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ru-RU")
    try:
        pg = other.new_page()
        pg.goto(url)
        assert _figure(pg) == figure
        assert _sources(pg) == sources
        assert pg.locator("#kept-delete").count() == 0  # not its check to remove
        pg.click("#query a.frag")
        _shot(pg, "kept-check.png")
        pg.goto(kserver + "/checks")
        assert pg.locator("#history tbody tr").count() == 0
    finally:
        other.close()
    # this browser's history lists it
    page.click("#history-link")
    page.wait_for_selector("#history")
    check_id = url.rsplit("/", 1)[1]
    assert page.locator(f"#history tr[data-check='{check_id}']").count() == 1
    # the PDF downloads from the kept check's page
    page.goto(url)
    with page.expect_download() as info:
        page.click("#pdf-link")
    saved = tmp_path / "report.pdf"
    info.value.save_as(str(saved))
    data = saved.read_bytes()
    assert data.startswith(b"%PDF")
    text = "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages)
    assert figure in text
    assert TITLES["school.txt"][0] in text and TITLES["bakery.txt"][0] in text
    _pdf_shot(data)
    # Back returns to the form the check was made from
    page.goto(kserver + "/")
    page.fill("#text", copied_text())
    page.click("#check-form button[type=submit]")
    _wait_url(page, ID)
    page.go_back()
    page.wait_for_selector("#check-form")
    assert page.url.rstrip("/") == kserver
    assert page.problems == []


def _pdf_shot(data: bytes) -> None:
    """The PDF's first page as an image, when pdftoppm (poppler-utils) is there."""
    where = os.environ.get("NEARDUP_SCREENSHOT_DIR")
    tool = shutil.which("pdftoppm")
    if not where or tool is None:
        return
    pdf = Path(where) / "check-report.pdf"
    pdf.write_bytes(data)
    subprocess.run(
        [
            tool,
            "-png",
            "-r",
            "80",
            "-f",
            "1",
            "-l",
            "1",
            "-singlefile",
            str(pdf),
            str(Path(where) / "check-report"),
        ],
        check=True,
    )
    pdf.unlink()


def test_drag_and_drop_upload(kserver: str, page: Any) -> None:  # noqa: F811
    page.goto(kserver + "/")
    assert page.is_visible("#drop-hint")
    transfer = page.evaluate_handle(
        "(text) => { const dt = new DataTransfer(); "
        "dt.items.add(new File([text], 'заметка.txt', {type: 'text/plain'})); return dt; }",
        copied_text(),
    )
    page.dispatch_event("#drop", "drop", {"dataTransfer": transfer})
    assert page.inner_text("#drop-hint") == "заметка.txt"
    assert page.evaluate("document.getElementById('file').files[0].name") == "заметка.txt"
    page.click("#check-form button[type=submit]")
    _figure(page)
    _wait_url(page, ID)
    assert page.inner_text("#query h2") == "Проверяемый текст: заметка.txt"
    assert page.problems == []


def test_exclude_a_source_and_walk_the_passages(kserver: str, page: Any) -> None:  # noqa: F811
    page.goto(kserver + "/")
    page.fill("#text", copied_text())
    page.click("#check-form button[type=submit]")
    before = _figure(page)
    first = _wait_url(page, ID)
    # next/previous passage: each passage of the text in turn, its counterpart outlined
    assert page.is_visible("#passnav")
    page.click("#next-passage")
    total = page.locator("#query a.frag").evaluate_all(
        "links => new Set(links.map(a => a.dataset.anchor)).size"
    )
    assert total >= 2
    assert page.inner_text("#passage-at") == f"1 / {total}"
    assert page.locator("#source-0 a.frag.active").count() >= 1
    page.click("#next-passage")
    assert page.inner_text("#passage-at") == f"2 / {total}"
    page.click("#prev-passage")
    page.click("#prev-passage")
    assert page.inner_text("#passage-at") == f"{total} / {total}"
    # leave the first source out: a new kept check, a higher figure
    page.click("#sources tr[data-source-id='school.txt'] button.exclude")
    _wait_url(page, ID, first)
    after = _figure(page)
    number = lambda s: float(s.split()[1].replace(",", "."))  # noqa: E731  # "57,3" in Russian
    assert number(after) > number(before) + 20
    assert TITLES["school.txt"][0] not in _sources(page)
    assert TITLES["school.txt"][0] in page.inner_text("#excluded")  # by its title, not its id
    assert page.problems == []


def test_compare_outlines_every_piece_of_the_counterpart(kserver: str, page: Any) -> None:  # noqa: F811
    school = (EXAMPLES / "collection" / "school.txt").read_text(encoding="utf-8")
    words = school.split(" ")
    edited = list(words)
    for at in (12, 30, 48):  # a few words changed: the passage is drawn in several pieces
        edited[at] = "изменённое"
    page.goto(kserver + "/compare")
    page.fill("#text_a", " ".join(edited))
    page.fill("#text_b", school)
    page.click("#compare-form button[type=submit]")
    page.wait_for_selector("#compare-summary", timeout=60_000)
    first = page.locator("#query a.frag").first
    target = first.get_attribute("href")[1:]
    pieces = page.locator(f"#source-0 a.frag[data-anchor='{target}']").count()
    own = page.locator(f"#query a.frag[data-anchor='{first.get_attribute('data-anchor')}']")
    assert pieces > 1 and own.count() > 1
    first.click()
    assert page.locator("#source-0 a.frag.active").count() == pieces
    assert page.locator("#query a.frag.active").count() == own.count()
    assert page.problems == []

"""The HTML report in a real browser: Debian's chromium driven by Playwright.

Checks what only a browser can tell: the passages are drawn highlighted, clicking one scrolls
its counterpart into view and makes it the target, and a text holding ``<script>`` (or an
``onerror`` handler) is shown as text while nothing in it runs. A screenshot is taken; set
NEARDUP_SCREENSHOT_DIR to keep it. Skips, saying why, when chromium or playwright is missing
(CI installs them: ``apt-get install -y chromium`` and ``pip install playwright``; never
``playwright install``, which downloads browsers).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from neardup.fingerprints.pipeline import make_spec
from neardup.passages.align import Aligner
from neardup.report.fragments import write_html
from tests._aligntext import text, words
from tests._chromium import ARGS, CHROMIUM

SCRIPT = "<script>window.__pwned = 1</script>"
HANDLER = '<img src="x" onerror="window.__pwned2 = 1">'

sync_api = pytest.importorskip(
    "playwright.sync_api",
    reason="playwright is not installed (pip install playwright; no `playwright install`)",
)
if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)) and not shutil.which("chromium"):
    pytest.skip(f"no chromium at {CHROMIUM} (apt-get install -y chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    source = text(1500, seed=31)
    body = source.split()
    # the second passage comes from the end of a long source: reaching it needs a scroll
    query = (
        SCRIPT
        + "\n"
        + " ".join(words(60, seed=32) + body[100:160])
        + "\n"
        + HANDLER
        + "\n"
        + " ".join(words(40, seed=33) + body[1400:1450] + words(30, seed=34))
    )
    alignment = Aligner(make_spec("plain")).align(
        query, [("source <b>1</b>", SCRIPT + " " + source)]
    )
    n = len(alignment.passages)
    assert n == 2
    path = tmp_path_factory.mktemp("report") / "report.html"
    write_html(alignment, path, title="browser test", query_title="query " + SCRIPT)
    return path, n


def test_report_in_chromium(report: tuple[Path, int], tmp_path: Path) -> None:
    path, n = report
    executable = CHROMIUM if os.path.isfile(CHROMIUM) else shutil.which("chromium")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(path.as_uri())
            page.wait_for_load_state("load")

            # nothing ran, and the markup in the texts is there as text
            assert page.evaluate("typeof window.__pwned") == "undefined"
            assert page.evaluate("typeof window.__pwned2") == "undefined"
            assert page.locator("script").count() == 0 and page.locator("img").count() == 0
            query_text = page.locator("#query pre").inner_text()
            assert SCRIPT in query_text and HANDLER in query_text
            assert SCRIPT in page.locator("#query h2").inner_text()
            assert "source <b>1</b>" in page.locator("#source-0 h2").inner_text()

            # the passages are highlighted: coloured links in both panes
            frags_a = page.locator("#query a.frag")
            frags_b = page.locator("#source-0 a.frag")
            assert frags_a.count() >= n and frags_b.count() >= n
            for frag in (frags_a.first, frags_b.first):
                assert frag.is_visible()
                colour = frag.evaluate("e => getComputedStyle(e).backgroundColor")
                assert colour not in ("rgba(0, 0, 0, 0)", "transparent"), colour

            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot), full_page=False)
            assert shot.stat().st_size > 10_000
            keep = os.environ.get("NEARDUP_SCREENSHOT_DIR")
            if keep:
                shutil.copy(shot, Path(keep) / "report_browser.png")

            # clicking the query's second passage brings its counterpart into view
            def in_view(selector: str, pane: str) -> bool:
                return bool(
                    page.evaluate(
                        """([sel, pane]) => {
                        const mark = document.querySelector(sel).nextElementSibling;
                        const t = mark.getBoundingClientRect();
                        const p = document.querySelector(pane).getBoundingClientRect();
                        return t.top >= p.top && t.top < p.bottom;
                    }""",
                        [selector, pane],
                    )
                )

            target = "#b-0-2"
            assert not in_view(target, ".sources")
            page.locator('#query a.frag[href="#b-0-2"]').first.click()
            page.wait_for_function("location.hash === '#b-0-2'")
            assert page.evaluate("document.querySelector(':target').id") == "b-0-2"
            assert in_view(target, ".sources")
            # and back: the source's passage links to the query's
            page.locator('#source-0 a.frag[href="#a-0-2"]').first.click()
            page.wait_for_function("location.hash === '#a-0-2'")
            assert in_view("#a-0-2", "#query")
            assert page.evaluate("typeof window.__pwned") == "undefined"
            assert errors == []
        finally:
            browser.close()

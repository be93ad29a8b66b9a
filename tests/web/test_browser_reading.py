"""The page's script for a reader, in a real browser (Debian's chromium driven by Playwright):
a file over the request limit is refused as soon as it is chosen, in words about the file;
the history's dates are put in the reader's local form. Skips, saying why, as
tests/web/test_browser.py does."""

from __future__ import annotations

from typing import Any

from tests.web._kept import copied_text
from tests.web.test_browser import browser  # noqa: F401  (its skips are this file's)
from tests.web.test_browser_limits import serve  # noqa: F401


def test_a_file_too_large_is_refused_when_chosen(browser: Any, serve: Any) -> None:  # noqa: F811
    base = serve(max_body=1 << 20, max_text=1_000_000)
    page = browser.new_context(locale="ru-RU").new_page()
    page.goto(base + "/")
    page.set_input_files(
        "#file",
        files=[{"name": "big.txt", "mimeType": "text/plain", "buffer": b"x" * (2 << 20)}],
    )
    page.wait_for_selector("#error")
    assert page.inner_text("#error") == (
        "Ошибка: Файл слишком большой: сервис принимает не больше 1 МиБ за один запрос. "
        "Выберите файл поменьше или разделите текст на части."
    )
    assert page.url.endswith("/")  # nothing was sent


def test_history_dates_in_the_readers_form(browser: Any, serve: Any) -> None:  # noqa: F811
    base = serve()
    context = browser.new_context(locale="ru-RU", timezone_id="Asia/Vladivostok")
    page = context.new_page()
    page.goto(base + "/")
    page.fill("#text", copied_text())
    page.click("#check-form button[type=submit]")
    page.wait_for_selector("#kept")
    page.goto(base + "/checks")
    stamp = page.locator("#history time.local").first
    utc = stamp.get_attribute("datetime")
    shown = stamp.inner_text()
    assert utc is not None and not shown.endswith("UTC")
    expected = page.evaluate(
        "(iso) => new Date(iso).toLocaleString('ru', {dateStyle: 'medium', timeStyle: 'short'})",
        utc,
    )
    assert shown == expected
    # Vladivostok is UTC+10: the hour shown is the local one
    hour = (int(utc[11:13]) + 10) % 24
    assert f"{hour:02d}:{utc[14:16]}" in shown

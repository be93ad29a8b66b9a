"""The page's limits in a real browser (Debian's chromium driven by Playwright): a 2 MiB paste
gets a Russian size message on the page with the text kept in the field, whether the server
answers it (over the limit of characters) or the page refuses it before sending (over the
body limit). Skips, saying why, as tests/web/test_browser.py does."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest

from neardup.web.service import ServiceConfig
from tests.web._server import serving
from tests.web.conftest import TOKEN, make_collection
from tests.web.test_browser import browser  # noqa: F401  (its skips are this file's)

#: 2 MiB and a little more of Russian text in UTF-8: 1,200,005 characters.
PASTE = "слово " * 200_000 + "конец"


@pytest.fixture()
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Start servers over one collection with the given limits; stop them all at the end."""
    from neardup.web.app import create_app

    db = make_collection(tmp_path_factory.mktemp("limits"))
    with ExitStack() as running:

        def start(**limits: int) -> str:
            app = create_app(ServiceConfig(db=db, token=TOKEN, **limits))
            return running.enter_context(serving(app))

        yield start


def _paste(browser: Any, base: str) -> Any:  # noqa: F811
    context = browser.new_context(locale="ru-RU")
    page = context.new_page()
    page.goto(base + "/")
    assert "Не больше 1\xa0000\xa0000 символов в тексте" in page.inner_text("#limits")
    page.fill("#text", PASTE)
    page.click("#check-form button[type=submit]")
    page.wait_for_selector("#error", timeout=120_000)
    return page


@pytest.mark.slow
def test_a_2_mib_paste_over_the_character_limit(browser: Any, serve: Any) -> None:  # noqa: F811
    """The server reads it (python-multipart's 1 MiB per field raised to the body limit) and
    its limit of characters answers on the page, in Russian, the text kept."""
    page = _paste(browser, serve(max_body=20 << 20, max_text=1_000_000))
    assert page.inner_text("#error") == (
        "Ошибка: Текст слишком длинный: 1\xa0200\xa0005 символов, а сервис принимает не больше "
        "1\xa0000\xa0000 символов. Сократите текст или разделите его на части."
    )
    assert page.input_value("#text") == PASTE
    assert "Part exceeded" not in page.content()


def test_a_2_mib_paste_over_the_body_limit(browser: Any, serve: Any) -> None:  # noqa: F811
    """Over the body limit the page says so before sending anything, the text kept."""
    page = _paste(browser, serve(max_body=1 << 20, max_text=1_000_000))
    assert page.inner_text("#error") == (
        "Ошибка: Слишком много для одного запроса: сервис принимает не больше 1 МиБ. "
        "Текст остался в поле — сократите его или разделите на части."
    )
    assert page.input_value("#text") == PASTE
    assert page.url.endswith("/")  # nothing was sent

"""The one message layer: every error said by its code and params (never by reading its English
message back), the same words in one place only, and no entry point importing another for its
words."""

from __future__ import annotations

import pickle
import subprocess
import sys
from collections import Counter

import pytest

from neardup.errors import (
    DamagedCollectionError,
    DecodeError,
    InputError,
    InputTooLargeError,
    InvalidTextError,
    NeardupError,
    NotFoundError,
    TooLargeError,
    UnsupportedTypeError,
)
from neardup.messages import CATALOG, error_text, reason_text, say

NBSP = "\N{NO-BREAK SPACE}"


def test_no_two_keys_hold_the_same_words() -> None:
    said = Counter(
        (texts["ru"], texts["en"])
        for area, entries in CATALOG.items()
        for texts in entries.values()
        if area != "column" or texts["ru"] != texts["en"]  # "id", "a", "b" are names
    )
    assert [words for words, n in said.items() if n > 1] == []


def test_no_area_hides_a_common_word() -> None:
    for area, entries in CATALOG.items():
        if area != "common":
            assert not set(entries) & set(CATALOG["common"]), area


def test_an_error_has_its_class_code_or_the_one_it_was_raised_with() -> None:
    assert NeardupError("x").code == "error" and NeardupError("x").params == {}
    assert DecodeError("x").code == "undecodable"
    assert DamagedCollectionError("x").code == "storage"  # its base's: the store is not there
    assert str(NotFoundError("doc 'a' is not there")) == "doc 'a' is not there"
    raised = InputError(
        "not a readable .pdf file (x)", code="unreadable_file", params={"kind": ".pdf"}
    )
    assert (raised.code, raised.params, str(raised)) == (
        "unreadable_file",
        {"kind": ".pdf"},
        "not a readable .pdf file (x)",
    )
    back = pickle.loads(pickle.dumps(raised))  # from a worker process
    assert (type(back), back.code, back.params, str(back)) == (
        InputError,
        "unreadable_file",
        {"kind": ".pdf"},
        str(raised),
    )
    named = raised.reworded(f"a.pdf: {raised}")
    assert (type(named), named.code, named.params) == (InputError, raised.code, raised.params)
    assert str(named) == "a.pdf: not a readable .pdf file (x)"


@pytest.mark.parametrize(
    ("exc", "ru", "en"),
    [
        (
            InvalidTextError("…", params={"char": "U+D800", "position": 1234}),
            f"В тексте недопустимый символ U+D800 (позиция 1{NBSP}234): нужен текст в Юникоде "
            "без символов NUL и одиночных суррогатов.",
            "The text holds a refused character U+D800 at position 1,234: texts must be valid "
            "Unicode without NUL characters or lone surrogates.",
        ),
        (
            TooLargeError("…", code="text_too_long", params={"n": 2001, "max": 2000}),
            f"Текст слишком длинный: 2{NBSP}001 символ, а сервис принимает не больше "
            f"2{NBSP}000 символов. Сократите текст или разделите его на части.",
            "The text is too long: 2,001 characters; this service takes at most 2,000 "
            "characters. Shorten the text or split it.",
        ),
        (
            TooLargeError("…", code="matrix_too_many", params={"n": 22, "max": 21}),
            "22 текста: сервис строит матрицу не больше чем из 21 текст.",  # the count's form
            "22 texts: this service builds matrices of at most 21 texts.",
        ),
        (
            UnsupportedTypeError("…", params={"suffix": ".exe", "allowed": ".txt, .pdf"}),
            "Файлы типа «.exe» не читаются; можно загрузить .txt, .pdf.",
            "Files of type '.exe' are not read; upload one of .txt, .pdf.",
        ),
        (
            InputTooLargeError("the .pdf file is 9 bytes"),
            "Файл слишком велик для сервиса (the .pdf file is 9 bytes).",
            "The file is too large for this service (the .pdf file is 9 bytes).",
        ),
        (
            InputError("the id 'a' appears twice"),  # no words of its own: its message
            "Запрос не выполнен: the id 'a' appears twice",
            "the id 'a' appears twice",
        ),
        (
            InvalidTextError("refused"),  # raised without the params its words need
            "Запрос не выполнен: refused",
            "refused",
        ),
    ],
)
def test_an_error_is_said_by_its_code(exc: NeardupError, ru: str, en: str) -> None:
    assert error_text(exc.code, exc.params, "ru", str(exc)) == ru
    assert error_text(exc.code, exc.params, "en", str(exc)) == en


def test_a_body_too_large_and_the_words_the_page_and_the_errors_share() -> None:
    assert error_text("body_too_large", {"max": 20 << 20}, "ru", "") == (
        "Запрос слишком большой: сервис принимает не больше 20 МиБ за раз (текст и файлы вместе)."
    )
    assert error_text("no_texts", {}, "en", "") == say("page", "no_texts", "en")


def test_a_length_refusal_in_both_languages() -> None:
    detail = "the text has 12 characters; the collection c.db admits texts of 50 to 1000 characters"
    assert reason_text("too_short", detail, "ru") == (
        "слишком короткий: в тексте 12 символов, коллекция принимает тексты от 50 до "
        f"1{NBSP}000 символов"
    )
    assert reason_text("too_short", detail, "en") == (
        "too short: the text has 12 characters; the collection admits texts of 50 to "
        "1,000 characters"
    )


def test_the_cli_words_import_no_web_module() -> None:
    code = (
        "import sys, neardup.cli.messages, neardup.messages, neardup.report.pdf; "
        "sys.exit(any(m.startswith('neardup.web') for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0

"""Counts and numbers in Russian and English: the plural form of a word that goes with a count
(Babel's CLDR plural rules: "1 документ", "4 документа", "5 документов") and the locale's
decimal and group separators ("0,500" and "2 097 152" in Russian, "0.500" and "2,097,152" in
English).

The CLI, the page and the PDF report all speak through these (by way of
:func:`neardup.messages.say`), so that they say a count the same way. Needs Babel (the ``web``
and ``report`` extras); the CLI's English needs none, since its counts stay bare numbers.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from neardup.errors import require

LANGUAGES = ("ru", "en")
DEFAULT_LANGUAGE = "ru"

#: Word forms of the counts the CLI, the page and the report show, by Babel's plural categories
#: (CLDR).
WORDS: dict[str, dict[str, dict[str, str]]] = {
    "document": {
        "ru": {"one": "документ", "few": "документа", "many": "документов", "other": "документа"},
        "en": {"one": "document", "other": "documents"},
    },
    "passage": {
        "ru": {"one": "фрагмент", "few": "фрагмента", "many": "фрагментов", "other": "фрагмента"},
        "en": {"one": "passage", "other": "passages"},
    },
    "shingle": {
        "ru": {"one": "шингл", "few": "шингла", "many": "шинглов", "other": "шингла"},
        "en": {"one": "shingle", "other": "shingles"},
    },
    "character": {
        "ru": {"one": "символ", "few": "символа", "many": "символов", "other": "символа"},
        "en": {"one": "character", "other": "characters"},
    },
    "text": {
        "ru": {"one": "текст", "few": "текста", "many": "текстов", "other": "текста"},
        "en": {"one": "text", "other": "texts"},
    },
    "group": {
        "ru": {"one": "группа", "few": "группы", "many": "групп", "other": "группы"},
        "en": {"one": "group", "other": "groups"},
    },
    "member": {
        "ru": {"one": "участник", "few": "участника", "many": "участников", "other": "участника"},
        "en": {"one": "member", "other": "members"},
    },
    "word": {
        "ru": {"one": "слово", "few": "слова", "many": "слов", "other": "слова"},
        "en": {"one": "word", "other": "words"},
    },
    "source": {
        "ru": {"one": "источник", "few": "источника", "many": "источников", "other": "источника"},
        "en": {"one": "source", "other": "sources"},
    },
    # the CLI's counts (its English says them as it always did, without these)
    "token": {
        "ru": {"one": "токен", "few": "токена", "many": "токенов", "other": "токена"},
        "en": {"one": "token", "other": "tokens"},
    },
    "pair": {
        "ru": {"one": "пара", "few": "пары", "many": "пар", "other": "пары"},
        "en": {"one": "pair", "other": "pairs"},
    },
    "file": {
        "ru": {"one": "файл", "few": "файла", "many": "файлов", "other": "файла"},
        "en": {"one": "file", "other": "files"},
    },
    "cluster": {
        "ru": {"one": "кластер", "few": "кластера", "many": "кластеров", "other": "кластера"},
        "en": {"one": "cluster", "other": "clusters"},
    },
    "signature": {
        "ru": {"one": "подпись", "few": "подписи", "many": "подписей", "other": "подписи"},
        "en": {"one": "signature", "other": "signatures"},
    },
    "item": {
        "ru": {"one": "элемент", "few": "элемента", "many": "элементов", "other": "элемента"},
        "en": {"one": "item", "other": "items"},
    },
}


@cache
def _locale(lang: str) -> Any:
    babel: Any = require("babel", "web")
    return babel.Locale.parse(lang)


def number(value: float, digits: int = 0, lang: str = DEFAULT_LANGUAGE) -> str:
    """``value`` with ``digits`` decimals and the locale's separators ("0,500", "2 097 152")."""
    numbers: Any = require("babel.numbers", "web")
    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "")
    return str(numbers.format_decimal(value, format=pattern, locale=_locale(lang)))


def word(n: float, key: str, lang: str = DEFAULT_LANGUAGE) -> str:
    """The form of the word ``key`` that goes with the count ``n`` (Babel's plural rule)."""
    forms = WORDS[key][lang]
    category = _locale(lang).plural_form(n)
    return forms.get(category, forms["other"])


def plural(n: float, key: str, lang: str = DEFAULT_LANGUAGE) -> str:
    """The count and its word: "4 документа", "1 passage", "2 097 152 символов"."""
    return f"{number(n, 0, lang)} {word(n, key, lang)}"


def size(nbytes: float, lang: str = DEFAULT_LANGUAGE) -> str:
    """A size in MiB (or KiB below one MiB) with the locale's decimal separator."""
    if nbytes >= 1 << 20:
        value = nbytes / (1 << 20)
        unit = {"ru": "МиБ", "en": "MiB"}[lang]
    else:
        value = nbytes / 1024
        unit = {"ru": "КиБ", "en": "KiB"}[lang]
    digits = 0 if value == int(value) else 1
    return f"{number(value, digits, lang)} {unit}"


__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "WORDS", "number", "plural", "size", "word"]

"""The words of the ``neardup`` command in Russian and English: the CLI's area of the one
catalog (:mod:`neardup.messages`), and the language the CLI speaks.

The language is chosen from the environment on each call (cheap, and tests can change it):
``NEARDUP_LANG=ru|en`` if set, else the first of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is
set and not empty — a value starting with ``ru`` is Russian, anything else English. Russian
needs Babel (the ``web`` or ``report`` extra) for its plural forms and decimal comma; without
it the CLI speaks English.

An error is said by its code (:attr:`neardup.errors.NeardupError.code`) where the catalog has
words for it, as on the page, else by its English message after "Ошибка:". ``--json`` output
never goes through here: it stays English and machine-readable.
"""

from __future__ import annotations

from typing import Any

from neardup.errors import NeardupError
from neardup.messages import CATALOG, entry, error_words, reason_words
from neardup.messages import say as _say_in_area
from neardup.messages.chosen import terminal_language

#: The CLI's messages (its area of the catalog; the words it shares are in the common area).
MESSAGES: dict[str, dict[str, str]] = CATALOG["cli"]


def language() -> str:
    """The CLI's language (:func:`neardup.messages.chosen.terminal_language`)."""
    return terminal_language()


def is_russian() -> bool:
    return language() == "ru"


def say(key: str, /, **values: Any) -> str:
    """The message ``key`` in the CLI's language, with ``values`` put in."""
    return say_in(language(), key, **values)


def say_in(lang: str, key: str, /, **values: Any) -> str:
    """The message ``key`` in ``lang``, with ``values`` put in."""
    return _say_in_area("cli", key, lang, **values)


def fmt(value: float, spec: str) -> str:
    """One number as ``format(value, spec)`` in English, with the decimal comma in Russian."""
    lang = language()
    return format(value, spec) if lang == "en" else _say_value(value, spec, lang)


def _say_value(value: Any, spec: str, lang: str) -> str:
    from neardup.messages import format_message

    return format_message("{value:" + spec + "}", lang, value=value)


def count(n: int, key: str) -> str:
    """ "5 документов" in Russian; the bare number in English (its words stay as they were)."""
    lang = language()
    return str(n) if lang == "en" else _say_value(n, "#" + key, lang)


def column(name: str) -> str:
    """A table's column name in the CLI's language."""
    found = entry("column", name.replace(" ", "_")) if language() == "ru" else None
    return found["ru"] if found is not None else name


def term(kind: str, name: str) -> str:
    """A policy's or a measure's name (``kind`` ``policy``, ``measure``) in the CLI's language:
    the name itself in English (as the option takes it), else the catalog's words for it."""
    lang = language()
    found = entry("terminal", f"{kind}_{name}") if lang != "en" else None
    return found[lang] if found is not None else name


def reason(name: str) -> str:
    """An admission decision's reason (``new``, ``duplicate`` …) in the CLI's language."""
    return name if language() == "en" else reason_words(name, "ru")


def error_message(exc: BaseException) -> str:
    """An error as the CLI prints it: in Russian by its code where the catalog has its words
    (as the page says it), else the English message after "Ошибка:"."""
    detail = str(exc)
    if language() == "ru" and isinstance(exc, NeardupError):
        words = error_words(exc.code, exc.params, "ru", detail)
        if words is not None:
            return say_in("ru", "error", detail=words)
    return say("error", detail=detail)


__all__ = [
    "MESSAGES",
    "column",
    "count",
    "error_message",
    "fmt",
    "is_russian",
    "language",
    "reason",
    "say",
    "term",
    "say_in",
]

"""Every word neardup says to a person, in Russian and English: the one catalog of the CLI, the
page (``neardup serve``) and the PDF report, and the one function that formats its messages.

Why one layer: the CLI, the page and the report say the same things (an error, a count, a
reason) and must say them the same way, and none of them may import another entry point (the
CLI does not import :mod:`neardup.web`). So the words live here, by area:

- ``cli`` (:mod:`~neardup.messages.cli`), ``column`` (the CLI's column names), ``page``
  (:mod:`~neardup.messages.page`), ``report`` (:mod:`~neardup.messages.report`, the PDF),
  ``error`` (by an error's code, :mod:`~neardup.messages.errors`), ``reason`` (why a text was
  admitted or refused), ``length`` (a length refusal's range) and ``explain`` (what drove a
  combined score, :mod:`~neardup.messages.explain`);
- ``common`` (:mod:`~neardup.messages.common`): the words more than one area says, kept once;
  every area falls back to them.

Errors are said by their code, not by their English text: every :class:`neardup.errors.
NeardupError` carries a ``code`` and ``params`` (given where it is raised), and
:func:`error_words` turns them into the words of a language; the English ``str(exc)`` is the
API's and ``--json``'s, and the ``{detail}`` of an error without words of its own.

A catalog of Python dicts rather than gettext ``.po`` files: the messages are few, and a dict
needs no compile step, no package data and no extra tool; a test checks that every key has
both languages with the same placeholders.

Templates are :meth:`str.format` strings, formatted by :func:`say` with three more kinds of
field spec (through :mod:`neardup.messages.forms`, Babel's CLDR plural rules):

- ``{n:#document}``: the count and its word in the right form ("21 документ", "5 documents");
- ``{n:~document}``: the word alone;
- ``{n:size}``: a size in bytes as MiB or KiB ("20 МиБ");

and in Russian a number spec such as ``{x:.1f}``, ``{x:,}`` or ``{x:g}`` takes the locale's
decimal comma and group space ("0,500", "2 097 152"). English numbers are formatted by
:func:`format` itself (the CLI's English is pinned by tests and doc examples).
"""

from __future__ import annotations

import numbers
import re
import string
from typing import Any

from neardup.messages.cli import CLI, COLUMNS
from neardup.messages.common import COMMON
from neardup.messages.errors import ERRORS, LENGTHS, OTHER, REASONS
from neardup.messages.explain import EXPLAIN
from neardup.messages.forms import DEFAULT_LANGUAGE, LANGUAGES, WORDS, number, plural, size, word
from neardup.messages.page import PAGE
from neardup.messages.page_reading import PAGE_READING
from neardup.messages.report import REPORT
from neardup.messages.service import SERVICE_ERRORS, SERVICE_PAGE
from neardup.messages.terminal import FILE_ERRORS, TERMINAL, USAGE, USAGE_VALUES

#: The catalog: each area's words by key, in each language (``common`` is every area's too).
CATALOG: dict[str, dict[str, dict[str, str]]] = {
    "common": COMMON,
    "cli": CLI,
    "column": COLUMNS,
    "page": {**PAGE, **SERVICE_PAGE, **PAGE_READING},
    "report": REPORT,
    "error": {**ERRORS, **SERVICE_ERRORS, **FILE_ERRORS},
    "reason": REASONS,
    "length": LENGTHS,
    "explain": EXPLAIN,
    "terminal": TERMINAL,
    "usage": USAGE,
    "usage_value": USAGE_VALUES,
}


def entry(area: str, key: str) -> dict[str, str] | None:
    """The words of ``key`` in ``area`` (else in the common words), or ``None``."""
    found = CATALOG[area].get(key)
    return found if found is not None else COMMON.get(key)


def words(area: str, lang: str) -> dict[str, str]:
    """Every message of ``area`` (and the common ones) in ``lang``: the page's ``t``."""
    return {key: texts[lang] for key, texts in {**COMMON, **CATALOG[area]}.items()}


_NUMBER_SPEC = re.compile(r"^,?(?:\.(\d+)f)?$")


class _Formatter(string.Formatter):
    """:meth:`str.format` with the count specs, and the decimal comma in Russian."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def format_field(self, value: Any, format_spec: str) -> str:
        lang = self.lang
        if format_spec.startswith("#"):
            return f"{number(value, 0, lang)} {word(value, format_spec[1:], lang)}"
        if format_spec.startswith("~"):
            return word(value, format_spec[1:], lang)
        if format_spec == "size":
            return size(value, lang)
        if lang == "en":
            return super().format_field(value, format_spec)
        found = _NUMBER_SPEC.match(format_spec)
        if format_spec and found is not None and isinstance(value, numbers.Real):
            return number(float(value), int(found.group(1) or 0), lang)
        text = super().format_field(value, format_spec)
        if isinstance(value, float) and format_spec and format_spec[-1] in "gfe%":
            text = text.replace(".", ",")
        return text


_FORMATTERS = {lang: _Formatter(lang) for lang in LANGUAGES}


def format_message(template: str, lang: str, /, **values: Any) -> str:
    """``template`` (a catalog entry's words) with ``values`` put in, as ``lang`` says them."""
    if lang == "en" and not any(spec in template for spec in (":#", ":~", ":size")):
        return template.format(**values)  # the plain English path needs no Babel
    return _FORMATTERS[lang].format(template, **values)


def say(area: str, key: str, lang: str, /, **values: Any) -> str:
    """The message ``key`` of ``area`` in ``lang``, with ``values`` put in: the one formatting
    function of the CLI, the page and the report."""
    found = entry(area, key)
    if found is None:
        raise KeyError(f"{area}.{key}")
    return format_message(found[lang], lang, **values)


def error_words(code: str, params: dict[str, Any], lang: str, detail: str) -> str | None:
    """The words of the error ``code`` in ``lang`` with its ``params`` (``detail``: its English
    message, for the words that quote it); ``None`` when the code has no words of its own or
    lacks a value they need."""
    found = entry("error", code)
    if found is None:
        return None
    try:
        return format_message(found[lang], lang, **{"detail": detail, **params})
    except (KeyError, IndexError, ValueError):  # raised without the params its words need
        return None


def error_text(code: str, params: dict[str, Any], lang: str, detail: str) -> str:
    """An error as a person reads it in ``lang``: its words, else its English message."""
    said = error_words(code, params, lang, detail)
    return said if said is not None else format_message(OTHER[lang], lang, detail=detail)


def reason_words(reason: str, lang: str) -> str:
    """An admission decision's reason (``new``, ``duplicate`` …) in ``lang``."""
    return REASONS.get(reason, {}).get(lang, reason)


# A decision's detail is a string in the records kept checks store (JSON), so a length
# refusal's numbers are read back from it.
_LENGTH = re.compile(
    r"has (?P<n>\d+) characters; the collection .*?admits texts of "
    r"(?:(?P<low>\d+) to (?P<high>\d+)|at most (?P<most>\d+)|at least (?P<least>\d+)) characters"
)


def reason_text(reason: str, detail: str | None, lang: str) -> str:
    """A decision's reason (and a length refusal's detail) in ``lang``."""
    said = reason_words(reason, lang)
    if not detail:
        return said
    found = _LENGTH.search(detail)
    if found is None:
        return f"{said}: {detail}"
    values = {k: int(v) for k, v in found.groupdict().items() if v is not None}
    kind = "range" if "low" in values else "at_most" if "most" in values else "at_least"
    admitted = say("length", kind, lang, **values)
    return say("length", "refused", lang, said=said, n=values["n"], admitted=admitted)


__all__ = [
    "CATALOG",
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "WORDS",
    "entry",
    "error_text",
    "error_words",
    "format_message",
    "number",
    "plural",
    "reason_text",
    "reason_words",
    "say",
    "size",
    "word",
    "words",
]

"""The page's language, and its words through the one catalog (:mod:`neardup.messages`).

The language is chosen by ``?lang=ru|en`` (remembered in a cookie), else the cookie, else the
first supported language of the ``Accept-Language`` header, else Russian.

An error the server sends to the page is said in the page's language by its code and params
(:func:`code_of`): a :class:`~neardup.errors.NeardupError`'s own, an HTTP error's of the
service (:class:`CodedHTTPException`: a token refused, a body too large), or the status of one
Starlette raises (404, 405); the API's JSON stays English.
"""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException as StarletteHTTPException

from neardup.errors import NeardupError
from neardup.messages import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    error_text,
    number,
    plural,
    reason_text,
    size,
    word,
    words,
)


class CodedHTTPException(StarletteHTTPException):
    """An HTTP error of the service with the code (and params) the page says it by, as a
    :class:`~neardup.errors.NeardupError` has."""

    def __init__(
        self,
        status_code: int,
        detail: str,
        *,
        code: str,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(status_code, detail, headers)
        self.code = code
        self.params: dict[str, Any] = dict(params or {})


#: The codes of the HTTP errors Starlette raises itself (an unknown path, a wrong method).
HTTP_CODES = {404: "page_not_found", 405: "method_not_allowed"}


def code_of(exc: BaseException) -> tuple[str, dict[str, Any]]:
    """The code of an error and the values its words need."""
    if isinstance(exc, NeardupError):
        return exc.code, exc.params
    if isinstance(exc, StarletteHTTPException):
        code = getattr(exc, "code", None)  # ours: CodedHTTPException, BodyTooLarge
        if isinstance(code, str):
            return code, dict(getattr(exc, "params", {}))
        return HTTP_CODES.get(exc.status_code, "http"), {}
    return "internal", {}


def translate_error(exc: BaseException, lang: str, message: str | None = None) -> str:
    """An error as the page shows it, in ``lang`` (``message``: its English text, the
    collection's location hidden, for the words that quote it)."""
    code, params = code_of(exc)
    return error_text(code, params, lang, str(exc) if message is None else message)


def choose_language(query: str | None, cookie: str | None, accept: str | None) -> str:
    """The page's language from a ``lang`` parameter, a cookie, or ``Accept-Language``."""
    for given in (query, cookie):
        if given in LANGUAGES:
            return given
    if accept:
        weighted: list[tuple[float, int, str]] = []
        for index, part in enumerate(accept.split(",")):
            piece = part.strip()
            if not piece:
                continue
            tag, _, params = piece.partition(";")
            weight = 1.0
            params = params.strip()
            if params.startswith("q="):
                try:
                    weight = float(params[2:])
                except ValueError:
                    weight = 0.0
            lang = tag.strip().lower().split("-")[0]
            if lang in LANGUAGES and weight > 0:
                weighted.append((-weight, index, lang))
        if weighted:
            return min(weighted)[2]
    return DEFAULT_LANGUAGE


def translator(lang: str) -> dict[str, str]:
    """Every message of the page in ``lang``: the templates' ``t``."""
    return words("page", lang)


__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "CodedHTTPException",
    "choose_language",
    "code_of",
    "number",
    "plural",
    "reason_text",
    "size",
    "translate_error",
    "translator",
    "word",
]

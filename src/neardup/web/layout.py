"""The page's frame, shared by every page (:mod:`neardup.web.pages`, the kept checks'
pages of :mod:`neardup.web.kept`) and by the error handlers: the templates, the page's
language, the render of a page with its common context, the token form when reads need a
token, and an error as a page shows it.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import Response
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from neardup.errors import NeardupError
from neardup.report.fragments import CITATION_COLOUR
from neardup.web.auth import OWNER_COOKIE, owner_key, page_csrf, require_read, token_of
from neardup.web.http_errors import hide_location, status_of
from neardup.web.i18n import LANGUAGES, choose_language, translate_error, translator
from neardup.web.i18n import plural as plural_of
from neardup.web.i18n import size as size_of
from neardup.web.kept_view import when, when_iso
from neardup.web.render import (
    heat_colour,
    number_filter,
    plural_filter,
    reason_filter,
    size_filter,
    spec_line,
    term_filter,
    text_colour,
    word_filter,
)
from neardup.web.service import UPLOAD_SUFFIXES, Service

templates = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
templates.env.globals.update(
    heat_colour=heat_colour,
    text_colour=text_colour,
    quote=quote,
    plural=plural_filter,
    word=word_filter,
    number=number_filter,
    size=size_filter,
    reason_text=reason_filter,
    when_iso=when_iso,
    when_utc=when,
    cite_colour=CITATION_COLOUR,
    term=term_filter,
    spec_line=spec_line,
)
templates.env.filters.update(number=number_filter)

ACCEPT = ",".join(UPLOAD_SUFFIXES)


def _service(request: Request) -> Service:
    return request.app.state.service


def page_language(request: Request) -> str:
    return choose_language(
        request.query_params.get("lang"),
        request.cookies.get("lang"),
        request.headers.get("accept-language"),
    )


def render_page(request: Request, name: str, status: int = 200, **context: Any) -> Response:
    lang = page_language(request)
    service = _service(request)
    config = service.config
    t = translator(lang)
    size = size_of(config.max_body, lang)
    t["too_large_before"] = t["too_large_before"].format(size=size)
    base: dict[str, Any] = {
        "lang": lang,
        "t": t,
        "languages": LANGUAGES,
        "path": request.url.path,
        "writes": bool(config.token),
        "accept": ACCEPT,
        "max_body": config.max_body,
        "max_text": config.max_text,
        "max_matrix": config.max_matrix,
        "limits": t["limits"].format(
            chars=plural_of(config.max_text, "character", lang), size=size
        ),
    }
    # the browser's own key, given on its first page: the form token is bound to it
    key = owner_key(request)
    new_key = key is None
    if key is None:
        key = secrets.token_urlsafe(24)
    base["csrf"] = page_csrf(request, key)
    response = templates.TemplateResponse(request, name, {**base, **context}, status_code=status)
    if new_key:
        days = max(1, config.keep_checks_days)
        response.set_cookie(OWNER_COOKIE, key, max_age=days * 86400, httponly=True, samesite="lax")
    chosen = request.query_params.get("lang")
    if chosen in LANGUAGES:
        response.set_cookie("lang", chosen, max_age=365 * 86400, samesite="strict")
    return response


def page_read(request: Request) -> Response | None:
    """A token form instead of the page when reads need a token the request lacks."""
    service = _service(request)
    try:
        require_read(service.config, token_of(request))
    except StarletteHTTPException as exc:
        return render_page(request, "token.html", status=exc.status_code, error=says(request, exc))
    return None


def says(request: Request, exc: BaseException, message: str | None = None) -> str:
    """An error as the page says it: in the page's language, without the collection's
    location for a reader without the token."""
    if message is None:
        message = str(exc.detail) if isinstance(exc, StarletteHTTPException) else str(exc)
    if not message:
        return translator(page_language(request))["empty_input"]
    return translate_error(exc, page_language(request), hide_location(request, message))


def error_page(request: Request, status: int, exc: BaseException, message: str) -> Response:
    """An error outside a form's page (an unknown path, a request too large to read…) as an
    HTML page in the page's language."""
    return render_page(request, "error.html", status=status, error=says(request, exc, message))


def error_in_page(request: Request, name: str, exc: NeardupError, **context: Any) -> Response:
    return render_page(request, name, status=status_of(exc), error=says(request, exc), **context)

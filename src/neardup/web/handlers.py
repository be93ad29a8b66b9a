"""The application's exception handlers: each error as JSON under ``/api`` (English) or as an
HTML page in the page's language elsewhere (:mod:`neardup.web.http_errors` gives the status and
the JSON; :mod:`neardup.web.layout` the page).
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from neardup.errors import NeardupError
from neardup.web.http_errors import (
    error_response,
    hide_location,
    log,
    status_of,
    validation_message,
    wants_page,
)
from neardup.web.layout import error_page
from neardup.web.texts import safe_text


def _page(request: Request, status: int, exc: BaseException, message: str) -> Response:
    return error_page(request, status, exc, message)


def install_errors(app: FastAPI) -> None:
    @app.exception_handler(NeardupError)
    async def _neardup(request: Request, exc: NeardupError) -> Response:
        status = status_of(exc)
        if status >= 500:
            log.error("%s on %s: %s", type(exc).__name__, request.url.path, safe_text(str(exc)))
        message = hide_location(request, str(exc))
        if wants_page(request):
            return _page(request, status, exc, message)
        return error_response(status, type(exc).__name__, message)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        status, kind, message = validation_message(exc)
        if wants_page(request):
            return _page(request, status, exc, message)
        return error_response(status, kind, message)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        kind = {
            401: "unauthorized",
            403: "forbidden",
            404: "not_found",
            405: "method_not_allowed",
            413: "too_large",
        }.get(exc.status_code, "http_error")
        headers = getattr(exc, "headers", None)
        if wants_page(request):
            response = _page(request, exc.status_code, exc, str(exc.detail))
        else:
            response = error_response(exc.status_code, kind, str(exc.detail))
        if headers:
            response.headers.update(headers)
        return response

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unexpected error on %s", request.url.path)
        if wants_page(request):
            return _page(request, 500, exc, "internal error; see the server's log")
        return error_response(500, "internal", "internal error; see the server's log")

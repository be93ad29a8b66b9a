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


#: The methods a path may take.
_METHODS = ("DELETE", "GET", "PATCH", "POST", "PUT")


def allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """Every method some route takes at this path (Starlette's own 405 names only the first
    route's), with OPTIONS, which the service answers for every path it serves: each method
    is tried on the application's routes as a request would be matched."""
    from starlette.routing import Match

    scope = dict(request.scope)
    found = {
        method
        for method in _METHODS
        if any(
            route.matches({**scope, "method": method})[0] == Match.FULL
            for route in app.router.routes
            if getattr(route, "path", "") != "/static"
        )
    }
    if "GET" in found:
        found.add("HEAD")
    return sorted(found | {"OPTIONS"}) if found else []


def _methods_of_path(
    app: FastAPI, request: Request, exc: StarletteHTTPException
) -> StarletteHTTPException | Response:
    """A 405 with every method of the path in its Allow header, or OPTIONS answered (204)."""
    if "OPTIONS" in (getattr(exc, "headers", None) or {}).get("Allow", ""):
        return exc  # a route's own 405, its methods given
    allowed = ", ".join(allowed_methods(app, request))
    if request.method == "OPTIONS" and allowed:
        return Response(status_code=204, headers={"Allow": allowed})
    return StarletteHTTPException(405, exc.detail, {"Allow": allowed})


def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
    kind = {
        401: "unauthorized",
        403: "forbidden",
        404: "not_found",
        405: "method_not_allowed",
        413: "too_large",
        429: "too_many_requests",
    }.get(exc.status_code, "http_error")
    headers = getattr(exc, "headers", None)
    if wants_page(request):
        response = _page(request, exc.status_code, exc, str(exc.detail))
    else:
        response = error_response(exc.status_code, kind, str(exc.detail))
    if headers:
        response.headers.update(headers)
    return response


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
        if exc.status_code == 405:
            answered = _methods_of_path(app, request, exc)
            if isinstance(answered, Response):
                return answered
            exc = answered
        return _http_error(request, exc)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unexpected error on %s", request.url.path)
        if wants_page(request):
            return _page(request, 500, exc, "internal error; see the server's log")
        return error_response(500, "internal", "internal error; see the server's log")

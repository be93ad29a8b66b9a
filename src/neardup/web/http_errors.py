"""Errors as HTTP responses: JSON ``{"error": KIND, "message": TEXT}``, the status of each of
neardup's errors, and the application's exception handlers.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from neardup.errors import (
    ConfigurationError,
    DuplicateIdError,
    InputError,
    MissingDependencyError,
    NeardupError,
    NotFoundError,
    NotSupportedError,
    SpecError,
    StorageError,
)
from neardup.web.service import TooLargeError, UnsupportedTypeError

log = logging.getLogger("neardup.web")


def error_response(status: int, kind: str, message: str) -> JSONResponse:
    return JSONResponse({"error": kind, "message": message}, status_code=status)


def status_of(exc: NeardupError) -> int:
    """The HTTP status of one of neardup's errors."""
    if isinstance(exc, TooLargeError):
        return 413
    if isinstance(exc, UnsupportedTypeError):
        return 415
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, DuplicateIdError):
        return 409
    if isinstance(exc, InputError | SpecError | ConfigurationError | NotSupportedError):
        return 400
    if isinstance(exc, MissingDependencyError):
        return 501
    if isinstance(exc, StorageError):
        return 503
    return 500


def validation_message(exc: RequestValidationError) -> tuple[int, str, str]:
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" for e in errors):
        first = next(e for e in errors if e.get("type") == "json_invalid")
        detail = (first.get("ctx") or {}).get("error", "")
        return 400, "malformed_json", f"the body is not valid JSON{': ' + detail if detail else ''}"
    parts = []
    for e in errors[:5]:
        where = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
        parts.append(f"{where}: {e.get('msg', 'invalid')}")
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return 422, "invalid_request", "; ".join(parts) + more


def install_errors(app: FastAPI) -> None:
    @app.exception_handler(NeardupError)
    async def _neardup(request: Request, exc: NeardupError) -> Response:
        status = status_of(exc)
        if status >= 500:
            log.error("%s on %s: %s", type(exc).__name__, request.url.path, exc)
        return error_response(status, type(exc).__name__, str(exc))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        status, kind, message = validation_message(exc)
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
        response = error_response(exc.status_code, kind, str(exc.detail))
        if headers:
            response.headers.update(headers)
        return response

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unexpected error on %s", request.url.path)
        return error_response(500, "internal", "internal error; see the server's log")

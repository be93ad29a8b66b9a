"""Errors as HTTP responses: JSON ``{"error": KIND, "message": TEXT}`` under ``/api`` (English),
an HTML page in the page's language elsewhere; the status of each of neardup's errors, and the
application's exception handlers install (:mod:`neardup.web.handlers`).

A message never shows the collection's location (a file path or a URL) to a reader without
the token; a token holder sees it.
"""

from __future__ import annotations

import logging

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from neardup.errors import (
    ConfigurationError,
    DamagedCheckError,
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
from neardup.web.texts import InvalidTextError, safe_text

log = logging.getLogger("neardup.web")


def error_response(status: int, kind: str, message: str) -> JSONResponse:
    return JSONResponse({"error": kind, "message": safe_text(message)}, status_code=status)


def wants_page(request: Request) -> bool:
    """Whether an error goes to the page (HTML) rather than to the API (JSON)."""
    path = request.url.path
    return not (path == "/api" or path.startswith(("/api/", "/static/")))


def hide_location(request: Request, message: str) -> str:
    """``message`` without the collection's location, unless the request holds the token."""
    from neardup.web.auth import token_of, token_ok

    config = getattr(request.app.state, "config", None)
    if config is None or token_ok(config, token_of(request)):
        return message
    service = getattr(request.app.state, "service", None)
    places = {config.db}
    if service is not None:
        places.add(str(service.collection.location))
    for place in sorted(places, key=len, reverse=True):
        if not place:
            continue
        for said in ("collection at ", "collection ", "server of "):
            message = message.replace(said + place, said.split()[0])
        if len(place) >= 8 and ("/" in place or "\\" in place):  # a path or a URL elsewhere
            message = message.replace(place, "the collection")
    return message


def status_of(exc: NeardupError) -> int:
    """The HTTP status of one of neardup's errors."""
    if isinstance(exc, TooLargeError):
        return 413
    if isinstance(exc, InvalidTextError):
        return 422
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
    if isinstance(exc, DamagedCheckError):  # retrying will not help: not a 503
        return 500
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

"""The API's error answers as its OpenAPI schema shows them: :class:`ErrorOut` and the
statuses a route may answer with (:func:`errors`), shared by :mod:`neardup.web.api` and the
kept checks' routes of :mod:`neardup.web.kept`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ErrorOut(BaseModel):
    """Every error: a kind (the exception's or the check's name) and a message in English."""

    error: str = Field(description="What kind of error: e.g. InputError, invalid_request.")
    message: str = Field(description="What went wrong, for a person to read.")


_WHEN = {
    400: "Bad input: malformed JSON, an empty or unusable text or file, a bad option value.",
    401: "No token, or a wrong one (writes always; reads when the service was started with "
    "--reads token).",
    403: "Writes are off: the service was started without a token; or a kept check made by "
    "another client, which only it or a token holder may remove; or a state-changing request "
    "from another origin (cross_site), or sent with the service's cookies but without the "
    "page's form token (csrf).",
    404: "No such document, or no kept check of that id (removed, or past the retention).",
    409: "An id already in the collection (policy reject).",
    413: "The body is over the service's limit (--max-body), or a text over --max-text "
    "characters, or a file's text over its limits.",
    405: "A method this path does not take (the Allow header lists those it does).",
    415: "A file of a type that is not read.",
    422: "The request does not match the schema, or a text (id, meta) holds a NUL character "
    "or a lone surrogate, or an id a text-direction control.",
    429: "Too many checks from this client without a token (Retry-After says when to try again).",
    500: "A kept check whose stored row is damaged (DamagedCheckError): it cannot be shown; "
    "remove it (DELETE).",
    503: "The collection's store failed (unreachable, locked); the request can be tried again.",
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The error answers of a route, for its OpenAPI schema."""
    return {s: {"model": ErrorOut, "description": _WHEN[s]} for s in statuses}


READ = (401, 503)
BODY = (400, 403, 413, 422)
WRITE = (401, 403, 503)

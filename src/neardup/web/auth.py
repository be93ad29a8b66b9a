"""Who may do what: the token a request carries, and the checks of reads and writes against
the service's settings (writes always need the token; reads need it when the service says so).
"""

from __future__ import annotations

import secrets

from fastapi import Request

from neardup.web.i18n import CodedHTTPException
from neardup.web.service import ServiceConfig


class AuthError(CodedHTTPException):
    """No token (code ``token_needed``), or a wrong one (``wrong_token``): 401."""

    def __init__(self, detail: str, code: str) -> None:
        super().__init__(401, detail, code=code)


def wrong_token() -> AuthError:
    """The refusal of a token that is not the service's."""
    return AuthError("wrong token", "wrong_token")


def token_of(request: Request, form_token: str | None = None) -> str | None:
    """The token a request carries: ``Authorization: Bearer``, ``X-Neardup-Token``, a form
    field, or the page's cookie."""
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return (
        request.headers.get("x-neardup-token")
        or form_token
        or request.cookies.get("neardup_token")
        or None
    )


def token_ok(config: ServiceConfig, given: str | None) -> bool:
    """Whether ``given`` is the service's token (compared in constant time)."""
    return (
        bool(config.token)
        and given is not None
        and secrets.compare_digest(
            given.encode(),
            config.token.encode(),  # type: ignore[union-attr]
        )
    )


def require_write(config: ServiceConfig, given: str | None) -> None:
    """Refuse a write: 403 when the service has no token, 401 without the right one."""
    if not config.token:
        raise CodedHTTPException(
            403,
            "writes are off: this service was started without a token (--token)",
            code="writes_off",
        )
    if given is None:
        raise AuthError("this needs a token (Authorization: Bearer TOKEN)", "token_needed")
    if not token_ok(config, given):
        raise wrong_token()


def require_read(config: ServiceConfig, given: str | None) -> None:
    """Refuse a read without the right token (401) when the service's reads need one."""
    if config.reads == "token":
        if given is None:
            raise AuthError("reads need a token here (Authorization: Bearer TOKEN)", "token_needed")
        if not token_ok(config, given):
            raise wrong_token()

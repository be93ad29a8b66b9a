"""Who may do what: the token a request carries, and the checks of reads and writes against
the service's settings (writes always need the token; reads need it when the service says so).

A browser is never trusted for what its cookies alone say (cross-site request forgery: a page
of another site, or of another port of the same host, makes the browser send them):

* the ``neardup_token`` cookie is a login, ``NONCE.MAC`` with the MAC keyed by the token, so
  the cookie never holds the token itself and is void once the token changes;
* every state-changing request (POST, PUT, PATCH, DELETE) whose ``Origin`` (or, without one,
  ``Referer``) names another origin than the service's own is refused (403 ``cross_site``);
* a request that would act by a cookie's authority (a write by the login cookie, a kept
  check's removal by the browser's ``neardup_owner`` cookie) must carry the page's form token
  (field ``csrf`` or header ``X-CSRF-Token``): an HMAC, under the service's secret, of both
  cookies, so a page that cannot read them cannot make it (synchronizer token, kept in no
  store). A request with the token in a header or typed into the form needs none.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from urllib.parse import urlsplit

from fastapi import Request

from neardup.web.i18n import CodedHTTPException
from neardup.web.service import ServiceConfig

#: The login cookie (``NONCE.MAC``, never the token).
LOGIN_COOKIE = "neardup_token"
#: The cookie that tells a browser's own checks (a random key; the store keeps its digest).
OWNER_COOKIE = "neardup_owner"
#: Where a page's form token travels: a form field, or a header.
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
#: The methods that change nothing.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


class AuthError(CodedHTTPException):
    """No token (code ``token_needed``), or a wrong one (``wrong_token``): 401."""

    def __init__(self, detail: str, code: str) -> None:
        super().__init__(401, detail, code=code)


def wrong_token() -> AuthError:
    """The refusal of a token that is not the service's."""
    return AuthError("wrong token", "wrong_token")


def _mac(key: str, *parts: str) -> str:
    message = "\x1f".join(parts).encode()
    return hmac.new(key.encode(), message, hashlib.sha256).hexdigest()


def login_cookie(token: str) -> str:
    """A new login cookie's value for the service's ``token``."""
    nonce = secrets.token_urlsafe(18)
    return f"{nonce}.{_mac(token, 'login', nonce)}"


def login_ok(config: ServiceConfig, value: str | None) -> bool:
    """Whether a login cookie's value was made with the service's token."""
    if not config.token or not value or value.count(".") != 1:
        return False
    nonce, mac = value.split(".")
    return secrets.compare_digest(mac.encode(), _mac(config.token, "login", nonce).encode())


def header_token(request: Request) -> str | None:
    """The token of ``Authorization: Bearer`` or ``X-Neardup-Token`` (which no other site
    can make a browser send)."""
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return request.headers.get("x-neardup-token") or None


def token_of(request: Request, form_token: str | None = None) -> str | None:
    """The token a request carries: ``Authorization: Bearer``, ``X-Neardup-Token``, a form
    field, or (the service's, when valid) the page's login cookie."""
    given = header_token(request) or form_token
    if given:
        return given
    config: ServiceConfig = request.app.state.config
    if login_ok(config, request.cookies.get(LOGIN_COOKIE)):
        return config.token
    return None


def owner_key(request: Request) -> str | None:
    """The browser's own key (its ``neardup_owner`` cookie), when it has a sound one."""
    key = request.cookies.get(OWNER_COOKIE)
    return key if key and 16 <= len(key) <= 64 else None


def csrf_token(config: ServiceConfig, owner: str | None, login: str | None) -> str:
    """The form token of a browser with these cookies."""
    return _mac(config.secret, "csrf", owner or "", login or "")


def page_csrf(request: Request, owner: str | None) -> str:
    """The form token a page rendered for this request carries (``owner``: the key the
    response gives the browser, when it had none)."""
    return csrf_token(request.app.state.config, owner, request.cookies.get(LOGIN_COOKIE))


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


# --- cross-site request forgery ------------------------------------------------------------------
def _origin(url: str) -> str:
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return "?"
    if not parts.scheme or not parts.netloc:
        return url.strip()[:100] or "?"
    default = {"http": 80, "https": 443}.get(parts.scheme)
    try:
        port = parts.port
    except ValueError:
        return "?"
    host = (parts.hostname or "").lower()
    host = f"[{host}]" if ":" in host else host
    shown = f"{host}:{port}" if port is not None and port != default else host
    return f"{parts.scheme.lower()}://{shown}"


def own_origins(request: Request) -> set[str]:
    """The origins this service's pages have: the request's own, and the public URL's."""
    config: ServiceConfig = request.app.state.config
    host = request.headers.get("host", "")
    out = {_origin(f"{request.url.scheme}://{host}")} if host else set()
    if config.public_url:
        out.add(_origin(config.public_url))
    return out


def cross_site(origin: str) -> CodedHTTPException:
    shown = origin[:100]
    return CodedHTTPException(
        403,
        f"a state-changing request from another origin ({shown}) is refused",
        code="cross_site",
        params={"origin": shown},
    )


def refuse_other_origin(request: Request) -> None:
    """Refuse a state-changing request that a browser says came from another origin (an
    ``Origin`` of ``null`` too: a sandboxed or privacy-stripped page). A client that sends
    neither ``Origin`` nor ``Referer`` is not a browser on a page and goes on."""
    origin = request.headers.get("origin")
    if origin is None:
        referer = request.headers.get("referer")
        if not referer:
            return
        origin = _origin(referer)
    elif origin.strip().lower() != "null":
        origin = _origin(origin)
    if origin not in own_origins(request):
        raise cross_site(origin)


def csrf_refused() -> CodedHTTPException:
    return CodedHTTPException(
        403,
        "this write needs the page's form token (field csrf or header X-CSRF-Token) when it "
        "is sent with the service's cookies; reload the page, or send the token in a header",
        code="csrf",
    )


async def guard_writes(request: Request) -> None:
    """Every router's dependency: a state-changing request is refused from another origin,
    and (when it carries the login cookie and no token of its own) without the form token;
    ``request.state.csrf_ok`` says whether the form token it carries is right, for the
    routes that act by the owner cookie."""
    request.state.csrf_ok = False
    if request.method in SAFE_METHODS:
        return
    refuse_other_origin(request)
    given = request.headers.get(CSRF_HEADER)
    if given is None:
        kind = request.headers.get("content-type", "")
        if kind.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
            field = (await request.form()).get(CSRF_FIELD)
            given = field if isinstance(field, str) else None
    config: ServiceConfig = request.app.state.config
    login = request.cookies.get(LOGIN_COOKIE)
    expected = csrf_token(config, owner_key(request), login)
    request.state.csrf_ok = given is not None and secrets.compare_digest(
        given.encode(), expected.encode()
    )
    if login and header_token(request) is None and not request.state.csrf_ok:
        raise csrf_refused()


def require_csrf(request: Request) -> None:
    """Refuse an act by the owner cookie's authority without the right form token."""
    if not getattr(request.state, "csrf_ok", False):
        raise csrf_refused()

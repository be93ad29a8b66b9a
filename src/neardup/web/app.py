"""The FastAPI application: the HTTP API under ``/api`` and the page.

``create_app(config)`` builds it over one collection; ``app_from_env()`` builds it from the
environment ``neardup serve`` sets for its worker processes.

Every error is JSON ``{"error": KIND, "message": TEXT}`` with a 4xx status for bad requests
(400 bad input, 401 no or wrong token, 403 writes off, 404 no such document, 409 an id already
there, 413 too large, 415 a file type not read, 422 a request not matching the schema); an
unexpected failure is a 500 with a message and no traceback (:mod:`neardup.web.http_errors`);
who may read and write is :mod:`neardup.web.auth`, the routes :mod:`neardup.web.api` and
:mod:`neardup.web.pages`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, HTTPException
from fastapi.staticfiles import StaticFiles

from neardup.web.handlers import install_errors
from neardup.web.http_errors import error_response, log
from neardup.web.service import Service, ServiceConfig

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The page loads only its own script and style sheet; inline style attributes are allowed
#: for the passages' colours, inline scripts never.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'"
)


class BodyTooLarge(HTTPException):
    """A body over the limit, found while reading it (FastAPI passes HTTPExceptions through
    its body parsing, where any other exception would become a 400). The page says it by its
    ``code`` and ``params``, as a :class:`~neardup.web.i18n.CodedHTTPException`."""

    code = "body_too_large"

    def __init__(self, limit: int) -> None:
        super().__init__(413, body_too_large(limit))
        self.params = {"max": limit}


def body_too_large(limit: int) -> str:
    """The English words of a body over ``limit`` bytes (the API's JSON, the page's detail)."""
    return f"the request body is larger than this service's limit of {limit:,} bytes"


#: Sent with every response (pure ASGI: an exception raised while the body is read must reach
#: FastAPI's body parsing as it is, which a BaseHTTPMiddleware's task group would wrap).
SECURITY_HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    # same-origin: the page's own requests carry its Origin and Referer (which the check of
    # cross-site writes compares), another site gets neither
    (b"referrer-policy", b"same-origin"),
)


def _with_security_headers(headers: Any) -> list[tuple[bytes, bytes]]:
    out = [(bytes(k), bytes(v)) for k, v in headers]
    present = {k.lower() for k, _ in out}
    out.extend((k, v) for k, v in SECURITY_HEADERS if k not in present)
    return out


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with a 413, by Content-Length or by counting;
    add the security headers (CSP…) to every response."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            await self._refuse(send, self.limit, scope)
            return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge(self.limit)
            return msg

        async def sending(msg: Message) -> None:
            nonlocal started
            if msg["type"] == "http.response.start":
                started = True
                msg["headers"] = _with_security_headers(msg.get("headers", []))
            await send(msg)

        try:
            await self.app(scope, counted, sending)
        except BodyTooLarge:
            if not started:
                await self._refuse(send, self.limit, scope)
        except Exception as exc:
            # caught here, not by Starlette's ServerErrorMiddleware (which answers, then raises
            # again, so that the server logs a second traceback and drops the connection)
            log.error("unexpected error on %s", scope.get("path"), exc_info=exc)
            if not started:
                response = _unexpected_response(scope, exc)
                await response(scope, _no_receive, send)

    @staticmethod
    async def _refuse(send: Send, limit: int, scope: Scope | None = None) -> None:
        message = body_too_large(limit)
        if scope is not None and scope.get("app") is not None:
            from starlette.requests import Request

            from neardup.web.http_errors import wants_page
            from neardup.web.layout import error_page

            request = Request(scope)
            if wants_page(request):
                exc = BodyTooLarge(limit)
                page = error_page(request, 413, exc, message)
                await page(scope, _no_receive, _secured(send))
                return
        response = error_response(413, "too_large", message)

        async def secured(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                msg["headers"] = _with_security_headers(msg.get("headers", []))
            await send(msg)

        await response({"type": "http", "method": "POST", "headers": []}, _no_receive, secured)


def _secured(send: Send) -> Send:
    async def secured(msg: Message) -> None:
        if msg["type"] == "http.response.start":
            msg["headers"] = _with_security_headers(msg.get("headers", []))
        await send(msg)

    return secured


def _unexpected_response(scope: Scope, exc: Exception) -> Any:
    from starlette.requests import Request

    from neardup.web.http_errors import wants_page

    message = "internal error; see the server's log"
    if scope.get("app") is not None and wants_page(Request(scope)):
        from neardup.web.layout import error_page

        return error_page(Request(scope), 500, exc, message)
    return error_response(500, "internal", message)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


def create_app(config: ServiceConfig, service: Service | None = None) -> FastAPI:
    """The application over the collection ``config.db`` (or the given service)."""
    from neardup._logs import quiet_third_party_logs
    from neardup._version import __version__
    from neardup.web import api, kept, pages

    quiet_third_party_logs()
    holder: dict[str, Service] = {}
    if service is not None:
        holder["service"] = service

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        opened = "service" not in holder
        if opened:
            holder["service"] = Service(config)
            holder["service"].warm_up()
        app.state.service = holder["service"]
        try:
            yield
        finally:
            if opened:
                holder.pop("service").close()

    app = FastAPI(
        title="neardup",
        version=__version__,
        description="Near-duplicate and reused-text detection over one collection: check a "
        "text (uniqueness, sources, copied passages), add and remove documents, groups, stats, "
        "compare two texts, the similarity matrix of a few texts. JSON as the CLI's --json.",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
        lifespan=lifespan,
    )
    app.state.config = config
    if service is not None:
        app.state.service = service
    install_errors(app)
    app.include_router(api.router)
    app.include_router(pages.router)
    app.include_router(kept.router)
    from pathlib import Path

    app.mount("/static", StaticFiles(directory=Path(__file__).parent / "static"), name="static")

    app.add_middleware(BodyLimit, limit=config.max_body)
    return app


def app_from_env() -> FastAPI:
    """The application as ``neardup serve --workers N`` starts it in each worker."""
    return create_app(ServiceConfig.from_env())

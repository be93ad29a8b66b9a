"""Form bodies read up to the service's own body limit.

Starlette's multipart parser refuses a form field over 1 MiB by default ("Part exceeded
maximum size of 1024KB."), before the service's limits could answer; the routes here read
forms with the per-field limit set to the service's ``max_body``, so a long pasted text
reaches the service, whose limit on characters answers in the page's language.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.types import Receive, Scope


class LimitedRequest(Request):
    """A request whose form fields may be as large as the service's body limit."""

    def __init__(self, scope: Scope, receive: Receive) -> None:
        super().__init__(scope, receive)

    def form(
        self,
        *,
        max_files: int | float = 1000,
        max_fields: int | float = 1000,
        max_part_size: int | None = None,
    ) -> Any:
        config = getattr(self.app.state, "config", None)
        limit = config.max_body if config is not None else 1024 * 1024
        return super().form(
            max_files=max_files,
            max_fields=max_fields,
            max_part_size=max(limit, max_part_size or 0),
        )


class LimitedRoute(APIRoute):
    """An APIRoute whose handler reads forms as :class:`LimitedRequest` does."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def limited(request: Request) -> Response:
            return await handler(LimitedRequest(request.scope, request.receive))

        return limited


__all__ = ["LimitedRequest", "LimitedRoute"]

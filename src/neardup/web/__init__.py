"""The web service: the collection behind an HTTP API, and the page (``neardup serve``).

Needs ``pip install 'neardup[web]'`` (FastAPI, uvicorn, Jinja2, python-multipart, and the
office readers). See docs/service.md.
"""

from __future__ import annotations

from neardup.web.service import Service, ServiceConfig

__all__ = ["Service", "ServiceConfig", "create_app"]


def create_app(config: ServiceConfig, service: Service | None = None) -> object:
    """The FastAPI application (see :func:`neardup.web.app.create_app`)."""
    from neardup.errors import require

    require("fastapi", "web")
    require("jinja2", "web")
    from neardup.web.app import create_app as make

    return make(config, service)

"""``neardup serve``: the collection behind an HTTP API, and the page (needs ``neardup[web]``)."""

from __future__ import annotations

import os

import click

from neardup.errors import ConfigurationError, require


def _finite(param: click.Parameter, value: float) -> float:
    """``nan`` passes a click range (every comparison with it is false): refuse it here."""
    if value != value:
        raise click.BadParameter("nan is not a number of MiB", param=param)
    return value


@click.command()
@click.argument("db", metavar="DB")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="Port to listen on (0: any free port).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes (more than one needs a postgresql:// collection).",
)
@click.option(
    "--token",
    envvar="NEARDUP_TOKEN",
    default=None,
    help="The token writes (add, remove) need; also read from NEARDUP_TOKEN. "
    "Without one, writes are refused.",
)
@click.option(
    "--reads",
    type=click.Choice(["open", "token"]),
    default="open",
    show_default=True,
    help="Whether reads (check, get, groups, stats, compare, matrix) are open or need the token.",
)
@click.option(
    "--max-body",
    type=click.FloatRange(min=0.001, max=2**20),  # a finite number of bytes (≤ 1 TiB)
    callback=lambda ctx, param, value: _finite(param, value),
    default=20.0,
    show_default=True,
    help="Largest request body, MiB (larger: 413).",
)
@click.option(
    "--max-text",
    type=click.IntRange(min=1),
    default=1_000_000,
    show_default=True,
    help="Largest text, characters, given or extracted from a file (larger: 413).",
)
@click.option(
    "--max-matrix",
    type=click.IntRange(min=2),
    default=20,
    show_default=True,
    help="Most texts in one similarity matrix.",
)
@click.option(
    "--keep-checks-days",
    type=click.IntRange(min=0),
    default=30,
    show_default=True,
    help="Days each check is kept under its own link, history and PDF (0: keep none).",
)
@click.option(
    "--log-level",
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
    default="info",
    show_default=True,
    help="The least severe server log messages printed (to standard error).",
)
def serve(
    db: str,
    host: str,
    port: int,
    workers: int,
    token: str | None,
    reads: str,
    max_body: float,
    max_text: int,
    max_matrix: int,
    keep_checks_days: int,
    log_level: str,
) -> None:
    """Serve the collection DB over HTTP: the API under /api (schema at /api/openapi.json)
    and the page at /.

    DB is a collection made by `neardup index create` (a SQLite file, or a postgresql:// URL).
    Writes need --token (or NEARDUP_TOKEN); reads are open unless --reads token.
    """
    require("fastapi", "web")
    uvicorn = require("uvicorn", "web")
    from neardup.index import Collection
    from neardup.storage import backend_of
    from neardup.web.service import MiB, ServiceConfig

    if workers > 1 and backend_of(db) != "postgres":
        raise ConfigurationError(
            f"--workers {workers} needs a postgresql:// collection; a SQLite file is served by "
            "one process (its writes are serialized anyway)"
        )
    config = ServiceConfig(
        db=db,
        token=token or None,
        reads=reads,
        max_body=int(max_body * MiB),
        max_text=max_text,
        max_matrix=max_matrix,
        keep_checks_days=keep_checks_days,
    )
    with Collection.open(db) as col:  # fail here, with one line, if DB is not a collection
        count = len(col)
    shown = "localhost" if host in ("127.0.0.1", "::1") else host
    click.echo(
        f"serving {db} ({count} documents) at http://{shown}:{port}/ — the API under /api, "
        f"its schema at /api/openapi.json; writes {'need the token' if token else 'are off'}, "
        f"reads {'open' if reads == 'open' else 'need the token'}",
        err=True,
    )
    os.environ.update(config.to_env())
    uvicorn.run(  # type: ignore[attr-defined]
        "neardup.web.app:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
        access_log=log_level in ("info", "debug"),
    )


COMMANDS = [serve]

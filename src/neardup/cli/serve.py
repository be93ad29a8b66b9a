"""``neardup serve``: the collection behind an HTTP API, and the page (needs ``neardup[web]``)."""

from __future__ import annotations

import errno
import http.client
import os
import socket
import threading
from urllib.parse import urlsplit

import click

from neardup.errors import ConfigurationError, InputError, NeardupError, brief, require

#: The longest retention ``--keep-checks-days`` takes: a hundred years.
MAX_KEEP_DAYS = 36_500


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
    type=click.IntRange(min=0, max=MAX_KEEP_DAYS),
    default=30,
    show_default=True,
    help="Days each check is kept under its own link, history and PDF (0: keep none).",
)
@click.option(
    "--keep-checks-max",
    type=click.IntRange(min=1),
    default=10_000,
    show_default=True,
    help="Most kept checks in all; past it the oldest are removed first.",
)
@click.option(
    "--keep-checks-mib",
    type=click.FloatRange(min=0.001, max=2**20),
    callback=lambda ctx, param, value: _finite(param, value),
    default=1024.0,
    show_default=True,
    help="Most MiB of kept checks in all; past it the oldest are removed first.",
)
@click.option(
    "--owner-checks-max",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Most kept checks of one browser; past it its oldest are removed first.",
)
@click.option(
    "--owner-checks-mib",
    type=click.FloatRange(min=0.001, max=2**20),
    callback=lambda ctx, param, value: _finite(param, value),
    default=100.0,
    show_default=True,
    help="Most MiB of kept checks of one browser; past it its oldest are removed first.",
)
@click.option(
    "--check-rate",
    type=click.IntRange(min=0),
    default=30,
    show_default=True,
    help="Checks a client without the token may make a minute (more: 429); 0: no limit.",
)
@click.option(
    "--public-url",
    default=None,
    metavar="URL",
    help="The address readers reach the service at (https://host[/path]): the links in PDF "
    "reports are made from it, never from a request's Host header (without it a report has "
    "no link); writes from this origin are taken too.",
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
    keep_checks_max: int,
    keep_checks_mib: float,
    owner_checks_max: int,
    owner_checks_mib: float,
    check_rate: int,
    public_url: str | None,
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
        keep_checks_max=keep_checks_max,
        keep_checks_bytes=int(keep_checks_mib * MiB),
        owner_checks_max=owner_checks_max,
        owner_checks_bytes=int(owner_checks_mib * MiB),
        check_rate=check_rate,
        public_url=public_url or None,
    )
    try:
        with Collection.open(db) as col:  # fail here, with one line, if DB is not a collection
            count = len(col)
            location = str(col.location)  # a URL's password is shown as ***
    except NeardupError as exc:
        raise exc.reworded(hide_password(db, str(exc))) from None
    _check_listen(host, port)
    if port == 0:
        port = _free_port(host)
    shown = "localhost" if host in ("127.0.0.1", "::1") else host
    from neardup.cli.messages import say

    banner = say(
        "serve_banner",
        location=location,
        count=count,
        url=f"http://{shown}:{port}/",
        writes=say("serve_token" if token else "serve_writes_off"),
        reads=say("serve_reads_open" if reads == "open" else "serve_token"),
    )
    stopped = threading.Event()
    announcer = threading.Thread(target=_announce, args=(host, port, banner, stopped), daemon=True)
    announcer.start()
    os.environ.update(config.to_env())
    try:
        uvicorn.run(  # type: ignore[attr-defined]
            "neardup.web.app:app_from_env",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level=log_level,
            access_log=log_level in ("info", "debug"),
        )
    finally:
        stopped.set()
        announcer.join(timeout=5)


def hide_password(db: str, message: str) -> str:
    """``message`` with the password of the URL ``db`` (if any) shown as ``***``."""
    try:
        password = urlsplit(db).password
    except ValueError:
        return message
    return message.replace(password, "***") if password else message


def _check_listen(host: str, port: int) -> None:
    """Refuse, with one line, an address this machine cannot listen on (uvicorn would only
    log it and exit), and a port already taken."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise InputError(
            f"--host {brief(host, 60)!r}: not an address of this machine ({brief(exc, 80)}); "
            "give one such as 127.0.0.1, or 0.0.0.0 for every interface",
            code="bad_host",
            params={"host": brief(host, 60)},
        ) from None
    family, kind, proto, _, address = infos[0]
    try:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as exc:
        taken = exc.errno == errno.EADDRINUSE
        raise InputError(
            f"--port {port} is taken on {host}; choose another port, or 0 for any free one"
            if taken
            else f"--host {brief(host, 60)!r}: cannot listen there ({exc.strerror or exc}); "
            "give an address of this machine, such as 127.0.0.1 or 0.0.0.0",
            code="port_taken" if taken else "bad_host",
            params={"host": brief(host, 60), "port": port},
        ) from None


def _free_port(host: str) -> int:
    """A free port on ``host`` (0 when ``host`` cannot be bound: uvicorn then says why)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family) as s:
            s.bind((host, 0))
            return int(s.getsockname()[1])
    except (OSError, OverflowError, UnicodeError):
        return 0


def _announce(host: str, port: int, banner: str, stopped: threading.Event) -> None:
    """Print the banner once the server answers a request (not when it starts loading: the
    first start of a worker loads dictionaries and kernels, which can take minutes); give up
    when the server has stopped."""
    target = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    while not stopped.is_set():
        connection = http.client.HTTPConnection(target, port, timeout=5)
        try:
            connection.request("GET", "/static/app.css")
            connection.getresponse().read()
        except (OSError, http.client.HTTPException):
            stopped.wait(0.2)
            continue
        finally:
            connection.close()
        if not stopped.is_set():
            click.echo(banner, err=True)
        return


COMMANDS = [serve]

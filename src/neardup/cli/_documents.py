"""The CLI's side of reading inputs: the reader options, warnings and skipped-file reports.

Every command reads through :mod:`neardup.inputs`; this module only turns its flags into
the reader's keywords and prints what the reader has to say (one line each, on stderr).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

import click

from neardup.analysis.decode import Decoded
from neardup.cli.messages import say
from neardup.inputs import (
    DEFAULT_MAX_BYTES,
    CorpusReader,
    describe_skipped,
    read_text_input,
)

F = TypeVar("F", bound=Callable[..., Any])

_UNITS = {"": 1, "k": 1024, "kib": 1024, "m": 1024**2, "mib": 1024**2, "g": 1024**3, "gib": 1024**3}


class ByteSize(click.ParamType):
    """A number of bytes: ``1000``, ``64M``/``64MiB``, ``1G`` (binary units)."""

    name = "bytes"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            match = re.fullmatch(r"\s*(\d{1,15})\s*([a-zA-Z]*)\s*", str(value))
            unit = match.group(2).lower() if match else ""
            if match is None or unit not in _UNITS:
                self.fail(f"{value!r} is not a size such as 1000, 64M or 1G", param, ctx)
            number = int(match.group(1)) * _UNITS[unit]
        if number < 1:
            self.fail(f"the size must be at least 1 byte, got {value!r}", param, ctx)
        return number


def reader_options(func: F) -> F:
    """Add ``--max-bytes`` and ``--strict-decoding`` (popped by :func:`read_options`)."""
    func = click.option(
        "--strict-decoding",
        is_flag=True,
        help="Refuse a file with invalid UTF-8 bytes instead of replacing them by U+FFFD.",
    )(func)
    return click.option(
        "--max-bytes",
        type=ByteSize(),
        default=f"{DEFAULT_MAX_BYTES // 1024**2}M",
        show_default=True,
        help="The largest text (file, dataset line) read; larger ones are refused.",
    )(func)


def warn(message: str) -> None:
    """A reader's warning, one line on stderr."""
    click.echo(say("warning", detail=message), err=True)


def read_options(options: dict[str, Any]) -> dict[str, Any]:
    """Pop the reader flags out of a command's keyword arguments: the reader's keywords."""
    return {
        "max_bytes": options.pop("max_bytes"),
        "strict_decoding": options.pop("strict_decoding"),
        "on_warning": warn,
    }


def read_input(path: str, options: dict[str, Any] | None = None) -> Decoded:
    """One text (``-`` is standard input) under the reader keywords of :func:`read_options`."""
    options = options or {}
    return read_text_input(path, **options)


def report_skipped(reader: CorpusReader) -> None:
    """Say on stderr what the reader skipped in folders, one line per reason."""
    for line in describe_skipped(reader.skipped):
        click.echo(say("warning", detail=line), err=True)

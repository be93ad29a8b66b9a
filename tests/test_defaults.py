"""Every default and bound the three entry points share is the one in :mod:`neardup.defaults`.

Walks the CLI's click options (every command of ``neardup.cli.main``), the web API's request
models and form fields (the routes of :mod:`neardup.web`), and the library's signatures, and
compares each parameter named like a field of :class:`~neardup.defaults.Defaults` (or mapped to
one in ``ALIASES``) with it; ``top`` is bounded by :data:`~neardup.defaults.TOP_MAX` everywhere.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Iterator
from dataclasses import fields
from typing import Any

import click
import pytest
from annotated_types import Ge, Le
from fastapi.routing import APIRoute
from pydantic import BaseModel
from pydantic.fields import FieldInfo

import neardup
from neardup.cli.main import cli
from neardup.corpus import DedupOptions
from neardup.defaults import DEFAULTS, TOP_MAX
from neardup.spec import IndexSpec
from neardup.web import api, kept, pages

NAMES = {f.name for f in fields(DEFAULTS)}

#: Parameters named apart from their field: (where, name) → the field of ``Defaults``.
ALIASES = {
    ("compare", "method"): "score",
    ("matrix", "method"): "matrix",
    ("neardup.compare", "method"): "score",
    ("neardup.similarity_matrix", "method"): "matrix",
    ("/api/matrix", "method"): "matrix",
    ("neardup.Aligner", "k"): "align_k",
}
#: Parameters that share a name with a field but mean something else, each with why.
OTHER_MEANING = {
    # the Bloom filter's own: a score threshold in shared bits, matches shown, hash functions
    ("bloom build", "threshold"),
    ("bloom query", "threshold"),
    ("bloom query", "top"),
    ("bloom size", "k"),
    # the method evaluated and the evaluation's decision threshold, not a default of a check
    ("eval clusters", "method"),
    ("eval clusters", "threshold"),
    ("eval fragments", "method"),
    ("eval pairs", "method"),
    ("eval pairs", "threshold"),
    # which measure `index check` reports, not how two texts are scored
    ("index check", "method"),
    # the dedup job's LSH window (DedupOptions.window), not a collection's winnowing window
    ("dedup", "window"),
    ("DedupOptions", "window"),
}


def expected(where: str, name: str) -> str | None:
    """The field of ``Defaults`` a parameter must equal, or None when it is not one."""
    if (where, name) in OTHER_MEANING:
        return None
    if (where, name) in ALIASES:
        return ALIASES[(where, name)]
    return name if name in NAMES else None


# --- the CLI --------------------------------------------------------------------------------


def commands() -> Iterator[tuple[str, click.Command]]:
    ctx = click.Context(cli)

    def walk(group: click.Group, path: list[str]) -> Iterator[tuple[str, click.Command]]:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            if isinstance(command, click.Group):
                yield from walk(command, [*path, name])
            else:
                yield " ".join([*path, name]), command

    yield from walk(cli, [])


def cli_default(option: click.Parameter) -> Any:
    default = option.default
    if isinstance(option, click.Option) and option.is_flag and not isinstance(default, bool):
        return False  # a flag given no default is off
    return default


CLI_OPTIONS = [
    (where, option)
    for where, command in commands()
    for option in command.params
    if option.name is not None and expected(where, option.name) is not None
]


def test_the_cli_is_walked() -> None:
    found = {(where, option.name) for where, option in CLI_OPTIONS}
    assert {("index check", "top"), ("compare", "fragments"), ("params", "threshold")} <= found
    assert len(CLI_OPTIONS) > 50


@pytest.mark.parametrize(
    "where, option", CLI_OPTIONS, ids=[f"{w}--{o.name}" for w, o in CLI_OPTIONS]
)
def test_cli_defaults(where: str, option: click.Parameter) -> None:
    assert option.name is not None
    field = expected(where, option.name)
    assert field is not None
    default = cli_default(option)
    if default is not None:  # None: the option's own rule (an explicit -k turns a rule off)
        assert default == getattr(DEFAULTS, field), f"neardup {where} --{option.name}"
    if field == "top":
        assert isinstance(option.type, click.IntRange)
        assert (option.type.min, option.type.max) == (1, TOP_MAX)


# --- the web API ----------------------------------------------------------------------------


def bounds(info: FieldInfo) -> tuple[Any, Any]:
    low = next((m.ge for m in info.metadata if isinstance(m, Ge)), None)
    high = next((m.le for m in info.metadata if isinstance(m, Le)), None)
    return low, high


def route_fields(endpoint: Callable[..., Any]) -> Iterator[tuple[str, Any, FieldInfo | None]]:
    """``(name, default, field info)`` of every field a route reads: its model's fields, its
    form and query parameters."""
    hints = typing.get_type_hints(endpoint, include_extras=True)
    for name, param in inspect.signature(endpoint).parameters.items():
        hint = hints.get(name)
        if isinstance(hint, type) and issubclass(hint, BaseModel):
            for field_name, info in hint.model_fields.items():
                yield field_name, info.get_default(call_default_factory=True), info
        elif typing.get_origin(hint) is typing.Annotated:
            info = next((m for m in hint.__metadata__ if isinstance(m, FieldInfo)), None)
            yield name, param.default, info


API_FIELDS = [
    (route.path, name, default, info)
    for router in (api.router, kept.router, pages.router)
    for route in router.routes
    if isinstance(route, APIRoute)
    for name, default, info in route_fields(route.endpoint)
    if expected(route.path, name) is not None
]


def test_the_api_is_walked() -> None:
    found = {(path, name) for path, name, _, _ in API_FIELDS}
    assert {("/api/check", "top"), ("/api/check/file", "top"), ("/api/matrix", "method")} <= found


@pytest.mark.parametrize(
    "path, name, default, info", API_FIELDS, ids=[f"{p}:{n}" for p, n, _, _ in API_FIELDS]
)
def test_api_defaults(path: str, name: str, default: Any, info: FieldInfo | None) -> None:
    field = expected(path, name)
    assert field is not None
    assert default == getattr(DEFAULTS, field), f"{path} {name}"
    if field == "top":
        assert info is not None and bounds(info) == (1, TOP_MAX)


# --- the library ----------------------------------------------------------------------------

LIBRARY: dict[str, Callable[..., Any]] = {
    "neardup.compare": neardup.compare,
    "neardup.similarity_matrix": neardup.similarity_matrix,
    "neardup.dedup": neardup.dedup,
    "DedupOptions": DedupOptions,
    "neardup.LSHIndex": neardup.LSHIndex,
    "neardup.Aligner": neardup.Aligner,
    "IndexSpec": IndexSpec,
    "Collection.check": neardup.Collection.check,
    "Collection.add": neardup.Collection.add,
}

LIBRARY_PARAMS = [
    (where, name, param.default)
    for where, function in LIBRARY.items()
    for name, param in inspect.signature(function).parameters.items()
    if param.default is not inspect.Parameter.empty and expected(where, name) is not None
]


def test_the_library_is_walked() -> None:
    found = {(where, name) for where, name, _ in LIBRARY_PARAMS}
    assert {
        ("neardup.compare", "method"),
        ("Collection.check", "top"),
        ("neardup.LSHIndex", "threshold"),
        ("IndexSpec", "threshold"),
        ("DedupOptions", "threshold"),
    } <= found


@pytest.mark.parametrize(
    "where, name, default", LIBRARY_PARAMS, ids=[f"{w}:{n}" for w, n, _ in LIBRARY_PARAMS]
)
def test_library_defaults(where: str, name: str, default: Any) -> None:
    field = expected(where, name)
    assert field is not None
    assert default == getattr(DEFAULTS, field), f"{where}({name}=...)"


def test_top_max_is_a_count() -> None:
    assert 1 <= DEFAULTS.top <= TOP_MAX

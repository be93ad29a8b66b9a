"""Click option types built from the constraints the specs declare (neardup._constraints),
so an option accepts exactly what its spec field accepts, with the same bounds."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any, TypeVar

import click

from neardup._constraints import Constraint, Integer, OneOf, Real, constraint_of

F = TypeVar("F", bound=Callable[..., Any])

#: The most of anything countable an option takes (documents, matches, batch sizes, sizes).
MAX_COUNT = 1_000_000_000
#: A count of at least 1 / 0, bounded.
COUNT = click.IntRange(1, MAX_COUNT)
#: The most workers a command's ``--jobs`` takes.
MAX_JOBS = 1024
#: A share or similarity in [0, 1].
SHARE = Real(0.0, 1.0)


class FiniteFloatRange(click.FloatRange):
    """A :class:`click.FloatRange` that also refuses NaN and infinities."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


def constraint_type(constraint: Constraint) -> click.ParamType:
    """The click type that accepts what ``constraint`` accepts."""
    if isinstance(constraint, Integer):
        return click.IntRange(constraint.low, constraint.high)
    if isinstance(constraint, Real):
        return FiniteFloatRange(
            constraint.low,
            constraint.high,
            min_open=constraint.low_open,
            max_open=constraint.high_open,
        )
    if isinstance(constraint, OneOf) and all(isinstance(o, str) for o in constraint.options):
        return click.Choice(constraint.options)
    raise TypeError(f"no click type for {constraint!r}")


def field_type(cls: type, name: str) -> click.ParamType:
    """The click type of field ``name`` of the spec dataclass ``cls``."""
    return constraint_type(constraint_of(cls, name))


def field_option(cls: type, name: str, *decls: str, help: str) -> Callable[[F], F]:
    """A click option for field ``name`` of the spec dataclass ``cls``: its type, bounds and
    default are the field's (shown in the help), so the option cannot drift from the spec."""
    return click.option(
        *decls,
        type=field_type(cls, name),
        default=field_default(cls, name),
        show_default=True,
        help=help,
    )


def field_default(cls: type, name: str) -> Any:
    """The default of field ``name`` of the spec dataclass ``cls``, so an option's default is
    the spec's and cannot drift from it."""
    return next(f.default for f in dataclasses.fields(cls) if f.name == name)

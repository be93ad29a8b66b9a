"""Parameter constraints, declared once beside each field and used everywhere a value comes in.

A spec's dataclass fields carry their constraint in the field metadata (:func:`param`); the
spec's ``__post_init__`` runs :func:`check_fields`, ``from_dict`` runs :func:`from_mapping`
(which refuses unknown keys by name), and the CLI builds its option types from the same
objects (:mod:`neardup.cli._types`), so a bound is written in one place.

Rules every constraint keeps: ``bool`` is not an integer or a number (``True`` is refused
where a count is expected); numbers must be finite; every numeric parameter has an upper
bound, so a huge value is a clear error here rather than an overflow deep in a kernel. A
refusal names the field, what was expected and what came.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

from neardup.errors import NeardupError, SpecError

#: The metadata key a field's constraint is stored under.
KEY = "neardup_constraint"
LABEL = "neardup_label"

T = TypeVar("T")


def _shown(value: Any) -> str:
    """``value`` as the error shows it (long values cut, so a message stays one line)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True)
class Integer:
    """An ``int`` (not a ``bool``) in ``[low, high]``."""

    low: int
    high: int

    def accepts(self, value: Any) -> bool:
        return (
            isinstance(value, int)
            and not isinstance(value, bool)
            and self.low <= value <= self.high
        )

    def describe(self) -> str:
        return f"an integer in [{self.low}, {self.high}]"


@dataclass(frozen=True)
class Real:
    """A finite ``int`` or ``float`` (not a ``bool``) between ``low`` and ``high``; either end
    may be open."""

    low: float
    high: float
    low_open: bool = False
    high_open: bool = False

    def accepts(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        number = float(value)
        if not math.isfinite(number):
            return False
        above = number > self.low if self.low_open else number >= self.low
        below = number < self.high if self.high_open else number <= self.high
        return above and below

    def describe(self) -> str:
        left = "(" if self.low_open else "["
        right = ")" if self.high_open else "]"
        return f"a number in {left}{self.low:g}, {self.high:g}{right}"


@dataclass(frozen=True)
class OneOf:
    """One of a fixed set of values (strings, or ints such as widths); ``True`` is not ``1``."""

    options: tuple[Any, ...]

    def accepts(self, value: Any) -> bool:
        return any(type(value) is type(option) and value == option for option in self.options)

    def describe(self) -> str:
        return "one of " + ", ".join(
            repr(o) if isinstance(o, str) else str(o) for o in self.options
        )


@dataclass(frozen=True)
class Boolean:
    """``True`` or ``False`` (not ``0``/``1``, not a string)."""

    def accepts(self, value: Any) -> bool:
        return isinstance(value, bool)

    def describe(self) -> str:
        return "true or false"


Constraint = Integer | Real | OneOf | Boolean


def param(default: Any, constraint: Constraint, *, label: str | None = None) -> Any:
    """A dataclass field with its default and its constraint (in the field's metadata);
    ``label`` names the field in errors (default: the field's name)."""
    metadata: dict[str, Any] = {KEY: constraint}
    if label is not None:
        metadata[LABEL] = label
    return field(default=default, metadata=metadata)


def constraint_of(cls: type, name: str) -> Constraint:
    """The constraint declared on field ``name`` of the dataclass ``cls``."""
    for f in fields(cls):
        if f.name == name and KEY in f.metadata:
            constraint: Constraint = f.metadata[KEY]
            return constraint
    raise KeyError(f"{cls.__name__} declares no constraint on {name!r}")


def check(
    name: str, value: Any, constraint: Constraint, error: type[NeardupError] = SpecError
) -> None:
    """Raise ``error`` naming ``name``, what was expected and what came, unless accepted."""
    if not constraint.accepts(value):
        raise error(f"{name} must be {constraint.describe()}, got {_shown(value)}")


def check_fields(obj: Any, what: str, error: type[NeardupError] = SpecError) -> None:
    """Check every field of the dataclass instance ``obj`` that declares a constraint."""
    for f in fields(obj):
        constraint = f.metadata.get(KEY)
        if constraint is not None:
            label = f.metadata.get(LABEL) or f"{what} {f.name}"
            check(label, getattr(obj, f.name), constraint, error)


def from_mapping(cls: type[T], data: Any, what: str) -> T:
    """``cls(**data)`` after refusing a non-mapping and any key that is not a field of ``cls``."""
    if not isinstance(data, Mapping):
        raise SpecError(f"{what} must be an object, got {_shown(data)}")
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    refuse_unknown(data, known, what)
    return cls(**data)


def refuse_unknown(data: Mapping[Any, Any], known: Iterable[str], what: str) -> None:
    """Raise :class:`SpecError` naming every key of ``data`` that is not in ``known``."""
    allowed = set(known)
    unknown = sorted(repr(k) if not isinstance(k, str) else k for k in data if k not in allowed)
    if unknown:
        raise SpecError(
            f"unknown {what} keys: {', '.join(unknown)}; expected some of "
            + ", ".join(sorted(allowed))
        )

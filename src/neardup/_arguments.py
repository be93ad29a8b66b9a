"""The public API's failures on arguments of the wrong type, as neardup's errors: a value of
the wrong type is a :class:`~neardup.errors.WrongTypeError` naming the call, the parameter
and the type it takes, rather than a ``TypeError`` or ``AttributeError`` from deep inside.

:func:`checked` wraps one function; :func:`public` every public method of a class (and its
constructor). The arguments are checked against the type hints only when the call fails with
one of Python's own errors (see :func:`checked`), so a call that succeeds pays nothing. The
check is shallow: a container's type and, when it is a list, tuple or dict already in memory,
its items; an array is an array (its dtype and shape are the callee's to check, with its own
words). A hint that cannot be resolved at run time checks nothing.
"""

from __future__ import annotations

import builtins
import collections.abc
import functools
import inspect
import numbers
import os
import sys
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

from neardup.errors import InputError, NeardupError, WrongTypeError

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

#: Items of an in-memory container checked, at most (a longer one is checked by its first).
_ITEMS = 10_000
_ANY = object()  # a hint that checks nothing


#: Where a name that a module imports for type checkers only is found at run time.
_ELSEWHERE = (
    "neardup",
    "neardup.fingerprints.pipeline",
    "neardup.index.results",
    "neardup.index.checking",
    "neardup.analysis.analyzed",
)


class _Names(dict[str, Any]):
    """A module's names, and the names it imports for type checkers only (from
    :data:`_ELSEWHERE`, already imported by the time a public call is made)."""

    def __missing__(self, name: str) -> Any:

        for module in _ELSEWHERE:
            found = getattr(sys.modules.get(module), name, None)
            if found is not None:
                return found
        raise KeyError(name)


def _resolve(text: str, namespace: dict[str, Any]) -> Any:
    """A hint from its text: ``_ANY`` when any part of it cannot be resolved."""
    names = _Names({**vars(typing), **vars(builtins), **namespace})
    try:
        return eval(text, {}, names)  # noqa: S307 - a type hint of neardup's own source
    except Exception:  # noqa: BLE001 - a name for type checkers only
        return _ANY


def _hints(func: Callable[..., Any]) -> dict[str, Any]:
    namespace = dict(getattr(func, "__globals__", {}))
    out: dict[str, Any] = {}
    for name, hint in getattr(func, "__annotations__", {}).items():
        if name == "return":
            continue
        out[name] = _resolve(hint, namespace) if isinstance(hint, str) else hint
    return out


def _is_bool(value: object) -> bool:
    """A bool, or numpy's (numpy is not imported for it: ``import neardup`` stays light)."""
    kind = type(value)
    return kind is bool or (kind.__name__ == "bool_" and kind.__module__ == "numpy")


def _is_array(value: object) -> bool:
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.ndarray)


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not _is_bool(value)


def _is_real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not _is_bool(value)


def _items_match(items: Any, hint: Any) -> bool:
    return all(matches(item, hint) for item in list(items)[:_ITEMS])


def _generic_matches(value: object, origin: Any, args: tuple[Any, ...]) -> bool:
    if origin in (typing.Union, types.UnionType):
        return any(matches(value, a) for a in args)
    if origin in (typing.IO, typing.TextIO, typing.BinaryIO):
        return hasattr(value, "write") or hasattr(value, "read")
    special = _SPECIAL.get(origin)
    if special is not None:
        return special(value, args)
    if getattr(origin, "__module__", "") == "numpy" and origin.__name__ == "ndarray":
        return _is_array(value)
    if not isinstance(origin, type):
        return True
    try:
        if not isinstance(value, origin):
            return False
    except TypeError:  # a protocol not checkable at run time
        return True
    if isinstance(value, str | bytes) or not args:
        return True
    return _container_matches(value, origin, args)


def _container_matches(value: object, origin: type, args: tuple[Any, ...]) -> bool:
    """The items of a container already in memory against the hint's item types."""
    if isinstance(value, dict) and len(args) == 2:
        return _items_match(value.keys(), args[0]) and _items_match(value.values(), args[1])
    if isinstance(value, tuple) and origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _items_match(value, args[0])
        return len(value) == len(args) and all(matches(v, a) for v, a in zip(value, args))
    if isinstance(value, list | tuple | set | frozenset) and len(args) == 1:
        return _items_match(value, args[0])
    return True


#: Generic hints that are not containers: how each is checked.
_SPECIAL: dict[Any, Callable[[object, tuple[Any, ...]], bool]] = {
    # which of the values: the callee says, in its own words
    typing.Literal: lambda value, args: any(type(value) is type(a) for a in args),
    typing.Annotated: lambda value, args: matches(value, args[0]),
    type: lambda value, args: isinstance(value, type),
    collections.abc.Callable: lambda value, args: callable(value),
}


def matches(value: object, hint: Any) -> bool:
    """Whether ``value`` is of the type ``hint`` says (see the module's text for how deep)."""
    if hint is _ANY or hint is Any or hint is object or isinstance(hint, TypeVar):
        return True
    if hint is None or hint is type(None):
        return value is None
    origin = typing.get_origin(hint)
    if origin is not None:
        return _generic_matches(value, origin, typing.get_args(hint))
    if hint is int:
        return _is_int(value)
    if hint is float:
        return _is_real(value)
    if hint is bool:
        return _is_bool(value)
    if hint is os.PathLike:
        return isinstance(value, os.PathLike)
    if hint in (typing.IO, typing.TextIO, typing.BinaryIO):
        return hasattr(value, "write") or hasattr(value, "read")
    if not isinstance(hint, type):
        return True
    try:
        return isinstance(value, hint)
    except TypeError:  # a protocol not checkable at run time
        return True


def describe(hint: Any) -> str:
    """A hint as a reader would write it."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(describe(a) for a in typing.get_args(hint))
    if hint is None or hint is type(None):
        return "None"
    if getattr(origin or hint, "__name__", "") == "ndarray":
        return "a numpy array"
    if origin is not None:
        return getattr(origin, "__name__", str(origin))
    return getattr(hint, "__name__", str(hint))


def _what(value: object) -> str:
    shown = repr(value)
    shown = shown if len(shown) <= 40 else shown[:39] + "…"
    return f"{type(value).__name__} {shown}"


def _is_path(hint: Any) -> bool:
    """Whether a hint takes a path (``os.PathLike`` among its types)."""
    if hint is os.PathLike:
        return True
    return any(_is_path(a) or typing.get_origin(a) is os.PathLike for a in typing.get_args(hint))


def _path_refused(name: str, param: str, value: str) -> InputError | None:
    """A path's string that the file system cannot be given (a NUL, a lone surrogate its
    encoding cannot carry), refused; else ``None``."""
    try:
        os.fsencode(value)
    except UnicodeEncodeError:
        return InputError(
            f"{name}: {param} {value[:80]!r} is not a valid file name (it holds a lone surrogate)"
        )
    if "\x00" in value:
        return InputError(f"{name}: {param} {value[:80]!r} is not a valid file name (it holds NUL)")
    return None


#: What Python raises deep inside a call given a value of the wrong kind.
_WRONG_KIND = (TypeError, AttributeError, ValueError, KeyError, IndexError, OverflowError)


class _Checker:
    """The parameters of one function and their hints (resolved at the first failure)."""

    def __init__(self, func: Callable[..., Any]) -> None:
        self.func = func
        self.signature = inspect.signature(func)
        self.name = func.__qualname__.replace(".__init__", "")
        self._hints: dict[str, Any] | None = None

    def wrong(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> InputError | None:
        """The error for the first argument of the wrong type (or that the function does not
        take), or ``None`` when every argument is of its type."""
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            return WrongTypeError(f"{self.name}: {exc}")
        if self._hints is None:
            self._hints = _hints(self.func)
        for param, value in bound.arguments.items():
            hint = self._hints.get(param, _ANY)
            kind = self.signature.parameters[param].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                wrong = next((v for v in value if not matches(v, hint)), _ANY)
            elif kind is inspect.Parameter.VAR_KEYWORD:
                wrong = next((v for v in value.values() if not matches(v, hint)), _ANY)
            else:
                wrong = _ANY if matches(value, hint) else value
            if wrong is not _ANY:
                return WrongTypeError(
                    f"{self.name}: {param} must be {describe(hint)}, got {_what(wrong)}",
                    params={"call": self.name, "parameter": param},
                )
            if isinstance(value, str) and _is_path(hint):
                refused = _path_refused(self.name, param, value)
                if refused is not None:
                    return refused
        return None


def checked(func: F) -> F:
    """``func``, whose failures on arguments of the wrong type are WrongTypeErrors.

    The call runs as it is; only when it fails with what Python raises for a value of the
    wrong kind (a ``TypeError``, ``AttributeError``, ``ValueError`` …, not one of neardup's
    errors) are its arguments checked against its type hints: one of the wrong type (or an
    argument it does not take, or a path no file can have) is then named in a WrongTypeError
    or an InputError, raised from the original error. When every argument is of its type the
    original error goes on as it was (a fault of neardup's own, not hidden). So the checks
    cost nothing on a call that succeeds, and the callee's own refusals keep their words."""
    checker = _Checker(func)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except _WRONG_KIND as exc:
            if isinstance(exc, NeardupError):
                raise
            refused = checker.wrong(args, kwargs)
            if refused is None:
                raise
            raise refused from exc

    return typing.cast(F, wrapper)


def public(cls: type[T]) -> type[T]:
    """``cls`` with its constructor and every public method :func:`checked` (class and static
    methods too); the methods it inherits are its bases' to check."""
    return _public(cls, init=True)


def public_methods(cls: type[T]) -> type[T]:
    """``cls`` with every public method :func:`checked`, its constructor left alone (a spec's
    constructor checks its values itself, with its own words)."""
    return _public(cls, init=False)


def _public(cls: type[T], *, init: bool) -> type[T]:
    for attr, value in list(vars(cls).items()):
        if attr.startswith("_") and not (init and attr == "__init__"):
            continue
        if isinstance(value, staticmethod):
            setattr(cls, attr, staticmethod(checked(value.__func__)))
        elif isinstance(value, classmethod):
            setattr(cls, attr, classmethod(checked(value.__func__)))
        elif inspect.isfunction(value):
            setattr(cls, attr, checked(value))
    return cls

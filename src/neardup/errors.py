"""The one exception tree of neardup.

    NeardupError
    ├── InputError            bad input from the user: a file, a text, an option value
    │   ├── DecodeError       bytes that no supported encoding can decode
    │   ├── DatasetError      a malformed dataset file (says which file and line)
    │   ├── InputTooLargeError a text or file over the size limit (--max-bytes)
    │   ├── TooLargeError     a request or a text over a service's limit (HTTP 413)
    │   ├── UnsupportedTypeError  a file of a kind that is not read (HTTP 415)
    │   ├── InvalidTextError  a text holding a NUL or a lone surrogate, refused (HTTP 422)
    │   ├── TextLengthError   a text outside the length range a collection admits
    │   └── WrongTypeError    an argument of the wrong type to a public call (a TypeError too)
    ├── SpecError             an invalid spec, or one that does not match what was stored
    │   └── SpecMismatchError data made under one spec compared with data of another
    ├── ConfigurationError    an unknown component or preset, a bad component parameter
    ├── MissingDependencyError an optional extra is not installed (says which to install)
    ├── StorageError          a backend failed: locked, read-only, unreachable, corrupt
    │   └── NotFoundError     an id that is not there
    │   └── DuplicateIdError  an id that is already there
    │   └── DamagedCollectionError  a damaged collection, refused before anything is written
    │   └── DamagedFileError  a damaged file neardup wrote (a Bloom filter file), refused
    │   └── DamagedCheckError a service's kept check whose stored row is damaged (HTTP 500)
    └── NotSupportedError     an optional operation a backend or method does not offer

The CLI maps InputError, SpecError and ConfigurationError to exit code 2 and every other
NeardupError to exit code 1, printing the message and never a traceback.

Every error carries a stable ``code`` (its class's, or one given where it is raised) and the
``params`` its words need, so that the page, the CLI and the PDF say it in the reader's
language by its code (:func:`neardup.messages.error_text`) rather than by reading its English
message back; ``str(exc)`` stays the English message the API and ``--json`` give.
"""

from __future__ import annotations

from typing import Any, Self


class NeardupError(Exception):
    """Base of every error neardup raises on purpose.

    ``code``: a stable name of the kind of error, the class's unless the raise gives one;
    ``params``: the values its words need (a count, a limit, a file's kind), given where it is
    raised. Both survive pickling (a worker process's error comes back with them)."""

    code: str = "error"

    def __init__(
        self, *args: object, code: str | None = None, params: dict[str, Any] | None = None
    ) -> None:
        super().__init__(*args)
        if code is not None:
            self.code = code  # the raise's own code over the class's
        self.params: dict[str, Any] = dict(params or {})

    def reworded(self, message: str) -> Self:
        """The same error (class, code and params) with another English message: a message
        that names the file, say."""
        return type(self)(message, code=self.code, params=self.params)


class InputError(NeardupError, ValueError):
    """The input (a file, a text, an option value) is not what was expected."""

    code = "input"


class DecodeError(InputError):
    """Bytes that cannot be decoded as text in any supported encoding."""

    code = "undecodable"


class DatasetError(InputError):
    """A dataset file is malformed; the message names the file and the line."""

    code = "dataset"


class InputTooLargeError(InputError):
    """A text, file or line over the reader's size limit; the message names it and the limit."""

    code = "file_too_large"


class TextLengthError(InputError):
    """A text shorter or longer than a collection admits (``IndexSpec.min_length`` /
    ``max_length``); the message gives its length and the admitted range. Raised by
    ``Collection.add``; batch adds refuse such a text with the reason ``too_short`` or
    ``too_long`` instead, and go on with the rest."""

    code = "text_length"


class WrongTypeError(InputError, TypeError):
    """An argument of the wrong type given to a public call: the message names the call, the
    parameter and the type it takes. A ``TypeError`` as well, so that code catching Python's
    own refusal of a wrong type still catches it."""

    code = "wrong_type"


class SpecError(NeardupError, ValueError):
    """A spec is invalid, or does not match the spec data was made with."""

    code = "spec"


class SpecMismatchError(SpecError):
    """Fingerprints, signatures or an index made under a different spec."""

    code = "spec_mismatch"


class ConfigurationError(NeardupError, ValueError):
    """An unknown component, preset or parameter."""

    code = "configuration"


class MissingDependencyError(NeardupError, ImportError):
    """An optional dependency is missing; the message says which extra to install."""

    code = "missing_dependency"


class StorageError(NeardupError):
    """A storage backend failed: locked, read-only, unreachable or corrupt."""

    code = "storage"


class NotFoundError(StorageError, KeyError):
    """An id that is not in the collection."""

    code = "not_found"

    def __str__(self) -> str:  # KeyError quotes its message; we want it plain
        return str(self.args[0]) if self.args else ""


class DuplicateIdError(StorageError):
    """An id that is already in the collection."""

    code = "duplicate_id"


class TooLargeError(InputError):
    """A request body or a text over the service's limit (HTTP 413)."""

    code = "too_large"


class UnsupportedTypeError(InputError):
    """A file of a kind neardup does not read (HTTP 415)."""

    code = "unsupported_type"


class InvalidTextError(InputError):
    """A text, id or metadata value holding a NUL character or a lone surrogate, which the
    service refuses rather than drops (HTTP 422); the message names the field and the
    position."""

    code = "invalid_text"


class DamagedCollectionError(StorageError):
    """A stored collection whose contents are damaged; nothing is written into it. Its code
    is its base's, ``storage``: a reader is told the store is not available."""


class DamagedFileError(StorageError):
    """A file neardup wrote (a ``.pmbf`` Bloom filter file) that is truncated or damaged; the
    message names the file. Nothing is read from it. Its code is its base's, ``storage``."""


class DamagedCheckError(StorageError):
    """A kept check (``neardup serve``'s ``kept_checks`` row) that cannot be read back: its body
    is not the JSON the service wrote, or a column holds a value of the wrong kind. The message
    names the check and says what is wrong; the check can still be removed."""

    code = "damaged_check"


class NotSupportedError(NeardupError):
    """An optional operation that this backend or method does not provide."""

    code = "not_supported"


def brief(text: object, limit: int = 120) -> str:
    """``text`` fit for one line of an error: white space collapsed, control characters shown
    as ``?``, cut to ``limit`` characters with "…" (a reason quoting raw bytes of a damaged file
    or a whole line of input stays short)."""
    shown = " ".join(str(text).split())
    shown = "".join(c if c.isprintable() else "?" for c in shown)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def require(module: str, extra: str) -> object:
    """Import an optional dependency, or say which extra installs it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{module!r} is needed here but is not installed; "
            f"install it with: pip install 'neardup[{extra}]'"
        ) from exc

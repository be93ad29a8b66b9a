"""The one exception tree of neardup.

    NeardupError
    ├── InputError            bad input from the user: a file, a text, an option value
    │   ├── DecodeError       bytes that no supported encoding can decode
    │   ├── DatasetError      a malformed dataset file (says which file and line)
    │   ├── InputTooLargeError a text or file over the size limit (--max-bytes)
    │   ├── TooLargeError     a request or a text over a service's limit (HTTP 413)
    │   ├── UnsupportedTypeError  a file of a kind that is not read (HTTP 415)
    │   ├── InvalidTextError  a text holding a NUL or a lone surrogate, refused (HTTP 422)
    │   └── TextLengthError   a text outside the length range a collection admits
    ├── SpecError             an invalid spec, or one that does not match what was stored
    │   └── SpecMismatchError data made under one spec compared with data of another
    ├── ConfigurationError    an unknown component or preset, a bad component parameter
    ├── MissingDependencyError an optional extra is not installed (says which to install)
    ├── StorageError          a backend failed: locked, read-only, unreachable, corrupt
    │   └── NotFoundError     an id that is not there
    │   └── DuplicateIdError  an id that is already there
    │   └── DamagedCollectionError  a damaged collection, refused before anything is written
    │   └── DamagedFileError  a damaged file neardup wrote (a Bloom filter file), refused
    └── NotSupportedError     an optional operation a backend or method does not offer

The CLI maps InputError, SpecError and ConfigurationError to exit code 2 and every other
NeardupError to exit code 1, printing the message and never a traceback.
"""

from __future__ import annotations


class NeardupError(Exception):
    """Base of every error neardup raises on purpose."""


class InputError(NeardupError, ValueError):
    """The input (a file, a text, an option value) is not what was expected."""


class DecodeError(InputError):
    """Bytes that cannot be decoded as text in any supported encoding."""


class DatasetError(InputError):
    """A dataset file is malformed; the message names the file and the line."""


class InputTooLargeError(InputError):
    """A text, file or line over the reader's size limit; the message names it and the limit."""


class TextLengthError(InputError):
    """A text shorter or longer than a collection admits (``IndexSpec.min_length`` /
    ``max_length``); the message gives its length and the admitted range. Raised by
    ``Collection.add``; batch adds refuse such a text with the reason ``too_short`` or
    ``too_long`` instead, and go on with the rest."""


class SpecError(NeardupError, ValueError):
    """A spec is invalid, or does not match the spec data was made with."""


class SpecMismatchError(SpecError):
    """Fingerprints, signatures or an index made under a different spec."""


class ConfigurationError(NeardupError, ValueError):
    """An unknown component, preset or parameter."""


class MissingDependencyError(NeardupError, ImportError):
    """An optional dependency is missing; the message says which extra to install."""


class StorageError(NeardupError):
    """A storage backend failed: locked, read-only, unreachable or corrupt."""


class NotFoundError(StorageError, KeyError):
    """An id that is not in the collection."""

    def __str__(self) -> str:  # KeyError quotes its message; we want it plain
        return str(self.args[0]) if self.args else ""


class DuplicateIdError(StorageError):
    """An id that is already in the collection."""


class TooLargeError(InputError):
    """A request body or a text over the service's limit (HTTP 413)."""


class UnsupportedTypeError(InputError):
    """A file of a kind neardup does not read (HTTP 415)."""


class InvalidTextError(InputError):
    """A text, id or metadata value holding a NUL character or a lone surrogate, which the
    service refuses rather than drops (HTTP 422); the message names the field and the
    position."""


class DamagedCollectionError(StorageError):
    """A stored collection whose contents are damaged; nothing is written into it."""


class DamagedFileError(StorageError):
    """A file neardup wrote (a ``.pmbf`` Bloom filter file) that is truncated or damaged; the
    message names the file. Nothing is read from it."""


class NotSupportedError(NeardupError):
    """An optional operation that this backend or method does not provide."""


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

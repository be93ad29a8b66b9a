"""What the reader gives and takes: documents, skipped paths, the reading options and limits."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from neardup.errors import InputError

#: The default limit of one text, file or dataset line, in bytes (64 MiB).
DEFAULT_MAX_BYTES = 64 * 1024 * 1024

#: How many skipped paths a summary names before it says "and N more".
SKIPPED_SHOWN = 3

PathLike = str | os.PathLike[str]
Advance = Callable[[int], None]


class InputDoc(NamedTuple):
    """One document read from an input."""

    id: str
    text: str
    meta: dict[str, Any]


@dataclass(frozen=True)
class Skipped:
    """A folder entry the reader passed over, and why."""

    path: str
    reason: str


@dataclass(frozen=True)
class ReadOptions:
    """How records are read: their fields, the size limit and the decoding policy."""

    id_field: str | None = "id"
    text_field: str = "text"
    max_bytes: int = DEFAULT_MAX_BYTES
    strict_decoding: bool = False
    #: Office files (.docx, .pdf) read as a reader sees them: text hidden in them (hidden runs,
    #: white, tiny, invisible, off the page) kept out and reported (hidden-text evasion); False: all
    #: of it.
    visible_only: bool = True
    #: Called with each warning (replaced bytes); None sends them to :mod:`warnings`.
    on_warning: Callable[[str], None] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.max_bytes, bool) or not isinstance(self.max_bytes, int):
            raise InputError(f"max_bytes must be an integer, got {self.max_bytes!r}")
        if self.max_bytes < 1:
            raise InputError(f"max_bytes must be at least 1, got {self.max_bytes}")
        for name in ("id_field", "text_field"):
            value = getattr(self, name)
            if value is None and name == "id_field":
                continue
            if not isinstance(value, str) or not value:
                raise InputError(f"{name} must be a non-empty string, got {value!r}")

    def warn(self, message: str) -> None:
        if self.on_warning is not None:
            self.on_warning(message)
        else:
            warnings.warn(message, UnicodeWarning, stacklevel=3)

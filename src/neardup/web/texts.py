"""Characters no text the service takes may hold: lone surrogates (half of a UTF-16 pair,
which JSON's ``"\\ud800"`` escapes can carry but UTF-8 cannot encode) and NUL (which
PostgreSQL cannot store). They are refused with a 422 naming the field and the position,
never dropped silently: a text is stored, checked and answered exactly as it was given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from neardup.errors import InvalidTextError

_BAD = re.compile("[\x00\ud800-\udfff]")

__all__ = ["InvalidTextError", "bad_character", "refuse_bad_characters", "safe_text"]


def bad_character(text: str) -> tuple[int, str] | None:
    """The position and code (``U+D800``) of the first refused character, or None."""
    found = _BAD.search(text)
    if found is None:
        return None
    return found.start(), f"U+{ord(found.group()):04X}"


def refuse_bad_characters(value: Any, what: str = "the text") -> None:
    """Raise :class:`InvalidTextError` if ``value`` (a string, or strings nested in lists and
    mappings, keys included) holds a NUL or a lone surrogate."""
    if isinstance(value, str):
        bad = bad_character(value)
        if bad is None:
            return
        position, char = bad
        kind = "a NUL character" if char == "U+0000" else f"a lone surrogate ({char})"
        raise InvalidTextError(
            f"{what} holds {kind} at position {position:,}; texts must be valid Unicode "
            "without NUL characters or lone surrogates",
            params={"char": "NUL" if char == "U+0000" else char, "position": position},
        )
    if isinstance(value, Mapping):
        for key, item in value.items():
            refuse_bad_characters(key, f"a key of {what}")
            refuse_bad_characters(item, f"{what}[{safe_text(str(key))!r}]")
    elif isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        for index, item in enumerate(value):
            refuse_bad_characters(item, f"{what}[{index}]")


def safe_text(text: str) -> str:
    """``text`` with its refused characters shown as escapes (for messages that quote it)."""
    return _BAD.sub(lambda m: f"\\u{ord(m.group()):04x}", text)

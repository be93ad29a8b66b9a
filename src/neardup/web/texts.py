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


#: The invisible controls of text direction (the embeddings, overrides and isolates, and the
#: marks): in an id or a name they make it display as something else ("id", U+202E,
#: "gpj.exe" shows as "idexe.jpg").
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")
#: An id's pattern in the API's schema: not empty or only spaces, and no direction control.
ID_PATTERN = f"^[^{BIDI_CONTROLS}]*[^\\s{BIDI_CONTROLS}][^{BIDI_CONTROLS}]*$"


def bidi_control(text: str) -> tuple[int, str] | None:
    """The position and code (``U+202E``) of the first direction control in ``text``."""
    found = _BIDI.search(text)
    return None if found is None else (found.start(), f"U+{ord(found.group()):04X}")


def refuse_bidi(value: Any, what: str = "the id") -> None:
    """Raise :class:`~neardup.errors.InputError` (code ``bidi_id``) if ``value`` (a string or
    strings in a list) holds a direction control."""
    from neardup.errors import InputError

    for item in [value] if isinstance(value, str) else list(value):
        found = bidi_control(item)
        if found is not None:
            position, char = found
            raise InputError(
                f"{what} holds an invisible text-direction control ({char} at position "
                f"{position:,}), which would show it as something it is not; remove it",
                code="bidi_id",
                params={"char": char, "position": position},
            )


def check_id_value(value: str) -> str:
    """An API id field's validator: not blank, no direction control (a clear message each)."""
    if not value.strip():
        raise ValueError("an id must not be empty or only spaces")
    found = bidi_control(value)
    if found is not None:
        raise ValueError(
            f"the id holds an invisible text-direction control ({found[1]} at position "
            f"{found[0]:,}), which would show it as something it is not"
        )
    return value

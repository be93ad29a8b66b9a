"""The kinds of edit and of negative pair, their defaults, and the patterns words and sentences
are found by."""

from __future__ import annotations

import re
from collections.abc import Callable

from neardup.errors import ConfigurationError

#: Bumped when the same parameters would generate different data.
GENERATOR_VERSION = 1

WORD_RE = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
# a sentence ends at . ! ? … (optionally followed by a closing quote or bracket) and whitespace,
# or at a line break
SENTENCE_SEP_RE = re.compile(r"(?:(?<=[.!?…])|(?<=[.!?…][\"»”)\]]))\s+|\n\s*")

WORD_EDITS = ("substitute", "insert", "delete", "inflect", "synonym")
TEXT_EDITS = ("reorder", "boilerplate")
EDITS = WORD_EDITS + TEXT_EDITS
ALIASES = {"mixed": ("substitute", "insert", "delete")}

DEFAULT_KINDS = ("mixed", "reorder", "inflect", "synonym", "inflect+synonym", "boilerplate")
DEFAULT_LEVELS = (0.05, 0.1, 0.2, 0.3, 0.5)
NEGATIVE_KINDS = ("random", "same_source", "same_topic", "rare_words", "same_boilerplate")
NGRAM_FILTER = 8

Progress = Callable[[int], None] | None


def parse_kind(kind: str) -> tuple[str, ...]:
    """The base edits of a kind such as ``mixed`` or ``inflect+synonym``."""
    parts: list[str] = []
    for part in kind.split("+"):
        part = part.strip()
        expanded = ALIASES.get(part, (part,))
        for edit in expanded:
            if edit not in EDITS:
                known = ", ".join((*EDITS, *ALIASES))
                raise ConfigurationError(f"unknown edit {part!r} in kind {kind!r}; known: {known}")
            if edit not in parts:
                parts.append(edit)
    if not parts:
        raise ConfigurationError(f"empty edit kind {kind!r}")
    return tuple(parts)

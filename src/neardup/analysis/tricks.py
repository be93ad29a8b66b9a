"""What the ``fold`` filter found in a text: the tricks used to get a copy past a uniqueness
checker (:mod:`neardup.analysis.evasion` finds and neutralizes them).

A :class:`Tricks` lists each kind found with how many characters and words it touched and where
(half-open spans in the original text), and says whether the text is :attr:`~Tricks.suspicious`:
a little of a kind happens in honest text (a soft hyphen, a Latin letter typed by mistake), so a
kind counts only past its threshold (:data:`SUSPICIOUS_AT`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The kinds of tricks, in the order a report lists them.
KINDS = ("homoglyph", "invisible", "letter_spacing", "stuffing")

#: How much of a kind makes a text suspicious: words for ``homoglyph`` and ``letter_spacing``
#: (a letter-spaced run is one or more words), characters for the others. Below it the kind
#: is still folded and listed.
SUSPICIOUS_AT = {"homoglyph": 2, "invisible": 3, "letter_spacing": 1, "stuffing": 2}


@dataclass(frozen=True)
class Trick:
    """One kind of trick in a text: ``chars`` characters changed or removed, in ``words``
    words, at ``spans`` (half-open character spans of the original text, in text order)."""

    kind: str
    chars: int
    words: int
    spans: tuple[tuple[int, int], ...]

    @property
    def suspicious(self) -> bool:
        amount = self.words if self.kind in ("homoglyph", "letter_spacing") else self.chars
        return amount >= SUSPICIOUS_AT[self.kind]

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "chars": self.chars,
            "words": self.words,
            "spans": [list(span) for span in self.spans],
            "suspicious": self.suspicious,
        }


@dataclass(frozen=True)
class Tricks:
    """The tricks found in a text, one :class:`Trick` per kind found (none for a clean text)."""

    found: tuple[Trick, ...] = field(default=())

    def __bool__(self) -> bool:
        return bool(self.found)

    @property
    def suspicious(self) -> bool:
        """Whether some kind is past its threshold: the copy was made to evade."""
        return any(trick.suspicious for trick in self.found)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(trick.kind for trick in self.found)

    def get(self, kind: str) -> Trick | None:
        """The trick of ``kind``, or ``None`` when the text has none."""
        for trick in self.found:
            if trick.kind == kind:
                return trick
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "suspicious": self.suspicious,
            "tricks": [trick.to_dict() for trick in self.found],
        }


#: The result of a text with no tricks.
NONE = Tricks()

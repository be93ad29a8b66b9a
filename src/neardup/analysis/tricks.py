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

#: How much of a kind makes a text suspicious: at least so many words (letters for
#: ``letter_spacing``) and at least such a share of the text's words (letters). Honest text has
#: a little of each — a Latin ``c`` typed for ``с``, a formula such as ``Xэкв``, soft hyphens
#: of a web page, a letter-spaced heading or signature — and a copy made to evade has much
#: (chosen on ru_news, Reuters and 20 Newsgroups: docs/quality.md). Below it the kind is
#: still folded and listed.
SUSPICIOUS_AT: dict[str, tuple[int, float]] = {
    "homoglyph": (3, 0.03),
    "invisible": (3, 0.10),
    "letter_spacing": (40, 0.02),
    "stuffing": (3, 0.03),
}


@dataclass(frozen=True)
class Trick:
    """One kind of trick in a text: ``chars`` characters changed or removed, in ``words``
    words (a letter-spaced run: the words it makes), at ``spans`` (half-open character spans
    of the original text, in text order); ``share``: the share of the text's words it touched
    (``letter_spacing``: of its letters)."""

    kind: str
    chars: int
    words: int
    spans: tuple[tuple[int, int], ...]
    share: float = 0.0

    @property
    def suspicious(self) -> bool:
        least, share = SUSPICIOUS_AT[self.kind]
        amount = self.chars if self.kind == "letter_spacing" else self.words
        return amount >= least and self.share >= share

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "chars": self.chars,
            "words": self.words,
            "spans": [list(span) for span in self.spans],
            "share": round(self.share, 4),
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

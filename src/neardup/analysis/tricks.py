"""What the ``fold`` filter found in a text: the tricks used to get a copy past a uniqueness
checker (:mod:`neardup.analysis.evasion` finds and neutralizes them).

A :class:`Tricks` lists each kind found with how many characters and words it touched and where
(half-open spans in the original text), and says whether the text is :attr:`~Tricks.suspicious`:
a little of a kind happens in honest text (a soft hyphen, a Latin letter typed by mistake), so a
kind counts only past its threshold (:data:`SUSPICIOUS_AT`).

One kind is not the analyzer's: ``hidden_text``, the text of a .docx or PDF file that a reader
does not see (hidden runs, white, tiny, invisible or off the page), which reading the file kept
out of the text (:func:`neardup.inputs.office.extract`; :func:`hidden_text` makes its trick, with no
spans: the text is not in the text analysed). :meth:`Tricks.merged` adds it to the analyzer's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

#: The kinds of tricks, in the order a report lists them.
KINDS = ("homoglyph", "invisible", "letter_spacing", "stuffing", "hidden_text")

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
    # characters (not words): a stray hidden word of a template is not a trick, a paragraph is
    "hidden_text": (20, 0.005),
}


@dataclass(frozen=True)
class Trick:
    """One kind of trick in a text: ``chars`` characters changed or removed, in ``words``
    words (a letter-spaced run: the words it makes), at ``spans`` (half-open character spans
    of the original text, in text order); ``share``: the share of the text's words it touched
    (``letter_spacing``: of its letters; ``hidden_text``: of all the characters, seen or not);
    ``by``: ``hidden_text``'s characters by how they were hidden (``hidden``, ``invisible``,
    ``white``, ``tiny``, ``offpage``: :class:`neardup.inputs.office.Dropped`)."""

    kind: str
    chars: int
    words: int
    spans: tuple[tuple[int, int], ...]
    share: float = 0.0
    by: tuple[tuple[str, int], ...] = ()

    @property
    def suspicious(self) -> bool:
        least, share = SUSPICIOUS_AT[self.kind]
        amount = self.chars if self.kind in ("letter_spacing", "hidden_text") else self.words
        return amount >= least and self.share >= share

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "chars": self.chars,
            "words": self.words,
            "spans": [list(span) for span in self.spans],
            "share": round(self.share, 4),
            "suspicious": self.suspicious,
        }
        if self.by:
            out["by"] = dict(self.by)
        return out


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

    def merged(self, other: Tricks) -> Tricks:
        """These tricks and ``other``'s (of other kinds: ``hidden_text`` beside the
        analyzer's), in the order of :data:`KINDS`."""
        if not other:
            return self
        if not self:
            return other
        found = sorted((*self.found, *other.found), key=lambda t: KINDS.index(t.kind))
        return Tricks(tuple(found))

    def to_dict(self) -> dict[str, Any]:
        return {
            "suspicious": self.suspicious,
            "tricks": [trick.to_dict() for trick in self.found],
        }


#: The result of a text with no tricks.
NONE = Tricks()


def hidden_text(dropped: Sequence[tuple[str, int, int]], visible_chars: int) -> Tricks:
    """The ``hidden_text`` trick of what reading a file dropped: ``(how, characters, words)``
    for each way it was hidden (:class:`neardup.inputs.office.Dropped`), beside ``visible_chars``
    characters read (white space not counted, in both); :data:`NONE` when nothing was
    dropped."""
    by = tuple((how, chars) for how, chars, _ in dropped if chars)
    if not by:
        return NONE
    words = sum(w for _, c, w in dropped if c)
    chars = sum(c for _, c in by)
    share = chars / max(chars + visible_chars, 1)
    return Tricks((Trick("hidden_text", chars, words, (), share=share, by=by),))


def folds(spec: Any) -> bool:
    """Whether a :class:`~neardup.spec.Spec` undoes the tricks (its chains have the ``fold``
    char filter): then an office file is read as a reader sees it (its hidden text kept out and
    reported); without, all its text is read (``--no-fold``: the raw score)."""
    return any(
        component.name == "fold"
        for _, chain in spec.analyzer.chains
        for component in chain.char_filters
    )

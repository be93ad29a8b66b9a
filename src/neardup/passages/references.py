"""A text's own reference list, and whether a reference in the text resolves to one of its entries.

A reference marker by itself proves nothing: a made-up ``[7]`` or ``(Иванов, 2010)`` after every
copied sentence, with no list of sources at the end, would turn a whole paste into "cited". So
a marker counts only when it points to an entry of the text's own list. This module finds the
list, parses its entries and the markers of the text, and says which markers resolve.

**The list** (:func:`find_reference_list`) is the last one of:

- the lines after a heading of the usual kind on a line of its own («Список литературы»,
  «Список использованных источников», «Литература», «Источники», «Библиографический список»,
  "References", "Bibliography", "Works cited", …), up to an appendix («Приложение»,
  "Appendix") or the end of the text;
- without such a heading, a numbered list that ends the text: lines labelled ``[1]``, ``1.``
  or ``1)`` numbered from 1 in order (a line without a label, right under an entry, goes on
  that entry).

Entries are the labelled lines (with their continuation lines), else the lines, or the blocks
between blank lines when there are several blocks. A heading followed by prose is no list: the
entries must be short (:data:`MAX_MEAN_ENTRY_CHARS` on average) and at least half of them must
look like entries (a label, a year, a URL, ``//``). HTML input is read line by line too, a
block tag (``<li>``, ``<p>``, ``<br>``, a heading) also ending a line.

**Markers** (:func:`find_markers`): numbers in brackets — ``[7]``, ``[7, с. 12]``, ``[3; 5]``,
``[3–5]`` (a range is every number in it) — and author–year references, in parentheses —
``(Иванов, 2010)``, ``(Smith 2010)``, ``(Smith et al. 2019, p. 4)``, ``(Иванов, 2010; Петров,
2012)`` — or in the sentence, the year in parentheses after the name — ``Иванов И. И.
(2010)``, ``И. И. Иванов (2010)``, ``Smith et al. (2019)`` — where a bare ``Smith (2010)`` is
a marker only when the text has a list (otherwise it is as likely a place and a date). A
marker that starts a line is a list entry's label, not a reference (see
:mod:`neardup.passages.citations`).

**Resolving**: a number resolves when an entry has it (its label, else its place in the list);
an author–year pair when one entry holds both the year and the name (compared folded: case,
``ё``→``е``; a Russian name also in another case, ``Иванова`` for ``Иванов``). A marker
resolves when every number or pair in it does; with no list, none does.

Bounded work: the list is looked for in the last :data:`MAX_LIST_CHARS` characters, at most
:data:`MAX_ENTRIES` entries are read, a range gives at most :data:`MAX_RANGE` numbers; everything
else is a few linear scans.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "MAX_ENTRIES",
    "MAX_LIST_CHARS",
    "MAX_MEAN_ENTRY_CHARS",
    "MAX_RANGE",
    "Entry",
    "Marker",
    "ReferenceList",
    "find_markers",
    "find_reference_list",
    "fold_name",
]

#: How far from the end of a text its reference list is looked for (characters).
MAX_LIST_CHARS = 200_000
#: The most entries of a list that are read (the rest are not reference targets).
MAX_ENTRIES = 2_000
#: The longest mean entry (characters) a list may have: longer ones are paragraphs of prose.
MAX_MEAN_ENTRY_CHARS = 500
#: The most numbers a range such as ``[3–5]`` stands for; a longer one resolves by its ends.
MAX_RANGE = 100

_HEADING = re.compile(
    r"""^(?:\d+(?:\.\d+)*\.?\s+)?(?:
        список\s+(?:(?:использованн|цитируем|рекомендуем)\w*\s+)?
            (?:литературы|источников)(?:\s+и\s+(?:литературы|источников))?
      | (?:использованн\w+\s+)?(?:литература|источники)
      | библиографи(?:ческий\s+список|я)
      | references | bibliography | works\s+cited | literature\s+cited | reference\s+list
      | sources(?:\s+cited)?
    )\s*[:.]?$""",
    re.IGNORECASE | re.VERBOSE,
)
_APPENDIX = re.compile(r"^(?:приложени[ея]|appendix)\b", re.IGNORECASE)
_LABEL = re.compile(r"^\s*(?:\[(\d{1,4})\]|(\d{1,4})[.)])(?=\s+\S)")
_BIBLIOGRAPHIC = re.compile(r"(?<!\d)(?:1[5-9]|20)\d\d(?!\d)|https?://|www\.|//|\bURL\b", re.I)
_HTML_HINT = re.compile(r"<(?:p|li|div|br|h[1-6]|ol|ul|tr)\b", re.IGNORECASE)
_HTML_BREAK = re.compile(r"\n|<(?:/?(?:p|li|div|h[1-6]|ol|ul|tr|table|section)|br)\b[^>]*>", re.I)
_TAG = re.compile(r"<[^>]*>")
_YEAR_IN_ENTRY = re.compile(r"(?<!\d)((?:1[5-9]|20)\d\d)(?!\d)")
_CAPITALISED = re.compile(r"[A-ZА-ЯЁ][\w'’-]+")

# --- markers ------------------------------------------------------------------------------

_NAME = r"[A-ZА-ЯЁ][\w'’-]+"
_YEAR = r"(?:1[5-9]|20)\d\d[a-zа-я]?"
_LOCATOR = r"(?:\s*,\s*(?:[сСpPтТ]{1,2}|vol)\.\s*\d+(?:\s*[–-]\s*\d+)?)*"
_OTHERS = rf"(?:\s+(?:et\s+al\.|и\s+др\.|(?:and|и|&)\s+{_NAME}))?"
_ITEM = rf"{_NAME}{_OTHERS},?\s+{_YEAR}{_LOCATOR}"
_INITIALS = r"(?:[A-ZА-ЯЁ]\.\s*){1,3}"
_NUMERIC = re.compile(
    r"\[\s*\d+(?:\s*[,;–—-]\s*(?:\d+|(?:[сСpPтТ]{1,2}|vol)\.?\s*\d+(?:\s*[–-]\s*\d+)?))*\s*\]"
)
_PARENTHETICAL = re.compile(rf"\(\s*{_ITEM}(?:\s*;\s*{_ITEM})*\s*\)")
_NARRATIVE = re.compile(
    rf"(?:(?P<initials_before>{_INITIALS})(?P<name_after>{_NAME})"
    rf"|(?P<name>{_NAME})(?P<initials_after>\s+{_INITIALS})?)"
    rf"(?P<others>{_OTHERS})\s*\(\s*(?P<year>{_YEAR}){_LOCATOR}\s*\)"
)
_ITEM_PARTS = re.compile(rf"(?P<name>{_NAME}){_OTHERS},?\s+(?P<year>{_YEAR})")
_RANGE = re.compile(r"^(\d+)\s*[–—-]\s*(\d+)$")


def fold_name(name: str) -> str:
    """A name as names are compared: lower case, ``ё`` as ``е``, no apostrophe or ``'s``."""
    folded = name.casefold().replace("ё", "е").replace("’", "'")
    if folded.endswith("'s"):
        folded = folded[:-2]
    return folded.replace("'", "")


def _year(text: str) -> str:
    return text[:4]


@dataclass(frozen=True, slots=True)
class Marker:
    """A reference in the text: ``text[start:end]``; ``numbers`` and ``authors`` (folded
    surname, year) are what it points to. ``narrative``: the name is part of the sentence
    (``Иванов И. И. (2010) пишет …``), so the sentence around it is what it cites. ``weak``:
    a bare ``Name (year)`` or one that starts a line, a marker only beside a reference list."""

    start: int
    end: int
    numbers: tuple[int, ...] = ()
    authors: tuple[tuple[str, str], ...] = ()
    narrative: bool = False
    weak: bool = False


def _numbers(inside: str) -> tuple[int, ...]:
    out: list[int] = []
    for item in re.split(r"[,;]", inside):
        piece = item.strip()
        if not piece or not piece[0].isdigit():
            continue  # a page or a volume: "с. 12", "p. 4"
        found = _RANGE.match(piece)
        if found is None:
            if piece.isdigit():
                out.append(int(piece))
            continue
        first, last = int(found.group(1)), int(found.group(2))
        if first > last:
            first, last = last, first
        if last - first >= MAX_RANGE:
            out += [first, last]
        else:
            out += range(first, last + 1)
    return tuple(out)


def find_markers(text: str) -> list[Marker]:
    """The reference markers of ``text``, in order, none overlapping another."""
    found: list[Marker] = []
    for m in _NUMERIC.finditer(text):
        found.append(Marker(m.start(), m.end(), numbers=_numbers(m.group()[1:-1])))
    for m in _PARENTHETICAL.finditer(text):
        authors = tuple(
            (fold_name(p.group("name")), _year(p.group("year")))
            for p in _ITEM_PARTS.finditer(m.group())
        )
        found.append(Marker(m.start(), m.end(), authors=authors))
    for m in _NARRATIVE.finditer(text):
        name = m.group("name_after") or m.group("name")
        certain = bool(m.group("initials_before") or m.group("initials_after") or m.group("others"))
        found.append(
            Marker(
                m.start(),
                m.end(),
                authors=((fold_name(name), _year(m.group("year"))),),
                narrative=True,
                weak=not certain,
            )
        )
    found.sort(key=lambda k: (k.start, -k.end))
    kept: list[Marker] = []
    for marker in found:
        if kept and marker.start < kept[-1].end:
            continue
        kept.append(marker)
    return kept


# --- the list ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of a reference list: ``text[start:end]``, its ``number`` (its label, else its
    place), the folded capitalised words it holds (``names``: its authors among them) and its
    years."""

    start: int
    end: int
    number: int
    names: frozenset[str]
    years: frozenset[str]


@dataclass(frozen=True)
class ReferenceList:
    """A text's reference list: ``text[start:end]`` (its heading included) and its entries."""

    start: int
    end: int
    entries: tuple[Entry, ...]
    _numbers: frozenset[int] = field(init=False, repr=False)
    _pairs: frozenset[tuple[str, str]] = field(init=False, repr=False)
    _stems: dict[tuple[str, int, str], tuple[str, ...]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        pairs = {(name, year) for e in self.entries for year in e.years for name in e.names}
        # Russian names by year, length and all but their last three letters: the names a name
        # in another case may be (see _same_name), found without a walk over the list
        stems: dict[tuple[str, int, str], list[str]] = {}
        for name, year in sorted(pairs):
            if len(name) >= _MIN_INFLECTED and _cyrillic(name):
                stems.setdefault((year, len(name), name[: len(name) - 3]), []).append(name)
        object.__setattr__(self, "_numbers", frozenset(e.number for e in self.entries))
        object.__setattr__(self, "_pairs", frozenset(pairs))
        object.__setattr__(self, "_stems", {k: tuple(v) for k, v in stems.items()})

    def has_number(self, number: int) -> bool:
        return number in self._numbers

    def has_author(self, name: str, year: str) -> bool:
        """Whether one entry holds both ``year`` and the (folded) ``name``, or that name in
        another case."""
        if (name, year) in self._pairs:
            return True
        if len(name) < _MIN_INFLECTED or not _cyrillic(name):
            return False
        for length in range(max(_MIN_INFLECTED, len(name) - 3), len(name) + 4):
            for other in self._stems.get((year, length, name[: length - 3]), ()):
                if _same_name(name, other):
                    return True
        return False

    def resolves(self, marker: Marker) -> bool:
        """Whether every number and author–year pair of ``marker`` is in this list."""
        if not marker.numbers and not marker.authors:
            return False
        return all(self.has_number(n) for n in marker.numbers) and all(
            self.has_author(name, year) for name, year in marker.authors
        )


#: The shortest Russian name that is matched in another case (shorter ones must be equal).
_MIN_INFLECTED = 5


def _same_name(a: str, b: str) -> bool:
    """Two folded Russian names that differ only by a case ending (Иванов, Иванова, Ивановым;
    Достоевский, Достоевского): both of at least five letters, alike but for their last three
    letters at most."""
    if min(len(a), len(b)) < _MIN_INFLECTED or not (_cyrillic(a) and _cyrillic(b)):
        return False
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    return common >= max(len(a), len(b)) - 3


def _cyrillic(word: str) -> bool:
    return "а" <= word[0] <= "я"


@dataclass(frozen=True, slots=True)
class _Line:
    start: int
    end: int
    visible: str  # the line without its tags, stripped

    @property
    def blank(self) -> bool:
        return not self.visible


def _lines(text: str, offset: int) -> list[_Line]:
    """The lines of ``text[offset:]`` (for HTML, block tags end lines too)."""
    breaks = _HTML_BREAK if _HTML_HINT.search(text, offset) else re.compile(r"\n")
    lines: list[_Line] = []
    at = offset
    for m in breaks.finditer(text, offset):
        lines.append(_line(text, at, m.start()))
        at = m.end()
    lines.append(_line(text, at, len(text)))
    return lines


def _line(text: str, start: int, end: int) -> _Line:
    raw = text[start:end]
    visible = _TAG.sub("", raw) if "<" in raw else raw
    return _Line(start, end, visible.strip())


def _label(line: _Line) -> int | None:
    found = _LABEL.match(line.visible)
    if found is None:
        return None
    return int(found.group(1) or found.group(2))


def _entry(text: str, lines: list[_Line], number: int) -> Entry:
    start, end = lines[0].start, lines[-1].end
    body = " ".join(line.visible for line in lines)
    names = frozenset(fold_name(w) for w in _CAPITALISED.findall(body))
    years = frozenset(_YEAR_IN_ENTRY.findall(body))
    return Entry(start, end, number, names, years)


def _blocks(lines: list[_Line]) -> list[list[_Line]]:
    """Runs of non-blank lines."""
    blocks: list[list[_Line]] = []
    current: list[_Line] = []
    for line in lines:
        if line.blank:
            if current:
                blocks.append(current)
            current = []
        else:
            current.append(line)
    if current:
        blocks.append(current)
    return blocks


def _labelled_entries(text: str, lines: list[_Line]) -> list[Entry]:
    """Entries that start at labelled lines; an unlabelled line right under one goes on it."""
    entries: list[Entry] = []
    current: list[_Line] = []
    number = 0

    def close() -> None:
        if current and len(entries) < MAX_ENTRIES:
            entries.append(_entry(text, current, number))

    for line in lines:
        label = _label(line)
        if label is not None:
            close()
            current, number = [line], label
        elif line.blank:
            close()
            current = []
        elif current:
            current.append(line)
    close()
    return entries


def _plain_entries(text: str, lines: list[_Line]) -> list[Entry]:
    """Entries of an unnumbered list: its lines, or its blocks when there are several blocks."""
    blocks = _blocks(lines)
    groups = blocks if len(blocks) > 1 else [[line] for block in blocks for line in block]
    return [_entry(text, group, n) for n, group in enumerate(groups[:MAX_ENTRIES], start=1)]


def _looks_like_a_list(entries: list[Entry], text: str) -> bool:
    if not entries:
        return False
    mean = sum(e.end - e.start for e in entries) / len(entries)
    if mean > MAX_MEAN_ENTRY_CHARS:
        return False
    looking = sum(
        1
        for e in entries
        if _LABEL.match(text[e.start : e.end].lstrip())
        or _BIBLIOGRAPHIC.search(text, e.start, e.end)
    )
    return 2 * looking >= len(entries)


def _headed(text: str, lines: list[_Line]) -> ReferenceList | None:
    """The list under the last heading of the usual kind."""
    for at in range(len(lines) - 1, -1, -1):
        if len(lines[at].visible) <= 80 and _HEADING.match(lines[at].visible):
            break
    else:
        return None
    body = lines[at + 1 :]
    for k, line in enumerate(body):
        if _APPENDIX.match(line.visible):
            body = body[:k]
            break
    if any(_label(line) is not None for line in body):
        entries = _labelled_entries(text, body)
    else:
        entries = _plain_entries(text, body)
    if not _looks_like_a_list(entries, text):
        return None
    end = entries[-1].end
    return ReferenceList(lines[at].start, end, tuple(entries))


def _trailing(text: str, lines: list[_Line]) -> ReferenceList | None:
    """A numbered list that ends the text, numbered from 1 in order."""
    blocks = _blocks(lines)
    first: _Line | None = None
    for block in reversed(blocks):
        labelled = [line for line in block if _label(line) is not None]
        if not labelled:
            break
        first = labelled[0]
        if _label(block[0]) is None:
            break  # the lines above its first label are prose: the list starts there
    if first is None:
        return None
    tail = [line for line in lines if line.start >= first.start]
    entries = _labelled_entries(text, tail)
    # numbered 1, 2, 3 … to the end: the last run that starts at 1 (a numbered list of the
    # text's own points may come just before it)
    numbers = [e.number for e in entries]
    starts = [i for i, n in enumerate(numbers) if n == 1]
    if not starts:
        return None
    begin = starts[-1]
    if numbers[begin:] != list(range(1, len(numbers) - begin + 1)):
        return None
    entries = entries[begin:]
    if not _looks_like_a_list(entries, text):
        return None
    return ReferenceList(entries[0].start, entries[-1].end, tuple(entries))


def find_reference_list(text: str) -> ReferenceList | None:
    """The reference list of ``text`` (see the module's docstring), or ``None``."""
    offset = max(0, len(text) - MAX_LIST_CHARS)
    if offset:
        newline = text.find("\n", offset)
        offset = newline + 1 if newline >= 0 else len(text)
    lines = _lines(text, offset)
    return _headed(text, lines) or _trailing(text, lines)

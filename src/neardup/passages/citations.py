"""Quoted and referenced passages of a text: what a uniqueness report counts as citation.

A passage a writer marks as someone else's words is not borrowing: a school essay that quotes
a paragraph of a story in «…» and a paper that ends a sentence with ``[3]`` say where the words
come from. This module finds such passages as character spans of the text as given, so a report
can colour them apart and say how much of a text is quoted.

What counts (each found independently, then overlapping spans merged):

- **quotes** — «…» (with „…“ or “…” nested inside), „…“, “…” and straight "…". A quote must
  close within its paragraph (a blank line ends one) and within ``max_quote_chars``; an opening
  mark that never closes there is ignored, so an unbalanced quote never swallows the rest of the
  text. Quotes of fewer than ``min_words`` words are names and terms («Газпром», "ok"), not
  citations.
- **block quotes** — lines that start with ``>`` (mail, Markdown) and HTML ``<blockquote>``
  elements, when the text is HTML.
- **referenced sentences** — a sentence that carries its own reference: ``[3]``,
  ``[3, с. 14]``, ``[3; 5]``, or an author–year parenthesis such as ``(Иванов, 2010)`` or
  ``(Smith et al. 2019, p. 4)``, inside the sentence or right after its full stop on the same
  line (``… words.[3]``). The span is the sentence with its reference.

A reference that starts a line is the label of a reference-list entry (``[1] Иванов И. И.
Шинглы…``), not a marker: it cites nothing, and the sentence before it — often the last one of
the text, or one copied silently before a blank line — stays the writer's own (or borrowed).
A list at the end of a text must not turn the text above it into citation.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from enum import StrEnum

from neardup.errors import SpecError

__all__ = ["Citation", "CitationKind", "find_citations", "quoted_share"]


class CitationKind(StrEnum):
    QUOTE = "quote"
    BLOCK = "block"
    REFERENCE = "reference"


@dataclass(frozen=True, slots=True)
class Citation:
    """A cited passage: ``text[start:end]``."""

    start: int
    end: int
    kind: CitationKind


# opening mark -> the closing marks that end it
_PAIRS: dict[str, str] = {"«": "»", "„": "“”", "“": "”"}
_STRAIGHT = '"'
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")
_WORD = re.compile(r"\w+")
_BLOCK_LINE = re.compile(r"^[ \t]*>.*(?:\n[ \t]*>.*)*", re.MULTILINE)
_BLOCK_HTML = re.compile(r"<blockquote\b[^>]*>.*?</blockquote\s*>", re.IGNORECASE | re.DOTALL)
_REFERENCE = re.compile(
    r"""\s*(?:
        \[\s*\d+(?:\s*[,;–-]\s*(?:\d+|[сp]\.?\s*\d+(?:\s*[–-]\s*\d+)?))*\s*\]   # [3], [3, с. 14]
      | \(\s*[A-ZА-ЯЁ][\w'’-]+(?:\s+(?:et\s+al\.|и\s+др\.|(?:and|и|&)\s+[A-ZА-ЯЁ][\w'’-]+))?
        ,?\s+(?:1[5-9]|20)\d\d[a-zа-я]?                                     # (Иванов, 2010)
        (?:\s*,\s*[сpP]{1,2}\.\s*\d+(?:\s*[–-]\s*\d+)?)?\s*\)                # , p. 4
    )""",
    re.VERBOSE,
)
_SENTENCE_END = re.compile(r"[.!?…]+[\"»”)]*\s+|\n[ \t\r\f\v]*\n")


def find_citations(text: str, *, min_words: int = 4, max_quote_chars: int = 5000) -> list[Citation]:
    """The cited passages of TEXT, sorted by start, overlaps merged (the earlier kind kept)."""
    if min_words < 1 or max_quote_chars < 1:
        raise SpecError("find_citations: min_words and max_quote_chars must be at least 1")
    found = [
        *_quotes(text, min_words, max_quote_chars),
        *_blocks(text),
        *_referenced_sentences(text),
    ]
    return _merge(found)


def quoted_share(text: str, citations: list[Citation]) -> float:
    """The share of TEXT's non-space characters that lie inside CITATIONS (0 for an empty text)."""
    total = sum(1 for ch in text if not ch.isspace())
    if total == 0:
        return 0.0
    inside = sum(1 for c in citations for ch in text[c.start : c.end] if not ch.isspace())
    return inside / total


def _paragraph_ends(text: str) -> list[int]:
    ends = [m.start() for m in _PARAGRAPH_BREAK.finditer(text)]
    ends.append(len(text))
    return ends


def _limit(position: int, paragraph_ends: list[int], max_chars: int) -> int:
    """Where a quote opened at POSITION must have closed: its paragraph's end, or sooner."""
    for end in paragraph_ends:
        if end > position:
            return min(end, position + 1 + max_chars)
    return position + 1 + max_chars


def _quotes(text: str, min_words: int, max_chars: int) -> list[Citation]:
    paragraph_ends = _paragraph_ends(text)
    found: list[Citation] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in _PAIRS or ch == _STRAIGHT:
            close = _closing(text, i, _limit(i, paragraph_ends, max_chars))
            if close is not None:
                if len(_WORD.findall(text, i + 1, close)) >= min_words:
                    found.append(Citation(i, close + 1, CitationKind.QUOTE))
                i = close + 1
                continue
        i += 1
    return found


def _closing(text: str, start: int, limit: int) -> int | None:
    """The index of the mark that closes the quote opened at START, or None before LIMIT."""
    opener = text[start]
    if opener == _STRAIGHT:
        close = text.find(_STRAIGHT, start + 1, limit)
        return close if close >= 0 else None
    closers = _PAIRS[opener]
    depth = 0
    for j in range(start + 1, min(limit, len(text))):
        ch = text[j]
        # «» nest in Russian typography; an inner „“ or “” pair is skipped whole
        if ch == opener and opener == "«":
            depth += 1
        elif ch in closers:
            if depth == 0:
                return j
            depth -= 1
    return None


def _blocks(text: str) -> list[Citation]:
    spans = [Citation(m.start(), m.end(), CitationKind.BLOCK) for m in _BLOCK_LINE.finditer(text)]
    if "<" in text:
        spans += [
            Citation(m.start(), m.end(), CitationKind.BLOCK) for m in _BLOCK_HTML.finditer(text)
        ]
    return spans


def _referenced_sentences(text: str) -> list[Citation]:
    found: list[Citation] = []
    references = list(_REFERENCE.finditer(text))
    # sentence starts: the text's start, every position after a sentence end, and after a
    # reference (one that follows a full stop ends its sentence there)
    starts = sorted(
        {0}
        | {m.end() for m in _SENTENCE_END.finditer(text)}
        | {len(text) - len(text[m.end() :].lstrip()) for m in references}
    )
    for match in references:
        if _starts_line(text, match):
            continue  # a reference-list entry's label
        index = bisect.bisect_right(starts, match.start()) - 1
        # a reference after the full stop ("… words. [3]") belongs to the sentence before it
        while index > 0 and not _WORD.search(text, starts[index], match.start()):
            index -= 1
        start = starts[index]
        if _WORD.search(text, start, match.start()):
            found.append(Citation(start, match.end(), CitationKind.REFERENCE))
    return found


def _starts_line(text: str, match: re.Match[str]) -> bool:
    """Whether the reference of MATCH is the first thing on its line (its leading white space,
    which the pattern takes in, may hold the line break)."""
    marker = match.start() + len(match.group()) - len(match.group().lstrip())
    line_start = text.rfind("\n", 0, marker) + 1
    return not text[line_start:marker].strip()


def _merge(citations: list[Citation]) -> list[Citation]:
    merged: list[Citation] = []
    for citation in sorted(citations, key=lambda c: (c.start, -c.end)):
        if merged and citation.start < merged[-1].end:
            last = merged[-1]
            if citation.end > last.end:
                merged[-1] = Citation(last.start, citation.end, last.kind)
            continue
        merged.append(citation)
    return merged

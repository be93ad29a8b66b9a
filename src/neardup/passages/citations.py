"""Quoted and referenced passages of a text: what a uniqueness report counts as citation.

A passage a writer marks as someone else's words, and says whose, is not borrowing: a school
essay that quotes a paragraph of a story in «…» after "as the author writes" and a paper that
ends a sentence with ``[3]`` pointing to its list of sources say where the words come from.
This module finds such passages as character spans of the text as given, each with its
:class:`CitationStatus`, so a report can count the cited ones apart, colour them, and say
"reference not found" beside a passage whose reference points nowhere.

What is found (each independently, then overlapping spans merged):

- **quotes** — «…» (with „…“ or “…” nested inside), „…“, “…” and straight "…". A quote must
  close within its paragraph (a blank line ends one) and within ``max_quote_chars``; an opening
  mark that never closes there is ignored, so an unbalanced quote never swallows the rest of the
  text. Quotes of fewer than ``min_words`` words are names and terms («Газпром», "ok"), not
  citations.
- **block quotes** — lines that start with ``>`` (mail, Markdown) and HTML ``<blockquote>``
  elements, when the text is HTML.
- **referenced sentences** — a sentence that carries a reference marker
  (:func:`neardup.passages.references.find_markers`): ``[3]``, ``[3, с. 14]``, ``[3–5]``, or an
  author–year reference such as ``(Иванов, 2010)`` or ``(Smith et al. 2019, p. 4)``, inside the
  sentence or right after its full stop on the same line (``… words.[3]``); the span is the
  sentence up to its reference. With the name in the sentence (``Иванов И. И. (2010) пишет,
  что …``) the span is the whole sentence.

Whether it counts (:class:`CitationStatus`):

- a referenced sentence is **cited** when its marker resolves to an entry of the text's own
  reference list (:mod:`neardup.passages.references`), else **unresolved** — a made-up ``[7]``
  with no list, or ``[9]`` in a list of five, cites nothing;
- a quote or a block quote takes the status of the referenced sentences it overlaps (its
  reference: ``«…» [3]``, ``Иванов (2010) пишет: «…»``; unresolved when any of them is); with
  none it is **cited** when it is attributed in words — the clause before it in its sentence
  says who wrote it (``как писал …``, ``по словам …``, ``автор отмечает: …``, ``according to
  …``, ``as Smith puts it``, ``Smith writes: …``), or the clause after it does (``«…», — писал
  Пушкин``, ``"…," Smith wrote``), or a signature line follows (``— А. С. Пушкин``) — and
  **unattributed** otherwise: a quotation inside a copied, unattributed paragraph (dialogue
  of a story: ``«…», — сказал он``) is borrowed with the paragraph.

Only cited spans count as citation; the others are reported (their words are borrowed).

A marker that starts a line is the label of a reference-list entry (``[1] Иванов И. И.
Шинглы…``), not a reference: it cites nothing, and the sentence before it — often the last one
of the text, or one copied silently before a blank line — stays the writer's own (or borrowed).
Nothing inside the reference list itself is a citation.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, TypeVar

from neardup.errors import SpecError
from neardup.passages.references import (
    Marker,
    ReferenceList,
    find_markers,
    find_reference_list,
)

__all__ = [
    "ATTRIBUTION_CHARS",
    "Citation",
    "CitationKind",
    "CitationStatus",
    "find_citations",
    "passage_statuses",
    "quoted_share",
    "unresolved_notes",
]

T = TypeVar("T")

#: How far before a quote (within its sentence) and after it its attribution is looked for.
ATTRIBUTION_CHARS = 200


class CitationKind(StrEnum):
    QUOTE = "quote"
    BLOCK = "block"
    REFERENCE = "reference"


class CitationStatus(StrEnum):
    """Whether a found citation counts as one (see the module's docstring)."""

    #: a quote with an attribution or a resolving reference, a sentence with a resolving one
    CITED = "cited"
    #: it carries a reference the text's own reference list does not hold
    UNRESOLVED = "unresolved"
    #: a quote with neither a reference nor an attribution
    UNATTRIBUTED = "unattributed"


@dataclass(frozen=True, slots=True)
class Citation:
    """A quoted or referenced passage: ``text[start:end]``, its kind and its status."""

    start: int
    end: int
    kind: CitationKind
    status: CitationStatus = CitationStatus.CITED

    @property
    def counts(self) -> bool:
        """Whether its words count as cited (else they are borrowed when copied)."""
        return self.status is CitationStatus.CITED

    def to_dict(self) -> dict[str, int | str]:
        return {
            "start": self.start,
            "end": self.end,
            "kind": str(self.kind),
            "status": str(self.status),
        }


# opening mark -> the closing marks that end it
_PAIRS: dict[str, str] = {"«": "»", "„": "“”", "“": "”"}
_STRAIGHT = '"'
_OPENER = re.compile('[«„“"]')
_GUILLEMET = re.compile("[«»]")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")
_WORD = re.compile(r"\w+")
_NON_SPACE = re.compile(r"\S")
_BLOCK_LINE = re.compile(r"^[ \t]*>.*(?:\n[ \t]*>.*)*", re.MULTILINE)
_BLOCK_HTML = re.compile(r"<blockquote\b[^>]*>.*?</blockquote\s*>", re.IGNORECASE | re.DOTALL)
# a sentence ends at . ! ? … (closing marks after it) and white space — not after an initial
# ("А. С. Пушкин") — or at a blank line
_SENTENCE_END = re.compile(r"(?<!\b[A-ZА-ЯЁ])[.!?…]+[\"»”)]*\s+|\n[ \t\r\f\v]*\n")
# words that say whose a quotation is: verbs of writing and holding an opinion, and the usual
# turns ("по словам", "according to"); plain verbs of speech ("сказал", "said") are the
# dialogue of a story unless "как"/"as" makes them an attribution
_ATTRIBUTION = re.compile(
    r"""\b(?:
        пиш(?:ет|ут|у)|писал[аи]?|написал[аи]?|пишется
      | отмеча(?:ет|ют|л[аи]?)|отметил[аи]?|подч[её]рк(?:ивает|ивают|ивал[аи]?|нул[аи]?)
      | утвержда(?:ет|ют|л[аи]?)|указыва(?:ет|ют|л[аи]?)|указал[аи]?
      | счита(?:ет|ют|л[аи]?)|полага(?:ет|ют|л[аи]?)|замеча(?:ет|ют|л[аи]?)|заметил[аи]?
      | цитир\w*|цитат\w*|привед\w*|привож\w*|привод(?:ит|ят|ил[аи]?|ится)
      | по\s+(?:словам|мнению|выражению|определению|данным)|словами
      | как\s+(?:сказал[аи]?|говорил[аи]?|говорит|выразил(?:ся|ась|ись))
      | according\s+to|in\s+the\s+words\s+of|as\s+\w+(?:\s+\w+)?\s+(?:says|said|puts?\s+it)
      # English verbs in small letters only: "States" in "the United States" is a name
      | (?-i:writes?|wrote|written|note[sd]|argue[sd]?|state[sd]|observe[sd]?|claim(?:s|ed)
        | remark(?:s|ed)|explain(?:s|ed)?|puts?\s+it|quot(?:es|ed|ing)|cites)
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
# a signature under a quotation: "— А. С. Пушкин", "-- Smith"
_SIGNATURE = re.compile(
    r"[ \t]*[,.]?[ \t]*\n?[ \t]*(?:—|–|--?)[ \t]*(?:[A-ZА-ЯЁ]\.[ \t]*)*[A-ZА-ЯЁ]"
)


def find_citations(text: str, *, min_words: int = 4, max_quote_chars: int = 5000) -> list[Citation]:
    """The quoted and referenced passages of TEXT with their status, sorted by start,
    overlaps merged (the earlier kind kept; unresolved over cited over unattributed)."""
    if min_words < 1 or max_quote_chars < 1:
        raise SpecError("find_citations: min_words and max_quote_chars must be at least 1")
    references = find_reference_list(text)

    def outside_list(start: int, end: int) -> bool:
        return references is None or end <= references.start or start >= references.end

    markers = [
        m
        for m in find_markers(text)
        if outside_list(m.start, m.end) and _is_reference(text, m, references)
    ]
    sentences = _referenced_sentences(text, markers, references)
    marked = [
        c
        for c in (*_quotes(text, min_words, max_quote_chars), *_blocks(text))
        if outside_list(c.start, c.end)
    ]
    index = _SpanIndex([(c.start, c.end) for c in sentences], sentences)
    return _merge([*(_with_status(text, c, index) for c in marked), *sentences])


def quoted_share(text: str, citations: list[Citation]) -> float:
    """The share of TEXT's non-space characters that lie inside CITATIONS (0 for an empty text)."""
    total = sum(1 for ch in text if not ch.isspace())
    if total == 0:
        return 0.0
    inside = sum(1 for c in citations for ch in text[c.start : c.end] if not ch.isspace())
    return inside / total


def passage_statuses(
    passages: Sequence[tuple[int, int]], citations: Iterable[Citation]
) -> list[str | None]:
    """What the citations say of each passage ``[start, end)`` of the text: ``"unresolved"``
    when it overlaps one whose reference is not in the text's list, else ``"cited"`` when it
    overlaps a cited one, else ``None``."""
    found = list(citations)
    index = _SpanIndex([(c.start, c.end) for c in found], found)
    out: list[str | None] = []
    for start, end in passages:
        status: str | None = None
        for c in index.overlapping(start, end):
            if c.status is CitationStatus.UNRESOLVED:
                status = str(CitationStatus.UNRESOLVED)
                break
            if c.counts:
                status = str(CitationStatus.CITED)
        out.append(status)
    return out


def unresolved_notes(
    citations: Iterable[tuple[int, int, str]], passages: Iterable[tuple[int, int]]
) -> list[int]:
    """Where a report says "reference not found": the end of each unresolved citation
    ``(start, end, status)`` that overlaps one of ``passages`` (copied text), in order."""
    spans = list(passages)
    index = _SpanIndex(spans, spans)
    notes = {
        end
        for start, end, status in citations
        if status == CitationStatus.UNRESOLVED and next(index.overlapping(start, end), None)
    }
    return sorted(notes)


class _SpanIndex(Generic[T]):
    """Spans ``[start, end)`` with a value each, to ask which overlap a span: sorted by start,
    with the running greatest end, so a question walks back only over spans that may reach it
    (the spans of a text's citations and passages barely overlap one another)."""

    def __init__(self, spans: Sequence[tuple[int, int]], values: Sequence[T]) -> None:
        order = sorted(range(len(spans)), key=lambda i: spans[i])
        self.spans = [spans[i] for i in order]
        self.values = [values[i] for i in order]
        self.starts = [span[0] for span in self.spans]
        self.reach = list(itertools.accumulate((span[1] for span in self.spans), max))

    def overlapping(self, start: int, end: int) -> Iterator[T]:
        """The values of the spans that overlap ``[start, end)``, latest start first."""
        i = bisect.bisect_left(self.starts, end) - 1
        while i >= 0 and self.reach[i] > start:
            if self.spans[i][1] > start:
                yield self.values[i]
            i -= 1


def _is_reference(text: str, marker: Marker, references: ReferenceList | None) -> bool:
    """Whether MARKER is a reference: a line-start one is a list entry's label (a narrative one
    there, ``Иванов И. И. (2010) пишет …``, only beside a list), a weak one needs a list."""
    if marker.weak and references is None:
        return False
    if _starts_line(text, marker.start):
        return marker.narrative and references is not None
    return True


def _paragraph_ends(text: str) -> list[int]:
    ends = [m.start() for m in _PARAGRAPH_BREAK.finditer(text)]
    ends.append(len(text))
    return ends


def _limit(position: int, paragraph_ends: list[int], max_chars: int) -> int:
    """Where a quote opened at POSITION must have closed: its paragraph's end, or sooner."""
    at = bisect.bisect_right(paragraph_ends, position)
    if at < len(paragraph_ends):
        return min(paragraph_ends[at], position + 1 + max_chars)
    return position + 1 + max_chars


def _quotes(text: str, min_words: int, max_chars: int) -> list[Citation]:
    paragraph_ends = _paragraph_ends(text)
    guillemets = _guillemet_pairs(text, paragraph_ends)
    found: list[Citation] = []
    at = _OPENER.search(text)
    while at is not None:
        i = at.start()
        limit = _limit(i, paragraph_ends, max_chars)
        close = guillemets.get(i) if text[i] == "«" else _closing(text, i, limit)
        if close is not None and close < limit:
            if len(_WORD.findall(text, i + 1, close)) >= min_words:
                found.append(Citation(i, close + 1, CitationKind.QUOTE))
            at = _OPENER.search(text, close + 1)  # a quote's inner marks are its own
            continue
        at = _OPENER.search(text, i + 1)
    return found


def _closing(text: str, start: int, limit: int) -> int | None:
    """The index of the first mark that closes the „…“, “…” or "…" opened at START, or None
    before LIMIT (these do not nest)."""
    opener = text[start]
    closers = _STRAIGHT if opener == _STRAIGHT else _PAIRS[opener]
    found = [j for j in (text.find(c, start + 1, limit) for c in closers) if j >= 0]
    return min(found) if found else None


def _guillemet_pairs(text: str, paragraph_ends: list[int]) -> dict[int, int]:
    """Each « and the » that closes it in its paragraph: «» nest in Russian typography, so
    they pair as brackets do (one pass, whatever the number of marks)."""
    pairs: dict[int, int] = {}
    opened: list[int] = []
    paragraph = 0
    for mark in _GUILLEMET.finditer(text):
        at = mark.start()
        while at >= paragraph_ends[paragraph]:
            paragraph += 1
            opened.clear()  # a quote closes within its paragraph or not at all
        if mark.group() == "«":
            opened.append(at)
        elif opened:
            pairs[opened.pop()] = at
    return pairs


def _blocks(text: str) -> list[Citation]:
    spans = [Citation(m.start(), m.end(), CitationKind.BLOCK) for m in _BLOCK_LINE.finditer(text)]
    if "<" in text:
        spans += [
            Citation(m.start(), m.end(), CitationKind.BLOCK) for m in _BLOCK_HTML.finditer(text)
        ]
    return spans


def _with_status(text: str, quote: Citation, sentences: _SpanIndex[Citation]) -> Citation:
    """QUOTE with its status: its references' (the referenced sentences it overlaps), else
    cited when attributed in words, else unattributed."""
    overlapping = list(sentences.overlapping(quote.start, quote.end))
    if overlapping:
        unresolved = any(s.status is CitationStatus.UNRESOLVED for s in overlapping)
        status = CitationStatus.UNRESOLVED if unresolved else CitationStatus.CITED
    elif _attributed(text, quote.start, quote.end):
        status = CitationStatus.CITED
    else:
        status = CitationStatus.UNATTRIBUTED
    return Citation(quote.start, quote.end, quote.kind, status)


def _attributed(text: str, start: int, end: int) -> bool:
    """Whether the clause before ``text[start:end]`` in its sentence, or the one after it, says
    whose words they are, or a signature line follows."""
    lead_from = max(0, start - ATTRIBUTION_CHARS)
    for m in _SENTENCE_END.finditer(text, lead_from, start):
        lead_from = m.end()
    if _ATTRIBUTION.search(text, lead_from, start):
        return True
    if _SIGNATURE.match(text, end):
        return True
    follows = _NON_SPACE.search(text, end, end + ATTRIBUTION_CHARS)
    if follows is None:
        return False
    after = text[follows.start()]
    last = text[end - 2] if end >= 2 else ""
    if last and last in ".!?…" and not (after in ",—–-" or after.islower()):
        return False  # the quote ended its sentence ("«… утром.» Потом …"): no clause after it
    trail_to = min(len(text), end + ATTRIBUTION_CHARS)
    # the clause after the quote: up to its sentence's end ("«…», — писал Пушкин.")
    stop = _SENTENCE_END.search(text, end, trail_to)
    return bool(_ATTRIBUTION.search(text, end, stop.start() if stop else trail_to))


def _referenced_sentences(
    text: str, markers: list[Marker], references: ReferenceList | None
) -> list[Citation]:
    found: list[Citation] = []
    # sentence starts: the text's start, every position after a sentence end, and after a
    # bracketed reference (one that follows a full stop ends its sentence there)
    after_markers = set()
    for m in markers:
        if not m.narrative:
            following = _NON_SPACE.search(text, m.end)
            after_markers.add(following.start() if following else len(text))
    starts = sorted({0} | {m.end() for m in _SENTENCE_END.finditer(text)} | after_markers)
    for marker in markers:
        status = (
            CitationStatus.CITED
            if references is not None and references.resolves(marker)
            else CitationStatus.UNRESOLVED
        )
        index = bisect.bisect_right(starts, marker.start) - 1
        if marker.narrative:
            # the name is part of its sentence: the sentence around it is what it cites
            stop = _SENTENCE_END.search(text, marker.end)
            end = stop.start() + len(stop.group().rstrip()) if stop else len(text)
            found.append(
                Citation(starts[index], max(end, marker.end), CitationKind.REFERENCE, status)
            )
            continue
        # a reference after the full stop ("… words. [3]") belongs to the sentence before it
        while index > 0 and not _WORD.search(text, starts[index], marker.start):
            index -= 1
        start = starts[index]
        if _WORD.search(text, start, marker.start):
            found.append(Citation(start, marker.end, CitationKind.REFERENCE, status))
    return found


def _starts_line(text: str, position: int) -> bool:
    """Whether only white space stands between the start of its line and POSITION."""
    line_start = text.rfind("\n", 0, position) + 1
    return not text[line_start:position].strip()


_RANK = {CitationStatus.UNRESOLVED: 2, CitationStatus.CITED: 1, CitationStatus.UNATTRIBUTED: 0}


def _merge(citations: list[Citation]) -> list[Citation]:
    merged: list[Citation] = []
    for citation in sorted(citations, key=lambda c: (c.start, -c.end)):
        if merged and citation.start < merged[-1].end:
            last = merged[-1]
            status = max(last.status, citation.status, key=_RANK.__getitem__)
            merged[-1] = Citation(last.start, max(last.end, citation.end), last.kind, status)
            continue
        merged.append(citation)
    return merged

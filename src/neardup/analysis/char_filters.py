"""Character filters: text → text, each with an offset map back to its input.

Each filter returns ``(text, map)`` where ``map`` is ``None`` when every character stayed at its
place (the common, free case) and an :class:`OffsetMap` otherwise.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import lru_cache

from neardup.analysis.offsets import OffsetMap

CharFilterResult = tuple[str, OffsetMap | None]


def _char_class(codes: list[int]) -> str:
    """A regex character class body for the given sorted code points, as ranges."""
    ranges: list[str] = []
    start = prev = codes[0]
    for cp in codes[1:] + [-1]:
        if cp == prev + 1:
            prev = cp
            continue
        ranges.append(re.escape(chr(start)) + ("-" + re.escape(chr(prev)) if prev > start else ""))
        start = prev = cp
    return "".join(ranges)


def _all_code_points() -> range:
    return range(sys.maxunicode + 1)


@lru_cache(maxsize=1)
def _combining_class() -> str:
    return _char_class([cp for cp in _all_code_points()
                        if not 0xD800 <= cp < 0xE000 and unicodedata.combining(chr(cp))])


@lru_cache(maxsize=1)
def _nfkc_unstable() -> re.Pattern[str]:
    """What NFKC may change: a character followed by combining marks (they may compose with
    it), or a single character that is not NFKC-stable alone. Single characters, so that
    "…ﬁ" maps "..." to "…" and "fi" to "ﬁ" rather than both to both."""
    unstable = _char_class([
        cp for cp in _all_code_points()
        if not 0xD800 <= cp < 0xE000
        and (unicodedata.combining(chr(cp)) or not unicodedata.is_normalized("NFKC", chr(cp)))
    ])
    return re.compile(f".[{_combining_class()}]+|[{unstable}]", re.DOTALL)


def _normalize_pieces(text: str, pattern: re.Pattern[str]) -> tuple[list[str], list[tuple[int, int, int]]]:
    out: list[str] = []
    pieces: list[tuple[int, int, int]] = []
    pos = 0
    for match in pattern.finditer(text):
        a, b = match.span()
        if a > pos:
            out.append(text[pos:a])
            pieces.append((a - pos, pos, a))
        normalized = unicodedata.normalize("NFKC", text[a:b])
        out.append(normalized)
        pieces.append((len(normalized), a, b))
        pos = b
    if pos < len(text):
        out.append(text[pos:])
        pieces.append((len(text) - pos, pos, len(text)))
    return out, pieces


def nfkc(text: str) -> CharFilterResult:
    """Unicode NFKC: compatibility forms folded (ﬁ → fi, № → No, non-breaking space → space)."""
    if unicodedata.is_normalized("NFKC", text):
        return text, None
    out, pieces = _normalize_pieces(text, _nfkc_unstable())
    result = "".join(out)
    if result != unicodedata.normalize("NFKC", text):
        # Composition across a run boundary (rare scripts): normalize whole words instead,
        # since NFKC never composes across white space.
        out, pieces = _normalize_pieces(text, re.compile(r"\S+"))
        result = "".join(out)
    return result, OffsetMap.from_pieces(pieces)


@lru_cache(maxsize=1)
def _lower_expanding() -> re.Pattern[str]:
    chars = [
        chr(cp)
        for cp in range(sys.maxunicode + 1)
        if not 0xD800 <= cp < 0xE000 and len(chr(cp).lower()) != 1
    ]
    return re.compile("[" + "".join(re.escape(c) for c in chars) + "]")


def lowercase(text: str) -> CharFilterResult:
    """Lowercase (``str.lower``); the rare characters that lowercase to two keep their span."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered, None
    out: list[str] = []
    pieces: list[tuple[int, int, int]] = []
    pos = 0
    for match in _lower_expanding().finditer(text):
        a = match.start()
        if a > pos:
            out.append(text[pos:a].lower())
            pieces.append((a - pos, pos, a))
        low = text[a].lower()
        out.append(low)
        pieces.append((len(low), a, a + 1))
        pos = a + 1
    if pos < len(text):
        out.append(text[pos:].lower())
        pieces.append((len(text) - pos, pos, len(text)))
    return "".join(out), OffsetMap.from_pieces(pieces)


def yo_to_ye(text: str) -> CharFilterResult:
    """ё → е and Ё → Е: Russian writes them interchangeably, and most texts omit the dots."""
    if "ё" not in text and "Ё" not in text:
        return text, None
    return text.replace("ё", "е").replace("Ё", "Е"), None


def html(text: str, *, mode: str = "auto", main_content: bool = False) -> CharFilterResult:
    """HTML → visible text (``mode`` "auto": only when the input looks like HTML)."""
    from neardup.analysis.html import html_to_text, looks_like_html

    if mode == "never" or (mode == "auto" and not looks_like_html(text)):
        return text, None
    return html_to_text(text, main_content=main_content)


@lru_cache(maxsize=1)
def _marks() -> re.Pattern[str]:
    nonspacing = [cp for cp in _all_code_points()
                  if not 0xD800 <= cp < 0xE000 and unicodedata.category(chr(cp)) == "Mn"]
    return re.compile(f"[{_char_class(nonspacing)}]+")


def strip_marks(text: str) -> CharFilterResult:
    """Drop non-spacing marks that survive NFKC: Russian stress marks (мо́локо → молоко).

    Run after ``nfkc``, which has already composed й, ё and other letters with marks.
    """
    pattern = _marks()
    if pattern.search(text) is None:
        return text, None
    out: list[str] = []
    pieces: list[tuple[int, int, int]] = []
    pos = 0
    for match in pattern.finditer(text):
        a, b = match.span()
        if a > pos:
            out.append(text[pos:a])
            pieces.append((a - pos, pos, a))
        pos = b
    if pos < len(text):
        out.append(text[pos:])
        pieces.append((len(text) - pos, pos, len(text)))
    return "".join(out), OffsetMap.from_pieces(pieces)

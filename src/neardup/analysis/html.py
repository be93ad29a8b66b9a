"""HTML to visible text, with an offset map back into the HTML source.

``html_to_text(html)`` returns the text a reader sees and an ``OffsetMap`` that gives, for
every output character, the span of ``html`` it came from. Choices:

* Parser: the standard library's ``html.parser.HTMLParser`` (no dependency, tolerant of
  broken markup: unclosed tags, stray ``<`` and ``&``), with ``convert_charrefs=False`` so
  that character references arrive as separate events and can be mapped to their source.
  Positions come from ``getpos()`` (line, column), turned into string offsets with a table of
  line starts (lines are split on ``"\\n"`` only, as the parser counts them). Because the
  parser gives up at some malformed references (``"&#;"``) until more data is fed, it is fed
  again until it makes no more progress before it is closed.
* Text data is copied as is, character for character; runs of whitespace are kept (later
  stages tokenize).
* Dropped: tags, comments, doctype and processing instructions, and the content of
  ``script style noscript template head title svg math iframe object canvas audio video``.
  An unclosed ``<head>`` ends, as in browsers, at the first element that cannot be in a head
  or at the first non-blank text.
* Character references (``&amp;`` ``&nbsp;`` ``&#1055;`` ``&#x41F;``, and the legacy names
  browsers accept without ``;``) are decoded; every decoded character maps to the span of the
  whole reference. Numeric references follow the HTML rules of ``html.unescape`` (0x80-0x9F
  as windows-1252, invalid code points as U+FFFD). Unknown names stay literal.
* Block-level elements (p, div, br, li, h1-h6, tr, td, section, article, blockquote, pre...)
  insert one ``"\\n"`` at their start and end tags, mapped to the span of the tag (never a
  zero-width span); consecutive separators collapse into one and none is put at the start.
  Inline elements (a, b, i, span, em, strong...) insert nothing: ``при<b>мер</b>`` reads
  ``пример``, each letter mapped to its own source character.

``html_to_text(html, main_content=True)`` keeps only the main content (the article, not
menus, footers or ads). The boilerplate detection is trafilatura's (optional extra ``html``).
Its extracted text is not mapped to the source, so each extracted paragraph is located in
our own converted text: both sides are normalised (whitespace runs become one space,
invisible characters such as soft hyphens are ignored, trafilatura's ``- `` list markers and
``|`` table separators are taken off) and searched forward in order, matching at word
boundaries. Long paragraphs (40+ characters) are placed first as anchors; short ones (a
heading, a list item) are then searched only between their neighbouring anchors, so that a
title repeated in a menu is not taken from the menu. A paragraph that cannot be found is
skipped. Kept regions are joined by one ``"\\n"`` mapped to the source between them. If the
library extracts nothing, or nothing it extracts can be found, the whole visible text is
returned.
"""

from __future__ import annotations

import bisect
import html as _html
import re
from html.entities import html5 as _HTML5
from html.parser import HTMLParser

import numpy as np
import numpy.typing as npt

from neardup.analysis.offsets import OffsetMap
from neardup.errors import require

IntArray = npt.NDArray[np.int64]

__all__ = ["html_to_text", "looks_like_html"]

_SKIP = frozenset(
    "script style noscript template head title svg math iframe object canvas audio video".split()
)
_VOID = frozenset(
    "area base br col embed hr img input link meta param source track wbr basefont bgsound "
    "keygen frame".split()
)
# Elements that may stand in a <head>; any other start tag closes an unclosed head.
_HEAD_CONTENT = frozenset(
    "title meta link style script base noscript template basefont bgsound object".split()
)
_BLOCK = frozenset(
    """address article aside blockquote body br caption center dd details dialog dir div dl
    dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 header hgroup
    hr html legend li listing main menu nav ol optgroup option p plaintext pre section select
    summary table tbody td textarea tfoot th thead tr ul xmp""".split()
)

# Legacy entity names that browsers decode even without a trailing ";" (e.g. "&amp", "&copy").
_LEGACY = frozenset(k for k in _HTML5 if not k.endswith(";"))
_LEGACY_MAXLEN = max(len(k) for k in _LEGACY)


class _Converter(HTMLParser):
    """Collects output pieces ``(text, src_start, src_end)`` from parser events."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=False)
        self.src = source
        self.line_starts = [0]
        find = source.find
        i = find("\n")
        while i >= 0:
            self.line_starts.append(i + 1)
            i = find("\n", i + 1)
        self.pieces: list[tuple[str, int, int]] = []  # (output text, src start, src end)
        self.skip: list[str] = []  # open elements whose content is dropped
        self.last_was_sep = True  # no separator at the very start

    # -- helpers

    def _pos(self) -> int:
        # getpos() without the call: the parser keeps the position in these attributes.
        return self.line_starts[self.lineno - 1] + self.offset

    def _emit(self, text: str, start: int, end: int) -> None:
        self.pieces.append((text, start, end))
        self.last_was_sep = False

    def _separator(self, start: int, end: int) -> None:
        if not self.last_was_sep:
            self._emit("\n", start, end)
            self.last_was_sep = True

    def _leave_head(self) -> None:
        if self.skip and self.skip[-1] == "head":
            self.skip.pop()

    # -- tags

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, closed=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, closed=True)

    def _start(self, tag: str, *, closed: bool) -> None:
        if tag not in _HEAD_CONTENT:
            self._leave_head()  # an unclosed head ends where body content begins
        if self.skip:
            if tag in _SKIP and not closed and tag not in _VOID:
                self.skip.append(tag)
            return
        if tag in _SKIP:
            if not closed:
                self.skip.append(tag)
            return
        if tag in _BLOCK:
            start = self._pos()
            raw = self.get_starttag_text() or ""
            self._separator(start, start + max(len(raw), 1))

    def handle_endtag(self, tag: str) -> None:
        if self.skip:
            for k in range(len(self.skip) - 1, -1, -1):
                if self.skip[k] == tag:
                    del self.skip[k:]
                    break
            return
        if tag in _BLOCK:
            start = self._pos()
            gt = self.src.find(">", start)
            self._separator(start, gt + 1 if gt >= 0 else start + 2)

    # -- text

    def handle_data(self, data: str) -> None:
        if self.skip:
            if not data.isspace():
                self._leave_head()  # text cannot be in a head: the body has begun
            if self.skip:
                return
        start = self.line_starts[self.lineno - 1] + self.offset
        end = start + len(data)
        if not self.src.startswith(data, start):
            # Defensive: a parser version that altered the text; map it all to its source.
            lt = self.src.find("<", start + 1)
            end = lt if lt > start else len(self.src)
        self.pieces.append((data, start, end))
        self.last_was_sep = False

    def handle_entityref(self, name: str) -> None:
        self._leave_head()
        if self.skip:
            return
        start = self._pos()
        end = start + 1 + len(name)
        semicolon = self.src.startswith(";", end)
        if semicolon:
            end += 1
            value = _HTML5.get(name + ";")
            if value is not None:
                self._emit(value, start, end)
                return
        elif name in _LEGACY:
            self._emit(_HTML5[name], start, end)
            return
        # The longest legacy name that prefixes ``name`` ("&notit" reads "¬it"), else literal.
        for k in range(min(len(name), _LEGACY_MAXLEN), 1, -1):
            if name[:k] in _LEGACY:
                head_end = start + 1 + k
                self._emit(_HTML5[name[:k]], start, head_end)
                self._emit(self.src[head_end:end], head_end, end)
                return
        self._emit(self.src[start:end], start, end)

    def handle_charref(self, name: str) -> None:
        self._leave_head()
        if self.skip:
            return
        start = self._pos()
        end = start + 2 + len(name)
        if self.src.startswith(";", end):
            end += 1
        self._emit(_html.unescape(f"&#{name};"), start, end)

    # comments, declarations and processing instructions produce nothing (the defaults)

    def parse_marked_section(self, i: int, report: bool = True) -> int:
        # A marked section the parser does not know ("<![…DATA[" or "<![ x" in a plain text,
        # a damaged CDATA) makes the standard library raise AssertionError. HTML reads "<!"
        # followed by anything else as a bogus comment up to the next ">": so do we.
        try:
            return int(super().parse_marked_section(i, report))
        except AssertionError:
            end = self.rawdata.find(">", i + 3)
            return -1 if end < 0 else end + 1

    def run(self) -> None:
        self.feed(self.src)
        # HTMLParser stops at some malformed references until more data arrives; feed
        # nothing until it makes no more progress, so close() does not dump the rest as text.
        while self.rawdata:
            before = len(self.rawdata)
            self.feed("")
            if len(self.rawdata) >= before:
                break
        self.close()


def _build_map(pieces: list[tuple[str, int, int]]) -> OffsetMap:
    """Vectorised ``OffsetMap.from_pieces``: a piece as long as its source maps character by
    character, any other maps every character to the whole source span."""
    if not pieces:
        empty = np.zeros(0, dtype=np.int64)
        return OffsetMap(empty, empty.copy())
    texts, starts, ends = zip(*pieces)
    lens = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    s = np.fromiter(starts, dtype=np.int64, count=len(texts))
    e = np.fromiter(ends, dtype=np.int64, count=len(texts))
    charwise = lens == e - s
    total = int(lens.sum())
    piece = np.repeat(np.arange(lens.shape[0]), lens)
    first_out = np.cumsum(lens) - lens
    within = np.arange(total, dtype=np.int64) - first_out[piece]
    cw = charwise[piece]
    out_starts = s[piece] + np.where(cw, within, 0)
    out_ends = np.where(cw, out_starts + 1, e[piece])
    return OffsetMap(out_starts, out_ends)


def _visible_text(html: str) -> tuple[str, OffsetMap]:
    conv = _Converter(html)
    try:
        conv.run()
    except AssertionError:
        # the standard library's parser still asserts on some malformed markup: such input
        # is not HTML a reader sees as a page, so it is kept as the text it is
        return html, _build_map([(html, 0, len(html))])
    return "".join([p[0] for p in conv.pieces]), _build_map(conv.pieces)


# --------------------------------------------------------------------------- main content

_WS = re.compile(r"\s+")
_INVISIBLE = frozenset("\u00ad\u200b\u200c\u200d\u2060\ufeff")
_LIST_MARKER = re.compile(r"^(?:[-*•]|#{1,6})\s+")
_ANCHOR_LEN = 40


_WS_CODES = np.array([c for c in range(0x3001) if chr(c).isspace()], dtype=np.uint32)
_INVISIBLE_CODES = np.array(sorted(map(ord, _INVISIBLE)), dtype=np.uint32)


def _normalize_with_index(text: str) -> tuple[str, IntArray]:
    """Collapse whitespace runs to one space and drop invisible characters (vectorised);
    also return, for each normalised character, its index in ``text``."""
    cp = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    sub = np.flatnonzero(~np.isin(cp, _INVISIBLE_CODES))
    ws = np.isin(cp[sub], _WS_CODES)
    prev_ws = np.concatenate(([True], ws[:-1]))  # leading whitespace is dropped
    keep = ~ws | ~prev_ws
    idx = sub[keep]
    if idx.shape[0] and ws[keep][-1]:
        idx = idx[:-1]  # trailing whitespace too
    out = np.where(np.isin(cp[idx], _WS_CODES), np.uint32(32), cp[idx]).astype(np.uint32)
    return out.tobytes().decode("utf-32-le", "surrogatepass"), idx.astype(np.int64)


def _normalize(text: str) -> str:
    text = "".join(ch for ch in text if ch not in _INVISIBLE)
    return _WS.sub(" ", text).strip()


def _paragraphs(extracted: str) -> list[str]:
    """Extracted lines without trafilatura's list markers, table rows split into cells."""
    out: list[str] = []
    for line in extracted.splitlines():
        line = _normalize(line)
        if not line:
            continue
        if line.startswith("|") or line.count(" | ") >= 1:
            out.extend(c for c in (_normalize(c) for c in line.split("|")) if c)
            continue
        line = _LIST_MARKER.sub("", line, count=1)
        if line:
            out.append(line)
    return out


def _find_word(hay: str, needle: str, lo: int, hi: int) -> int:
    """First occurrence of ``needle`` in ``hay[lo:hi]`` not cutting a word, or -1."""
    n = len(needle)
    pos = hay.find(needle, lo, hi)
    while pos >= 0:
        end = pos + n
        ok_left = pos == 0 or not (hay[pos - 1].isalnum() and needle[0].isalnum())
        ok_right = end == len(hay) or not (hay[end].isalnum() and needle[-1].isalnum())
        if ok_left and ok_right:
            return pos
        pos = hay.find(needle, pos + 1, hi)
    return -1


def _locate(norm: str, paragraphs: list[str]) -> list[tuple[int, int]]:
    """Spans in ``norm`` of the paragraphs found, in order (long ones anchor short ones)."""
    placed: list[tuple[int, int] | None] = [None] * len(paragraphs)
    cursor = 0
    for k, para in enumerate(paragraphs):
        if len(para) >= _ANCHOR_LEN:
            pos = _find_word(norm, para, cursor, len(norm))
            if pos >= 0:
                placed[k] = (pos, pos + len(para))
                cursor = pos + len(para)
    anchors = [(k, span) for k, span in enumerate(placed) if span is not None]
    anchor_keys = [k for k, _ in anchors]
    cursor = 0
    spans: list[tuple[int, int]] = []
    for k, para in enumerate(paragraphs):
        span = placed[k]
        if span is None:
            nxt = bisect.bisect_right(anchor_keys, k)
            limit = anchors[nxt][1][0] if nxt < len(anchors) else len(norm)
            pos = _find_word(norm, para, cursor, limit)
            if pos < 0:
                continue
            span = (pos, pos + len(para))
        spans.append(span)
        cursor = span[1]
    return spans


def _main_content(html: str, text: str, omap: OffsetMap) -> tuple[str, OffsetMap]:
    trafilatura = require("trafilatura", "html")
    extracted = trafilatura.extract(  # type: ignore[attr-defined]
        html,
        output_format="txt",
        include_comments=False,
        include_tables=True,
        include_images=False,
        include_links=False,
        with_metadata=False,
    )
    if not extracted or not extracted.strip():
        return text, omap
    norm, idx = _normalize_with_index(text)
    spans = _locate(norm, _paragraphs(extracted))
    if not spans:
        return text, omap
    # Regions of ``text`` to keep, merged where they touch or overlap.
    regions: list[list[int]] = []
    for a, b in spans:
        start, end = int(idx[a]), int(idx[b - 1]) + 1
        if regions and start <= regions[-1][1]:
            regions[-1][1] = max(regions[-1][1], end)
        else:
            regions.append([start, end])
    parts: list[str] = []
    starts: list[IntArray] = []
    ends: list[IntArray] = []
    prev_end: int | None = None
    for start, end in regions:
        if prev_end is not None:
            # One separator, mapped to the source of everything dropped in between.
            parts.append("\n")
            starts.append(np.array([omap.starts[prev_end]], dtype=np.int64))
            ends.append(np.array([omap.ends[start - 1]], dtype=np.int64))
        parts.append(text[start:end])
        starts.append(omap.starts[start:end])
        ends.append(omap.ends[start:end])
        prev_end = end
    return "".join(parts), OffsetMap(np.concatenate(starts), np.concatenate(ends))


# --------------------------------------------------------------------------- public API


def html_to_text(html: str, *, main_content: bool = False) -> tuple[str, OffsetMap]:
    """The visible text of ``html`` and, per output character, its span in ``html``.

    With ``main_content=True`` only the main content of the page is kept (needs the
    ``html`` extra: trafilatura); the map still points into ``html``.
    """
    text, omap = _visible_text(html)
    if main_content:
        return _main_content(html, text, omap)
    return text, omap


_TAG_RE = re.compile(
    r"<(?:/?(?:p|div|br|span|a|b|i|u|em|strong|li|ul|ol|table|tr|td|th|h[1-6]|body|head|"
    r"title|meta|link|script|style|img|section|article|nav|header|footer|form|input|pre|"
    r"blockquote|html)\b[^<>]*>|!--)",
    re.IGNORECASE,
)


def looks_like_html(text: str) -> bool:
    """Cheap guess: a doctype/``<html>`` at the start, or at least three common tags (or
    comments) in the first 2 KB."""
    head = text[:2048].lstrip("\ufeff \t\r\n").lower()
    if head.startswith(("<!doctype html", "<html")):
        return True
    if head.startswith("<?xml") and "<html" in head:
        return True
    return len(_TAG_RE.findall(head)) >= 3

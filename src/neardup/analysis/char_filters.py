"""Character filters: text → text, each with an offset map back to its input.

Each filter returns ``(text, map)`` where ``map`` is ``None`` when every character stayed at its
place (the common, free case) and an :class:`OffsetMap` otherwise.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from neardup._kernels import text as text_kernels
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


@lru_cache(maxsize=1)
def _nfkc_table() -> npt.NDArray[np.uint8]:
    """Per code point: bit 1 when NFKC may change it (not NFKC-stable alone, or a combining
    mark), bit 2 when it is a combining mark — the classes of :func:`_nfkc_unstable`."""
    table = np.zeros(sys.maxunicode + 1, dtype=np.uint8)
    for cp in _all_code_points():
        if 0xD800 <= cp < 0xE000:
            continue
        ch = chr(cp)
        if unicodedata.combining(ch):
            table[cp] = text_kernels.NFKC_UNSTABLE | text_kernels.NFKC_COMBINING
        elif not unicodedata.is_normalized("NFKC", ch):
            table[cp] = text_kernels.NFKC_UNSTABLE
    return table


def _replace_runs(
    text: str, run_starts: npt.NDArray[np.int64], run_ends: npt.NDArray[np.int64],
    replace: Callable[[str], str],
) -> tuple[str, OffsetMap]:
    """``text`` with each run ``[run_starts[i], run_ends[i])`` replaced by ``replace(run)``.

    The offset map is :meth:`OffsetMap.from_pieces` of the same pieces as
    :func:`_normalize_pieces` builds: unchanged stretches between runs, then each run.
    """
    out: list[str] = []
    n_runs = run_starts.shape[0]
    # pieces: at most one gap before each run, the run, and a last gap
    lengths = np.zeros(2 * n_runs + 1, dtype=np.int64)
    src_starts = np.zeros(2 * n_runs + 1, dtype=np.int64)
    src_ends = np.zeros(2 * n_runs + 1, dtype=np.int64)
    pos = 0
    piece = 0
    for a, b in zip(run_starts.tolist(), run_ends.tolist()):
        if a > pos:
            out.append(text[pos:a])
            lengths[piece], src_starts[piece], src_ends[piece] = a - pos, pos, a
            piece += 1
        replaced = replace(text[a:b])
        out.append(replaced)
        lengths[piece], src_starts[piece], src_ends[piece] = len(replaced), a, b
        piece += 1
        pos = b
    if pos < len(text):
        out.append(text[pos:])
        lengths[piece], src_starts[piece], src_ends[piece] = len(text) - pos, pos, len(text)
        piece += 1
    offsets = OffsetMap.from_piece_arrays(lengths[:piece], src_starts[:piece], src_ends[:piece])
    return "".join(out), offsets


def _nfkc_run(run: str) -> str:
    return unicodedata.normalize("NFKC", run)


def nfkc(text: str) -> CharFilterResult:
    """Unicode NFKC: compatibility forms folded (ﬁ → fi, № → No, non-breaking space → space)."""
    if unicodedata.is_normalized("NFKC", text):
        return text, None
    # the matches of _nfkc_unstable(), found by a table scan instead of the (slow) regex
    run_starts, run_ends = text_kernels.nfkc_runs(text_kernels.code_points(text), _nfkc_table())
    result, offsets = _replace_runs(text, run_starts, run_ends, _nfkc_run)
    # NFKC(text) == NFKC(result), since normalizing pieces keeps the concatenation
    # equivalent; so result is NFKC(text) exactly when it is already normalized, which the
    # quick check answers without normalizing the whole text again.
    if not unicodedata.is_normalized("NFKC", result):
        # Composition across a run boundary (rare scripts): normalize whole words instead,
        # since NFKC never composes across white space.
        out, pieces = _normalize_pieces(text, re.compile(r"\S+"))
        return "".join(out), OffsetMap.from_pieces(pieces)
    return result, offsets


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


@lru_cache(maxsize=1)
def _marks_table() -> npt.NDArray[np.uint8]:
    """1 for the non-spacing marks (category Mn) of :func:`_marks`, 0 elsewhere."""
    table = np.zeros(sys.maxunicode + 1, dtype=np.uint8)
    for cp in _all_code_points():
        if not 0xD800 <= cp < 0xE000 and unicodedata.category(chr(cp)) == "Mn":
            table[cp] = 1
    return table


def _drop(run: str) -> str:
    return ""


def strip_marks(text: str) -> CharFilterResult:
    """Drop non-spacing marks that survive NFKC: Russian stress marks (мо́локо → молоко).

    Run after ``nfkc``, which has already composed й, ё and other letters with marks.
    """
    if text.isascii():
        return text, None
    # the runs of _marks(), found by a table scan instead of the (slow) regex
    run_starts, run_ends = text_kernels.table_runs(text_kernels.code_points(text), _marks_table())
    if run_starts.shape[0] == 0:
        return text, None
    return _replace_runs(text, run_starts, run_ends, _drop)

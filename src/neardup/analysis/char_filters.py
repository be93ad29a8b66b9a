"""Character filters: text → text, each with an offset map back to its input.

Each filter returns ``(text, map)`` where ``map`` is ``None`` when every character stayed at its
place (the common, free case) and an :class:`OffsetMap` otherwise.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable
from contextvars import ContextVar
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from neardup._kernels import text as text_kernels
from neardup._table_cache import disk_cached
from neardup.analysis.offsets import OffsetMap

CharFilterResult = tuple[str, OffsetMap | None]

#: True while :mod:`neardup.analysis.chunked` runs the filters on one piece of a longer text.
PIECEWISE: ContextVar[bool] = ContextVar("neardup_piecewise", default=False)


class WholeTextNeeded(Exception):
    """A filter cannot give a piece's share of the whole text's result (see ``nfkc``)."""


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
    return _char_class(
        [
            cp
            for cp in _all_code_points()
            if not 0xD800 <= cp < 0xE000 and unicodedata.combining(chr(cp))
        ]
    )


@lru_cache(maxsize=1)
def _nfkc_unstable() -> re.Pattern[str]:
    """What NFKC may change: a character followed by combining marks (they may compose with
    it), or a single character that is not NFKC-stable alone. Single characters, so that
    "…ﬁ" maps "..." to "…" and "fi" to "ﬁ" rather than both to both."""
    unstable = _char_class(
        [
            cp
            for cp in _all_code_points()
            if not 0xD800 <= cp < 0xE000
            and (unicodedata.combining(chr(cp)) or not unicodedata.is_normalized("NFKC", chr(cp)))
        ]
    )
    return re.compile(f".[{_combining_class()}]+|[{unstable}]", re.DOTALL)


def _normalize_pieces(
    text: str, pattern: re.Pattern[str]
) -> tuple[list[str], list[tuple[int, int, int]]]:
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
@disk_cached("nfkc_table", text_kernels)
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
    text: str,
    run_starts: npt.NDArray[np.int64],
    run_ends: npt.NDArray[np.int64],
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
    for a, b in zip(run_starts.tolist(), run_ends.tolist(), strict=True):
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


def is_nfkc(text: str) -> bool:
    """``unicodedata.is_normalized("NFKC", text)``, asked only of the stretches around the
    characters that are not :func:`_nfkc_safe` (each with the character before it).

    A safe character has a normalization boundary before it (canonical class 0, stable, never
    composing with what precedes it): the NFKC of a text is the NFKC of its pieces cut there,
    so the text is normalized exactly when every piece is, and a safe character alone is. The
    whole-text check normalizes the whole text as soon as one character might compose with
    its neighbour (a stress mark, a Hangul jamo), ~0.5 ms for a long article; the pieces are a
    few characters each.
    """
    if text.isascii():
        return True
    starts, ends = text_kernels.unsafe_segments(text_kernels.code_points(text), _nfkc_safe_table())
    is_normalized = unicodedata.is_normalized
    return all(
        is_normalized("NFKC", text[a:b])
        for a, b in zip(starts.tolist(), ends.tolist(), strict=True)
    )


#: The text the last ``nfkc`` call of this context changed, what it made of it and the map:
#: the ``fold`` filter after it reads the combining marks NFKC has composed by then (an accent
#: added to ``e`` is ``é``; :mod:`neardup.analysis.evasion` strips it) and clears it.
LAST_NFKC: ContextVar[tuple[str, str, OffsetMap | None] | None] = ContextVar(
    "neardup_last_nfkc", default=None
)


def nfkc(text: str) -> CharFilterResult:
    """Unicode NFKC: compatibility forms folded (ﬁ → fi, № → No, non-breaking space → space)."""
    result, offsets = _nfkc(text)
    if result is not text:
        LAST_NFKC.set((text, result, offsets))
    return result, offsets


def _nfkc(text: str) -> CharFilterResult:
    if is_nfkc(text):
        return text, None
    # the matches of _nfkc_unstable(), found by a table scan instead of the (slow) regex
    run_starts, run_ends = text_kernels.nfkc_runs(text_kernels.code_points(text), _nfkc_table())
    result, offsets = _replace_runs(text, run_starts, run_ends, _nfkc_run)
    # NFKC(text) == NFKC(result), since normalizing pieces keeps the concatenation
    # equivalent; so result is NFKC(text) exactly when it is already normalized, which the
    # quick check answers without normalizing the whole text again.
    if not is_nfkc(result):
        # Composition across a run boundary (rare scripts): normalize whole words instead,
        # since NFKC never composes across white space.
        if PIECEWISE.get():
            # the whole text would take this branch too, and map every piece word by word
            raise WholeTextNeeded
        out, pieces = _normalize_pieces(text, re.compile(r"\S+"))
        return "".join(out), OffsetMap.from_pieces(pieces)
    return result, offsets


@lru_cache(maxsize=1)
@disk_cached("lower_expanding")
def _lower_expanding_codes() -> npt.NDArray[np.uint32]:
    """The code points whose lowercase is not one character (a scan of all of Unicode, 0.5 s,
    so kept on disk)."""
    return np.array(
        [
            cp
            for cp in _all_code_points()
            if not 0xD800 <= cp < 0xE000 and len(chr(cp).lower()) != 1
        ],
        dtype=np.uint32,
    )


@lru_cache(maxsize=1)
def _lower_expanding() -> re.Pattern[str]:
    chars = [chr(cp) for cp in _lower_expanding_codes().tolist()]
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
    if mode == "never" or (mode == "auto" and not might_be_html(text)):
        return text, None
    from neardup.analysis.html import html_to_text

    return html_to_text(text, main_content=main_content)


#: How far into a text :func:`neardup.analysis.html.looks_like_html` looks.
HTML_HEAD = 2048


def might_be_html(text: str) -> bool:
    """:func:`~neardup.analysis.html.looks_like_html`, asked only when the first
    :data:`HTML_HEAD` characters hold a ``<``: every sign it looks for (a doctype, ``<html``,
    ``<?xml``, a tag or a comment) starts with one, and no character lowercases to ``<``
    (a test checks that over all of Unicode). Most plain texts have none, and so skip the
    lowercased copy of their head that the full check makes."""
    if text.find("<", 0, HTML_HEAD) < 0:
        return False
    from neardup.analysis.html import looks_like_html

    return looks_like_html(text)


@lru_cache(maxsize=1)
def _marks() -> re.Pattern[str]:
    nonspacing = [
        cp
        for cp in _all_code_points()
        if not 0xD800 <= cp < 0xE000 and unicodedata.category(chr(cp)) == "Mn"
    ]
    return re.compile(f"[{_char_class(nonspacing)}]+")


@lru_cache(maxsize=1)
@disk_cached("marks_table", text_kernels)
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


# --- the fused fast path ----------------------------------------------------------------------
# ``nfkc``, ``lowercase``, ``yo`` and ``strip_marks`` each leave most characters alone or map
# them one to one, with no offset map. Where that holds for every character of a document, the
# chain is a per-character map, and the analyzer runs it, the tokenizer and the encoder as one
# kernel over a lookup table (neardup._kernels.text.fused_words). The tables below say where it
# holds; every other character sends its document to the filters above, so results never change.

#: Code points the fused tables cover (planes 0 and 1: every script, emoji); any other code
#: point sends its document to the general path.
FAST_DOMAIN = 0x20000
#: The names of the char filters the fused path can run (the html filter is checked apart).
#: ``fold`` (:mod:`neardup.analysis.evasion`) changes nothing in a text where its scan
#: (:func:`neardup._kernels.text.might_have_tricks`) finds nothing: the analyzer runs the scan
#: before the fused kernel, whose table leaves ``fold`` out.
FAST_FILTERS = frozenset({"nfkc", "lowercase", "yo", "strip_marks", "fold"})
#: The fast-path char filters that are not per-character maps but a scan (see above).
SCANNED_FILTERS = frozenset({"fold"})
_NO_MAP = np.uint32(0xFFFFFFFF)
_CAPITAL_SIGMA = 0x3A3  # lowercases to σ or ς depending on its neighbours


def _domain_chars() -> list[str]:
    return [chr(cp) if not 0xD800 <= cp < 0xE000 else "" for cp in range(FAST_DOMAIN)]


@lru_cache(maxsize=1)
def _lower_map() -> npt.NDArray[np.uint32]:
    """``ord(c.lower())`` where ``c.lower()`` is one character whatever the context; ``_NO_MAP``
    elsewhere (characters that lowercase to two, capital sigma, surrogates)."""
    out = np.full(FAST_DOMAIN, _NO_MAP, dtype=np.uint32)
    for cp, ch in enumerate(_domain_chars()):
        if ch and cp != _CAPITAL_SIGMA:
            low = ch.lower()
            if len(low) == 1:
                out[cp] = ord(low)
    return out


@lru_cache(maxsize=1)
def _composes_with_previous() -> frozenset[int]:
    """Characters that NFC/NFKC may compose with the character before them (the Quick_Check
    "Maybe" characters): the second character of every two-character canonical decomposition,
    and the Hangul medial vowels and final consonants."""
    seconds: set[int] = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))
    for cp in _all_code_points():
        if 0xD800 <= cp < 0xE000:
            continue
        decomposition = unicodedata.decomposition(chr(cp))
        if decomposition and not decomposition.startswith("<"):
            parts = decomposition.split()
            if len(parts) == 2:
                seconds.add(int(parts[1], 16))
    return frozenset(seconds)


@lru_cache(maxsize=1)
@disk_cached("nfkc_safe", text_kernels)
def _nfkc_safe() -> npt.NDArray[np.bool_]:
    """True for characters that keep any text made only of them NFKC-normalized: canonical
    combining class 0, NFKC-stable alone, never composing with the character before, and
    decomposing (NFKD) to a starter that does not either. A text of such characters passes
    Unicode's NFKC quick check, so ``nfkc`` returns it unchanged."""
    maybe = _composes_with_previous()
    out = np.zeros(FAST_DOMAIN, dtype=np.bool_)
    for cp, ch in enumerate(_domain_chars()):
        if not ch or cp in maybe or unicodedata.combining(ch):
            continue
        if not unicodedata.is_normalized("NFKC", ch):
            continue
        head = unicodedata.normalize("NFKD", ch)[0]
        if ord(head) in maybe or unicodedata.combining(head):
            continue
        out[cp] = True
    return out


def nfkc_boundary(char: str) -> bool:
    """Whether NFKC has a normalization boundary before ``char`` whatever precedes it (a
    :func:`_nfkc_safe` character): where :mod:`neardup.analysis.chunked` may cut a text."""
    cp = ord(char)
    return cp < FAST_DOMAIN and bool(_nfkc_safe()[cp])


@lru_cache(maxsize=1)
def _nfkc_safe_table() -> npt.NDArray[np.uint8]:
    """:func:`_nfkc_safe` as bytes, for :func:`neardup._kernels.text.unsafe_segments`."""
    return _nfkc_safe().astype(np.uint8)


@lru_cache(maxsize=1)
def _nonspacing_domain() -> npt.NDArray[np.bool_]:
    """The non-spacing marks (category Mn, what ``strip_marks`` drops) of the domain."""
    out = np.zeros(FAST_DOMAIN, dtype=np.bool_)
    for cp, ch in enumerate(_domain_chars()):
        if ch and unicodedata.category(ch) == "Mn":
            out[cp] = True
    return out


@lru_cache(maxsize=1)
def _nfkc_alone() -> tuple[npt.NDArray[np.uint32], dict[int, tuple[int, ...]]]:
    """What ``nfkc`` makes of a lone character of the domain that is not NFKC-stable and not
    a combining mark (``nfkc`` normalizes each such character apart, as a run of its own):
    ``(one, several)``, ``one[cp]`` the single character it becomes (``_NO_MAP`` if none),
    ``several[cp]`` the characters when it becomes more than one (… → ..., № → No)."""
    one = np.full(FAST_DOMAIN, _NO_MAP, dtype=np.uint32)
    several: dict[int, tuple[int, ...]] = {}
    for cp, ch in enumerate(_domain_chars()):
        if not ch or unicodedata.combining(ch) or unicodedata.is_normalized("NFKC", ch):
            continue
        out = unicodedata.normalize("NFKC", ch)
        if len(out) == 1:
            one[cp] = ord(out)
        elif out:
            several[cp] = tuple(map(ord, out))
    return one, several


def _simulate_nfkc(
    c: int,
    safe: npt.NDArray[np.bool_],
    one: npt.NDArray[np.uint32],
    several: dict[int, tuple[int, ...]],
) -> tuple[int, ...] | None:
    """What ``nfkc`` makes of the lone character ``c`` (for :func:`_simulate`)."""
    if safe[c]:
        return (c,)
    if one[c] != _NO_MAP and safe[one[c]]:
        return (int(one[c]),)
    if c in several and all(0 <= x < FAST_DOMAIN and safe[x] for x in several[c]):
        return several[c]
    return None


def _simulate(cp: int, filters: tuple[str, ...]) -> list[int] | None:
    """The characters the fusable ``filters`` make of one character, each step as the filter
    itself does it in a text of fusable characters; ``None`` where the fused path cannot."""
    safe = _nfkc_safe()
    one, several = _nfkc_alone()
    lower = _lower_map()
    marks = _nonspacing_domain()
    chars = [cp]
    for name in filters:
        if any(not 0 <= c < FAST_DOMAIN for c in chars):
            return None
        out: list[int] = []
        for c in chars:
            if name == "nfkc":
                normalized = _simulate_nfkc(c, safe, one, several)
                if normalized is None:
                    return None
                out.extend(normalized)
            elif name == "lowercase":
                if lower[c] == _NO_MAP:
                    return None
                out.append(int(lower[c]))
            elif name == "strip_marks":
                if marks[c]:
                    return None
                out.append(c)
            else:  # yo
                out.append({ord("ё"): ord("е"), ord("Ё"): ord("Е")}.get(c, c))
        chars = out
    if not chars or any(not 0 <= c < FAST_DOMAIN for c in chars):
        return None
    return chars


FusedTable = tuple[npt.NDArray[np.uint64], npt.NDArray[np.int64]]


@lru_cache(maxsize=8)
def fused_table(filters: tuple[str, ...]) -> FusedTable | None:
    """The tables of :func:`neardup._kernels.text.fused_words` for the char filters
    ``filters`` (names, in chain order): ``(table, exp_offsets)``, or ``None`` when one of
    them cannot be fused (the table covers ``FAST_DOMAIN`` code points, then the entries of
    the sequences).

    Per code point: what the filters make of it and its tokenizer class, a sequence of those
    (``FUSED_EXPAND``: ``nfkc`` makes "…" into "..."), or ``FUSED_GENERAL`` where a filter
    might not map it on its own, without looking at its neighbours (``nfkc``: a combining mark,
    or a character whose text might not stay normalized — see :func:`_nfkc_safe`;
    ``lowercase``: no single lowercase, or capital sigma; and surrogates); ``FUSED_DROP`` for
    a non-spacing mark ``strip_marks`` drops that is NFKC-safe (an emoji's variation selector:
    a combining mark is general by ``nfkc`` already). One character becoming several maps
    each of them back to it, as the filters' offset maps do. Built once (~0.3 s, and ~1 s for
    the general path's tables) and kept on disk.
    """
    if any(name not in FAST_FILTERS for name in filters):
        return None
    # a text the fused kernel takes has passed the scan of ``fold``: the filter is the identity
    filters = tuple(name for name in filters if name not in SCANNED_FILTERS)
    # The general path's tables too, now: the few documents the fused path sends back need
    # them, and a process warmed up before a fork (neardup.sketch.parallel) then hands every
    # table to its workers instead of each worker loading them again.
    text_kernels.char_classes()
    if "nfkc" in filters:
        _nfkc_table()
    if "strip_marks" in filters:
        _marks_table()
    return _build_fused_table(filters)


@disk_cached("fused_table", text_kernels)
def _build_fused_table(filters: tuple[str, ...]) -> FusedTable:
    """The table of :func:`fused_table` for fusable ``filters``, built from the Unicode
    database (~0.3 s; kept on disk by :mod:`neardup._table_cache`)."""
    safe = _nfkc_safe()
    one, several = _nfkc_alone()
    is_several = np.zeros(FAST_DOMAIN, dtype=np.bool_)
    is_several[list(several)] = True
    mapped = np.arange(FAST_DOMAIN, dtype=np.uint32)
    general = np.zeros(FAST_DOMAIN, dtype=np.bool_)
    general[0xD800:0xE000] = True
    expand = np.zeros(FAST_DOMAIN, dtype=np.bool_)
    drop = np.zeros(FAST_DOMAIN, dtype=np.bool_)
    # every character through the filters at once, one to one; those that become several
    # characters are marked and redone one by one below
    for name in filters:
        inside = mapped < FAST_DOMAIN
        general |= ~inside
        index = np.where(inside, mapped, 0)
        if name == "nfkc":
            single = one[index]
            single_ok = (single != _NO_MAP) & safe[
                np.where(single != _NO_MAP, single, 0) % FAST_DOMAIN
            ]
            single_ok &= single < FAST_DOMAIN
            expand |= is_several[index] & ~general
            general |= ~(safe[index] | single_ok | is_several[index])
            mapped = np.where(single_ok & ~general, single, mapped)
        elif name == "lowercase":
            lowered = _lower_map()[index]
            general |= (lowered == _NO_MAP) & ~expand
            mapped = np.where(general | expand, mapped, lowered)
        elif name == "strip_marks":
            # a mark left in a fused text is NFKC-safe (combining class 0, composing with
            # nothing), so dropping it changes nothing around it: a dropped entry
            drop |= _nonspacing_domain()[index] & ~expand & ~general
        else:  # yo
            mapped = np.where(mapped == ord("ё"), np.uint32(ord("е")), mapped)
            mapped = np.where(mapped == ord("Ё"), np.uint32(ord("Е")), mapped)
    inside = mapped < FAST_DOMAIN
    general |= ~inside & ~expand
    mapped = np.where(inside, mapped, 0).astype(np.uint32)
    classes = text_kernels.class_table(FAST_DOMAIN)
    table = text_kernels.fused_entries(mapped, classes[mapped])
    offsets = [0]
    sequences: list[int] = []
    for cp in np.flatnonzero(expand & ~general).tolist():
        chars = _simulate(cp, filters)
        if chars is None:
            general[cp] = True
            continue
        if not 1 <= len(chars) <= 256:  # the entry holds the length less one in 8 bits
            general[cp] = True
            continue
        extra = np.uint64(len(chars) - 1) << np.uint64(text_kernels.FUSED_EXTRA_SHIFT)
        table[cp] = text_kernels.FUSED_EXPAND | extra | np.uint64(len(offsets) - 1)
        sequences.extend(chars)
        offsets.append(len(sequences))
    table[drop & ~general] = text_kernels.FUSED_DROP
    table[general] = text_kernels.FUSED_GENERAL
    seq = np.array(sequences, dtype=np.uint32)
    # the sequences' entries follow the code points' in the same table
    table = np.concatenate([table, text_kernels.fused_entries(seq, classes[seq])])
    return table, np.array(offsets, dtype=np.int64) + FAST_DOMAIN

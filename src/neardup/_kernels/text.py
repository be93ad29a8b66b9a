"""Hot loops over code points: word tokenization and UTF-8 encoding of the canonical stream.

Text enters these kernels as a ``uint32`` array of code points (``str.encode("utf-32-le")``
viewed through numpy), so no Python code runs per character or per token.

:func:`fused_words` is the analyzer's fast path: the char filters (as a per-character table),
the tokenizer and the encoder in one pass, the same tokens as :func:`tokenize_words` and the
same bytes as :func:`encode_tokens` give on the filtered text; :func:`unsafe_segments` serves
the NFKC filter's normalization check.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import lru_cache

import numpy as np
import numpy.typing as npt
from numba import njit

# numba's reader of one code point of its native str (the buffer it borrows from Python's str)
from numba.cpython.unicode import _get_code_point

from neardup._table_cache import disk_cached

# Character classes of the tokenizer table.
OTHER = np.uint8(0)
LETTER = np.uint8(1)
DIGIT = np.uint8(2)
HYPHEN = np.uint8(3)  # joins two word characters: северо-западный, COVID-19
APOSTROPHE = np.uint8(4)  # joins two word characters: don't, д'Артаньян
DECIMAL_MARK = np.uint8(5)  # joins two digits: 3.14, 2,5
MARK = np.uint8(6)  # a combining mark continues the word it follows: мо́локо

_HYPHENS = "-\u2010\u2011"
_APOSTROPHES = "'\u2019"
_DECIMAL_MARKS = ".,"


@lru_cache(maxsize=1)
def char_classes() -> npt.NDArray[np.uint8]:
    """The class of every code point, from Python's own Unicode tables (built once, ~0.3 s, and
    kept on disk: :mod:`neardup._table_cache`)."""
    return class_table(sys.maxunicode + 1)


@lru_cache(maxsize=4)
@disk_cached("char_classes")
def class_table(limit: int) -> npt.NDArray[np.uint8]:
    """The classes of the code points below ``limit`` (every property is of one character,
    so this is ``char_classes()[:limit]``, built in proportion to ``limit``)."""
    table = np.zeros(limit, dtype=np.uint8)
    # Surrogates cannot stand alone in a str: a NUL holds their places, so index == code point.
    everything = "".join(map(chr, range(min(limit, 0xD800)))) + "\x00" * max(
        0, min(limit, 0xE000) - 0xD800
    )
    everything += "".join(map(chr, range(0xE000, limit)))
    for match in re.finditer(r"[^\W_]+", everything):
        table[match.start() : match.end()] = LETTER
    for match in re.finditer(r"\d+", everything):
        table[match.start() : match.end()] = DIGIT
    for cp in range(len(everything)):
        if table[cp] == OTHER and unicodedata.combining(everything[cp]):
            table[cp] = MARK
    for chars, cls in (
        (_HYPHENS, HYPHEN),
        (_APOSTROPHES, APOSTROPHE),
        (_DECIMAL_MARKS, DECIMAL_MARK),
    ):
        for ch in chars:
            if ord(ch) < limit:
                table[ord(ch)] = cls
    return table


def code_points(text: str) -> npt.NDArray[np.uint32]:
    """The code points of ``text`` as a uint32 array (a copy-free view of its UTF-32 bytes)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


@njit(cache=True, nogil=True)
def str_code_points(text: str) -> npt.NDArray[np.uint32]:
    """:func:`code_points` without the GIL: numba reads the str's own buffer (one, two or four
    bytes a character) in place, so a thread copies a batch's text while the others run
    Python, where ``str.encode`` would hold the GIL for it (and it is faster)."""
    n = len(text)
    out = np.empty(n, dtype=np.uint32)
    for i in range(n):
        out[i] = _get_code_point(text, i)
    return out


@njit(cache=True, nogil=True)
def _is_word(cls: np.uint8) -> bool:
    return cls == 1 or cls == 2


@njit(cache=True, nogil=True)
def tokenize_words(
    cps: npt.NDArray[np.uint32],
    table: npt.NDArray[np.uint8],
    join_hyphens: bool,
    keep_numbers: bool,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Word tokens as half-open ``[start, end)`` code-point spans.

    A token is a run of letters and digits (with the combining marks that follow them); a hyphen
    or apostrophe between two word characters joins them (when ``join_hyphens``); a ``.`` or
    ``,`` between two digits joins them. With ``keep_numbers`` false, tokens without a letter
    are dropped.
    """
    n = cps.shape[0]
    starts = np.empty(n // 2 + 1, dtype=np.int64)
    ends = np.empty(n // 2 + 1, dtype=np.int64)
    count = 0
    i = 0
    while i < n:
        if not _is_word(table[cps[i]]):
            i += 1
            continue
        start = i
        has_letter = table[cps[i]] == 1
        i += 1
        while i < n:
            cls = table[cps[i]]
            if cls == 1 or cls == 2 or cls == 6:
                if cls == 1:
                    has_letter = True
                i += 1
                continue
            if i + 1 < n:
                prev_cls = table[cps[i - 1]]
                next_cls = table[cps[i + 1]]
                if join_hyphens and (cls == 3 or cls == 4) and _is_word(next_cls):
                    i += 1
                    continue
                if cls == 5 and prev_cls == 2 and next_cls == 2:
                    i += 1
                    continue
            break
        if keep_numbers or has_letter:
            starts[count] = start
            ends[count] = i
            count += 1
    return starts[:count].copy(), ends[:count].copy()


@njit(cache=True, nogil=True)
def _utf8_length(cp: np.uint32) -> int:
    if cp < 0x80:
        return 1
    if cp < 0x800:
        return 2
    if cp < 0x10000:
        return 3
    return 4


@njit(cache=True, nogil=True)
def encode_tokens(
    cps: npt.NDArray[np.uint32],
    tok_starts: npt.NDArray[np.int64],
    tok_ends: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The canonical stream: the tokens' UTF-8 bytes joined by single spaces.

    Returns the bytes and each token's byte span in them, so that the shingle of tokens
    ``i..j`` is the contiguous byte span ``[byte_starts[i], byte_ends[j])``.
    """
    m = tok_starts.shape[0]
    total = 0
    for t in range(m):
        for j in range(tok_starts[t], tok_ends[t]):
            total += _utf8_length(cps[j])
    total += max(m - 1, 0)
    out = np.empty(total, dtype=np.uint8)
    byte_starts = np.empty(m, dtype=np.int64)
    byte_ends = np.empty(m, dtype=np.int64)
    pos = 0
    for t in range(m):
        if t > 0:
            out[pos] = 32
            pos += 1
        byte_starts[t] = pos
        for j in range(tok_starts[t], tok_ends[t]):
            cp = cps[j]
            if cp < 0x80:
                out[pos] = cp
                pos += 1
            elif cp < 0x800:
                out[pos] = 0xC0 | (cp >> 6)
                out[pos + 1] = 0x80 | (cp & 0x3F)
                pos += 2
            elif cp < 0x10000:
                out[pos] = 0xE0 | (cp >> 12)
                out[pos + 1] = 0x80 | ((cp >> 6) & 0x3F)
                out[pos + 2] = 0x80 | (cp & 0x3F)
                pos += 3
            else:
                out[pos] = 0xF0 | (cp >> 18)
                out[pos + 1] = 0x80 | ((cp >> 12) & 0x3F)
                out[pos + 2] = 0x80 | ((cp >> 6) & 0x3F)
                out[pos + 3] = 0x80 | (cp & 0x3F)
                pos += 4
        byte_ends[t] = pos
    return out, byte_starts, byte_ends


@njit(cache=True, nogil=True)
def utf8_offsets(cps: npt.NDArray[np.uint32]) -> npt.NDArray[np.int64]:
    """Byte offset of every code point in its UTF-8 encoding (length ``len(cps) + 1``)."""
    n = cps.shape[0]
    out = np.empty(n + 1, dtype=np.int64)
    pos = 0
    for i in range(n):
        out[i] = pos
        pos += _utf8_length(cps[i])
    out[n] = pos
    return out


# --- char filter scans ------------------------------------------------------------------------
# Python's ``re`` tests a huge character class (every combining mark, every character NFKC may
# change) at every position of the text; a lookup table over code points does the same scan at
# memory speed. The filters in ``neardup.analysis.char_filters`` build the tables once.

#: Table bits for :func:`nfkc_runs`.
NFKC_UNSTABLE = np.uint8(1)  # NFKC may change the character taken alone, or it is a mark
NFKC_COMBINING = np.uint8(2)  # a combining mark: it may compose with the character before it


@njit(cache=True, nogil=True)
def nfkc_runs(
    cps: npt.NDArray[np.uint32], table: npt.NDArray[np.uint8]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Half-open spans of what NFKC may change, leftmost first, never overlapping.

    The same spans as ``re.finditer(".[C]+|[U]", text, re.DOTALL)`` with ``C`` the combining
    marks and ``U`` the unstable characters: a character with the combining marks that follow
    it, or else a single unstable character.
    """
    n = cps.shape[0]
    starts = np.empty(n, dtype=np.int64)
    ends = np.empty(n, dtype=np.int64)
    count = 0
    i = 0
    while i < n:
        if i + 1 < n and (table[cps[i + 1]] & 2) != 0:
            j = i + 2
            while j < n and (table[cps[j]] & 2) != 0:
                j += 1
        elif (table[cps[i]] & 1) != 0:
            j = i + 1
        else:
            i += 1
            continue
        starts[count] = i
        ends[count] = j
        count += 1
        i = j
    return starts[:count].copy(), ends[:count].copy()


@njit(cache=True, nogil=True)
def unsafe_segments(
    cps: npt.NDArray[np.uint32], safe: npt.NDArray[np.uint8]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Half-open spans around the characters that ``safe`` does not mark (code points past
    its end count as not safe): each maximal run of them with the character before it.

    A safe character starts a normalization boundary (NFKC of a text is the NFKC of its
    pieces cut before such characters), so a text is NFKC-normalized exactly when these
    spans are: see :func:`neardup.analysis.char_filters.is_nfkc`.
    """
    n = cps.shape[0]
    size = safe.shape[0]
    starts = np.empty(n // 2 + 1, dtype=np.int64)
    ends = np.empty(n // 2 + 1, dtype=np.int64)
    count = 0
    i = 0
    while i < n:
        cp = cps[i]
        if cp < size and safe[cp] != 0:
            i += 1
            continue
        j = i + 1
        while j < n and not (cps[j] < size and safe[cps[j]] != 0):
            j += 1
        starts[count] = i - 1 if i > 0 else 0
        ends[count] = j
        count += 1
        i = j
    return starts[:count].copy(), ends[:count].copy()


@njit(cache=True, nogil=True)
def table_runs(
    cps: npt.NDArray[np.uint32], table: npt.NDArray[np.uint8]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Half-open spans of the maximal runs of characters whose ``table`` entry is non-zero
    (the spans of ``re.finditer("[X]+", text)`` for the class ``X`` the table marks)."""
    n = cps.shape[0]
    starts = np.empty(n // 2 + 1, dtype=np.int64)
    ends = np.empty(n // 2 + 1, dtype=np.int64)
    count = 0
    i = 0
    while i < n:
        if table[cps[i]] == 0:
            i += 1
            continue
        j = i + 1
        while j < n and table[cps[j]] != 0:
            j += 1
        starts[count] = i
        ends[count] = j
        count += 1
        i = j
    return starts[:count].copy(), ends[:count].copy()


@njit(cache=True, nogil=True)
def pieces_offsets(
    out_lengths: npt.NDArray[np.int64],
    src_starts: npt.NDArray[np.int64],
    src_ends: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The offset map of ``(output_length, src_start, src_end)`` pieces in output order.

    A piece whose output length equals its source length maps character by character; any
    other piece maps each of its output characters to the whole source span; a piece with no
    output adds nothing.
    """
    total = 0
    for p in range(out_lengths.shape[0]):
        if out_lengths[p] > 0:
            total += out_lengths[p]
    starts = np.empty(total, dtype=np.int64)
    ends = np.empty(total, dtype=np.int64)
    pos = 0
    for p in range(out_lengths.shape[0]):
        length = out_lengths[p]
        if length <= 0:
            continue
        a = src_starts[p]
        b = src_ends[p]
        if length == b - a:
            for i in range(length):
                starts[pos + i] = a + i
                ends[pos + i] = a + i + 1
        else:
            for i in range(length):
                starts[pos + i] = a
                ends[pos + i] = b
        pos += length
    return starts, ends


# --- the fused char filters + tokenizer + encoder ----------------------------------------------
# For chains whose char filters map most characters to one character, or to a few, without
# looking at their neighbours (nfkc, lowercase, yo, strip_marks), one table gives, per code
# point, what the whole filter chain makes of it and the tokenizer class of the result; one
# kernel then makes the tokens and the canonical UTF-8 stream. A code point the table marks
# FUSED_GENERAL sends the whole document back to the general path.

#: A fused table entry (uint64) holds what the filters make of a code point, ready to write:
#: its UTF-8 bytes (low 32 bits, first byte lowest), their count, its tokenizer class, whether
#: it is a Cyrillic or a Latin letter (for the language guess). Or FUSED_EXPAND with, in the
#: low bits, the index of a sequence of such entries (a character the filters make into
#: several, as NFKC makes "…" into "...") and, from bit FUSED_EXTRA_SHIFT, the sequence's
#: length less one; or FUSED_GENERAL.
FUSED_LENGTH_SHIFT = 32
FUSED_CLASS_SHIFT = 35
FUSED_CYRILLIC = np.uint64(1 << 38)
FUSED_LATIN = np.uint64(1 << 39)
FUSED_EXPAND = np.uint64(1 << 62)
#: A character the filters drop (``strip_marks``: a non-spacing mark that NFKC leaves alone,
#: as the variation selector of an emoji): no entry, as if it were not in the text.
FUSED_DROP = np.uint64(1 << 61)
#: In a FUSED_EXPAND entry: how many more characters than one its sequence has (8 bits).
FUSED_EXTRA_SHIFT = 40
FUSED_GENERAL = np.uint64(1 << 63)
_FUSED_INDEX_MASK = np.uint64(0xFFFFFFFF)


def fused_entries(
    mapped: npt.NDArray[np.uint32], classes: npt.NDArray[np.uint8]
) -> npt.NDArray[np.uint64]:
    """Fused table entries of the characters ``mapped`` (code points) of tokenizer classes
    ``classes``."""
    cp = mapped.astype(np.uint64)
    length = np.select([cp < 0x80, cp < 0x800, cp < 0x10000], [1, 2, 3], 4).astype(np.uint64)
    six = np.uint64(6)
    cont = np.uint64(0x80)
    low6 = np.uint64(0x3F)
    b = [
        np.select(
            [length == 1, length == 2, length == 3],
            [cp, np.uint64(0xC0) | (cp >> six), np.uint64(0xE0) | (cp >> np.uint64(12))],
            np.uint64(0xF0) | (cp >> np.uint64(18)),
        ),
        np.select(
            [length == 2, length == 3, length == 4],
            [
                cont | (cp & low6),
                cont | ((cp >> six) & low6),
                cont | ((cp >> np.uint64(12)) & low6),
            ],
            0,
        ),
        np.select([length == 3, length == 4], [cont | (cp & low6), cont | ((cp >> six) & low6)], 0),
        np.where(length == 4, cont | (cp & low6), 0),
    ]
    utf8 = (
        b[0] | (b[1].astype(np.uint64) << np.uint64(8)) | (b[2].astype(np.uint64) << np.uint64(16))
    )
    utf8 |= b[3].astype(np.uint64) << np.uint64(24)
    out = utf8 | (length << np.uint64(FUSED_LENGTH_SHIFT))
    out |= classes.astype(np.uint64) << np.uint64(FUSED_CLASS_SHIFT)
    folded = cp | np.uint64(0x20)
    out[(cp >= 0x400) & (cp < 0x530)] |= FUSED_CYRILLIC
    out[(folded >= 0x61) & (folded <= 0x7A)] |= FUSED_LATIN
    return out


@njit(cache=True, nogil=True)
def _fused_entries_of(
    cps: npt.NDArray[np.uint32],
    table: npt.NDArray[np.uint64],
    limit: int,
    exp_offsets: npt.NDArray[np.int64],
) -> tuple[bool, npt.NDArray[np.uint64], npt.NDArray[np.int64]]:
    """The entries of the filtered text, with a zero entry (class OTHER) after the last, and
    the code point each came from (an empty array when nothing expanded or was dropped: entry
    ``i`` came from code point ``i``); false when a code point is FUSED_GENERAL."""
    n = cps.shape[0]
    empty = np.empty(0, dtype=np.int64)
    ents = np.empty(n + 1, dtype=np.uint64)
    seen = np.uint64(0)
    extra = np.uint64(0)
    extra_shift = np.uint64(FUSED_EXTRA_SHIFT)
    byte = np.uint64(0xFF)
    for i in range(n):  # no branch: flags or-ed together, extra entries of expansions summed
        cp = cps[i]
        e = table[cp] if cp < limit else FUSED_GENERAL
        seen |= e
        extra += (e >> extra_shift) & byte
        ents[i] = e
    ents[n] = 0
    if not seen & (FUSED_GENERAL | FUSED_EXPAND | FUSED_DROP):
        return True, ents, empty
    if seen & FUSED_GENERAL:
        return False, ents[:0], empty
    total = n + int(extra)
    ents = np.empty(total + 1, dtype=np.uint64)
    src = np.empty(total, dtype=np.int64)
    j = 0
    for i in range(n):
        e = table[cps[i]]
        if e & FUSED_DROP:
            continue
        if e & FUSED_EXPAND:
            k = e & _FUSED_INDEX_MASK
            for x in range(exp_offsets[k], exp_offsets[k + 1]):
                ents[j] = table[x]
                src[j] = i
                j += 1
        else:
            ents[j] = e
            src[j] = i
            j += 1
    ents[j] = 0
    return True, ents[: j + 1], src[:j]


@njit(cache=True, nogil=True)
def fused_words(
    cps: npt.NDArray[np.uint32],
    table: npt.NDArray[np.uint64],
    limit: int,
    exp_offsets: npt.NDArray[np.int64],
    join_hyphens: bool,
    keep_numbers: bool,
    count_letters: bool = True,
) -> tuple[
    bool,
    npt.NDArray[np.uint8],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    int,
    int,
]:
    """Char filters, :func:`tokenize_words` and :func:`encode_tokens` in one call.

    ``table[cp]`` for ``cp < limit`` is the entry of code point ``cp`` (see ``FUSED_*``; code
    points from ``limit`` on are FUSED_GENERAL); the entries of expanding character ``k``
    follow at ``table[exp_offsets[k]:exp_offsets[k + 1]]``. Returns ``(ok, buf, byte_starts,
    byte_ends, starts, ends, cyrillic, latin)``: the canonical stream, each token's byte span
    in it and its span in ``cps`` (a character made from another maps back to it, as the
    filters' offset maps do), and the counts of Cyrillic and Latin letters in the filtered
    text (for ``dominant_language``; zero unless ``count_letters``); ``ok`` is false, with
    empty arrays, when a code point is FUSED_GENERAL. The tokens are those of
    :func:`tokenize_words` over the filtered text.

    Each character of a token stores its four UTF-8 bytes at once (the entry holds them) and
    the position advances by their count; indices are unsigned, so no negative-index check
    is compiled in.
    """
    ok, ents, src = _fused_entries_of(cps, table, limit, exp_offsets)
    e8 = np.empty(0, dtype=np.uint8)
    e64 = np.empty(0, dtype=np.int64)
    if not ok:
        return False, e8, e64, e64, e64, e64, 0, 0
    n = ents.shape[0] - 1
    out = np.empty(5 * n + 8, dtype=np.uint8)  # slack: every character stores four bytes
    starts = np.empty(n // 2 + 1, dtype=np.int64)
    ends = np.empty(n // 2 + 1, dtype=np.int64)
    byte_starts = np.empty(n // 2 + 1, dtype=np.int64)
    byte_ends = np.empty(n // 2 + 1, dtype=np.int64)
    zero = np.uint64(0)
    one = np.uint64(1)
    seven = np.uint64(7)
    byte = np.uint64(0xFF)
    class_shift = np.uint64(FUSED_CLASS_SHIFT)
    length_shift = np.uint64(FUSED_LENGTH_SHIFT)
    nu = np.uint64(n)
    cyrillic = np.uint64(0)
    latin = np.uint64(0)
    if count_letters:
        for j in range(n):
            cyrillic += (ents[j] & FUSED_CYRILLIC) != zero
            latin += (ents[j] & FUSED_LATIN) != zero
    count = np.uint64(0)
    pos = np.uint64(0)
    i = np.uint64(0)
    while i < nu:
        e = ents[i]
        cls = (e >> class_shift) & seven
        if cls != 1 and cls != 2:
            i += one
            continue
        start = i
        has_letter = cls == 1
        tok_pos = pos + one if count > zero else pos  # room for the separating space
        p = tok_pos
        while True:
            out[p] = e & byte
            out[p + one] = (e >> np.uint64(8)) & byte
            out[p + np.uint64(2)] = (e >> np.uint64(16)) & byte
            out[p + np.uint64(3)] = (e >> np.uint64(24)) & byte
            p += (e >> length_shift) & seven
            prev_cls = cls
            i += one
            e = ents[i]  # ents[n] is 0, class OTHER: it ends the last token
            cls = (e >> class_shift) & seven
            if cls == 1 or cls == 2 or cls == 6:
                if cls == 1:
                    has_letter = True
                continue
            if i + one < nu:
                next_cls = (ents[i + one] >> class_shift) & seven
                if join_hyphens and (cls == 3 or cls == 4) and (next_cls == 1 or next_cls == 2):
                    continue
                if cls == 5 and prev_cls == 2 and next_cls == 2:
                    continue
            break
        if keep_numbers or has_letter:
            if count > zero:
                out[pos] = 32
            starts[count] = start
            ends[count] = i
            byte_starts[count] = tok_pos
            byte_ends[count] = p
            pos = p
            count += one
    tok_starts = starts[:count].copy()
    tok_ends = ends[:count].copy()
    if src.shape[0] > 0:
        for t in range(count):
            tok_starts[t] = src[tok_starts[t]]
            tok_ends[t] = src[tok_ends[t] - 1] + 1
    return (
        True,
        out[:pos].copy(),
        byte_starts[:count].copy(),
        byte_ends[:count].copy(),
        tok_starts,
        tok_ends,
        int(cyrillic),
        int(latin),
    )


# --- the fold filter's scan (neardup.analysis.evasion) ----------------------------------------
# Bits of the fold filter's class table (neardup.analysis.confusables builds it, uint16 per
# code point); here because the scan below reads them as compile-time constants.
EV_IGNORABLE = 1  # Default_Ignorable_Code_Point
EV_LATIN = 2  # a letter of the script
EV_CYRILLIC = 4
EV_GREEK = 8
EV_OTHER_LETTER = 16  # a letter of any other script
EV_DIGIT = 32
EV_MARK = 64
EV_STUFF = 128  # a private-use or unassigned character
EV_LOWER = 256
EV_TO_LATIN = 512  # has a look-alike among the Latin letters (UTS #39)
EV_TO_CYRILLIC = 1024
EV_TO_GREEK = 2048
EV_SPACE = 4096
EV_LINE_BREAK = 8192
#: NFKC makes the character several, word characters and others (``½`` → ``1⁄2``, ``¨`` →
#: space and a mark): the filter sees words the raw code points do not show
EV_BREAK = 16384
#: The most words such a character becomes (``ﷺ``: four).
_BREAK_WORDS = 4
#: The right-to-left override: what it encloses is displayed reversed (the ``fold`` filter
#: turns it into display order).
RIGHT_TO_LEFT_OVERRIDE = 0x202E
#: The combining marks the ``fold`` filter keeps, after the letter before them: the letters
#: of the Russian, Ukrainian and Belarusian alphabets typed as a letter and a mark (й ё ї ў,
#: as some editors write them). Every other mark after a Latin, Cyrillic or Greek letter goes.
KEPT_MARKS = (
    (0x438, 0x306),
    (0x418, 0x306),
    (0x443, 0x306),
    (0x423, 0x306),
    (0x435, 0x308),
    (0x415, 0x308),
    (0x456, 0x308),
    (0x406, 0x308),
)


@njit(cache=True, nogil=True, inline="always")
def kept_mark(letter: int, mark: int) -> bool:
    """Whether the mark ``mark`` after ``letter`` is one of :data:`KEPT_MARKS`."""
    for a, b in KEPT_MARKS:
        if letter == a and mark == b:
            return True
    return False


#: The fewest single letters a letter-spaced run holds ("т е к с т").
SPACED_LETTERS = 5
#: The longest gap between two single letters that the scan still takes for one run.
_SPACED_GAP = 6
#: A run of so many single words is flagged whatever its letters: with its gaps it spans at
#: most 9 + 8 × 6 characters, within the overlap a long text's pieces are scanned with.
_SPACED_ANY = 9


@njit(cache=True, nogil=True, inline="always")
def _breaks_word(
    cps: npt.NDArray[np.uint32], start: int, end: int, i: int, table: npt.NDArray[np.uint16]
) -> bool:
    """Whether the run of ignorable characters at ``i`` has something other than white space
    on both sides (removed, it may join two words; after a word or between an emoji and a
    space it changes no token)."""
    j = i
    while j < end and table[cps[j]] & EV_IGNORABLE:
        j += 1
    white = EV_SPACE | EV_LINE_BREAK
    return i > start and j < end and not table[cps[i - 1]] & white and not table[cps[j]] & white


@njit(cache=True, nogil=True)
def _tricks_in(
    cps: npt.NDArray[np.uint32], start: int, end: int, table: npt.NDArray[np.uint16]
) -> bool:
    """Whether ``cps[start:end]`` may hold something the ``fold`` filter changes in a way
    that changes tokens: an ignorable character with no white space on either side, a
    private-use or unassigned character after a letter, and per word what
    :mod:`neardup.analysis.evasion` folds — letters of two of the three scripts where every
    letter outside one of them has a look-alike in it, a digit between two Cyrillic letters
    or one at a Cyrillic word's edge that looks like a Cyrillic letter — or a run of one-letter
    (or one-digit) words that the filter may join. A superset of what the filter folds (it
    decides; a word wholly in another script is folded only beside words of two scripts), so
    a text without any keeps the fast path. The rules are the filter's necessary conditions,
    read off the raw code points: a character NFKC changes has the classes of what it
    becomes (:func:`neardup.analysis.confusables.classes`), and one that becomes both a digit
    and a letter is flagged outright."""
    scripts = EV_LATIN | EV_CYRILLIC | EV_GREEK
    letters = scripts | EV_OTHER_LETTER
    word_bits = EV_IGNORABLE | letters | EV_DIGIT | EV_MARK
    singles = 0
    # the letters of the current run of single words: the filter joins a run of at least
    # SPACED_LETTERS holding three different letters (raw code points: a superset of its
    # lowercased ones); a run of _SPACED_ANY is flagged whatever its letters, so that every
    # pattern the scan looks for fits in a long text's overlapping pieces
    first_letter = second_letter = distinct = 0
    last_word_end = -100
    i = start
    while i < end:
        c = table[cps[i]]
        if not c & word_bits:
            if c & EV_STUFF and i > start and table[cps[i - 1]] & letters:
                if i + 1 < end and table[cps[i + 1]] & (letters | EV_STUFF):
                    return True
            i += 1
            continue
        # a word: [i, j); the hot loop only gathers its classes, the rare words (an ignorable,
        # a digit, two scripts, one letter) are read again below, with no test per character
        j = i
        any_bits = 0
        n_letters = 0
        while j < end:
            c = table[cps[j]]
            if not c & word_bits:
                break
            any_bits |= c
            n_letters += (c & letters) != 0
            j += 1
        if any_bits & EV_BREAK:
            # the words the filter sees are not these: left to it, unless the character stands
            # alone between white space, where it is up to _BREAK_WORDS single words of
            # unknown letters (½ → 1⁄2)
            white = EV_SPACE | EV_LINE_BREAK
            alone = j - i == 1 and (i == start or table[cps[i - 1]] & white)
            if not alone or (j < end and not table[cps[j]] & white):
                return True
            if not (i - last_word_end <= _SPACED_GAP and singles > 0):
                singles = 0
            singles += _BREAK_WORDS
            distinct = 3
            if singles >= SPACED_LETTERS:
                return True
            last_word_end = j
            i = j
            continue
        if any_bits & EV_IGNORABLE:
            for g in range(i, j):
                if table[cps[g]] & EV_IGNORABLE and _breaks_word(cps, start, end, g, table):
                    return True
                if cps[g] == RIGHT_TO_LEFT_OVERRIDE:
                    return True
        if any_bits & EV_MARK:
            # a combining mark after a letter of the three scripts (or after such a mark): the
            # filter strips it, but for the letters of KEPT_MARKS
            for g in range(i + 1, j):
                if table[cps[g]] & EV_MARK and table[cps[g - 1]] & (scripts | EV_MARK):
                    if not kept_mark(cps[g - 1], cps[g]):
                        return True
        if any_bits & EV_DIGIT and n_letters:
            folds = _digit_folds(cps, i, j, table)
            if folds == 2 or (folds == 1 and n_letters >= 3):
                return True  # (and not 2014г, 10млн, отрази63)
        sc = any_bits & scripts
        if sc:
            several = sc != EV_LATIN and sc != EV_CYRILLIC and sc != EV_GREEK
            if several or any_bits & EV_OTHER_LETTER:
                if _folds_into_one(cps, i, j, sc, table):
                    return True  # letters of two scripts in one word, one side can fold
        if (n_letters == 1 and not any_bits & EV_DIGIT) or (n_letters == 0 and j - i == 1):
            gap_ok = i - last_word_end <= _SPACED_GAP
            if gap_ok:
                for g in range(last_word_end, i):
                    if table[cps[g]] & EV_LINE_BREAK:
                        gap_ok = False
            if not (gap_ok and singles > 0):
                singles = 0
                distinct = 0
            singles += 1
            if n_letters == 1 and distinct < 3:
                letter = cps[i]
                for g in range(i, j):
                    if table[cps[g]] & letters:
                        letter = cps[g]
                if distinct == 0:
                    first_letter = letter
                    distinct = 1
                elif letter != first_letter:
                    if distinct == 1:
                        second_letter = letter
                        distinct = 2
                    elif letter != second_letter:
                        distinct = 3
            if singles >= SPACED_LETTERS and (distinct >= 3 or singles >= _SPACED_ANY):
                return True
        else:
            singles = 0
        last_word_end = j
        i = j
    return False


@njit(cache=True, nogil=True)
def _digit_folds(cps: npt.NDArray[np.uint32], i: int, j: int, table: npt.NDArray[np.uint16]) -> int:
    """1 when the word ``[i, j)`` has a digit the filter folds or removes in a word of three
    letters: one between two Cyrillic letters, or one that looks like a Cyrillic letter at
    the word's edge beside one (``3има``, ``сел0``); 2 for a character NFKC makes a digit and
    a letter (left to the filter); 0 for neither."""
    letters = EV_LATIN | EV_CYRILLIC | EV_GREEK | EV_OTHER_LETTER
    found = 0
    for p in range(i, j):
        c = table[cps[p]]
        if not c & EV_DIGIT:
            continue
        if c & letters:
            return 2
        before = p > i and table[cps[p - 1]] & EV_CYRILLIC
        after = p + 1 < j and table[cps[p + 1]] & EV_CYRILLIC
        if before and after:
            found = 1
        elif c & EV_TO_CYRILLIC and ((p == i and after) or (before and p + 1 == j)):
            found = 1
    return found


@njit(cache=True, nogil=True)
def _folds_into_one(
    cps: npt.NDArray[np.uint32], i: int, j: int, present: int, table: npt.NDArray[np.uint16]
) -> bool:
    """Whether the letters of the word ``[i, j)`` outside one of its scripts (``present``)
    all have a look-alike in that script: only then can the filter fold the word (Uпр and
    5сm stay)."""
    letters = EV_LATIN | EV_CYRILLIC | EV_GREEK | EV_OTHER_LETTER
    for script, into in ((EV_LATIN, EV_TO_LATIN), (EV_CYRILLIC, EV_TO_CYRILLIC)):
        if present & script:
            ok = True
            for p in range(i, j):
                c = table[cps[p]]
                if c & letters and not c & (script | into):
                    ok = False
                    break
            if ok:
                return True
    if present & EV_GREEK:
        for p in range(i, j):
            c = table[cps[p]]
            if c & letters and not c & (EV_GREEK | EV_TO_GREEK):
                return False
        return True
    return False


@njit(cache=True, nogil=True)
def might_have_tricks(cps: npt.NDArray[np.uint32], table: npt.NDArray[np.uint16]) -> bool:
    """:func:`_tricks_in` over a whole text."""
    return _tricks_in(cps, 0, cps.shape[0], table)


@njit(cache=True, nogil=True)
def tricks_batch(
    cps: npt.NDArray[np.uint32],
    doc_offsets: npt.NDArray[np.int64],
    todo: npt.NDArray[np.bool_],
    table: npt.NDArray[np.uint16],
) -> npt.NDArray[np.bool_]:
    """:func:`_tricks_in` of each document ``d`` with ``todo[d]`` (false for the others)."""
    n = doc_offsets.shape[0] - 1
    out = np.zeros(n, dtype=np.bool_)
    for d in range(n):
        if todo[d]:
            out[d] = _tricks_in(cps, doc_offsets[d], doc_offsets[d + 1], table)
    return out

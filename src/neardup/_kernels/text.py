"""Hot loops over code points: word tokenization and UTF-8 encoding of the canonical stream.

Text enters these kernels as a ``uint32`` array of code points (``str.encode("utf-32-le")``
viewed through numpy), so no Python code runs per character or per token.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import lru_cache

import numpy as np
import numpy.typing as npt
from numba import njit

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
    """The class of every code point, from Python's own Unicode tables (built once, ~0.2 s)."""
    table = np.zeros(sys.maxunicode + 1, dtype=np.uint8)
    # Surrogates cannot stand alone in a str: a NUL holds their places, so index == code point.
    everything = "".join(map(chr, range(0xD800))) + "\x00" * 0x800 + "".join(
        map(chr, range(0xE000, sys.maxunicode + 1))
    )
    for match in re.finditer(r"[^\W_]+", everything):
        table[match.start() : match.end()] = LETTER
    for match in re.finditer(r"\d+", everything):
        table[match.start() : match.end()] = DIGIT
    for cp in range(len(everything)):
        if table[cp] == OTHER and unicodedata.combining(everything[cp]):
            table[cp] = MARK
    for chars, cls in ((_HYPHENS, HYPHEN), (_APOSTROPHES, APOSTROPHE), (_DECIMAL_MARKS, DECIMAL_MARK)):
        for ch in chars:
            table[ord(ch)] = cls
    return table


def code_points(text: str) -> npt.NDArray[np.uint32]:
    """The code points of ``text`` as a uint32 array (a copy-free view of its UTF-32 bytes)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


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

    A token is a run of letters and digits (with the combining marks that follow them); a hyphen or apostrophe between two word characters
    joins them (when ``join_hyphens``); a ``.`` or ``,`` between two digits joins them. With
    ``keep_numbers`` false, tokens without a letter are dropped.
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

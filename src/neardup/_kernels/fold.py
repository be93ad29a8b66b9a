"""The ``fold`` filter's first look at a text (:mod:`neardup.analysis.evasion`): in one pass,
the classes of its code points, its words and what the filter counts of them, the numbers
NumPy gave in a dozen whole-text calls (most of the filter's time on a text it is asked to
look at)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from neardup._kernels.text import (
    EV_CYRILLIC,
    EV_DIGIT,
    EV_GREEK,
    EV_IGNORABLE,
    EV_LATIN,
    EV_MARK,
    EV_OTHER_LETTER,
    EV_TO_CYRILLIC,
    EV_TO_GREEK,
    EV_TO_LATIN,
)

I64 = npt.NDArray[np.int64]

_LETTERS = EV_LATIN | EV_CYRILLIC | EV_GREEK | EV_OTHER_LETTER
_WORD = _LETTERS | EV_DIGIT | EV_MARK | EV_IGNORABLE
_ALL_INTO = EV_TO_LATIN | EV_TO_CYRILLIC | EV_TO_GREEK


@njit(cache=True, nogil=True)
def text_words(
    cps: npt.NDArray[np.uint32], table: npt.NDArray[np.uint16]
) -> tuple[I64, I64, I64, I64, I64, I64, I64, int]:
    """``(cls, starts, ends, word_bits, word_letters, word_digits, script_letters,
    total_letters)``: each code point's classes (``table``); the words (runs of word
    characters: letters, digits, marks, ignorables) as ``[starts, ends)``; for each word the
    classes OR-ed, the letters and the digits counted from its start to the next word's start
    (as ``np.*.reduceat`` over ``starts`` counts: the gap after a word holds no word
    character); the letters of Latin, Cyrillic and Greek with no look-alike in another
    script; and all letters."""
    n = cps.shape[0]
    cls = np.empty(n, dtype=np.int64)
    size = n // 2 + 2
    starts = np.empty(size, dtype=np.int64)
    ends = np.empty(size, dtype=np.int64)
    # per reduceat segment (a word's start to the next's), at 1 + its word (0: before any)
    seg_bits = np.zeros(size, dtype=np.int64)
    seg_letters = np.zeros(size, dtype=np.int64)
    seg_digits = np.zeros(size, dtype=np.int64)
    latin = cyrillic = greek = 0
    total_letters = 0
    words = 0  # words ended
    seen = 0  # words started
    in_word = 0
    word_start = 0
    bits = letters = digits = 0
    # without branches on the classes (a text mixes scripts and words end every few
    # characters): each step adds 0 or 1, and what belongs to the current word or segment is
    # stored at every step and kept when it ends (its index moves on)
    for i in range(n):
        c = np.int64(table[cps[i]])
        cls[i] = c
        letter = np.int64((c & _LETTERS) != 0)
        digit = np.int64((c & EV_DIGIT) != 0)
        plain = np.int64((c & _ALL_INTO) == 0)
        total_letters += letter
        latin += np.int64((c & EV_LATIN) != 0) & plain
        cyrillic += np.int64((c & EV_CYRILLIC) != 0) & plain
        greek += np.int64((c & EV_GREEK) != 0) & plain
        is_word = np.int64((c & _WORD) != 0)
        begins = is_word & (1 - in_word)
        seen += begins
        keep = begins - 1  # 0 at a word's start, else all ones
        bits = (bits & keep) | c
        letters = (letters & keep) + letter
        digits = (digits & keep) + digit
        seg_bits[seen] = bits
        seg_letters[seen] = letters
        seg_digits[seen] = digits
        word_start = word_start if in_word else i
        starts[words] = word_start
        ends[words] = i
        words += in_word & (1 - is_word)
        in_word = is_word
    if in_word:
        starts[words] = word_start
        ends[words] = n
        words += 1
    script_letters = np.array([latin, cyrillic, greek], dtype=np.int64)
    return (
        cls,
        starts[:words].copy(),
        ends[:words].copy(),
        seg_bits[1 : words + 1].copy(),
        seg_letters[1 : words + 1].copy(),
        seg_digits[1 : words + 1].copy(),
        script_letters,
        total_letters,
    )

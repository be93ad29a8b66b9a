"""Letter spacing undone word by word: the part of the ``fold`` filter
(:mod:`neardup.analysis.evasion`) that joins the letters of a spaced run and finds the words
in it.

A run of single letters with one separator between them (``т е к с т``) is joined; where the
words of the run are parted by wider gaps (or any white space, when the separator is not a
space) each part is a word; where every gap is one separator, the run is cut into the words of
the text's own vocabulary (its unspaced words), the function words of the stop lists and, for
Cyrillic, pymorphy3's dictionary, or at a capital after a small letter; never two real words
glued (``коллегиНикки``). In a text that spaces words, a shorter run joins when it spells a
word of the text or holds a letter that is no word alone. Letters spaced with no-break or thin
spaces (a typographer's spacing of a play's cast) are joined but not reported.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Protocol

import numpy as np
import numpy.typing as npt

from neardup._kernels import text as text_kernels
from neardup.analysis import confusables as cf
from neardup.analysis.offsets import OffsetMap

#: The fewest single letters a letter-spaced run holds ("т е к с т").
SPACED_LETTERS = text_kernels.SPACED_LETTERS
#: The text before ``nfkc`` and the map from ``nfkc``'s output into it.
Source = tuple[str, OffsetMap | None]
IntArray = npt.NDArray[np.int64]


class _Recording(Protocol):
    def add(self, kind: str, start: int, end: int, chars: int, words: int = 1) -> None: ...


@lru_cache(maxsize=1)
def _function_words() -> frozenset[str]:
    """The function words of the stop lists, Russian and English: words a spaced run may
    spell however short (и, в, a, I)."""
    from neardup.analysis.stop_lists import LISTS

    return frozenset().union(*LISTS["function-1"].values())


def _dictionary_words(word: str) -> frozenset[str]:
    """The pieces of a Cyrillic ``word`` (itself included) that the Russian dictionary knows
    (pymorphy3's, when installed): the evidence that a spaced run holds two words
    ("вконечный" is "в" and "конечный") or one ("впервые")."""
    if not _CYRILLIC_WORD.fullmatch(word):
        return frozenset()
    try:
        from neardup.analysis.resources import morph

        known = morph().analyzer.word_is_known
    except Exception:  # no dictionary installed: the text's own words only
        return frozenset()
    n = len(word)
    pieces = {word[a:b] for a in range(n) for b in range(a + 2, min(n, a + _LONGEST_WORD) + 1)}
    return frozenset(p for p in pieces if known(p))


_WHITE = frozenset(" \t\u00a0")
#: The spaces a typographer spaces letters with (NFKC has made them plain spaces by then).
_TYPOGRAPHIC_SPACES = frozenset("\u00a0\u202f\u2009\u200a\u2006\u2005")
#: A word of the text's vocabulary (:meth:`_Neutralizer._vocabulary`), and the longest piece
#: a spaced segment is cut into.
_VOCABULARY_WORD = re.compile(r"[^\W\d_]{2,}")
_LONGEST_WORD = 30
#: How many spaced letters (at least so many, and such a share of the text's letters: what
#: makes letter spacing suspicious) show a text that spaces words, where shorter runs are
#: looked at too (an honest paper spaces a heading or two, and its formulas hold single letters).
_SPACED_TEXT = (40, 0.02)
_CYRILLIC_WORD = re.compile(r"[а-яё]+")


#: What the gap between two single letters of a spaced run is (:func:`_gap_kind`): its kind,
#: the offsets of the punctuation marks kept, the offset of the one space kept (or -1).
_Gap = tuple[str, tuple[int, ...], int]


def _gap_kind(gap: str, inner: str | None) -> _Gap | None:
    """What the characters between two single letters of a spaced run are: ``join`` the
    separator between the letters of a word, ``break`` more white space between two words,
    ``punct`` punctuation marks between single separators (kept: ``1 , 8 5 0``, ``D - V t``)
    and ``punct_break`` the same with a word break among them (``s ,   i t s``, ``y   ( P``,
    ``P ) ,   w``: the marks kept, one space for the break); ``None`` when the run ends
    here."""
    spaces = len(gap) >= 1 and all(c in _WHITE for c in gap)
    if inner is None:
        if len(gap) == 1 and gap not in "\n\r" and not gap.isalnum():
            return "join", (), -1
    elif gap == inner:
        return "join", (), -1
    elif spaces and len(gap) <= 4:
        if inner != " " or len(gap) >= 2:
            return "break", (), 0
    if inner not in (None, " ") or len(gap) < 3 or gap[0] != " " or gap[-1] not in _WHITE:
        return None
    return _marks_gap(gap)


def _marks_gap(gap: str) -> _Gap | None:
    """:func:`_gap_kind` of a gap holding marks: each mark alone between white space, a
    single space inside a word, at most one word break (two to four white characters)."""
    marks: list[int] = []
    space, p = -1, 0
    while p < len(gap):
        if gap[p] in _WHITE:
            q = p
            while q < len(gap) and gap[q] in _WHITE:
                q += 1
            if q - p >= 2:
                if space >= 0 or q - p > 4:
                    return None
                space = p
            p = q
            continue
        if gap[p].isalnum() or gap[p] in "\n\r" or gap[p + 1] not in _WHITE:
            return None
        marks.append(p)
        p += 1
    if not marks:
        return None
    return ("punct_break" if space >= 0 else "punct"), tuple(marks), space


def _fewest_words(word: str, vocabulary: frozenset[str]) -> list[int]:
    """The cuts of ``word`` into the fewest words of ``vocabulary``, each of three letters or a
    function word, one of three letters at least; none when there are no such words."""
    n = len(word)
    best: list[tuple[int, int] | None] = [None] * (n + 1)
    best[0] = (0, -1)
    for end in range(1, n + 1):
        for start in range(max(0, end - _LONGEST_WORD), end):
            before = best[start]
            piece = word[start:end]
            if before is None or piece not in vocabulary:
                continue
            if len(piece) < 3 and piece not in _function_words():
                continue
            current = best[end]
            if current is None or before[0] + 1 < current[0]:
                best[end] = (before[0] + 1, start)
    found = best[n]
    if found is not None and found[0] >= 2:
        breaks, end = [], n
        while end > 0:
            step = best[end]
            assert step is not None
            end = step[1]
            if end > 0:
                breaks.append(end)
        cuts = [0, *sorted(breaks), n]
        # a word of three letters at least: "до" "на" do not make "дона" two words
        if any(b - a >= 3 for a, b in zip(cuts, cuts[1:], strict=False)):
            return cuts[1:-1]
    return []


def _glued_at_an_edge(word: str, vocabulary: frozenset[str]) -> list[int]:
    """Where a one-letter word glued to a word of ``vocabulary`` ends or starts in ``word`` (a
    run parted by wider gaps, "а с о б а к а" with one space after "а"), or nothing."""
    function = _function_words()
    if word[0] in function and word[1:] in vocabulary:
        return [1]
    if word[-1] in function and word[:-1] in vocabulary:
        return [len(word) - 1]
    return []


class LetterSpacing:
    """The letter-spacing steps of the ``fold`` filter's neutralizer (which sets these)."""

    text: str
    cls: IntArray
    starts: IntArray
    ends: IntArray
    word_letters: IntArray
    word_digits: IntArray
    keep: npt.NDArray[np.bool_]
    subs: npt.NDArray[np.uint32]
    found: _Recording
    source: Source | None
    changed: bool
    #: the letters of the spaced runs joined, and the text's vocabulary (built if so)
    spaced: int
    _words: frozenset[str] | None

    def _letter_spacing(self) -> None:
        """Runs of single letters (and digits) with one separator character between them,
        holding at least :data:`SPACED_LETTERS` of them and three different letters; the
        words of a spaced sentence parted by more white space (or by any white space when the
        separator is not a space), punctuation between spaces kept (``1 , 8 5 0`` → ``1,850``,
        ``s ,   i t s`` → ``s, its``)."""
        # a word of one letter, or of one digit (an invisible character beside it is the
        # other kind's; it goes anyway)
        n_letters, n_digits = self.word_letters, self.word_digits
        single = ((n_letters == 1) & (n_digits == 0)) | ((n_letters == 0) & (n_digits == 1))
        # only stretches of SPACED_LETTERS single words in a row are looked at, one by one
        index = np.flatnonzero(single)
        if index.shape[0] < SPACED_LETTERS:
            return
        bounds = np.concatenate(([0], np.flatnonzero(np.diff(index) != 1) + 1, [len(index)]))
        lengths = np.diff(bounds)
        for k in np.flatnonzero(lengths >= SPACED_LETTERS).tolist():
            self._spaced_runs(index[bounds[k] : bounds[k + 1]].tolist())
        least, share = _SPACED_TEXT
        if self.spaced < least or self.spaced < share * int(self.word_letters.sum()):
            return
        # the text spaces words (a heading or two is no sign): a shorter run is a spaced word
        # when it spells a word the text uses or holds a letter that is no word alone
        # ("т а к"), not when it may be two real words ("и в")
        for k in np.flatnonzero(lengths >= 2).tolist():
            self._spaced_runs(index[bounds[k] : bounds[k + 1]].tolist(), short=True)

    def _char_of_single(self, x: int) -> int:
        """Where the letter or digit of single word ``x`` is."""
        a = int(self.starts[x])
        while not self.cls[a] & (cf.LETTERS | cf.DIGIT):
            a += 1
        return a

    def _spaced_runs(self, words: list[int], short: bool = False) -> None:
        """The spaced runs among consecutive single words ``words`` (``short``: those of
        fewer letters that spell a word of the text's vocabulary)."""
        starts, ends = self.starts, self.ends
        i = 0
        while i < len(words):
            run = [words[i]]
            inner: str | None = None
            gaps: list[tuple[int, int, _Gap]] = []
            while i + 1 < len(words):
                v = words[i]
                gap_start, gap_end = int(ends[v]), int(starts[v + 1])
                kind = _gap_kind(self.text[gap_start:gap_end], inner)
                if kind is None:
                    break
                if inner is None:
                    inner = " " if kind[0] == "punct" else self.text[gap_start]
                gaps.append((gap_start, gap_end, kind))
                run.append(v + 1)
                i += 1
            i += 1
            if short:
                self._short_run(run, gaps)
                continue
            joins = sum(1 for g in gaps if g[2][0] in ("join", "punct"))
            if len(run) < SPACED_LETTERS or joins < SPACED_LETTERS - 1:
                continue
            chars = [self._char_of_single(x) for x in run]
            letters = {self.text[p].lower() for p in chars if self.cls[p] & cf.LETTERS}
            # three different letters at least: not a border of one (C/C/C/C/C/) nor a row
            # of numbers (1 2 3 4 5)
            if len(letters) >= 3:
                self._join(run, gaps)

    def _short_run(self, run: list[int], gaps: list[tuple[int, int, _Gap]]) -> None:
        """A run of fewer than :data:`SPACED_LETTERS` single letters, each gap one space (not
        yet joined), joined when it spells a word of :meth:`_vocabulary` or holds a
        letter that is no word alone."""
        if len(run) < 2 or any(g[2][0] != "join" or not self.keep[g[0]] for g in gaps):
            return
        if any(self.text[a:b] != " " for a, b, _ in gaps):
            return  # spaced by spaces only: "Ю.М." and "R/ω" are no spaced words
        chars = [self._char_of_single(x) for x in run]
        if not all(self.cls[p] & cf.LETTERS for p in chars):
            return
        word = "".join(self.text[p] for p in chars).lower()
        # a letter that is no word alone (т, t) shows a spaced word; "и в" may be two words
        if word in self._vocabulary() or any(c not in _function_words() for c in word):
            self._join(run, gaps)

    def _vocabulary(self) -> frozenset[str]:
        """The words the text holds unspaced (two letters or more) and the function words of
        the stop lists: what a spaced run may spell."""
        if self._words is None:
            own = set(_VOCABULARY_WORD.findall(self.text.lower()))
            self._words = frozenset(own | _function_words())
        return self._words

    def _word_breaks(self, chars: list[int], edges_only: bool = False) -> list[int]:
        """Where words begin inside a spaced segment of letters at ``chars`` (indices into
        it): the fewest words of :meth:`_vocabulary` that spell it, each of three letters or
        a function word, one of three letters at least (``коллегиникки`` → ``коллеги``
        ``никки`` when the text has both, ``ahere`` → ``a here``);
        else a capital after a small letter (``коллегиНикки``); none when the segment is a
        word itself or cannot be told apart. ``edges_only`` (the run's words are parted by
        wider gaps): only a one-letter word glued at either end is cut off."""
        letters = [self.text[p] for p in chars]
        word = "".join(letters).lower()
        n = len(word)
        if n < 4:
            return []
        vocabulary = self._vocabulary() | _dictionary_words(word)
        if word in vocabulary:
            return []
        if edges_only:
            return _glued_at_an_edge(word, vocabulary)
        cuts = _fewest_words(word, vocabulary)
        if cuts:
            return cuts
        return [j for j in range(1, n) if letters[j].isupper() and letters[j - 1].islower()]

    def _typographic(self, gaps: list[tuple[int, int, _Gap]]) -> bool:
        """Whether the run's separators were no-break or thin spaces before ``nfkc``: the
        typographer's spacing of a name or a heading (a play's cast), joined but no trick."""
        joins = [a for a, _, kind in gaps if kind[0] == "join"]
        if not joins:
            return False
        before, step = self.source if self.source is not None else (self.text, None)
        for a in joins:
            origin = int(step.starts[a]) if step is not None else a
            if before[origin] not in _TYPOGRAPHIC_SPACES:
                return False
        return True

    def _join(self, run: list[int], gaps: list[tuple[int, int, _Gap]]) -> None:
        # the segments of letters joined by one separator, and the words inside each
        chars = [self._char_of_single(x) for x in run]
        breaks: set[int] = set()
        first_of_segment = 0
        # wider gaps part the words: then a segment is one word, as it is in a typographer's
        # spacing; else the words are found
        typographic = self._typographic(gaps)
        parted = typographic or any(space >= 0 for _, _, (_, _, space) in gaps)
        for g in range(len(gaps) + 1):
            if g == len(gaps) or gaps[g][2][0] != "join":
                segment = chars[first_of_segment : g + 1]
                cuts = self._word_breaks(segment, edges_only=parted)
                breaks.update(first_of_segment + j - 1 for j in cuts)
                first_of_segment = g + 1
        words = 1
        for g, (a, b, (_, marks, space)) in enumerate(gaps):
            self.keep[a:b] = False
            for mark in marks:  # the punctuation between the spaces
                self.keep[a + mark] = True
            if space >= 0 or g in breaks:
                at = a + space if space >= 0 else a
                self.keep[at] = True  # one space between the joined words
                self.subs[at] = 0x20
                words += 1
        self.spaced += len(run)
        self.changed = True
        if typographic:
            return
        first = int(self.starts[run[0]])
        last = int(self.ends[run[-1]])
        self.found.add("letter_spacing", first, last, len(run), words)

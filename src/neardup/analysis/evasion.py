"""The ``fold`` char filter: the tricks that get a copy past a uniqueness checker, undone.

* **homoglyphs**: letters of another script inside a word (Latin ``р`` in a Russian word,
  Cyrillic ``а`` in an English one, Greek, digits used as letters such as ``0`` for ``о``)
  become their look-alike in the word's script, by Unicode's confusables (UTS #39,
  :mod:`neardup.analysis.confusables`). A word's script is the script of most of its letters,
  and only minority letters that all have a look-alike in it are folded, so real mixed words
  stay ("iPhone", "SQL-запрос", "H2O", "МиГ-29"). A word wholly in another script is folded
  into the text's script only in a text with many words of two scripts (the sign of a copy
  with look-alikes swapped), when every letter has a look-alike, it stands alone (not a part
  of ``ria.ru`` or ``a/b``) and a neighbouring word is of the text's script (a single letter:
  both) — so "cop" for "сор" comes back, and a Latin name, quotation or formula in an honest
  Russian text stays;
* **invisible** characters (``Default_Ignorable_Code_Point``: zero-width space, joiner and
  non-joiner, word joiner, soft hyphen, BOM, bidi controls, variation selectors…) removed
  (a variation selector after an emoji, a symbol or a digit is removed but not reported:
  it only says how the emoji is drawn); what a right-to-left override encloses up to its
  pop (or the end of an isolate or of the line) is put in display order, so a word typed
  backwards inside one reads as it is shown, and its words are counted;
* **combining marks** typed after a Latin, Cyrillic or Greek letter (an accent on each word)
  stripped in every chain, the letter NFKC composed with one (``e`` + acute: ``é``) made
  plain again from the text before ``nfkc`` (:data:`neardup.analysis.char_filters.
  LAST_NFKC`); й, ё, ї, ў typed as a letter and a mark stay
  (:data:`neardup._kernels.text.KEPT_MARKS`), and a precomposed ``é`` of honest text stays.
  Reported as ``stuffing``;
* **letter spacing**: a run of single letters with one separator between them ("т е к с т",
  "т.е.к.с.т"; words of a spaced sentence parted by more white space or another separator)
  joined into words, word by word (:mod:`neardup.analysis.spacing`);
* **stuffing**: a private-use or unassigned character (nothing, or an empty box, in a
  reader's font), or a digit with no letter look-alike, put between two letters inside a word
  (``пла\\ue000гиат``, ``пла1гиат``) to break it, removed.

The filter runs after ``nfkc`` (which has already made fullwidth and mathematical letters
plain) and before ``lowercase``. It returns ``(text, OffsetMap | None)`` like every char filter:
folds keep every character at its place, removals map each remaining character to its own, so
a token's span covers the characters it came from in the original. What it found is recorded
for the analyzer (:func:`recording`; :attr:`Canonical.tricks <neardup.analysis.analyzer.
Canonical.tricks>`) and given by :func:`find_tricks`.

A text with nothing to fold costs one numba scan (:func:`neardup._kernels.text.
might_have_tricks`), which the fused fast path runs too: the scan finds a superset of what the
filter folds in a way that changes tokens, so a clean text keeps the fast path and its
fingerprints. (An ignorable character between a word and white space, or in an emoji
sequence, changes no token: when nothing else is found the text keeps it and the fast path.)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from neardup._kernels import fold as fold_kernels
from neardup._kernels import text as text_kernels
from neardup.analysis import confusables as cf
from neardup.analysis.offsets import OffsetMap, compose
from neardup.analysis.spacing import LetterSpacing, Source
from neardup.analysis.tricks import NONE, Trick, Tricks

#: The characters of its neighbours a piece of a long text is scanned with: nine single
#: letters with their gaps (the longest pattern of the scan) take at most 9 + 8 × 6.
_SCAN_OVERLAP = 64
#: How many words with letters of two scripts (at least so many, and such a share of the
#: text's words) make the words wholly in another script folded too.
_FOREIGN_EVIDENCE = (3, 0.03)
#: Characters a word wholly in another script may touch and still stand alone (what ends a
#: word in running text); a ``.`` only before white space or the end (``ria.ru`` is one name).
#: What may join a swapped word to the next: a hyphen, a slash, a dot.
_JOINERS = frozenset("-\u2010\u2011/.")
_STANDALONE = frozenset(" \t\n\r\u00a0,;:!?()[]«»\"'“”„‘’—–…")

IntArray = npt.NDArray[np.int64]
#: The letters a digit may stand for: the basic alphabets (``1`` looks like Ukrainian ``І``,
#: which no Russian word holds, so in a Russian word it is stuffing).
_ROMAN = re.compile(r"M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})")
_BASIC = {cf.LATIN: (0x41, 0x7B), cf.CYRILLIC: (0x410, 0x450), cf.GREEK: (0x391, 0x3CA)}


def _selector(cp: int) -> bool:
    return any(low <= cp < high for low, high in _SELECTORS)


def _basic(cp: int, script: int) -> bool:
    low, high = _BASIC[script]
    return low <= cp < high


@dataclass
class _Recorder:
    """Where :func:`fold` leaves what it found while the analyzer analyses one text."""

    pending: _Found | None = None
    tricks: Tricks = NONE


_RECORDER: ContextVar[_Recorder | None] = ContextVar("neardup_evasion_recorder", default=None)


@contextmanager
def recording() -> Iterator[_Recorder]:
    """Collect what :func:`fold` finds in the text analysed inside the block (the analyzer's
    :meth:`~neardup.analysis.analyzer.Analyzer.canonical`); ``recorder.tricks`` after it."""
    recorder = _Recorder()
    token = _RECORDER.set(recorder)
    try:
        yield recorder
    finally:
        _RECORDER.reset(token)


def locate(before: OffsetMap | None) -> None:
    """Put what :func:`fold` just found into the original text's coordinates: ``before`` is
    the map of the char filters that ran before it (the analyzer calls this after each
    filter; it does nothing unless ``fold`` has just recorded)."""
    recorder = _RECORDER.get()
    if recorder is None or recorder.pending is None:
        return
    recorder.tricks = recorder.pending.tricks(before)
    recorder.pending = None


@dataclass
class _Found:
    """What :func:`neutralize` found, in the coordinates of its input."""

    spans: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    chars: dict[str, int] = field(default_factory=dict)
    words: dict[str, int] = field(default_factory=dict)
    #: the text's words (runs holding a letter) and letters: what a share is of
    total_words: int = 0
    total_letters: int = 0

    def add(self, kind: str, start: int, end: int, chars: int, words: int = 1) -> None:
        self.spans.setdefault(kind, []).append((start, end))
        self.chars[kind] = self.chars.get(kind, 0) + chars
        self.words[kind] = self.words.get(kind, 0) + words

    def tricks(self, before: OffsetMap | None = None) -> Tricks:
        found = []
        for kind in ("homoglyph", "invisible", "letter_spacing", "stuffing"):
            spans = sorted(self.spans.get(kind, ()))
            if not spans:
                continue
            if before is not None:
                table = np.array(spans, dtype=np.int64)
                starts, ends = before.spans(table[:, 0], table[:, 1])
                spans = list(zip(starts.tolist(), ends.tolist(), strict=True))
            if kind == "letter_spacing":
                share = self.chars[kind] / max(self.total_letters, 1)
            else:
                share = self.words[kind] / max(self.total_words, 1)
            found.append(Trick(kind, self.chars[kind], self.words[kind], tuple(spans), share))
        return Tricks(tuple(found)) if found else NONE


def fold(text: str) -> tuple[str, OffsetMap | None]:
    """The ``fold`` char filter (see the module): ``text`` with the tricks undone."""
    from neardup.analysis.char_filters import LAST_NFKC

    last = LAST_NFKC.get()
    source = None
    if last is not None:
        LAST_NFKC.set(None)
        if last[1] is text:  # the nfkc filter ran just before: what it was given
            source = (last[0], last[2])
    result, offsets, found = _neutralize(text, source)
    recorder = _RECORDER.get()
    if recorder is not None:
        recorder.pending = found
    return result, offsets


def neutralize(text: str) -> tuple[str, OffsetMap | None, Tricks]:
    """:func:`fold` and what it found (spans in ``text``)."""
    result, offsets, found = _neutralize(text)
    return result, offsets, found.tricks() if found is not None else NONE


def find_tricks(text: str) -> Tricks:
    """The tricks in ``text`` (spans into it), as the analyzer's ``fold`` finds them after
    ``nfkc``. A caller that analyses the text anyway reads :attr:`Canonical.tricks
    <neardup.analysis.analyzer.Canonical.tricks>` instead, which costs no second pass."""
    from neardup.analysis.char_filters import nfkc

    normalized, before = nfkc(text)
    _, _, found = _neutralize(normalized, (text, before))
    return found.tricks(before) if found is not None else NONE


def might_have_tricks(cps: npt.NDArray[np.uint32]) -> bool:
    """The fast path's scan: false when :func:`fold` would leave the text (code points
    ``cps``, before ``nfkc``) unchanged."""
    return bool(text_kernels.might_have_tricks(cps, cf.classes()))


def might_have_tricks_in(text: str, cuts: list[int]) -> bool:
    """:func:`might_have_tricks` of a long ``text`` a piece at a time (``cuts``: the pieces'
    bounds, :func:`neardup.analysis.chunked.cut_points`), each piece read with
    :data:`_SCAN_OVERLAP` characters of its neighbours, more than any pattern the scan looks
    for spans, so the answer is the whole text's in the memory of one piece."""
    table = cf.classes()
    for a, b in zip(cuts[:-1], cuts[1:], strict=True):
        window = text[max(0, a - _SCAN_OVERLAP) : b + _SCAN_OVERLAP]
        if text_kernels.might_have_tricks(text_kernels.code_points(window), table):
            return True
    return False


def tricks_batch(
    cps: npt.NDArray[np.uint32], doc_offsets: IntArray, todo: npt.NDArray[np.bool_]
) -> npt.NDArray[np.bool_]:
    """:func:`might_have_tricks` of each text of a batch (the batch kernels' input)."""
    return text_kernels.tricks_batch(cps, doc_offsets, todo, cf.classes())


#: The variation selectors: after an emoji, a symbol or a digit they choose how it is drawn,
#: which is no trick; only one after a letter is reported.
_SELECTORS = ((0xFE00, 0xFE10), (0xE0100, 0xE01F0))


def _neutralize(
    text: str, source: Source | None = None
) -> tuple[str, OffsetMap | None, _Found | None]:
    cps = text_kernels.code_points(text)
    table = cf.classes()
    marks = _added_marks(text, source, table)
    if not marks and not text_kernels.might_have_tricks(cps, table):
        return text, None, None
    return _Neutralizer(text, cps, table, marks, source).run()


def _added_marks(text: str, source: Source | None, table: npt.NDArray[np.uint16]) -> dict[int, int]:
    """The combining marks to strip, as ``{position in text: what it becomes}`` (-1: removed):
    a mark typed after a Latin, Cyrillic or Greek letter (or after such a mark), but for the
    letters of :data:`neardup._kernels.text.KEPT_MARKS` (й, ё, ї, ў typed as two characters).
    ``source``: the text before ``nfkc`` and the map into it, where a mark NFKC composed with
    its letter (``e`` and an acute accent: ``é``) is still apart; the letter becomes what the
    source makes of it without the mark (``e``)."""
    before, step = source if source is not None else (text, None)
    raw = text_kernels.code_points(before)
    classes = table[raw]
    candidates = np.flatnonzero((classes & cf.MARK) != 0)
    if candidates.shape[0] == 0:
        return {}
    scripts = cf.LATIN | cf.CYRILLIC | cf.GREEK
    stripped: list[int] = []
    for m in candidates.tolist():
        if m == 0 or not unicodedata.category(before[m]).startswith("M"):
            continue
        prev = int(classes[m - 1])
        if prev & scripts and not _kept_mark(int(raw[m - 1]), int(raw[m])):
            stripped.append(m)
        elif stripped and stripped[-1] == m - 1:
            stripped.append(m)
    if not stripped:
        return {}
    if step is None:
        return {m: -1 for m in stripped}
    return _through_nfkc(text, before, step, stripped)


def _through_nfkc(text: str, before: str, step: OffsetMap, stripped: list[int]) -> dict[int, int]:
    """:func:`_added_marks` in ``text``, of the marks ``stripped`` of ``before`` (``step``
    maps ``text`` into it): the characters made of one, in groups of one source span, become
    the NFKC of their span without it."""
    at = np.searchsorted(step.ends, np.array(stripped, dtype=np.int64), side="right")
    gone = set(stripped)
    out: dict[int, int] = {}
    for k in sorted(set(at.tolist())):
        if k >= len(step):
            continue
        a, b = int(step.starts[k]), int(step.ends[k])
        group = [k]
        while group[-1] + 1 < len(step) and int(step.starts[group[-1] + 1]) == a:
            group.append(group[-1] + 1)
        if group[0] > 0 and int(step.starts[group[0] - 1]) == a:
            continue  # inside a group already seen
        plain = unicodedata.normalize(
            "NFKC", "".join(before[p] for p in range(a, b) if p not in gone)
        )
        if len(plain) == len(group):
            for q, ch in zip(group, plain, strict=True):
                if ord(text[q]) != ord(ch):
                    out[q] = ord(ch)
        elif not plain.strip():
            for q in group:
                out[q] = -1
    return out


def _kept_mark(letter: int, mark: int) -> bool:
    return (letter, mark) in text_kernels.KEPT_MARKS


class _Neutralizer(LetterSpacing):
    """One text's words, what to fold and what to drop."""

    found: _Found

    def __init__(
        self,
        text: str,
        cps: npt.NDArray[np.uint32],
        table: npt.NDArray[np.uint16],
        marks: dict[int, int] | None = None,
        source: Source | None = None,
    ) -> None:
        self.text = text
        self.cps = cps
        self.marks = marks or {}
        self.source = source
        #: the letters of the spaced runs joined, and the text's vocabulary (built if so)
        self.spaced = 0
        self._words: frozenset[str] | None = None
        #: the order of the characters when a right-to-left override reverses some, and the
        #: spans it reversed (each character of one maps to all of it)
        self.order: IntArray | None = None
        self.reversed: list[tuple[int, int]] = []
        #: whether anything changed (a variation selector after an emoji goes unreported)
        self.changed = False
        # the classes, the words and their counts in one kernel pass (reduceat's numbers)
        (
            self.cls,
            self.starts,
            self.ends,
            self.word_bits,
            self.word_letters,
            self.word_digits,
            script_letters,
            total_letters,
        ) = fold_kernels.text_words(cps, table)
        self.subs = cps.copy()
        self.keep = np.ones(cps.shape[0], dtype=np.bool_)
        self.found = _Found()
        # the text's script: by its letters that have no look-alike in another script (a copy
        # with every look-alike swapped may have more Latin letters than Cyrillic ones)
        counts = script_letters.tolist()
        self.found.total_letters = int(total_letters)
        self.found.total_words = int(np.count_nonzero(self.word_bits & cf.LETTERS))
        self.script = cf.SCRIPTS[int(np.argmax(counts))]
        if counts[1] <= counts[0] and counts[2] <= counts[0]:
            self.script = cf.LATIN  # dominant_language's rule: Cyrillic only when it leads

    def run(self) -> tuple[str, OffsetMap | None, _Found | None]:
        self._marks()
        self._invisible()
        self._display_order()
        self._homoglyphs()
        self._letter_spacing()
        self._stuffing()
        if not self.found.spans and not self.changed:
            return self.text, None, None
        if self.order is None:
            kept = np.flatnonzero(self.keep)
        else:
            kept = self.order[self.keep[self.order]]
        out = self.subs[kept].astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")
        if self.order is None:
            same = kept.shape[0] == self.cps.shape[0]
            offsets = None if same else OffsetMap(kept, kept + 1)
        else:
            starts, ends = kept.copy(), kept + 1
            for a, b in self.reversed:
                inside = (kept >= a) & (kept < b)
                starts[inside], ends[inside] = a, b
            offsets = OffsetMap(starts, ends)
        if offsets is not None:
            # a removal may leave a mark next to a letter it composes with
            from neardup.analysis.char_filters import is_nfkc, nfkc

            if not is_nfkc(out):
                out, again = nfkc(out)
                offsets = compose(offsets, again)
        return out, offsets, self.found

    # --- the kinds ---------------------------------------------------------------------------

    def _marks(self) -> None:
        """Combining marks added to letters (:func:`_added_marks`): stripped, and reported as
        characters stuffed in words (of two letters or more)."""
        if not self.marks:
            return
        for p, becomes in self.marks.items():
            if becomes < 0:
                self.keep[p] = False
            else:
                self.subs[p] = becomes
        positions = np.array(sorted(self.marks), dtype=np.int64)
        holding = np.searchsorted(self.starts, positions, side="right") - 1
        for w in np.unique(holding[holding >= 0]).tolist():
            if self.word_letters[w] < 2:
                continue  # a symbol of a formula (ν̈, ẋ): stripped, no trick
            a, b = int(self.starts[w]), int(self.ends[w])
            inside = positions[(positions >= a) & (positions < b)]
            self.found.add("stuffing", a, b, int(inside.shape[0]))
        self.changed = True

    def _display_order(self) -> None:
        """What a right-to-left override encloses (to its pop, the end of an isolate or of the
        line) is displayed reversed: put in display order, each character mapped to the whole
        span, and its words reported with the invisible characters."""
        overrides = np.flatnonzero(self.cps == text_kernels.RIGHT_TO_LEFT_OVERRIDE).tolist()
        if not overrides:
            return
        cps, n = self.cps, self.cps.shape[0]
        end_of = 0
        for r in overrides:
            if r < end_of:
                continue
            p, depth, nested, closed = r + 1, 1, False, False
            while p < n:
                c = int(cps[p])
                if c in (0x202A, 0x202B, 0x202D, 0x202E):
                    depth += 1
                    nested = True
                elif c == 0x202C:
                    depth -= 1
                    if depth == 0:
                        closed = True
                        break
                elif c in (0x2069, 0x0A, 0x0D, 0x2028, 0x2029):
                    closed = c == 0x2069
                    break
                p += 1
            end_of = p
            a, b = r + 1, p
            if b - a < 2 or (nested and not closed):
                continue  # overrides sown in the text, never closed: invisible characters
            if self.order is None:
                self.order = np.arange(n, dtype=np.int64)
            self.order[a:b] = self.order[a:b][::-1].copy()
            self.reversed.append((a, b))
            first = int(np.searchsorted(self.ends, a, side="right"))
            last = int(np.searchsorted(self.starts, b, side="left"))
            words = max(last - first, 0)
            self.found.add("invisible", a, b, 0, words=words)
            self.changed = True

    def _invisible(self) -> None:
        hidden = (self.cls & cf.IGNORABLE) != 0
        if not hidden.any():
            return
        self.keep &= ~hidden
        self.changed = True
        edges = np.flatnonzero(np.diff(np.concatenate(([0], hidden.view(np.int8), [0]))))
        letters = cf.LETTERS
        for a, b in zip(edges[0::2].tolist(), edges[1::2].tolist(), strict=True):
            if all(_selector(int(c)) for c in self.cps[a:b].tolist()):
                if not (a > 0 and self.cls[a - 1] & letters):
                    continue  # after an emoji, a symbol or a digit: how it is drawn, no trick
            self.found.add("invisible", a, b, b - a, words=0)
        # words: those with an invisible character inside (a word character on both sides),
        # where it breaks the word; one after a word or in an emoji sequence breaks nothing
        a_runs, b_runs = edges[0::2], edges[1::2]
        word_char = (self.cls & (cf.LETTERS | cf.DIGIT | cf.MARK)) != 0
        n = self.cls.shape[0]
        inside = (a_runs > 0) & (b_runs < n)
        inside[inside] &= word_char[a_runs[inside] - 1] & word_char[b_runs[inside]]
        holding = np.searchsorted(self.starts, a_runs[inside], side="right") - 1
        self.found.words["invisible"] = int(np.unique(holding).shape[0])

    def _letters(self, a: int, b: int) -> list[int]:
        cls = self.cls
        return [p for p in range(a, b) if cls[p] & cf.LETTERS]

    def _homoglyphs(self) -> None:
        scripts_of = self.word_bits
        # the words to look at in Python, one by one: letters of the three scripts only, of
        # two of them or with a digit (Cyrillic); those wholly in another script than the
        # text's only when the first are many
        three = cf.LATIN | cf.CYRILLIC | cf.GREEK
        present_bits = scripts_of & three
        several = (present_bits & (present_bits - 1)) != 0
        other = (scripts_of & cf.OTHER_LETTER) != 0
        plain = ~other & (present_bits != 0)
        # letters of another script (Armenian օ ո ս զ in an English word) with a look-alike
        # in the word's: folded when every one has one (a real word of two scripts stays)
        other_mixed = other & (present_bits != 0)
        digits = ((scripts_of & cf.DIGIT) != 0) & ((present_bits & cf.CYRILLIC) != 0)
        mixed = 0
        for w in np.flatnonzero((plain & (several | digits)) | other_mixed).tolist():
            bits = int(scripts_of[w])
            a, b = int(self.starts[w]), int(self.ends[w])
            present = [s for s in cf.SCRIPTS if bits & s]
            mixing = len(present) >= 2 or bool(bits & cf.OTHER_LETTER)
            folded = self._fold_mixed(a, b, present) if mixing else 0
            mixed += folded > 0
            if bits & cf.DIGIT:
                folded += self._fold_digits(a, b)
            if folded:
                self.found.add("homoglyph", a, b, folded)
        # A word wholly in another script is folded only in a text where words with swapped
        # letters are many (a copy with every look-alike swapped has "copoк" beside "cop"):
        # in an honest text it is a name, a quotation or a formula (motu proprio, εκ οντων).
        least, share = _FOREIGN_EVIDENCE
        if mixed < least or mixed < share * self.found.total_words:
            return
        # (a word of a script other than the three, Armenian "օո" for "on", the same way)
        foreign = plain & ~several & (present_bits != self.script)
        foreign |= other & ((present_bits & self.script) == 0)
        for w in np.flatnonzero(foreign).tolist():
            a, b = int(self.starts[w]), int(self.ends[w])
            folded = self._fold_foreign(w, a, b)
            if folded:
                self.found.add("homoglyph", a, b, folded)

    def _fold_mixed(self, a: int, b: int, present: list[int]) -> int:
        """A word with letters of two or three scripts: into the text's script when every
        other letter has a look-alike there (a copy with every look-alike swapped has more
        Latin than Cyrillic letters in "copoк"), else into the script of most of its letters
        when every other letter has one there, else left (a real mixed word)."""
        letters = self._letters(a, b)
        counts = {s: sum(1 for p in letters if self.cls[p] & s) for s in present}
        top = max(counts.values())
        leaders = [s for s, c in counts.items() if c == top]
        order = [self.script] if self.script in present else []
        order += [s for s in leaders if s not in order][:1] if len(leaders) == 1 else []
        for major in order:
            into = cf.FOLD_INTO[major]
            minority = [p for p in letters if not self.cls[p] & major]
            targets = cf.fold_targets()[major]
            if all(self.cls[p] & into and int(self.cps[p]) in targets for p in minority):
                for p in minority:
                    self.subs[p] = targets[int(self.cps[p])]
                return len(minority)
        return 0

    def _fold_foreign(self, w: int, a: int, b: int) -> int:
        letters = self._letters(a, b)
        targets = cf.fold_targets()[self.script]
        if letters and self._code(a, b, letters):
            return self._fold_code(a, b, letters, targets)
        if not letters or len(letters) != b - a:
            return 0  # digits or marks: a formula or a code (H2O, p42), not a swapped word
        if not all(self._plain_look_alike(p, targets) for p in letters):
            return 0
        if len(letters) > 1 and _ROMAN.fullmatch(self.text[a:b]):
            return 0  # a Roman numeral (XX век) is Latin in any text; "C" is a swapped "С"
        # a word in capitals may touch a dot or a slash: an abbreviation (U.K., A/S, <HE>)
        upper = all(not self.cls[p] & cf.LOWER for p in letters)
        if not upper and not self._standalone(a, b):
            return 0
        # beside a word of the text's script, and (longer than two letters) not beside one of
        # the other script (the year in "Player of the year" stays English in a Russian copy)
        near = (self._neighbour(w, -1, targets), self._neighbour(w, 1, targets))
        if "text" not in near or ("foreign" in near and len(letters) > 2):
            return 0
        for p in letters:
            self.subs[p] = targets[int(self.cps[p])]
        return len(letters)

    def _code(self, a: int, b: int, letters: list[int]) -> bool:
        """Whether the word ``[a, b)`` is letters and digits only, with a digit (``A340``,
        ``750p``, ``95MC``)."""
        digits = sum(1 for p in range(a, b) if self.cls[p] & cf.DIGIT)
        return digits > 0 and digits + len(letters) == b - a

    def _fold_code(self, a: int, b: int, letters: list[int], targets: dict[int, int]) -> int:
        """A code of letters and digits wholly in another script, in a copy with letters
        swapped (the caller has seen the evidence): its letters fold into the text's script
        when each has a plain look-alike there, and either the text is Latin (an English text
        holds no Cyrillic or Greek codes: ``А340``, ``750р`` are swapped ``A340``, ``750p``) or
        the code is joined by a hyphen to a word of the text's script, as folded
        (``Ту-95MC``, ``Су-30CM``). A Latin code standing alone in a Russian copy (``A380``,
        ``F-35``, or a swapped ``В37``?) cannot be told from the source's own and stays."""
        if not all(self._plain_look_alike(p, targets) for p in letters):
            return 0
        if self.script != cf.LATIN and not self._hyphened_to_text(a):
            return 0
        for p in letters:
            self.subs[p] = targets[int(self.cps[p])]
        return len(letters)

    def _hyphened_to_text(self, a: int) -> bool:
        """Whether a hyphen joins the word starting at ``a`` to the word before it, and that
        word has a letter of the text's script (or folded into it)."""
        if a < 2 or self.text[a - 1] not in "-\u2010\u2011":
            return False
        p = a - 2
        found = False
        while p >= 0 and self.cls[p] & (cf.LETTERS | cf.DIGIT | cf.MARK):
            if self.cls[p] & self.script or int(self.subs[p]) != int(self.cps[p]):
                found = found or bool(self.cls[p] & cf.LETTERS)
            p -= 1
        return found

    def _plain_look_alike(self, p: int, targets: dict[int, int]) -> bool:
        """Whether the letter at ``p`` has a look-alike of the same case in the basic alphabet
        of the text's script (the swaps a copywriter makes: a/а, c/с, B/В, H/Н…; not b/Ь or
        s/ѕ, so an English word in a Russian copy stays)."""
        cp = int(self.cps[p])
        target = targets.get(cp)
        return (
            target is not None
            and _basic(target, self.script)
            and chr(target).islower() == chr(cp).islower()
        )

    def _neighbour(self, w: int, step: int, targets: dict[int, int]) -> str:
        """What the nearest word with a letter before (``step`` -1) or after (1) word ``w``
        is: ``text`` (it holds a letter of the text's script), ``foreign`` (a letter of
        another script with no plain look-alike in it), ``swapped`` (letters of another script
        that all have one) or ``none``."""
        v = w + step
        while 0 <= v < self.starts.shape[0]:
            a, b = int(self.starts[v]), int(self.ends[v])
            letters = self._letters(a, b)
            if letters:
                if any(self.cls[p] & self.script for p in letters):
                    return "text"
                if all(self._plain_look_alike(p, targets) for p in letters):
                    return "swapped"
                return "foreign"
            v += step
        return "none"

    def _standalone(self, a: int, b: int) -> bool:
        """Whether the word ``[a, b)`` stands alone: white space or sentence punctuation on
        both sides, or a joiner (``-``, ``/``, ``.``) to a word that is not of another script
        ("лит-pama", "м/c", "1990-x"; not "e-mail" or "ria.ru"); a ``.`` after it at the end
        of a sentence."""
        text = self.text
        if a > 0 and text[a - 1] not in _STANDALONE:
            if text[a - 1] not in _JOINERS or self._foreign_at(a - 2, -1):
                return False
        if b < len(text) and text[b] not in _STANDALONE:
            if text[b] == "." and (b + 1 == len(text) or text[b + 1].isspace()):
                return True
            if text[b] not in _JOINERS or self._foreign_at(b + 1, 1):
                return False
        return True

    def _foreign_at(self, p: int, step: int) -> bool:
        """Whether the word that ends (``step`` -1) or starts (1) at ``p`` has letters, none of
        them of the text's script, and one with no plain look-alike in it."""
        n = len(self.text)
        if not 0 <= p < n or not self.cls[p] & (cf.LETTERS | cf.DIGIT):
            return False
        q = p
        while 0 <= q + step < n and self.cls[q + step] & (cf.LETTERS | cf.DIGIT | cf.MARK):
            q += step
        a, b = min(p, q), max(p, q) + 1
        letters = self._letters(a, b)
        if not letters or any(self.cls[x] & self.script for x in letters):
            return False
        targets = cf.fold_targets()[self.script]
        return not all(self._plain_look_alike(x, targets) for x in letters)

    def _fold_digits(self, a: int, b: int) -> int:
        """Digits used as letters inside a Russian word (``м0локо``, ``3има``): an ASCII digit
        between two Cyrillic letters of a word of at least three letters, or a digit at its
        start or end beside a letter, becomes the Russian letter it looks like; a digit with no
        such letter between two lowercase letters with two letters on each side (``пла1гиат``)
        is stuffing and goes."""
        cls = self.cls
        letters = self._letters(a, b)
        if len(letters) < 3:
            return 0
        major = max(cf.SCRIPTS, key=lambda s: sum(1 for p in letters if cls[p] & s))
        if major != cf.CYRILLIC:
            return 0  # Latin words hold digits (mp3, B2B, nm0w): only Russian ones never do
        targets = cf.fold_targets()[major]
        digits = [p for p in range(a, b) if 0x30 <= int(self.cps[p]) <= 0x39]
        folded = 0
        for p in digits:
            cp = int(self.cps[p])
            before = p > a and bool(cls[p - 1] & major)
            after = p + 1 < b and bool(cls[p + 1] & major)
            # at the word's edge beside a letter ("скор0", "м0жн0": every о a 0), not in a
            # number ("2014г", "отрази63": a digit beside it)
            edge = (p == a and after) or (p == b - 1 and before)
            if not (before and after) and not edge:
                continue
            if cp in targets and _basic(targets[cp], major):
                self.subs[p] = targets[cp]
                folded += 1
            elif before and after and self._inside(p, p + 1, a, b, major):
                self.keep[p] = False
                self.found.add("stuffing", p, p + 1, 1)
        return folded

    def _inside(
        self, p: int, q: int, a: int, b: int, script: int, least: int = 2, lowercase: bool = True
    ) -> bool:
        """Whether ``[p, q)`` lies between two letters of ``script`` of ``[a, b)`` with at
        least ``least`` letters on each side, three in all, and (``lowercase``) a lowercase
        letter after it."""
        cls = self.cls
        left = [x for x in range(a, p) if cls[x] & cf.LETTERS]
        right = [x for x in range(q, b) if cls[x] & cf.LETTERS]
        return (
            len(left) >= least
            and len(right) >= least
            and len(left) + len(right) >= 3
            and bool(cls[left[-1]] & script)
            and bool(cls[right[0]] & script)
            and (not lowercase or bool(cls[right[0]] & cf.LOWER))
        )

    def _stuffing(self) -> None:
        """Symbols and private-use or unassigned characters between two letters of a
        word: ``пла\\ue000гиат``."""
        cls = self.cls
        stuff = np.flatnonzero((cls & cf.STUFF) != 0)
        if stuff.shape[0] == 0:
            return
        n = cls.shape[0]
        for p in stuff.tolist():
            if not self.keep[p] or p == 0:
                continue
            q = p + 1
            while q < n and q - p < 3 and cls[q] & cf.STUFF:
                q += 1
            if q >= n or not (cls[p - 1] & cf.LETTERS and cls[q] & cf.LETTERS):
                continue
            a = p - 1
            while a > 0 and cls[a - 1] & cf.LETTERS:
                a -= 1
            b = q
            while b < n and cls[b] & cf.LETTERS:
                b += 1
            script = int(cls[p - 1]) & (cf.LATIN | cf.CYRILLIC | cf.GREEK)
            if script and self._inside(p, q, a, b, script, least=1, lowercase=False):
                self.keep[p:q] = False
                self.found.add("stuffing", p, q, q - p)

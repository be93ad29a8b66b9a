"""Text out of an RTF file: a small tokenizer of its own (groups, control words and symbols,
text), bounded like the other office readers.

What is read: the document's text, ``\\par``/``\\line``/``\\sect``/``\\page`` as newlines (one
paragraph a line, as a ``.docx``), ``\\tab`` as a tab, a table's ``\\cell`` as a tab between
cells and ``\\row`` as the end of the row's line; ``\\uN`` as the Unicode character N (negative
N is N + 65536; a surrogate pair is joined), its ``\\ucN`` fallback characters skipped (one by
default, counted as the specification counts them: a byte, a ``\\'hh``, a control word or
symbol; a group's brace ends the skipping); ``\\'hh`` and bytes above ASCII in the code page of
the current font (``\\fcharsetN`` or ``\\cpgN`` in the font table), else of the document
(``\\ansicpgN``; ``\\mac``, ``\\pc``, ``\\pca``), consecutive bytes decoded together so a
double-byte code page reads right; named characters (``\\emdash``, ``\\lquote``, ``\\~`` …).
``\\upr``'s Unicode half (``\\ud``) is read, not its ANSI one.

What is left out: destinations that are not the body's text — the font, colour, style and
list tables, ``\\info``, pictures (``\\pict``, ``\\bin`` data skipped by its count), objects'
data, headers, footers, footnotes, comments, field instructions (a field's result is read),
list numbers (``\\pntext``, ``\\listtext``), shapes' text, and every group opened by ``\\*``
that this reader does not know.

Hidden text (``hidden``): characters after ``\\v`` (until ``\\v0``, ``\\plain`` or the group's
end) — direct formatting only, as for ``.docx`` (a style's ``\\v`` is not followed).
:func:`text` keeps it; :func:`visible` keeps it out and counts it.

Bounds (:class:`~neardup.inputs.office_base.OfficeLimits`): the file's bytes; its groups
(``max_elements``, and nesting deeper than :data:`MAX_DEPTH` is refused as damaged), its
paragraphs, the characters given and the time, checked as the file is read. There is nothing
packed in an RTF file, so its bytes bound everything else.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, replace

from neardup.inputs.office_base import (
    CLOCK_EVERY,
    Budget,
    Extraction,
    count_dropped,
    found,
    unreadable,
)

NOT_RTF = "no {\\rtf header"

#: Groups nested deeper than this are taken for a damaged (or crafted) file.
MAX_DEPTH = 1000

#: One token: a control word with its parameter (and the space that ends it), a ``\\'hh``, a
#: control symbol, a brace, line ends (ignored), or a run of text.
_TOKEN = re.compile(
    rb"\\([a-zA-Z]{1,32})(-?[0-9]{1,10})? ?|\\'([0-9a-fA-F]{2})|\\(.)|([{}])|[\r\n]+|[^\\{}\r\n]+",
    re.DOTALL,
)

#: A run of ``\\uN`` escapes each followed by one plain fallback byte (``\\uc1``, as Word
#: writes every Cyrillic letter), read at once: the delimiting space is taken if there is one
#: (possessive), so the run means what the same tokens one by one would.
_UNICODE_RUN = re.compile(rb"(?:\\u-?[0-9]{1,5}(?![0-9]) ?+[^\\{}\r\n])+")
_UNICODE_NUMBER = re.compile(rb"\\u(-?[0-9]+)")

#: Destinations whose text is not the body's.
_SKIPPED = frozenset(
    """fonttbl colortbl stylesheet info pict object objdata header headerl headerr headerf
    footer footerl footerr footerf footnote annotation atnid atnauthor atrfstart atrfend
    fldinst pntext pntxta pntxtb listtext listtable listoverridetable revtbl rsidtbl
    generator xmlnstbl themedata colorschememapping latentstyles datastore shpinst shprslt
    nonshppict do xe tc txe bkmkstart bkmkend filetbl mmathPr userprops docvar template
    upr""".split()
)

#: Control words that are one character.
_NAMED = {
    "par": "\n",
    "line": "\n",
    "sect": "\n",
    "page": "\n",
    "tab": "\t",
    "emdash": "\u2014",
    "endash": "\u2013",
    "emspace": " ",
    "enspace": " ",
    "qmspace": " ",
    "bullet": "\u2022",
    "lquote": "\u2018",
    "rquote": "\u2019",
    "ldblquote": "\u201c",
    "rdblquote": "\u201d",
    "zwj": "\u200d",
    "zwnj": "\u200c",
}
#: Control symbols that are one character (``\\-``, an optional hyphen, is none).
_SYMBOLS = {"~": "\u00a0", "_": "-", "\\": "\\", "{": "{", "}": "}", "\n": "\n", "\r": "\n"}

#: ``\\fcharsetN`` → its Windows code page (0 is ANSI: cp1252; 1, the default, and 2, symbol,
#: take the document's).
_CHARSETS = {
    0: 1252,
    77: 10000,
    128: 932,
    129: 949,
    130: 1361,
    134: 936,
    136: 950,
    161: 1253,
    162: 1254,
    163: 1258,
    177: 1255,
    178: 1256,
    186: 1257,
    204: 1251,
    222: 874,
    238: 1250,
    255: 437,
}
#: Code pages Python names otherwise than ``cpN``.
_CODECS = {
    10000: "mac_roman",
    10007: "mac_cyrillic",
    20866: "koi8_r",
    21866: "koi8_u",
    28591: "latin_1",
    28595: "iso8859_5",
    65001: "utf-8",
    1361: "johab",
}


#: The document's character sets that name no code page number.
_ANSI = {"mac": 10000, "pc": 437, "pca": 850}


def looks_right(data: bytes) -> bool:
    return data.lstrip(b"\xef\xbb\xbf \t\r\n")[:5] == b"{\\rtf"


def _codec(page: int) -> str:
    name = _CODECS.get(page, f"cp{page}")
    try:
        codecs.lookup(name)
    except LookupError:
        return "cp1252"
    return name


@dataclass(frozen=True)
class _State:
    """What a group inherits and may change."""

    skip: bool = False
    hidden: bool = False
    font: int = -1
    uc: int = 1
    fonttbl: bool = False
    #: Inside ``\\upr``: whether the text was skipped before it (``\\ud`` goes back to it).
    upr_skip: bool | None = None


class _Writer:
    """The text read so far: everything, or only what is seen with the rest counted."""

    def __init__(self, budget: Budget, dropped: dict[str, list[int]] | None) -> None:
        self.budget = budget
        self.dropped = dropped
        self.out: list[str] = []
        self.hidden: list[str] = []
        self.high: int | None = None  # a high surrogate waiting for its pair

    def add(self, text: str, hidden: bool) -> None:
        if not text:
            return
        self.budget.spend(len(text))
        if hidden and self.dropped is not None:
            self.hidden.append(text)
            return
        if self.hidden and self.dropped is not None:
            count_dropped(self.dropped, "hidden", "".join(self.hidden))
            self.hidden.clear()
        self.out.append(text)

    def units(self, codes: list[int], hidden: bool) -> None:
        """UTF-16 code units of ``\\uN`` (N below zero already taken from 65536)."""
        chars = []
        for code in codes:
            if 0xD800 <= code < 0xDC00:
                self.high = code
                continue
            if 0xDC00 <= code < 0xE000 and self.high is not None:
                code = 0x10000 + ((self.high - 0xD800) << 10) + (code - 0xDC00)
            self.high = None
            if not 0xD800 <= code < 0xE000:  # a lone surrogate is no character
                chars.append(chr(code))
        self.add("".join(chars), hidden)

    def end_row(self, hidden: bool) -> None:
        if self.out and self.out[-1].endswith("\t"):
            self.out[-1] = self.out[-1][:-1]
        self.add("\n", hidden)

    def text(self) -> str:
        if self.hidden and self.dropped is not None:
            count_dropped(self.dropped, "hidden", "".join(self.hidden))
            self.hidden.clear()
        return "".join(self.out).strip("\n")


class _Parser:
    def __init__(self, data: bytes, budget: Budget, writer: _Writer) -> None:
        self.data = data
        self.budget = budget
        self.writer = writer
        self.ansi = 1252
        self.deff = 0
        self.fonts: dict[int, int] = {}
        self.defining = 0  # the font table entry being read
        self.pending = bytearray()  # bytes to decode together in one code page
        self.pending_state = _State()
        self.skipping = 0  # \uN fallback characters still to skip
        self.star = False  # the last token was \*
        self.state = _State()
        self.stack: list[_State] = []
        self.tokens = self.groups = self.paragraphs = 0
        self.done = False

    # ---- bytes in the current code page ---------------------------------------------------
    def page(self, state: _State) -> int:
        font = state.font if state.font >= 0 else self.deff
        return self.fonts.get(font, self.ansi)

    def byte(self, value: bytes, state: _State) -> None:
        if self.pending and (
            self.page(state) != self.page(self.pending_state)
            or state.hidden != self.pending_state.hidden
        ):
            self.flush()
        if not self.pending:
            self.pending_state = state
        self.pending += value

    def flush(self) -> None:
        if self.pending:
            state = self.pending_state
            self.writer.add(
                bytes(self.pending).decode(_codec(self.page(state)), "replace"), state.hidden
            )
            self.pending.clear()

    # ---- the tokens -----------------------------------------------------------------------
    def run(self) -> str:
        data = self.data
        position = data.index(b"{")
        while position < len(data) and not self.done:
            if data.startswith(b"\\u", position) and self.plain_unicode():
                run = _UNICODE_RUN.match(data, position)
                if run is not None:
                    self.unicode_run(run.group(0))
                    position = run.end()
                    continue
            match = _TOKEN.match(data, position)
            if match is None:  # a lone backslash at the very end
                break
            position = match.end() + self.token(match)
        self.flush()
        return self.writer.text()

    def plain_unicode(self) -> bool:
        """Whether ``\\uN`` escapes here may be read as a run: one fallback byte each, text
        that is read, nothing pending."""
        state = self.state
        return state.uc == 1 and not state.skip and not self.skipping and not self.star

    def unicode_run(self, run: bytes) -> None:
        numbers = [int(n) for n in _UNICODE_NUMBER.findall(run)]
        self.tokens += 2 * len(numbers)
        self.budget.tick()
        self.flush()
        self.writer.units([n + 65536 if n < 0 else n for n in numbers], self.state.hidden)

    def token(self, match: re.Match[bytes]) -> int:
        """Read one token; how many bytes after it to pass over (a ``\\bin``'s data)."""
        self.tokens += 1
        if self.tokens % CLOCK_EVERY == 0:
            self.budget.tick()
        word, param, hexa, symbol, brace = match.groups()
        whole = match.group(0)
        if brace is not None:
            self.brace(brace)
        elif whole[:1] in b"\r\n":
            pass  # line ends in the file are no text
        elif self.skipping:
            return self.fallback(whole, word, param)
        elif word is not None:
            return self.word(word.decode("ascii"), int(param) if param is not None else None)
        elif hexa is not None:
            if not self.state.skip:
                self.byte(bytes([int(hexa, 16)]), self.state)
        elif symbol is not None:
            self.symbol(symbol.decode("latin-1"))
        elif not self.state.skip:
            self.byte(whole, self.state)
        return 0

    def brace(self, brace: bytes) -> None:
        self.skipping = 0
        self.star = False
        if brace == b"{":
            self.groups += 1
            self.budget.count("groups", self.groups, "max_elements")
            self.stack.append(self.state)
            if len(self.stack) > MAX_DEPTH:
                raise unreadable(".rtf", f"its groups nest deeper than {MAX_DEPTH:,}")
            return
        self.flush()
        if not self.stack:
            self.done = True  # the document's closing brace: nothing after it is read
            return
        self.state = self.stack.pop()

    def fallback(self, whole: bytes, word: bytes | None, param: bytes | None) -> int:
        """A token while ``\\uN``'s fallback characters are skipped: a run of text loses only
        its first bytes; a control word or symbol, a ``\\'hh``, is one character."""
        if whole[:1] != b"\\":
            skipped = min(self.skipping, len(whole))
            self.skipping -= skipped
            if skipped < len(whole) and not self.state.skip:
                self.byte(whole[skipped:], self.state)
            return 0
        self.skipping -= 1
        return max(0, int(param)) if word == b"bin" and param else 0

    def symbol(self, char: str) -> None:
        if char == "*":
            self.star = True
        elif not self.state.skip and char in _SYMBOLS:
            self.flush()
            self.writer.add(_SYMBOLS[char], self.state.hidden)

    def word(self, name: str, value: int | None) -> int:
        if name == "bin":  # raw bytes, passed over by their count
            return max(0, value or 0)
        if name == "par":
            self.paragraphs += 1
            self.budget.count("paragraphs", self.paragraphs, "max_paragraphs")
        star, self.star = self.star, False
        state = self.state
        if state.fonttbl:
            self.font_entry(name, value)
            return 0
        changed = self.destination(name, star, state)
        if changed is None:
            changed = self.formatting(name, value, state)
        if changed is not None:
            self.state = changed
        elif not state.skip:
            self.character(name, value, state)
        return 0

    def destination(self, name: str, star: bool, state: _State) -> _State | None:
        """The state a destination word starts (text skipped or read again), or None."""
        if name == "ud" and state.upr_skip is not None:
            return replace(state, skip=state.upr_skip)
        if name == "upr":
            return replace(state, skip=True, upr_skip=state.skip)
        if name == "fonttbl":
            self.flush()
            return replace(state, skip=True, fonttbl=True)
        if star or name in _SKIPPED:
            self.flush()
            return replace(state, skip=True)
        return None

    def formatting(self, name: str, value: int | None, state: _State) -> _State | None:
        """The state a formatting word leaves (code pages, font, ``\\uc``, hidden), or None."""
        if name == "ansicpg" and value is not None:
            self.ansi = value
        elif name in _ANSI:
            self.ansi = _ANSI[name]
        elif name == "deff" and value is not None:
            self.deff = value
        elif name == "f" and value is not None:
            return replace(state, font=value)
        elif name == "uc" and value is not None:
            return replace(state, uc=max(0, value))
        elif name == "v":
            self.flush()
            return replace(state, hidden=value != 0)
        elif name == "plain":
            self.flush()
            return replace(state, hidden=False, font=-1)
        else:
            return None
        return state

    def character(self, name: str, value: int | None, state: _State) -> None:
        """The text a word stands for: ``\\uN``, a cell's or row's end, a named character."""
        if name == "u" and value is not None:
            self.flush()
            self.writer.units([value + 65536 if value < 0 else value], state.hidden)
            self.skipping = state.uc
        elif name in ("cell", "nestcell"):
            self.flush()
            self.writer.add("\t", state.hidden)
        elif name in ("row", "nestrow"):
            self.flush()
            self.writer.end_row(state.hidden)
        elif name in _NAMED:
            self.flush()
            self.writer.add(_NAMED[name], state.hidden)

    def font_entry(self, name: str, value: int | None) -> None:
        """A control word of the font table: which font, and its code page."""
        if name == "f" and value is not None:
            self.defining = value
        elif name == "fcharset" and value is not None:
            page = _CHARSETS.get(value)
            if page is not None:
                self.fonts[self.defining] = page
        elif name == "cpg" and value is not None and value > 0:
            self.fonts[self.defining] = value


def _read(data: bytes, budget: Budget, dropped: dict[str, list[int]] | None) -> str:
    return _Parser(data, budget, _Writer(budget, dropped)).run()


def text(data: bytes, budget: Budget) -> str:
    """All the text of an RTF file, hidden or not."""
    return _read(data, budget, None)


def visible(data: bytes, budget: Budget) -> Extraction:
    """What a reader sees of an RTF file, and its hidden text counted."""
    dropped: dict[str, list[int]] = {}
    seen = _read(data, budget, dropped)
    return Extraction(seen, found(dropped))

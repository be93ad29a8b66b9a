"""Sentences of a text: where they start and end in the ORIGINAL input, and their tokens."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from neardup.analysis.analyzer import Canonical

I64 = npt.NDArray[np.int64]
Span = tuple[int, int]

# A sentence may end at . ! ? … (and closing quotes or brackets) before white space — the next
# word must also start with a capital letter or a digit (:func:`_is_sentence_end`) —, at a line
# break, at a block-level HTML tag.
_SENTENCE_END = re.compile(
    r"[.!?…]+[\"'»”’)\]]*(?=\s)"
    r"|\n"
    r"|</?(?:p|div|li|ul|ol|h[1-6]|tr|td|th|table|blockquote|section|article|header|footer"
    r"|title|br|hr)\b[^>]*>",
    re.IGNORECASE,
)
_WORD_BEFORE = re.compile(r"([^\W\d_]+)\.?$")
_ABBREVIATIONS = frozenset(
    "т д п др пр см ср рис им ул г гг в вв стр тыс млн млрд руб коп долл ст обл р-н "
    "mr mrs ms dr st jr sr inc co corp ltd vs no nos fig gen gov sen rep prof"
    " jan feb mar apr jun jul aug sep sept oct nov dec".split()
)


def _is_sentence_end(text: str, match: re.Match[str]) -> bool:
    """Whether a punctuation match really ends a sentence (not ``А. С. Пушкин``, ``Mr. Smith``,
    ``т. е. Москва``); a block tag always does, a line break unless the next line goes on with
    a small letter."""
    piece = match.group()
    if piece.startswith("<"):
        return True
    if piece == "\n":
        # a blank line or a line that starts with anything but a small letter (a heading, a
        # new paragraph); a hard-wrapped line going on with a small letter is not a new one
        ahead = text[match.end() : match.end() + 64]
        rest = ahead.lstrip()
        return "\n" in ahead[: len(ahead) - len(rest)] or not rest[:1].islower()
    follows = text[match.end() : match.end() + 8]
    if not follows[:1].isspace():
        return False
    rest = follows.lstrip().lstrip("\"'«“„([-–—").lstrip()
    if not rest or not (rest[0].isupper() or rest[0].isdigit()):
        return False
    if piece[0] != ".":
        return True
    before = _WORD_BEFORE.search(text, max(0, match.start() - 12), match.start())
    if before is None:
        return True
    word = before.group(1)
    return not (len(word) == 1 or word.lower() in _ABBREVIATIONS)


def sentence_bounds(text: str) -> tuple[I64, I64]:
    """Where the sentences of ``text`` start and end: sentence ``k`` is
    ``text[starts[k]:ends[k]]`` (white space and the tag that ends it not trimmed); together
    they cover the text but for the tags between sentences."""
    starts, ends = [0], []
    for match in _SENTENCE_END.finditer(text):
        if _is_sentence_end(text, match):
            tag = match.group().startswith("<")
            end, at = (match.start() if tag else match.end()), match.end()
            if at > starts[-1]:
                ends.append(max(end, starts[-1]))
                starts.append(at)
    ends.append(len(text))
    return np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64)


def sentence_spans(text: str) -> list[Span]:
    """Character spans of the sentences of ``text``, white space trimmed, empty ones left out."""
    spans = []
    for start, end in zip(*(b.tolist() for b in sentence_bounds(text)), strict=True):
        piece = text[start:end]
        left = len(piece) - len(piece.lstrip())
        right = len(piece.rstrip())
        if right > left:
            spans.append((start + left, start + right))
    return spans


@dataclass(frozen=True)
class Sentences:
    """A text cut into sentences with its canonical tokens (:meth:`RewriteFinder.prepare`).

    Sentence ``s`` spans ``text[starts[s]:ends[s]]`` (the original input) and holds tokens
    ``token_first[s]:token_end[s]`` of ``canonical``; ``terms`` are the tokens' terms.
    """

    text: str
    canonical: Canonical
    terms: tuple[str, ...]
    starts: I64
    ends: I64
    token_first: I64
    token_end: I64

    def __len__(self) -> int:
        return int(self.starts.shape[0])

    @property
    def spans(self) -> list[Span]:
        return list(zip(self.starts.tolist(), self.ends.tolist(), strict=True))


def split_sentences(text: str, canonical: Canonical) -> Sentences:
    """``text`` cut into sentences, each with its tokens of ``canonical`` (``text``'s own)."""
    cuts, cut_ends = sentence_bounds(text)
    n_tokens = len(canonical)
    tok_starts = np.asarray(canonical.starts, dtype=np.int64)
    tok_ends = np.asarray(canonical.ends, dtype=np.int64)
    # each token's sentence, then the sentences that hold tokens (the others carry nothing)
    owner = np.searchsorted(cuts, tok_starts, side="right") - 1
    kept = np.unique(owner)
    first = np.searchsorted(owner, kept, side="left").astype(np.int64)
    end = np.searchsorted(owner, kept, side="right").astype(np.int64)
    starts = np.empty(kept.shape[0], dtype=np.int64)
    ends = np.empty(kept.shape[0], dtype=np.int64)
    lows, highs = cuts.tolist(), cut_ends.tolist()
    for s, (sentence, t0, t1) in enumerate(zip(kept.tolist(), first.tolist(), end.tolist())):
        lo, hi = int(tok_starts[t0]), int(tok_ends[t1 - 1])
        # widen to the sentence's own edges (a leading stop word, the closing full stop) unless
        # markup lies in between: a span must not swallow a tag
        cut_lo, cut_hi = lows[sentence], max(highs[sentence], hi)
        head = text[cut_lo:lo]
        if "<" not in head and ">" not in head:
            lo = cut_lo + (len(head) - len(head.lstrip()))
        tail = text[hi:cut_hi]
        if "<" not in tail and ">" not in tail:
            hi = hi + len(tail.rstrip())
        starts[s], ends[s] = lo, hi
    terms = tuple(canonical.terms) if n_tokens else ()
    return Sentences(text, canonical, terms, starts, ends, first, end)


# Lines that are never a rewrite whatever they share: an embedded post's signature line
# ("— Name (@handle) May 5, 2020", a pic.twitter.com link), a photo or source credit, a byline,
# a "read also" or "subscribe" line, a source credit (not a headline "Source: ... ." that quotes
# one), a line that is only a date and time. Two stories quoting
# one post, or dated a day apart, share such lines word for word but for a date.
_BOILERPLATE = re.compile(
    r"pic\.twitter\.com/|(?:twitter|x|t|instagram|facebook|vk|youtube)\.com/\S"
    r"|\(@\w{1,30}\)"
    r"|^\s*[—–-]?\s*@\w{1,30}\b"
    r"|^\s*(?:фото|photo|видео|video|credit|автор|author)\s*[:|—–]"
    r"|^\s*(?:источник|source)\s*[:|—–][^.!?…]*$"
    r"|^\s*(?:reporting|editing|writing|additional reporting) by\b"
    r"|^\s*(?:читайте также|read also|read more|смотрите также|see also|подписывайтесь)\b"
    r"|^\s*by\s+[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,3}\s*$",
    re.IGNORECASE,
)
_DATE_ONLY = re.compile(
    r"^[\s\d.,:/–—-]*(?:(?:[^\W\d_]{3,12})[\s\d.,:/–—-]*){0,3}$",
)
_DIGIT = re.compile(r"\d")


def boilerplate(text: str) -> bool:
    """Whether a sentence is an embed, credit or date line (:data:`_BOILERPLATE`), or at most
    three words around numbers (a dateline: ``14 ноября 2019, 12:30``)."""
    if _BOILERPLATE.search(text):
        return True
    return bool(_DIGIT.search(text)) and _DATE_ONLY.match(text.strip()) is not None


def boilerplate_sentences(sentences: Sentences) -> npt.NDArray[np.bool_]:
    """Which sentences of ``sentences`` are :func:`boilerplate`."""
    text, spans = sentences.text, zip(sentences.starts.tolist(), sentences.ends.tolist())
    return np.fromiter(
        (boilerplate(text[s:e]) for s, e in spans),
        dtype=np.bool_,
        count=len(sentences),
    )

"""A copied sentence as a passage: a chain of seeds shorter than ``min_tokens`` is kept when it
is a whole sentence of the query and a whole sentence of the source, of
:data:`SENTENCE_WORDS` words or more.

``min_tokens`` (8 canonical tokens) keeps a shared run of a few words — a set phrase, a
title — from counting as borrowed, but a sentence of 8 to 14 written words often has fewer
than 8 canonical tokens once stop and function words are dropped, so a single sentence copied
word for word went unmarked. Two texts that share a whole sentence end to end, edge to edge on
both sides, share more than a phrase: the chance that a run of common words starts and ends at
sentence ends in both texts is small, and a source a check aligns only by such a chance is
what this rule must not mark (``benchmarks/sentence_candidates.py`` counts both)."""

from __future__ import annotations

import re

from neardup.analysis.analyzer import Canonical

#: The fewest words (runs of letters or digits in the query's own text) a copied sentence
#: shorter than ``min_tokens`` canonical tokens needs to be a passage.
SENTENCE_WORDS = 8

_END = re.compile(r"[.!?…]|\n\s*\n")
_WORD = re.compile(r"\w+")


def _ends_before(text: str, canonical: Canonical, first: int) -> int | None:
    """Where the sentence holding token ``first`` starts, when no canonical token of it stands
    before ``first`` (the words between are stop words); otherwise ``None``."""
    if first == 0:
        return 0
    start = int(canonical.ends[first - 1])
    gap = text[start : int(canonical.starts[first])]
    last = None
    for m in _END.finditer(gap):
        last = m.end()
    return None if last is None else start + last


def _ends_after(text: str, canonical: Canonical, end: int) -> int | None:
    """Where the sentence holding token ``end - 1`` ends, when no canonical token of it stands
    after it; otherwise ``None``."""
    stop = int(canonical.starts[end]) if end < len(canonical) else len(text)
    start = int(canonical.ends[end - 1])
    m = _END.search(text, start, stop)
    if m is not None:
        return m.start()
    return len(text) if end == len(canonical) else None


def whole_sentence(
    a_text: str,
    a: Canonical,
    a_first: int,
    a_end: int,
    b_text: str,
    b: Canonical,
    b_first: int,
    b_end: int,
) -> bool:
    """Whether query tokens ``[a_first, a_end)`` and source tokens ``[b_first, b_end)`` are each
    a whole sentence, the query's of :data:`SENTENCE_WORDS` words or more."""
    a_start = _ends_before(a_text, a, a_first)
    a_stop = _ends_after(a_text, a, a_end)
    if a_start is None or a_stop is None:
        return False
    if _ends_before(b_text, b, b_first) is None or _ends_after(b_text, b, b_end) is None:
        return False
    return len(_WORD.findall(a_text, a_start, a_stop)) >= SENTENCE_WORDS

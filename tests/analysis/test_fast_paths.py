"""Fast paths of the analysis chain give exactly what the plain definitions give.

The table scans behind ``nfkc`` and ``strip_marks`` against their regexes; the token list split
from the joined tokens against slices; the lemma cache against a parse per new word.

The filters once found their runs with ``re`` over huge character classes; kernels over lookup
tables replaced that for speed. These tests keep the regex definitions as the reference and
check text and offsets are unchanged, on hand-picked and generated text.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup.analysis import char_filters as cf
from neardup.analysis.offsets import OffsetMap


def _reference_pieces_map(pieces: list[tuple[int, int, int]]) -> tuple[list[int], list[int]]:
    starts: list[int] = []
    ends: list[int] = []
    for out_len, a, b in pieces:
        if out_len <= 0:
            continue
        if out_len == b - a:
            starts += range(a, b)
            ends += range(a + 1, b + 1)
        else:
            starts += [a] * out_len
            ends += [b] * out_len
    return starts, ends


def reference_nfkc(text: str) -> tuple[str, tuple[list[int], list[int]] | None]:
    if unicodedata.is_normalized("NFKC", text):
        return text, None
    out, pieces = cf._normalize_pieces(text, cf._nfkc_unstable())
    result = "".join(out)
    if result != unicodedata.normalize("NFKC", text):
        out, pieces = cf._normalize_pieces(text, re.compile(r"\S+"))
        result = "".join(out)
    return result, _reference_pieces_map(pieces)


def reference_strip_marks(text: str) -> tuple[str, tuple[list[int], list[int]] | None]:
    pattern = cf._marks()
    if pattern.search(text) is None:
        return text, None
    out: list[str] = []
    pieces: list[tuple[int, int, int]] = []
    pos = 0
    for match in pattern.finditer(text):
        a, b = match.span()
        if a > pos:
            out.append(text[pos:a])
            pieces.append((a - pos, pos, a))
        pos = b
    if pos < len(text):
        out.append(text[pos:])
        pieces.append((len(text) - pos, pos, len(text)))
    return "".join(out), _reference_pieces_map(pieces)


def same(got: tuple[str, OffsetMap | None], want: tuple[str, tuple[list[int], list[int]] | None]) -> None:
    assert got[0] == want[0]
    if want[1] is None:
        assert got[1] is None
        return
    assert got[1] is not None
    assert got[1].starts.tolist() == want[1][0]
    assert got[1].ends.tolist() == want[1][1]


CASES = [
    "",
    "plain ascii text",
    "…ﬁ and ﬁ…",  # single unstable characters map one by one
    "………… многоточия",
    "мо́локо и за́мок",  # stress marks
    "e\u0301\u0323 a\u0323\u0301 o\u0308\u0304",  # marks to compose and reorder
    "\u0301 a mark first",
    "Ⅻ № ㍱ ½ \u00a0nbsp\u00a0",
    "\u1100\u1161 Hangul jamo compose across run boundaries",  # the fallback
    "\ud800 lone surrogate \udfff",
    "x\u0301",
    "\u0301",
    "й ё Й Ё",
]


def test_hand_picked_cases() -> None:
    for text in CASES:
        same(cf.nfkc(text), reference_nfkc(text))
        filtered = cf.nfkc(text)[0]
        same(cf.strip_marks(filtered), reference_strip_marks(filtered))


ALPHABET = st.sampled_from(
    list("abc йёЁ…ﬁ№½ⅫＡ\u00a0\u2009\u0301\u0308\u0323\u0304\u0345\u1100\u1161\u11a8가\u0e31\u0e48\n-")
    + ["\u0915\u093c", "\u0627\u0653", "e\u0301"]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ALPHABET, max_size=40).map("".join))
def test_generated_text_from_tricky_characters(text: str) -> None:
    same(cf.nfkc(text), reference_nfkc(text))
    same(cf.strip_marks(text), reference_strip_marks(text))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_generated_text_from_any_characters(text: str) -> None:
    same(cf.nfkc(text), reference_nfkc(text))
    same(cf.strip_marks(text), reference_strip_marks(text))


def test_from_pieces_is_the_piecewise_map() -> None:
    pieces = [(3, 0, 3), (0, 3, 5), (2, 5, 6), (1, 6, 9), (4, 9, 13)]
    offsets = OffsetMap.from_pieces(pieces)
    assert (offsets.starts.tolist(), offsets.ends.tolist()) == _reference_pieces_map(pieces)
    empty = OffsetMap.from_pieces([])
    assert empty.starts.dtype == np.int64 and len(empty) == 0


# --- the token list of a chain with token filters ---------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab йё-'.,3 \u0301\u00a0\n𝐀ﬁ\U00010330")), max_size=60))
def test_terms_split_from_the_joined_tokens_equal_the_slices(text: str) -> None:
    from neardup._kernels import text as tk

    cps = tk.code_points(text)
    starts, ends = tk.tokenize_words(cps, tk.char_classes(), True, True)
    sliced = [text[a:b] for a, b in zip(starts.tolist(), ends.tolist())]
    if sliced:
        joined, _, _ = tk.encode_tokens(cps, starts, ends)
        assert joined.tobytes().decode("utf-8").split(" ") == sliced


# --- the lemma cache ------------------------------------------------------------------------


class _FakeParse:
    def __init__(self, word: str) -> None:
        self.normal_form = word + "1"
        self.tag = type("Tag", (), {"POS": "NOUN", "grammemes": frozenset({"NOUN"})})()


class _FakeAnalyzer:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def parse(self, word: str) -> list[_FakeParse]:
        self.calls.append(word)
        return [_FakeParse(word)]


def test_lookup_many_parses_each_new_word_once_and_counts_hits() -> None:
    from neardup.analysis.resources import MorphCache

    analyzer = _FakeAnalyzer()
    cache = MorphCache(analyzer)
    out = cache.lookup_many(["a", "b", "a", "c", "b"])
    assert [e[0] for e in out] == ["a1", "b1", "a1", "c1", "b1"]
    assert analyzer.calls == ["a", "b", "c"]
    assert (cache.hits, cache.misses) == (2, 3)
    out = cache.lookup_many(["c", "d", "a"])
    assert [e[0] for e in out] == ["c1", "d1", "a1"]
    assert (cache.hits, cache.misses) == (4, 4)
    assert cache.lookup_many([]) == []
    # a full cache is emptied, and the answers stay the same
    small = MorphCache(_FakeAnalyzer(), max_size=2)
    assert [e[0] for e in small.lookup_many(["x", "y", "z", "x", "y"])] == ["x1", "y1", "z1", "x1", "y1"]

"""Fast paths of the analysis chain give exactly what the plain definitions give.

The table scans behind ``nfkc`` and ``strip_marks`` against their regexes; the token list split
from the joined tokens against slices; the lemma cache against a parse per new word.

The filters once found their runs with ``re`` over huge character classes; kernels over lookup
tables replaced that for speed. These tests keep the regex definitions as the reference and
check text and offsets are unchanged, on hand-picked and generated text.

The analyzer's fused path (char filters, tokenizer and encoder in one kernel over a table)
against the same analyzer with it switched off; the tables it is built from against the filter
functions; and ``Fingerprints.from_hashes`` (sort and neighbour mask) against ``np.unique``.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
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


def same(
    got: tuple[str, OffsetMap | None], want: tuple[str, tuple[list[int], list[int]] | None]
) -> None:
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
    list(
        "abc йёЁ…ﬁ№½ⅫＡ\u00a0\u2009\u0301\u0308\u0323\u0304\u0345"
        "\u1100\u1161\u11a8가\u0e31\u0e48\n-"
    )
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
@given(
    st.text(alphabet=st.sampled_from(list("ab йё-'.,3 \u0301\u00a0\n𝐀ﬁ\U00010330")), max_size=60)
)
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
    assert [e[0] for e in small.lookup_many(["x", "y", "z", "x", "y"])] == [
        "x1",
        "y1",
        "z1",
        "x1",
        "y1",
    ]


# --- the fused char filters + tokenizer (analyzer fast path) --------------------------------


def _general_only(analyzer: object) -> object:
    """The same analyzer with the fused path switched off: every text takes the filters."""
    import copy

    slow = copy.copy(analyzer)
    slow._chains = {lang: copy.copy(chain) for lang, chain in analyzer._chains.items()}  # type: ignore[attr-defined]
    for chain in slow._chains.values():  # type: ignore[attr-defined]
        chain._fast_filters = None
    return slow


def _same_canonical(a: object, b: object) -> None:
    for field in ("buf", "byte_starts", "byte_ends", "starts", "ends"):
        x, y = getattr(a, field), getattr(b, field)
        assert x.dtype == y.dtype, field
        assert np.array_equal(x, y), field
    assert a.language == b.language  # type: ignore[attr-defined]


_ANALYZERS: dict[str, tuple[object, object]] = {}


def _analyzers(name: str) -> tuple[object, object]:
    """(fast, general-only) analyzers of a preset (``name`` may carry options after a colon)."""
    if name not in _ANALYZERS:
        from neardup.analysis.analyzer import Analyzer
        from neardup.analysis.presets import preset

        preset_name, _, option = name.partition(":")
        options = (
            {"numbers": False}
            if option == "nonumbers"
            else {"html": "never"}
            if option == "nohtml"
            else {}
        )
        fast = Analyzer(preset(preset_name, **options))
        _ANALYZERS[name] = (fast, _general_only(fast))
    return _ANALYZERS[name]


FUSED_CASES = [
    "",
    "Привет, мир! Hello, World.",
    "Ёлка и ёж — ЁЛКА; северо-западный don't д'Артаньян 3.14 2,5 COVID-19",
    "Σ ΟΔΥΣΣΕΥΣ σοφός",  # capital sigma: context-dependent lowercase, general path
    "İstanbul ẞ straße",  # İ lowercases to two characters
    "ﬁle … № 5 ½ Ⅻ Ｆｕｌｌ\u00a0nbsp\u2009thin ™ ㎏",  # NFKC one to one and one to several
    "мо\u0301локо за\u0301мок e\u0301",  # combining marks: general path
    "\u1100\u1161 jamo \u0b47\u0b3e oriya",  # characters that compose with the one before
    "emoji \U0001f600 and math \U0001d400\U0001d401 and \U00020000 plane two",
    "\ud800 lone surrogate",
    "- - -a- 'b' .5. 1.2.3 1,,2 x--y",
    "<p>HTML-like</p> but < not enough tags",
    "<!doctype html><html><body><p>Текст страницы</p></body></html>",
    "3 4 5 числа 12 and 7 numbers",
]


@pytest.mark.parametrize("name", ["plain", "ru", "en", "auto", "plain:nonumbers", "ru:nohtml"])
def test_fused_path_equals_the_filters_on_hand_picked_text(name: str) -> None:
    fast, slow = _analyzers(name)
    for text in FUSED_CASES:
        _same_canonical(fast.canonical(text), slow.canonical(text))  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["plain", "ru", "en", "auto", "plain:nonumbers", "ru:nohtml"])
def test_a_text_the_batch_left_takes_the_general_path_with_the_same_tokens(name: str) -> None:
    """``fast_failed`` (the per-document path of a batch) skips the fused path: the same
    tokens, and the same tricks found."""
    fast, _ = _analyzers(name)
    for text in [*FUSED_CASES, "Тeкст с лaтинскими буквaми", "р а з р я д к а слова"]:
        plain = fast.canonical(text)  # type: ignore[attr-defined]
        left = fast.canonical(text, fast_failed=True)  # type: ignore[attr-defined]
        _same_canonical(plain, left)
        assert plain.tricks == left.tricks


FUSED_ALPHABET = st.sampled_from(
    list("abcXYZ АБВгдеЁёЙй ΣσςΑ İIıiẞß ﬁﬂ…№½Ⅻ™㎏Ｆ\u00a0\u2009\n\t-‐'’.,37µΩ\u00b4\u00b3")
    + [
        "\ufe0f",
        "\u2764",
        "\u0b3f",
        "\u0301",
        "\u0308",
        "\u0345",
        "\u034f",
        "\u0e31",
        "\u1100",
        "\u1161",
        "\u11a8",
        "가",
        "\U0001d400",
        "\U0001f600",
        "\u212a",
        "\u0f73",
        "\u09be",
        "\u09c7",
        "<p>",
        "&amp;",
        "\ufeff",
        "ра",
        "мир",
        "the",
        "word",
        "СЛОВО",
    ]
)


@pytest.mark.parametrize("name", ["plain", "ru", "en", "auto", "plain:nonumbers"])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.lists(FUSED_ALPHABET, max_size=50).map("".join))
# NFKC splits a raw word in two (½ → 1⁄2): the scan must not judge the raw word
@example(text="д½theА")
@example(text="д½ a b c d")
@example(text="Тe\u00b4xт a b c d e")
def test_fused_path_equals_the_filters_on_tricky_text(name: str, text: str) -> None:
    fast, slow = _analyzers(name)
    _same_canonical(fast.canonical(text), slow.canonical(text))  # type: ignore[attr-defined]


# ru: the Basic Multilingual Plane only, since pymorphy3 fails on letters unicodedata cannot
# name (Tangut, U+17000...), on either path
@pytest.mark.parametrize(
    ("name", "alphabet"),
    [
        ("plain", st.characters()),
        ("en", st.characters()),
        ("ru", st.characters(max_codepoint=0xFFFF)),
    ],
)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fused_path_equals_the_filters_on_any_text(
    name: str, alphabet: st.SearchStrategy[str], data: st.DataObject
) -> None:
    text = data.draw(st.text(alphabet=alphabet, max_size=60))
    fast, slow = _analyzers(name)
    _same_canonical(fast.canonical(text), slow.canonical(text))  # type: ignore[attr-defined]


def test_fused_path_is_taken_for_ordinary_text_and_left_for_the_rest() -> None:
    fast, _ = _analyzers("plain")
    chain = next(iter(fast._chains.values()))  # type: ignore[attr-defined]
    assert chain.fast_scan("Обычный текст, № 5… ﬁ\u00a0x") is not None
    # under strip_marks, an emoji's variation selector is dropped in the fused path
    ru, _ = _analyzers("ru")
    ru_chain = next(iter(ru._chains.values()))  # type: ignore[attr-defined]
    scan = ru_chain.fast_scan("дом \u2764\ufe0f коты\ufe0f")
    assert scan is not None
    assert (scan.starts.tolist(), scan.ends.tolist()) == ([0, 7], [3, 11])
    assert scan.buf.tobytes().decode() == "дом коты"
    # inside a word it is the fold filter's (an invisible character): the general path, the
    # same tokens
    assert ru_chain.fast_scan("дом \u2764\ufe0f кот\ufe0fы") is None
    inside = ru.canonical("дом \u2764\ufe0f кот\ufe0fы")
    assert (inside.starts.tolist(), inside.ends.tolist()) == ([0, 7], [3, 12])
    assert inside.terms == ["дом", "кот"]  # lemmas
    for text in (
        "ΟΔΥΣΣΕΥΣ",
        "İ",
        "е\u0301",
        "\u1100\u1161",
        "\U00020000",
        "<html><body>x</body></html>",
    ):
        assert chain.fast_scan(text) is None, text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.lists(ALPHABET, max_size=40).map("".join),
        st.lists(FUSED_ALPHABET, max_size=40).map("".join),
        st.text(max_size=40),
    )
)
def test_is_nfkc_equals_is_normalized(text: str) -> None:
    assert cf.is_nfkc(text) == unicodedata.is_normalized("NFKC", text)


def test_is_nfkc_on_hand_picked_cases() -> None:
    for text in CASES + FUSED_CASES + ["가", "ä", "ä́", "́a", "xཱི", "ো", "ୋ", "ẹ́", "ẹ́"]:
        assert cf.is_nfkc(text) == unicodedata.is_normalized("NFKC", text), repr(text)


def test_nfkc_safe_characters_keep_any_text_normalized() -> None:
    safe = np.flatnonzero(cf._nfkc_safe())
    for cp in safe[:: max(1, safe.shape[0] // 4000)].tolist():
        ch = chr(cp)
        assert unicodedata.is_normalized("NFKC", ch) and not unicodedata.combining(ch)
    # every character composing with the one before it is out, whatever comes before
    assert not cf._nfkc_safe()[[0x1161, 0x11A8, 0x0B3E, 0x09BE, 0x0301, 0x0345]].any()
    rng = np.random.default_rng(1)
    for _ in range(300):
        text = "".join(map(chr, rng.choice(safe, 30).tolist()))
        assert unicodedata.is_normalized("NFKC", text)


@pytest.mark.parametrize(
    "filters",
    [
        ("nfkc", "lowercase"),
        ("nfkc", "lowercase", "strip_marks", "yo"),
        ("lowercase", "nfkc"),
        ("yo",),
        (),
    ],
)
def test_fused_table_maps_each_character_as_the_filters_do(filters: tuple[str, ...]) -> None:
    """Every code point of the domain the table maps on its own, checked against the filter
    functions run on the character alone (every 7th code point, and all of Latin-1,
    Cyrillic and Greek)."""
    from neardup._kernels import text as tk

    table, offsets = cf.fused_table(filters)  # type: ignore[misc]
    functions = {
        "nfkc": cf.nfkc,
        "lowercase": cf.lowercase,
        "yo": cf.yo_to_ye,
        "strip_marks": cf.strip_marks,
    }
    classes = tk.char_classes()
    points = sorted(
        set(range(0, cf.FAST_DOMAIN, 7)) | set(range(0x500)) | set(range(0x1F00, 0x2200))
    )
    for cp in points:
        entry = int(table[cp])
        if entry & int(tk.FUSED_GENERAL):
            continue
        text = chr(cp)
        for name in filters:
            text, _ = functions[name](text)
        if entry & int(tk.FUSED_DROP):
            assert text == "" and "strip_marks" in filters, hex(cp)
            continue
        if entry & int(tk.FUSED_EXPAND):
            k = entry & 0xFFFFFFFF
            entries = [int(e) for e in table[offsets[k] : offsets[k + 1]]]
        else:
            entries = [entry]
        assert len(entries) == len(text), hex(cp)
        for e, ch in zip(entries, text):
            length = (e >> tk.FUSED_LENGTH_SHIFT) & 7
            assert (e & 0xFFFFFFFF).to_bytes(4, "little")[:length] == ch.encode("utf-8"), hex(cp)
            assert (e >> tk.FUSED_CLASS_SHIFT) & 7 == classes[ord(ch)], hex(cp)


def test_no_character_lowercases_to_a_tag_opener() -> None:
    """might_be_html skips the lowercased head when the text's head has no "<": sound only if
    no character lowercases to one."""
    import sys

    assert not [
        cp
        for cp in range(sys.maxunicode + 1)
        if not 0xD800 <= cp < 0xE000 and cp != 0x3C and "<" in chr(cp).lower()
    ]


@pytest.mark.parametrize(
    "text",
    [
        "plain text",
        "a < b",
        "<p>x</p><p>y</p><br>",
        "<!DOCTYPE html>",
        " \ufeff<html>",
        "x" * 3000 + "<p></p><p></p><p></p>",
        "<?xml?><html>",
    ],
)
def test_might_be_html_agrees_with_looks_like_html(text: str) -> None:
    from neardup.analysis.html import looks_like_html

    assert cf.might_be_html(text) == looks_like_html(text)


# --- fingerprint sets -------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), max_size=300), st.booleans())
def test_from_hashes_equals_np_unique(values: list[int], repeat: bool) -> None:
    from neardup.fingerprints.similarity import Fingerprints

    hashes = np.array(values + (values[: len(values) // 2] if repeat else []), dtype=np.uint64)
    fp = Fingerprints.from_hashes(hashes)
    assert fp.values.dtype == np.uint64 and fp.counts is None
    assert np.array_equal(fp.values, np.unique(hashes))
    ms = Fingerprints.from_hashes(hashes, multiset=True)
    values_u, counts_u = np.unique(hashes, return_counts=True)
    assert np.array_equal(ms.values, values_u)
    assert ms.counts is not None and ms.counts.dtype == np.int64
    assert np.array_equal(ms.counts, counts_u)


# --- real corpora -----------------------------------------------------------------------------

_DATA = __import__("pathlib").Path(__file__).resolve().parents[3] / "shared" / "data"


@pytest.mark.slow
@pytest.mark.skipif(
    not (_DATA / "ru_news.jsonl.gz").exists(), reason=f"the corpora are not in {_DATA}"
)
@pytest.mark.parametrize("name", ["plain", "ru", "en", "auto"])
def test_fused_path_equals_the_filters_on_real_corpora(name: str) -> None:
    import gzip
    import itertools
    import json

    fast, slow = _analyzers(name)
    for corpus in ("ru_news", "reuters21578", "20newsgroups"):
        with gzip.open(_DATA / f"{corpus}.jsonl.gz", "rt", encoding="utf-8") as fh:
            texts = [json.loads(line).get("text") or "" for line in itertools.islice(fh, 60)]
        for text in texts:
            _same_canonical(fast.canonical(text), slow.canonical(text))  # type: ignore[attr-defined]

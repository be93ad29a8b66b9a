"""A long text analyzed a piece at a time gives exactly the canonical stream of the whole."""

from __future__ import annotations

import random

import numpy as np
import pytest

from neardup.analysis import chunked
from neardup.analysis.analyzer import Analyzer, Canonical
from neardup.analysis.evasion import might_have_tricks_in
from neardup.analysis.presets import preset

_WORDS = (
    "Мама мыла раму , а папа читал газету . Ёлка стояла у окна ; он — не она ! "
    "Северо-западный ветер дул 3,5 часа , don't stop 2.5 COVID-19 ΟΔΟΣ ΣΟΦΟΣ ß ﬁ № ½ "
    "мо\u0301локо е\u0308ж Ⅻ Ｆｕｌｌ 가 \U0001d400 \u0130stanbul > &amp; "
    "пере- нос слово-\nслово Я мы вы они в на под и но же бы ли"
).split(" ")
# (no "<": a text that might be HTML is not cut; no Hangul jamo: see the last test)
_SPACES = (" ", " ", " ", "\n", "  ", "\t", "\u00a0", " \u0301", "\r\n", "\u2009")


def _text(n_words: int, seed: int) -> str:
    rng = random.Random(seed)
    out = []
    for _ in range(n_words):
        out.append(rng.choice(_WORDS))
        out.append(rng.choice(_SPACES))
    return "".join(out)


def _same(a: Canonical, b: Canonical) -> None:
    assert a.language == b.language
    assert a.buf.tobytes() == b.buf.tobytes()
    for name in ("byte_starts", "byte_ends", "starts", "ends"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype == np.int64, name
        assert np.array_equal(x, y), name


@pytest.mark.parametrize("name", ["plain", "ru", "en", "auto"])
@pytest.mark.parametrize("seed", range(4))
def test_pieces_give_the_whole_texts_stream(name: str, seed: int) -> None:
    analyzer = Analyzer(preset(name))
    text = _text(600, seed)
    whole = analyzer.canonical(text)
    for size in (40, 97, 500):
        pieces = chunked.canonical(analyzer, text, size)
        if pieces is None:  # only when some stretch of `size` has no place to cut
            cuts = chunked.cut_points(text, size)
            # or when the text may hold a trick to fold (analysed whole: seeds 0 and 1)
            assert (size < 100 and cuts is None) or might_have_tricks_in(text, cuts or [0])
            continue
        _same(pieces, whole)


def test_cuts_fall_after_white_space_before_a_boundary() -> None:
    text = _text(400, 9)
    cuts = chunked.cut_points(text, 50)
    assert cuts is not None and cuts[0] == 0 and cuts[-1] == len(text)
    assert all(b - a <= 50 for a, b in zip(cuts[:-1], cuts[1:], strict=True))
    for c in cuts[1:-1]:
        assert text[c - 1] in " \n\t\r" and text[c] != "\u0301"
    assert chunked.cut_points("x" * 100, 10) is None  # no white space: not cut


def test_analyzer_cuts_long_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    analyzer = Analyzer(preset("ru"))
    text = _text(500, 3)
    whole = analyzer.canonical(text)
    calls: list[int] = []
    real = chunked.canonical

    def spy(a: Analyzer, t: str, size: int | None = None) -> Canonical | None:
        calls.append(len(t))
        return real(a, t, size)

    monkeypatch.setattr(chunked, "CHUNK_CHARS", 64)
    monkeypatch.setattr(chunked, "canonical", spy)
    _same(analyzer.canonical(text), whole)
    assert calls == [len(text)]


def test_html_and_short_texts_are_not_cut() -> None:
    analyzer = Analyzer(preset("ru"))
    page = "<html><body><p>" + "слово " * 200 + "</p></body></html>"
    assert chunked.canonical(analyzer, page, 50) is None
    assert chunked.canonical(analyzer, "короткий текст", 50) is None
    always = Analyzer(preset("ru", html="always"))
    assert chunked.canonical(always, "слово " * 200, 50) is None


def test_a_text_nfkc_must_read_whole_is_not_cut() -> None:
    # Hangul jamo (L V T) compose across the runs nfkc finds, so it normalizes the whole text
    # word by word, which a piece cannot reproduce: such a text is analyzed whole
    analyzer = Analyzer(preset("plain"))
    text = ("слово " * 30 + "\u1100\u1161\u11a8 ") * 4
    whole = analyzer.canonical(text)
    pieces = chunked.canonical(analyzer, text, 50)
    assert pieces is None
    assert whole.text.startswith("слово")

"""The fused kernel (char map + tokenizer + encoder) equals tokenize_words + encode_tokens on
the mapped code points, for every tokenizer option, with and without expanding characters."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup._kernels import text as tk
from neardup.analysis import char_filters as cf

CHARS = list("ab Zя Ё-‐'’.,0123 \u0301\n\t") + ["\u00e9", "\U0001f600", "\u4e00"]


def _identity_table() -> tuple[np.ndarray, int]:
    mapped = np.arange(cf.FAST_DOMAIN, dtype=np.uint32)
    mapped[0xD800:0xE000] = 0
    table = tk.fused_entries(mapped, tk.class_table(cf.FAST_DOMAIN))
    table[0xD800:0xE000] = tk.FUSED_GENERAL
    return table, cf.FAST_DOMAIN


def test_class_table_is_the_head_of_char_classes() -> None:
    assert np.array_equal(tk.class_table(cf.FAST_DOMAIN), tk.char_classes()[: cf.FAST_DOMAIN])


@pytest.mark.parametrize(
    ("hyphens", "numbers"), [(True, True), (False, True), (True, False), (False, False)]
)
@settings(max_examples=100, deadline=None)
@given(text=st.lists(st.sampled_from(CHARS), max_size=60).map("".join))
def test_fused_words_equals_tokenize_and_encode(hyphens: bool, numbers: bool, text: str) -> None:
    table, limit = _identity_table()
    cps = tk.code_points(text)
    ok, buf, bs, be, starts, ends, cyr, lat = tk.fused_words(
        cps, table, limit, np.zeros(1, dtype=np.int64), hyphens, numbers, True
    )
    assert ok
    want_starts, want_ends = tk.tokenize_words(cps, tk.char_classes(), hyphens, numbers)
    want_buf, want_bs, want_be = tk.encode_tokens(cps, want_starts, want_ends)
    assert np.array_equal(starts, want_starts) and np.array_equal(ends, want_ends)
    assert np.array_equal(buf, want_buf)
    assert np.array_equal(bs, want_bs) and np.array_equal(be, want_be)
    assert cyr == int(np.count_nonzero((cps >= 0x400) & (cps < 0x530)))
    folded = cps | np.uint32(0x20)
    assert lat == int(np.count_nonzero((folded >= 0x61) & (folded <= 0x7A)))


def test_expanding_characters_map_back_to_their_source() -> None:
    table, offsets = cf.fused_table(("nfkc", "lowercase"))  # type: ignore[misc]
    text = "№5 ﬁle … x½y"
    ok, buf, _, _, starts, ends, _, _ = tk.fused_words(
        tk.code_points(text), table, cf.FAST_DOMAIN, offsets, True, True, False
    )
    assert ok
    # ½ becomes 1⁄2 (a fraction slash, not a word character): two tokens, both from ½
    assert buf.tobytes().decode() == "no5 file x1 2y"
    assert [text[a:b] for a, b in zip(starts.tolist(), ends.tolist())] == ["№5", "ﬁle", "x½", "½y"]


def test_marked_code_points_send_the_text_back() -> None:
    table, offsets = cf.fused_table(("nfkc", "lowercase"))  # type: ignore[misc]
    for text in ("ok Σ", "… then Σ", "\U00020000", "е\u0301"):
        ok, buf, *_ = tk.fused_words(
            tk.code_points(text), table, cf.FAST_DOMAIN, offsets, True, True, False
        )
        assert not ok and buf.shape == (0,)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "ascii only",
        "Ёлка и ёж",
        "ÿ Latin-1 kind",
        "😀 astral 𝔘",
        "lone \ud800 surrogate",
        "\U0010ffff",
    ],
)
def test_str_code_points_reads_every_kind_of_str(text: str) -> None:
    got = tk.str_code_points(text)
    assert got.dtype == np.uint32
    assert got.tolist() == [ord(c) for c in text]

"""Tests for neardup.analysis.decode: encoding detection and byte offsets."""

from __future__ import annotations

import codecs
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.analysis.decode import Decoded, decode, read_text
from neardup.errors import DecodeError, InputError

PARAGRAPH = (
    "Вечером мы долго гуляли по старому парку и говорили о том, как быстро меняется город. "
    "Новые дома вырастают там, где раньше стояли деревянные сараи, а набережная стала шумной "
    "и яркой. Ёжик нашёл под ёлкой яблоко, а кот весь день спал на подоконнике.\n"
    "Завтра обещают дождь, поэтому поездку на дачу придётся отложить до субботы."
)

SHORT_SENTENCES = [
    "Завтра будет тёплый день.",
    "Мы поехали на дачу в субботу.",
    "Кот спит на подоконнике.",
    "Цены на хлеб снова выросли.",
    "Почему ты не позвонил вчера?",
    "Школьники сдают экзамены в июне.",
    "Я люблю крепкий чай с лимоном.",
    "Этот вопрос обсудим позже.",
    "Юрист подготовил новый договор.",
    "Привет, мир!",
    "Москва",
    "Глава 1. Начало",
]


# --------------------------------------------------------------------------- same text


@pytest.mark.parametrize(
    ("data", "encoding", "bom_length"),
    [
        (PARAGRAPH.encode("utf-8"), "utf-8", 0),
        (codecs.BOM_UTF8 + PARAGRAPH.encode("utf-8"), "utf-8-sig", 3),
        (PARAGRAPH.encode("cp1251"), "cp1251", 0),
        (PARAGRAPH.encode("koi8-r"), "koi8-r", 0),
        (PARAGRAPH.encode("cp866"), "cp866", 0),
        (PARAGRAPH.encode("mac-cyrillic"), "mac-cyrillic", 0),
        (PARAGRAPH.encode("iso8859-5"), "iso8859-5", 0),
        (codecs.BOM_UTF16_LE + PARAGRAPH.encode("utf-16-le"), "utf-16-le", 2),
        (codecs.BOM_UTF16_BE + PARAGRAPH.encode("utf-16-be"), "utf-16-be", 2),
        (codecs.BOM_UTF32_LE + PARAGRAPH.encode("utf-32-le"), "utf-32-le", 4),
        (codecs.BOM_UTF32_BE + PARAGRAPH.encode("utf-32-be"), "utf-32-be", 4),
        (PARAGRAPH.encode("utf-16-le"), "utf-16-le", 0),  # no BOM
        (PARAGRAPH.encode("utf-16-be"), "utf-16-be", 0),
    ],
)
def test_same_paragraph_in_every_encoding(data: bytes, encoding: str, bom_length: int) -> None:
    d = decode(data)
    assert d.text == PARAGRAPH
    assert d.encoding == encoding
    assert d.bom_length == bom_length
    off = d.byte_offsets()
    assert off[0] == bom_length and off[-1] == len(data)


def test_python_utf16_with_bom() -> None:
    data = PARAGRAPH.encode("utf-16")  # native order, with a BOM
    d = decode(data)
    assert d.text == PARAGRAPH
    assert d.encoding in ("utf-16-le", "utf-16-be")
    assert d.bom_length == 2


@pytest.mark.parametrize("sentence", SHORT_SENTENCES)
@pytest.mark.parametrize("encoding", ["cp1251", "koi8-r"])
def test_short_cp1251_vs_koi8r(sentence: str, encoding: str) -> None:
    d = decode(sentence.encode(encoding))
    assert d.text == sentence
    assert d.encoding == encoding


@pytest.mark.parametrize("sentence", SHORT_SENTENCES)
@pytest.mark.parametrize("encoding", ["cp866", "mac-cyrillic"])
def test_short_other_cyrillic(sentence: str, encoding: str) -> None:
    # mac-cyrillic and cp1251 agree on most lowercase letters: what matters is the text.
    assert decode(sentence.encode(encoding)).text == sentence


def test_ascii_and_empty() -> None:
    assert decode(b"") == Decoded("", "utf-8", 0)
    assert decode(b"").byte_offsets().tolist() == [0]
    d = decode(b"plain ascii text")
    assert d.text == "plain ascii text" and d.encoding == "utf-8"


def test_non_cyrillic_legacy_text_is_not_forced_into_cyrillic() -> None:
    text = "Καλημέρα σας, τι κάνετε σήμερα; Όλα καλά και ήσυχα στο χωριό μας."
    d = decode(text.encode("cp1253"))
    assert d.text == text


# --------------------------------------------------------------------------- explicit


def test_explicit_encoding() -> None:
    data = PARAGRAPH.encode("koi8-r")
    d = decode(data, "KOI8_R")
    assert d.text == PARAGRAPH and d.encoding == "koi8-r"
    d = decode(codecs.BOM_UTF8 + b"abc", "utf-8-sig")
    assert d.text == "abc" and d.bom_length == 3
    d = decode(codecs.BOM_UTF16_BE + "Да".encode("utf-16-be"), "utf-16")
    assert d.text == "Да" and d.encoding == "utf-16-be" and d.bom_length == 2


def test_explicit_unknown_codec_is_input_error() -> None:
    with pytest.raises(InputError, match="no-such-codec"):
        decode(b"abc", "no-such-codec")
    with pytest.raises(InputError):
        decode(b"abc", "base64")  # not a text encoding


def test_explicit_wrong_codec_is_decode_error() -> None:
    with pytest.raises(DecodeError, match="utf-8"):
        decode(PARAGRAPH.encode("cp1251"), "utf-8")


# --------------------------------------------------------------------------- binary


@pytest.mark.parametrize(
    "data",
    [
        random.Random(0).randbytes(4096),
        random.Random(1).randbytes(64),
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + random.Random(2).randbytes(500),
        b"\x00" * 100,
        b"abc\x00\x01\x02def",
        bytes(range(256)) * 4,
    ],
)
def test_binary_is_decode_error(data: bytes) -> None:
    with pytest.raises(DecodeError):
        decode(data)


def test_decode_error_is_input_error() -> None:
    assert issubclass(DecodeError, InputError)


# --------------------------------------------------------------------------- files


def test_read_text(tmp_path: Path) -> None:
    p = tmp_path / "doc.txt"
    p.write_bytes(PARAGRAPH.encode("cp1251"))
    d = read_text(p)
    assert d.text == PARAGRAPH and d.encoding == "cp1251"
    assert read_text(str(p), encoding="cp1251").text == PARAGRAPH


def test_read_text_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    with pytest.raises(InputError, match="nope.txt"):
        read_text(missing)


def test_read_text_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="directory"):
        read_text(tmp_path)


def test_read_text_binary_names_the_file(tmp_path: Path) -> None:
    p = tmp_path / "blob.bin"
    p.write_bytes(random.Random(3).randbytes(1000))
    with pytest.raises(DecodeError, match="blob.bin"):
        read_text(p)


# --------------------------------------------------------------------------- byte offsets

_RU = "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ"
_ASCII = "abcXYZ019 .,;!?-\n\t"
_ANY_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\ufeff"), max_size=60
)
_CYR_TEXT = st.text(st.sampled_from(_RU + _ASCII + "«»—№"), max_size=60)
_KOI_TEXT = st.text(st.sampled_from(_RU + _ASCII), max_size=60)
_CJK_TEXT = st.text(st.sampled_from(_RU + _ASCII + "漢字仮名かなカナ中文"), max_size=60)


def _check_offsets(d: Decoded, data: bytes, draw: Callable[..., Any]) -> None:
    off = d.byte_offsets()
    n = len(d.text)
    assert off.dtype == np.int64 and off.shape == (n + 1,)
    assert off[0] == d.bom_length and off[-1] == len(data)
    assert (np.diff(off) > 0).all()
    for _ in range(5):
        a = draw(st.integers(0, n))
        b = draw(st.integers(a, n))
        assert data[off[a] : off[b]].decode(d.encoding) == d.text[a:b]


_CASES = [
    ("utf-8", _ANY_TEXT, b""),
    ("utf-8-sig", _ANY_TEXT, codecs.BOM_UTF8),
    ("utf-16-le", _ANY_TEXT, codecs.BOM_UTF16_LE),
    ("utf-16-be", _ANY_TEXT, codecs.BOM_UTF16_BE),
    ("utf-32-le", _ANY_TEXT, codecs.BOM_UTF32_LE),
    ("cp1251", _CYR_TEXT, b""),
    ("koi8-r", _KOI_TEXT, b""),
    ("cp866", _KOI_TEXT, b""),
    ("gb18030", _CJK_TEXT, b""),
    ("shift_jis", st.text(st.sampled_from(_ASCII + "漢字仮名かなカナ"), max_size=40), b""),
]


@settings(max_examples=300, deadline=None)
@given(st.data(), st.sampled_from(_CASES))
def test_byte_offsets_explicit(
    data_st: st.DataObject, case: tuple[str, st.SearchStrategy[str], bytes]
) -> None:
    encoding, strategy, bom = case
    text = data_st.draw(strategy)
    data = bom + text.encode("utf-8" if encoding == "utf-8-sig" else encoding)
    if bom and encoding != "utf-8-sig":
        d = decode(data)  # the BOM decides
        assert d.encoding == encoding and d.bom_length == len(bom)
    else:
        d = decode(data, encoding)
    assert d.text == text
    _check_offsets(d, data, data_st.draw)


@settings(max_examples=100, deadline=None)
@given(st.data(), st.sampled_from(["utf-8", "cp1251", "koi8-r", "utf-16-le", "utf-8-sig"]))
def test_byte_offsets_detected(data_st: st.DataObject, encoding: str) -> None:
    # Distinct words: a text of one word repeated is as ambiguous as that word alone.
    words = data_st.draw(
        st.lists(st.sampled_from(PARAGRAPH.split()), min_size=8, max_size=40, unique=True)
    )
    text = " ".join(words)
    if encoding == "utf-8-sig":
        data = codecs.BOM_UTF8 + text.encode("utf-8")
    elif encoding == "utf-16-le":
        data = codecs.BOM_UTF16_LE + text.encode("utf-16-le")
    else:
        data = text.encode(encoding)
    d = decode(data)
    assert d.text == text
    _check_offsets(d, data, data_st.draw)

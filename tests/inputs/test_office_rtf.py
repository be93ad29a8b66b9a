"""RTF read by neardup's own tokenizer (``neardup.inputs.office_rtf``): Word's ``\\uN?``
escapes, ``\\'hh`` in the document's or the font's code page, destinations left out, hidden
text (``\\v``) kept out and reported, the bounds, and damaged files refused as errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import InputError, InputTooLargeError
from neardup.inputs.office import Dropped, OfficeLimits, extract, extract_text
from neardup.inputs.office_rtf import MAX_DEPTH
from tests.inputs._office_files import (
    EN,
    HIDDEN,
    HIDDEN_CHARS,
    HIDDEN_WORDS,
    PARAGRAPHS,
    RU,
    rtf_bytes,
    rtf_escaped,
)

TEXT = "\n".join(PARAGRAPHS)


def _rtf(body: str, header: str = "\\ansi\\ansicpg1252\\deff0") -> bytes:
    return f"{{\\rtf1{header}{{\\fonttbl{{\\f0 Arial;}}}}{body}}}".encode("latin-1")


def test_word_unicode_escapes_read_as_the_text() -> None:
    data = rtf_bytes(PARAGRAPHS)
    assert b"\\u1042?" in data  # "В" as Word writes it
    assert extract_text(data, ".rtf") == TEXT
    got = extract(data, ".RTF")
    assert got.text == TEXT and got.dropped == ()


@pytest.mark.parametrize("codepage", ["cp1251", "koi8-r"])
def test_code_page_escapes(codepage: str) -> None:
    number = {"cp1251": 1251, "koi8-r": 20866}[codepage]
    header = f"\\ansi\\ansicpg{number}\\deff0"
    data = rtf_bytes(RU, codepage=codepage, header=header)
    assert b"\\'c2" in data or b"\\'f7" in data
    # the font table's \fcharset204 says cp1251 for font 0; koi8-r comes only from \ansicpg
    if codepage == "koi8-r":
        data = data.replace(b"\\fcharset204", b"\\fcharset1")
    assert extract_text(data, ".rtf") == "\n".join(RU)


def test_the_font_code_page_wins_over_the_document_one() -> None:
    # \ansicpg1252 for the document, \fcharset204 (cp1251) for font 1: its bytes are Cyrillic
    body = (
        "{\\fonttbl{\\f0 Arial;}{\\f1\\fcharset204 Arial Cyr;}}"
        "\\f0 caf\\'e9 {\\f1 \\'ef\\'e0\\'f0\\'ea}\\par"
    )
    data = b"{\\rtf1\\ansi\\ansicpg1252\\deff0" + body.encode("ascii") + b"}"
    assert extract_text(data, ".rtf") == "café парк"
    # bytes above ASCII written raw, not escaped, in the same code page
    raw = b"{\\rtf1\\ansi\\ansicpg1251 " + "парк и река".encode("cp1251") + b"\\par}"
    assert extract_text(raw, ".rtf") == "парк и река"


def test_unicode_fallbacks_are_skipped_as_the_specification_counts_them() -> None:
    cases = {
        "\\u1087?\\u1072?": "па",  # \uc1, the default: one fallback character
        "\\uc2\\u1087??\\u1072??x": "паx",  # two
        "\\uc1\\u1087\\'ef\\u1072\\'e0": "па",  # a \'hh is one character
        "\\uc0\\u1087\\u1072 x": "паx",  # none
        "{\\uc3\\u1087?}?": "п?",  # a group's end ends the skipping (and \ucN with it)
        "\\u-10179?\\u-8704?": "\U0001f600",  # a surrogate pair, negative as Word writes it
        "\\u55357? x": " x",  # a lone high surrogate is dropped
        "{\\upr{ANSI}{\\*\\ud{\\u1087?\\u1072?}}}": "па",  # \upr: the Unicode half
    }
    for body, expected in cases.items():
        assert extract_text(_rtf(body), ".rtf") == expected, body


def test_named_characters_tables_and_breaks() -> None:
    body = (
        "A\\emdash B\\endash C\\~D\\-E\\_F\\lquote G\\rquote \\ldblquote H\\rdblquote\\tab I"
        "\\line J\\par"
        "\\trowd\\cellx1000\\cellx2000 \\pard\\intbl one\\cell two\\cell\\row"
        "\\trowd\\cellx1000\\cellx2000 \\pard\\intbl \\u1090?\\u1088?\\u1080?\\cell 4\\cell\\row"
        "\\pard end\\par"
    )
    assert extract_text(_rtf(body), ".rtf") == (
        "A\u2014B\u2013C\u00a0DE-F\u2018G\u2019\u201cH\u201d\tI\nJ\none\ttwo\nтри\t4\nend"
    )


def test_what_is_not_the_body_is_left_out() -> None:
    body = (
        "{\\colortbl;\\red255\\green255\\blue255;}{\\stylesheet{\\s0 Normal style;}}"
        "{\\info{\\title The title}{\\author Someone}}"
        "{\\header page header}{\\footer page footer}"
        "{\\*\\generator Writer}{\\*\\unknowndestination secret words}"
        "Seen{\\footnote a footnote} text"
        "{\\pict\\wmetafile8 0123abcdef}{\\pict\\bin6 {}}}\\}}\\}"
        '{\\field{\\*\\fldinst HYPERLINK "http://example.org"}{\\fldrslt the link}}'
        "{\\pntext 1.\\tab}{\\listtext 2.\\tab}"
        "{\\annotation a comment}\\par"
    )
    assert extract_text(_rtf(body), ".rtf") == "Seen text}the link"


def test_hidden_text_is_kept_out_and_reported() -> None:
    data = rtf_bytes(PARAGRAPHS, hidden={1: HIDDEN})
    everything = extract_text(data, ".rtf")
    assert everything.split("\n")[1] == f"{RU[1]} {HIDDEN}"
    got = extract(data, ".rtf")
    assert got.text.split("\n")[1] == f"{RU[1]} "
    assert got.text.replace(" \n", "\n") == TEXT
    assert got.dropped == (Dropped("hidden", HIDDEN_CHARS, HIDDEN_WORDS),)
    trick = got.tricks.get("hidden_text")
    assert trick is not None and trick.by == (("hidden", HIDDEN_CHARS),)
    # \v0 and \plain end it; hidden text at the very end is counted too
    body = "a {\\v b}c \\v d\\v0 e \\v f\\plain g \\v h"
    got = extract(_rtf(body), ".rtf")
    assert got.text == "a c e g " and got.dropped == (Dropped("hidden", 4, 4),)
    assert extract_text(_rtf(body), ".rtf") == "a bc de fg h"


def test_the_bounds_refuse_with_neardup_errors() -> None:
    data = rtf_bytes(PARAGRAPHS * 10)
    with pytest.raises(InputTooLargeError, match=r"is [0-9,]+ bytes; the limit \(max_bytes\)"):
        extract_text(data, ".rtf", limits=OfficeLimits(max_bytes=1000))
    with pytest.raises(InputTooLargeError, match=r"more than 5 groups; the limit \(max_elements"):
        extract_text(data, ".rtf", limits=OfficeLimits(max_elements=5))
    with pytest.raises(InputTooLargeError, match=r"more than 10 paragraphs.*max_paragraphs"):
        extract(data, ".rtf", limits=OfficeLimits(max_paragraphs=10))
    with pytest.raises(InputTooLargeError, match="max_chars"):
        extract_text(data, ".rtf", limits=OfficeLimits(max_chars=500))
    with pytest.raises(InputTooLargeError, match=r"took longer than the limit of 0 s"):
        extract_text(rtf_bytes(PARAGRAPHS * 200), ".rtf", limits=OfficeLimits(max_seconds=0.0))
    assert extract_text(data, ".rtf", limits=OfficeLimits(max_paragraphs=60)).count("\n") == 59


def test_a_bomb_of_groups_is_refused_before_it_costs() -> None:
    deep = b"{\\rtf1 " + b"{" * (MAX_DEPTH + 1) + b"x" + b"}" * (MAX_DEPTH + 1) + b"}"
    with pytest.raises(InputError, match=f"not a readable .rtf file .*deeper than {MAX_DEPTH:,}"):
        extract_text(deep, ".rtf")
    wide = b"{\\rtf1 " + b"{}" * 1001 + b"}"
    with pytest.raises(InputTooLargeError, match="more than 1,000 groups"):
        extract_text(wide, ".rtf", limits=OfficeLimits(max_elements=1000))
    # a \bin's count skips its bytes whatever they are; a huge one ends the file
    assert extract_text(b"{\\rtf1 a{\\pict\\bin3 {{{}b}", ".rtf") == "ab"
    assert extract_text(b"{\\rtf1 a\\bin9999999999 {{{", ".rtf") == "a"


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"", "no {\\rtf header"),
        (b"plain text, not RTF", "no {\\rtf header"),
        (b"PK\x03\x04zip", "no {\\rtf header"),
    ],
)
def test_a_file_that_is_no_rtf(data: bytes, why: str) -> None:
    with pytest.raises(InputError) as info:
        extract_text(data, ".rtf")
    assert str(info.value) == f"not a readable .rtf file ({why})"
    assert info.value.code == "unreadable_file" and info.value.params == {"kind": ".rtf"}


def test_damaged_rtf_reads_what_is_there() -> None:
    assert extract_text(b"{\\rtf1 unclosed {group \\u1087", ".rtf") == "unclosed group п"
    assert extract_text(b"\xef\xbb\xbf {\\rtf1 a}} after the end", ".rtf") == "a"
    assert extract_text(b"{\\rtf1 a\\'zz b\\", ".rtf") == "azz b"


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_after_the_header_give_text_or_a_neardup_error(tail: bytes) -> None:
    try:
        text = extract(b"{\\rtf1" + tail, ".rtf").text
    except InputError:
        return
    assert isinstance(text, str)


def test_english_and_russian_in_one_file() -> None:
    data = rtf_bytes([RU[0], EN[0], RU[2] + " " + EN[1]])
    assert extract_text(data, ".rtf").split("\n") == [RU[0], EN[0], RU[2] + " " + EN[1]]


@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=60))
def test_escaped_text_reads_back_by_runs_and_token_by_token(text: str) -> None:
    """A run of ``\\uN?`` is read at once; the same escapes kept apart by empty groups are
    read one token at a time: both give the text back."""
    escaped = rtf_escaped(text)
    apart = escaped.replace("?", "?{}")
    for body in (escaped, apart):
        assert extract_text(f"{{\\rtf1\\ansi {body}}}".encode("ascii"), ".rtf") == text.strip("\n")

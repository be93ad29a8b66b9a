"""OpenDocument text (``neardup.inputs.office_odt``): the body read as a .docx is, hidden text
(hidden paragraphs, hidden-text fields, styles not displayed, hidden sections) kept out and
reported, the bounds of a .docx, and damaged files refused as errors."""

from __future__ import annotations

import io
import zipfile

import pytest

from neardup.errors import InputError, InputTooLargeError
from neardup.inputs.office import Dropped, OfficeLimits, extract, extract_text
from tests.inputs._office_files import (
    EN,
    HIDDEN,
    HIDDEN_CHARS,
    HIDDEN_WORDS,
    PARAGRAPHS,
    RU,
    odt_bytes,
    odt_paragraphs,
)

TEXT = "\n".join(PARAGRAPHS)


def _solid(text: str) -> int:
    return sum(1 for c in text if not c.isspace())


def test_russian_and_english_paragraphs_round_trip() -> None:
    data = odt_bytes(odt_paragraphs(PARAGRAPHS))
    assert extract_text(data, ".odt") == TEXT
    got = extract(data, ".ODT")
    assert got.text == TEXT and got.dropped == ()


def test_the_body_is_read_as_a_docx_is() -> None:
    body = (
        f'<text:h text:outline-level="1">{RU[0]}</text:h>'
        f'<text:p>{EN[0]}<text:s text:c="3"/>x<text:tab/>y<text:line-break/>z<text:s/>.</text:p>'
        '<text:p>With a note<text:note text:note-class="footnote"><text:note-citation>1'
        "</text:note-citation><text:note-body><text:p>the note</text:p></text:note-body>"
        "</text:note> and a comment<office:annotation><text:p>remark</text:p></office:annotation>"
        ' and a <text:span text:style-name="T1">span</text:span>'
        ' and a <text:a xlink:href="http://example.org" '
        'xmlns:xlink="http://www.w3.org/1999/xlink">link</text:a>.</text:p>'
        "<text:p>A frame<draw:frame><draw:text-box><text:p>boxed</text:p></draw:text-box>"
        "</draw:frame> is not read.</text:p>"
        "<text:list><text:list-item><text:p>first item</text:p></text:list-item>"
        "<text:list-item><text:list><text:list-item><text:p>nested item</text:p>"
        "</text:list-item></text:list></text:list-item></text:list>"
        "<text:section><text:p>in a section</text:p></text:section>"
        "<table:table><table:table-row><table:table-cell><text:p>a1</text:p></table:table-cell>"
        "<table:table-cell><text:p>b1</text:p><text:p>b1 again</text:p></table:table-cell>"
        "</table:table-row><table:table-rows><table:table-row><table:table-cell><text:p>a2"
        "</text:p></table:table-cell><table:covered-table-cell/></table:table-row>"
        "</table:table-rows></table:table>"
        "<text:tracked-changes><text:changed-region><text:deletion><text:p>deleted</text:p>"
        "</text:deletion></text:changed-region></text:tracked-changes>"
        "<text:p/>"
    )
    assert extract_text(odt_bytes(body), ".odt").split("\n") == [
        RU[0],
        f"{EN[0]}   x\ty",
        "z .",
        "With a note and a comment and a span and a link.",
        "A frame is not read.",
        "first item",
        "nested item",
        "in a section",
        "a1\tb1",
        "b1 again",
        "a2",
        "",
    ]


def _hidden_body() -> tuple[str, str, str]:
    """A body with every way an .odt hides text, its automatic styles and its named styles."""
    automatic = (
        '<style:style style:name="Gone" style:family="text">'
        '<style:text-properties text:display="none"/></style:style>'
        '<style:style style:name="Child" style:family="text" style:parent-style-name="Named"/>'
        '<style:style style:name="Shown" style:family="text">'
        '<style:text-properties text:display="true"/></style:style>'
        '<style:style style:name="HiddenPara" style:family="paragraph">'
        '<style:text-properties text:display="condition"/></style:style>'
    )
    named = (
        '<style:style style:name="Named" style:family="text">'
        '<style:text-properties text:display="none"/></style:style>'
    )
    body = (
        f'<text:p>{RU[0]}<text:span text:style-name="Gone"> {HIDDEN}</text:span></text:p>'
        f'<text:p>{RU[1]}<text:span text:style-name="Child">один два</text:span></text:p>'
        f'<text:p><text:hidden-paragraph text:condition="ooow:1" text:is-hidden="true"/>'
        "три четыре пять</text:p>"
        f'<text:p>{EN[0]}<text:hidden-text text:condition="ooow:1" '
        'text:string-value="six seven" text:is-hidden="true"/></text:p>'
        f'<text:p>{EN[1]}<text:hidden-text text:condition="ooow:0" '
        'text:string-value=" shown" text:is-hidden="false"/></text:p>'
        '<text:section text:name="S" text:display="none"><text:p>eight</text:p></text:section>'
        '<text:p text:style-name="HiddenPara">nine <text:span text:style-name="Shown">ten'
        "</text:span></text:p>"
    )
    return body, automatic, named


def test_hidden_text_is_kept_out_and_reported() -> None:
    body, automatic, named = _hidden_body()
    data = odt_bytes(body, automatic=automatic, styles=named)
    assert extract_text(data, ".odt").split("\n") == [
        f"{RU[0]} {HIDDEN}",
        f"{RU[1]}один два",
        "три четыре пять",
        f"{EN[0]}six seven",
        f"{EN[1]} shown",
        "eight",
        "nine ten",
    ]
    got = extract(data, ".odt")
    assert got.text.split("\n") == [RU[0], RU[1], "", EN[0], f"{EN[1]} shown", "", "ten"]
    gone = [HIDDEN, "один два", "три четыре пять", "six seven", "eight", "nine "]
    chars = sum(_solid(g) for g in gone)
    words = sum(len(g.split()) for g in gone)
    assert chars == HIDDEN_CHARS + 7 + 13 + 8 + 5 + 4 and words == HIDDEN_WORDS + 2 + 3 + 2 + 1 + 1
    assert got.dropped == (Dropped("hidden", chars, words),)
    trick = got.tricks.get("hidden_text")
    assert trick is not None and trick.suspicious and trick.by == (("hidden", chars),)


def test_the_bounds_of_a_docx() -> None:
    data = odt_bytes(odt_paragraphs(PARAGRAPHS * 20))
    with pytest.raises(InputTooLargeError, match=r"the \.odt file is [0-9,]+ bytes.*max_bytes"):
        extract_text(data, ".odt", limits=OfficeLimits(max_bytes=500))
    with pytest.raises(InputTooLargeError, match=r"more than 100 paragraphs.*max_paragraphs"):
        extract(data, ".odt", limits=OfficeLimits(max_paragraphs=100))
    assert extract(data, ".odt", limits=OfficeLimits(max_paragraphs=120)).text.count("\n") == 119
    with pytest.raises(InputTooLargeError, match=r"more than 50 XML elements.*max_elements"):
        extract_text(data, ".odt", limits=OfficeLimits(max_elements=50))
    with pytest.raises(InputTooLargeError, match="max_chars"):
        extract_text(data, ".odt", limits=OfficeLimits(max_chars=1000))
    with pytest.raises(InputTooLargeError, match=r"took longer than the limit of 0 s"):
        big = odt_bytes(odt_paragraphs(PARAGRAPHS * 1000))
        extract_text(big, ".odt", limits=OfficeLimits(max_seconds=0.0))


def test_a_bomb_is_refused_before_it_is_built() -> None:
    # a ZIP member that declares 640 MiB (zeros, under a MiB packed)
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(odt_bytes(odt_paragraphs(RU)))) as source:
        with zipfile.ZipFile(out, "w") as target:
            for item in source.infolist():
                target.writestr(item, source.read(item.filename))
            info = zipfile.ZipInfo("Pictures/huge.bin")
            info.compress_type = zipfile.ZIP_DEFLATED
            with target.open(info, "w", force_zip64=True) as member:
                for _ in range(40):
                    member.write(bytes(16 * 1024**2))
    assert len(out.getvalue()) < 1024 * 1024
    with pytest.raises(InputTooLargeError, match=r"declares 67[0-9,]+ bytes unpacked"):
        extract_text(out.getvalue(), ".odt")
    # spaces asked by a count, not written: refused before they are made
    spaces = odt_bytes('<text:p>a<text:s text:c="1000000000"/>b</text:p>')
    with pytest.raises(InputTooLargeError, match="max_chars"):
        extract_text(spaces, ".odt")


def test_an_entity_bomb_is_not_expanded() -> None:
    data = odt_bytes(odt_paragraphs(["WORDS"]))
    out = io.BytesIO()
    doctype = (
        b'<!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>'
    )
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            content = source.read(item.filename)
            if item.filename == "content.xml":
                content = content.replace(b"?>", b"?>" + doctype, 1).replace(b"WORDS", b"&c;")
            target.writestr(item.filename, content)
    try:
        text = extract_text(out.getvalue(), ".odt")
    except InputError as exc:
        assert exc.code == "unreadable_file"
        return
    assert len(text) < 200


def _unreadable(data: bytes) -> str:
    with pytest.raises(InputError) as info:
        extract(data, ".odt")
    assert info.value.code == "unreadable_file" and info.value.params == {"kind": ".odt"}
    return str(info.value)


def test_damaged_files_are_neardup_errors() -> None:
    good = odt_bytes(odt_paragraphs(RU))
    assert _unreadable(b"") == "not a readable .odt file (it is not a ZIP package)"
    assert _unreadable(good[: len(good) // 2]).startswith("not a readable .odt file (BadZipFile")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        package.writestr("mimetype", "application/vnd.oasis.opendocument.text")
    assert _unreadable(out.getvalue()) == "not a readable .odt file (it has no content.xml)"
    broken = odt_bytes("<text:p>unclosed")
    assert _unreadable(broken).startswith("not a readable .odt file (XMLSyntaxError")
    manifest = (
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
        '<manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/>'
        "</manifest:file-entry></manifest:manifest>"
    )
    assert "encrypted" in _unreadable(odt_bytes(odt_paragraphs(RU), manifest=manifest))


def test_an_odt_without_a_text_body_is_empty() -> None:
    data = odt_bytes("<table:table/>", body_tag="office:spreadsheet")
    assert extract_text(data, ".odt") == ""

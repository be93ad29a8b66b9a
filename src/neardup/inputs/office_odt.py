"""Text out of an OpenDocument text file (``.odt``): its ZIP package's ``content.xml`` parsed by
lxml with no entity resolved, no DTD loaded and no network reached.

The body is read as a ``.docx`` is: ``text:p`` and ``text:h`` one a line, lists' paragraphs in
order, sections opened, a table row's cells joined by tabs (a cell's paragraphs by newlines);
notes, comments (``office:annotation``), tracked deletions, frames (text boxes, images),
indexes and fields' hidden values are left out. ``text:s`` is its count of spaces,
``text:tab`` a tab, ``text:line-break`` a newline.

What a reader does not see (``hidden``): a paragraph holding a ``text:hidden-paragraph`` and
the text of a ``text:hidden-text`` (both unless ``text:is-hidden="false"``: an office suite
evaluates their condition when it opens the file, and one that is written is meant to hide), a
``text:section`` with ``text:display="none"`` or ``"condition"``, and text in a paragraph or
text style (automatic or named, followed up its parents) whose text properties say
``text:display="none"`` (or ``"condition"``). :func:`text` keeps all of it; :func:`visible`
keeps it out and counts it.

Bounds (:class:`~neardup.inputs.office_base.OfficeLimits`, as for ``.docx``, before the tree
is built): the file's bytes, the unpacked size the ZIP declares, every XML part streamed once
to count its elements and ``content.xml``'s paragraphs, the characters given (a ``text:s``'s
count included, before it is made) and the time.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from neardup.errors import InputError, require
from neardup.inputs.office_base import (
    Budget,
    Extraction,
    check_unpacked,
    count_dropped,
    found,
    safe_parser,
    scan_part,
    unreadable,
)

NOT_ODT = "it is not a ZIP package"

_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"

_PARAGRAPHS = (f"{_TEXT}p", f"{_TEXT}h")
#: Display values that hide: ``none``, and ``condition`` (hidden when its condition holds).
_HIDING = ("none", "condition")
#: How far up a style's parents are followed.
_STYLE_DEPTH = 32


def looks_right(data: bytes) -> bool:
    return data.startswith(b"PK")


@dataclass
class _Styles:
    """Whether a style hides its text: ``(family, name)`` → (its own ``text:display`` verdict or
    None, its parent's name)."""

    own: dict[tuple[str, str], tuple[bool | None, str]] = field(default_factory=dict)

    def add(self, root: Any) -> None:
        for style in root.iter(f"{_STYLE}style"):
            family = str(style.get(f"{_STYLE}family", ""))
            name = str(style.get(f"{_STYLE}name", ""))
            props = style.find(f"{_STYLE}text-properties")
            display = None if props is None else props.get(f"{_TEXT}display")
            verdict = None if display is None else str(display) in _HIDING
            self.own[(family, name)] = (verdict, str(style.get(f"{_STYLE}parent-style-name", "")))

    def hides(self, family: str, name: str | None) -> bool | None:
        """Whether text in style ``name`` is hidden (None: the style does not say)."""
        for _ in range(_STYLE_DEPTH):
            if not name or (family, name) not in self.own:
                return None
            verdict, parent = self.own[(family, name)]
            if verdict is not None:
                return verdict
            name = parent
        return None


@dataclass
class _Reader:
    """One walk of the body: its blocks, all the text or only what is seen."""

    styles: _Styles
    budget: Budget
    dropped: dict[str, list[int]] | None  # None: keep everything
    seen: int = 0

    def keep(self, text: str, hidden: bool) -> str:
        self.budget.spend(len(text))
        if hidden and self.dropped is not None:
            count_dropped(self.dropped, "hidden", text)
            return ""
        return text

    def inline(self, element: Any, hidden: bool) -> Iterator[str]:
        """The text of a paragraph's content (its ``.text`` and each child's, tails too)."""
        if element.text:
            yield self.keep(str(element.text), hidden)
        for child in element:
            tag = child.tag
            if tag == f"{_TEXT}s":
                spaces = _count_attr(child, f"{_TEXT}c")
                self.budget.spend(spaces)  # counted before the string is made
                yield self.keep(" " * spaces, hidden)
            elif tag == f"{_TEXT}tab":
                yield self.keep("\t", hidden)
            elif tag == f"{_TEXT}line-break":
                yield self.keep("\n", hidden)
            elif tag == f"{_TEXT}hidden-text":
                words = "".join(child.itertext()) or str(child.get(f"{_TEXT}string-value", ""))
                yield self.keep(words, hidden or _is_hidden(child))
            elif tag in (f"{_TEXT}span", f"{_TEXT}a", f"{_TEXT}meta", f"{_TEXT}ruby"):
                styled = self.styles.hides("text", child.get(f"{_TEXT}style-name"))
                yield from self.inline(child, hidden if styled is None else styled)
            elif tag in _FIELDS:
                yield self.keep("".join(child.itertext()), hidden)
            if child.tail:
                yield self.keep(str(child.tail), hidden)

    def paragraph(self, element: Any, hidden: bool) -> str:
        self.seen += 1
        if self.seen % 256 == 0:
            self.budget.tick()
        styled = self.styles.hides("paragraph", element.get(f"{_TEXT}style-name"))
        hidden = hidden if styled is None else styled
        marker = element.find(f"{_TEXT}hidden-paragraph")
        if marker is not None and _is_hidden(marker):
            hidden = True
        return "".join(self.inline(element, hidden))

    def blocks(self, container: Any, hidden: bool) -> Iterator[str]:
        """The blocks of the body (or a section, a list item): a paragraph or a table row
        each."""
        for child in container:
            tag = child.tag
            if tag in _PARAGRAPHS:
                yield self.paragraph(child, hidden)
            elif tag == f"{_TEXT}list":
                for item in child:
                    if item.tag in (f"{_TEXT}list-item", f"{_TEXT}list-header"):
                        yield from self.blocks(item, hidden)
            elif tag == f"{_TEXT}section":
                display = str(child.get(f"{_TEXT}display", "true"))
                yield from self.blocks(child, hidden or display in _HIDING)
            elif tag == f"{_TABLE}table":
                yield from self.rows(child, hidden)

    def rows(self, table: Any, hidden: bool) -> Iterator[str]:
        for row in table.iter(f"{_TABLE}table-row"):
            if _owner_table(row) is not table:
                continue  # a nested table's row: read within its cell
            cells = (
                "\n".join(self.blocks(cell, hidden))
                for cell in row
                if cell.tag == f"{_TABLE}table-cell"
            )
            yield "\t".join(cells)


#: Fields whose content is the text shown (a page number, a date, a reference …).
_FIELDS = tuple(
    f"{_TEXT}{name}"
    for name in (
        "date",
        "time",
        "page-number",
        "page-count",
        "chapter",
        "title",
        "subject",
        "author-name",
        "bookmark-ref",
        "reference-ref",
        "sequence",
        "sequence-ref",
        "conditional-text",
        "variable-get",
        "user-field-get",
        "note-ref",
    )
)


def _owner_table(row: Any) -> Any:
    parent = row.getparent()
    while parent is not None and parent.tag != f"{_TABLE}table":
        parent = parent.getparent()
    return parent


def _is_hidden(marker: Any) -> bool:
    return str(marker.get(f"{_TEXT}is-hidden", "true")).lower() != "false"


def _count_attr(element: Any, name: str) -> int:
    try:
        return max(1, int(str(element.get(name, "1"))))
    except ValueError:
        return 1


def _package(data: bytes, budget: Budget) -> tuple[Any, _Styles]:
    """``content.xml``'s root and the styles, once the package passed its limits."""
    from lxml import etree

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            members = check_unpacked(package, budget)
            names = {member.filename for member in members}
            if "content.xml" not in names:
                raise unreadable(".odt", "it has no content.xml")
            if "META-INF/manifest.xml" in names:
                if b"encryption-data" in package.read("META-INF/manifest.xml"):
                    raise InputError(
                        "not a readable .odt file (it is encrypted; neardup reads only "
                        "unencrypted files)",
                        code="unreadable_file",
                        params={"kind": ".odt"},
                    )
            counts = [0, 0]
            for member in members:
                if member.filename.lower().endswith(".xml"):
                    tags = _PARAGRAPHS if member.filename == "content.xml" else ()
                    scan_part(package, member.filename, budget, counts, tags)
            parser = safe_parser()
            styles = _Styles()
            if "styles.xml" in names:
                styles.add(etree.fromstring(package.read("styles.xml"), parser))
            content = etree.fromstring(package.read("content.xml"), parser)
            styles.add(content)
    except InputError:
        raise
    except (zipfile.BadZipFile, etree.XMLSyntaxError, EOFError, OSError, ValueError) as exc:
        raise unreadable(".odt", f"{type(exc).__name__}: {exc}") from None
    except zlib.error as exc:  # a part whose compressed bytes are damaged
        raise unreadable(".odt", f"damaged compressed data: {exc}") from None
    except (NotImplementedError, RuntimeError) as exc:  # an unknown compression, encryption
        raise unreadable(".odt", f"{type(exc).__name__}: {exc}") from None
    return content, styles


def _read(data: bytes, budget: Budget, dropped: dict[str, list[int]] | None) -> str:
    require("lxml", "office")
    content, styles = _package(data, budget)
    body = content.find(f"{_OFFICE}body/{_OFFICE}text")
    if body is None:
        return ""
    reader = _Reader(styles, budget, dropped)
    try:
        return "\n".join(reader.blocks(body, False))
    except RecursionError:  # lxml caps the nesting; this is the last guard
        raise unreadable(".odt", "its elements nest too deeply") from None


def text(data: bytes, budget: Budget) -> str:
    """All the text of an .odt file, hidden or not."""
    return _read(data, budget, None)


def visible(data: bytes, budget: Budget) -> Extraction:
    """What a reader sees of an .odt file, and its hidden text counted."""
    dropped: dict[str, list[int]] = {}
    seen = _read(data, budget, dropped)
    return Extraction(seen, found(dropped))

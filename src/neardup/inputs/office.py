"""Text out of office documents: ``.docx`` (python-docx), ``.pdf`` (pypdf), ``.odt``
(:mod:`~neardup.inputs.office_odt`), ``.rtf`` (:mod:`~neardup.inputs.office_rtf`) and ``.doc``
(:mod:`~neardup.inputs.office_doc`: Debian's ``antiword``, ``catdoc`` for the smallest files).

``extract(data, suffix)`` is the one way neardup turns such a file into the text a reader sees
(and what was hidden in it: :class:`Dropped`, hidden-text evasion); ``extract_text(data, suffix)``
gives all of its text. The reader (``neardup.inputs``: every command's files and folders) and the
web service's uploads (through the reader) call ``extract`` (``extract_text`` with
``visible_only=False``), so the offsets of matched passages refer to the same extracted text
everywhere. Both libraries come with ``neardup[office]`` (also in ``[web]`` and ``[all]``);
``.odt`` needs lxml (python-docx's), ``.rtf`` nothing more.

* ``.docx``: the body's paragraphs and table cells in document order, one paragraph a line
  (a table row's cells joined by tabs); headers, footers, comments and footnotes are left out.
* ``.pdf``: the text layer of every page (pypdf's reading order), pages separated by a blank
  line. A scanned PDF without a text layer gives an empty string — there is no OCR.
* ``.odt``, ``.rtf``, ``.doc``: as ``.docx`` (paragraphs a line, a table row's cells joined by
  tabs; headers, footers, comments, footnotes and text boxes left out). A ``.doc`` whose bytes
  are RTF or a ZIP package is read as ``.rtf`` or ``.docx``.

A file that is not what its suffix says, or is damaged, or is encrypted, raises
:class:`~neardup.errors.InputError` naming the format and what went wrong.

**Limits** (:class:`OfficeLimits`, checked before the file is handed to its library, so a
small file that unpacks to gigabytes is refused at the cost of reading it, never of building
it): the file's bytes; for ``.docx``, the unpacked size its ZIP declares (read from the central
directory; ``zipfile`` never inflates a member past its declared size), then every XML part
streamed once (lxml ``iterparse``, each element dropped as soon as it is counted) to count its
elements and the main part's paragraphs (``.odt`` the same, its ``content.xml`` counted for
paragraphs); for ``.pdf``, the page count its page tree declares; for ``.rtf``, its groups
(``max_elements``) and paragraphs as they are read; for ``.doc``, the sizes its compound file
declares, then the program's output, time and memory; for all, the characters extracted and
a time limit. The time limit is checked by the
extraction itself between units of work (every few thousand XML elements, every block of the
document, every text operation of a PDF page), never by a signal, so it works in any thread
and cannot interrupt anything else the process does. Past a limit:
:class:`~neardup.errors.InputTooLargeError` (a usage error, exit 2 in the CLI) saying which
limit and its value.
"""

from __future__ import annotations

import io
import os
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neardup.errors import InputError, InputTooLargeError, require
from neardup.inputs import office_doc, office_odt, office_rtf
from neardup.inputs.office_base import (
    DEFAULT_LIMITS,
    Budget,
    Extraction,
    OfficeLimits,
    check_unpacked,
    found,
    scan_part,
    unreadable,
)
from neardup.inputs.office_base import Dropped as Dropped  # re-exported: office.Dropped
from neardup.inputs.office_base import count_dropped as _count

#: Suffixes (lower case) read by :func:`extract_text`.
OFFICE_SUFFIXES = (".docx", ".pdf", ".odt", ".rtf", ".doc")

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_OFFICE_DOCUMENT = "/officeDocument"


def is_office(name: str | os.PathLike[str]) -> bool:
    """Whether a file name ends in a suffix :func:`extract_text` reads."""
    return os.fspath(name).lower().endswith(OFFICE_SUFFIXES)


# ---- .docx -------------------------------------------------------------------------------------


def _main_part(package: zipfile.ZipFile) -> str:
    """The name of the main document part: the target of the package's officeDocument
    relationship (``word/document.xml`` in every file Word writes)."""
    from lxml import etree

    try:
        root = etree.fromstring(
            package.read("_rels/.rels"),
            etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False),
        )
    except (KeyError, etree.XMLSyntaxError):
        return "word/document.xml"
    for rel in root:
        if str(rel.get("Type", "")).endswith(_OFFICE_DOCUMENT):
            return str(rel.get("Target", "")).lstrip("/")
    return "word/document.xml"


def _check_docx(data: bytes, budget: Budget) -> None:
    """Refuse a .docx past its limits before python-docx parses it."""
    from lxml import etree

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            members = check_unpacked(package, budget)
            main = _main_part(package)
            counts = [0, 0]
            for member in members:
                if member.filename.lower().endswith((".xml", ".rels")):
                    tags = (f"{_W}p",) if member.filename == main else ()
                    scan_part(package, member.filename, budget, counts, tags)
    except InputError:
        raise
    except (zipfile.BadZipFile, etree.XMLSyntaxError, EOFError, OSError, ValueError) as exc:
        raise unreadable(".docx", f"{type(exc).__name__}: {exc}") from None
    except zlib.error as exc:  # a part whose compressed bytes are damaged
        raise unreadable(".docx", f"damaged compressed data: {exc}") from None
    except (NotImplementedError, RuntimeError) as exc:  # an unknown compression, encryption
        raise unreadable(".docx", f"{type(exc).__name__}: {exc}") from None


#: A colour whose every channel is at least this is taken for the (white) page's.
_NEAR_WHITE = 0xF0
#: ``w:sz`` is in half-points: 2 is 1 pt.
_TINY_HALF_POINTS = 2
#: A page of Letter size in twips (what Word assumes without a ``w:pgSz``).
_LETTER = (12240, 15840)


def _twips(element: Any, name: str) -> int | None:
    if element is None:
        return None
    try:
        return int(str(element.get(f"{_W}{name}")))
    except ValueError:
        return None


def _light(value: str) -> bool:
    """Whether a ``w:val``/``w:fill`` colour (``RRGGBB``) is white or nearly."""
    if len(value) != 6 or not all(c in "0123456789abcdefABCDEF" for c in value):
        return False
    return min(int(value[i : i + 2], 16) for i in (0, 2, 4)) >= _NEAR_WHITE


def _backed(props: Any) -> bool:
    """Whether properties (``w:rPr``, ``w:pPr``, ``w:tcPr``) put a colour that is not white
    behind the text: a shading fill or a highlight."""
    if props is None:
        return False
    shading = props.find(f"{_W}shd")
    fill = "" if shading is None else str(shading.get(f"{_W}fill", ""))
    if fill and fill.lower() != "auto" and not _light(fill):
        return True
    highlight = props.find(f"{_W}highlight")
    value = "" if highlight is None else str(highlight.get(f"{_W}val", "none"))
    return value not in ("", "none", "white")


@dataclass
class _Page:
    """What a .docx's runs are seen on: the page's size (twips) and whether something that is
    not white lies behind the text (the page's background, a paragraph's or cell's shading)."""

    width: int = _LETTER[0]
    height: int = _LETTER[1]
    backed: bool = False

    @classmethod
    def of(cls, document: Any) -> _Page:
        body = document.element.body
        size = body.find(f"{_W}sectPr/{_W}pgSz")
        width = _twips(size, "w") or _LETTER[0]
        height = _twips(size, "h") or _LETTER[1]
        background = document.element.find(f"{_W}background")
        colour = "" if background is None else str(background.get(f"{_W}color", ""))
        backed = bool(colour) and colour.lower() != "auto" and not _light(colour)
        return cls(abs(width), abs(height), backed)

    def off(self, paragraph: Any) -> bool:
        """Whether a paragraph is placed outside the page: an indent or a frame position past
        a page's width (height) either way."""
        props = paragraph.find(f"{_W}pPr")
        if props is None:
            return False
        indent = props.find(f"{_W}ind")
        for name in ("left", "start", "right", "end"):
            value = _twips(indent, name)
            if value is not None and abs(value) >= self.width:
                return True
        frame = props.find(f"{_W}framePr")
        x, y = _twips(frame, "x"), _twips(frame, "y")
        return (x is not None and abs(x) >= self.width) or (y is not None and abs(y) >= self.height)


def _invisible(run: Any, page: _Page, backed: bool = False) -> str | None:
    """Why a ``w:r`` element's direct formatting hides it from a reader, or ``None``; white
    text on a shading, a highlight or a page background that is not white (``backed``, or the
    run's own) is seen. (Formatting inherited from a style is not followed.)"""
    props = run.find(f"{_W}rPr")
    if props is None:
        return None
    vanish = props.find(f"{_W}vanish")
    if vanish is not None and vanish.get(f"{_W}val", "true") not in ("0", "false", "off"):
        return "hidden"
    colour = props.find(f"{_W}color")
    value = "" if colour is None else str(colour.get(f"{_W}val", ""))
    if _light(value) and not backed and not _backed(props):
        return "white"
    size = props.find(f"{_W}sz")
    try:
        if size is not None and int(size.get(f"{_W}val", "24")) <= _TINY_HALF_POINTS:
            return "tiny"
    except ValueError:
        pass
    position = _twips(props.find(f"{_W}position"), "val")  # half-points: 10 twips each
    if position is not None and abs(position) * 10 >= page.height:
        return "offpage"
    return None


def _visible_paragraph(paragraph: Any, dropped: dict[str, list[int]], page: _Page) -> str:
    """A paragraph's text without its invisible runs; exactly ``paragraph.text`` when it
    has none. A run of white space only is kept (it looks the same in any colour)."""
    element = paragraph._p
    if page.off(element):
        _count(dropped, "offpage", str(paragraph.text))
        return ""
    backed = page.backed or _backed(element.find(f"{_W}pPr"))
    cell = element.getparent()
    if cell is not None and cell.tag == f"{_W}tc":
        backed = backed or _backed(cell.find(f"{_W}tcPr"))
    runs = element.xpath("w:r | w:hyperlink/w:r")
    if not any(_invisible(run, page, backed) for run in runs):
        return str(paragraph.text)
    pieces: list[str] = []
    for child in element.xpath("w:r | w:hyperlink"):
        for run in [child] if child.tag == f"{_W}r" else child.xpath("w:r"):
            text = run.text
            why = _invisible(run, page, backed) if text.strip() else None
            if why is None:
                pieces.append(text)
            else:
                _count(dropped, why, text)
    return "".join(pieces)


def _docx_blocks(
    document: Any, budget: Budget, dropped: dict[str, list[int]] | None = None
) -> list[str]:
    """Paragraphs and tables of the body in document order (with ``dropped``: the visible
    text only, what was left out counted there by kind)."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    page = _Page.of(document) if dropped is not None else _Page()

    def text_of(paragraph: Any) -> str:
        if dropped is None:
            return str(paragraph.text)
        return _visible_paragraph(paragraph, dropped, page)

    out: list[str] = []
    for block in document.iter_inner_content():
        budget.tick()
        if isinstance(block, Paragraph):
            out.append(text_of(block))
        elif isinstance(block, Table):
            for row in block.rows:
                cells = ("\n".join(text_of(p) for p in cell.paragraphs) for cell in row.cells)
                out.append("\t".join(cells))
        budget.spend(len(out[-1]) + 1 if out else 0)
    return out


def _docx_visible(data: bytes, budget: Budget) -> Extraction:
    dropped: dict[str, list[int]] = {}
    blocks = _docx_blocks(_docx_document(data, budget), budget, dropped)
    return Extraction("\n".join(blocks), found(dropped))


def _docx(data: bytes, budget: Budget) -> str:
    return "\n".join(_docx_blocks(_docx_document(data, budget), budget))


def _docx_document(data: bytes, budget: Budget) -> Any:
    docx = require("docx", "office")
    require("lxml", "office")
    _check_docx(data, budget)
    try:
        document = docx.Document(io.BytesIO(data))  # type: ignore[attr-defined]
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        raise unreadable(".docx", f"{type(exc).__name__}: {exc}") from None
    except Exception as exc:  # python-docx raises its own PackageNotFoundError and lxml errors
        raise unreadable(".docx", f"{type(exc).__name__}: {exc}") from None
    return document


# ---- .pdf --------------------------------------------------------------------------------------


def _page_text(page: Any, budget: Budget) -> str:
    """One page's text; the visitor pypdf calls for every text operation keeps the clock and
    the character count, so one enormous page cannot run past the limits either."""

    def visit(text: str, *_: Any) -> None:
        budget.tick()
        budget.spend(len(text))

    return str(page.extract_text(visitor_text=visit) or "")


def _visible_page_text(page: Any, budget: Budget, dropped: dict[str, list[int]]) -> str:
    """One page's text as a reader sees it: the page's content stream walked once
    (:func:`neardup.inputs.office_pdf.split_page`); a page with hidden text is read again with only
    its visible operators, and once per kind of hidden text to count it (in the characters
    other than white space of pypdf's extraction)."""
    from pypdf.generic import ContentStream, NameObject, NullObject

    from neardup.inputs.office_pdf import split_page

    key = NameObject("/Contents")
    found = page.get(key)
    source = found.get_object() if found is not None else None
    if source is None or isinstance(source, NullObject):
        return _page_text(page, budget)
    pdf = getattr(page.indirect_reference, "pdf", None)
    # the strings as bytes, as pypdf's extraction parses them (the font decodes them)
    contents = ContentStream(source, pdf, "bytes")
    split = split_page(contents.operations, page, budget.tick)
    if split is None:
        page[key] = contents  # parsed once: the extraction reads these operations
        return _page_text(page, budget)
    for kind, operations in (*split.hidden.items(), ("", split.visible)):
        stream = ContentStream(None, pdf)
        stream.operations = operations
        page[key] = stream
        text = _page_text(page, budget)
        if kind:
            _count(dropped, kind, text)
    return text


def _pdf_pages(data: bytes, budget: Budget, page_text: Callable[[Any, Budget], str]) -> str:
    """The pages' texts by ``page_text``, a page's end read as a line's end.

    Not as a paragraph's: a PDF page's text layer has no paragraph breaks of its own (pypdf
    ends each line with one newline), so a blank line between pages would be the only one in
    the text, and a quotation or a sentence that runs onto the next page would be cut there —
    its «…» unclosed in its paragraph and its reference left on the other side, counted as
    borrowed (docs/formats.md)."""
    pypdf = require("pypdf", "office")
    errors = pypdf.errors  # type: ignore[attr-defined]
    limits = budget.limits
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)  # type: ignore[attr-defined]
        if reader.is_encrypted:
            raise InputError(
                "the .pdf file is encrypted; neardup reads only unencrypted PDFs",
                code="encrypted_pdf",
            )
        pages = len(reader.pages)
        if pages > limits.max_pages:
            raise budget.refuse(f"has {pages:,} pages", "max_pages", limits.max_pages)
        texts: list[str] = []
        for page in reader.pages:
            budget.tick()
            texts.append(page_text(page, budget))
    except InputError:
        raise
    except (errors.PyPdfError, ValueError, KeyError, TypeError, OSError, AttributeError) as exc:
        raise unreadable(".pdf", f"{type(exc).__name__}: {exc}") from None
    except RecursionError:
        raise unreadable(".pdf", "its objects nest too deeply") from None
    except Exception as exc:  # pypdf on damaged input can fail in many ways
        raise unreadable(".pdf", f"{type(exc).__name__}: {exc}") from None
    return "\n".join(t.strip("\n") for t in texts)


def _pdf(data: bytes, budget: Budget) -> str:
    return _pdf_pages(data, budget, _page_text)


def _pdf_visible(data: bytes, budget: Budget) -> Extraction:
    dropped: dict[str, list[int]] = {}
    text = _pdf_pages(data, budget, lambda page, b: _visible_page_text(page, b, dropped))
    return Extraction(text, found(dropped))


# ---- the entry points --------------------------------------------------------------------------

_EXTRACTORS: dict[str, tuple[Callable[[bytes], bool], str, Callable[[bytes, Budget], str]]] = {
    ".docx": (lambda data: data.startswith(b"PK"), "it is not a ZIP package", _docx),
    ".pdf": (lambda data: b"%PDF-" in data[:1024], "no %PDF- header", _pdf),
    ".odt": (office_odt.looks_right, office_odt.NOT_ODT, office_odt.text),
    ".rtf": (office_rtf.looks_right, office_rtf.NOT_RTF, office_rtf.text),
    ".doc": (office_doc.looks_right, office_doc.NOT_DOC, office_doc.text),
}
_VISIBLE: dict[str, Callable[[bytes, Budget], Extraction]] = {
    ".docx": _docx_visible,
    ".pdf": _pdf_visible,
    ".odt": office_odt.visible,
    ".rtf": office_rtf.visible,
    ".doc": office_doc.visible,
}


def _sniffed(kind: str, data: bytes) -> str:
    """The kind a ``.doc`` file's bytes say it is: Word saves RTF under ``.doc`` too, and a
    ``.docx`` renamed to ``.doc`` is common; any other kind is what its suffix says."""
    if kind == ".doc" and not office_doc.looks_right(data):
        if office_rtf.looks_right(data):
            return ".rtf"
        if data.startswith(b"PK"):
            return ".docx"
    return kind


def _checked(data: bytes, suffix: str, limits: OfficeLimits) -> tuple[str, Budget]:
    """The kind of file ``suffix`` names (or its bytes, :func:`_sniffed`) and its budget, once
    the bytes pass the first checks."""
    kind = suffix.lower() if suffix.startswith(".") else "." + suffix.lower()
    if kind not in _EXTRACTORS:
        raise InputError(
            f"cannot extract text from {suffix!r} files; expected one of "
            f"{', '.join(OFFICE_SUFFIXES)}"
        )
    kind = _sniffed(kind, data)
    looks_right, otherwise, _ = _EXTRACTORS[kind]
    budget = Budget(kind, limits)
    if len(data) > limits.max_bytes:
        raise budget.refuse(f"is {len(data):,} bytes", "max_bytes", limits.max_bytes)
    if not looks_right(data):
        raise unreadable(kind, otherwise)
    return kind, budget


def extract_text(data: bytes, suffix: str, *, limits: OfficeLimits = DEFAULT_LIMITS) -> str:
    """All the text of a ``.docx``, ``.pdf``, ``.odt``, ``.rtf`` or ``.doc`` file given as
    bytes, seen or not; ``suffix`` says which. (:func:`extract` gives what a reader sees, and
    what it does not.)

    Raises :class:`~neardup.errors.InputError` for another suffix or an unreadable file,
    :class:`~neardup.errors.InputTooLargeError` past one of ``limits`` (see the module's
    text), and :class:`~neardup.errors.MissingDependencyError` when ``neardup[office]`` is not
    installed (for ``.doc``: when Debian's ``antiword`` or ``catdoc`` is missing).
    """
    kind, budget = _checked(data, suffix, limits)
    return _EXTRACTORS[kind][2](data, budget)


def extract(data: bytes, suffix: str, *, limits: OfficeLimits = DEFAULT_LIMITS) -> Extraction:
    """What a reader sees of an office file, and what was dropped by kind
    (hidden-text evasion; :class:`Dropped`): a .docx without its runs hidden, white (on nothing
    darker), of 1 pt or less or placed off the page (direct formatting), and its paragraphs indented
    or framed off the page; a PDF without its text drawn invisible (render mode 3), transparent,
    white (not over something painted), of 1 pt or less or off the page
    (:mod:`neardup.inputs.office_pdf`); an .odt, RTF or .doc file without its hidden text
    (:mod:`~neardup.inputs.office_odt`, :mod:`~neardup.inputs.office_rtf`,
    :mod:`~neardup.inputs.office_doc`). A file with nothing hidden gives :func:`extract_text`'s
    text. The same errors and limits as :func:`extract_text`."""
    kind, budget = _checked(data, suffix, limits)
    return _VISIBLE[kind](data, budget)


def read_file(path: str | os.PathLike[str], *, limits: OfficeLimits = DEFAULT_LIMITS) -> str:
    """The text of an office file on disk (its size checked before it is read;
    a refusal names the file), all of it: :func:`extract_text`. The reader
    (``neardup.inputs``) reads what a reader sees, by :func:`extract`; this module does not
    import it."""
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > limits.max_bytes:
            raise InputTooLargeError(
                f"{file}: {size:,} bytes, over the limit of {limits.max_bytes:,} bytes"
            )
        with file.open("rb") as handle:
            data = handle.read(limits.max_bytes + 1)
    except FileNotFoundError:
        raise InputError(f"{file}: no such file") from None
    except OSError as exc:
        raise InputError(f"{file}: cannot be read ({exc.strerror or exc})") from None
    try:
        return extract_text(data, file.suffix, limits=limits)
    except InputError as exc:
        raise exc.reworded(f"{file}: {exc}") from None

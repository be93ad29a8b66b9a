"""Text out of office documents: ``.docx`` (python-docx) and ``.pdf`` (pypdf).

``extract(data, suffix)`` is the one way neardup turns such a file into the text a reader sees
(and what was hidden in it: :class:`Dropped`, hidden-text evasion); ``extract_text(data, suffix)``
gives all of its text. The reader (``neardup.inputs``: every command's files and folders) and the
web service's uploads (through the reader) call ``extract`` (``extract_text`` with
``visible_only=False``), so the offsets of matched passages refer to the same extracted text
everywhere. Both libraries come with ``neardup[office]`` (also in ``[web]`` and ``[all]``).

* ``.docx``: the body's paragraphs and table cells in document order, one paragraph a line
  (a table row's cells joined by tabs); headers, footers, comments and footnotes are left out.
* ``.pdf``: the text layer of every page (pypdf's reading order), pages separated by a blank
  line. A scanned PDF without a text layer gives an empty string — there is no OCR.

A file that is not what its suffix says, or is damaged, or is encrypted, raises
:class:`~neardup.errors.InputError` naming the format and what went wrong.

**Limits** (:class:`OfficeLimits`, checked before the file is handed to its library, so a
small file that unpacks to gigabytes is refused at the cost of reading it, never of building
it): the file's bytes; for ``.docx``, the unpacked size its ZIP declares (read from the central
directory; ``zipfile`` never inflates a member past its declared size), then every XML part
streamed once (lxml ``iterparse``, each element dropped as soon as it is counted) to count its
elements and the main part's paragraphs; for ``.pdf``, the page count its page tree declares;
for both, the characters extracted and a time limit. The time limit is checked by the
extraction itself between units of work (every few thousand XML elements, every block of the
document, every text operation of a PDF page), never by a signal, so it works in any thread
and cannot interrupt anything else the process does. Past a limit:
:class:`~neardup.errors.InputTooLargeError` (a usage error, exit 2 in the CLI) saying which
limit and its value.
"""

from __future__ import annotations

import io
import os
import time
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neardup.analysis.tricks import NONE, Tricks, hidden_text
from neardup.errors import InputError, InputTooLargeError, require

#: Suffixes (lower case) read by :func:`extract_text`.
OFFICE_SUFFIXES = (".docx", ".pdf")

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_OFFICE_DOCUMENT = "/officeDocument"
#: How often (in XML elements streamed) the clock is read.
_CLOCK_EVERY = 4096


@dataclass(frozen=True)
class OfficeLimits:
    """What an office file may cost before it is refused. The defaults take a long book
    (a 2,000-page PDF, a .docx of 200,000 paragraphs) and refuse what only a crafted file
    reaches; memory stays bounded by them (python-docx holds the parsed XML of the parts,
    about 200–400 bytes an element)."""

    #: The file itself (the reader's ``--max-bytes`` default, 64 MiB).
    max_bytes: int = 64 * 1024 * 1024
    #: What a .docx's ZIP declares its members unpack to, all together.
    max_unpacked: int = 512 * 1024 * 1024
    #: XML elements in all the parts of a .docx together.
    max_elements: int = 2_000_000
    #: Paragraphs of a .docx's main part (table cells' paragraphs included).
    max_paragraphs: int = 200_000
    #: Pages of a PDF, as its page tree declares them.
    max_pages: int = 5_000
    #: Characters of the extracted text.
    max_chars: int = 64 * 1024 * 1024
    #: Seconds of extraction (checked between units of work, see the module's text).
    max_seconds: float = 120.0


DEFAULT_LIMITS = OfficeLimits()


def is_office(name: str | os.PathLike[str]) -> bool:
    """Whether a file name ends in a suffix :func:`extract_text` reads."""
    return os.fspath(name).lower().endswith(OFFICE_SUFFIXES)


class _Budget:
    """The limits of one extraction, and what has been spent of them."""

    def __init__(self, kind: str, limits: OfficeLimits) -> None:
        self.kind = kind
        self.limits = limits
        self.deadline = time.monotonic() + limits.max_seconds
        self.chars = 0

    def refuse(self, what: str, limit: str, value: float) -> InputTooLargeError:
        shown = f"{value:,}" if isinstance(value, int) else f"{value:g}"
        return InputTooLargeError(
            f"the {self.kind} file {what}; the limit ({limit}) is {shown}, refused before "
            "extracting it"
        )

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise InputTooLargeError(
                f"extracting the text of the {self.kind} file took longer than the limit of "
                f"{self.limits.max_seconds:g} s (max_seconds)"
            )

    def spend(self, chars: int) -> None:
        self.chars += chars
        if self.chars > self.limits.max_chars:
            raise self.refuse("gives more text than the limit", "max_chars", self.limits.max_chars)


# ---- .docx -------------------------------------------------------------------------------------


def _unreadable(kind: str, why: str) -> InputError:
    """A file of ``kind`` (``.docx``, ``.pdf``) that cannot be read; the page and the CLI say so
    by its code, ``unreadable_file``, and its ``kind``."""
    return InputError(
        f"not a readable {kind} file ({why})", code="unreadable_file", params={"kind": kind}
    )


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


def _scan_part(package: zipfile.ZipFile, name: str, budget: _Budget, counts: list[int]) -> None:
    """Stream one XML part, counting its elements (``counts[0]``) and, in the main part, its
    paragraphs (``counts[1]``); each element is dropped once counted, so memory stays that of
    one element and its open ancestors."""
    from lxml import etree

    limits = budget.limits
    paragraph = f"{_W}p"
    with package.open(name) as stream:
        parsed = etree.iterparse(
            stream,
            events=("end",),
            resolve_entities=False,
            no_network=True,
            huge_tree=False,
            load_dtd=False,
        )
        for _, element in parsed:
            counts[0] += 1
            if element.tag == paragraph:
                counts[1] += 1
                if counts[1] > limits.max_paragraphs:
                    raise budget.refuse(
                        f"has more than {limits.max_paragraphs:,} paragraphs",
                        "max_paragraphs",
                        limits.max_paragraphs,
                    )
            if counts[0] > limits.max_elements:
                raise budget.refuse(
                    f"has more than {limits.max_elements:,} XML elements",
                    "max_elements",
                    limits.max_elements,
                )
            if counts[0] % _CLOCK_EVERY == 0:
                budget.tick()
            element.clear()
            parent = element.getparent()
            if parent is not None:
                while element.getprevious() is not None:
                    del parent[0]


def _check_docx(data: bytes, budget: _Budget) -> None:
    """Refuse a .docx past its limits before python-docx parses it."""
    from lxml import etree

    limits = budget.limits
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            members = package.infolist()
            unpacked = sum(member.file_size for member in members)
            if unpacked > limits.max_unpacked:
                raise budget.refuse(
                    f"declares {unpacked:,} bytes unpacked", "max_unpacked", limits.max_unpacked
                )
            main = _main_part(package)
            counts = [0, 0]
            for member in members:
                if member.filename.lower().endswith((".xml", ".rels")):
                    part_counts = counts if member.filename == main else [counts[0], 0]
                    _scan_part(package, member.filename, budget, part_counts)
                    counts[0] = part_counts[0]
    except InputError:
        raise
    except (zipfile.BadZipFile, etree.XMLSyntaxError, EOFError, OSError, ValueError) as exc:
        raise _unreadable(".docx", f"{type(exc).__name__}: {exc}") from None
    except zlib.error as exc:  # a part whose compressed bytes are damaged
        raise _unreadable(".docx", f"damaged compressed data: {exc}") from None
    except (NotImplementedError, RuntimeError) as exc:  # an unknown compression, encryption
        raise _unreadable(".docx", f"{type(exc).__name__}: {exc}") from None


@dataclass(frozen=True)
class Dropped:
    """Text a reader does not see, kept out of the visible text: ``kind`` is

    * ``hidden``: a .docx run marked hidden (``w:vanish``);
    * ``invisible``: PDF text drawn in render mode 3 (or 7), or fully transparent;
    * ``white``: text in white or nearly (the page's colour) on nothing darker;
    * ``tiny``: text of 1 pt or less;
    * ``offpage``: text placed outside the page;

    ``chars`` how many characters (white space not counted), ``words`` how many words."""

    kind: str
    chars: int
    words: int = 0


@dataclass(frozen=True)
class Extraction:
    """The text of an office file and what was kept out of it (:func:`extract`)."""

    text: str
    dropped: tuple[Dropped, ...] = ()

    @property
    def tricks(self) -> Tricks:
        """What was dropped as a ``hidden_text`` trick (:data:`~neardup.analysis.tricks.NONE`
        when nothing was)."""
        if not self.dropped:
            return NONE
        seen = sum(1 for c in self.text if not c.isspace())
        return hidden_text([(d.kind, d.chars, d.words) for d in self.dropped], seen)


def _count(dropped: dict[str, list[int]], kind: str, text: str) -> None:
    """Count ``text`` as dropped for ``kind``: its characters but white space, its words."""
    counts = dropped.setdefault(kind, [0, 0])
    counts[0] += sum(1 for c in text if not c.isspace())
    counts[1] += len(text.split())


def _found(dropped: dict[str, list[int]]) -> tuple[Dropped, ...]:
    return tuple(Dropped(kind, c, w) for kind, (c, w) in sorted(dropped.items()) if c)


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
    document: Any, budget: _Budget, dropped: dict[str, list[int]] | None = None
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


def _docx_visible(data: bytes, budget: _Budget) -> Extraction:
    dropped: dict[str, list[int]] = {}
    blocks = _docx_blocks(_docx_document(data, budget), budget, dropped)
    return Extraction("\n".join(blocks), _found(dropped))


def _docx(data: bytes, budget: _Budget) -> str:
    return "\n".join(_docx_blocks(_docx_document(data, budget), budget))


def _docx_document(data: bytes, budget: _Budget) -> Any:
    docx = require("docx", "office")
    require("lxml", "office")
    _check_docx(data, budget)
    try:
        document = docx.Document(io.BytesIO(data))  # type: ignore[attr-defined]
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        raise _unreadable(".docx", f"{type(exc).__name__}: {exc}") from None
    except Exception as exc:  # python-docx raises its own PackageNotFoundError and lxml errors
        raise _unreadable(".docx", f"{type(exc).__name__}: {exc}") from None
    return document


# ---- .pdf --------------------------------------------------------------------------------------


def _page_text(page: Any, budget: _Budget) -> str:
    """One page's text; the visitor pypdf calls for every text operation keeps the clock and
    the character count, so one enormous page cannot run past the limits either."""

    def visit(text: str, *_: Any) -> None:
        budget.tick()
        budget.spend(len(text))

    return str(page.extract_text(visitor_text=visit) or "")


def _visible_page_text(page: Any, budget: _Budget, dropped: dict[str, list[int]]) -> str:
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


def _pdf_pages(data: bytes, budget: _Budget, page_text: Callable[[Any, _Budget], str]) -> str:
    """The pages' texts by ``page_text``, pages separated by a blank line."""
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
        raise _unreadable(".pdf", f"{type(exc).__name__}: {exc}") from None
    except RecursionError:
        raise _unreadable(".pdf", "its objects nest too deeply") from None
    except Exception as exc:  # pypdf on damaged input can fail in many ways
        raise _unreadable(".pdf", f"{type(exc).__name__}: {exc}") from None
    return "\n\n".join(t.strip("\n") for t in texts)


def _pdf(data: bytes, budget: _Budget) -> str:
    return _pdf_pages(data, budget, _page_text)


def _pdf_visible(data: bytes, budget: _Budget) -> Extraction:
    dropped: dict[str, list[int]] = {}
    text = _pdf_pages(data, budget, lambda page, b: _visible_page_text(page, b, dropped))
    return Extraction(text, _found(dropped))


# ---- the entry points --------------------------------------------------------------------------

_EXTRACTORS: dict[str, tuple[Callable[[bytes], bool], str, Callable[[bytes, _Budget], str]]] = {
    ".docx": (lambda data: data.startswith(b"PK"), "it is not a ZIP package", _docx),
    ".pdf": (lambda data: b"%PDF-" in data[:1024], "no %PDF- header", _pdf),
}
_VISIBLE: dict[str, Callable[[bytes, _Budget], Extraction]] = {
    ".docx": _docx_visible,
    ".pdf": _pdf_visible,
}


def _checked(data: bytes, suffix: str, limits: OfficeLimits) -> tuple[str, _Budget]:
    """The kind of file ``suffix`` names and its budget, once the bytes pass the first checks."""
    kind = suffix.lower() if suffix.startswith(".") else "." + suffix.lower()
    if kind not in _EXTRACTORS:
        raise InputError(
            f"cannot extract text from {suffix!r} files; expected one of "
            f"{', '.join(OFFICE_SUFFIXES)}"
        )
    looks_right, otherwise, _ = _EXTRACTORS[kind]
    budget = _Budget(kind, limits)
    if len(data) > limits.max_bytes:
        raise budget.refuse(f"is {len(data):,} bytes", "max_bytes", limits.max_bytes)
    if not looks_right(data):
        raise _unreadable(kind, otherwise)
    return kind, budget


def extract_text(data: bytes, suffix: str, *, limits: OfficeLimits = DEFAULT_LIMITS) -> str:
    """All the text of a ``.docx`` or ``.pdf`` file given as bytes, seen or not; ``suffix``
    says which. (:func:`extract` gives what a reader sees, and what it does not.)

    Raises :class:`~neardup.errors.InputError` for another suffix or an unreadable file,
    :class:`~neardup.errors.InputTooLargeError` past one of ``limits`` (see the module's
    text), and :class:`~neardup.errors.MissingDependencyError` when ``neardup[office]`` is not
    installed.
    """
    kind, budget = _checked(data, suffix, limits)
    return _EXTRACTORS[kind][2](data, budget)


def extract(data: bytes, suffix: str, *, limits: OfficeLimits = DEFAULT_LIMITS) -> Extraction:
    """What a reader sees of a ``.docx`` or ``.pdf`` file, and what was dropped by kind
    (hidden-text evasion; :class:`Dropped`): a .docx without its runs hidden, white (on nothing
    darker), of 1 pt or less or placed off the page (direct formatting), and its paragraphs indented
    or framed off the page; a PDF without its text drawn invisible (render mode 3), transparent,
    white (not over something painted), of 1 pt or less or off the page
    (:mod:`neardup.inputs.office_pdf`). A file with nothing hidden gives :func:`extract_text`'s
    text. The same errors and limits as :func:`extract_text`."""
    kind, budget = _checked(data, suffix, limits)
    return _VISIBLE[kind](data, budget)


def read_file(path: str | os.PathLike[str], *, limits: OfficeLimits = DEFAULT_LIMITS) -> str:
    """The text of a ``.docx`` or ``.pdf`` file on disk (its size checked before it is read;
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

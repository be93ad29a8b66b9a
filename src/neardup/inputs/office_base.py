"""What every office reader shares: the limits (:class:`OfficeLimits`), the budget one
extraction spends of them, what a reader does not see (:class:`Dropped`, :class:`Extraction`),
the refusal of an unreadable file, and the streamed count of a ZIP package's XML elements.

The readers (:mod:`neardup.inputs.office` for ``.docx`` and ``.pdf``, and
:mod:`~neardup.inputs.office_odt`, :mod:`~neardup.inputs.office_rtf`,
:mod:`~neardup.inputs.office_doc`) import this module and never each other, so
:mod:`neardup.inputs.office`, which dispatches to all of them, makes no import cycle.
"""

from __future__ import annotations

import time
import zipfile
from collections.abc import Collection
from dataclasses import dataclass
from typing import IO

from neardup.analysis.tricks import NONE, Tricks, hidden_text
from neardup.errors import InputError, InputTooLargeError

#: How often (in XML elements streamed, RTF tokens read) the clock is read.
CLOCK_EVERY = 4096


@dataclass(frozen=True)
class OfficeLimits:
    """What an office file may cost before it is refused. The defaults take a long book
    (a 2,000-page PDF, a .docx of 200,000 paragraphs) and refuse what only a crafted file
    reaches; memory stays bounded by them (python-docx holds the parsed XML of the parts,
    about 200–400 bytes an element)."""

    #: The file itself (the reader's ``--max-bytes`` default, 64 MiB).
    max_bytes: int = 64 * 1024 * 1024
    #: What a ZIP package (.docx, .odt) declares its members unpack to, all together; what
    #: a .doc's compound file declares its streams to hold.
    max_unpacked: int = 512 * 1024 * 1024
    #: XML elements in all the parts of a .docx or .odt together; groups of an RTF file;
    #: XML elements of what a .doc's reader gives.
    max_elements: int = 2_000_000
    #: Paragraphs of a .docx's main part (table cells' paragraphs included), of an .odt's
    #: content, of an RTF or .doc file.
    max_paragraphs: int = 200_000
    #: Pages of a PDF, as its page tree declares them.
    max_pages: int = 5_000
    #: Characters of the extracted text.
    max_chars: int = 64 * 1024 * 1024
    #: Seconds of extraction (checked between units of work, see the module's text).
    max_seconds: float = 120.0


DEFAULT_LIMITS = OfficeLimits()


class Budget:
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

    def too_slow(self) -> InputTooLargeError:
        return InputTooLargeError(
            f"extracting the text of the {self.kind} file took longer than the limit of "
            f"{self.limits.max_seconds:g} s (max_seconds)"
        )

    def left(self) -> float:
        """Seconds left before the deadline (never below zero)."""
        return max(0.0, self.deadline - time.monotonic())

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise self.too_slow()

    def spend(self, chars: int) -> None:
        self.chars += chars
        if self.chars > self.limits.max_chars:
            raise self.refuse("gives more text than the limit", "max_chars", self.limits.max_chars)

    def count(self, what: str, counted: int, limit: str) -> None:
        """Refuse once ``counted`` things of ``what`` (``paragraphs``, ``XML elements``) pass
        the limit named ``limit`` (an :class:`OfficeLimits` field)."""
        most = getattr(self.limits, limit)
        if counted > most:
            raise self.refuse(f"has more than {most:,} {what}", limit, most)


def unreadable(kind: str, why: str) -> InputError:
    """A file of ``kind`` (``.docx``, ``.pdf``, ``.odt`` …) that cannot be read; the page and
    the CLI say so by its code, ``unreadable_file``, and its ``kind``."""
    return InputError(
        f"not a readable {kind} file ({why})", code="unreadable_file", params={"kind": kind}
    )


def check_unpacked(package: zipfile.ZipFile, budget: Budget) -> list[zipfile.ZipInfo]:
    """A ZIP package's members, once what they declare to unpack to (read from the central
    directory; ``zipfile`` never inflates a member past its declared size) is under the limit."""
    members = package.infolist()
    unpacked = sum(member.file_size for member in members)
    if unpacked > budget.limits.max_unpacked:
        raise budget.refuse(
            f"declares {unpacked:,} bytes unpacked", "max_unpacked", budget.limits.max_unpacked
        )
    return members


def scan_part(
    package: zipfile.ZipFile,
    name: str,
    budget: Budget,
    counts: list[int],
    paragraphs: Collection[str] = (),
) -> None:
    """Stream one XML part of a ZIP package: :func:`scan_xml`."""
    with package.open(name) as stream:
        scan_xml(stream, budget, counts, paragraphs)


def scan_xml(
    stream: IO[bytes], budget: Budget, counts: list[int], paragraphs: Collection[str] = ()
) -> None:
    """Stream one XML document, counting its elements (``counts[0]``) and its elements tagged
    as in ``paragraphs`` (``counts[1]``), each against its limit; each element is dropped once
    counted, so memory stays that of one element and its open ancestors."""
    from lxml import etree

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
        if element.tag in paragraphs:
            counts[1] += 1
            budget.count("paragraphs", counts[1], "max_paragraphs")
        budget.count("XML elements", counts[0], "max_elements")
        if counts[0] % CLOCK_EVERY == 0:
            budget.tick()
        element.clear()
        parent = element.getparent()
        if parent is not None:
            while element.getprevious() is not None:
                del parent[0]


def safe_parser() -> object:
    """An lxml parser that resolves no entity, loads no DTD and reaches no network."""
    from lxml import etree

    return etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False)


@dataclass(frozen=True)
class Dropped:
    """Text a reader does not see, kept out of the visible text: ``kind`` is

    * ``hidden``: a .docx run marked hidden (``w:vanish``), an .odt's hidden paragraph, hidden
      text or text in a style not displayed, RTF text after ``\\v``, .doc text marked hidden;
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
    """The text of an office file and what was kept out of it (``office.extract``)."""

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


def count_dropped(dropped: dict[str, list[int]], kind: str, text: str) -> None:
    """Count ``text`` as dropped for ``kind``: its characters but white space, its words."""
    counts = dropped.setdefault(kind, [0, 0])
    counts[0] += sum(1 for c in text if not c.isspace())
    counts[1] += len(text.split())


def found(dropped: dict[str, list[int]]) -> tuple[Dropped, ...]:
    return tuple(Dropped(kind, c, w) for kind, (c, w) in sorted(dropped.items()) if c)

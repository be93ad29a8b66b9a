"""A check as a PDF report to hand in (fpdf2, with a Cyrillic TrueType font).

The report says: the uniqueness figure and what it means, the borrowed and cited shares, the
date, the collection's name (never a path) and the spec; the sources with their shares, their
names and links (``title``/``url`` from the documents' metadata); and the text itself with the
copied passages on their source's colour, the rewritten ones on that colour and underlined
with a dashed line, the edited words inside a copied passage under a dotted line, and the cited
passages on grey, in italics — with a legend. The figure counts every source the check aligned;
those it did not list (past ``top``) are one row, "and N more", and the words found only in
them are on light grey. After the reference of a copied passage that is
not in the text's own reference list, a red "reference not found" (in the report's language).

Numbers take the language's decimal separator and counts their plural forms
(:mod:`neardup.messages`: "40,0 %", "21 слово" in Russian), as on the page; its words are
the report's area of that one catalog.

It is drawn from a check's record (:func:`neardup.report.check_record.check_record`), so the CLI
(``neardup index check --pdf``), the API (``/api/checks/{id}/pdf``) and the page give the same
report. The font: ``font=`` or ``NEARDUP_PDF_FONT`` (a ``.ttf`` with Cyrillic letters), else
DejaVu Sans where Debian's ``fonts-dejavu-core`` puts it, or a few other usual places.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from neardup.errors import ConfigurationError, require
from neardup.messages import number, plural, say
from neardup.report.check_record import (
    More,
    Source,
    cited_spans,
    more_of,
    reference_notes,
    sources_of,
)
from neardup.report.fragments import CITATION_COLOUR, HTML_COLOURS, MORE_COLOUR

#: The environment variable naming a TrueType font file for the reports.
FONT_ENV = "NEARDUP_PDF_FONT"
#: Where a font with Cyrillic letters is looked for, in order.
FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/local/share/fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    "/Library/Fonts/Arial Unicode.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "C:/Windows/Fonts/arial.ttf",
)
#: Characters of the text a report marks (about 60 pages); a longer text is cut there, with a
#: note saying so (the kept check shows it whole).
MAX_REPORT_TEXT = 200_000
#: Characters a font must have to print a Russian text.
CYRILLIC_PROBE = "АБВЖЯабвжяЁё"


def find_font(font: str | os.PathLike[str] | None = None) -> Path:
    """The TrueType font of the reports: ``font``, else ``$NEARDUP_PDF_FONT``, else the first
    of :data:`FONT_CANDIDATES` there; ConfigurationError when none is found or it lacks
    Cyrillic letters."""
    given = font or os.environ.get(FONT_ENV)
    if given:
        path = Path(given)
        if not path.is_file():
            raise ConfigurationError(
                f"the PDF font {str(path)!r} ({'--pdf-font' if font else FONT_ENV}) is not a file"
            )
        _require_cyrillic(path)
        return path
    for candidate in FONT_CANDIDATES:
        path = Path(candidate)
        if path.is_file():
            try:
                _require_cyrillic(path)
            except ConfigurationError:
                continue
            return path
    raise ConfigurationError(
        "no TrueType font with Cyrillic letters was found for the PDF report: install DejaVu "
        "Sans (Debian/Ubuntu: apt-get install fonts-dejavu-core) or point "
        f"{FONT_ENV} at a .ttf file that has them"
    )


def _require_cyrillic(path: Path) -> None:
    try:
        from fontTools.ttLib import TTFont

        with TTFont(str(path), lazy=True) as ttf:
            cmap = ttf.getBestCmap() or {}
    except Exception as exc:  # fontTools raises many kinds on a file that is not a font
        raise ConfigurationError(
            f"{path} is not a TrueType font the report can use: {exc}"
        ) from None
    missing = [c for c in CYRILLIC_PROBE if ord(c) not in cmap]
    if missing:
        raise ConfigurationError(
            f"the font {path} has no Cyrillic letters ({''.join(missing)} are missing); "
            f"point {FONT_ENV} at one that has them (e.g. DejaVuSans.ttf)"
        )


def _variant(regular: Path, suffix: str) -> Path | None:
    """``DejaVuSans-Bold.ttf`` beside ``DejaVuSans.ttf``, when there."""
    other = regular.with_name(f"{regular.stem}-{suffix}{regular.suffix}")
    return other if other.is_file() else None


def _rgb(colour: str) -> tuple[int, int, int]:
    h = colour.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


_UNPRINTABLE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]"
)


def printable(text: str) -> str:
    """``text`` with the same length and offsets, but nothing a PDF cannot print: tabs and
    control or invisible characters become spaces, lone surrogates ``?``."""
    safe = text.encode("utf-8", "replace").decode("utf-8")
    if len(safe) != len(text):  # a surrogate pair written as two code units: one per unit
        safe = "".join(c if not 0xD800 <= ord(c) <= 0xDFFF else "?" for c in text)
    return _UNPRINTABLE.sub(" ", safe.replace("\t", " ").replace("\r", " "))


@dataclass(frozen=True)
class Piece:
    """A run of the text drawn one way."""

    start: int
    end: int
    colour: str | None
    rewritten: bool
    changed: bool
    cited: bool


def pieces(
    length: int,
    sources: Sequence[Source],
    cited: Sequence[tuple[int, int]],
    neutral: Sequence[tuple[int, int]] = (),
    notes: Sequence[int] = (),
) -> list[Piece]:
    """The text cut where any mark starts or ends (and at each note); each piece drawn as the
    first copied passage over it (else the first rewritten one), as the page draws it; a piece
    in no passage listed but in a ``neutral`` span (found only in sources not listed) on the
    neutral colour."""
    marks: list[tuple[int, int, str, bool, tuple[tuple[int, int], ...]]] = []
    for s in sources:
        colour = HTML_COLOURS[s.index % len(HTML_COLOURS)]
        for p in s.spans:
            marks.append((p.a_start, p.a_end, colour, p.rewritten, p.a_changed))
    cuts = {0, length}
    for a, b, _, _, changed in marks:
        cuts.update((a, b))
        for x, y in changed:
            cuts.update((x, y))
    for a, b in (*cited, *neutral):
        cuts.update((a, b))
    cuts.update(notes)
    points = sorted(c for c in cuts if 0 <= c <= length)
    out: list[Piece] = []
    for x, y in itertools.pairwise(points):
        covering = sorted((m for m in marks if m[0] <= x and m[1] >= y), key=lambda m: m[3])
        in_cite = any(a <= x and y <= b for a, b in cited)
        if covering:
            first = covering[0]
            edited = any(a <= x and y <= b for a, b in first[4])
            out.append(Piece(x, y, first[2], first[3], edited, in_cite))
        elif any(a <= x and y <= b for a, b in neutral):
            out.append(Piece(x, y, MORE_COLOUR, False, False, in_cite))
        else:
            out.append(Piece(x, y, None, False, False, in_cite))
    return out


class _Report:
    """The document being written (fpdf2), with its fonts and the words of its language."""

    def __init__(self, font: Path, lang: str) -> None:
        fpdf: Any = require("fpdf", "report")
        require("babel", "report")  # the plural forms and the decimal separator
        self.lang = lang if lang in ("ru", "en") else "ru"
        self.pdf: Any = fpdf.FPDF(format="A4")
        self.pdf.set_margins(15, 15, 15)
        self.pdf.set_auto_page_break(True, margin=15)
        self.pdf.add_font("body", "", str(font))
        bold = _variant(font, "Bold")
        self.pdf.add_font("body", "B", str(bold or font))
        italic = _variant(font, "Oblique") or _variant(font, "Italic")
        self.pdf.add_font("body", "I", str(italic or font))
        self.pdf.set_font("body", size=10)
        words = self.w
        self.pdf.alias_nb_pages()

        def footer() -> None:
            self.pdf.set_y(-12)
            self.pdf.set_font("body", size=8)
            self.pdf.set_text_color(120, 120, 120)
            self.pdf.cell(0, 5, f"neardup · {words('page')} {self.pdf.page_no()}/{{nb}}", align="C")
            self.pdf.set_text_color(0, 0, 0)

        self.pdf.footer = footer

    def w(self, key: str, **values: Any) -> str:
        """The report's words ``key`` (:mod:`neardup.messages.report`) in its language."""
        return say("report", key, self.lang, **values)

    def percent(self, share: float) -> str:
        """A share as a percentage with the language's decimal separator: "40,0 %"."""
        return f"{number(100 * share, 1, self.lang)} %"

    @property
    def width(self) -> float:
        return float(self.pdf.w - self.pdf.l_margin - self.pdf.r_margin)

    def heading(self, text: str, size: float = 13) -> None:
        self.pdf.ln(2)
        self.pdf.set_font("body", "B", size)
        self.pdf.multi_cell(0, size * 0.5, text, new_x="LMARGIN", new_y="NEXT")
        self.pdf.set_font("body", "", 10)
        self.pdf.ln(1)

    def line(self, label: str, value: str, link: str = "") -> None:
        self.pdf.set_font("body", "B", 9)
        self.pdf.cell(42, 5, label + ":")
        self.pdf.set_font("body", "", 9)
        if link:
            self.pdf.set_text_color(20, 60, 170)
        self.pdf.multi_cell(0, 5, value, link=link or "", new_x="LMARGIN", new_y="NEXT")
        self.pdf.set_text_color(0, 0, 0)


def check_pdf(
    text: str,
    record: Mapping[str, Any],
    *,
    created: float | None = None,
    collection: str = "",
    spec: str = "",
    name: str = "",
    lang: str = "ru",
    link: str = "",
    font: str | os.PathLike[str] | None = None,
    max_text: int = MAX_REPORT_TEXT,
) -> bytes:
    """The PDF report of ``text`` checked: its ``record``
    (:func:`neardup.report.check_record.check_record`)."""
    report = _Report(find_font(font), lang)
    pdf, w = report.pdf, report.w
    pdf.set_title(w("title"))
    pdf.set_creator("neardup")
    pdf.add_page()
    report.heading(w("title"), 16)
    when = datetime.fromtimestamp(created if created is not None else 0.0, UTC)
    _figure(report, record)
    pdf.ln(2)
    report.line(w("date"), when.strftime("%Y-%m-%d %H:%M UTC") if created is not None else "—")
    report.line(w("collection"), collection or "—")
    report.line(w("spec"), spec or "—")
    if name:
        report.line(w("file"), name)
    if link:
        report.line(w("link"), link, link)
    excluded = record.get("exclude") or []
    if excluded:
        report.line(w("excluded"), ", ".join(excluded))
    sources = sources_of(record)
    more = more_of(record)
    shown = text[:max_text]
    notes = [n for n in reference_notes(record) if n <= len(shown)]
    _sources(report, sources, more)
    _limited(report, record)
    _legend(report, more, bool(notes))
    report.heading(w("text"))
    runs = pieces(len(shown), sources, cited_spans(record), more.spans if more else (), notes)
    _marked_text(report, printable(shown), runs, set(notes))
    if len(text) > len(shown):
        pdf.set_font("body", "I", 9)
        pdf.multi_cell(0, 5, w("cut", n=len(text) - len(shown)))
    return bytes(pdf.output())


def _figure(report: _Report, record: Mapping[str, Any]) -> None:
    pdf, w = report.pdf, report.w
    u = float(record.get("uniqueness", 1.0))
    pdf.set_font("body", "B", 22)
    pdf.set_text_color(160, 32, 32)
    pdf.cell(0, 12, f"{w('uniqueness')} {report.percent(u)}", new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0, 0, 0)
    pdf.set_font("body", "", 11)
    borrowed, cited = float(record.get("borrowed", 0.0)), float(record.get("cited", 0.0))
    pdf.cell(
        0,
        6,
        f"{w('borrowed')} {report.percent(borrowed)} · {w('cited')} {report.percent(cited)} · "
        f"{plural(int(record.get('words', 0)), 'word', report.lang)}",
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.set_font("body", "", 9)
    pdf.set_text_color(80, 80, 80)
    pdf.multi_cell(0, 4.5, w("meaning"), new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0, 0, 0)


def _sources(report: _Report, sources: Sequence[Source], more: More | None = None) -> None:
    pdf, w = report.pdf, report.w
    report.heading(w("sources"))
    if not sources and more is None:
        pdf.multi_cell(0, 5, w("no_sources"), new_x="LMARGIN", new_y="NEXT")
        return
    pdf.set_font("body", "", 9)
    with pdf.table(
        col_widths=(8, 90, 26, 22),
        text_align=("CENTER", "LEFT", "RIGHT", "RIGHT"),
        line_height=5,
        first_row_as_headings=True,
    ) as table:
        table.row(["#", w("source"), w("share"), w("passages")])
        for s in sources:
            row = table.row()
            row.cell(str(s.index + 1), style=_fill_style(HTML_COLOURS[s.index % len(HTML_COLOURS)]))
            label = s.name if s.name == s.id else f"{s.name} ({s.id})"
            if s.url:
                label += f"\n{s.url}"
            row.cell(label, link=s.url or None)
            row.cell(report.percent(s.borrowed))
            row.cell(number(len(s.spans), 0, report.lang))
        if more is not None:  # one row for the sources counted but not listed
            row = table.row()
            row.cell("", style=_fill_style(MORE_COLOUR))
            row.cell(w("more_sources", n=plural(more.sources, "source", report.lang)))
            row.cell(report.percent(more.share))
            row.cell(number(more.passages, 0, report.lang))
    pdf.set_font("body", "", 10)


def _limited(report: _Report, record: Mapping[str, Any]) -> None:
    """The notes of a figure that reached a work limit of one check."""
    from neardup.report.check_record import limit_notes

    notes = limit_notes(record, report.lang)
    if not notes:
        return
    pdf = report.pdf
    pdf.ln(1)
    pdf.set_font("body", "I", 9)
    for note in notes:
        pdf.multi_cell(0, 4.5, note, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("body", "", 10)


def _fill_style(colour: str) -> Any:
    from fpdf.fonts import FontFace

    return FontFace(fill_color=_rgb(colour))


def _legend(report: _Report, more: More | None = None, notes: bool = False) -> None:
    pdf, w = report.pdf, report.w
    pdf.ln(3)
    pdf.set_font("body", "B", 9)
    indent = pdf.get_string_width(w("legend") + ":") + 3
    pdf.cell(indent, 6, w("legend") + ":")
    pdf.set_font("body", "", 9)
    colour = HTML_COLOURS[0]
    samples = (
        (w("copied"), Piece(0, 0, colour, False, False, False)),
        (w("rewritten"), Piece(0, 0, colour, True, False, False)),
        (w("changed"), Piece(0, 0, colour, False, True, False)),
        (w("cite"), Piece(0, 0, colour, False, False, True)),
        *([(w("more"), Piece(0, 0, MORE_COLOUR, False, False, False))] if more else []),
    )
    x, y = pdf.get_x(), pdf.get_y() + 1
    for label, piece in samples:
        width = pdf.get_string_width(label) + 3
        if x + width > pdf.w - pdf.r_margin:
            x, y = pdf.l_margin + indent, y + 6
        _draw(report, x, y, width, 4.6, label, piece)
        x += width + 3
    if notes:
        label = w("reference_not_found")
        if x + _note_width(report, label) > pdf.w - pdf.r_margin:
            x, y = pdf.l_margin + indent, y + 6
        _note(report, x, y, 4.6, label)
    pdf.set_xy(pdf.l_margin, y + 6)


#: The colour of the "reference not found" note (the page's).
NOTE_COLOUR = (176, 0, 32)


def _note_width(report: _Report, label: str) -> float:
    pdf = report.pdf
    size = pdf.font_size_pt
    pdf.set_font("body", "B", 7.5)
    width = float(pdf.get_string_width(label)) + 3
    pdf.set_font("body", "", size)
    return width


def _note(report: _Report, x: float, y: float, h: float, label: str) -> float:
    """The "reference not found" note at (x, y): small red words in a red frame; its width."""
    pdf = report.pdf
    width = _note_width(report, label)
    size = pdf.font_size_pt
    pdf.set_draw_color(*NOTE_COLOUR)
    pdf.set_line_width(0.3)
    pdf.rect(x + 0.5, y + 0.4, width - 1, h - 0.8, style="D")
    pdf.set_text_color(*NOTE_COLOUR)
    pdf.set_font("body", "B", 7.5)
    pdf.text(x + 1.5, y + h * 0.72, label)
    pdf.set_font("body", "", size)
    pdf.set_text_color(0, 0, 0)
    pdf.set_draw_color(0, 0, 0)
    return width


def _draw(report: _Report, x: float, y: float, width: float, h: float, text: str, p: Piece) -> None:
    """One run of text at (x, y) with its marking."""
    pdf = report.pdf
    if p.cited:
        pdf.set_fill_color(*_rgb(CITATION_COLOUR))
        pdf.rect(x, y, width, h, style="F")
    elif p.colour is not None:
        pdf.set_fill_color(*_rgb(p.colour))
        pdf.rect(x, y, width, h, style="F")
    pdf.set_font("body", "I" if p.cited else "", pdf.font_size_pt)
    pdf.text(x, y + h * 0.78, text)
    if p.rewritten or p.changed:
        pdf.set_line_width(0.35)
        if p.rewritten:
            pdf.set_draw_color(60, 60, 60)
            pdf.set_dash_pattern(dash=1.2, gap=0.8)
        else:
            pdf.set_draw_color(170, 0, 0)
            pdf.set_dash_pattern(dash=0.3, gap=0.6)
        pdf.line(x, y + h - 0.2, x + width, y + h - 0.2)
        pdf.set_dash_pattern()
        pdf.set_draw_color(0, 0, 0)
    pdf.set_font("body", "", pdf.font_size_pt)


_TOKENS = re.compile(r"\n|[^\S\n]+|[^\s]+")


def _marked_text(
    report: _Report, text: str, runs: Sequence[Piece], notes: set[int] | None = None
) -> None:
    """Lay the text out word by word (wrapping at the margin, keeping line breaks), each run
    drawn with its marking, and the "reference not found" note after each run that ends at one
    of ``notes``."""
    report.pdf.set_font("body", "", 10)
    layout = _Layout(report)
    for run in runs:
        for token in _TOKENS.findall(text[run.start : run.end]):
            if token == "\n":
                layout.newline()
            elif token.isspace():
                layout.space(token, run)
            else:
                layout.word(token, run)
        if notes and run.end in notes:
            layout.note(report.w("reference_not_found"))
    report.pdf.set_xy(layout.left, layout.y + layout.h)


class _Layout:
    """Where the next run of the text goes: the pen moves right, wraps at the margin and goes
    to a new page at the bottom."""

    h = 5.2

    def __init__(self, report: _Report) -> None:
        pdf = report.pdf
        self.report, self.pdf = report, pdf
        self.left, self.right = pdf.l_margin, pdf.w - pdf.r_margin
        self.bottom = pdf.h - pdf.b_margin
        self.x, self.y = self.left, pdf.get_y()

    def newline(self) -> None:
        self.x, self.y = self.left, self.y + self.h
        if self.y + self.h > self.bottom:
            self.pdf.add_page()
            self.pdf.set_font("body", "", 10)
            self.x, self.y = self.left, self.pdf.t_margin

    def space(self, token: str, run: Piece) -> None:
        width = self.pdf.get_string_width(token)
        if self.x > self.left:  # no space at the start of a line
            if self.x + width > self.right:
                self.newline()
            else:
                _draw(self.report, self.x, self.y, width, self.h, token, run)
                self.x += width

    def word(self, token: str, run: Piece) -> None:
        pdf = self.pdf
        width = pdf.get_string_width(token)
        if self.x + width > self.right and self.x > self.left:
            self.newline()
        while width > self.right - self.left:  # a word longer than a line: cut it
            cut = _fit(pdf, token, self.right - self.x)
            piece = token[:cut]
            _draw(self.report, self.x, self.y, pdf.get_string_width(piece), self.h, piece, run)
            token = token[cut:]
            self.newline()
            width = pdf.get_string_width(token)
        _draw(self.report, self.x, self.y, width, self.h, token, run)
        self.x += width

    def note(self, label: str) -> None:
        if self.x + _note_width(self.report, label) > self.right and self.x > self.left:
            self.newline()
        self.x += _note(self.report, self.x, self.y, self.h, label)


def _fit(pdf: Any, token: str, room: float) -> int:
    """How many characters of ``token`` fit in ``room`` (at least one)."""
    n = 1
    while n < len(token) and pdf.get_string_width(token[: n + 1]) <= room:
        n += 1
    return n

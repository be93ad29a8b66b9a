"""Showing matched fragments: in a terminal (rich), as JSON, and as a self-contained HTML page.

The HTML report is one file with inline CSS and no script and no external resource, so it can
be mailed or archived and opened anywhere. Every character of the texts, ids and titles goes
through :func:`html.escape`: a text that contains HTML or ``<script>`` is shown as text and
never runs. Within a passage, the words no matching shingle covers (edited words) are drawn
lighter and underlined, as uniqueness checkers mark copied words (the web-articles compilation).
Each highlighted passage is a link to its counterpart (query ↔ source): the query
and the sources scroll in their own panes, so following a link brings the counterpart into view
next to it. Texts are shown as given — for HTML input that is the page's source, where the
spans point. A copied passage whose reference is not found in the text's own reference list
(:mod:`neardup.passages.citations`) gets the words "reference not found" (in the report's
language, from :mod:`neardup.messages`) right after its reference.
"""

from __future__ import annotations

import bisect
import html
import itertools
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from neardup.analysis.tricks import Tricks
from neardup.errors import InputError
from neardup.messages import say
from neardup.passages.align import UNIQUENESS_MEANING, Alignment, Passage
from neardup.passages.citations import unresolved_notes
from neardup.passages.rewrites import RewrittenPassage

#: Background colours of the sources' passages (HTML), cycled.
HTML_COLOURS = (
    "#ffe08a",
    "#a8e6cf",
    "#ffb3c1",
    "#b5d8ff",
    "#d7c4f2",
    "#ffd1a1",
    "#c8f0a0",
    "#f0c8e8",
)
#: rich styles of the sources' passages (terminal), cycled.
TERMINAL_STYLES = (
    "black on yellow",
    "black on green",
    "black on magenta",
    "black on cyan",
    "black on bright_blue",
    "black on bright_red",
)
#: Laid over the words of a passage that no matching shingle covers (the edited words).
CHANGED_STYLE = "italic underline"
#: The parts of passages that lie inside a citation (quoted or referenced), terminal and HTML.
CITATION_STYLE = "black on grey70"
CITATION_COLOUR = "#c9d3dd"
#: Laid over every quoted or referenced passage of the query, matched or not.
QUOTED_STYLE = "italic"
#: The words "reference not found" after a copied passage's unresolved reference (terminal).
NOTE_STYLE = "bold red"
#: Added to a source's colour on a rewritten passage (its sentences reworded, not copied).
REWRITTEN_STYLE = "underline"
#: What a rewritten passage is called in reports and on the page.
REWRITTEN_LABEL = "rewritten"
#: The words counted in the figure through sources a report does not list (past ``top``): a
#: neutral colour, no source's (terminal, HTML, the page and the PDF).
MORE_STYLE = "black on grey89"
MORE_COLOUR = "#e4e4e4"


# --- JSON ----------------------------------------------------------------------------------


def to_json(alignment: Alignment, *, with_text: bool = False, indent: int | None = None) -> str:
    """The alignment as JSON (see :meth:`Alignment.to_dict`)."""
    return json.dumps(alignment.to_dict(with_text=with_text), ensure_ascii=False, indent=indent)


# --- terminal ------------------------------------------------------------------------------

#: C0 and C1 control characters (escape sequences start with one), DEL
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_IN_TEXT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(value: str) -> str:
    """``value`` with every control character shown as an escape (``\\x1b``): user-supplied
    ids and names never move the cursor, clear the screen or recolour the terminal."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", value)


def markup_safe(value: str) -> str:
    """``value`` ready for a rich markup string or table cell: printable, brackets escaped."""
    return escape(printable(value))


def _highlighted(text: str, spans: Sequence[tuple[int, int, str]]) -> Text:
    """``text`` as a rich Text (never parsed as markup) with ``(start, end, style)`` applied.

    Control characters other than newline and tab become U+FFFD, one for one, so the spans
    still fall on the same characters.
    """
    out = Text(_CONTROL_IN_TEXT.sub("\ufffd", text))
    for start, end, style in spans:
        out.stylize(style, start, end)
    return out


def passages_table(alignment: Alignment, *, title: str | None = None, lang: str = "en") -> Table:
    """One row per passage: source, spans in both texts, tokens, similarity (in ``lang``)."""
    table = Table(title=title, show_header=True)
    for col, justify in (
        ("source", "left"),
        ("number", "right"),
        ("query_chars", "right"),
        ("source_chars", "right"),
        ("tokens", "right"),
        ("similarity", "right"),
    ):
        table.add_column(say("terminal", f"column_{col}", lang), justify=justify)  # type: ignore[arg-type]
    rewritten_label = say("terminal", "rewritten", lang)
    for index, match in enumerate(alignment.found):
        style = TERMINAL_STYLES[index % len(TERMINAL_STYLES)]
        rows: list[tuple[str, Passage | RewrittenPassage]] = [
            (str(p.number), p) for p in match.passages
        ]
        rows += [(f"{rewritten_label} {p.number}", p) for p in match.rewritten]
        for number, p in rows:
            table.add_row(
                Text(printable(match.id), style=style),
                number,
                f"{p.a_start}–{p.a_end}",
                f"{p.b_start}–{p.b_end}",
                f"{p.tokens_a}/{p.tokens_b}",
                say("terminal", "similarity_value", lang, value=p.similarity),
            )
    return table


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


TRICK_NAMES = {
    "homoglyph": "look-alike letters of another script",
    "invisible": "invisible characters",
    "letter_spacing": "letter spacing",
    "stuffing": "characters stuffed inside words",
    "hidden_text": "text hidden in the file, kept out",
}


def tricks_line(tricks: Tricks, whose: str | None = None, lang: str = "en") -> str | None:
    """One line on the tricks found in a text (``None`` for a clean one): each kind, how many
    words it touched, and whether the text is suspicious (made to evade); in ``lang``."""
    if not tricks:
        return None

    def kind_name(kind: str) -> str:
        return say("terminal", f"trick_{kind}", lang) if kind in TRICK_NAMES else kind

    kinds = "; ".join(
        say(
            "terminal",
            "trick_kind",
            lang,
            name=kind_name(t.kind),
            words=t.words,
            chars=t.chars,
            by=f" ({', '.join(f'{how} {n}' for how, n in t.by)})" if t.by else "",
        )
        for t in tricks.found
    )
    verdict = say("terminal", "tricks_suspicious" if tricks.suspicious else "tricks_found", lang)
    if whose is None:
        whose = say("terminal", "tricks_the_text", lang)
    return say("terminal", "tricks", lang, whose=whose, verdict=verdict, kinds=kinds)


def summary_line(alignment: Alignment, lang: str = "en") -> str:
    """The one uniqueness figure first, then the shares it leaves (they add up to 100 %)."""
    found = alignment.found
    n = sum(len(s.passages) for s in found)
    rewritten = sum(len(s.rewritten) for s in found)
    also = say("terminal", "summary_rewritten", lang, n=rewritten) if rewritten else ""
    cited = (
        ""
        if alignment.citations is None
        else say("cli", "check_cited", lang, cited=100 * alignment.cited)
    )
    return say(
        "terminal",
        "summary",
        lang,
        uniqueness=100 * alignment.uniqueness,
        borrowed=100 * alignment.borrowed,
        cited=cited,
        passages=n,
        passages_s="" if n == 1 else "s",
        also=also,
        sources=len(found),
        sources_s="" if len(found) == 1 else "s",
        words=alignment.tokens,
        words_s="" if alignment.tokens == 1 else "s",
    )


def more_line(alignment: Alignment, lang: str = "en") -> str | None:
    """What the sources counted but not listed add (``None`` when every source is listed)."""
    more = alignment.more
    if more is None:
        return None
    return say("cli", "check_more_sources", lang, n=more.sources, share=100 * more.share)


def _cited_parts(alignment: Alignment) -> list[tuple[int, int]]:
    """The character spans of the query's passages that lie inside a cited span."""
    parts: list[tuple[int, int]] = []
    for match in alignment.found:
        for p in match.passages:
            for c in cited_citations(alignment):
                start, end = max(p.a_start, c[0]), min(p.a_end, c[1])
                if start < end:
                    parts.append((start, end))
    return sorted(set(parts))


def cited_citations(alignment: Alignment) -> list[tuple[int, int]]:
    """The spans of the query's citations that count as cited."""
    return [(c.start, c.end) for c in alignment.citations or () if c.counts]


def reference_notes(alignment: Alignment) -> list[int]:
    """Where "reference not found" goes: after each unresolved reference of a copied (or
    rewritten) passage of the query."""
    found = [(c.start, c.end, str(c.status)) for c in alignment.citations or ()]
    passages = [(p.a_start, p.a_end) for s in alignment.found for p in s.passages]
    passages += [(p.a_start, p.a_end) for s in alignment.found for p in s.rewritten]
    return unresolved_notes(found, passages)


def not_found_words(lang: str) -> str:
    """ "reference not found" in ``lang`` (the one catalog's words)."""
    return say("report", "reference_not_found", lang if lang in ("ru", "en") else "en")


def with_notes(
    text: str, spans: Sequence[tuple[int, int, str]], notes: Sequence[int], note: str
) -> tuple[str, list[tuple[int, int, str]]]:
    """``text`` with ``note`` put in at each offset of ``notes`` (styled :data:`NOTE_STYLE`),
    and ``spans`` moved to stay on their characters: a span that ends at a note's offset ends
    before it, one that starts there starts after it."""
    if not notes:
        return text, list(spans)
    at = sorted(set(notes))
    pieces, last = [], 0
    for x in at:
        pieces += [text[last:x], note]
        last = x
    pieces.append(text[last:])

    def moved(x: int, *, end: bool) -> int:
        before = bisect.bisect_left(at, x) if end else bisect.bisect_right(at, x)
        return x + before * len(note)

    out = [(moved(a, end=False), moved(b, end=True), style) for a, b, style in spans]
    out += [(x + k * len(note), x + (k + 1) * len(note), NOTE_STYLE) for k, x in enumerate(at)]
    return "".join(pieces), out


#: Texts up to this many characters are shown in a panel; a longer text is printed a piece at
#: a time under a rule, so memory does not grow with it (a panel renders all its lines first).
PANEL_CHARS = 200_000
_PIECE_CHARS = 1 << 16


def _print_text(
    console: Console, text: str, spans: Sequence[tuple[int, int, str]], title: Text
) -> None:
    if len(text) <= PANEL_CHARS:
        console.print(Panel(_highlighted(text, spans), title=title, title_align="left"))
        return
    console.rule(title, align="left")
    cuts = _piece_cuts(text, _PIECE_CHARS)
    per_piece: list[list[tuple[int, int, str]]] = [[] for _ in cuts[:-1]]
    for start, end, style in spans:
        first = max(bisect.bisect_right(cuts, start) - 1, 0)
        for k in range(first, len(per_piece)):
            if cuts[k] >= end:
                break
            per_piece[k].append((start, end, style))
    for k, (lo, hi) in enumerate(itertools.pairwise(cuts)):
        piece = [(max(a, lo) - lo, min(b, hi) - lo, style) for a, b, style in per_piece[k]]
        per_piece[k] = []
        console.print(_highlighted(text[lo:hi], piece), end="")
    console.print()
    console.rule()


def _piece_cuts(text: str, size: int) -> list[int]:
    """Offsets cutting ``text`` into pieces of about ``size`` characters, after a line break
    or a space where there is one."""
    cuts = [0]
    n = len(text)
    while n - cuts[-1] > size:
        lo, hi = cuts[-1], cuts[-1] + size
        at = text.rfind("\n", lo + 1, hi)
        if at < 0:
            at = text.rfind(" ", lo + 1, hi)
        cuts.append(at + 1 if at >= 0 else hi)
    cuts.append(n)
    return cuts


def print_terminal(
    alignment: Alignment,
    console: Console | None = None,
    *,
    query_title: str = "query",
    show_sources: bool = True,
    summary: bool = True,
    lang: str = "en",
) -> None:
    """Print the query (and each source) with passages coloured, then a table of passages and
    (``summary``) the uniqueness figure with what it means — a caller that printed the figure
    already says ``summary=False``, so that it is printed once. After the reference of a copied
    passage that is not in the text's reference list it says "reference not found" (in
    ``lang``)."""
    console = console or Console()
    query_spans: list[tuple[int, int, str]] = []
    if alignment.more is not None:  # under the listed sources' colours
        query_spans.extend((s, e, MORE_STYLE) for s, e in alignment.more.spans)
    for index, match in enumerate(alignment.found):
        style = TERMINAL_STYLES[index % len(TERMINAL_STYLES)]
        rewritten = f"{style} {REWRITTEN_STYLE}"
        query_spans.extend((p.a_start, p.a_end, rewritten) for p in match.rewritten)
        query_spans.extend((p.a_start, p.a_end, style) for p in match.passages)
        query_spans.extend((s, e, CHANGED_STYLE) for p in match.passages for s, e in p.a_changed)
    query_spans.extend((s, e, CITATION_STYLE) for s, e in _cited_parts(alignment))
    query_spans.extend((c.start, c.end, QUOTED_STYLE) for c in alignment.citations or ())
    note = f" ← {not_found_words(lang)}"
    shown, query_spans = with_notes(alignment.text, query_spans, reference_notes(alignment), note)
    _print_text(console, shown, query_spans, Text(printable(query_title)))
    if show_sources:
        for index, match in enumerate(alignment.found):
            style = TERMINAL_STYLES[index % len(TERMINAL_STYLES)]
            spans = [(p.b_start, p.b_end, f"{style} {REWRITTEN_STYLE}") for p in match.rewritten]
            spans += [(p.b_start, p.b_end, style) for p in match.passages]
            spans += [(s, e, CHANGED_STYLE) for p in match.passages for s, e in p.b_changed]
            title = Text(
                say(
                    "terminal",
                    "panel_source",
                    lang,
                    id=printable(match.id),
                    borrowed=100 * match.borrowed,
                    used=100 * match.source_used,
                )
            )
            _print_text(console, match.text, spans, title)
    console.print(passages_table(alignment, lang=lang))
    if summary:
        console.print(Text(summary_line(alignment, lang)))
        more = more_line(alignment, lang)
        if more is not None:
            console.print(Text(more))
        meaning = UNIQUENESS_MEANING if lang == "en" else say("cli", "check_meaning", lang)
        console.print(Text(meaning, style="dim"))


# --- HTML ----------------------------------------------------------------------------------

#: How the "reference not found" note looks on the page and in the HTML report: a small red
#: label that is not part of the text (it is not selected or copied with it).
NOTE_CSS = (
    ".noref{display:inline-block;margin:0 3px;padding:0 4px;border:1px solid #b00020;"
    "border-radius:3px;color:#b00020;background:#fff;font:600 11px/1.4 system-ui,sans-serif;"
    "vertical-align:baseline;user-select:none}"
)

_CSS = (
    "\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;"
    'font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;'
    "color:#1d1d1f;background:#f6f6f4}\n"
    "header{padding:12px 20px;background:#fff;border-bottom:1px solid #ddd}\n"
    "h1{font-size:20px;margin:0 0 4px} h2{font-size:15px;margin:0;padding:8px 12px;"
    "background:#eee;border-bottom:1px solid #ddd;position:sticky;top:0}\n"
    ".summary{margin:4px 0 8px}\n"
    "table.passages{border-collapse:collapse;font-size:13px}\n"
    "table.passages th,table.passages td{border:1px solid #ddd;padding:2px 8px;"
    "text-align:right}\n"
    "table.passages td.src{text-align:left}\n"
    ".cols{display:flex;gap:12px;padding:12px 20px;height:calc(100vh - 40px);"
    "min-height:400px}\n"
    ".pane{flex:1;overflow:auto;background:#fff;border:1px solid #ddd;"
    "border-radius:6px;min-width:0}\n"
    ".sources{display:flex;flex-direction:column;gap:12px;flex:1;overflow:auto;"
    "min-width:0}\n"
    ".sources .pane{flex:none;max-height:none}\n"
    "pre.text{margin:0;padding:10px 12px;white-space:pre-wrap;word-wrap:break-word;"
    "font:14px/1.55 ui-monospace,Menlo,Consolas,monospace}\n"
    "a.frag{color:inherit;text-decoration:none;border-radius:2px;padding:1px 0;"
    "cursor:pointer}\n"
    "a.frag:hover{outline:2px solid #555}\n"
    ".anchor{scroll-margin-top:60px}\n"
    ".anchor:target+a.frag{outline:3px solid #d00;outline-offset:1px}\n"
    "a.frag.multi{box-shadow:inset 0 -3px 0 #555}\n"
    "a.frag.rew{background-image:repeating-linear-gradient(135deg,rgba(255,255,255,.65) 0 4px,"
    "transparent 4px 8px);border-bottom:2px dashed #444}\n"
    "a.frag.chg{background-image:linear-gradient(rgba(255,255,255,.6),rgba(255,255,255,.6));"
    "text-decoration:underline dotted #a00;text-underline-offset:3px}\n"
    ".legend span{display:inline-block;padding:0 6px;margin-right:6px;"
    "border-radius:3px}\n"
    ".cite{font-style:italic;border-bottom:2px solid #5b6b7b}\n"
    f"{NOTE_CSS}\n"
)


@dataclass(frozen=True)
class Mark:
    """A passage as it is drawn in one text: its span, its own id and its counterpart's."""

    start: int
    end: int
    anchor: str
    target: str
    colour: str
    title: str
    changed: tuple[tuple[int, int], ...] = ()
    #: A rewritten passage (drawn under any copied one that overlaps it).
    rewritten: bool = False


def note_html(words: str) -> str:
    """The "reference not found" note as the page and the HTML report put it in a text."""
    return f'<span class="noref">{html.escape(words, quote=False)}</span>'


def marked_text(
    text: str,
    marks: Sequence[Mark],
    cited: Sequence[tuple[int, int]] = (),
    neutral: Sequence[tuple[int, int]] = (),
    neutral_title: str = "",
    notes: Sequence[int] = (),
    note: str = "",
    cited_title: str = "citation",
) -> str:
    """``text`` escaped, with each mark's characters wrapped in links; overlapping marks split
    the text into pieces, each linking to the first mark that covers it. Pieces inside a mark's
    ``changed`` spans (edited words) get the class ``chg``; pieces inside a ``cited`` span (a
    quoted or referenced passage) get the class ``cite`` and, within a mark, the citation
    colour instead of the source's. Pieces inside a ``neutral`` span and no mark (words found
    only in sources not listed) get the class ``more``, the neutral colour and
    ``neutral_title``. At each offset of ``notes`` the words ``note`` are put in
    (:func:`note_html`, outside every link). ``cited_title``: the word a cited piece's title
    starts with (the page's language)."""
    noted = set(notes) if note else set()
    points = _cut_points(len(text), marks, (*cited, *neutral), noted)
    starting: dict[int, list[Mark]] = {}
    for m in marks:
        starting.setdefault(m.start, []).append(m)
    active: list[Mark] = []
    out: list[str] = []
    for x, y in itertools.pairwise(points):
        if x in noted:
            out.append(note_html(note))
        active = [m for m in active if m.end > x] + starting.get(x, [])
        for m in starting.get(x, []):
            out.append(f'<span class="anchor" id="{m.anchor}"></span>')
        covering = [m for m in active if m.start <= x and m.end >= y]
        in_citation = any(a <= x and y <= b for a, b in cited)
        piece = html.escape(text[x:y], quote=False)
        if covering:
            out.append(_piece(piece, x, y, covering, in_citation, cited_title))
        else:
            in_neutral = any(a <= x and y <= b for a, b in neutral)
            out.append(_unmarked(piece, in_citation, neutral_title if in_neutral else None))
    if len(text) in noted:
        out.append(note_html(note))
    if len(text) in starting:  # an empty passage at the very end cannot happen, but be exact
        out.extend(f'<span class="anchor" id="{m.anchor}"></span>' for m in starting[len(text)])
    return "".join(out)


def _cut_points(
    length: int, marks: Sequence[Mark], cited: Sequence[tuple[int, int]], noted: set[int]
) -> list[int]:
    """Where the pieces of a marked text start and end: every mark's, edit's, citation's and
    note's bounds."""
    cuts = {0, length, *noted}
    for a, b in cited:
        cuts.update((a, b))
    for m in marks:
        cuts.update((m.start, m.end))
        for a, b in m.changed:
            cuts.update((a, b))
    return sorted(c for c in cuts if 0 <= c <= length)


def _piece(
    piece: str,
    x: int,
    y: int,
    covering: list[Mark],
    in_citation: bool,
    cited_title: str = "citation",
) -> str:
    """One escaped piece ``[x, y)`` of a marked text: a link to the first mark covering it."""
    covering.sort(key=lambda m: m.rewritten)  # a copied passage is drawn over a rewritten one
    first = covering[0]
    cls = "frag multi" if len(covering) > 1 else "frag"
    if first.rewritten:
        cls += " rew"
    if any(a <= x and y <= b for a, b in first.changed):
        cls += " chg"
    colour = first.colour
    titles = [m.title for m in covering]
    if in_citation:
        cls += " cite"
        colour = CITATION_COLOUR
        titles.insert(0, cited_title)
    title = html.escape("; ".join(titles), quote=True)
    return (
        f'<a class="{cls}" href="#{first.target}" data-anchor="{first.anchor}" '
        f'style="background:{colour}" title="{title}">{piece}</a>'
    )


def _unmarked(piece: str, in_citation: bool, neutral_title: str | None) -> str:
    """A piece of text (escaped) in no mark: as it is, in a citation, or (``neutral_title``
    given) found only in sources not listed."""
    if neutral_title is not None:
        cls = "more cite" if in_citation else "more"
        title = html.escape(neutral_title, quote=True)
        return (
            f'<span class="{cls}" style="background:{MORE_COLOUR}" title="{title}">{piece}</span>'
        )
    return f'<span class="cite">{piece}</span>' if in_citation else piece


def passage_id(side: str, source_index: int, number: int | str) -> str:
    """The HTML id of passage NUMBER of source SOURCE_INDEX on SIDE ("a": the query, "b": the
    source); the two sides of a passage link to each other by it."""
    return f"{side}-{source_index}-{number}"


def render_html(
    alignment: Alignment,
    *,
    title: str = "neardup: matched fragments",
    query_title: str = "query",
    lang: str = "en",
) -> str:
    """A self-contained HTML page: the query and its sources side by side, passages highlighted
    and linked to their counterparts, a table of passages and the borrowed share; "reference
    not found" (in ``lang``) after a copied passage's unresolved reference."""
    esc = html.escape
    query_marks: list[Mark] = []
    source_sections: list[str] = []
    rows: list[str] = []
    legend: list[str] = []
    for si, match in enumerate(alignment.found):
        colour = HTML_COLOURS[si % len(HTML_COLOURS)]
        legend.append(f'<span style="background:{colour}">{esc(match.id)}</span>')
        source_marks: list[Mark] = []
        for p in match.passages:
            label = f"{match.id} #{p.number}: similarity {p.similarity:.3f}, {p.tokens_a} tokens"
            query_marks.append(
                Mark(
                    p.a_start,
                    p.a_end,
                    passage_id("a", si, p.number),
                    passage_id("b", si, p.number),
                    colour,
                    label,
                    p.a_changed,
                )
            )
            source_marks.append(
                Mark(
                    p.b_start,
                    p.b_end,
                    passage_id("b", si, p.number),
                    passage_id("a", si, p.number),
                    colour,
                    label,
                    p.b_changed,
                )
            )
            rows.append(_passage_row(si, match.id, p, colour))
        for r in match.rewritten:
            label = f"{REWRITTEN_LABEL}: {match.id} #{r.number}, similarity {r.similarity:.3f}"
            a, b = passage_id("a", si, f"r{r.number}"), passage_id("b", si, f"r{r.number}")
            query_marks.append(Mark(r.a_start, r.a_end, a, b, colour, label, rewritten=True))
            source_marks.append(Mark(r.b_start, r.b_end, b, a, colour, label, rewritten=True))
        heading = (
            f"source {esc(match.id)} — {100 * match.borrowed:.1f} % of the query, "
            f"{100 * match.source_used:.1f} % of this text, "
            f"{_count(len(match.passages), 'passage')}"
        )
        source_sections.append(
            f'<section class="pane source" id="source-{si}"><h2>{heading}</h2>'
            f'<pre class="text">{marked_text(match.text, source_marks)}</pre></section>'
        )
    query_marks.sort(key=lambda m: (m.start, m.end))
    n_passages = sum(len(s.passages) for s in alignment.found)
    cited = cited_citations(alignment)
    citation_summary = ""
    if alignment.citations is not None:
        legend.append(f'<span class="cite" style="background:{CITATION_COLOUR}">citation</span>')
        citation_summary = f', cited <b id="cited">{100 * alignment.cited:.1f} %</b>'
    notes = reference_notes(alignment)
    words = not_found_words(lang)
    if notes:
        legend.append(note_html(words))
    neutral: list[tuple[int, int]] = []
    more = more_line(alignment)
    more_summary = ""
    unlisted = say("common", "more_mark", "en")
    if alignment.more is not None and more is not None:
        neutral = list(alignment.more.spans)
        legend.append(f'<span class="more" style="background:{MORE_COLOUR}">{esc(unlisted)}</span>')
        more_summary = f'<p class="more-sources" id="more-sources">{esc(more)}</p>'
    query_html = marked_text(
        alignment.text, query_marks, cited, neutral, unlisted, notes=notes, note=words
    )

    table = ""
    if rows:
        table = (
            '<table class="passages"><thead><tr><th>source</th><th>#</th><th>query chars</th>'
            "<th>source chars</th><th>tokens</th><th>similarity</th></tr></thead><tbody>"
            + "".join(rows)
            + "</tbody></table>"
        )
    params = ", ".join(f"{esc(k)}={v}" for k, v in alignment.params.items())
    return (
        "<!DOCTYPE html>\n"
        '<html lang="ru"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        # defence in depth: the page has no script and loads nothing, so forbid both
        '<meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>"
        f"<header><h1>{esc(title)}</h1>"
        '<p class="summary" id="summary">'
        f"Uniqueness <b>{100 * alignment.uniqueness:.1f} %</b>: borrowed "
        f"<b>{100 * alignment.borrowed:.1f} %</b>{citation_summary} — "
        f"{_count(n_passages, 'passage')} from "
        f"{_count(len(alignment.found), 'source')}; {_count(alignment.tokens, 'word')} counted; "
        f"{params}</p>{more_summary}"
        f'<p class="meaning">{esc(UNIQUENESS_MEANING)}</p>'
        f'<p class="legend">{"".join(legend)}</p>{table}</header>'
        '<main class="cols">'
        f'<section class="pane" id="query"><h2>{esc(query_title)}</h2>'
        f'<pre class="text">{query_html}</pre></section>'
        f'<div class="sources">{"".join(source_sections)}</div>'
        "</main></body></html>\n"
    )


def _passage_row(si: int, source_id: str, p: Passage, colour: str) -> str:
    a, b = passage_id("a", si, p.number), passage_id("b", si, p.number)
    return (
        f'<tr><td class="src"><span style="background:{colour}">'
        f"{html.escape(source_id)}</span></td>"
        f'<td>{p.number}</td><td><a href="#{a}">{p.a_start}–{p.a_end}</a></td>'
        f'<td><a href="#{b}">{p.b_start}–{p.b_end}</a></td>'
        f"<td>{p.tokens_a}/{p.tokens_b}</td><td>{p.similarity:.3f}</td></tr>"
    )


def check_writable(path: str | os.PathLike[str]) -> None:
    """Refuse, before any work, an output path that cannot be written (InputError)."""
    name = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(name))
    if os.path.isdir(name):
        raise InputError(f"cannot write the report to {name}: it is a folder")
    if not os.path.isdir(folder):
        raise InputError(f"cannot write the report to {name}: the folder {folder} does not exist")
    target = name if os.path.exists(name) else folder
    if not os.access(target, os.W_OK):
        raise InputError(f"cannot write the report to {name}: permission denied")


def write_html(alignment: Alignment, path: Any, **options: Any) -> None:
    """Write :func:`render_html` to ``path`` (UTF-8)."""
    from pathlib import Path

    try:
        Path(path).write_text(render_html(alignment, **options), encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write the report to {path}: {exc.strerror or exc}") from None

"""HTML pieces of the page: texts with their passages marked, heat-map colours.

The marking is the HTML report's (:mod:`neardup.report.fragments`): every character of a text goes
through :func:`html.escape`, and each passage becomes a link to its counterpart
(``a-S-N`` in the checked text ↔ ``b-S-N`` in source ``S``); after the reference of a copied
passage that is not in the text's own reference list, "reference not found" in the page's
language.
"""

from __future__ import annotations

from dataclasses import dataclass

from jinja2 import pass_context
from jinja2.runtime import Context

from neardup.messages import say
from neardup.passages.align import Alignment
from neardup.report.fragments import (
    HTML_COLOURS,
    REWRITTEN_LABEL,
    Mark,
    cited_citations,
    marked_text,
    not_found_words,
    passage_id,
    reference_notes,
)
from neardup.web.i18n import DEFAULT_LANGUAGE, number, plural, reason_text, size, word


@dataclass(frozen=True)
class SourceView:
    """One source as the page shows it."""

    index: int
    id: str
    colour: str
    borrowed: float
    source_used: float
    passages: int
    html: str


@dataclass(frozen=True)
class AlignedView:
    """The checked text (marked) and its sources (marked), ready for a template."""

    query_html: str
    sources: tuple[SourceView, ...]
    passages: int
    #: Whether "reference not found" is said in the text (the legend then says what it means).
    noted: bool = False


#: A reworded passage's label on the page, by language.
REWRITTEN = {"ru": "пересказ", "en": REWRITTEN_LABEL}


def aligned_view(alignment: Alignment, lang: str = "en") -> AlignedView:
    """Mark the passages of every source in the query and in the source itself (each
    passage's label, its similarity, in ``lang``'s words and decimal separator)."""
    query_marks: list[Mark] = []
    sources: list[SourceView] = []
    for si, match in enumerate(alignment.found):
        colour = HTML_COLOURS[si % len(HTML_COLOURS)]
        source_marks: list[Mark] = []
        for p in match.passages:
            label = f"{match.id} #{p.number}: {number(p.similarity, 3, lang)}"
            a, b = passage_id("a", si, p.number), passage_id("b", si, p.number)
            query_marks.append(Mark(p.a_start, p.a_end, a, b, colour, label, p.a_changed))
            source_marks.append(Mark(p.b_start, p.b_end, b, a, colour, label, p.b_changed))
        for r in match.rewritten:  # reworded sentences: the same colour, hatched
            said = REWRITTEN.get(lang, REWRITTEN_LABEL)
            label = f"{said} {match.id} #{r.number}: {number(r.similarity, 3, lang)}"
            a, b = passage_id("a", si, f"r{r.number}"), passage_id("b", si, f"r{r.number}")
            query_marks.append(Mark(r.a_start, r.a_end, a, b, colour, label, rewritten=True))
            source_marks.append(Mark(r.b_start, r.b_end, b, a, colour, label, rewritten=True))
        sources.append(
            SourceView(
                si,
                match.id,
                colour,
                match.borrowed,
                match.source_used,
                len(match.passages) + len(match.rewritten),
                marked_text(match.text, source_marks),
            )
        )
    query_marks.sort(key=lambda m: (m.start, m.end))
    notes = reference_notes(alignment)
    return AlignedView(
        marked_text(
            alignment.text,
            query_marks,
            cited_citations(alignment),  # drawn as the check's page and the PDF draw them
            notes=notes,
            note=not_found_words(lang),
            cited_title=say("page", "legend_cited_title", lang),
        ),
        tuple(sources),
        sum(s.passages for s in sources),
        bool(notes),
    )


def heat_colour(value: float) -> str:
    """A background from pale (0) to deep red (1) for a matrix cell."""
    v = min(max(float(value), 0.0), 1.0)
    lightness = 97 - 55 * v
    return f"hsl(8, 80%, {lightness:.0f}%)"


def text_colour(value: float) -> str:
    return "#fff" if value > 0.6 else "#111"


# --- counts and numbers in the page's language (jinja globals; ``lang`` from the context) ----


@pass_context
def plural_filter(context: Context, n: float, key: str) -> str:
    """``plural(4, 'document')`` in a template: "4 документа" / "4 documents"."""
    return plural(n, key, context.get("lang", DEFAULT_LANGUAGE))


@pass_context
def number_filter(context: Context, value: float, digits: int = 0) -> str:
    """``number(0.5, 3)`` in a template: "0,500" / "0.500"."""
    return number(value, digits, context.get("lang", DEFAULT_LANGUAGE))


@pass_context
def size_filter(context: Context, nbytes: float) -> str:
    """``size(20971520)`` in a template: "20 МиБ" / "20 MiB"."""
    return size(nbytes, context.get("lang", DEFAULT_LANGUAGE))


@pass_context
def word_filter(context: Context, n: float, key: str) -> str:
    """``word(4, 'document')`` in a template: "документа" / "documents" (the word alone)."""
    return word(n, key, context.get("lang", DEFAULT_LANGUAGE))


@pass_context
def term_filter(context: Context, kind: str, name: str) -> str:
    """``term('policy', 'reject')`` in a template: a policy's, a measure's or a matrix method's
    name in the page's words (the catalog's), the name itself where it has none."""
    from neardup.messages import entry

    lang = context.get("lang", DEFAULT_LANGUAGE)
    area, key = ("page", f"method_{name}") if kind == "method" else ("terminal", f"{kind}_{name}")
    found = entry(area, key)
    return found[lang] if found is not None else name


@pass_context
def spec_line(context: Context) -> str:
    """``spec_line()`` in a template: the served collection's spec in the page's words."""
    from neardup.index.stored_spec import describe_spec

    service = context["request"].app.state.service
    return describe_spec(service.collection.spec, context.get("lang", DEFAULT_LANGUAGE))


@pass_context
def reason_filter(context: Context, reason: str, detail: str | None = None) -> str:
    """``reason_text('too_short', detail)`` in a template: a decision's reason (and a length
    refusal's detail) in the page's language."""
    return reason_text(reason, detail, context.get("lang", DEFAULT_LANGUAGE))

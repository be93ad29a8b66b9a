"""The result page of a check, drawn from its kept record (:mod:`neardup.report.check_record`): the
text and
each source with their passages marked and linked, as :mod:`neardup.web.render` marks a fresh
alignment, plus each source's title and link, and "reference not found" after the reference of
a copied passage that is not in the text's own reference list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from neardup.report.check_record import Source, reference_notes, sources_of
from neardup.report.fragments import (
    HTML_COLOURS,
    REWRITTEN_LABEL,
    Mark,
    marked_text,
    not_found_words,
    passage_id,
)
from neardup.web.i18n import number
from neardup.web.render import REWRITTEN


@dataclass(frozen=True)
class KeptSourceView:
    """One source as the page shows it."""

    index: int
    id: str
    name: str
    url: str
    colour: str
    borrowed: float
    source_used: float
    passages: int
    resemblance: float
    in_doc: float
    in_text: float
    html: str


@dataclass(frozen=True)
class KeptView:
    """The checked text (marked) and its sources (marked), ready for a template."""

    query_html: str
    sources: tuple[KeptSourceView, ...]
    passages: int
    tricks: dict[str, Any] | None


def _marks(source: Source, colour: str, lang: str) -> tuple[list[Mark], list[Mark]]:
    query: list[Mark] = []
    own: list[Mark] = []
    si = source.index
    for span in source.spans:
        a, b = passage_id("a", si, span.number), passage_id("b", si, span.number)
        label = f"{source.name} #{span.number.lstrip('r')}: {number(span.similarity, 3, lang)}"
        if span.rewritten:
            label = f"{REWRITTEN.get(lang, REWRITTEN_LABEL)} {label}"
        query.append(
            Mark(span.a_start, span.a_end, a, b, colour, label, span.a_changed, span.rewritten)
        )
        own.append(
            Mark(span.b_start, span.b_end, b, a, colour, label, span.b_changed, span.rewritten)
        )
    return query, own


def kept_view(text: str, record: Mapping[str, Any], lang: str = "en") -> KeptView:
    """Mark the passages of every source of ``record`` in ``text`` and in the source (each
    passage's label, its similarity, in ``lang``'s words and decimal separator)."""
    query_marks: list[Mark] = []
    views: list[KeptSourceView] = []
    for source in sources_of(record):
        colour = HTML_COLOURS[source.index % len(HTML_COLOURS)]
        query, own = _marks(source, colour, lang)
        query_marks += query
        views.append(
            KeptSourceView(
                source.index,
                source.id,
                source.name,
                source.url,
                colour,
                source.borrowed,
                source.source_used,
                len(source.spans),
                source.resemblance,
                source.in_doc,
                source.in_text,
                marked_text(source.text, own),
            )
        )
    query_marks.sort(key=lambda m: (m.start, m.end))
    found = (record.get("suspicious") or {}).get("tricks") or []
    tricks = (
        {"suspicious": bool(record["suspicious"].get("flag")), "found": found} if found else None
    )
    return KeptView(
        marked_text(text, query_marks, notes=reference_notes(record), note=not_found_words(lang)),
        tuple(views),
        sum(v.passages for v in views),
        tricks,
    )


def when(created: float) -> str:
    """A kept check's time, UTC, to the minute."""
    return datetime.fromtimestamp(created, UTC).strftime("%Y-%m-%d %H:%M UTC")

"""The result page of a check, drawn from its kept record (:mod:`neardup.report.check_record`): the
text and
each source with their passages marked and linked, as :mod:`neardup.web.render` marks a fresh
alignment, plus each source's title and link; the sources the figure counted but the check did
not list are one row, and the words found only in them are on a neutral colour. "Reference not
found" follows the reference of a copied passage that is not in the text's own reference list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from neardup.messages import say
from neardup.report.check_record import (
    Source,
    cited_spans,
    limit_notes,
    more_of,
    reference_notes,
    sources_of,
)
from neardup.report.fragments import (
    HTML_COLOURS,
    MORE_COLOUR,
    REWRITTEN_LABEL,
    Mark,
    marked_text,
    not_found_words,
    passage_id,
)
from neardup.web.i18n import number, plural
from neardup.web.render import REWRITTEN

if TYPE_CHECKING:
    from neardup.web.service import Service


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
class KeptMoreView:
    """The row of the sources counted but not listed: its words, colour, share, passages."""

    label: str
    colour: str
    share: float
    passages: int


@dataclass(frozen=True)
class KeptView:
    """The checked text (marked) and its sources (marked), ready for a template; ``more``: the
    sources counted but not listed, ``limited``: the note of a check that reached the work
    limit (empty when it did not)."""

    query_html: str
    sources: tuple[KeptSourceView, ...]
    passages: int
    tricks: dict[str, Any] | None
    more: KeptMoreView | None = None
    limited: str = ""
    #: Whether "reference not found" is said in the text (then the legend says what it means).
    noted: bool = False


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
    more = more_of(record)
    more_view = None
    if more is not None:
        label = say("page", "more_sources", lang, n=plural(more.sources, "source", lang))
        more_view = KeptMoreView(label, MORE_COLOUR, more.share, more.passages)
    unlisted = say("page", "more_mark", lang)
    notes = reference_notes(record)
    return KeptView(
        marked_text(
            text,
            query_marks,
            cited_spans(record),  # drawn as the PDF and the HTML report draw them
            more.spans if more else (),
            unlisted,
            notes=notes,
            note=not_found_words(lang),
            cited_title=say("page", "legend_cited_title", lang),
        ),
        tuple(views),
        sum(v.passages for v in views),
        tricks,
        more_view,
        limited_note(record, lang),
        bool(notes),
    )


def limited_note(record: Mapping[str, Any], lang: str) -> str:
    """The notes of a check whose figure reached a work limit ("" when it did not)."""
    return " ".join(limit_notes(record, lang))


def when(created: float) -> str:
    """A kept check's time, UTC, to the minute: what the page shows until its script puts the
    reader's local date and time in (from :func:`when_iso`)."""
    return datetime.fromtimestamp(created, UTC).strftime("%Y-%m-%d %H:%M UTC")


def when_iso(created: float) -> str:
    """A kept check's time as ISO 8601 in UTC (a ``<time datetime>``, read by the page's
    script to show the reader's local form)."""
    return datetime.fromtimestamp(created, UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class ExcludedView:
    """A source a check left out: its id (what the form sends back) and its name (the title
    when its metadata gives one, else the id)."""

    id: str
    name: str


def excluded_view(ids: list[str], info: Mapping[str, Mapping[str, str]]) -> list[ExcludedView]:
    """The sources a check left out, by title (``info``: ``{id: {"title", "url"}}``)."""
    return [ExcludedView(i, (info.get(i) or {}).get("title") or i) for i in ids]


def excluded_sources(service: Service, ids: list[str]) -> list[ExcludedView]:
    """The sources a check left out, their titles read from the collection (under the
    service's lock, as every read of its storage); a source no longer stored shows its id."""
    if not ids:
        return []
    from neardup.report.check_record import source_info

    with service.lock:
        info = source_info(service.collection, ids)
    return excluded_view(ids, info)

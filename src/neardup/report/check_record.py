"""A check as it is kept and reported: one JSON record the page, the API and the PDF report are
all drawn from.

The record is :meth:`neardup.index.CheckResult.to_dict` with the passages (``fragments``) and
two additions: each source's stored text (``fragments.sources[i].text``, so the page can mark
the passages in it) and ``source_info``, the ``title`` and ``url`` a stored document's metadata
gives (a URL only when it is ``http``/``https``: it becomes a link). The checked text itself is
kept beside the record. The sources the figure counted but the check did not list (past
``top``) are kept as ``fragments.more_sources`` — how many, the share of the text found only in
them and its spans (:func:`more_of`) — so a kept check is drawn again as it was first shown.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from neardup.index import CheckResult
from neardup.index.results import SAID_ONCE
from neardup.passages.citations import unresolved_notes

#: Metadata keys read as a source's title, first found wins.
TITLE_KEYS = ("title", "name")
#: Metadata keys read as a source's address.
URL_KEYS = ("url", "link", "href")


def safe_url(value: object) -> str:
    """``value`` if it is an absolute http(s) URL of printable characters, else empty."""
    if not isinstance(value, str) or len(value) > 2000:
        return ""
    url = value.strip()
    if any(ord(c) < 33 or c in "<>\"'\\" for c in url):
        return ""
    parts = urlsplit(url)
    return url if parts.scheme.lower() in ("http", "https") and parts.netloc else ""


def info_of(meta: Mapping[str, Any]) -> dict[str, str]:
    """The ``title`` and ``url`` of a document's metadata (each only when there)."""
    out: dict[str, str] = {}
    for key in TITLE_KEYS:
        value = meta.get(key)
        if isinstance(value, str) and value.strip():
            out["title"] = " ".join(value.split())[:300]
            break
    for key in URL_KEYS:
        url = safe_url(meta.get(key))
        if url:
            out["url"] = url
            break
    return out


def source_info(collection: Any, ids: Iterable[str]) -> dict[str, dict[str, str]]:
    """``{id: {"title", "url"}}`` of the stored documents ``ids`` that have either."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    storage = collection.storage
    keys = storage.keys_for_ids(wanted)
    out: dict[str, dict[str, str]] = {}
    for doc in storage.docs(sorted(keys.values()), meta=True):
        info = info_of(doc.meta or {})
        if info:
            out[doc.id] = info
    return out


def check_record(
    result: CheckResult,
    info: Mapping[str, Mapping[str, str]] | None = None,
    exclude: Iterable[str] = (),
) -> dict[str, Any]:
    """The JSON a check is kept as (see the module's docstring); ``exclude``: the ids the
    check left out."""
    out = result.to_dict()
    if result.alignment is not None:
        fragments = result.alignment.to_dict(with_text=True)
        for key in (*SAID_ONCE, "text"):
            fragments.pop(key, None)
        out["fragments"] = fragments
    found = {m["id"] for m in out["matches"]}
    out["source_info"] = {k: dict(v) for k, v in (info or {}).items() if k in found}
    out["exclude"] = sorted(set(exclude))
    return out


def collection_name(location: str) -> str:
    """A collection's name to show to anyone: a SQLite file's name without its folder and
    suffix, a PostgreSQL collection's schema, never a path or a password."""
    if location.startswith(("postgresql://", "postgres://")):
        from urllib.parse import parse_qs

        query = urlsplit(location).query
        return parse_qs(query).get("schema", ["neardup"])[0]
    if location.startswith("memory:") or not location:
        return "memory"
    stem = os.path.splitext(os.path.basename(location.rstrip("/\\")))[0]
    return stem or "collection"


@dataclass(frozen=True)
class Span:
    """A passage as a report draws it: its spans in the text (``a``) and the source (``b``)."""

    number: str
    a_start: int
    a_end: int
    b_start: int
    b_end: int
    similarity: float
    rewritten: bool
    a_changed: tuple[tuple[int, int], ...] = ()
    b_changed: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Source:
    """One source of a kept check: its id, its name and link, its shares and passages."""

    index: int
    id: str
    title: str
    url: str
    borrowed: float
    source_used: float
    text: str
    spans: tuple[Span, ...]
    resemblance: float = 0.0
    in_doc: float = 0.0
    in_text: float = 0.0

    @property
    def name(self) -> str:
        """The title when the metadata gives one, else the id."""
        return self.title or self.id


def _pairs(value: Any) -> tuple[tuple[int, int], ...]:
    return tuple((int(a), int(b)) for a, b in value or ())


#: What reading a record's values can raise when the record is not what :func:`check_record`
#: made (a kept row damaged): a missing key, a value of another kind, a number out of range.
_UNREADABLE = (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError)
#: The shares a record gives (each a number from 0 to 1).
_SHARES = ("uniqueness", "borrowed", "cited")


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def record_damage(record: Mapping[str, Any]) -> str | None:
    """What makes a kept ``record`` unreadable by the page and the PDF report (a value missing
    or of another kind), or ``None`` when it reads."""
    for key in _SHARES:
        value = record.get(key, 0.0)
        if not _is_number(value) or not 0.0 <= value <= 1.0:
            return f"its {key} is not a share"
    if not _is_number(record.get("words", 0)):
        return "its word count is not a number"
    decision = record.get("decision")
    if not isinstance(decision, dict) or not isinstance(decision.get("reason"), str):
        return "its decision cannot be read"
    if not isinstance(decision.get("detail", ""), str):
        return "its decision cannot be read"
    suspicious = record.get("suspicious") or {}
    tricks = suspicious.get("tricks") if isinstance(suspicious, dict) else None
    if not isinstance(tricks or [], list) or not all(isinstance(t, dict) for t in tricks or []):
        return "its tricks cannot be read"
    exclude = record.get("exclude") or []
    if not isinstance(exclude, list) or not all(isinstance(e, str) for e in exclude):
        return "its excluded sources cannot be read"
    try:
        sources_of(record)
        cited_spans(record)
    except _UNREADABLE:
        return "its passages cannot be read"
    return None


def sources_of(record: Mapping[str, Any]) -> list[Source]:
    """The sources of a kept record, in the order the check listed them."""
    info = record.get("source_info") or {}
    scores = {str(m["id"]): m for m in record.get("matches", [])}
    out: list[Source] = []
    for si, s in enumerate((record.get("fragments") or {}).get("sources", [])):
        spans = [
            Span(
                str(p["number"]),
                int(p["a_start"]),
                int(p["a_end"]),
                int(p["b_start"]),
                int(p["b_end"]),
                float(p["similarity"]),
                False,
                _pairs(p.get("a_changed")),
                _pairs(p.get("b_changed")),
            )
            for p in s.get("passages", [])
        ]
        spans += [
            Span(
                f"r{p['number']}",
                int(p["a_start"]),
                int(p["a_end"]),
                int(p["b_start"]),
                int(p["b_end"]),
                float(p["similarity"]),
                True,
            )
            for p in s.get("rewritten", [])
        ]
        meta = info.get(s["id"], {})
        m = scores.get(s["id"], {})
        out.append(
            Source(
                si,
                str(s["id"]),
                str(meta.get("title", "")),
                safe_url(meta.get("url", "")),
                float(s["borrowed"]),
                float(s["source_used"]),
                str(s.get("text", "")),
                tuple(spans),
                float(m.get("resemblance", 0.0)),
                float(m.get("containment_query_in_doc", 0.0)),
                float(m.get("containment_doc_in_query", 0.0)),
            )
        )
    return out


def cited_spans(record: Mapping[str, Any]) -> list[tuple[int, int]]:
    """The text's citations that count as cited (quoted or referenced spans; a record kept
    before citations had a status counts them all)."""
    found = (record.get("fragments") or {}).get("citations") or []
    return [(int(c["start"]), int(c["end"])) for c in found if c.get("status", "cited") == "cited"]


def reference_notes(record: Mapping[str, Any]) -> list[int]:
    """Where "reference not found" goes in the text: after each unresolved reference of a
    copied or rewritten passage (:func:`neardup.passages.citations.unresolved_notes`)."""
    fragments = record.get("fragments") or {}
    found = [
        (int(c["start"]), int(c["end"]), str(c.get("status", "cited")))
        for c in fragments.get("citations") or []
    ]
    passages = [
        (int(p["a_start"]), int(p["a_end"]))
        for s in fragments.get("sources", [])
        for p in (*s.get("passages", []), *s.get("rewritten", []))
    ]
    return unresolved_notes(found, passages)


@dataclass(frozen=True)
class More:
    """The sources a kept check counted in its figure but did not list: how many, their
    passages, the share of the text found only in them and where it lies (its spans)."""

    sources: int
    passages: int
    share: float
    spans: tuple[tuple[int, int], ...]


def limit_notes(record: Mapping[str, Any], lang: str) -> list[str]:
    """What a kept check says of the work limits its figure reached (the candidates, the
    sources aligned), in ``lang``; none when it reached none."""
    from neardup.defaults import COUNTED_CHARACTERS_MAX, COUNTED_SOURCES_MAX
    from neardup.messages import number, plural, say

    notes = []
    if record.get("candidates_capped"):
        notes.append(say("common", "capped", lang, n=number(int(record["candidates"]), 0, lang)))
    if record.get("sources_uncounted"):
        notes.append(
            say(
                "common",
                "limited",
                lang,
                counted=plural(int(record.get("sources_counted", 0)), "source", lang),
                uncounted=number(int(record["sources_uncounted"]), 0, lang),
                sources=plural(COUNTED_SOURCES_MAX, "source", lang),
                characters=plural(COUNTED_CHARACTERS_MAX, "character", lang),
            )
        )
    return notes


def more_of(record: Mapping[str, Any]) -> More | None:
    """The sources counted but not listed of a kept record, if any."""
    found = (record.get("fragments") or {}).get("more_sources")
    if not found or not int(found.get("sources", 0)):
        return None
    return More(
        int(found["sources"]),
        int(found.get("passages", 0)),
        float(found.get("share", 0.0)),
        _pairs(found.get("spans")),
    )

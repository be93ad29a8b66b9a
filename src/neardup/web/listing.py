"""The collection page's list of documents: paged, searchable by id or title, one group at a
time; read in batches of ids and metadata (never the texts) through
:meth:`Storage.iter_docs <neardup.storage.base.Storage.iter_docs>`, the service's lock held
for one batch at a time so that checks and adds go on meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from neardup.web.service import Service


@dataclass(frozen=True)
class Listed:
    """One document in the list."""

    id: str
    title: str | None
    group: int
    shingles: int


@dataclass(frozen=True)
class DocumentsPage:
    """A page of the list: its documents, how many matched, the page and the page count."""

    documents: tuple[Listed, ...]
    matched: int
    page: int
    pages: int


def _title(meta: dict[str, Any]) -> str | None:
    title = meta.get("title")
    return title if isinstance(title, str) and title else None


def documents_page(
    service: Service,
    *,
    q: str = "",
    page: int = 1,
    per_page: int = 50,
    group: int | None = None,
    batch_size: int = 1000,
) -> DocumentsPage:
    """The documents on page ``page`` (from 1) of those whose id or title holds ``q`` (any
    case) and, with ``group``, that are in that group; in the order they were added."""
    needle = q.strip().casefold()
    first = (page - 1) * per_page
    kept: list[Listed] = []
    matched = 0
    batches = service.collection.storage.iter_docs(text=False, batch_size=batch_size)
    while True:
        with service.lock:
            batch = next(batches, None)
        if batch is None:
            break
        for doc in batch:
            if group is not None and doc.group != group:
                continue
            title = _title(doc.meta)
            if needle and needle not in doc.id.casefold():
                if title is None or needle not in title.casefold():
                    continue
            if first <= matched < first + per_page:
                kept.append(Listed(doc.id, title, doc.group, doc.size))
            matched += 1
    pages = max(1, -(-matched // per_page))
    return DocumentsPage(tuple(kept), matched, page, pages)

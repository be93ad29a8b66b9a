"""The items given to ``add``: their fields, and the checks that every backend can store their id,
meta and text (nothing is replaced; what cannot be stored is refused), read in batches.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from neardup.errors import InputError
from neardup.fingerprints.pipeline import TextLike
from neardup.index.results import IndexableText


def item_fields(obj: Any) -> tuple[str, Any, Mapping[str, Any]]:
    """``(id, text, meta)`` from a tuple/list, a mapping or an object with those attributes."""
    if isinstance(obj, tuple | list):
        if len(obj) == 2:
            return obj[0], obj[1], {}
        if len(obj) == 3:
            return obj[0], obj[1], {} if obj[2] is None else obj[2]
        raise InputError(f"an item to add is (id, text) or (id, text, meta), got {len(obj)} fields")
    if isinstance(obj, Mapping):
        try:
            return obj["id"], obj["text"], obj.get("meta") or {}
        except KeyError as exc:
            raise InputError(f"an item to add needs the key {exc.args[0]!r}") from None
    if hasattr(obj, "id") and hasattr(obj, "text"):
        return obj.id, obj.text, getattr(obj, "meta", None) or {}
    raise InputError(f"cannot add a {type(obj).__name__}: expected (id, text[, meta])")


def unstorable(text: str) -> str | None:
    """Why ``text`` cannot be stored the same way by every backend, or ``None`` if it can.

    One rule for all backends: a NUL character (PostgreSQL's text refuses it) and a lone
    surrogate (not encodable as UTF-8) are refused, never replaced.
    """
    nul = text.find("\x00")
    if nul >= 0:
        return f"a NUL character at offset {nul}"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"a lone surrogate U+{ord(text[exc.start]):04X} at offset {exc.start}"
    return None


def check_id(doc_id: Any) -> str:
    """``doc_id`` if every backend can store it as an id (else InputError naming it)."""
    if not isinstance(doc_id, str) or not doc_id:
        raise InputError(f"a document id must be a non-empty string, got {doc_id!r}")
    problem = unstorable(doc_id)
    if problem:
        raise InputError(f"the document id {doc_id!r} holds {problem}; it cannot be stored")
    return doc_id


def check_text(doc_id: str, text: str, what: str = "text") -> None:
    problem = unstorable(text)
    if problem:
        raise InputError(f"the {what} of the document {doc_id!r} holds {problem}; refused")


def check_meta(doc_id: str, meta: Any) -> None:
    if not isinstance(meta, Mapping):
        raise InputError(f"meta of {doc_id!r} must be a mapping, got {type(meta).__name__}")
    if not meta:
        return
    try:
        check_text(doc_id, json.dumps(dict(meta), ensure_ascii=False), "meta")
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"meta of {doc_id!r} is not JSON-serializable: {exc}") from None


Item = tuple[str, "TextLike | IndexableText", Mapping[str, Any]]


def read_batches(items: Iterable[Any], batch_size: int) -> Iterator[list[Item]]:
    """``(id, text[, meta])`` items, checked (id, meta, a storable text), in lists of
    ``batch_size``."""
    batch: list[Item] = []
    for obj in items:
        doc_id, text, meta = item_fields(obj)
        doc_id = check_id(doc_id)
        check_meta(doc_id, meta)
        if isinstance(text, str):
            check_text(doc_id, text)
        batch.append((doc_id, text, meta))
        if len(batch) >= batch_size:
            yield batch
            batch = []
    if batch:
        yield batch

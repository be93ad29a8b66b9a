"""Kept checks' shared types: :class:`KeptCheck`, :class:`KeptSummary`, the
:class:`CheckStore` protocol and the helpers every store uses (preview, ids, owner digests).

The stores (:mod:`neardup.storage.checks_memory`, :mod:`neardup.storage.checks_sql`) build on
this module; :func:`neardup.storage.checks.check_store`, above them, picks one for a
collection's storage.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from neardup.errors import InputError

#: Characters of the text a listing shows.
PREVIEW = 120
#: A lone surrogate: ``json.dumps(..., ensure_ascii=False)`` leaves it raw, and no backend
#: stores it, so the body escapes it (only it: a Cyrillic letter escaped takes 6 bytes, not 2).
_SURROGATE = re.compile(r"[\ud800-\udfff]")


@dataclass(frozen=True)
class KeptCheck:
    """One kept check. ``created``: seconds since the epoch (UTC); ``result``: the JSON the page
    and the report are drawn from; ``name``: the uploaded file's name, or empty."""

    id: str
    created: float
    owner: str
    name: str
    spec: str
    text: str
    result: dict[str, Any]

    @property
    def uniqueness(self) -> float:
        return float(self.result.get("uniqueness", 1.0))

    def summary(self) -> KeptSummary:
        return KeptSummary(
            self.id, self.created, self.owner, self.name, self.uniqueness, preview(self.text)
        )

    def body(self) -> str:
        """The text and the result as one JSON string in UTF-8: control characters (NUL among
        them) and lone surrogates escaped, so any text a check took is stored as it is on every
        backend; bodies stored escaped to ASCII by earlier versions read the same."""
        raw = json.dumps({"text": self.text, "result": self.result}, ensure_ascii=False)
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", raw)

    @classmethod
    def from_row(
        cls, id: str, created: float, owner: str, name: str, spec: str, body: str
    ) -> KeptCheck:
        data = json.loads(body)
        return cls(id, float(created), owner, name, spec, data["text"], data["result"])

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created": self.created,
            "name": self.name,
            "spec": self.spec,
            "text": self.text,
            "result": self.result,
        }


@dataclass(frozen=True)
class KeptSummary:
    """A kept check as a history lists it."""

    id: str
    created: float
    owner: str
    name: str
    uniqueness: float
    preview: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created": self.created,
            "name": self.name,
            "uniqueness": round(self.uniqueness, 6),
            "preview": self.preview,
        }


def preview(text: str) -> str:
    """The first words of a text on one line."""
    line = " ".join(text.split())
    return line if len(line) <= PREVIEW else line[: PREVIEW - 1].rstrip() + "…"


def plain_text(value: str) -> str:
    """A text column's value: no NUL and no lone surrogate, which some backends refuse (the
    body, JSON escaped to ASCII, keeps the exact text)."""
    return value.replace("\x00", "\ufffd").encode("utf-8", "replace").decode("utf-8")


def new_check_id() -> str:
    """An unguessable id (128 random bits, URL-safe)."""
    return secrets.token_urlsafe(16)


def owner_digest(key: str | None) -> str:
    """What is stored of a browser's key: its SHA-256 (the key itself stays in the cookie)."""
    if not key:
        return ""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def valid_id(check_id: str) -> str:
    """``check_id`` if it could be one of ours (URL-safe base64, at most 64 characters)."""
    if not check_id or len(check_id) > 64 or not all(c.isalnum() or c in "-_" for c in check_id):
        raise InputError(f"{check_id[:80]!r} is not a check id")
    return check_id


@runtime_checkable
class CheckStore(Protocol):
    """Where kept checks live: keep, get, list (newest first), delete, and purge old ones."""

    def keep(self, check: KeptCheck) -> None:
        """Store a new check (its id must be new)."""
        ...

    def get(self, check_id: str) -> KeptCheck | None:
        """The check of that id, or None."""
        ...

    def list(
        self, *, owner: str | None = None, limit: int = 100, offset: int = 0
    ) -> Sequence[KeptSummary]:
        """Kept checks, newest first (then by id); ``owner``: only that owner's."""
        ...

    def delete(self, check_id: str) -> bool:
        """Remove a check; whether it was there."""
        ...

    def purge(self, before: float) -> int:
        """Remove the checks made before ``before`` (seconds since the epoch); how many."""
        ...

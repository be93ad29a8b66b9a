"""Kept checks' shared types: :class:`KeptCheck`, :class:`KeptSummary`, the
:class:`CheckStore` protocol and the helpers every store uses (preview, ids, owner digests).

The stores (:mod:`neardup.storage.checks_memory`, :mod:`neardup.storage.checks_sql`) build on
this module; :func:`neardup.storage.checks.check_store`, above them, picks one for a
collection's storage.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from neardup.errors import DamagedCheckError, InputError

#: Characters of the text a listing shows.
PREVIEW = 120
#: A lone surrogate: ``json.dumps(..., ensure_ascii=False)`` leaves it raw, and no backend
#: stores it, so the body escapes it (only it: a Cyrillic letter escaped takes 6 bytes, not 2).
_SURROGATE = re.compile(r"[\ud800-\udfff]")
#: The latest time a kept check may carry (the start of the year 10000, UTC): past it, no date
#: can be written for it.
LATEST = 253402300800.0


def _damaged(check_id: object, why: str) -> DamagedCheckError:
    shown = check_id if isinstance(check_id, str) else "?"
    return DamagedCheckError(
        f"the kept check {shown[:80]!r} is damaged ({why}); it cannot be shown, only removed",
        params={"id": shown[:80], "why": why},
    )


def stored_text(value: object) -> str | None:
    """A text column's value as stored: ``None`` unless it is text (a SQLite column can hold
    any kind of value; bytes are read as strict UTF-8)."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return value if isinstance(value, str) else None


def stored_time(value: object) -> float | None:
    """A ``created`` column's value as a time a date can be written for, else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    created = float(value)
    return created if math.isfinite(created) and 0.0 <= created < LATEST else None


def stored_share(value: object) -> float | None:
    """A uniqueness (a share, 0 to 1) as stored, else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    share = float(value)
    return share if 0.0 <= share <= 1.0 else None


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
        share = stored_share(self.result.get("uniqueness", 1.0))
        return 1.0 if share is None else share

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
        cls, id: object, created: object, owner: object, name: object, spec: object, body: object
    ) -> KeptCheck:
        """A check from its stored row, each value as the store gave it; a row that is not what
        :meth:`body` and the store wrote is refused with :class:`DamagedCheckError` naming the
        check and what is wrong."""
        check_id = stored_text(id)
        if check_id is None:
            raise _damaged(id, "its id is not text")
        when = stored_time(created)
        if when is None:
            raise _damaged(check_id, "its time is not a date")
        columns = {
            "owner": stored_text(owner),
            "name": stored_text(name),
            "spec": stored_text(spec),
        }
        for column, value in columns.items():
            if value is None:
                raise _damaged(check_id, f"its {column} is not text")
        raw = stored_text(body)
        if raw is None:
            raise _damaged(check_id, "its body is not text")
        try:
            data = json.loads(raw)
        except ValueError:  # JSONDecodeError, and a number too long to read
            raise _damaged(check_id, "its body is not JSON") from None
        except RecursionError:
            raise _damaged(check_id, "its body is nested too deep") from None
        if not isinstance(data, dict):
            raise _damaged(check_id, "its body is not a JSON object")
        text, result = data.get("text"), data.get("result")
        if not isinstance(text, str):
            raise _damaged(check_id, "its body holds no text")
        if not isinstance(result, dict):
            raise _damaged(check_id, "its body holds no result")
        return cls(
            check_id,
            when,
            columns["owner"] or "",
            columns["name"] or "",
            columns["spec"] or "",
            text,
            result,
        )

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
    """A kept check as a history lists it. ``damaged``: its row holds a value of the wrong
    kind (what could not be read is listed as 0 or empty); it is listed so that it can be
    removed."""

    id: str
    created: float
    owner: str
    name: str
    uniqueness: float
    preview: str
    damaged: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "created": self.created,
            "name": self.name,
            "uniqueness": round(self.uniqueness, 6),
            "preview": self.preview,
        }
        if self.damaged:
            out["damaged"] = True
        return out

    @classmethod
    def from_row(
        cls, id: str, created: object, owner: object, name: object, share: object, shown: object
    ) -> KeptSummary:
        """A listing's row as the store gave it, marked ``damaged`` when a value is not of its
        kind."""
        values = (stored_time(created), stored_text(owner), stored_text(name))
        more = (stored_share(share), stored_text(shown))
        return cls(
            id,
            values[0] or 0.0,
            values[1] or "",
            values[2] or "",
            more[0] or 0.0,
            more[1] or "",
            damaged=any(v is None for v in (*values, *more)),
        )


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
        """The check of that id, or None; :class:`DamagedCheckError` when its row cannot be
        read back."""
        ...

    def owner(self, check_id: str) -> str | None:
        """Who made the check of that id (``""`` when no one, or when its owner cannot be
        read), or None when there is none: what its removal needs, read even from a damaged
        row."""
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
        """Remove the checks made before ``before`` (seconds since the epoch); how many.
        The marks of checks removed for room (:meth:`evict`) that old go too."""
        ...

    def sizes(self, owner: str | None = None) -> Sequence[tuple[str, int]]:
        """``(id, bytes of its stored row)`` of every check (``owner``: that owner's), newest
        first: what the quotas count."""
        ...

    def evict(self, ids: Sequence[str], when: float) -> int:
        """Remove these checks for room, and mark them gone at ``when`` (so that their page
        says why); how many were there."""
        ...

    def gone(self, check_id: str) -> bool:
        """Whether a check of that id was removed for room (and its mark is not yet purged)."""
        ...


# --- the sources' texts, stored once --------------------------------------------------------------
#: Where a kept result names a source's text stored apart (its SHA-256).
TEXT_REF = "text_sha256"


def _sources(result: dict[str, Any]) -> list[Any]:
    fragments = result.get("fragments")
    sources = fragments.get("sources") if isinstance(fragments, dict) else None
    return sources if isinstance(sources, list) else []


def shared_sources(result: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """``result`` with each source's text replaced by its digest (:data:`TEXT_REF`), and the
    texts by digest: a source shown by many checks is stored once."""
    texts: dict[str, str] = {}
    sources = []
    for source in _sources(result):
        if isinstance(source, dict) and isinstance(source.get("text"), str):
            text = source["text"]
            digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
            texts[digest] = text
            source = {k: v for k, v in source.items() if k != "text"} | {TEXT_REF: digest}
        sources.append(source)
    if not texts:
        return result, {}
    fragments = {**result["fragments"], "sources": sources}
    return {**result, "fragments": fragments}, texts


def referenced_sources(result: dict[str, Any]) -> set[str]:
    """The digests of the sources' texts a kept result names."""
    return {
        s[TEXT_REF]
        for s in _sources(result)
        if isinstance(s, dict) and isinstance(s.get(TEXT_REF), str)
    }


def restore_sources(result: dict[str, Any], texts: dict[str, str]) -> dict[str, Any]:
    """``result`` with each source's text put back from ``texts``; a text not found stays
    out (the result then reads as damaged, as a row missing a source's text would)."""
    sources = []
    for source in _sources(result):
        if isinstance(source, dict) and TEXT_REF in source:
            digest = source[TEXT_REF]
            source = {k: v for k, v in source.items() if k != TEXT_REF}
            if digest in texts:
                source["text"] = texts[digest]
        sources.append(source)
    fragments = {**result["fragments"], "sources": sources}
    return {**result, "fragments": fragments}

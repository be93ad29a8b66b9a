"""A benchmark's own section of a docs page, rewritten by its ``--update-docs``."""

from __future__ import annotations

from pathlib import Path


def rewrite_section(
    path: Path,
    start: str,
    end: str,
    body: str,
    *,
    keep: str | None = None,
    missing_before: str | None = None,
) -> None:
    """Put ``body`` between the markers ``start`` and ``end`` of ``path``, in place of what
    stood there. With ``keep``, the hand-written notes from that marker to ``end`` stay after
    ``body``. A page without the markers gets the section before the line ``missing_before``
    (when given and present) or at its end."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if start in text and end in text:
        a = text.index(start) + len(start)
        b = text.index(end, a)
        notes = ""
        if keep is not None:
            notes = "\n" + (text[text.index(keep, a, b) : b] if keep in text[a:b] else "")
        text = text[:a] + "\n" + body.strip() + "\n" + notes + text[b:]
    else:
        block = f"{start}\n{body.strip()}\n{end}\n"
        if missing_before is not None and missing_before in text:
            at = text.index(missing_before)
            text = text[:at] + block + "\n" + text[at:]
        else:
            text = f"{text.rstrip()}\n\n{block}"
    path.write_text(text, encoding="utf-8")

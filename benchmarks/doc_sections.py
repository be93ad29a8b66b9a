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
    ``body``. The docs are split by topic, so a section may live on another page of the same
    folder than the one a script names: the page that holds both markers is the one written.
    When no page holds them, ``path`` gets the section before the line ``missing_before``
    (when given and present) or at its end."""
    path = page_with(path, start, end)
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


def page_with(path: Path, start: str, end: str) -> Path:
    """``path`` if it holds both markers, else the page of its folder that does, else ``path``."""
    for page in [path, *sorted(path.parent.glob("*.md"))]:
        if page.exists():
            text = page.read_text(encoding="utf-8")
            if start in text and end in text:
                return page
    return path

"""What ``neardup index check`` says besides its table: the verdict line, what the sources
counted but not listed add, the reports it writes (HTML, PDF) and a note on a collection made
before the current defaults."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import click

from neardup.cli import messages as msg
from neardup.defaults import COUNTED_CHARACTERS_MAX, COUNTED_SOURCES_MAX
from neardup.errors import InputError
from neardup.report.fragments import check_writable, markup_safe

if TYPE_CHECKING:
    from rich.console import Console

    from neardup.index import CheckResult, Collection


def note_old_lookup(col: Any) -> None:
    """Say on stderr when the collection looks up only its samples (made before lookup by
    shingles: window 24): it finds fewer short pastes than a new one would."""
    spec = col.index_spec
    if spec.candidates == "winnow" and spec.lookup == "samples":
        click.echo(msg.say("note_old_lookup", window=spec.window), err=True)


def verdict_of(result: CheckResult) -> str:
    """Whether the checked text would be added, and why, in the CLI's language."""
    if result.would.accepted:
        return msg.say("check_would_add")
    detail = f": {markup_safe(result.would.detail)}" if result.would.detail else ""
    return msg.say("check_would_refuse", reason=msg.reason(str(result.would.reason)), detail=detail)


def print_not_listed(console: Console, result: CheckResult) -> None:
    """Under the table: what the sources counted but not listed (past ``--top``) add to the
    figure, and a note when the figure reached a work limit of one check (the candidates, the
    sources aligned)."""
    more = result.alignment.more if result.alignment is not None else None
    if more is not None:
        line = msg.say("check_more_sources", n=more.sources, share=100 * more.share)
        console.print(line, markup=False, highlight=False)
    if result.candidates_capped:
        capped = msg.say("check_capped", n=result.candidates)
        console.print(capped, style="yellow", markup=False, highlight=False)
    if result.sources_uncounted:
        limited = msg.say(
            "check_limited",
            counted=result.sources_counted,
            uncounted=result.sources_uncounted,
            max_sources=COUNTED_SOURCES_MAX,
            max_characters=COUNTED_CHARACTERS_MAX,
        )
        console.print(limited, style="yellow", markup=False, highlight=False)


def outputs_ready(html_report: str | None, pdf_report: str | None, font: str | None) -> None:
    """Fail before the check, not after it, on a report that cannot be written."""
    for path in (html_report, pdf_report):
        if path:
            check_writable(path)
    if pdf_report:
        from neardup.report.pdf import find_font

        find_font(font)


def write_pdf(
    col: Collection,
    db: str,
    file: str,
    text: str,
    result: CheckResult,
    exclude: tuple[str, ...],
    out: str,
    font: str | None,
) -> None:
    """``check --pdf``: the report of this check, as the service draws a kept one."""
    import time

    from neardup.report.check_record import check_record, collection_name, source_info
    from neardup.report.pdf import check_pdf

    record = check_record(result, source_info(col, [m.id for m in result.matches]), exclude)
    data = check_pdf(
        text,
        record,
        created=time.time(),
        collection=collection_name(db),
        spec=col.spec.fingerprint(),
        name=os.path.basename(file) if file != "-" else "",
        lang=msg.language(),
        font=font,
    )
    try:
        with open(out, "wb") as fh:
            fh.write(data)
    except OSError as exc:  # a full disk, a device that takes nothing
        raise InputError(f"cannot write the report to {out}: {exc.strerror or exc}") from None

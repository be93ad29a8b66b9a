"""``neardup compare`` and ``neardup analyze``."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from neardup.align import CONSTRAINTS as ALIGN_CONSTRAINTS
from neardup.align import (
    DEFAULT_GAP,
    DEFAULT_K,
    DEFAULT_MIN_TOKENS,
    Aligner,
    Alignment,
    apply_citations,
)
from neardup.cli._documents import read_input, read_options, reader_options
from neardup.cli._options import spec_from_options, spec_options
from neardup.cli._types import constraint_type
from neardup.pipeline import Pipeline
from neardup.report import check_writable, markup_safe
from neardup.similarity import Measures
from neardup.spec import Spec


def compare_to_dict(measures: Measures, spec: Spec, alignment: Alignment | None) -> dict[str, Any]:
    """The JSON of ``compare --json`` (also the web service's ``/api/compare``): the measures,
    the spec, and with an alignment of A against B its passages and borrowed shares."""
    out: dict[str, Any] = dict(measures.to_dict())
    out["spec"] = spec.to_dict()
    out["spec_fingerprint"] = spec.fingerprint()
    if alignment is not None:
        match = alignment.sources[0]
        out["fragments"] = [p.to_dict() for p in match.passages]
        out["fragments_summary"] = {
            "borrowed_a": round(alignment.borrowed, 6),
            "borrowed_b": round(match.source_used, 6),
            "params": alignment.params,
        }
        if alignment.citations is not None:
            citations = alignment.to_dict()
            for key in ("cited", "quoted", "uniqueness_counting_citations", "citations"):
                out["fragments_summary"][key] = citations[key]
    return out


@click.command()
@click.argument("file_a", metavar="A")
@click.argument("file_b", metavar="B")
@spec_options
@reader_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@click.option(
    "--fragments",
    is_flag=True,
    help="Also find the matched fragments: passages of A copied or lightly edited from B, "
    'shown in both texts (with --json: a "fragments" list). '
    "(--html-mode says how to read HTML input.)",
)
@click.option(
    "--html",
    "--html-report",
    "html_report",
    metavar="FILE",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write a self-contained HTML report of the matched fragments to this file "
    "(implies --fragments).",
)
@click.option(
    "--align-k",
    type=constraint_type(ALIGN_CONSTRAINTS["k"]),
    default=DEFAULT_K,
    show_default=True,
    help="Fragments: words per alignment shingle (independent of -k).",
)
@click.option(
    "--gap",
    type=constraint_type(ALIGN_CONSTRAINTS["gap"]),
    default=DEFAULT_GAP,
    show_default=True,
    help="Fragments: unmatched words allowed inside one passage, in each text.",
)
@click.option(
    "--min-tokens",
    type=constraint_type(ALIGN_CONSTRAINTS["min_tokens"]),
    default=DEFAULT_MIN_TOKENS,
    show_default=True,
    help="Fragments: the fewest matched (canonical) words a passage must have.",
)
@click.option(
    "--no-citations",
    is_flag=True,
    help='Fragments: count quoted («…», "…") and referenced ([3], (Иванов, 2010)) passages '
    "of A as borrowing too (by default they are citation, shown apart).",
)
def compare(
    file_a: str,
    file_b: str,
    as_json: bool,
    fragments: bool,
    html_report: str | None,
    align_k: int,
    gap: int,
    min_tokens: int,
    no_citations: bool,
    **options: Any,
) -> None:
    """Compare two texts: resemblance, Sørensen and containment both ways.

    A and B are text files in any supported encoding (UTF-8, UTF-16, cp1251, koi8-r…), plain
    text or HTML; `-` reads standard input. Resemblance is |A∩B|/|A∪B| of the shingle
    fingerprint sets, Sørensen 2|A∩B|/(|A|+|B|), containment_ab |A∩B|/|A| (how much of A is
    in B) and containment_ba |A∩B|/|B|. A text with no shingles gives 0 for every measure.

    --json prints the keys resemblance, sorensen, containment_ab, containment_ba, shingles_a,
    shingles_b, shared, spec and spec_fingerprint.

    --fragments also aligns A against B (docs/fragments.md): passages of A copied from B,
    verbatim or with a few words changed, as character spans of both files as given (HTML
    included), each with its similarity, and the share of A they cover (borrowed %). The
    terminal shows both texts with the passages coloured; --json adds "fragments" (one object
    per passage: a_start, a_end, b_start, b_end, a_text, b_text, tokens, similarity) and
    "fragments_summary"; --html FILE writes a report to open in a browser. Passages of A
    inside quotes or followed by a reference count as citation, not borrowing (their own
    colour; "cited", "quoted" and "uniqueness_counting_citations" in "fragments_summary"),
    unless --no-citations.
    """
    spec = spec_from_options(options)
    if html_report:
        check_writable(html_report)
    pipeline = Pipeline(spec)
    reading = read_options(options)
    text_a = read_input(file_a, reading).text
    text_b = read_input(file_b, reading).text
    measures = pipeline.compare(text_a, text_b)
    alignment = None
    if fragments or html_report:
        aligner = Aligner(spec, k=align_k, gap=gap, min_tokens=min_tokens)
        query = aligner.prepare(text_a)
        alignment = aligner.pair(query, text_b, source_id=file_b)
        if not no_citations:
            alignment = apply_citations(alignment, query)
        if html_report:
            from neardup.report import write_html

            write_html(alignment, html_report, title=f"{file_a} vs {file_b}", query_title=file_a)
    if as_json:
        out = compare_to_dict(measures, spec, alignment)
        click.echo(json.dumps(out, ensure_ascii=False))
        return
    table = Table(title=f"{markup_safe(file_a)} vs {markup_safe(file_b)}", show_header=True)
    table.add_column("measure")
    table.add_column("value", justify="right")
    for name, value in (
        ("resemblance (Jaccard)", measures.resemblance),
        ("Sørensen–Dice", measures.sorensen),
        ("containment A in B", measures.containment_ab),
        ("containment B in A", measures.containment_ba),
    ):
        table.add_row(name, f"{value:.4f}")
    table.add_row("shingles A", str(measures.shingles_a))
    table.add_row("shingles B", str(measures.shingles_b))
    table.add_row("shared", str(measures.shared))
    console = Console()
    console.print(table)
    shingles = spec.shingles
    console.print(
        f"spec {pipeline.spec_fingerprint}: preset {spec.analyzer.preset}, "
        f"{shingles.unit} shingles "
        f"k={shingles.k} step={shingles.step}, {spec.fingerprint_family.family} "
        f"{spec.fingerprint_family.bits} bit"
    )
    if alignment is not None and fragments:
        from neardup.report import print_terminal

        print_terminal(alignment, console, query_title=f"A: {file_a}")
    if html_report:
        console.print(f"HTML report written to {markup_safe(html_report)}")


@click.command()
@click.argument("file", metavar="FILE")
@spec_options
@reader_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON lines instead of a table.")
@click.option(
    "--shingles", "show_shingles", is_flag=True, help="Show shingles and fingerprints too."
)
def analyze(file: str, as_json: bool, show_shingles: bool, **options: Any) -> None:
    """Show the canonical token stream of FILE with each token's span in the original text.

    For debugging a preset: every token is shown as its canonical term, the characters
    [start, end) of the input it came from, and those characters as they stand.
    """
    spec = spec_from_options(options)
    pipeline = Pipeline(spec)
    decoded = read_input(file, read_options(options))
    canonical = pipeline.canonical(decoded.text)
    terms = canonical.terms
    source = decoded.text
    rows = [
        {"term": term, "start": int(a), "end": int(b), "original": source[a:b]}
        for term, a, b in zip(
            terms, canonical.starts.tolist(), canonical.ends.tolist(), strict=True
        )
    ]
    shingles = pipeline.shingles(decoded.text) if show_shingles else None
    if as_json:
        header = {
            "encoding": decoded.encoding,
            "language": canonical.language,
            "tokens": len(rows),
            "spec_fingerprint": pipeline.spec_fingerprint,
        }
        click.echo(json.dumps(header, ensure_ascii=False))
        for row in rows:
            click.echo(json.dumps(row, ensure_ascii=False))
        if shingles is not None:
            for h, a, b in zip(
                shingles.hashes.tolist(),
                shingles.starts.tolist(),
                shingles.ends.tolist(),
                strict=True,
            ):
                click.echo(
                    json.dumps(
                        {"shingle": source[a:b], "start": a, "end": b, "fingerprint": h},
                        ensure_ascii=False,
                    )
                )
        return
    console = Console()
    console.print(
        f"encoding {decoded.encoding}, language {canonical.language}, {len(rows)} tokens, "
        f"spec {pipeline.spec_fingerprint}"
    )
    table = Table(show_header=True)
    for col in ("#", "term", "span", "original"):
        table.add_column(col)
    for i, row in enumerate(rows):
        table.add_row(
            str(i),
            markup_safe(str(row["term"])),
            f"{row['start']}–{row['end']}",
            markup_safe(repr(row["original"])),
        )
    console.print(table)
    if shingles is not None:
        table = Table(show_header=True, title="shingles")
        for col in ("#", "fingerprint", "span", "original"):
            table.add_column(col)
        for i, (h, a, b) in enumerate(
            zip(
                shingles.hashes.tolist(),
                shingles.starts.tolist(),
                shingles.ends.tolist(),
                strict=True,
            )
        ):
            table.add_row(str(i), f"{h:016x}", f"{a}–{b}", markup_safe(repr(source[a:b])))
        console.print(table)


COMMANDS = [compare, analyze]

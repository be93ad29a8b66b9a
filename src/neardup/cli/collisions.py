"""``neardup collisions``: the birthday bound, or collisions counted on a corpus."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from neardup.cli._documents import read_options, reader_options, report_skipped
from neardup.cli._options import spec_from_options, spec_options
from neardup.cli.messages import fmt, say, term
from neardup.errors import InputError
from neardup.inputs import CorpusReader
from neardup.research.collisions import (
    DEFAULT_FAMILIES,
    PAPER_SHINGLES,
    PAPER_TABLE_2,
    PROBABILITIES,
    WIDTHS,
    CollisionCounter,
    CollisionReport,
    birthday_table,
    parse_families,
)

F = TypeVar("F", bound=Callable[..., Any])

#: spec flags that do not apply here: the families to count are given by --families
_FINGERPRINT_FLAGS = {"family", "bits", "seed", "multiset"}


def _analysis_options(func: F) -> F:
    """The spec flags of the analyzer and the shingles (not those of one fingerprint family)."""
    func = spec_options(func)
    params = getattr(func, "__click_params__", [])
    func.__click_params__ = [p for p in params if p.name not in _FINGERPRINT_FLAGS]  # type: ignore[attr-defined]
    return func


def _numbers(text: str, kind: type, what: str) -> list[Any]:
    try:
        return [kind(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(
            f"{what} must be a comma-separated list of numbers, got {text!r}"
        ) from None


@click.command()
@click.argument("corpus", nargs=-1, metavar="[CORPUS]...")
@click.option(
    "--families",
    "families",
    multiple=True,
    default=(",".join(DEFAULT_FAMILIES),),
    show_default=True,
    help="Hash families to count, comma-separated or repeated: FAMILY[:BITS[:SEED]] with "
    "FAMILY rabin, crc32, crc64 or xxh3, BITS 32–64 (crc32: 32), or md5 with BITS 32–128 "
    "(default 128: the first BITS bits of the digest, the web-articles compilation's "
    "128-bit checksums), "
    "e.g. rabin:32,xxh3:64,md5.",
)
@click.option(
    "--limit-shingles",
    type=click.IntRange(1, 2**62),
    default=None,
    help="Stop at this many distinct shingles (the first ones in reading order).",
)
@click.option(
    "--text-field",
    default="text",
    show_default=True,
    help="The field holding the text in JSONL corpora.",
)
@click.option(
    "--widths",
    default=",".join(map(str, WIDTHS)),
    show_default=True,
    help="Without CORPUS: the hash widths (bits) of the table.",
)
@click.option(
    "--probabilities",
    default=",".join(map(str, PROBABILITIES)),
    show_default=True,
    help="Without CORPUS: the collision probabilities of the table.",
)
@_analysis_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@reader_options
def collisions(
    corpus: tuple[str, ...],
    families: tuple[str, ...],
    limit_shingles: int | None,
    text_field: str,
    widths: str,
    probabilities: str,
    as_json: bool,
    **options: Any,
) -> None:
    """Fingerprint collisions: the birthday bound, or a count on a corpus (the shingle-method paper,
    Tables 2–3).

    Without CORPUS: for each hash width, the number of distinct shingles from which a
    collision is likely (Ns ≥ √Nr) and at which its probability reaches each P,
    sqrt(2·2^bits·ln(1/(1−P))). --json prints {"formula", "probabilities", "rows": [{"bits",
    "range", "likely_at", "shingles_for_probability": {"0.01": …}, "paper": {…} or null}]}.

    With CORPUS (JSONL or JSONL.gz files with a text field, text files, or directories of
    them): analyzes every document under the spec flags, takes each DISTINCT shingle once
    (told apart by a 128-bit identity of its text, not by the hashes under test), hashes them
    with each family (md5: up to 128 bits) and counts the pairs that share a value, beside the
    n(n−1)/2^(bits+1) pairs the birthday bound expects; z = (pairs − expected)/√expected.
    Also: the values shared by two or more shingles, and the shingles lost when the values are
    made a set.
    --json prints {"documents", "shingles", "distinct_shingles", "limit_reached", "spec",
    "spec_fingerprint", "families": [{"family", "hash", "bits", "seed", "distinct_shingles",
    "colliding_pairs", "expected_pairs", "z", "shared_values", "expected_shared_values",
    "lost", "expected_lost", "paper_pairs", "seconds"}], "seconds"}.
    """
    if not corpus:
        _bound(
            _numbers(widths, int, "--widths"),
            _numbers(probabilities, float, "--probabilities"),
            as_json,
        )
        return
    specs = parse_families(families)
    spec = spec_from_options(
        {**options, "family": "rabin", "bits": 64, "seed": 0, "multiset": False}
    )
    reader = CorpusReader(corpus, id_field=None, text_field=text_field, **read_options(options))
    report_skipped(reader)
    counter = CollisionCounter(spec, specs, limit=limit_shingles)
    started = time.perf_counter()
    console = Console(stderr=True)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(say("progress_reading"), total=reader.total_bytes or None)

        def distinct(count: int) -> None:
            progress.update(
                task,
                completed=reader.bytes_read,
                description=say("progress_distinct", count=count),
            )

        counter.add_all((doc.text for doc in reader), progress=distinct)
        progress.update(task, description=say("progress_collisions", families=len(specs)))
        report = counter.report()
    report.seconds["total"] = time.perf_counter() - started
    if as_json:
        click.echo(json.dumps(report.to_dict(), ensure_ascii=False))
        return
    _print_report(report)


def _bound(widths: list[int], probabilities: list[float], as_json: bool) -> None:
    rows = birthday_table(widths, probabilities)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "formula": "shingles_for_probability = sqrt(2 * 2^bits * ln(1 / (1 - P))); "
                    "likely_at = sqrt(2^bits)",
                    "probabilities": [float(p) for p in probabilities],
                    "rows": [row.to_dict() for row in rows],
                }
            )
        )
        return
    table = Table(
        title="Distinct shingles at which a fingerprint collision becomes likely "
        "(birthday bound; paper's Table 2)"
    )
    table.add_column("width")
    table.add_column("Ns ≥ √Nr", justify="right")
    for p in probabilities:
        table.add_column(f"P = {p:g}", justify="right")
    table.add_column("paper (Table 2)", justify="left")
    for row in rows:
        paper = PAPER_TABLE_2.get(row.bits)
        same = ""
        if paper is not None:
            ours = [row.likely_at] + [row.shingles.get(p) for p in PROBABILITIES]
            same = (
                "agrees"
                if all(
                    o is not None and abs(o - q) <= 1e-6 * q + 0.01
                    for o, q in zip(ours, paper)
                    if o is not None
                )
                else "differs"
            )
        table.add_row(
            f"2^{row.bits}",
            f"{row.likely_at:,.0f}",
            *(f"{row.shingles[p]:,.2f}" for p in probabilities),
            same,
        )
    _console().print(table)


def _console() -> Console:
    """Standard output, at least 120 columns wide so that the tables of numbers never fold."""
    return Console(width=max(Console().width, 120))


def _print_report(report: CollisionReport) -> None:
    console = _console()
    table = Table(title=f"Collisions over {report.distinct:,} distinct shingles")
    for name, justify in (
        ("family", "left"),
        ("colliding pairs", "right"),
        ("expected", "right"),
        ("z", "right"),
        ("shared values", "right"),
        ("lost", "right"),
        (f"paper ({PAPER_SHINGLES:,})", "right"),
        ("seconds", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for count in report.families:
        row = count.to_dict()
        paper = row["paper_pairs"]
        expected = count.expected_pairs
        table.add_row(
            count.label,
            f"{count.pairs:,}",
            f"{expected:,.2f}" if expected >= 0.01 else f"{expected:.2g}",
            f"{count.z:+.2f}",
            f"{count.shared_values:,}",
            f"{count.lost:,}",
            "" if paper is None else f"{paper:,}",
            f"{count.seconds:.2f}",
        )
    console.print(table)
    shingles = report.spec.shingles
    seconds = ", ".join(f"{k} {fmt(v, '.1f')} {say('seconds')}" for k, v in report.seconds.items())
    console.print(
        say(
            "collisions_counts",
            documents=report.documents,
            shingles=report.shingles,
            distinct=report.distinct,
            limit=say("collisions_limit") if report.limit_reached else "",
        )
    )
    console.print(
        say(
            "collisions_spec",
            preset=report.spec.analyzer.preset,
            unit=term("unit", shingles.unit),
            k=shingles.k,
            step=shingles.step,
            spec=report.spec.fingerprint(),
        )
    )
    console.print(say("collisions_time", seconds=seconds))


COMMANDS = [collisions]

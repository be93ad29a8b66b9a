"""``neardup compare`` and ``neardup analyze``.

A one-shot ``compare`` of two short texts is mostly start-up (the start-up target: under 0.5 s), so
what only some runs need is imported where it is used: the combined score, the aligner (for
fragments), the reports and rich (for the table; ``--json`` prints without it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import click

from neardup.analysis.analyzer import Canonical, IntArray
from neardup.cli import messages as msg
from neardup.cli._documents import read_input, read_options, reader_options
from neardup.cli._options import spec_from_options, spec_options
from neardup.cli._types import constraint_type
from neardup.defaults import DEFAULTS
from neardup.fingerprints.pipeline import Pipeline
from neardup.fingerprints.shingles import Shingles, shingle
from neardup.passages.align import CONSTRAINTS as ALIGN_CONSTRAINTS
from neardup.passages.align import DEFAULT_GAP, DEFAULT_K, DEFAULT_MIN_TOKENS
from neardup.score.comparison import SCORE_METHODS, release_pipelines
from neardup.score.comparison import compare as compare_texts

if TYPE_CHECKING:
    from rich.console import Console

    from neardup.score.comparison import Comparison
    from neardup.score.model import ChannelPart, Contribution, Explanation


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
    "--method",
    type=click.Choice(SCORE_METHODS),
    default=DEFAULTS.score,
    show_default=True,
    help="combined: the combined score first (one calibrated model over word-run and "
    "vocabulary evidence, neardup.score.combined, whose 0.5 means a duplicate on a sentence as "
    "on a document, docs/quality.md), then the shingle-set measures; sets: the shingle-set "
    "measures only (faster).",
)
@click.option(
    "--explain",
    is_flag=True,
    help="Also say which evidence drove the combined score: the kind of pair, whether it rests "
    "on word runs copied verbatim or on shared vocabulary, and the features that weighed most "
    '(with --json: a "combined_explain" object).',
)
@click.option(
    "--no-rewrites",
    is_flag=True,
    help="Fragments: mark only copied passages, not those whose sentences were reworded "
    "(synonyms, another word order, changed grammar), which by default are marked as "
    "rewritten and counted as borrowed.",
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
    method: str,
    explain: bool,
    no_rewrites: bool,
    no_citations: bool,
    **options: Any,
) -> None:
    """Compare two texts: the combined score, resemblance, Sørensen and containment both ways.

    A and B are text files in any supported encoding (UTF-8, UTF-16, cp1251, koi8-r…), plain
    text or HTML; `-` reads standard input. The combined score (shown first; key "combined")
    is one fitted model over word runs copied verbatim and shared vocabulary, calibrated on
    real labelled pairs so that 0.5 means "a duplicate" on a sentence, a paragraph in a
    document and two documents alike: it is the default because no single measure is right
    for every pair (docs/quality.md); --explain says which evidence drove it. Resemblance is
    |A∩B|/|A∪B| of the shingle fingerprint sets,
    Sørensen 2|A∩B|/(|A|+|B|), containment_ab |A∩B|/|A| (how much of A is in B) and
    containment_ba |A∩B|/|B|. A text with no shingles gives 0 for every measure.

    --json prints the keys combined, combined_version (the shipped model's: a refit changes the
    scores), with --explain combined_explain (regime, drove: "verbatim" or "vocabulary", and each
    channel's probability and top features), resemblance, sorensen, containment_ab,
    containment_ba, shingles_a, shingles_b,
    shared, shingling (the shingles the pair was compared on), spec and spec_fingerprint
    (--method sets: all but the first two) — the same object as neardup.compare(a, b).to_dict()
    and the service's /api/compare.

    --fragments also aligns A against B (docs/fragments.md): passages of A copied from B,
    verbatim or with a few words changed, as character spans of both files as given (HTML
    included), each with its similarity, and the share of A they cover (borrowed %). The
    terminal shows both texts with the passages coloured; --json adds "fragments" (one object
    per passage, copied or rewritten: kind, a_start, a_end, b_start, b_end, a_text, b_text,
    tokens, similarity) and "fragments_summary" (uniqueness, borrowed, cited: the shares of A's
    words found in no source, copied, and copied inside a citation — they add up to 1; the
    words they come from, borrowed_words, cited_words, unique_words and by_kind; and "counted",
    the runs of A's words of each kind); --html FILE writes a
    report to open in a browser. Passages of A inside quotes, or in a sentence carrying its
    own reference, count as cited, not borrowed (their own colour), unless --no-citations.
    """
    spec = spec_from_options(options)
    if html_report:
        from neardup.report.fragments import check_writable

        check_writable(html_report)
    from neardup.analysis.tricks import folds
    from neardup.inputs import hidden_in

    # an office file as a reader sees it, its hidden text reported (--no-fold: all its text)
    reading = {**read_options(options), "visible_only": folds(spec)}
    decoded_a, decoded_b = read_input(file_a, reading), read_input(file_b, reading)
    text_a, text_b = decoded_a.text, decoded_b.text
    aligner = None
    if fragments or html_report:
        from neardup.passages.align import Aligner

        aligner = Aligner(spec, k=align_k, gap=gap, min_tokens=min_tokens, rewrites=not no_rewrites)
    result = compare_texts(
        text_a,
        text_b,
        spec=spec,
        method=method,
        fragments=aligner is not None,
        citations=not no_citations,
        aligner=aligner,
        b_id=file_b,
        hidden_a=hidden_in(decoded_a),
        hidden_b=hidden_in(decoded_b),
        explain=explain,
    )
    release_pipelines()  # the analyzers' learned forms reach the disk as this process ends
    measures, alignment, combined = result, result.alignment, result.combined
    if html_report and alignment is not None:
        from neardup.report.fragments import write_html

        write_html(
            alignment,
            html_report,
            title=f"{file_a} vs {file_b}",
            query_title=file_a,
            lang=msg.language(),
        )
    if as_json:
        click.echo(json.dumps(result.to_dict(), ensure_ascii=False))
        return
    from rich.console import Console
    from rich.table import Table

    from neardup.report.fragments import markup_safe

    title = msg.say("compare_title", a=markup_safe(file_a), b=markup_safe(file_b))
    table = Table(title=title, show_header=True)
    table.add_column(msg.column("measure"))
    table.add_column(msg.column("value"), justify="right")
    if combined is not None:
        table.add_row(msg.column("combined score"), msg.fmt(combined, ".4f"))
    for name, value in (
        ("resemblance (Jaccard)", measures.resemblance),
        ("Sørensen–Dice", measures.sorensen),
        ("containment A in B", measures.containment_ab),
        ("containment B in A", measures.containment_ba),
    ):
        table.add_row(msg.column(name), msg.fmt(value, ".4f"))
    table.add_row(msg.column("shingles A"), str(measures.shingles_a))
    table.add_row(msg.column("shingles B"), str(measures.shingles_b))
    table.add_row(msg.column("shared"), str(measures.shared))
    console = Console()
    console.print(table)
    # the shingling this pair was compared on: the short one when the length rule applied
    shingling = result.shingling
    rule = (
        msg.say("compare_short_rule", below=spec.shingles.short_below) if result.short_pair else ""
    )
    console.print(
        msg.say(
            "compare_spec",
            spec=spec.fingerprint(),
            preset=spec.analyzer.preset,
            unit=msg.term("unit", shingling.unit),
            k=shingling.k,
            step=shingling.step,
            rule=rule,
            family=spec.fingerprint_family.family,
            bits=spec.fingerprint_family.bits,
        )
    )
    _print_notes(console, result, file_a, file_b)
    if alignment is not None and fragments:
        from neardup.report.fragments import print_terminal

        print_terminal(alignment, console, query_title=f"A: {file_a}", lang=msg.language())
    if html_report:
        console.print(msg.say("check_html_written", path=markup_safe(html_report)))


def _print_notes(console: Console, result: Comparison, file_a: str, file_b: str) -> None:
    """What drove the combined score (with --explain), and the tricks found in either text."""
    from neardup.report.fragments import tricks_line

    if result.explanation is not None and result.combined is not None:
        for said in explain_lines(result.explanation, result.combined):
            console.print(said, markup=False, soft_wrap=True)
    for tricks, whose in ((result.tricks_a, f"A ({file_a})"), (result.tricks_b, f"B ({file_b})")):
        line = tricks_line(tricks, whose, msg.language())
        if line:
            console.print(line, style="bold red" if tricks.suspicious else "yellow", markup=False)


def explain_lines(explanation: Explanation, score: float) -> list[str]:
    """What drove ``score``, in the CLI's language: the kind of pair and the stronger channel,
    then each channel (the stronger first) with the features that weighed most in it."""
    from neardup.messages import say
    from neardup.score.combined import PASSAGE_SCALE

    lang = msg.language()

    def feature(c: Contribution) -> str:
        name = say("explain", f"feature_{c.feature}", lang)
        if c.feature == "shared_word5":  # said as the count of runs, not its squashed value
            runs = round(PASSAGE_SCALE * c.value / max(1e-9, 1.0 - c.value))
            return say("explain", "feature_count", lang, name=name, n=runs)
        return say("explain", "feature", lang, name=name, value=c.value)

    def line(part: ChannelPart) -> str:
        features = ", ".join(feature(c) for c in part.top(3))
        return say(
            "explain",
            "channel",
            lang,
            name=say("explain", f"channel_{part.name}", lang),
            probability=part.probability,
            features=f": {features}" if features else "",
        )

    drove = explanation.drove
    other = next(c for c in explanation.channels if c is not drove)
    head = say(
        "explain",
        "head" if score >= 0.5 else "head_low",
        lang,
        score=msg.fmt(score, ".4f"),
        regime=say("explain", f"regime_{explanation.regime}", lang),
        channel=say("explain", f"channel_{drove.name}", lang),
    )
    return [head, line(drove), line(other)]


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
    source = decoded.text
    # shingles of the same canonical stream (what pipeline.shingles would redo from the text)
    shingles = shingle(canonical, spec.shingles, pipeline.family) if show_shingles else None
    if as_json:
        header = {
            "encoding": decoded.encoding,
            "language": canonical.language,
            "tokens": len(canonical),
            "spec_fingerprint": pipeline.spec_fingerprint,
        }
        click.echo(json.dumps(header, ensure_ascii=False))
        _write_lines(_token_json(canonical, source))
        if shingles is not None:
            _write_lines(_shingle_json(shingles, source))
        return
    click.echo(
        msg.say(
            "analyze_header",
            encoding=decoded.encoding,
            language=canonical.language,
            tokens=len(canonical),
            spec=pipeline.spec_fingerprint,
        )
    )
    _write_lines(_token_table(canonical, source))
    if shingles is not None:
        click.echo(msg.column("shingles"))
        _write_lines(_shingle_table(shingles, source))


# ``analyze`` streams: rows are made and written a block at a time, so its memory is that of
# the canonical stream (a few arrays) whatever the number of tokens, and the first rows show
# at once. A rich Table would hold every row and measure every cell before printing anything.
_BLOCK = 4096


def _write_lines(blocks: Iterator[list[str]]) -> None:
    for lines in blocks:
        if lines:
            click.echo("\n".join(lines))


def _blocks(n: int) -> Iterator[tuple[int, int]]:
    for lo in range(0, n, _BLOCK):
        yield lo, min(lo + _BLOCK, n)


def _terms(canonical: Canonical, lo: int, hi: int) -> list[str]:
    """Terms ``lo:hi`` of the canonical stream (one slice of the buffer decoded)."""
    base = int(canonical.byte_starts[lo])
    data = canonical.buf[base : int(canonical.byte_ends[hi - 1])].tobytes()
    return [
        data[a - base : b - base].decode("utf-8")
        for a, b in zip(
            canonical.byte_starts[lo:hi].tolist(), canonical.byte_ends[lo:hi].tolist(), strict=True
        )
    ]


def _token_json(canonical: Canonical, source: str) -> Iterator[list[str]]:
    for lo, hi in _blocks(len(canonical)):
        yield [
            json.dumps(
                {"term": term, "start": a, "end": b, "original": source[a:b]}, ensure_ascii=False
            )
            for term, a, b in zip(
                _terms(canonical, lo, hi),
                canonical.starts[lo:hi].tolist(),
                canonical.ends[lo:hi].tolist(),
                strict=True,
            )
        ]


def _shingle_json(shingles: Shingles, source: str) -> Iterator[list[str]]:
    for lo, hi in _blocks(len(shingles)):
        yield [
            json.dumps(
                {"shingle": source[a:b], "start": a, "end": b, "fingerprint": h},
                ensure_ascii=False,
            )
            for h, a, b in zip(
                shingles.hashes[lo:hi].tolist(),
                shingles.starts[lo:hi].tolist(),
                shingles.ends[lo:hi].tolist(),
                strict=True,
            )
        ]


def _widths(n: int, ends: IntArray) -> tuple[int, int]:
    """Widths of the ``#`` and span columns, from the largest values (no pass over rows)."""
    last = int(ends.max()) if n else 0
    return max(1, len(str(max(n - 1, 0)))), len(f"{last}–{last}")


def _shown(term: str) -> str:
    """A term as the terminal may show it: control characters escaped."""
    return term if term.isprintable() else repr(term)


def _token_table(canonical: Canonical, source: str) -> Iterator[list[str]]:
    n = len(canonical)
    wi, ws = _widths(n, canonical.ends)
    lengths = canonical.byte_ends - canonical.byte_starts
    # a term's width in characters is at most its UTF-8 length; wider terms just push the row
    wt = max(4, min(24, int(lengths.max()) if n else 0))
    names = [msg.column(name) for name in ("term", "span", "original")]
    yield [f"{'#':>{wi}}  {names[0]:<{wt}}  {names[1]:<{ws}}  {names[2]}"]
    for lo, hi in _blocks(n):
        yield [
            f"{lo + j:>{wi}}  {_shown(term):<{wt}}  {f'{a}–{b}':<{ws}}  {source[a:b]!r}"
            for j, (term, a, b) in enumerate(
                zip(
                    _terms(canonical, lo, hi),
                    canonical.starts[lo:hi].tolist(),
                    canonical.ends[lo:hi].tolist(),
                    strict=True,
                )
            )
        ]


def _shingle_table(shingles: Shingles, source: str) -> Iterator[list[str]]:
    n = len(shingles)
    wi, ws = _widths(n, shingles.ends)
    names = [msg.column(name) for name in ("fingerprint", "span", "original")]
    yield [f"{'#':>{wi}}  {names[0]:<16}  {names[1]:<{ws}}  {names[2]}"]
    for lo, hi in _blocks(n):
        yield [
            f"{lo + j:>{wi}}  {h:016x}  {f'{a}–{b}':<{ws}}  {source[a:b]!r}"
            for j, (h, a, b) in enumerate(
                zip(
                    shingles.hashes[lo:hi].tolist(),
                    shingles.starts[lo:hi].tolist(),
                    shingles.ends[lo:hi].tolist(),
                    strict=True,
                )
            )
        ]


COMMANDS = [compare, analyze]

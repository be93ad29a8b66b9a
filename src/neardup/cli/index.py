"""``neardup index``: a collection that checks every new text on insert (create, add, check…).

DB is a SQLite file path, or a ``postgresql://user@host:port/db?schema=NAME`` URL. The spec
is chosen once, at ``create``, and stored; every later command uses the stored spec.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from neardup.cli import messages as msg
from neardup.cli._check_outputs import (
    note_old_lookup,
    outputs_ready,
    print_not_listed,
    verdict_of,
    write_pdf,
)
from neardup.cli._documents import read_input, read_options, reader_options, report_skipped
from neardup.cli._options import jobs_option, spec_from_options, spec_options
from neardup.cli._types import COUNT, field_default, field_option
from neardup.defaults import DEFAULTS, TOP_MAX
from neardup.errors import DamagedCollectionError, DuplicateIdError, NeardupError, StorageError
from neardup.passages.align import UNIQUENESS_MEANING
from neardup.report.fragments import markup_safe, printable
from neardup.score.comparison import SCORE_METHODS
from neardup.spec import CANDIDATE_METHODS, INDEX_MEASURES, INDEX_POLICIES, IndexSpec

if TYPE_CHECKING:
    pass

DB_HELP = "A SQLite file, or a postgresql://user@host:port/db?schema=NAME URL."


@contextmanager
def _collection(db: str, *, readonly: bool = False) -> Iterator[Any]:
    """The collection at DB, open; damage found while working on it names DB."""
    from neardup.index import Collection

    try:
        with Collection.open(db, readonly=True if readonly else None) as col:
            yield col
    except DamagedCollectionError as exc:
        if str(exc).startswith("the collection at "):
            raise
        raise DamagedCollectionError(f"the collection at {db} is damaged: {exc}") from None


def _skipping(items: Iterable[Any], taken: Iterable[str]) -> Iterator[Any]:
    """The input documents whose ids are not in ``taken``."""
    skip = set(taken)
    for item in items:
        if item.id not in skip:
            yield item


@click.group("index")
def index() -> None:
    """A collection of texts that checks every new text for near-duplicates before it goes in.

    `create` makes one (choosing the spec and the policy), `add` puts texts in — each checked
    against the whole collection and refused, grouped or linked by the policy — `check` tells
    how unique a text is and what it matches without storing it, `remove`, `groups`, `stats`
    and `export` do what they say. DB is a SQLite file path or a postgresql:// URL.
    """


@index.command("create")
@click.argument("db", metavar="DB")
@spec_options
@click.option(
    "--policy",
    type=click.Choice(INDEX_POLICIES),
    default=field_default(IndexSpec, "policy"),
    show_default=True,
    help="What add does with a near-duplicate: reject it, group it with its "
    "near-duplicates (up to --group-cap), or allow it and record the links.",
)
@field_option(
    IndexSpec,
    "threshold",
    "--threshold",
    help="A text is a near-duplicate of a member when the measure reaches this value.",
)
@click.option(
    "--measure",
    type=click.Choice(INDEX_MEASURES),
    default=field_default(IndexSpec, "measure"),
    show_default=True,
    help="resemblance (Jaccard of the shingle sets) or containment (the larger of the "
    "two containments, so partial copies count).",
)
@field_option(
    IndexSpec,
    "group_cap",
    "--group-cap",
    help="Largest duplicate group under --policy group.",
)
@field_option(
    IndexSpec,
    "window",
    "--window",
    help="Winnowing window (shingles): any shared run of this many shingles is found.",
)
@field_option(
    IndexSpec,
    "max_candidates",
    "--max-candidates",
    help="Candidates verified exactly per text (those sharing the most samples).",
)
@field_option(
    IndexSpec,
    "max_postings_per_sample",
    "--max-postings-per-sample",
    help="A sample shared by more documents than this (boilerplate) brings only its newest "
    "that many as candidates; 0: no limit.",
)
@field_option(
    IndexSpec,
    "min_length",
    "--min-length",
    help="Admit only texts of at least this many characters (the shingle-method paper uses 2000); "
    "0: no limit. Shorter ones are refused as too_short.",
)
@field_option(
    IndexSpec,
    "max_length",
    "--max-length",
    help="Admit only texts of at most this many characters (the shingle-method paper uses 6000); "
    "0: no limit. Longer ones are refused as too_long.",
)
@click.option(
    "--candidates",
    type=click.Choice(CANDIDATE_METHODS),
    default=field_default(IndexSpec, "candidates"),
    show_default=True,
    help="Where candidates come from: winnow (inverted index of winnowed samples), pmbf "
    "(the pseudo-matrix Bloom filter of its paper, which finds short pastes), or both "
    "(docs/bloom.md).",
)
@field_option(
    IndexSpec,
    "pmbf_n",
    "--pmbf-n",
    help="Shingles a Bloom filter row holds (pmbf, both).",
)
@field_option(
    IndexSpec,
    "pmbf_p",
    "--pmbf-p",
    help="False-positive rate of a full row (pmbf, both).",
)
@field_option(
    IndexSpec,
    "pmbf_max_rows",
    "--pmbf-max-rows",
    help="Best rows whose documents become candidates (pmbf, both); 0: every row that stands out.",
)
@field_option(
    IndexSpec,
    "short_window",
    "--short-window",
    help="Under the length-adaptive rule (--short-below): a long text also posts the minimum of "
    "every window of this many words, so a short text finds the document it came from; 0: off.",
)
@field_option(
    IndexSpec,
    "sentence_bands",
    "--sentence-bands",
    help="Band keys every sentence of a stored text posts, so a single copied, edited or "
    "reworded sentence finds its source and is marked; 0: off (docs/collection-check.md).",
)
@click.option(
    "--no-store-text",
    is_flag=True,
    help="Keep fingerprints only, not the texts (short pairs are then compared on the spec's "
    "shingles: the length-adaptive rule needs the texts).",
)
def create(
    db: str,
    policy: str,
    threshold: float,
    measure: str,
    group_cap: int,
    window: int,
    max_candidates: int,
    max_postings_per_sample: int,
    min_length: int,
    max_length: int,
    candidates: str,
    pmbf_n: int,
    pmbf_p: float,
    pmbf_max_rows: int,
    short_window: int,
    sentence_bands: int,
    no_store_text: bool,
    **options: Any,
) -> None:
    """Make a new, empty collection at DB with the given spec and policy."""
    from neardup.index import Collection, describe_spec

    spec = spec_from_options(options)
    index_spec = IndexSpec(
        policy=policy,
        measure=measure,
        threshold=threshold,
        group_cap=group_cap,
        window=window,
        max_candidates=max_candidates,
        max_postings_per_sample=max_postings_per_sample,
        candidates=candidates,
        pmbf_n=pmbf_n,
        pmbf_p=pmbf_p,
        pmbf_max_rows=pmbf_max_rows,
        short_window=short_window,
        sentence_bands=sentence_bands,
        store_text=not no_store_text,
        min_length=min_length,
        max_length=max_length,
    )
    with Collection.create(db, spec, index_spec) as col:
        click.echo(
            msg.say(
                "index_created",
                location=col.location,
                spec=col.spec.fingerprint(),
                described=describe_spec(col.spec, msg.language()),
                policy=msg.term("policy", policy),
                measure=msg.term("measure", measure),
                threshold=threshold,
                cap=msg.say("index_group_cap", cap=group_cap) if policy == "group" else "",
                lengths=msg.say("index_lengths", lengths=index_spec.length_range())
                if min_length or max_length
                else "",
                candidates=candidates,
            )
        )


@index.command("add")
@click.argument("db", metavar="DB")
@click.argument("inputs", metavar="INPUT...", nargs=-1, required=True)
@click.option(
    "--policy",
    type=click.Choice(INDEX_POLICIES),
    default=None,
    help="Override the collection's policy for this run.",
)
@click.option(
    "--id-field", default="id", show_default=True, help="Id field of JSONL/CSV/Parquet records."
)
@click.option(
    "--text-field",
    default="text",
    show_default=True,
    help="Text field of JSONL/CSV/Parquet records.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "jsonl", "csv", "parquet"]),
    default=None,
    help="Read every file as this format (default: by file name; other files are texts).",
)
@click.option(
    "--batch-size",
    type=COUNT,
    default=256,
    show_default=True,
    help="Documents per transaction.",
)
@click.option(
    "--skip-existing",
    is_flag=True,
    help="Skip (and count) documents whose id is already in the collection, so an "
    "interrupted run resumes with the same command.",
)
@click.option(
    "--no-check",
    is_flag=True,
    help="Bulk load: store every text without comparing it with the collection or the rest "
    "of the input (no duplicate refusals, groups or links; ids and length limits still "
    "apply). Much faster, above all with --candidates pmbf; later checks see the texts.",
)
@jobs_option(
    "Threads analyzing the texts ahead while the collection checks and stores the earlier "
    "ones (1: no thread). The decisions and what is stored do not depend on it."
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object: counts and every decision."
)
@reader_options
def add(
    db: str,
    inputs: tuple[str, ...],
    policy: str | None,
    id_field: str,
    text_field: str,
    fmt: str | None,
    batch_size: int,
    skip_existing: bool,
    no_check: bool,
    jobs: int,
    as_json: bool,
    **reading: Any,
) -> None:
    """Check texts and add those the policy admits.

    INPUT is a text file, a folder (recursively: texts by their relative path as id, and
    datasets; docs/guide.md "Inputs" says which files count), or a dataset: .jsonl, .jsonl.gz,
    .csv or .parquet with an id and a text field. All ids are checked first: an id twice in
    the input, or already in the collection (unless --skip-existing), stops the run before
    anything is added. Texts go in by batches, each committed at once: a run stopped later
    (an error, Ctrl-C) keeps the batches committed before and says how many documents they
    held.
    """
    from neardup.index.collection import check_id
    from neardup.inputs import CorpusReader
    from neardup.sketch.parallel import default_jobs

    reader = CorpusReader(
        inputs, id_field=id_field, text_field=text_field, fmt=fmt, **read_options(reading)
    )
    ids = reader.ids()
    seen: set[str] = set()
    for doc_id in ids:
        check_id(doc_id)
        if doc_id in seen:
            raise DuplicateIdError(
                f"the id {doc_id!r} appears twice in the input; nothing was added"
            )
        seen.add(doc_id)
    counts: Counter[str] = Counter()
    decisions: list[dict[str, Any]] = []
    with _collection(db) as col:
        taken = col.storage.keys_for_ids(ids)
        if taken and not skip_existing:
            first = next(i for i in ids if i in taken)
            more = f" (and {len(taken) - 1} more)" if len(taken) > 1 else ""
            raise DuplicateIdError(
                f"the id {first!r}{more} is already in {col.location}; nothing was added "
                "(--skip-existing skips ids already stored)"
            )
        items: Iterable[Any] = iter(reader)
        if taken:
            items = _skipping(items, taken)
            counts["skipped"] = len(taken)
        _add_all(
            col,
            items,
            counts,
            decisions if as_json else None,
            len(ids) - len(taken),
            policy,
            batch_size,
            not no_check,
            jobs or default_jobs(),
        )
        total = len(col)
    report_skipped(reader)
    summary: dict[str, Any] = {
        "accepted": counts["accepted"],
        "rejected": counts["rejected"],
        "skipped": counts["skipped"],
        "reasons": {
            k: v for k, v in sorted(counts.items()) if k not in ("accepted", "rejected", "skipped")
        },
        "documents": total,
    }
    if as_json:
        summary["decisions"] = decisions
        click.echo(json.dumps(summary, ensure_ascii=False))
        return
    admitted = ("new", "grouped", "linked", "unchecked")  # the reasons a text is added for

    def why(added: bool) -> str:
        parts = [
            msg.say("index_reason", reason=msg.reason(k), n=v)
            for k, v in summary["reasons"].items()
            if (k in admitted) == added
        ]
        return f" ({', '.join(parts)})" if parts else ""

    skipped = msg.say("index_skipped", **_tally(counts)) if counts["skipped"] else ""
    said = {"why_added": why(True), "why_refused": why(False), "skipped_text": skipped}
    click.echo(msg.say("index_added", total=total, **said, **_tally(counts)))


def _tally(counts: Counter[str]) -> dict[str, int]:
    """The counts the add's messages say (a Counter holds no key it never counted)."""
    return {key: counts[key] for key in ("accepted", "rejected", "skipped")}


def _add_all(
    col: Any,
    items: Iterable[Any],
    counts: Counter[str],
    decisions: list[dict[str, Any]] | None,
    total: int,
    policy: str | None,
    batch_size: int,
    check: bool,
    jobs: int,
) -> None:
    """Add the items with a progress bar; a failure or Ctrl-C first says what was committed."""
    try:
        _add_with_progress(col, items, counts, decisions, total, policy, batch_size, check, jobs)
    except (NeardupError, KeyboardInterrupt) as exc:
        done = counts["accepted"] + counts["rejected"]
        what = msg.say("interrupted_what" if isinstance(exc, KeyboardInterrupt) else "stopped_what")
        said = msg.say(
            "index_add_stopped", what=what, done=done, left=total - done, **_tally(counts)
        )
        click.echo(said, err=True)
        raise


def _add_with_progress(
    col: Any,
    items: Iterable[Any],
    counts: Counter[str],
    decisions: list[dict[str, Any]] | None,
    total: int,
    policy: str | None,
    batch_size: int,
    check: bool,
    jobs: int,
) -> None:
    console = Console(stderr=True)
    progress = Progress(
        TextColumn(msg.say("progress_adding")),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[status]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
    with progress:
        task = progress.add_task("add", total=total, status="")
        for dec in col.iter_add(
            items, policy=policy, batch_size=batch_size, check=check, jobs=jobs
        ):
            counts["accepted" if dec.accepted else "rejected"] += 1
            counts[str(dec.reason)] += 1
            if decisions is not None:
                decisions.append(dec.to_dict())
            progress.update(
                task,
                advance=1,
                status=msg.say("progress_added", **_tally(counts)),
            )


@index.command("check")
@click.argument("db", metavar="DB")
@click.argument("file", metavar="FILE")
@click.option(
    "--top",
    type=click.IntRange(1, TOP_MAX),
    default=DEFAULTS.top,
    show_default=True,
    help="List at most this many matches and their passages (the uniqueness counts every "
    "source found, listed or not).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option(
    "--fragments",
    is_flag=True,
    help="Also mark the copied passages: FILE aligned against the stored texts of its "
    'matches (with --json: a "fragments" object).',
)
@click.option(
    "--html",
    "--html-report",
    "html_report",
    metavar="FILE",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write the passages as a self-contained HTML report (implies --fragments).",
)
@click.option(
    "--no-citations",
    is_flag=True,
    help="Count quoted and referenced passages of FILE as borrowing too "
    "(by default they are citation, shown apart).",
)
@click.option(
    "--no-rewrites",
    is_flag=True,
    help="Count only copied passages, not those whose sentences were reworded (by default "
    "marked as rewritten and counted as borrowed).",
)
@click.option(
    "--method",
    type=click.Choice(SCORE_METHODS),
    default="sets",
    show_default=True,
    help="combined: also score each match shown with the combined score (neardup.score.combined), "
    "from the stored texts (sets: the shingle-set measures only).",
)
@click.option(
    "--pdf",
    "pdf_report",
    metavar="OUT.pdf",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write a PDF report to hand in: the figure, the sources, the text with its passages "
    "marked (needs neardup[report] and a Cyrillic font: DejaVu Sans, or NEARDUP_PDF_FONT).",
)
@click.option(
    "--pdf-font",
    metavar="FONT.ttf",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="The TrueType font of the PDF report (default: NEARDUP_PDF_FONT, else DejaVu Sans).",
)
@click.option(
    "--exclude",
    "exclude",
    metavar="ID",
    multiple=True,
    help="Leave the stored document ID out of the check (repeatable), e.g. the writer's own "
    "earlier text.",
)
@reader_options
def check(
    db: str,
    file: str,
    top: int,
    as_json: bool,
    fragments: bool,
    html_report: str | None,
    no_citations: bool,
    no_rewrites: bool,
    method: str,
    pdf_report: str | None,
    pdf_font: str | None,
    exclude: tuple[str, ...],
    **reading: Any,
) -> None:
    """How unique FILE is against the collection, and which documents it matches (stores nothing).

    Uniqueness is the share of FILE's words found in no document of the collection; borrowed,
    the share copied from one (passages found by aligning FILE with the stored texts of its
    matches, edited words inside a passage included); cited, the share copied inside a
    quotation or a sentence carrying its own reference (unless --no-citations). The three add
    up to 100 %. They count every match found, strongest first, up to a work limit (the
    COUNTED_SOURCES_MAX sources and COUNTED_CHARACTERS_MAX characters of their texts of
    neardup.defaults; a check that reaches it says so); --top limits the list shown, never the
    figure. (A collection made with --no-store-text has no texts to align with: a word
    then counts as found when a shingle shared with a match covers it.) Matches are sorted by
    the strongest evidence first: the largest of resemblance, containment of the text in the
    document and of the document in the text; then by resemblance, then by id.

    --json prints uniqueness (0…1), uniqueness_percent, borrowed, cited, words, the words they
    come from (borrowed_words, cited_words, unique_words, by_kind: copied, rewritten, cited),
    sources_counted, sources_uncounted, limited, shingles, candidates, decision (what add
    would do) and matches (id, resemblance,
    containment_query_in_doc, containment_doc_in_query, shared, shingles, group) — the same
    object as Collection.check(text).to_dict() and the service's /api/check.

    --fragments also shows the passages in both texts, with each source's share of FILE;
    --json then adds "fragments" {"sources": [{"id", "borrowed", "passages": […], "rewritten":
    […]}], "counted": the runs of FILE's words by kind, "more_sources": what the sources not
    listed add, …};
    --html FILE writes them as a page to open in a browser.

    --method combined adds each match's combined score (a "combined" key with --json).

    --pdf OUT.pdf writes the report to hand in (as the service's PDF); --exclude ID leaves a
    stored document out, as if it were not there.
    """
    outputs_ready(html_report, pdf_report, pdf_font)
    from neardup.inputs import hidden_in

    decoded = read_input(file, read_options(reading))
    text = decoded.text
    with _collection(db, readonly=True) as col:
        note_old_lookup(col)
        aligner = None
        if no_rewrites:
            from neardup.passages.align import Aligner

            aligner = Aligner(col.spec, rewrites=False)
        result = col.check(
            text,
            top=top,
            combined=method == "combined",
            fragments=fragments or bool(html_report),
            citations=not no_citations,
            aligner=aligner,
            exclude=exclude,
            hidden=hidden_in(decoded),
        )
        if pdf_report:
            write_pdf(col, db, file, text, result, exclude, pdf_report, pdf_font)
    alignment = result.alignment
    if html_report and alignment is not None:
        from neardup.report.fragments import write_html

        write_html(
            alignment,
            html_report,
            title=f"{file} against {db}",
            query_title=file,
            lang=msg.language(),
        )
    if as_json:
        click.echo(json.dumps(result.to_dict(), ensure_ascii=False))
        return
    console = Console()
    verdict = verdict_of(result)
    cited = msg.say("check_cited", cited=100 * result.cited) if result.cited else ""
    console.print(
        msg.say(
            "check_summary",
            uniqueness=100 * result.uniqueness,
            borrowed=100 * result.borrowed,
            cited=cited,
            words=result.words,
            verdict=verdict,
        )
    )
    meaning = msg.say("check_meaning") if msg.is_russian() else UNIQUENESS_MEANING
    console.print(meaning, style="dim", highlight=False)
    from neardup.report.fragments import tricks_line

    line = tricks_line(result.tricks, lang=msg.language())
    if line:
        style = "bold red" if result.suspicious else "yellow"
        console.print(line, style=style, markup=False, highlight=False)
    if not result.matches:
        console.print(msg.say("check_no_sources"))
    else:
        table = Table(show_header=True)
        names = ["id", "resemblance", "text in doc", "doc in text", "shared", "group"]
        names += ["combined"] if method == "combined" else []
        names = [msg.column(name) for name in names]
        for col_name in names:
            table.add_column(col_name, justify="left" if col_name == "id" else "right")
        for m in result.matches:
            table.add_row(
                markup_safe(m.id),
                msg.fmt(m.resemblance, ".4f"),
                msg.fmt(m.containment_query_in_doc, ".4f"),
                msg.fmt(m.containment_doc_in_query, ".4f"),
                str(m.shared),
                str(m.group),
                *([msg.fmt(m.combined, ".4f")] if m.combined is not None else []),
            )
        console.print(table)
    print_not_listed(console, result)
    if alignment is not None and fragments:
        from neardup.report.fragments import print_terminal

        print_terminal(alignment, console, query_title=file, summary=False, lang=msg.language())
    if html_report:
        console.print(msg.say("check_html_written", path=markup_safe(html_report)))
    if pdf_report:
        console.print(msg.say("check_pdf_written", path=markup_safe(pdf_report)))


@index.command("remove")
@click.argument("db", metavar="DB")
@click.argument("ids", metavar="ID...", nargs=-1, required=True)
def remove(db: str, ids: tuple[str, ...]) -> None:
    """Remove documents by id (all or nothing: an unknown id removes none)."""
    with _collection(db) as col:
        n = col.remove(ids)
        left = len(col)
    click.echo(msg.say("index_removed", n=n, left=left))


@index.command("groups")
@click.argument("db", metavar="DB")
@click.option(
    "--min-size",
    type=COUNT,
    default=2,
    show_default=True,
    help="Show groups of at least this many documents.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON lines, one group each.")
def groups(db: str, min_size: int, as_json: bool) -> None:
    """Duplicate groups: id (smallest member key), representative (first admitted), members."""
    with _collection(db, readonly=True) as col:
        found = col.groups(min_size=min_size)
    if as_json:
        for g in found:
            click.echo(json.dumps(g.to_dict(), ensure_ascii=False))
        return
    if not found:
        click.echo(msg.say("no_groups"))
        return
    for g in found:
        others = [printable(m) for m in g.members if m != g.representative]
        click.echo(
            msg.say(
                "group_line",
                id=g.id,
                size=g.size,
                representative=printable(g.representative),
                others=", ".join(others),
            )
        )


@index.command("stats")
@click.argument("db", metavar="DB")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def stats(db: str, as_json: bool) -> None:
    """Documents, groups, postings, bytes and settings of the collection."""
    with _collection(db, readonly=True) as col:
        info = col.stats()
    if as_json:
        click.echo(json.dumps(info, ensure_ascii=False))
        return
    for key, value in info.items():
        if isinstance(value, float):
            value = msg.fmt(value, ".2f")
        elif isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in value.items())
        click.echo(f"{key:24} {printable(str(value))}")


@index.command("verify")
@click.argument("db", metavar="DB")
def integrity(db: str) -> None:
    """Check every stored invariant of the collection (postings, lookups, fingerprints, links,
    groups, the key counter); list what is wrong and exit 1, or say it is consistent.

    Reads the whole collection: minutes for millions of documents.
    """
    with _collection(db, readonly=True) as col:
        problems = col.verify_integrity()
        count = len(col)
    for problem in problems:
        click.echo(printable(problem))
    if problems:
        raise StorageError(msg.say("verify_problems", n=len(problems), db=db))
    click.echo(msg.say("verify_ok", db=db, count=count))


@index.command("export")
@click.argument("db", metavar="DB")
@click.argument("out", metavar="OUT")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "csv"]),
    default=None,
    help="Output format (default: csv for .csv names, JSONL otherwise; .gz compresses).",
)
def export(db: str, out: str, fmt: str | None) -> None:
    """Write every document (id, key, group, representative, shingles, meta, text) to OUT.

    OUT ``-`` writes to standard output.
    """
    with _collection(db, readonly=True) as col:
        n = col.export(out, fmt=fmt)
    if out != "-":
        click.echo(msg.say("exported", n=n, out=out), err=False)
    else:
        sys.stdout.flush()


COMMANDS = [index]

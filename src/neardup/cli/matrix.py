"""``neardup matrix``: the similarity matrix of a set of texts (the TF-IDF news-similarity paper,
Table 1)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from neardup.cli._documents import read_options, reader_options, report_skipped
from neardup.cli._options import spec_from_options, spec_options
from neardup.cli._plot import checked_plot_path, write_plot
from neardup.cli._types import field_type
from neardup.cli.messages import fmt, say
from neardup.defaults import DEFAULTS
from neardup.errors import InputError
from neardup.score.matrix import METHODS, SimilarityMatrix, plot_heatmap, similarity_matrix
from neardup.score.tfidf import IDF_MODES
from neardup.spec import SketchSpec

#: The image formats of --plot (matplotlib chooses by the suffix).
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def _read(files: tuple[str, ...], **read_options: Any) -> tuple[list[str], list[str]]:
    from neardup.inputs import CorpusReader

    ids: list[str] = []
    texts: list[str] = []
    reader = CorpusReader(files, **read_options)
    report_skipped(reader)
    for doc in reader:
        ids.append(doc.id)
        texts.append(doc.text)
    if not texts:
        raise InputError("no texts in the given inputs")
    seen: set[str] = set()
    for doc_id in ids:
        if doc_id in seen:
            raise InputError(f"the id {doc_id!r} appears twice in the inputs; ids must be unique")
        seen.add(doc_id)
    return ids, texts


def _table(result: SimilarityMatrix) -> Table:
    # ids are text, never markup: an id cut to "[/b]…" would be a closing tag to rich
    short = [escape(i if len(i) <= 18 else "…" + i[-17:]) for i in result.ids]
    kind = say("matrix_symmetric" if result.symmetric else "matrix_asymmetric")
    table = Table(title=f"{result.method} ({kind})", show_header=True)
    table.add_column(say("matrix_corner"))
    for name in short:
        table.add_column(name, justify="right")
    for name, row in zip(short, result.matrix.tolist()):
        table.add_row(name, *(fmt(v, ".4f") for v in row))
    return table


@click.command()
@click.argument("files", nargs=-1, required=True, metavar="FILES…")
@click.option(
    "--method",
    "-m",
    type=click.Choice(METHODS),
    default=DEFAULTS.matrix,
    show_default=True,
    help="combined (the calibrated combined score of neardup.score.combined, whose 0.5 means a "
    "duplicate, docs/quality.md), containment |Si∩Sj|/|Si| "
    "(asymmetric), resemblance (Jaccard), sorensen, minhash (estimated resemblance) or tfidf "
    "(cosine of TF-IDF vectors).",
)
@spec_options
@click.option("--csv", "as_csv", is_flag=True, help="Print the matrix as CSV (a header of ids).")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"ids": [...], "matrix": [[...], ...], ...}: '
    "row i, column j = text i against text j.",
)
@click.option(
    "--plot",
    "plot_path",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Also draw a heat map into this image file (.png, .svg, .pdf; needs neardup[plot]).",
)
@click.option(
    "--idf",
    type=click.Choice(IDF_MODES),
    default="smooth",
    show_default=True,
    help="tfidf: smooth ln((1+N)/(1+df))+1, plain ln(N/df)+1, or paper ln(N/df) "
    "(the TF-IDF news-similarity paper).",
)
@click.option(
    "--binary",
    is_flag=True,
    help="tfidf: count each term once per text (the TF-IDF news-similarity paper drops repeats).",
)
@click.option(
    "--num-perm",
    type=field_type(SketchSpec, "num_perm"),
    default=None,
    help="minhash: number of hash functions (default 128).",
)
@click.option(
    "--id-field", default="id", show_default=True, help="JSONL/CSV inputs: the field of the id."
)
@click.option(
    "--text-field",
    default="text",
    show_default=True,
    help="JSONL/CSV inputs: the field of the text.",
)
@reader_options
def matrix(
    files: tuple[str, ...],
    method: str,
    as_csv: bool,
    as_json: bool,
    plot_path: str | None,
    idf: str,
    binary: bool,
    num_perm: int | None,
    id_field: str,
    text_field: str,
    **options: Any,
) -> None:
    """Print the similarity matrix of a set of texts: every text against every other.

    FILES are text files (any supported encoding, plain text or HTML; the id is the path),
    datasets (.jsonl, .csv, optionally .gz, .parquet) with an id and a text field, or folders
    of them (docs/guide.md "Inputs"). Row i, column j holds text i measured against text j.
    The default, the combined score, is one calibrated model over several measures (0.5: a
    duplicate, on a sentence as on a document), the default because no single measure ranks
    every kind of pair well (docs/quality.md). For containment, the share of
    text i's shingles found in text j (so the matrix is not symmetric); the other methods are
    symmetric. The diagonal is 1 (0 for a text with no shingles).

    Shingles follow the spec flags (-k, --preset, …); tfidf and combined use only the analyzer.
    Example, the TF-IDF news-similarity paper's Table 1: neardup matrix news.jsonl -k 4 --method
    containment
    """
    if as_csv and as_json:
        raise click.UsageError("give --csv or --json, not both")
    plot_target = checked_plot_path(plot_path, PLOT_SUFFIXES) if plot_path else None
    spec = spec_from_options(options)
    ids, texts = _read(files, id_field=id_field, text_field=text_field, **read_options(options))
    progress = Progress(
        TextColumn(say("progress_analyzing")),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
        disable=len(texts) < 50,
    )
    with progress:
        task = progress.add_task("analyzing", total=len(texts))
        result = similarity_matrix(
            texts,
            ids=ids,
            method=method,
            spec=spec,
            idf=idf,
            binary=binary,
            num_perm=num_perm,
            progress=lambda n: progress.advance(task, n),
        )
    if plot_target is not None:
        write_plot(plot_target, lambda path: plot_heatmap(result, path))
    if as_json:
        click.echo(json.dumps(result.to_dict(), ensure_ascii=False))
    elif as_csv:
        sys.stdout.write(result.to_csv())
    else:
        console = Console()
        console.print(_table(result))
        if plot_path:
            console.print(say("matrix_plot_written", path=plot_path), markup=False, highlight=False)


COMMANDS = [matrix]

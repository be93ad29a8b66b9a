"""``neardup bloom``: the pseudo-matrix Bloom filter paper's Bloom filter sizing, and a
pseudo-matrix filter over a corpus."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from neardup.cli import messages as msg
from neardup.cli._documents import read_input
from neardup.cli._options import spec_from_options, spec_options
from neardup.errors import DuplicateIdError, InputError

#: The largest --bloom-seed: the kernels hash with a 64-bit seed (as ``pseudo_matrix.MAX_SEED``;
#: not imported from there, which would load numba for ``--help``).
MAX_SEED = 2**64 - 1

_FORMATS = click.Choice(["text", "jsonl", "csv", "parquet"])


@click.group()
def bloom() -> None:
    """Bloom filters for fast text comparison (the pseudo-matrix Bloom filter paper): sizing, and a
    pseudo-matrix filter that proposes the documents a text may have borrowed from.

    \b
      neardup bloom size --n 123000 --p 0.05
      neardup bloom build corpus.jsonl.gz -o corpus.pmbf
      neardup bloom query corpus.pmbf essay.txt
    """


def _p_option(default: float) -> Any:
    return click.option(
        "--p",
        "p",
        type=click.FloatRange(min=0.0, max=1.0, min_open=True, max_open=True),
        default=default,
        show_default=True,
        help="Accepted false-positive risk of one row at capacity.",
    )


def _corpus_options(func: Any) -> Any:
    for option in reversed(
        [
            click.option(
                "--id-field", default="id", show_default=True, help="Id field of datasets."
            ),
            click.option(
                "--text-field", default="text", show_default=True, help="Text field of datasets."
            ),
            click.option(
                "--format", "fmt", type=_FORMATS, default=None, help="Read every file as this."
            ),
        ]
    ):
        func = option(func)
    return func


def _progress(what: str) -> Progress:
    console = Console(stderr=True)
    return Progress(
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )


@bloom.command()
@click.option(
    "--n",
    "n",
    type=click.IntRange(min=1),
    required=True,
    help="Elements (shingles) one filter — one row — must hold.",
)
@_p_option(0.05)
@click.option(
    "--k", "k", type=click.IntRange(min=1), default=None, help="Hash functions (default: best)."
)
@click.option(
    "--documents",
    type=click.IntRange(min=1),
    default=None,
    help="Documents in the corpus (with --total-shingles): rows and size, the paper's Table 1.",
)
@click.option(
    "--total-shingles",
    type=click.IntRange(min=1),
    default=None,
    help="Shingles (about words) of the whole corpus.",
)
@click.option(
    "--paper", is_flag=True, help="The paper's corpus: 14,428 documents, 4,489 rows of n."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def size(
    n: int,
    p: float,
    k: int | None,
    documents: int | None,
    total_shingles: int | None,
    paper: bool,
    as_json: bool,
) -> None:
    """The size of a Bloom filter for N elements at risk P (the pseudo-matrix Bloom filter paper,
    formulas 1 and 2): m = −n·ln p / (ln 2)², k = (m/n)·ln 2; with a corpus, the pseudo-matrix
    filter's rows (total shingles / n) and bytes beside the matrix filter's (one row per
    document)."""
    from neardup.bloom.sizing import (
        PAPER_DOCUMENTS,
        PAPER_TOTAL_SHINGLES,
        bloom_size,
        corpus_size,
    )

    if paper:
        if documents is not None or total_shingles is not None:
            raise InputError(
                "--paper sets the corpus; give it without --documents/--total-shingles"
            )
        documents, total_shingles = PAPER_DOCUMENTS, PAPER_TOTAL_SHINGLES
    if (documents is None) != (total_shingles is None):
        raise InputError("give both --documents and --total-shingles (or neither)")
    row = bloom_size(n, p, k=k)
    out: dict[str, Any] = row.to_dict()
    lines = [
        f"n = {row.n:,} elements, p = {row.p:g}",
        f"m = {row.m:,} bits ({row.bytes:,} bytes, {row.bytes / 1024:,.1f} KiB; "
        f"{row.bits_per_element:.2f} bits per element)",
        f"k = {row.k} hash functions; false-positive rate at n: {row.fp_rate:.4f}",
    ]
    if documents is not None and total_shingles is not None:
        corpus = corpus_size(n, p, documents=documents, total_shingles=total_shingles, k=k)
        out = corpus.to_dict()
        lines += [
            f"corpus: {documents:,} documents, {total_shingles:,} shingles "
            f"({corpus.mean_shingles:,.0f} per document)",
            f"pseudo-matrix filter: d = {corpus.rows:,} rows, M = {corpus.bytes:,} bytes "
            f"({corpus.bytes / 2**20:,.1f} MiB)",
            f"matrix filter (one document a row): {corpus.matrix_rows:,} rows, "
            f"{corpus.matrix_bytes / 2**20:,.1f} MiB — {corpus.compression:.2f}× the rows",
        ]
    if as_json:
        click.echo(json.dumps(out))
    else:
        click.echo("\n".join(lines))


@bloom.command()
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...")
@click.option(
    "-o", "--output", required=True, type=click.Path(dir_okay=False), help="The filter file."
)
@click.option(
    "--n",
    "n",
    type=click.IntRange(min=1),
    default=2_000,
    show_default=True,
    help="Row capacity in shingles (about the 95th percentile of document sizes).",
)
@_p_option(0.001)
@click.option(
    "--placement",
    type=click.Choice(["split", "whole"]),
    default="split",
    show_default=True,
    help="split: a document larger than a row's free space spans rows; whole: never split.",
)
@click.option(
    "--measure",
    type=click.Choice(["bits", "members"]),
    default="members",
    show_default=True,
    help="Row score: query shingles present in the row, or shared 1-bits (the paper's; it "
    "misses short pastes, see docs/bloom.md).",
)
@click.option(
    "--threshold",
    type=float,
    default=5.0,
    show_default=True,
    help="Default score threshold of queries (standard deviations above the background).",
)
@click.option(
    "--bloom-seed",
    type=click.IntRange(min=0, max=MAX_SEED),
    default=0,
    show_default=True,
    help="Hash seed (a 64-bit number).",
)
@_corpus_options
@spec_options
def build(
    inputs: tuple[str, ...],
    output: str,
    n: int,
    p: float,
    placement: str,
    measure: str,
    threshold: float,
    bloom_seed: int,
    id_field: str,
    text_field: str,
    fmt: str | None,
    **spec_flags: Any,
) -> None:
    """Build a pseudo-matrix Bloom filter over a corpus: every document's shingle
    fingerprints placed in rows of N shingles at risk P. INPUT is a text file, a folder or a
    dataset (.jsonl[.gz], .csv, .parquet), as for `neardup index add`."""
    from neardup.bloom.file import BloomIndex
    from neardup.bloom.pseudo_matrix import PseudoMatrixBloomFilter
    from neardup.fingerprints.pipeline import Pipeline
    from neardup.inputs import count_inputs, iter_inputs

    spec = spec_from_options(spec_flags)
    pipeline = Pipeline(spec)
    filt = PseudoMatrixBloomFilter(
        n=n,
        p=p,
        seed=bloom_seed,
        placement=placement,  # type: ignore[arg-type]
        measure=measure,  # type: ignore[arg-type]
        threshold=threshold,
    )
    ids = count_inputs(inputs, id_field=id_field, text_field=text_field, fmt=fmt)
    seen: set[str] = set()
    for doc_id in ids:
        if doc_id in seen:
            raise DuplicateIdError(f"the id {doc_id!r} appears twice in the input")
        seen.add(doc_id)
    shingles = 0
    with _progress("building") as progress:
        task = progress.add_task("build", total=len(ids))
        docs = iter_inputs(inputs, id_field=id_field, text_field=text_field, fmt=fmt)
        for key, doc in enumerate(docs):
            values = pipeline.fingerprints(doc.text).values
            filt.add(key, values)
            shingles += int(values.shape[0])
            progress.update(task, advance=1)
    written = BloomIndex(filt, list(ids), spec).save(output)
    click.echo(
        msg.say(
            "bloom_built",
            output=output,
            documents=len(ids),
            shingles=shingles,
            rows=filt.n_rows,
            m=filt.m,
            k=filt.k,
            row_bytes=filt.rows.nbytes,
            written=written,
        )
    )


@bloom.command()
@click.argument("filter_file", metavar="FILTER", type=click.Path(dir_okay=False))
@click.argument("text", metavar="FILE")
@click.option("--threshold", type=float, default=None, help="Row score threshold (default: built).")
@click.option(
    "--measure",
    type=click.Choice(["bits", "members"]),
    default=None,
    help="Row score (default: as built).",
)
@click.option("--max-rows", type=click.IntRange(min=1), default=None, help="Best rows only.")
@click.option(
    "--top",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Show at most this many documents, strongest first (after the exact check).",
)
@click.option(
    "--fragments",
    "corpus",
    multiple=True,
    metavar="INPUT",
    help="The corpus the filter was built from (repeatable): mark the passages shared with "
    "each match (neardup.passages.align).",
)
@_corpus_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def query(
    filter_file: str,
    text: str,
    threshold: float | None,
    measure: str | None,
    max_rows: int | None,
    top: int,
    corpus: tuple[str, ...],
    id_field: str,
    text_field: str,
    fmt: str | None,
    as_json: bool,
) -> None:
    """Which documents of the filter a text (FILE, or - for stdin) may have borrowed from:
    rows scoring above the background name their documents (stage 1), which are then compared
    exactly by their fingerprints (stage 2: shared shingles, containment both ways) and, with
    --fragments, aligned to mark the shared passages."""
    from neardup.bloom.file import BloomIndex
    from neardup.bloom.search import mark_fragments, verify
    from neardup.fingerprints.pipeline import Pipeline
    from neardup.inputs import iter_inputs
    from neardup.passages.align import Aligner

    index = BloomIndex.load(filter_file)
    query_text = read_input(text).text
    fps = Pipeline(index.spec).fingerprints(query_text).values
    found = index.bloom.candidates(
        fps,
        threshold=threshold,
        max_rows=max_rows,
        measure=measure,  # type: ignore[arg-type]
    )
    verified = verify(
        index.bloom,
        fps,
        threshold=threshold,
        max_rows=max_rows,
        measure=measure,  # type: ignore[arg-type]
    )[:top]
    if corpus:
        wanted = {index.ids[v.key]: v.key for v in verified}
        texts = {
            wanted[doc.id]: doc.text
            for doc in iter_inputs(corpus, id_field=id_field, text_field=text_field, fmt=fmt)
            if doc.id in wanted
        }
        verified = mark_fragments(verified, query_text, texts, aligner=Aligner(index.spec))
    rows: list[dict[str, Any]] = [
        {
            "id": index.ids[v.key],
            "score": v.score,
            "shared": v.measures.shared,
            "containment_query_in_doc": v.measures.containment_ab,
            "containment_doc_in_query": v.measures.containment_ba,
            "resemblance": v.measures.resemblance,
            "passages": (
                [p.to_dict() for p in v.fragments.passages] if v.fragments is not None else None
            ),
        }
        for v in verified
    ]
    if as_json:
        summary = {
            "shingles": int(fps.shape[0]),
            "rows": index.bloom.n_rows,
            "rows_above": len(found.rows),
            "candidates": len(found),
            "matches": rows,
        }
        click.echo(json.dumps(summary))
        return
    click.echo(
        msg.say(
            "bloom_query",
            shingles=fps.shape[0],
            above=len(found.rows),
            rows=index.bloom.n_rows,
            candidates=len(found),
            verified=len(verified),
        )
    )
    if rows:
        table = Table()
        for name in ("id", "row z", "shared", "text in doc", "doc in text"):
            table.add_column(msg.column(name), justify="left" if name == "id" else "right")
        for r in rows:
            table.add_row(
                str(r["id"]),
                msg.fmt(r["score"], ".1f"),
                str(r["shared"]),
                msg.fmt(r["containment_query_in_doc"], ".4f"),
                msg.fmt(r["containment_doc_in_query"], ".4f"),
            )
        Console().print(table)
    for r in rows:
        for p in r["passages"] or []:
            snippet = p["a_text"] if len(p["a_text"]) <= 200 else p["a_text"][:197] + "…"
            click.echo(
                msg.say(
                    "bloom_passage",
                    id=r["id"],
                    number=p["number"],
                    a_start=p["a_start"],
                    a_end=p["a_end"],
                    b_start=p["b_start"],
                    b_end=p["b_end"],
                    snippet=snippet,
                )
            )


COMMANDS = [bloom]

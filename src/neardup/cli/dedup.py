"""``neardup dedup``: deduplicate a corpus into a directory (local engine, or Apache Spark)."""

from __future__ import annotations

import json
from typing import Any

import click

from neardup.cli._options import jobs_option, spec_from_options, spec_options
from neardup.cli._types import field_default, field_option, field_type
from neardup.corpus import DedupOptions
from neardup.corpus.cleaning import CleanOptions
from neardup.errors import InputError
from neardup.spec import SketchSpec

#: The command's options that are DedupOptions fields (the rest are how to read and write).
OPTION_NAMES = tuple(DedupOptions.__dataclass_fields__)
#: The command's options that are CleanOptions fields (exact copies, repeated spans).
CLEAN_NAMES = tuple(CleanOptions.__dataclass_fields__)


@click.command()
@click.argument("inputs", metavar="INPUT...", nargs=-1, required=True)
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(),
    help="The output directory (documents, edges, summary.json, spec.json).",
)
@spec_options
@field_option(
    DedupOptions,
    "threshold",
    "--threshold",
    "-t",
    help="Two documents join a group when their verified measure is at least this.",
)
@field_option(
    DedupOptions,
    "measure",
    "--measure",
    help="Resemblance (Jaccard), or containment (the larger of A⊂B and B⊂A).",
)
@field_option(
    DedupOptions,
    "verify",
    "--verify",
    help="Score candidates exactly from the fingerprint sets, or by the MinHash estimate.",
)
@click.option(
    "--keep",
    default="first",
    show_default=True,
    help="Which document of a group is kept: first, longest, max:FIELD or min:FIELD "
    "(a metadata column; missing values rank last).",
)
@field_option(
    DedupOptions,
    "num_perm",
    "--num-perm",
    "-N",
    help="MinHash functions.",
)
@click.option(
    "--minhash-family",
    type=click.Choice(SketchSpec.FAMILIES),
    default=field_default(SketchSpec, "family"),
    show_default=True,
    help="MinHash functions: splitmix, affine (the classic (a·x + b) mod 2^61-1) or oph1 (one "
    "permutation hashing, densified: one hash an element).",
)
@click.option(
    "--bands",
    type=field_type(DedupOptions, "bands"),
    default=0,
    help="LSH bands (default: the chooser's).",
)
@click.option(
    "--rows",
    type=field_type(DedupOptions, "rows"),
    default=0,
    help="Rows per band (default: the chooser's).",
)
@field_option(
    DedupOptions,
    "window",
    "--window",
    help="A bucket's documents are paired with the next WINDOW of them (all pairs below).",
)
@field_option(
    DedupOptions,
    "winnow",
    "--winnow",
    help="Also take as candidates documents that share a winnowed sample over windows of "
    "WINNOW shingles (the collection's; 24 is its default): finds a text pasted inside a "
    "much longer one, for --measure containment. 0: LSH bands only.",
)
@field_option(
    CleanOptions,
    "exact",
    "--exact",
    help="Drop exact copies first, by a hash of the canonical text (case, spacing, markup "
    "and folded tricks aside) or of the raw text; each joins its first copy's group.",
)
@field_option(
    CleanOptions,
    "level",
    "--level",
    help="After the near-duplicate documents, cut out of the kept ones every line, paragraph "
    "or sentence whose canonical text occurs in more than --span-docs documents "
    "(spans.jsonl lists the cuts).",
)
@field_option(
    CleanOptions,
    "span_docs",
    "--span-docs",
    help="A span found in more than this many documents is boilerplate and cut.",
)
@field_option(
    CleanOptions,
    "span_min_tokens",
    "--span-min-tokens",
    help="A document left with fewer tokens than this after a cut is dropped (kept false).",
)
@field_option(
    CleanOptions,
    "span_counting",
    "--span-counting",
    help="exact: hash counts (spilled to disk past --span-memory-mb); approximate: a 40 MB "
    "count-min sketch whose error bound is printed.",
)
@field_option(
    CleanOptions,
    "span_memory_mb",
    "--span-memory-mb",
    help="Exact counting holds at most this many MB of span keys in memory.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["jsonl", "parquet"]),
    default="jsonl",
    show_default=True,
    help="Format of the documents and edges files.",
)
@click.option("--kept-only", is_flag=True, help="Write only the kept documents.")
@click.option("--id-field", default="id", show_default=True, help="Id field of datasets.")
@click.option("--text-field", default="text", show_default=True, help="Text field of datasets.")
@click.option(
    "--input-format",
    type=click.Choice(["text", "jsonl", "csv", "parquet"]),
    default=None,
    help="Read every input file so (default: by its name).",
)
@jobs_option(
    "Local engine: worker processes, each reading its own byte slices of plain JSONL input; "
    "--engine spark: the master local[JOBS] (local[*] for 0). The result does not depend on it."
)
@click.option(
    "--engine",
    type=click.Choice(["local", "spark"]),
    default="local",
    show_default=True,
    help="local: this machine; spark: Apache Spark (neardup[spark]; --master).",
)
@click.option(
    "--master",
    default=None,
    help="Spark master URL with --engine spark (default: local[JOBS]): e.g. spark://HOST:7077, "
    "yarn, or local-cluster[2,1,1024] (two executor JVMs of 1 core and 1024 MiB on this machine).",
)
@click.option("--overwrite", is_flag=True, help="Replace an existing output of the same spec.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
def dedup(inputs: tuple[str, ...], **options: Any) -> None:
    """Deduplicate the documents of INPUT... (files, folders, JSONL(.gz), CSV, Parquet).

    Candidates come from MinHash LSH bands chosen for the threshold; every candidate pair is
    verified before it joins two documents; groups are the connected components. The
    preset defaults to auto (ru or en by each document's script).
    """
    ctx = click.get_current_context()
    source = ctx.get_parameter_source("preset")
    if source is not None and source.name == "DEFAULT":
        options["preset"] = "auto"
    short = ctx.get_parameter_source("short_below")
    if short is not None and short.name != "DEFAULT" and options["short_below"]:
        raise InputError(
            "dedup does not apply the short-text rule (--short-below): it compares a pair by "
            "the length of its shorter text, while MinHash LSH signs each document once; every "
            "pair is compared on the spec's own shingles (spec.json records short_below 0)"
        )
    spec = spec_from_options(options)
    family = options.pop("minhash_family")
    if family != field_default(SketchSpec, "family"):
        spec = spec.replace(sketch=SketchSpec(family=family))
    engine = options.pop("engine")
    master = options.pop("master")
    quiet = options.pop("quiet")
    dedup_options = DedupOptions(**{name: options.pop(name) for name in OPTION_NAMES})
    clean = CleanOptions(**{name: options.pop(name) for name in CLEAN_NAMES})
    common = {
        "spec": spec,
        "output_format": options["output_format"],
        "kept_only": options["kept_only"],
        "id_field": options["id_field"],
        "text_field": options["text_field"],
        "input_format": options["input_format"],
        "overwrite": options["overwrite"],
    }
    if engine == "spark":
        from neardup.spark import dedup_files

        summary = dedup_files(
            list(inputs),
            options["out"],
            dedup_options,
            master=master or f"local[{options['jobs'] or '*'}]",
            clean=clean,
            **common,
        )
        click.echo(json.dumps(summary, ensure_ascii=False))
        return
    if master:
        raise InputError("--master goes with --engine spark")
    from neardup.corpus import dedup as run

    result = run(
        list(inputs),
        options["out"],
        dedup_options,
        jobs=options["jobs"],
        progress=not quiet,
        clean=clean,
        **common,
    )
    summary = result.to_dict()
    from neardup.cli.messages import say

    click.echo(
        say(
            "dedup_summary",
            documents=result.documents,
            groups=result.groups,
            duplicate_groups=result.duplicate_groups,
            removed=result.removed,
            verified=result.verified_pairs,
            candidates=result.candidate_pairs,
            seconds=summary["seconds"]["total"],
            out=result.out,
        )
    )
    _say_cleaning(summary)
    tricks = result.tricks
    if tricks.get("documents"):
        kinds = ", ".join(f"{kind} {count}" for kind, count in tricks["kinds"].items())
        click.echo(
            say(
                "dedup_tricks",
                documents=tricks["documents"],
                suspicious=tricks["suspicious"],
                kinds=kinds,
            )
        )


def _say_cleaning(summary: dict[str, Any]) -> None:
    """The cleaning lines of the printed summary (only for the stages that ran)."""
    from neardup.cli.messages import say

    if "exact_duplicates" in summary:
        click.echo(say("dedup_exact", copies=summary["exact_duplicates"]))
    spans = summary.get("spans")
    if spans:
        click.echo(
            say(
                "dedup_spans",
                level=spans["level"],
                spans=spans["spans_removed"],
                chars=spans["chars_removed"],
                documents=spans["documents_cut"],
                dropped=spans["documents_dropped"],
            )
        )
        bound = spans.get("error_bound")
        if bound:
            click.echo(
                say(
                    "dedup_count_min",
                    overcount=bound["max_overcount"],
                    confidence=round(100 * (1 - bound["delta"]), 1),
                    megabytes=round(bound["memory_bytes"] / 2**20),
                )
            )


COMMANDS = [dedup]

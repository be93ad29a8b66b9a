"""``neardup sign`` (MinHash signatures of a corpus, streamed to a signature directory) and
``neardup params`` (S-curves of supershingles / LSH bands / megashingles, and a chooser)."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from neardup._constraints import Integer, Real
from neardup.cli._documents import read_options, reader_options, report_skipped
from neardup.cli._options import jobs_option, spec_from_options, spec_options
from neardup.cli._types import constraint_type, field_default, field_option
from neardup.cli.messages import say
from neardup.defaults import DEFAULTS
from neardup.errors import InputError, SpecError
from neardup.spec import SketchSpec

#: --bands and --rows, when given: at least 1, at most what the sketch spec allows.
POSITIVE_BANDS = constraint_type(Integer(1, SketchSpec.MAX_NUM_PERM))
#: A chooser weight: a finite number, zero or more.
WEIGHT = Real(0.0, 1e6)
MAX_BATCH_SIZE = 1_000_000
DEFAULT_AT = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)


def _sketch_from_options(
    num_perm: int,
    sketch_seed: int,
    value_bits: int,
    bands: int | None,
    rows: int | None,
    mega: bool,
    family: str = "splitmix",
) -> SketchSpec:
    return SketchSpec(
        method="minhash",
        family=family,
        num_perm=num_perm,
        seed=sketch_seed,
        value_bits=value_bits,
        bands=bands or 0,
        rows=rows or 0,
        mega=mega,
    )


@click.command()
@click.argument("inputs", metavar="INPUT...", nargs=-1, required=True)
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(file_okay=False),
    help="The signature directory to write (spec.json, signatures.npy, ids.json).",
)
@spec_options
@field_option(
    SketchSpec,
    "num_perm",
    "--num-perm",
    "-N",
    help="Number of MinHash functions (signature length).",
)
@field_option(
    SketchSpec,
    "seed",
    "--sketch-seed",
    help="Seed the MinHash functions are derived from.",
)
@click.option(
    "--value-bits",
    type=click.Choice(["32", "64"]),
    default="64",
    show_default=True,
    help="Width of each stored minhash: 64, or 32 (the top half; half the space).",
)
@click.option(
    "--minhash-family",
    type=click.Choice(SketchSpec.FAMILIES),
    default=field_default(SketchSpec, "family"),
    show_default=True,
    help="MinHash functions: splitmix (splitmix64(x ^ s_i), 64-bit bijections), affine "
    "(the classic (a_i·x + b_i) mod 2^61-1, a_i and b_i from the seed) or oph1 (one "
    "permutation hashing with optimal densification: one hash an element, whatever --num-perm).",
)
@click.option(
    "--bands",
    type=POSITIVE_BANDS,
    default=None,
    help="Supershingles / LSH bands M recorded in the spec (rows = N / M if --rows is not given).",
)
@click.option(
    "--rows", type=POSITIVE_BANDS, default=None, help="Minhashes L per band / supershingle."
)
@click.option(
    "--mega", is_flag=True, help="Record megashingles (pairs of supershingles) in the spec."
)
@click.option(
    "--text-field", default="text", show_default=True, help="JSONL field holding the text."
)
@click.option("--id-field", default="id", show_default=True, help="JSONL field holding the id.")
@jobs_option("Threads or processes, see --executor. The signatures do not depend on it.")
@click.option(
    "--executor",
    type=click.Choice(["auto", "thread", "process"]),
    default="auto",
    show_default=True,
    help="How --jobs > 1 runs: threads (they scale when the whole analysis runs in "
    "kernels: the presets with rabin word shingles), processes (each reads its own share of "
    "the input; for specs signed document by document: char shingles, multisets, other hash "
    "families; on an input under 4 MB, threads instead); auto: threads where they scale or "
    "the input is under 4 MB, else processes.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(1, MAX_BATCH_SIZE),
    default=256,
    show_default=True,
    help="Documents signed per batch (one kernel call each).",
)
@click.option("--force", is_flag=True, help="Replace OUTPUT if it exists.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@reader_options
def sign(
    inputs: tuple[str, ...],
    output: str,
    num_perm: int,
    sketch_seed: int,
    value_bits: str,
    minhash_family: str,
    bands: int | None,
    rows: int | None,
    mega: bool,
    text_field: str,
    id_field: str,
    jobs: int,
    executor: str,
    batch_size: int,
    force: bool,
    quiet: bool,
    **options: Any,
) -> None:
    """Sign texts with MinHash and write a signature directory.

    INPUT is a dataset (.jsonl, .ndjson, .csv, optionally .gz, or .parquet, with the fields
    --id-field and --text-field), a folder (every text and dataset under it, docs/guide.md
    "Inputs"; a text's id is its relative path) or a text file (the id is its path).
    Signatures are written as they are made, so memory stays flat whatever the corpus size.
    The format is described in docs/sketches.md; `neardup.sketch.read_signatures` reads it back.
    """
    from neardup.inputs import CorpusReader
    from neardup.sketch.parallel import sign_reader, workers_for
    from neardup.sketch.signatures import SignatureWriter

    sketch = _sketch_from_options(
        num_perm, sketch_seed, int(value_bits), bands, rows, mega, minhash_family
    )
    spec = spec_from_options(options).replace(sketch=sketch)
    reader = CorpusReader(inputs, text_field=text_field, id_field=id_field, **read_options(options))
    report_skipped(reader)
    workers = workers_for(jobs)
    console = Console(stderr=True)
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    progress = Progress(
        TextColumn(say("progress_signing")),
        BarColumn(),
        DownloadColumn(),
        TextColumn(say("progress_docs")),
        TimeRemainingColumn(),
        console=console,
        disable=quiet or not console.is_terminal,
    )
    with progress, SignatureWriter(output, spec, overwrite=force) as writer:
        task = progress.add_task("sign", total=reader.total_bytes, docs=0)
        for ids, values in sign_reader(
            spec,
            reader,
            jobs=workers,
            batch_size=batch_size,
            executor=executor,  # type: ignore[arg-type]
        ):
            writer.write(ids, values)
            progress.update(task, completed=reader.bytes_read, docs=writer.count)
    click.echo(
        say(
            "signatures_written",
            count=writer.count,
            s="" if writer.count == 1 else "s",
            num_perm=sketch.num_perm,
            bits=sketch.value_bits,
            output=output,
            spec=spec.fingerprint(),
        ),
        err=True,
    )


def _similarity(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"a similarity must be a number in [0, 1], got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise InputError(f"a similarity must be in [0, 1], got {text}")
    return value


def _complete(bands: int | None, rows: int | None, num_perm: int) -> tuple[int, int]:
    """Bands and rows when one of them may be missing: the other is N divided by it."""
    if bands is not None and rows is not None:
        return bands, rows
    given, name = (bands, "bands") if bands is not None else (rows, "rows")
    assert given is not None
    if num_perm % given:
        raise SpecError(
            f"--num-perm {num_perm} is not divisible by --{name} {given}; give both "
            "--bands and --rows, or a --num-perm that is a multiple"
        )
    other = num_perm // given
    return (given, other) if name == "bands" else (other, given)


def _config(item: str, mega: bool) -> tuple[int, int, bool]:
    """One ``--compare MxL`` curve."""
    try:
        m, l_ = (int(x) for x in item.lower().replace("×", "x").split("x"))
    except ValueError:
        raise InputError(f"--compare takes MxL, e.g. 14x6; got {item!r}") from None
    high = SketchSpec.MAX_NUM_PERM
    if not (1 <= m <= high and 1 <= l_ <= high):
        raise InputError(f"--compare needs M and L in [1, {high}], got {item!r}")
    return m, l_, mega and m >= 2


@click.command()
@click.argument("more", metavar="[S...]", nargs=-1)
@click.option(
    "--at",
    "at",
    multiple=True,
    metavar="S",
    help="Similarities to evaluate: --at 0.5 0.7 0.9 (default 0.1 … 1.0).",
)
@click.option(
    "--bands", "-b", type=POSITIVE_BANDS, default=None, help="Supershingles / LSH bands M."
)
@click.option(
    "--rows", "-r", type=POSITIVE_BANDS, default=None, help="Minhashes L per supershingle / band."
)
@field_option(
    SketchSpec,
    "num_perm",
    "--num-perm",
    "-N",
    help="Minhashes available: the chooser's budget; rows = N / bands when only --bands is given.",
)
@click.option(
    "--mega", is_flag=True, help="Megashingles: a candidate needs ≥ 2 shared supershingles."
)
@click.option(
    "--threshold",
    "-t",
    type=constraint_type(Real(0.0, 1.0, low_open=True, high_open=True)),
    default=DEFAULTS.threshold,
    show_default=True,
    help="Resemblance that separates wanted pairs from unwanted ones.",
)
@click.option(
    "--fp-weight",
    type=constraint_type(WEIGHT),
    default=1.0,
    show_default=True,
    help="Chooser: weight of the false-positive area.",
)
@click.option(
    "--fn-weight",
    type=constraint_type(WEIGHT),
    default=1.0,
    show_default=True,
    help="Chooser: weight of the false-negative area.",
)
@click.option("--exact", is_flag=True, help="Chooser: use all N minhashes (bands × rows = N).")
@click.option(
    "--plot",
    "plot_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Draw the S-curve(s) into FILE (.png or .svg; needs neardup[plot]).",
)
@click.option(
    "--compare",
    "compare_with",
    multiple=True,
    metavar="MxL",
    help="More curves for the plot and table, e.g. --compare 14x6.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="JSON: with --bands/--rows an object {similarity: probability}; else the choice.",
)
def params(
    more: tuple[str, ...],
    at: tuple[str, ...],
    bands: int | None,
    rows: int | None,
    num_perm: int,
    mega: bool,
    threshold: float,
    fp_weight: float,
    fn_weight: float,
    exact: bool,
    plot_path: str | None,
    compare_with: tuple[str, ...],
    as_json: bool,
) -> None:
    """Candidate probabilities of supershingles / LSH bands / megashingles, and a chooser.

    With --bands and/or --rows: the probability that two documents of resemblance S share at
    least one of M supershingles of L minhashes, 1 − (1 − S^L)^M (with --mega: at least two,
    P(X ≥ 2) for X ~ Binomial(M, S^L)). Without them: the M × L with M·L ≤ N that minimizes
    the weighted false-positive and false-negative areas around --threshold.

    Example (the shingle-method paper): neardup params --bands 6 --rows 14 --at 0.9 0.7 0.5
    """
    from neardup.cli._plot import checked_plot_path, write_plot
    from neardup.sketch import params as P

    plot_target = checked_plot_path(plot_path, (".png", ".svg")) if plot_path else None
    if more and not at:
        raise InputError(f"unexpected argument(s) {' '.join(more)}; similarities follow --at")
    similarities = [_similarity(s) for s in (*at, *more)] or list(DEFAULT_AT)
    choice = None
    if bands is None and rows is None:
        choice = P.choose(
            threshold, num_perm, fp_weight=fp_weight, fn_weight=fn_weight, mega=mega, exact=exact
        )
        bands, rows = choice.bands, choice.rows
    else:
        bands, rows = _complete(bands, rows, num_perm)
    if mega and bands < 2:
        raise SpecError("--mega pairs supershingles: it needs --bands of at least 2")
    configs = [(bands, rows, mega), *(_config(item, mega) for item in compare_with)]
    probs = P.probability(similarities, bands, rows, mega=mega).tolist()
    if plot_target is not None:
        write_plot(plot_target, lambda path: P.plot_s_curves(path, configs, threshold=threshold))
    if as_json:
        if choice is None:
            click.echo(json.dumps({repr(s): p for s, p in zip(similarities, probs, strict=True)}))
        else:
            out: dict[str, Any] = choice.to_dict()
            out["at"] = {repr(s): p for s, p in zip(similarities, probs, strict=True)}
            click.echo(json.dumps(out))
        return
    console = Console()
    if choice is not None:
        console.print(
            f"recommended for threshold {threshold:g} with N ≤ {num_perm}"
            f"{' (all N used)' if exact else ''}: [bold]{bands} × {rows}[/bold]"
            f"{' megashingles' if mega else ''} (uses {bands * rows} minhashes; steepest near "
            f"{choice.steepest:.3f})"
        )
        console.print(
            f"false-positive area {choice.fp_area:.4f}, false-negative area {choice.fn_area:.4f} "
            f"(weights {fp_weight:g} / {fn_weight:g})"
        )
    else:
        fp, fn = P.error_areas(threshold, bands, rows, mega=mega)
        console.print(
            f"{bands} × {rows}{' megashingles' if mega else ''}: threshold {threshold:g}, "
            f"false-positive area {fp:.4f}, false-negative area {fn:.4f}, steepest near "
            f"{P.threshold_estimate(bands, rows):.3f}"
        )
    table = Table(show_header=True)
    table.add_column("similarity", justify="right")
    for m, l_, mg in configs:
        table.add_column(f"P {m}×{l_}{' mega' if mg else ''}", justify="right")
    table.add_column(f"error ({configs[0][0]}×{configs[0][1]})")
    for i, s in enumerate(similarities):
        row = [f"{s:g}"]
        for m, l_, mg in configs:
            row.append(f"{float(P.probability([s], m, l_, mega=mg)[0]):.6g}")
        kind = f"FP rate {probs[i]:.4g}" if s < threshold else f"FN rate {1 - probs[i]:.4g}"
        row.append(kind)
        table.add_row(*row)
    console.print(table)
    if plot_path:
        click.echo(say("s_curves_written", path=plot_path), err=True)


COMMANDS = [sign, params]

"""``neardup eval``: generate labelled datasets and measure methods on them.

Subcommands: ``generate`` (near-duplicates and partial copies from a real corpus),
``pairs`` (ROC AUC, P/R/F1 at a threshold and at the best one), ``clusters`` (adjusted Rand
index of thresholded similarity), ``fragments`` (PAN's precision, recall, granularity,
plagdet) and ``methods`` (what can be measured). A malformed dataset is reported with its file
and line, exit code 2.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from neardup.cli._options import spec_from_options, spec_options
from neardup.cli._types import COUNT, SHARE, constraint_type
from neardup.cli.messages import fmt, say, term
from neardup.errors import ConfigurationError, DatasetError, InputError
from neardup.eval import formats, methods, run
from neardup.eval import generate as gen

DEFAULT_THRESHOLD = 0.5


@contextmanager
def _progress(label: str, total: int | None) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr; yields ``advance(n)``."""
    console = Console(stderr=True)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    ) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)


def _floats(value: str, what: str) -> tuple[float, ...]:
    try:
        out = tuple(float(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise InputError(f"{what} must be numbers separated by commas, got {value!r}") from None
    if not out:
        raise InputError(f"{what} must list at least one number")
    return out


def _names(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(",") if v.strip())


def _params(values: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--param takes KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def _model_version(method: str) -> dict[str, int]:
    """``{"combined_version": …}`` for the combined score (a refit changes its scores)."""
    if method != "combined":
        return {}
    from neardup.score.combined import MODEL

    return {"combined_version": MODEL.version}


def _check_method(name: str) -> None:
    if name != run.GIVEN and name not in methods.METHODS:
        known = ", ".join([*sorted(methods.METHODS), run.GIVEN])
        raise ConfigurationError(f"unknown method {name!r}; known: {known}")


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else fmt(value, ".4f")
    return str(value)


method_option = click.option(
    "--method",
    "-m",
    "method",
    default="combined",
    show_default=True,
    help="The scoring method (see `neardup eval methods`); `given` takes the `score` of each "
    "pair. The default, combined, is the one `compare` and `matrix` lead with.",
)
threshold_option = click.option(
    "--threshold",
    "-t",
    type=constraint_type(SHARE),
    default=DEFAULT_THRESHOLD,
    show_default=True,
    help="Pairs scoring at least this are called duplicates.",
)
param_option = click.option(
    "--param",
    "params",
    multiple=True,
    metavar="KEY=VALUE",
    help="A parameter of the method (repeatable), e.g. --param idf=paper for tfidf. "
    f"Parameters: {methods.parameters_help()}; other methods take none.",
)
json_option = click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object instead of tables."
)
docs_option = click.option(
    "--docs",
    type=click.Path(),
    default=None,
    help="Documents (a JSONL of id, text, or any corpus: a CSV, a folder…) that ids in the "
    "dataset refer to; default: documents.jsonl beside the dataset.",
)


@click.group("eval")
def eval_group() -> None:
    """Measure detection quality on labelled datasets.

    Datasets (formats in docs/datasets.md): labelled pairs (JSONL with a, b or a_id, b_id and
    label; or TSV/CSV in the MSRP layout quality, id1, id2, string1, string2), clusters
    (JSONL: id, text, cluster) and fragment truth (JSONL: source and suspicious ids, character
    offsets and lengths). `neardup eval generate` makes them from a real corpus.
    """


@eval_group.command("methods")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def methods_command(as_json: bool) -> None:
    """List the methods `neardup eval` can measure, one name a line (with --json, details)."""
    rows = [
        {"name": m.name, "kind": "pairs", "available": m.available(), "summary": m.summary}
        for m in sorted(methods.METHODS.values(), key=lambda m: m.name)
    ]
    rows.append(
        {
            "name": run.GIVEN,
            "kind": "pairs",
            "available": True,
            "summary": "the `score` field of each pair in the file (other tools' results)",
        }
    )
    rows += [
        {"name": m.name, "kind": "fragments", "available": m.available(), "summary": m.summary}
        for m in sorted(methods.FRAGMENT_METHODS.values(), key=lambda m: m.name)
    ]
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    for row in rows:
        note = "" if row["available"] else say("eval_not_installed")
        click.echo(f"{row['name']:<14} {row['kind']:<10} {row['summary']}{note}")


@eval_group.command("generate")
@click.argument("corpus", type=click.Path(dir_okay=False))
@click.option(
    "--out",
    "-o",
    "out",
    required=True,
    type=click.Path(file_okay=False),
    help="Directory to write documents.jsonl, pairs.jsonl, fragments.jsonl, meta.json into.",
)
@click.option(
    "--lang",
    type=click.Choice(["ru", "en"]),
    default="ru",
    show_default=True,
    help="Language of the corpus (which documents are used, how words inflect).",
)
@click.option(
    "--task",
    type=click.Choice(["near", "partial"]),
    default="near",
    show_default=True,
    help="near: edited copies of whole documents; partial: passages pasted into other documents.",
)
@click.option(
    "--docs",
    "n_docs",
    type=COUNT,
    default=100,
    show_default=True,
    help="How many source documents to sample.",
)
@click.option(
    "--kinds",
    default=",".join(gen.DEFAULT_KINDS),
    show_default=True,
    help="Edit kinds (near): edits joined by '+', from substitute, insert, delete, inflect, "
    "synonym, reorder, boilerplate; 'mixed' = substitute+insert+delete.",
)
@click.option(
    "--levels",
    default=",".join(f"{v:g}" for v in gen.DEFAULT_LEVELS),
    show_default=True,
    help="Edit levels (near): share of words (sentences for reorder) edited.",
)
@click.option(
    "--negatives",
    default=",".join(gen.NEGATIVE_KINDS),
    show_default=True,
    help="Kinds of negative pairs.",
)
@click.option(
    "--shares",
    default=",".join(f"{v:g}" for v in gen.DEFAULT_LEVELS),
    show_default=True,
    help="Partial copies: share of the source pasted.",
)
@click.option(
    "--obfuscation",
    default="0,0.1",
    show_default=True,
    help="Partial copies: rate of word edits (substitute+insert+delete) in the pasted passage.",
)
@click.option(
    "--min-chars",
    type=COUNT,
    default=2000,
    show_default=True,
    help="Shortest source document, in characters.",
)
@click.option(
    "--max-chars",
    type=COUNT,
    default=6000,
    show_default=True,
    help="Longest source document, in characters.",
)
@click.option(
    "--thesaurus",
    type=click.Path(dir_okay=False),
    default=None,
    help="Synonyms for the synonym edit: MyThes .dat (e.g. /usr/share/mythes/th_ru_RU_v2.dat) "
    "or a CSV of groups. Without it the synonym kinds are skipped.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0, max=2**63 - 1),
    default=0,
    show_default=True,
    help="Seed of every random choice: the same seed gives the same bytes.",
)
def generate_command(
    corpus: str,
    out: str,
    lang: str,
    task: str,
    n_docs: int,
    kinds: str,
    levels: str,
    negatives: str,
    shares: str,
    obfuscation: str,
    min_chars: int,
    max_chars: int,
    thesaurus: str | None,
    seed: int,
) -> None:
    """Generate labelled near-duplicates or partial copies from CORPUS (JSONL of id, text).

    Writes documents.jsonl (id, text, cluster: a clusters dataset too), pairs.jsonl (a_id,
    b_id, label, kind, level, the edits done), fragments.jsonl for partial copies, and
    meta.json (all parameters, the corpus digest, counts, achieved edit rates).
    """
    if thesaurus and not Path(thesaurus).is_file():
        raise InputError(f"no such thesaurus file: {thesaurus}")
    if not Path(corpus).is_file():
        raise InputError(f"no such corpus file: {corpus}")
    config = gen.GenerateConfig(
        corpus=corpus,
        lang=lang,
        task=task,
        docs=n_docs,
        kinds=_names(kinds),
        levels=_floats(levels, "--levels"),
        negatives=_names(negatives),
        shares=_floats(shares, "--shares"),
        obfuscation=_floats(obfuscation, "--obfuscation"),
        min_chars=min_chars,
        max_chars=max_chars,
        thesaurus=thesaurus,
        seed=seed,
    )
    with _progress(say("progress_generating"), gen.planned_steps(config)) as advance:
        dataset = gen.generate(config, advance)
    written = gen.write_dataset(dataset, out)
    for note in dataset.meta["skipped"]:
        click.echo(say("note", detail=note), err=True)
    counts = dataset.meta["counts"]
    click.echo(
        say(
            "eval_generated",
            sources=counts["sources"],
            usable=counts["usable_corpus_documents"],
            documents=counts["documents"],
            pairs=counts["pairs"],
            positives=counts["positives"],
            negatives=counts["negatives"],
            fragments=say("eval_fragments", n=counts["fragments"]) if "fragments" in counts else "",
        )
    )
    for name, path in written.items():
        click.echo(f"  {name}: {path}")


def _pairs_table(report: dict[str, Any], title: str) -> None:
    console = Console()
    table = Table(title=title)
    for col in ("", "threshold", "precision", "recall", "F1"):
        table.add_column(col, justify="right")
    table.add_row(
        "at threshold",
        _fmt(report["threshold"]),
        _fmt(report["precision"]),
        _fmt(report["recall"]),
        _fmt(report["f1"]),
    )
    table.add_row(
        "best F1",
        _fmt(report["best_threshold"]),
        _fmt(report["best_precision"]),
        _fmt(report["best_recall"]),
        _fmt(report["best_f1"]),
    )
    table.add_row(
        f"precision ≥ {report['min_precision']:g}",
        _fmt(report["threshold_at_min_precision"]),
        "",
        _fmt(report["recall_at_min_precision"]),
        "",
    )
    console.print(table)
    console.print(
        say(
            "eval_pairs",
            n=report["n"],
            positives=report["positives"],
            negatives=report["negatives"],
            auc=_fmt(report["auc"]),
        )
    )
    if "by_kind" in report:
        table = Table(title="by kind of positive (against all negatives)")
        for col in ("kind", "positives", "AUC", "recall@t", "best F1", "best t", "recall@P"):
            table.add_column(col, justify="right")
        for kind, row in report["by_kind"].items():
            table.add_row(
                kind or "–",
                str(row["positives"]),
                _fmt(row["auc"]),
                _fmt(row["recall"]),
                _fmt(row["best_f1"]),
                _fmt(row["best_threshold"]),
                _fmt(row["recall_at_min_precision"]),
            )
        console.print(table)
    if "by_level" in report:
        levels = sorted(
            {lv for rows in report["by_level"].values() for lv in rows},
            key=lambda v: float(v) if v != "-" else -1,
        )
        table = Table(title="recall by edit level (at the threshold; mean score)")
        table.add_column("kind")
        for lv in levels:
            table.add_column(lv, justify="right")
        for kind, rows in report["by_level"].items():
            table.add_row(
                kind,
                *[
                    f"{rows[lv]['recall']:.3f} ({rows[lv]['mean_score']:.2f})" if lv in rows else ""
                    for lv in levels
                ],
            )
        console.print(table)
    if "negatives_by_kind" in report:
        table = Table(title="negatives by kind")
        for col in ("kind", "n", "FP rate@t", "FP rate@best", "mean", "max"):
            table.add_column(col, justify="right")
        for kind, row in report["negatives_by_kind"].items():
            table.add_row(
                kind or "–",
                str(row["n"]),
                _fmt(row["false_positive_rate"]),
                _fmt(row["false_positive_rate_at_best"]),
                _fmt(row["mean_score"]),
                _fmt(row["max_score"]),
            )
        console.print(table)
    if "retrieval" in report:
        r = report["retrieval"]
        console.print(
            say(
                "eval_retrieval",
                recall=_fmt(r["recall"]),
                negatives=_fmt(r["negatives_retrieved"]),
                retrieved=r["retrieved"],
                auc=_fmt(r["auc_retrieved"]),
            )
        )


@eval_group.command("pairs")
@click.argument("file", type=click.Path(dir_okay=False))
@method_option
@spec_options
@docs_option
@threshold_option
@click.option(
    "--min-precision",
    type=constraint_type(SHARE),
    default=0.99,
    show_default=True,
    help="Also report the best recall whose precision is at least this.",
)
@param_option
@json_option
@click.option(
    "--plot-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Write roc.png, pr.png and scores.png (score distributions by edit level) here.",
)
@click.option(
    "--scores-out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write each pair's score (JSONL: index, label, kind, level, score) to this file.",
)
@click.option(
    "--negative-label",
    "negative_labels",
    type=click.Choice(["-1", "0", "1"]),
    multiple=True,
    help="A label value that means 'not a duplicate' (repeatable; every other value is "
    "then positive). For -1/0/1 labels, e.g. --negative-label -1. Default: 0.",
)
@click.option(
    "--positive-label",
    "positive_labels",
    type=click.Choice(["-1", "0", "1"]),
    multiple=True,
    help="A label value that means 'duplicate' (repeatable; every other value is then "
    "negative, unless --negative-label names them). Default: 1.",
)
def pairs_command(
    file: str,
    method: str,
    docs: str | None,
    threshold: float,
    min_precision: float,
    params: tuple[str, ...],
    as_json: bool,
    plot_dir: str | None,
    scores_out: str | None,
    negative_labels: tuple[str, ...],
    positive_labels: tuple[str, ...],
    **options: Any,
) -> None:
    """Score the labelled pairs of FILE with a method: ROC AUC, P/R/F1 at the threshold and at
    the best threshold, recall at a minimum precision, and the same by kind and edit level.

    --json prints at least {"auc", "best_f1", "best_threshold", "n"} and the method, spec
    fingerprint, precision, recall, f1 at the threshold, by_kind, by_level, negatives_by_kind.
    With --method combined (the default) also "combined_version" (the shipped model's).
    With --method collection also "retrieval": {"recall" (positive pairs its candidates found),
    "negatives_retrieved", "retrieved", "auc_retrieved" (AUC among the retrieved pairs)}, apart
    from "auc", which ranks every pair with the unretrieved ones at 0.
    """
    _check_method(method)
    spec = spec_from_options(options)
    parameters = _params(params)
    label_map = formats.LabelMap.of(
        negative=[int(v) for v in negative_labels], positive=[int(v) for v in positive_labels]
    )
    dataset = formats.read_pairs(file, docs, labels=label_map)
    scorer = None if method == run.GIVEN else methods.build(method, spec, parameters)
    with _progress(
        say("progress_texts", method=method, n=len(dataset.texts)), len(dataset.texts)
    ) as advance:
        report, scores = run.evaluate_pairs(
            dataset, scorer, threshold=threshold, min_precision=min_precision, progress=advance
        )
    report = {
        "method": method,
        "params": parameters,
        "file": file,
        "labels": {
            "negative": sorted(label_map.negative),
            "positive": sorted(label_map.positive),
        },
        "spec_fingerprint": spec.fingerprint() if scorer is not None else None,
        **_model_version(method),
        **report,
    }
    if scores_out:
        formats.write_jsonl(
            scores_out,
            (
                {
                    "index": k,
                    "label": int(dataset.labels[k]),
                    "kind": dataset.kinds[k],
                    "level": None if math.isnan(dataset.levels[k]) else float(dataset.levels[k]),
                    "score": round(float(scores[k]), 6),
                }
                for k in range(len(dataset))
            ),
        )
    if plot_dir:
        from neardup.eval import plots

        directory = Path(plot_dir)
        series = {method: (dataset.labels, scores)}
        report["plots"] = [
            str(plots.roc(series, directory / "roc.png", f"ROC — {Path(file).name}")),
            str(plots.precision_recall(series, directory / "pr.png", f"PR — {Path(file).name}")),
            str(
                plots.score_distributions(
                    dataset.labels,
                    scores,
                    dataset.kinds,
                    dataset.levels,
                    directory / "scores.png",
                    f"{method} scores — {Path(file).name}",
                    threshold,
                )
            ),
        ]
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False))
        return
    _pairs_table(report, f"{method} on {file}")
    if scorer is not None:
        click.echo(
            say(
                "eval_spec",
                spec=report["spec_fingerprint"],
                preset=spec.analyzer.preset,
                unit=term("unit", spec.shingles.unit),
                k=spec.shingles.k,
            )
        )
    for path in report.get("plots", ()):
        click.echo(say("eval_plot", path=path))


@eval_group.command("clusters")
@click.argument("file", type=click.Path(dir_okay=False))
@method_option
@spec_options
@threshold_option
@param_option
@json_option
def clusters_command(
    file: str, method: str, threshold: float, params: tuple[str, ...], as_json: bool, **options: Any
) -> None:
    """Cluster the documents of FILE (JSONL: id, text, cluster) by linking every pair that
    scores at least the threshold (connected components), and compare with the true clusters:
    adjusted Rand index, pair precision and recall, groups recovered whole, and the share of
    true same-cluster pairs that score at least the threshold themselves (direct_pair_recall).
    """
    _check_method(method)
    if method == run.GIVEN:
        raise ConfigurationError(
            "the clusters evaluation needs a method that scores texts, not 'given'"
        )
    spec = spec_from_options(options)
    dataset = formats.read_clusters(file)
    scorer = methods.build(method, spec, _params(params))
    with _progress(
        say("progress_texts", method=method, n=len(dataset.documents)), len(dataset.documents)
    ) as advance:
        report, _ = run.evaluate_clusters(
            dataset, scorer, spec, threshold=threshold, progress=advance
        )
    report = {
        "method": method,
        "file": file,
        "spec_fingerprint": spec.fingerprint(),
        **_model_version(method),
        **report,
    }
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False))
        return
    table = Table(title=f"{method} clusters on {file} (threshold {threshold:g})")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for key in (
        "n",
        "ari",
        "pair_precision",
        "pair_recall",
        "true_groups",
        "groups_recovered",
        "group_recall",
        "direct_pair_recall",
        "min_true_pair_score",
        "true_clusters",
        "predicted_clusters",
        "links",
    ):
        table.add_row(key, _fmt(report[key]))
    Console().print(table)


@eval_group.command("fragments")
@click.argument("truth", type=click.Path(dir_okay=False))
@click.option(
    "--method",
    "-m",
    "method",
    default="align",
    show_default=True,
    help="The fragment detector (see `neardup eval methods`).",
)
@spec_options
@docs_option
@click.option(
    "--pairs",
    "pairs_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="More (source, suspicious) pairs to run the detector on (pairs JSONL with a_id, b_id), "
    "e.g. the negatives; by default only the pairs of the truth are examined.",
)
@param_option
@json_option
def fragments_command(
    truth: str,
    method: str,
    docs: str | None,
    pairs_file: str | None,
    params: tuple[str, ...],
    as_json: bool,
    **options: Any,
) -> None:
    """Find reused passages with a detector and score them against TRUTH (fragments JSONL):
    PAN's character-level precision, recall, granularity and plagdet, overall and by level."""
    if method not in methods.FRAGMENT_METHODS:
        known = ", ".join(sorted(methods.FRAGMENT_METHODS))
        raise ConfigurationError(f"unknown fragment method {method!r}; known: {known}")
    spec = spec_from_options(options)
    documents = formats.documents_beside(truth, docs)
    cases = formats.read_fragments(truth, documents)
    examine = list(dict.fromkeys((c.source_id, c.suspicious_id) for c in cases))
    if pairs_file:
        for line, record in formats.iter_jsonl(pairs_file):
            try:
                key = (str(record["a_id"]), str(record["b_id"]))
            except KeyError as exc:
                raise DatasetError(
                    f"{pairs_file}, line {line}: missing field {exc.args[0]!r}"
                ) from None
            for doc_id in key:
                if doc_id not in documents:
                    raise DatasetError(
                        f"{pairs_file}, line {line}: id {doc_id!r} is not in the documents file"
                    )
            if key not in examine:
                examine.append(key)
    detector = methods.build_fragments(method, spec, _params(params))
    with _progress(say("progress_pairs", method=method, n=len(examine)), len(examine)) as advance:
        detections = run.detect_all(detector, documents, examine, advance)
    report = {
        "method": method,
        "file": truth,
        "spec_fingerprint": spec.fingerprint(),
        **run.fragment_report(cases, detections, len(examine)),
    }
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False))
        return
    table = Table(title=f"{method} on {truth} ({report['pairs_examined']} document pairs examined)")
    for col in (
        "kind",
        "level",
        "cases",
        "detections",
        "precision",
        "recall",
        "granularity",
        "plagdet",
    ):
        table.add_column(col, justify="right")
    table.add_row(
        "all",
        "",
        str(report["cases"]),
        str(report["detections"]),
        _fmt(report["precision"]),
        _fmt(report["recall"]),
        _fmt(report["granularity"]),
        _fmt(report["plagdet"]),
    )
    for kind, rows in report.get("by_level", {}).items():
        for level, row in rows.items():
            table.add_row(
                kind,
                level,
                str(row["cases"]),
                str(row["detections"]),
                _fmt(row["precision"]),
                _fmt(row["recall"]),
                _fmt(row["granularity"]),
                _fmt(row["plagdet"]),
            )
    Console(width=max(100, Console().width)).print(table)


COMMANDS = [eval_group]

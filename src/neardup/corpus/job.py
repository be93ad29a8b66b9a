"""The dedup job: :func:`dedup` runs the stages into ``OUT.partial`` and renames it to ``OUT``."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from neardup.corpus.candidates import with_winnowed_pairs, workspace_candidates
from neardup.corpus.groups import components, keep_priority, representatives
from neardup.corpus.options import (
    SPEC_FILE,
    SUMMARY_FILE,
    DedupOptions,
    DedupResult,
    check_output,
    dedup_spec,
    parse_keep,
    publish,
    read_documents,
    write_spec,
)
from neardup.corpus.output import write_edges, write_records
from neardup.corpus.progress import StageClock, StageProgress, peak_memory_mb
from neardup.corpus.signing import TrickCounts, raw_jsonl_files, sign_corpus
from neardup.corpus.splice import splice_write
from neardup.corpus.verify import (
    PairScores,
    StoredFingerprints,
    VerifiedCandidates,
    estimated_scores,
    verify_candidates,
)
from neardup.corpus.workspace import Workspace
from neardup.defaults import DEFAULTS
from neardup.errors import InputError, require
from neardup.spec import Spec


def dedup(
    inputs: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    out: str | os.PathLike[str],
    options: DedupOptions | None = None,
    *,
    spec: Spec | None = None,
    output_format: Literal["jsonl", "parquet"] = "jsonl",
    kept_only: bool = False,
    id_field: str = "id",
    text_field: str = "text",
    input_format: str | None = None,
    jobs: int = DEFAULTS.jobs,
    batch_size: int = 512,
    overwrite: bool = False,
    progress: bool = False,
    keep_work: bool = False,
) -> DedupResult:
    """Deduplicate a corpus into the directory ``out``.

    ``out`` gets ``documents.jsonl`` (or ``.parquet``: every input record — only the kept ones
    with ``kept_only`` — with ``group``, ``kept``, ``similarity`` and ``representative``),
    ``edges.jsonl`` (or ``.parquet``: the verified pairs with their measures),
    ``summary.json`` and ``spec.json``. ``options`` (:class:`DedupOptions`: threshold,
    measure, verification, keep rule, LSH shape) default to ``DedupOptions()``; ``spec``
    defaults to :func:`neardup.fingerprints.pipeline.default_spec` (the CLI's: the ``auto`` preset,
    ``ru``
    or ``en`` by each document's script), applied and recorded as :func:`dedup_spec` says
    (without the pairwise short-text rule); see the package docstring for the stages.
    """
    from neardup.fingerprints.pipeline import default_spec

    if isinstance(inputs, str | os.PathLike):
        inputs = [inputs]
    _check_arguments(inputs, out, options, spec, output_format, batch_size)
    if output_format == "parquet":
        require("pyarrow", "parquet")
    from neardup.sketch.parallel import workers_for

    jobs = workers_for(jobs)
    options = options if options is not None else DedupOptions()
    out_path = Path(out)
    with StageProgress(progress) as bars:
        # the chooser of bands × rows runs before the first document is read
        task = None if options.bands and options.rows else bars.task("LSH bands", None)
        full_spec = dedup_spec(spec if spec is not None else default_spec(), options)
        bars.done(task)
        assert full_spec.sketch is not None
        check_output(out_path, full_spec, options, overwrite)
        rule, keep_field = parse_keep(options.keep)
        partial = out_path.with_name(out_path.name + ".partial")
        try:
            if partial.exists():
                shutil.rmtree(partial)
            partial.mkdir(parents=True)
        except OSError as exc:
            raise InputError(f"cannot write {out_path}: {exc.strerror or exc}") from None
        seconds: dict[str, float] = {}
        try:
            result = _run(
                inputs,
                partial,
                out_path,
                full_spec,
                options,
                rule=rule,
                keep_field=keep_field,
                exact=options.verify == "exact",
                output_format=output_format,
                kept_only=kept_only,
                read=lambda: read_documents(
                    inputs, id_field=id_field, text_field=text_field, fmt=input_format
                ),
                id_field=id_field,
                text_field=text_field,
                input_format=input_format,
                jobs=jobs,
                batch_size=batch_size,
                bars=bars,
                seconds=seconds,
            )
            if not keep_work:
                shutil.rmtree(partial / "work", ignore_errors=True)
            publish(partial, out_path)
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)
            raise
    return result


def _check_arguments(
    inputs: Any, out: Any, options: Any, spec: Any, output_format: Any, batch_size: Any
) -> None:
    """The library's arguments, refused as input errors (the CLI's types check its own)."""
    if not inputs:
        raise InputError("no input given")
    for value, what in [*((i, "an input") for i in inputs), (out, "the output")]:
        if not isinstance(value, str | os.PathLike):
            raise InputError(f"{what} must be a path (str or os.PathLike), got {value!r}")
    if options is not None and not isinstance(options, DedupOptions):
        raise InputError(f"options must be DedupOptions, got {type(options).__name__}")
    if spec is not None and not isinstance(spec, Spec):
        raise InputError(f"spec must be a neardup Spec, got {type(spec).__name__}")
    if output_format not in ("jsonl", "parquet"):
        raise InputError(f"the output format must be jsonl or parquet, got {output_format!r}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InputError(f"the batch size must be an integer of at least 1, got {batch_size!r}")


def _run(
    inputs: Sequence[str | os.PathLike[str]],
    partial: Path,
    out_path: Path,
    spec: Spec,
    options: DedupOptions,
    *,
    rule: str,
    keep_field: str | None,
    exact: bool,
    output_format: str,
    kept_only: bool,
    read: Any,
    id_field: str,
    text_field: str,
    input_format: str | None,
    jobs: int,
    batch_size: int,
    bars: StageProgress,
    seconds: dict[str, float],
) -> DedupResult:
    cpu_seconds: dict[str, float] = {}
    from neardup.sketch.minhash import empty_value

    assert spec.sketch is not None
    clock = StageClock(seconds, cpu_seconds)
    from neardup.inputs import ReadOptions

    dtype = np.dtype(np.uint64 if spec.sketch.value_bits == 64 else np.uint32)
    raw_files = raw_jsonl_files(inputs, input_format)
    # raw JSONL: sign by the fused path now, fingerprint only the candidates later (their
    # records are re-read by byte span); otherwise every fingerprint set is kept while signing
    lazy = (
        exact
        and raw_files is not None
        and not options.winnow
        and not spec.fingerprint_family.multiset
    )
    work = Workspace(
        partial / "work", spec.sketch.num_perm, dtype, exact and not lazy, signatures=not exact
    )
    fields = (id_field, text_field)
    tricks = TrickCounts()
    ids, keep_values, locations = sign_corpus(
        read,
        raw_files,
        ReadOptions(id_field=id_field, text_field=text_field),
        spec,
        work,
        exact=exact and not lazy,
        jobs=jobs,
        keep_field=keep_field,
        progress=bars,
        batch_size=batch_size,
        winnow=options.winnow,
        tricks=tricks,
        signatures=not exact,
    )
    n = len(ids)
    clock.lap("sign")

    a, b, capped, largest = workspace_candidates(
        work, spec.sketch.bands, options.window, bars, jobs
    )
    if options.winnow:
        a, b = with_winnowed_pairs(a, b, *work.samples(), n, options.window)
    clock.lap("candidates")

    task = bars.task("verify", max(1, a.shape[0]))
    lengths = np.concatenate(work.lengths) if work.lengths else np.zeros(0, np.int64)
    priority = keep_priority(rule, lengths, keep_values)
    verified: VerifiedCandidates | None = None
    if lazy:
        assert locations is not None
        verified = verify_candidates(
            spec.to_json(),
            locations,
            a,
            b,
            priority,
            (options.threshold, options.measure),
            text_field,
            jobs,
            (bars, task),
        )
        scores = verified.scores
    elif exact:
        fingerprints = StoredFingerprints(*work.fingerprints())
        scores = fingerprints.scores(a, b)
    else:
        sigs = work.signatures()
        scores = estimated_scores(sigs, empty_value(spec.sketch.value_bits), a, b)
    keep_edge = scores.measure(options.measure) >= options.threshold
    ea, eb = a[keep_edge], b[keep_edge]
    edge_scores = PairScores(
        scores.resemblance[keep_edge],
        None if scores.containment_ab is None else scores.containment_ab[keep_edge],
        None if scores.containment_ba is None else scores.containment_ba[keep_edge],
    )
    if verified is None:
        bars.advance(task, max(1, a.shape[0]))
    clock.lap("verify")

    task = bars.task("groups", 1)
    group = components(n, ea, eb)
    rep = representatives(group, priority)
    similarity = np.ones(n, dtype=np.float64)
    if verified is not None:
        # the verification made the same groups task by task, and each member's similarity
        if not np.array_equal(rep[verified.rows], verified.rep):
            raise AssertionError("the verification's groups are not the corpus's groups")
        similarity[verified.rows] = verified.similarity
    else:
        members = np.flatnonzero(rep != np.arange(n))
        if members.shape[0]:
            if exact:
                to_rep = fingerprints.scores(members, rep[members])
            else:
                to_rep = estimated_scores(
                    sigs, empty_value(spec.sketch.value_bits), members, rep[members]
                )
            similarity[members] = to_rep.measure(options.measure)
    bars.advance(task)
    clock.lap("groups")

    ext = "parquet" if output_format == "parquet" else "jsonl"
    files = {"documents": f"documents.{ext}", "edges": f"edges.{ext}"}
    if locations is not None and ext == "jsonl":
        splice_write(
            locations,
            partial / files["documents"],
            ids,
            group,
            rep,
            similarity,
            kept_only,
            fields,
            bars,
            jobs,
        )
    else:
        write_records(
            read(),
            partial / files["documents"],
            ext,
            ids,
            group,
            rep,
            similarity,
            kept_only,
            bars,
        )
    write_edges(partial / files["edges"], ext, ids, ea, eb, edge_scores)
    clock.lap("write")
    clock.total()

    groups = int(np.unique(group).shape[0]) if n else 0
    sizes = np.bincount(group, minlength=n) if n else np.zeros(0, np.int64)
    result = DedupResult(
        out=out_path,
        documents=n,
        groups=groups,
        duplicate_groups=int((sizes > 1).sum()),
        removed=n - groups,
        candidate_pairs=int(a.shape[0]),
        verified_pairs=int(ea.shape[0]),
        seconds={k: round(v, 3) for k, v in seconds.items()},
        cpu_seconds={k: round(v, 3) for k, v in cpu_seconds.items()},
        bands=spec.sketch.bands,
        rows=spec.sketch.rows,
        bytes_read=_input_bytes(inputs),
        capped_buckets=capped,
        largest_bucket=largest,
        files={**files, "summary": SUMMARY_FILE, "spec": SPEC_FILE},
        tricks=tricks.to_dict(),
        peak_memory_mb=peak_memory_mb(),
    )
    summary = result.to_dict()
    summary["options"] = options.to_dict()
    (partial / SUMMARY_FILE).write_text(
        json.dumps(summary, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    write_spec(partial, spec, options)
    return result


def _input_bytes(inputs: Sequence[str | os.PathLike[str]]) -> int:
    total = 0
    for raw in inputs:
        path = Path(raw)
        if path.is_file():
            total += path.stat().st_size
        elif path.is_dir():
            total += sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return total

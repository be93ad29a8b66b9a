"""The dedup job: :func:`dedup` runs its stages (:data:`DEDUP_STAGES`: sign → candidates →
verify → groups → write, one small class each) over one :class:`~neardup.corpus.pipeline.
JobContext` into ``OUT.partial``, writes ``summary.json`` and ``spec.json``, and renames it to
``OUT``. The stages' work is done by the modules the package docstring names; a stage only
says what it reads from the context and what it leaves there."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np

from neardup._arguments import checked
from neardup.corpus.candidates import with_winnowed_pairs, workspace_candidates
from neardup.corpus.clean_stages import (
    CountSpans,
    ExactCopies,
    SpanCutter,
    copies_ranked_as_first,
    copies_similarity,
    with_copy_edges,
    without_copies,
)
from neardup.corpus.cleaning import CleanOptions
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
    write_spec,
)
from neardup.corpus.output import write_edges, write_records
from neardup.corpus.pair_scoring import choose_pair_scoring
from neardup.corpus.pipeline import (
    Candidates,
    Edges,
    Groups,
    JobContext,
    JobSettings,
    Signed,
    Stage,
    run_stages,
)
from neardup.corpus.progress import StageClock, StageProgress, peak_memory_mb
from neardup.corpus.signing import TrickCounts, raw_jsonl_files, sign_corpus
from neardup.corpus.splice import splice_write
from neardup.corpus.verify import PairScores
from neardup.corpus.workspace import Workspace
from neardup.defaults import DEFAULTS
from neardup.errors import InputError, require
from neardup.spec import Spec


@checked
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
    clean: CleanOptions | None = None,
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

    ``clean`` (:class:`~neardup.corpus.cleaning.CleanOptions`) adds the cleaning stages: exact
    copies first (by content hash; each joins its first copy's group), and after the groups the
    lines, paragraphs or sentences repeated in more than ``span_docs`` kept documents cut out
    of them (``spans.jsonl`` lists every cut; each record gets ``spans_removed``).
    """
    from neardup.fingerprints.pipeline import default_spec

    if isinstance(inputs, str | os.PathLike):
        inputs = [inputs]
    _check_arguments(inputs, out, options, spec, output_format, batch_size)
    if clean is not None and not isinstance(clean, CleanOptions):
        raise InputError(f"clean must be CleanOptions, got {type(clean).__name__}")
    clean = clean if clean is not None else CleanOptions()
    clean_record = clean.to_dict() if clean.active else None
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
        check_output(out_path, full_spec, options, overwrite, clean_record)
        rule, keep_field = parse_keep(options.keep)
        partial = out_path.with_name(out_path.name + ".partial")
        try:
            if partial.exists():
                shutil.rmtree(partial)
            partial.mkdir(parents=True)
        except OSError as exc:
            raise InputError(f"cannot write {out_path}: {exc.strerror or exc}") from None
        try:
            settings = JobSettings(
                output_format=output_format,
                kept_only=kept_only,
                id_field=id_field,
                text_field=text_field,
                input_format=input_format,
                jobs=jobs,
                batch_size=batch_size,
            )
            raw_files = raw_jsonl_files(inputs, input_format)
            context = JobContext(
                inputs=inputs,
                partial=partial,
                spec=full_spec,
                options=options,
                settings=settings,
                bars=bars,
                keep_rule=rule,
                keep_field=keep_field,
                raw_files=raw_files,
                pair_scoring=choose_pair_scoring(full_spec, options, settings, raw_files),
                clean=clean,
            )
            result = _finish(context, run_stages(stages_for(clean), context), out_path)
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


# --- the stages ----------------------------------------------------------------------------


class Sign:
    """Stage 1: every document signed into the workspace (band keys; the fingerprint sets or
    signatures the chosen pair scoring needs), its id and keep value kept in memory."""

    name: ClassVar[str] = "sign"
    needs: ClassVar[tuple[str, ...]] = ()
    gives: ClassVar[tuple[str, ...]] = ("signed",)

    def run(self, context: JobContext) -> None:
        from neardup.inputs import ReadOptions

        sketch, settings = context.sketch, context.settings
        scoring = context.pair_scoring
        dtype = np.dtype(np.uint64 if sketch.value_bits == 64 else np.uint32)
        work = Workspace(
            context.partial / "work",
            sketch.num_perm,
            dtype,
            scoring.keeps_fingerprints,
            signatures=scoring.keeps_signatures,
        )
        tricks = TrickCounts()
        ids, keep_values, locations = sign_corpus(
            context.read,
            context.raw_files,
            ReadOptions(id_field=settings.id_field, text_field=settings.text_field),
            context.spec,
            work,
            exact=scoring.keeps_fingerprints,
            jobs=settings.jobs,
            keep_field=context.keep_field,
            progress=context.bars,
            batch_size=settings.batch_size,
            winnow=context.options.winnow,
            tricks=tricks,
            signatures=scoring.keeps_signatures,
        )
        context.signed = Signed(work, ids, keep_values, locations, tricks)


class FindCandidates:
    """Stage 2: candidate pairs from the LSH band keys by the bucket window (and from shared
    winnowed samples, by the same rule, when ``winnow`` is set)."""

    name: ClassVar[str] = "candidates"
    needs: ClassVar[tuple[str, ...]] = ("signed",)
    gives: ClassVar[tuple[str, ...]] = ("candidates",)

    def run(self, context: JobContext) -> None:
        signed = context.need(context.signed, "sign")
        # the option is named ``window`` (CLI ``--window``, ``spec.json``): it is the bucket
        # window, how many places apart two members of a bucket may be to pair
        bucket_window = context.options.window
        settings = context.settings
        a, b, capped, largest = workspace_candidates(
            signed.work, context.sketch.bands, bucket_window, context.bars, settings.jobs
        )
        if context.options.winnow:
            a, b = with_winnowed_pairs(a, b, *signed.work.samples(), signed.n, bucket_window)
        a, b = without_copies(a, b, context.copies)
        context.candidates = Candidates(a, b, capped, largest)


class ScoreCandidates:
    """Stage 3 (``verify``): every candidate pair scored by the run's pair scoring; the pairs
    at or above the threshold are the edges."""

    name: ClassVar[str] = "verify"
    needs: ClassVar[tuple[str, ...]] = ("signed", "candidates")
    gives: ClassVar[tuple[str, ...]] = ("edges",)

    def run(self, context: JobContext) -> None:
        signed = context.need(context.signed, "sign")
        pairs = context.need(context.candidates, "candidates")
        options, bars = context.options, context.bars
        a, b = pairs.a, pairs.b
        task = bars.task("verify", max(1, a.shape[0]))
        work = signed.work
        lengths = np.concatenate(work.lengths) if work.lengths else np.zeros(0, np.int64)
        priority = keep_priority(context.keep_rule, lengths, signed.keep_values)
        priority = copies_ranked_as_first(priority, context.copies)
        scoring = context.pair_scoring
        scores = scoring.score_candidates(signed, a, b, priority, (bars, task))
        keep_edge = scores.measure(options.measure) >= options.threshold
        edge_scores = PairScores(
            scores.resemblance[keep_edge],
            None if scores.containment_ab is None else scores.containment_ab[keep_edge],
            None if scores.containment_ba is None else scores.containment_ba[keep_edge],
        )
        if not scoring.advances_bar:
            bars.advance(task, max(1, a.shape[0]))
        ea, eb, edge_scores = with_copy_edges(
            a[keep_edge], b[keep_edge], edge_scores, context.copies
        )
        context.edges = Edges(ea, eb, edge_scores, priority)


class MakeGroups:
    """Stage 4: groups as connected components of the edges, each one's kept document by the
    keep rule, every member's similarity to it."""

    name: ClassVar[str] = "groups"
    needs: ClassVar[tuple[str, ...]] = ("signed", "edges")
    gives: ClassVar[tuple[str, ...]] = ("groups",)

    def run(self, context: JobContext) -> None:
        signed = context.need(context.signed, "sign")
        edges = context.need(context.edges, "verify")
        task = context.bars.task("groups", 1)
        group = components(signed.n, edges.a, edges.b)
        rep = representatives(group, edges.priority)
        similarity = context.pair_scoring.similarity_to_kept(signed, rep)
        similarity = copies_similarity(similarity, rep, context.copies)
        context.bars.advance(task)
        context.groups = Groups(group, rep, similarity)


class Write:
    """Stage 5: the documents (spliced into their own bytes for plain JSONL to JSONL, else
    read again and written) and the edges."""

    name: ClassVar[str] = "write"
    needs: ClassVar[tuple[str, ...]] = ("signed", "edges", "groups")
    gives: ClassVar[tuple[str, ...]] = ("files",)

    def run(self, context: JobContext) -> None:
        signed = context.need(context.signed, "sign")
        edges = context.need(context.edges, "verify")
        groups = context.need(context.groups, "groups")
        settings, partial = context.settings, context.partial
        ext = "parquet" if settings.output_format == "parquet" else "jsonl"
        files = {"documents": f"documents.{ext}", "edges": f"edges.{ext}"}
        cutter = None
        if context.spans is not None:
            files["spans"] = f"spans.{ext}"
            cutter = SpanCutter(
                partial / files["spans"],
                ext,
                signed.ids,
                SpanCutter.from_state(context.spans, context.clean),
            )
        if signed.locations is not None and ext == "jsonl" and cutter is None:
            splice_write(
                signed.locations,
                partial / files["documents"],
                signed.ids,
                groups.group,
                groups.rep,
                groups.similarity,
                settings.kept_only,
                settings.fields,
                context.bars,
                settings.jobs,
            )
        else:
            write_records(
                context.read(),
                partial / files["documents"],
                ext,
                signed.ids,
                groups.group,
                groups.rep,
                groups.similarity,
                settings.kept_only,
                context.bars,
                rewrite=cutter,
            )
        if cutter is not None:
            cutter.close()
            context.span_stats = cutter.stats
        write_edges(partial / files["edges"], ext, signed.ids, edges.a, edges.b, edges.scores)
        context.files = files


#: The job's stages in the order they run (the package docstring's order); each is timed
#: under its name in ``summary.json``.
DEDUP_STAGES: tuple[Stage, ...] = (
    Sign(),
    FindCandidates(),
    ScoreCandidates(),
    MakeGroups(),
    Write(),
)


def stages_for(clean: CleanOptions) -> tuple[Stage, ...]:
    """The stages of a run: :data:`DEDUP_STAGES`, with ``exact`` first and ``spans`` before
    the write when the cleaning asks for them."""
    stages: list[Stage] = list(DEDUP_STAGES)
    if clean.exact != "off":
        stages.insert(0, ExactCopies())
    if clean.level != "off":
        stages.insert(len(stages) - 1, CountSpans())
    return tuple(stages)


def _finish(context: JobContext, clock: StageClock, out_path: Path) -> DedupResult:
    """The run's :class:`DedupResult`, written as ``summary.json`` (with the options), and
    ``spec.json``: after the stages, so the times they record are complete."""
    signed = context.need(context.signed, "sign")
    pairs = context.need(context.candidates, "candidates")
    edges = context.need(context.edges, "verify")
    group = context.need(context.groups, "groups").group
    spec, options = context.spec, context.options
    n = signed.n
    groups = int(np.unique(group).shape[0]) if n else 0
    sizes = np.bincount(group, minlength=n) if n else np.zeros(0, np.int64)
    result = DedupResult(
        out=out_path,
        documents=n,
        groups=groups,
        duplicate_groups=int((sizes > 1).sum()),
        removed=n - groups,
        candidate_pairs=int(pairs.a.shape[0]),
        verified_pairs=int(edges.a.shape[0]),
        seconds={k: round(v, 3) for k, v in clock.wall.items()},
        cpu_seconds={k: round(v, 3) for k, v in clock.cpu.items()},
        bands=context.sketch.bands,
        rows=context.sketch.rows,
        bytes_read=_input_bytes(context.inputs),
        capped_buckets=pairs.capped,
        largest_bucket=pairs.largest,
        files={**context.files, "summary": SUMMARY_FILE, "spec": SPEC_FILE},
        tricks=signed.tricks.to_dict(),
        peak_memory_mb=peak_memory_mb(),
        cleaning=_cleaning_summary(context),
    )
    summary = result.to_dict()
    summary["options"] = options.to_dict()
    (context.partial / SUMMARY_FILE).write_text(
        json.dumps(summary, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    write_spec(
        context.partial, spec, options, context.clean.to_dict() if context.clean.active else None
    )
    return result


def _cleaning_summary(context: JobContext) -> dict[str, Any]:
    """``summary.json``'s cleaning counts (nothing when no cleaning was asked)."""
    out: dict[str, Any] = {}
    clean = context.clean
    if clean.exact != "off":
        copies = context.need(context.copies, "exact")
        out["exact_duplicates"] = int((copies >= 0).sum())
    if clean.level != "off":
        state = context.need(context.spans, "spans")
        stats = context.need(context.span_stats, "write")
        out["spans"] = {
            "level": clean.level,
            "documents_counted": state.counted,
            "repeated_keys": int(getattr(state.counter, "repeated_keys", np.zeros(0)).shape[0]),
            "spans_removed": stats.spans_removed,
            "chars_removed": stats.chars_removed,
            "documents_cut": stats.documents_cut,
            "documents_dropped": stats.documents_dropped,
            "counting": clean.span_counting,
            "error_bound": state.counter.error_bound(),
        }
    return out


def _input_bytes(inputs: Sequence[str | os.PathLike[str]]) -> int:
    total = 0
    for raw in inputs:
        path = Path(raw)
        if path.is_file():
            total += path.stat().st_size
        elif path.is_dir():
            total += sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return total

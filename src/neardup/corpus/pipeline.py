"""The shape of a dedup run: the :class:`JobContext` its stages share, the :class:`Stage`
protocol, the :class:`PairScoring` strategy the verification is done by, and
:func:`run_stages`.

A stage is a small object with a ``name`` (its key in ``summary.json``'s ``seconds``) and one
``run(context)`` that reads what earlier stages left in the context and leaves its own result
there (as datatrove's pipeline steps do), so the job is a list of stages that can be read,
checked (:func:`check_order`: every stage's inputs made by an earlier one) and timed one by
one, instead of one long function whose locals are the hand-over between stages.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol, TypeVar

from neardup.corpus.arrays import F64, I64
from neardup.corpus.cleaning import CleanOptions
from neardup.corpus.options import DedupOptions, read_documents
from neardup.corpus.progress import StageClock, StageProgress
from neardup.corpus.signing import SignedBlock, TrickCounts
from neardup.corpus.verify import PairScores
from neardup.corpus.workspace import Workspace
from neardup.spec import SketchSpec, Spec

T = TypeVar("T")


@dataclass(frozen=True)
class JobSettings:
    """How a run reads its input and writes its output: the keywords of :func:`dedup` besides
    :class:`DedupOptions`. They are apart from the options because they do not decide the
    groups, so they are not written to ``spec.json`` (a second run into the same output with
    another ``jobs`` or batch size is not refused, and the options' record stays as it is)."""

    output_format: Literal["jsonl", "parquet"] = "jsonl"
    kept_only: bool = False
    id_field: str = "id"
    text_field: str = "text"
    input_format: str | None = None
    jobs: int = 1
    batch_size: int = 512

    @property
    def fields(self) -> tuple[str, str]:
        return self.id_field, self.text_field


# --- what the stages hand on ---------------------------------------------------------------


@dataclass(frozen=True)
class Signed:
    """Stage 1's result: the workspace on disk and the few numbers per document kept in memory
    (``locations``: the records' byte spans, for raw JSONL only)."""

    work: Workspace
    ids: list[str]
    keep_values: list[Any] | None
    locations: list[SignedBlock] | None
    tricks: TrickCounts

    @property
    def n(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class Candidates:
    """Stage 2's result: candidate pairs ``a[i] < b[i]`` (rows), the buckets larger than the
    bucket window allowed (``capped``) and the largest bucket's size."""

    a: I64
    b: I64
    capped: int
    largest: int


@dataclass(frozen=True)
class Edges:
    """Stage 3's result: the candidate pairs that scored at or above the threshold, with their
    measures, and every document's keep priority (made here: the worker scoring makes groups)."""

    a: I64
    b: I64
    scores: PairScores
    priority: F64


@dataclass(frozen=True)
class Groups:
    """Stage 4's result: every document's group, kept document and similarity to it."""

    group: I64
    rep: I64
    similarity: F64


# --- the strategy of stage 3 ---------------------------------------------------------------


class PairScoring(Protocol):
    """How the candidate pairs are scored (stage 3, ``verify``) and how each document's
    similarity to its kept document is found (stage 4): chosen once per run
    (:func:`neardup.corpus.pair_scoring.choose_pair_scoring`), because the choice also
    decides what the signing stores."""

    #: the signing keeps every fingerprint set in the workspace
    keeps_fingerprints: bool
    #: the signing keeps every signature in the workspace
    keeps_signatures: bool
    #: :meth:`score_candidates` advances the ``verify`` bar itself, task by task
    advances_bar: bool

    def score_candidates(
        self, signed: Signed, a: I64, b: I64, priority: F64, progress: tuple[StageProgress, Any]
    ) -> PairScores: ...

    def similarity_to_kept(self, signed: Signed, rep: I64) -> F64: ...


# --- the context ---------------------------------------------------------------------------


@dataclass(eq=False)
class JobContext:
    """Everything one run shares between its stages: what it was asked (set before the first
    stage) and each stage's result (``None`` until that stage has run; :meth:`need` reads
    one and says which stage is missing)."""

    inputs: Sequence[str | os.PathLike[str]]
    partial: Path
    spec: Spec
    options: DedupOptions
    settings: JobSettings
    bars: StageProgress
    #: the keep rule (``first``, ``longest``, ``max``, ``min``) and its field, parsed once
    keep_rule: str
    keep_field: str | None
    #: the inputs as plain JSONL files (read by byte slice and spliced), or ``None``
    raw_files: list[str] | None
    pair_scoring: PairScoring
    signed: Signed | None = None
    candidates: Candidates | None = None
    edges: Edges | None = None
    groups: Groups | None = None
    #: the output files by role (``documents``, ``edges``), set by the write stage
    files: dict[str, str] = field(default_factory=dict)
    #: the cleaning asked besides the near-duplicate documents (off by default)
    clean: CleanOptions = field(default_factory=CleanOptions)
    #: the ``exact`` stage's result: each document's first exact copy, or -1
    copies: I64 | None = None
    #: the ``spans`` stage's result (:class:`neardup.corpus.clean_stages.SpanState`)
    spans: Any = None
    #: what the write stage's cut did (:class:`neardup.corpus.clean_stages.SpanStats`)
    span_stats: Any = None

    @property
    def sketch(self) -> SketchSpec:
        assert self.spec.sketch is not None  # dedup_spec gives every dedup spec a sketch
        return self.spec.sketch

    def read(self) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """The input documents, read again from the start (:func:`read_documents`)."""
        s = self.settings
        return read_documents(
            self.inputs, id_field=s.id_field, text_field=s.text_field, fmt=s.input_format
        )

    def need(self, value: T | None, stage: str) -> T:
        if value is None:
            raise RuntimeError(f"the dedup stage {stage!r} has not run yet")
        return value


# --- stages --------------------------------------------------------------------------------


class Stage(Protocol):
    """One step of the job: reads the context slots named in ``needs``, fills those in
    ``gives``; ``name`` is its key in ``summary.json``'s ``seconds``."""

    name: ClassVar[str]
    needs: ClassVar[tuple[str, ...]]
    gives: ClassVar[tuple[str, ...]]

    def run(self, context: JobContext) -> None: ...


def check_order(stages: Sequence[Stage]) -> None:
    """Refuse a stage list in which a stage needs what no earlier stage gives."""
    given: set[str] = set()
    for stage in stages:
        missing = [slot for slot in stage.needs if slot not in given]
        if missing:
            raise ValueError(
                f"the dedup stage {stage.name!r} needs {', '.join(missing)}, "
                "which no stage before it gives"
            )
        given.update(stage.gives)


def run_stages(stages: Sequence[Stage], context: JobContext) -> StageClock:
    """Run the stages in order, each timed (wall and CPU seconds, under its name), then the
    total; returns the clock."""
    check_order(stages)
    clock = StageClock({}, {})
    for stage in stages:
        stage.run(context)
        clock.lap(stage.name)
    clock.total()
    return clock

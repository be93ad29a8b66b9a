"""``neardup.compare``: how alike two texts are, in one call — the one answer of every door.

The library's :func:`compare`, ``neardup compare`` and the service's ``/api/compare`` all call
:func:`compare` and print :meth:`Comparison.to_dict`, with the defaults of
:mod:`neardup.defaults`, so a pair gets the same numbers everywhere. Each text is analysed
once (:class:`~neardup.analysis.analyzed.AnalyzedText`): the shingle measures, the combined score,
the
aligner and the citations all take that one analysis. Pipelines are cached per spec, so
comparing many pairs sets the analyzer up once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from neardup._arguments import checked
from neardup._constraints import Boolean, OneOf, check
from neardup.analysis.presets import PRESETS
from neardup.analysis.tricks import NONE, Tricks
from neardup.defaults import DEFAULTS
from neardup.errors import ConfigurationError, SpecError
from neardup.spec import ShingleSpec, Spec

if TYPE_CHECKING:
    from neardup.fingerprints.pipeline import Analyzable, Pipeline
    from neardup.passages.align import Aligner, Alignment, Passage
    from neardup.score.model import Explanation

#: How a pair is scored: ``combined`` (the combined score first, then the shingle-set
#: measures) or ``sets`` (the shingle-set measures only).
SCORE_METHODS = ("combined", "sets")


@dataclass(frozen=True)
class Comparison:
    """The measures between text ``a`` and text ``b`` (shingle sets under one spec).

    ``resemblance`` is Jaccard ``|A ∩ B| / |A ∪ B|``; ``containment_ab`` how much of ``a`` is
    in ``b`` (``|A ∩ B| / |A|``) and ``containment_ba`` the other way; ``sorensen`` is
    ``2|A ∩ B| / (|A| + |B|)``. ``shingles_a``, ``shingles_b`` and ``shared`` are the counts they
    come from, under ``shingling`` (the spec's shingles, or word 1-grams when the length rule
    applied to this pair). ``combined`` is the combined score (:mod:`neardup.score.combined`) under
    the ``combined`` method, else ``None``; ``explanation`` says what drove it, when asked for.
    ``alignment`` holds the passages ``a`` shares with
    ``b`` and the uniqueness of ``a`` when fragments were asked for.
    """

    resemblance: float
    containment_ab: float
    containment_ba: float
    sorensen: float
    shingles_a: int
    shingles_b: int
    shared: int
    spec: Spec
    shingling: ShingleSpec
    combined: float | None = None
    alignment: Alignment | None = None
    #: What the analyzer found and undid in each text to get a copy past a checker (look-alike
    #: letters of another script, invisible characters, letter spacing, stuffing).
    tricks_a: Tricks = NONE
    tricks_b: Tricks = NONE
    explanation: Explanation | None = None

    @property
    def suspicious(self) -> bool:
        """Whether either text carries tricks past their thresholds (made to evade)."""
        return self.tricks_a.suspicious or self.tricks_b.suspicious

    @property
    def fragments(self) -> tuple[Passage, ...]:
        """The copied passages (empty unless fragments were asked for; the rewritten ones are
        in :attr:`alignment`, both in its ``taken``)."""
        return tuple(self.alignment.passages) if self.alignment is not None else ()

    @property
    def short_pair(self) -> bool:
        """Whether the length rule compared this pair on the short shingling."""
        return self.shingling != self.spec.shingles.fixed()

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``neardup compare --json`` and of ``/api/compare``: the combined score
        first when computed (with its model's version: a refit changes the scores), the
        measures, the shingling the pair was compared on, the spec, and with fragments the
        passages, copied and rewritten, each with its ``kind``, in A's order, and
        ``fragments_summary``: the uniqueness of A, its borrowed and cited shares, the words
        they come from (``borrowed_words``, ``cited_words``, ``unique_words``, ``by_kind``), the
        runs of A's counted words by kind (``counted``) and the share of B used."""
        out: dict[str, Any] = {}
        if self.combined is not None:
            from neardup.score.combined import MODEL

            out.update(combined=self.combined, combined_version=MODEL.version)
            if self.explanation is not None:
                out["combined_explain"] = self.explanation.to_dict()
        out.update(
            resemblance=self.resemblance,
            sorensen=self.sorensen,
            containment_ab=self.containment_ab,
            containment_ba=self.containment_ba,
            shingles_a=self.shingles_a,
            shingles_b=self.shingles_b,
            shared=self.shared,
            shingling={
                "unit": self.shingling.unit,
                "k": self.shingling.k,
                "step": self.shingling.step,
                "short_pair": self.short_pair,
            },
            spec=self.spec.to_dict(),
            spec_fingerprint=self.spec.fingerprint(),
            suspicious={
                "flag": self.suspicious,
                "a": self.tricks_a.to_dict(),
                "b": self.tricks_b.to_dict(),
            },
        )
        if self.alignment is not None:
            summary = self.alignment.to_dict()
            summary.pop("sources")
            used = self.alignment.sources[0].source_used if self.alignment.sources else 0.0
            summary["source_used"] = round(used, 6)
            out["fragments"] = [p.to_dict() for p in self.alignment.taken]
            out["fragments_summary"] = summary
        return out


@lru_cache(maxsize=16)
def pipeline_of(spec: Spec) -> Pipeline:
    """One pipeline per spec in a process (the analyzer is set up once)."""
    from neardup.fingerprints.pipeline import Pipeline

    return Pipeline(spec)


@lru_cache(maxsize=8)
def _aligner(spec: Spec, rewrites: bool) -> Aligner:
    from neardup.passages.align import Aligner

    return Aligner(spec, rewrites=rewrites)


def release_pipelines() -> None:
    """Let the cached pipelines and aligners go. A one-shot process that ends without the
    interpreter's teardown (the CLI) calls it, so that the forms its analyzers learned are
    written to disk when the last reference to them goes."""
    pipeline_of.cache_clear()
    _aligner.cache_clear()


@lru_cache(maxsize=8)
def _preset_spec(preset: str) -> Spec:
    from neardup.fingerprints.pipeline import default_spec

    return default_spec(preset)


@checked
def compare(
    a: Analyzable,
    b: Analyzable,
    *,
    preset: str = DEFAULTS.preset,
    spec: Spec | None = None,
    method: str = DEFAULTS.score,
    fragments: bool = DEFAULTS.fragments,
    citations: bool = DEFAULTS.citations,
    rewrites: bool = DEFAULTS.rewrites,
    aligner: Aligner | None = None,
    b_id: str = "B",
    hidden_a: Tricks = NONE,
    hidden_b: Tricks = NONE,
    explain: bool = False,
) -> Comparison:
    """The combined score, resemblance, containment both ways and Sørensen of ``a`` and ``b``.

    ``a`` and ``b`` are ``str``, or ``bytes`` decoded with charset detection (anything else is
    an :class:`~neardup.errors.InputError`). ``preset`` names the analyzer (``auto``: ``ru`` or
    ``en`` per text by its script; ``ru``, ``en``, ``plain``) with the spec of the defaults
    (:func:`~neardup.fingerprints.pipeline.default_spec`: 5-word shingles, word 1-grams when the
    shorter
    text has fewer than 32 canonical tokens); ``spec`` (a :class:`~neardup.spec.Spec`, e.g.
    from :func:`~neardup.fingerprints.pipeline.make_spec`) replaces it. ``method`` is ``combined``
    (the
    default: the combined score too) or ``sets``. With ``fragments=True`` the result also
    holds the passages ``a`` shares with ``b`` (``aligner``: an
    :class:`~neardup.passages.align.Aligner` with other settings) and the uniqueness of ``a``;
    quoted
    and referenced passages count as cited unless ``citations=False``; passages whose sentences
    were reworded are marked as rewritten and counted as borrowed unless ``rewrites=False``
    (an ``aligner`` given says it itself). The defaults are those
    of :mod:`neardup.defaults`, as in the CLI and the service. ``hidden_a`` and ``hidden_b``:
    the text hidden in the files the texts were read from (a ``hidden_text`` trick,
    :func:`neardup.inputs.hidden_in`), reported with the tricks the analyzer undid. With
    ``explain=True`` (and the ``combined`` method) the result also says which evidence drove
    the combined score (:meth:`neardup.score.model.CombinedModel.explain`).
    """
    check("method", method, OneOf(SCORE_METHODS), ConfigurationError)
    check("fragments", fragments, Boolean(), ConfigurationError)
    check("citations", citations, Boolean(), ConfigurationError)
    check("rewrites", rewrites, Boolean(), ConfigurationError)
    check("explain", explain, Boolean(), ConfigurationError)
    if spec is None:
        check("preset", preset, OneOf(PRESETS), ConfigurationError)
        spec = _preset_spec(preset)
    elif not isinstance(spec, Spec):
        raise SpecError(f"spec must be a Spec, got {type(spec).__name__}")
    pipeline = pipeline_of(spec)
    text_a, text_b = pipeline.analyze(a), pipeline.analyze(b)
    measures, shingling = pipeline.compare_shingled(text_a, text_b)
    combined, explanation = None, None
    if method == "combined":
        from neardup.score.combined import combined_explained

        combined, found = combined_explained(text_a, text_b, spec)
        explanation = found if explain else None
    alignment = None
    if fragments:
        from neardup.passages.align import apply_citations

        aligner = aligner if aligner is not None else _aligner(spec, rewrites)
        query = aligner.prepare(text_a)
        alignment = aligner.pair(query, text_b, source_id=b_id)
        if citations:
            alignment = apply_citations(alignment, query)
    return Comparison(
        resemblance=measures.resemblance,
        containment_ab=measures.containment_ab,
        containment_ba=measures.containment_ba,
        sorensen=measures.sorensen,
        shingles_a=measures.shingles_a,
        shingles_b=measures.shingles_b,
        shared=measures.shared,
        spec=spec,
        shingling=shingling,
        combined=combined,
        alignment=alignment,
        tricks_a=text_a.canonical.tricks.merged(hidden_a),
        tricks_b=text_b.canonical.tricks.merged(hidden_b),
        explanation=explanation,
    )

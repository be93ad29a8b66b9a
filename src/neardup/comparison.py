"""``neardup.compare``: how alike two texts are, in one call.

The measures come from :meth:`~neardup.pipeline.Pipeline.compare` under a preset's spec (or a
given one); the matched fragments, on request, from :class:`~neardup.align.Aligner` with its
defaults. Pipelines are cached per spec, so comparing many pairs sets the analyzer up once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from neardup._constraints import Boolean, OneOf, check
from neardup.analysis.presets import PRESETS
from neardup.errors import ConfigurationError, SpecError
from neardup.spec import Spec

if TYPE_CHECKING:
    from neardup.align import Aligner, Passage
    from neardup.pipeline import Pipeline, TextLike


@dataclass(frozen=True)
class Comparison:
    """The measures between text ``a`` and text ``b`` (shingle sets under one spec).

    ``resemblance`` is Jaccard ``|A ∩ B| / |A ∪ B|``; ``containment_ab`` how much of ``a`` is
    in ``b`` (``|A ∩ B| / |A|``) and ``containment_ba`` the other way; ``sorensen`` is
    ``2|A ∩ B| / (|A| + |B|)``. ``shingles_a``, ``shingles_b`` and ``shared`` are the counts they
    come from. ``fragments`` holds the matched passages (character spans of both texts) when
    they were asked for, and is empty otherwise. ``combined`` is the combined score
    (:mod:`neardup.combined`) when it was asked for, else ``None``.
    """

    resemblance: float
    containment_ab: float
    containment_ba: float
    sorensen: float
    shingles_a: int
    shingles_b: int
    shared: int
    fragments: tuple[Passage, ...] = ()
    combined: float | None = None

    def to_dict(self) -> dict[str, Any]:
        extra = {"combined": self.combined} if self.combined is not None else {}
        return {
            **extra,
            "resemblance": self.resemblance,
            "containment_ab": self.containment_ab,
            "containment_ba": self.containment_ba,
            "sorensen": self.sorensen,
            "shingles_a": self.shingles_a,
            "shingles_b": self.shingles_b,
            "shared": self.shared,
            "fragments": [p.to_dict() for p in self.fragments],
        }


@lru_cache(maxsize=16)
def _pipeline(spec: Spec) -> Pipeline:
    from neardup.pipeline import Pipeline

    return Pipeline(spec)


@lru_cache(maxsize=8)
def _aligner(spec: Spec) -> Aligner:
    from neardup.align import Aligner

    return Aligner(spec)


@lru_cache(maxsize=8)
def _preset_spec(preset: str) -> Spec:
    from neardup.pipeline import default_spec

    return default_spec(preset)


def compare(
    a: TextLike,
    b: TextLike,
    *,
    preset: str = "auto",
    spec: Spec | None = None,
    fragments: bool = False,
    combined: bool = False,
) -> Comparison:
    """Resemblance, containment both ways and Sørensen of texts ``a`` and ``b``.

    ``a`` and ``b`` are ``str``, or ``bytes`` decoded with charset detection (anything else is a
    ``TypeError``). ``preset`` names the analyzer (``auto``: ``ru`` or ``en`` per text by
    its script; ``ru``, ``en``, ``plain``) with 5-word shingles, and word 1-grams when the shorter
    text has fewer than 32 canonical tokens (:func:`~neardup.pipeline.default_spec`);
    ``spec`` (a :class:`~neardup.spec.Spec`, e.g. from :func:`~neardup.pipeline.make_spec`)
    replaces it. With ``fragments=True`` the result also
    lists the passages ``a`` shares with ``b``; with ``combined=True`` it also holds the
    combined score (:func:`neardup.combined.combined_score`, the function every entry point
    applies).
    """
    check("fragments", fragments, Boolean(), ConfigurationError)
    check("combined", combined, Boolean(), ConfigurationError)
    if spec is None:
        check("preset", preset, OneOf(PRESETS), ConfigurationError)
        spec = _preset_spec(preset)
    elif not isinstance(spec, Spec):
        raise SpecError(f"spec must be a Spec, got {type(spec).__name__}")
    m = _pipeline(spec).compare(a, b)
    passages = _aligner(spec).pair(a, b).passages if fragments else []
    return Comparison(
        resemblance=m.resemblance,
        containment_ab=m.containment_ab,
        containment_ba=m.containment_ba,
        sorensen=m.sorensen,
        shingles_a=m.shingles_a,
        shingles_b=m.shingles_b,
        shared=m.shared,
        fragments=tuple(passages),
        combined=_combined_score(a, b, spec) if combined else None,
    )


def _combined_score(a: TextLike, b: TextLike, spec: Spec) -> float:
    from neardup.combined import combined_score

    return combined_score(a, b, spec)

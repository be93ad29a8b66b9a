"""The paper's two stages: the filter proposes, the detailed comparison decides.

Stage 1 is :meth:`PseudoMatrixBloomFilter.candidates` (rows above the background → their
documents). Stage 2 is what neardup already has: exact measures from the stored fingerprints
(:func:`neardup.fingerprints.similarity.compare`: containment both ways, resemblance) and, when the
texts
are at hand, the passages marked by :class:`neardup.passages.align.Aligner`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from neardup.bloom.classic import as_fingerprints
from neardup.bloom.pseudo_matrix import Fetch, Measure, PseudoMatrixBloomFilter
from neardup.fingerprints.pipeline import TextLike
from neardup.fingerprints.similarity import Fingerprints, Measures, compare
from neardup.passages.align import Aligner, SourceMatch


@dataclass(frozen=True)
class Verified:
    """One candidate after the detailed comparison."""

    key: int
    score: float  #: the filter's z-score of its best row
    measures: Measures  #: exact, from the fingerprints (containment_ab: query in document)
    fragments: SourceMatch | None = None


def verify(
    bloom: PseudoMatrixBloomFilter,
    fingerprints: object,
    *,
    fetch: Fetch | None = None,
    threshold: float | None = None,
    max_rows: int | None = None,
    measure: Measure | None = None,
    min_shared: int = 1,
) -> list[Verified]:
    """Candidates of the filter re-scored exactly; those sharing at least ``min_shared``
    fingerprints with the query, largest shared count first (then key)."""
    query = as_fingerprints(fingerprints, what="query fingerprints")
    found = bloom.candidates(query, threshold=threshold, max_rows=max_rows, measure=measure)
    keys = found.keys.tolist()
    if fetch is not None:
        got = fetch(keys)
        sets = {k: as_fingerprints(got[k]) for k in keys}
    else:
        sets = bloom.fingerprints_of(keys)
    q = Fingerprints(query)
    out = []
    for key, score in found.items():
        measures = compare(q, Fingerprints(sets[key]))
        if measures.shared >= min_shared:
            out.append(Verified(key, score, measures))
    out.sort(key=lambda v: (-v.measures.shared, v.key))
    return out


def mark_fragments(
    verified: list[Verified],
    query_text: TextLike,
    texts: Mapping[int, TextLike],
    *,
    aligner: Aligner | None = None,
) -> list[Verified]:
    """The passages of ``query_text`` found in each verified document whose text is given."""
    aligner = aligner or Aligner()
    prepared = aligner.prepare(query_text)
    out = []
    for v in verified:
        if v.key in texts:
            match = aligner.pair(prepared, texts[v.key], source_id=str(v.key)).sources[0]
            out.append(Verified(v.key, v.score, v.measures, match))
        else:
            out.append(v)
    return out

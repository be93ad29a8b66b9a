"""The PAN measures of text-reuse detection: character precision, recall, granularity, plagdet.

After Potthast, Stein, Barrón-Cedeño and Rosso, "An Evaluation Framework for Plagiarism
Detection" (COLING 2010), as used by the PAN competitions. A *case* (true reuse) and a
*detection* (a reported passage) are each a span of a suspicious document together with a
span of a source document. With ``S`` the cases and ``R`` the detections:

- ``r`` detects ``s`` when they name the same pair of documents and their spans overlap in
  the suspicious document AND in the source document;
- ``s ⊓ r`` is then the characters they share, counted in both documents
  (``|s ∩ r|`` = shared suspicious characters + shared source characters), else empty;
- precision ``= 1/|R| · Σ_r |∪_s (s ⊓ r)| / |r|``, recall ``= 1/|S| · Σ_s |∪_r (s ⊓ r)| / |s|``
  (``|r|``, ``|s|``: characters in both documents);
- granularity ``= 1/|S_R| · Σ_{s ∈ S_R} |R_s|`` over the detected cases ``S_R``, ``R_s`` the
  detections of ``s`` (1 is ideal: each case found as one passage);
- plagdet ``= F1 / log2(1 + granularity)``.

With no detections precision is 0; with no cases recall is 0 (both 1 when both are empty);
granularity is 1 when nothing is detected.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from math import log2

from neardup.errors import InputError


@dataclass(frozen=True)
class Reuse:
    """A span ``[susp_start, susp_end)`` of ``susp`` taken from ``[src_start, src_end)`` of ``src``."""

    susp: Hashable
    susp_start: int
    susp_end: int
    src: Hashable
    src_start: int
    src_end: int

    def __post_init__(self) -> None:
        if not (0 <= self.susp_start <= self.susp_end and 0 <= self.src_start <= self.src_end):
            raise InputError(f"a reuse span must have 0 ≤ start ≤ end: {self}")

    @property
    def size(self) -> int:
        return (self.susp_end - self.susp_start) + (self.src_end - self.src_start)


@dataclass(frozen=True)
class PlagdetScores:
    precision: float
    recall: float
    granularity: float
    f1: float
    plagdet: float
    cases: int
    detections: int
    detected_cases: int

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


def _overlap(a0: int, a1: int, b0: int, b1: int) -> tuple[int, int] | None:
    lo, hi = max(a0, b0), min(a1, b1)
    return (lo, hi) if lo < hi else None


def _union_length(spans: list[tuple[int, int]]) -> int:
    total = 0
    end = -1
    for lo, hi in sorted(spans):
        if hi <= end:
            continue
        total += hi - max(lo, end)
        end = hi
    return total


def _shared(s: Reuse, r: Reuse) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """``s ⊓ r`` as its suspicious and source spans, or None when ``r`` does not detect ``s``."""
    if s.susp != r.susp or s.src != r.src:
        return None
    susp = _overlap(s.susp_start, s.susp_end, r.susp_start, r.susp_end)
    src = _overlap(s.src_start, s.src_end, r.src_start, r.src_end)
    if susp is None or src is None:
        return None
    return susp, src


def plagdet(cases: Sequence[Reuse], detections: Sequence[Reuse]) -> PlagdetScores:
    """Precision, recall, granularity and plagdet of ``detections`` against ``cases``."""
    by_pair: dict[tuple[Hashable, Hashable], list[int]] = defaultdict(list)
    for index, r in enumerate(detections):
        by_pair[(r.susp, r.src)].append(index)
    # per detection and per case, the shared spans (suspicious, source) with the other side
    det_susp: list[list[tuple[int, int]]] = [[] for _ in detections]
    det_src: list[list[tuple[int, int]]] = [[] for _ in detections]
    recall_sum = 0.0
    granularity_sum = 0
    detected = 0
    for s in cases:
        case_susp: list[tuple[int, int]] = []
        case_src: list[tuple[int, int]] = []
        n_detecting = 0
        for index in by_pair.get((s.susp, s.src), ()):
            shared = _shared(s, detections[index])
            if shared is None:
                continue
            n_detecting += 1
            case_susp.append(shared[0])
            case_src.append(shared[1])
            det_susp[index].append(shared[0])
            det_src[index].append(shared[1])
        if n_detecting:
            detected += 1
            granularity_sum += n_detecting
        if s.size:
            recall_sum += (_union_length(case_susp) + _union_length(case_src)) / s.size
    precision_sum = 0.0
    for index, r in enumerate(detections):
        if r.size:
            precision_sum += (_union_length(det_susp[index]) + _union_length(det_src[index])) / r.size
    if not cases and not detections:
        precision = recall = 1.0
    else:
        precision = precision_sum / len(detections) if detections else 0.0
        recall = recall_sum / len(cases) if cases else 0.0
    granularity = granularity_sum / detected if detected else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PlagdetScores(
        precision=precision, recall=recall, granularity=granularity, f1=f1,
        plagdet=f1 / log2(1.0 + granularity), cases=len(cases), detections=len(detections),
        detected_cases=detected,
    )

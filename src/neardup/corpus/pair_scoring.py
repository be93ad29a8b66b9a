"""The three ways stage 3 (``verify``: the exact scoring of candidate pairs, or the MinHash
estimate) is done, as :class:`~neardup.corpus.pipeline.PairScoring` strategies chosen once
per run by :func:`choose_pair_scoring`:

- :class:`WorkerPairScoring` — exact, for plain JSONL input: the candidates' records are
  fingerprinted again in worker tasks of whole components, which also make the groups and
  similarities there (:func:`~neardup.corpus.verify.verify_candidates`); the signing stores
  no fingerprint sets.
- :class:`StoredPairScoring` — exact, from every fingerprint set the signing stored (any other
  input, winnowed candidates, or a multiset fingerprint family).
- :class:`EstimatedPairScoring` — the MinHash estimate from the stored signatures.

The choice decides what the signing keeps, which is why it is made before the first stage
and not inside the verification.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from neardup.corpus.arrays import F64, I64
from neardup.corpus.options import DedupOptions
from neardup.corpus.pipeline import JobSettings, PairScoring, Signed
from neardup.corpus.progress import StageProgress
from neardup.corpus.verify import (
    PairScores,
    StoredFingerprints,
    VerifiedCandidates,
    estimated_scores,
    verify_candidates,
)
from neardup.spec import Spec


class WorkerPairScoring:
    """Exact scores from the candidates' records re-read by byte span and fingerprinted in
    worker tasks; the tasks' groups and similarities are kept for stage 4, which checks them
    against its own groups of the whole corpus."""

    keeps_fingerprints = False
    keeps_signatures = False
    advances_bar = True

    def __init__(self, spec: Spec, options: DedupOptions, settings: JobSettings) -> None:
        self.spec_json = spec.to_json()
        self.options = options
        self.settings = settings
        self.scored: VerifiedCandidates | None = None

    def score_candidates(
        self, signed: Signed, a: I64, b: I64, priority: F64, progress: tuple[StageProgress, Any]
    ) -> PairScores:
        assert signed.locations is not None  # plain JSONL input: its records' byte spans
        self.scored = verify_candidates(
            self.spec_json,
            signed.locations,
            a,
            b,
            priority,
            (self.options.threshold, self.options.measure),
            self.settings.text_field,
            self.settings.jobs,
            progress,
        )
        return self.scored.scores

    def similarity_to_kept(self, signed: Signed, rep: I64) -> F64:
        assert self.scored is not None, "score_candidates runs first"
        # the verification made the same groups task by task, and each member's similarity
        if not np.array_equal(rep[self.scored.rows], self.scored.rep):
            raise AssertionError("the verification's groups are not the corpus's groups")
        similarity = np.ones(signed.n, dtype=np.float64)
        similarity[self.scored.rows] = self.scored.similarity
        return similarity


class _ScoresFromWorkspace:
    """Scoring from arrays the signing stored: the candidate pairs, then each group member
    against its kept document, by the same :meth:`_scores`."""

    keeps_fingerprints = False
    keeps_signatures = False
    advances_bar = False

    def __init__(self, options: DedupOptions) -> None:
        self.options = options

    def _load(self, signed: Signed) -> None:
        raise NotImplementedError

    def _scores(self, a: I64, b: I64) -> PairScores:
        raise NotImplementedError

    def score_candidates(
        self, signed: Signed, a: I64, b: I64, priority: F64, progress: tuple[StageProgress, Any]
    ) -> PairScores:
        self._load(signed)
        return self._scores(a, b)

    def similarity_to_kept(self, signed: Signed, rep: I64) -> F64:
        n = signed.n
        similarity = np.ones(n, dtype=np.float64)
        members = np.flatnonzero(rep != np.arange(n))
        if members.shape[0]:
            similarity[members] = self._scores(members, rep[members]).measure(self.options.measure)
        return similarity


class StoredPairScoring(_ScoresFromWorkspace):
    """Exact scores from every document's fingerprint set, stored by the signing."""

    keeps_fingerprints = True

    def _load(self, signed: Signed) -> None:
        self.fingerprints = StoredFingerprints(*signed.work.fingerprints())

    def _scores(self, a: I64, b: I64) -> PairScores:
        return self.fingerprints.scores(a, b)


class EstimatedPairScoring(_ScoresFromWorkspace):
    """MinHash estimates (share of equal signature positions) from the stored signatures."""

    keeps_signatures = True

    def __init__(self, spec: Spec, options: DedupOptions) -> None:
        from neardup.sketch.minhash import empty_value

        super().__init__(options)
        assert spec.sketch is not None
        self.empty = empty_value(spec.sketch.value_bits)

    def _load(self, signed: Signed) -> None:
        self.signatures = signed.work.signatures()

    def _scores(self, a: I64, b: I64) -> PairScores:
        return estimated_scores(self.signatures, self.empty, a, b)


def choose_pair_scoring(
    spec: Spec, options: DedupOptions, settings: JobSettings, raw_files: list[str] | None
) -> PairScoring:
    """The estimate when asked for it; exact in worker tasks for plain JSONL input (signed by
    the fused path, only the candidates fingerprinted later), unless winnowed candidates or a
    multiset fingerprint family need every document's stored set; else exact from stored sets."""
    if options.verify != "exact":
        return EstimatedPairScoring(spec, options)
    if raw_files is not None and not options.winnow and not spec.fingerprint_family.multiset:
        return WorkerPairScoring(spec, options, settings)
    return StoredPairScoring(options)

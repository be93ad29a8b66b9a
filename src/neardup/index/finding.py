"""The candidate stage of the collection: every candidate source asked, the union verified.

A collection's sources are a list (:attr:`CandidateFinder.sources`, also
:attr:`Collection.sources <neardup.index.collection.Collection.sources>`): the inverted index of
winnowed fingerprints, the pseudo-matrix Bloom rows when the index spec asks for them, and the
postings of sentence keys (:mod:`neardup.index.sentences`, checks only) under
``sentence_bands``. A new kind of source is one object with the four
methods of :class:`~neardup.index.candidates.CandidateSource` appended to that list: adds and
checks ask it from then on, its proposals are verified exactly like the others', a pair two
sources propose is verified once, and the verifier, the policy and the writes do not change.
What each source proposed, with the evidence it found, stays apart (:class:`Proposals`), so a
report can tell later which source found a document without the union losing it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from neardup.index.candidates import CandidatePairs, CandidateSource, Query

if TYPE_CHECKING:
    from neardup.storage.base import NewDoc, Storage


@dataclass(frozen=True)
class Proposals:
    """What every source proposed for some queries: each source's own pairs with its
    evidence, by source name in the sources' order, and their union (what is verified)."""

    by_source: tuple[tuple[str, CandidatePairs], ...]

    @cached_property
    def pairs(self) -> CandidatePairs:
        """Every pair any source proposed, once, ordered by query position."""
        return CandidatePairs.union([p for _, p in self.by_source])

    def evidence(self, pos: int, other: int) -> dict[str, float | None]:
        """What each source that proposed ``(pos, other)`` found for it (``None``: a source
        that gives no evidence); empty when no source proposed the pair."""
        out: dict[str, float | None] = {}
        for name, found in self.by_source:
            at = ((found.pos == pos) & (found.other == other)).nonzero()[0]
            if at.shape[0]:
                out[name] = None if found.evidence is None else float(found.evidence[at[0]])
        return out


class CandidateFinder:
    """The candidate stage: the documents worth an exact comparison with each text.

    Stored candidates come from every source in :attr:`sources`; candidates among the texts
    of one add batch too (earlier texts of the batch for each text). The finder also tells
    every source of writes (:meth:`inserted`, :meth:`removing`) so a source keeping state of
    its own (the Bloom rows) stays in step inside the write's transaction.
    """

    def __init__(self, sources: Iterable[CandidateSource]) -> None:
        #: The sources asked, in order; append one to add a kind of candidate.
        self.sources: list[CandidateSource] = list(sources)

    def stored(
        self, queries: Sequence[Query], storage: Storage, *, adding: bool = False
    ) -> Proposals:
        """Stored documents every source proposes for the queries (positions in ``queries``);
        for an add (``adding``), only the sources that serve adds (a source with a true
        ``checks_only`` serves checks alone: the sentence keys)."""
        asked = [s for s in self.sources if not (adding and getattr(s, "checks_only", False))]
        return Proposals(tuple((s.name, s.stored(queries, storage)) for s in asked))

    def in_batch(self, queries: Sequence[Query]) -> CandidatePairs:
        """Earlier queries of the same batch any source proposes for each query."""
        return CandidatePairs.union([s.in_batch(queries) for s in self.sources])

    def inserted(self, docs: Sequence[NewDoc], storage: Storage) -> None:
        """Documents were just stored, in the write's transaction: every source is told."""
        for source in self.sources:
            source.inserted(docs, storage)

    def removing(self, keys: Sequence[int], storage: Storage) -> None:
        """Documents are about to be deleted (still readable): every source is told first,
        since a source may rebuild what it keeps from the documents left beside them."""
        for source in self.sources:
            source.removing(keys, storage)

    def __repr__(self) -> str:
        return f"CandidateFinder({self.sources!r})"

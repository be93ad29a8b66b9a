"""What an open collection holds (storage, specs, pipeline, candidate generator and sources, the
length-adaptive rule) and the few things every part of it uses.
"""

from __future__ import annotations

from typing import Self

from neardup.errors import ConfigurationError, DamagedCollectionError
from neardup.fingerprints.batch import BatchShingler
from neardup.fingerprints.pipeline import Pipeline
from neardup.index.candidates import CandidateGenerator, CandidateSource, generator_for, sources_for
from neardup.index.results import Analyzed, Decision
from neardup.index.short import ShortRule
from neardup.index.sizes import KnownSizes
from neardup.spec import IndexSpec, Spec
from neardup.storage import Storage


class CollectionBase:
    """An open collection's parts; :class:`~neardup.index.collection.Collection` adds the rest."""

    def __init__(self, storage: Storage, spec: Spec, index_spec: IndexSpec) -> None:
        self.storage = storage
        self.spec = spec
        self.index_spec = index_spec
        self.pipeline = Pipeline(spec)
        self.generator: CandidateGenerator = generator_for(index_spec)
        self.sources: tuple[CandidateSource, ...] = sources_for(index_spec, self.generator)
        self.multiset = spec.fingerprint_family.multiset
        self._sizes = KnownSizes()
        self.short: ShortRule | None = None
        if spec.shingles.adaptive:
            if not index_spec.store_text:
                raise ConfigurationError(
                    "a length-adaptive spec needs a collection that keeps its texts: short "
                    "pairs are verified on the short shingles of the stored texts"
                )
            self.short = ShortRule(self.pipeline, index_spec.short_window)
        self._batch_shingler = BatchShingler.of(self.pipeline, short=self.short is not None)

    def close(self) -> None:
        self.storage.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def location(self) -> str:
        return self.storage.location

    def _damaged(self, detail: str) -> DamagedCollectionError:
        return DamagedCollectionError(f"the collection at {self.location} is damaged: {detail}")

    def _length_refusal(self, doc_id: str, item: Analyzed) -> Decision | None:
        """The refusal of a text outside the length range, or ``None`` when it is inside."""
        reason = self.index_spec.length_refusal(item.length)
        if reason is None:
            return None
        name = f"the text of {doc_id!r}" if doc_id else "the text"
        detail = (
            f"{name} has {item.length} characters; the collection {self.location} admits "
            f"texts of {self.index_spec.length_range()}"
        )
        return Decision(doc_id, False, reason, (), None, None, item.size, detail)

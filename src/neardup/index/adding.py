"""The writer part of the collection: batches of texts analysed (on threads ahead with
``jobs``), their candidates found, scored, decided by the policy document by document, and
written in one transaction each.

A batch is acknowledged (its decisions given back) only after its commit, so a process killed
at any moment leaves every acknowledged document whole and no document half-written. The
writer owns no stage of its own: it runs the collection's candidate finder, verifier and
decider in the order an add needs (texts of the batch among themselves outside the
transaction, stored candidates inside it) and keeps the writes together.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from neardup.errors import DamagedCollectionError, DuplicateIdError
from neardup.fingerprints.pipeline import TextLike
from neardup.index.analyzing import IndexAnalyzer
from neardup.index.batch import Batch, Hits, Pending
from neardup.index.deciding import Decider
from neardup.index.finding import CandidateFinder
from neardup.index.items import Item, read_batches
from neardup.index.policy import Policy
from neardup.index.results import Decision, IndexableText
from neardup.index.scoring import Verifier
from neardup.storage import NewDoc, Storage

DEFAULT_BATCH = 256

#: A batch's items with their texts analysed: ``(id, analysis, meta)``.
AnalyzedItems = list[tuple[str, IndexableText, Mapping[str, Any]]]


class Writer:
    """Checked (or unchecked) batches written to the storage."""

    def __init__(
        self,
        storage: Storage,
        analyzer: IndexAnalyzer,
        finder: CandidateFinder,
        verifier: Verifier,
        decider: Decider,
    ) -> None:
        self.storage = storage
        self.analyzer = analyzer
        self.finder = finder
        self.verifier = verifier
        self.decider = decider

    def analyzed_batches(
        self, items: Iterable[Any], batch_size: int, jobs: int
    ) -> Iterator[AnalyzedItems]:
        """The items in batches of ``batch_size``, every text analysed (by ``jobs - 1``
        threads ahead when ``jobs`` is above 1)."""
        batches = read_batches(items, batch_size)
        if jobs == 1:
            return map(self._analyzed_batch, batches)
        return self._analyzed_ahead(batches, jobs)

    def _analyzed_batch(self, items: list[Item]) -> AnalyzedItems:
        """A batch of items with every text analyzed (the raw texts in one
        :meth:`~neardup.index.analyzing.IndexAnalyzer.analyze_many`)."""
        raw: dict[int, TextLike] = {
            i: text for i, (_, text, _) in enumerate(items) if not isinstance(text, IndexableText)
        }
        analyzed = dict(zip(raw, self.analyzer.analyze_many(list(raw.values())), strict=True))
        return [
            (doc_id, analyzed[i] if i in analyzed else self.analyzer.analyzed(text), meta)
            for i, (doc_id, text, meta) in enumerate(items)
        ]

    def _analyzed_ahead(self, batches: Iterator[list[Item]], jobs: int) -> Iterator[AnalyzedItems]:
        """The batches analyzed by ``jobs - 1`` threads while the caller's thread checks and
        writes the earlier ones (the analysis kernels release the GIL), in input order, at
        most ``jobs + 1`` ahead. An item that stops the reading (a bad id) stops the run after
        the batches before its own, as on one thread."""
        ahead: deque[Future[AnalyzedItems]] = deque()
        failure: Exception | None = None
        read_all = False
        with ThreadPoolExecutor(jobs - 1, thread_name_prefix="neardup-analyze") as pool:
            try:
                while True:
                    while not read_all and failure is None and len(ahead) <= jobs:
                        try:
                            ahead.append(pool.submit(self._analyzed_batch, next(batches)))
                        except StopIteration:
                            read_all = True
                        except Exception as exc:  # raised once the batches before are in
                            failure = exc
                    if not ahead:
                        break
                    yield ahead.popleft().result()
            finally:
                for future in ahead:
                    future.cancel()
        if failure is not None:
            raise failure

    def add_batch(self, items: AnalyzedItems, rules: Policy, check: bool) -> list[Decision]:
        """One batch in stages: candidates → scores → the policy's decisions → one write
        (unchecked: no candidates, no scores, every text new)."""
        batch = Batch.of(items)
        in_batch = (
            self.verifier.in_batch(batch, self.finder.in_batch(batch.items), rules)
            if check
            else Hits({})
        )
        with self.storage.transaction():
            self._refuse_taken(batch.ids)
            next_key = self._next_key()
            stored = (
                self.verifier.stored(
                    batch, self.finder.stored(batch.items, self.storage, adding=True).pairs, rules
                )
                if check
                else Hits({})
            )
            pending = Pending(self.storage)
            info = {
                d.key: (d.id, d.group)
                for d in self.storage.docs(sorted(stored.other_keys()), meta=False)
            }
            decisions = self.decider.batch(
                batch, stored, in_batch, info, rules, pending, next_key, check
            )
            docs = self._write(pending, next_key + len(pending.docs))
        self.verifier.remember(docs)
        final_group = {d.key: d.group for d in docs}
        # a later text of the batch may have merged groups: report each admitted one's final
        return [
            d
            if d.key is None or final_group[d.key] == d.group
            else replace(d, group=final_group[d.key])
            for d in decisions
        ]

    def _refuse_taken(self, ids: Sequence[str]) -> None:
        taken = self.storage.keys_for_ids(ids)
        if taken:
            first = next(i for i in ids if i in taken)
            raise DuplicateIdError(
                f"the id {first!r} is already in the collection {self.storage.location}"
            )

    def _next_key(self) -> int:
        """The key counter, checked to be past every stored key (a lowered one is damage)."""
        value = self.storage.read_meta().get("next_key", "")
        try:
            next_key = int(value)
        except ValueError:
            raise self._damaged(f"the key counter is {value!r}, not an integer") from None
        largest = self.storage.max_key()
        if next_key <= largest:
            raise self._damaged(
                f"the key counter {next_key} is not past the largest stored key {largest}"
            )
        return next_key

    def _damaged(self, detail: str) -> DamagedCollectionError:
        return DamagedCollectionError(
            f"the collection at {self.storage.location} is damaged: {detail}"
        )

    def _write(self, pending: Pending, next_key: int) -> list[NewDoc]:
        """Stage 4: the admitted documents, group relabels, links and the key counter."""
        docs = pending.final_docs()
        self.storage.insert(docs)
        self.finder.inserted(docs, self.storage)  # a source's own state (the Bloom rows) too
        self.storage.relabel_groups(pending.relabels())
        self.storage.add_links(pending.links)
        self.storage.write_meta({"next_key": str(next_key)})
        return docs

"""Adding texts: batches analyzed (on threads ahead with ``jobs``), scored, decided by the policy
document by document, and written in one transaction each.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import numpy as np

from neardup.defaults import DEFAULTS
from neardup.errors import DuplicateIdError, InputError, TextLengthError
from neardup.fingerprints.pipeline import TextLike
from neardup.index.batch import Batch, Hits, Pending
from neardup.index.items import Item, read_batches
from neardup.index.policy import LENGTH_REASONS, Policy, Reason, Verdict
from neardup.index.results import Analyzed, Decision, Match, match_of, sort_matches
from neardup.index.scoring import Scoring
from neardup.storage import NewDoc

DEFAULT_BATCH = 256


class Adding(Scoring):
    """``add``, ``add_many`` and ``iter_add``."""

    def add(
        self,
        doc_id: str,
        text: TextLike | Analyzed,
        meta: Mapping[str, Any] | None = None,
        *,
        policy: str | None = None,
        check: bool = True,
    ) -> Decision:
        """Check one text and store it if the policy admits it. A taken id: DuplicateIdError;
        a text outside the collection's length range: :class:`~neardup.errors.TextLengthError`
        (nothing is written). ``check=False``: stored unchecked (see :meth:`iter_add`)."""
        decision = self.add_many(
            [(doc_id, text, {} if meta is None else meta)], policy=policy, check=check
        )[0]
        if decision.reason in LENGTH_REASONS:
            raise TextLengthError(f"{decision.detail}; refused")
        return decision

    def add_many(
        self,
        items: Iterable[Any],
        *,
        policy: str | None = None,
        batch_size: int = DEFAULT_BATCH,
        check: bool = True,
        jobs: int = DEFAULTS.jobs,
    ) -> list[Decision]:
        """Add ``(id, text[, meta])`` items in batches; one decision per item, in order."""
        return list(
            self.iter_add(items, policy=policy, batch_size=batch_size, check=check, jobs=jobs)
        )

    def iter_add(
        self,
        items: Iterable[Any],
        *,
        policy: str | None = None,
        batch_size: int = DEFAULT_BATCH,
        check: bool = True,
        jobs: int = DEFAULTS.jobs,
    ) -> Iterator[Decision]:
        """Like :meth:`add_many`, yielding each batch's decisions once the batch is committed.

        A taken id (or an id twice in one batch) raises DuplicateIdError before anything of
        its batch is written; earlier batches stay committed. A text outside the length range
        is refused on its own (``too_short`` / ``too_long``); the rest of its batch goes on.

        ``check=False`` is the bulk load: no text is compared with the collection or with the
        other texts, so nothing is refused as a duplicate, grouped or linked; every text inside
        the length range is stored as a group of its own (reason ``unchecked``). Finding a
        text's candidates is what an add costs (with the pseudo-matrix filter, a scan of every
        row for every text); a corpus known to hold no duplicates, or whose duplicates need
        not be recorded, loads without that cost, and later checks and adds see its texts.
        """
        rules = Policy.of(self.index_spec, policy)
        if batch_size < 1:
            raise InputError(f"batch_size must be at least 1, got {batch_size}")
        from neardup.sketch.parallel import workers_for

        jobs = workers_for(jobs)  # the one meaning of jobs: 0 is one per CPU
        batches = read_batches(items, batch_size)
        analyzed = (
            map(self._analyzed_batch, batches) if jobs == 1 else self._analyzed_ahead(batches, jobs)
        )
        for batch in analyzed:
            yield from self._add_batch(batch, rules, check)

    def _analyzed_batch(self, items: list[Item]) -> list[tuple[str, Analyzed, Mapping[str, Any]]]:
        """A batch of items with every text analyzed (the raw texts in one
        :meth:`analyze_many`)."""
        raw: dict[int, TextLike] = {
            i: text for i, (_, text, _) in enumerate(items) if not isinstance(text, Analyzed)
        }
        analyzed = dict(zip(raw, self.analyze_many(list(raw.values())), strict=True))
        return [
            (doc_id, analyzed[i] if i in analyzed else self._analyzed(text), meta)
            for i, (doc_id, text, meta) in enumerate(items)
        ]

    def _analyzed_ahead(
        self, batches: Iterator[list[Item]], jobs: int
    ) -> Iterator[list[tuple[str, Analyzed, Mapping[str, Any]]]]:
        """The batches analyzed by ``jobs - 1`` threads while the caller's thread checks and
        writes the earlier ones (the analysis kernels release the GIL), in input order, at
        most ``jobs + 1`` ahead. An item that stops the reading (a bad id) stops the run after
        the batches before its own, as on one thread."""
        ahead: deque[Future[list[tuple[str, Analyzed, Mapping[str, Any]]]]] = deque()
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

    def _add_batch(
        self, items: list[tuple[str, Analyzed, Mapping[str, Any]]], rules: Policy, check: bool
    ) -> list[Decision]:
        """One batch in stages: candidates → scores → the policy's decisions → one write
        (unchecked: no candidates, no scores, every text new)."""
        batch = Batch.of(items)
        in_batch = self._batch_scores(batch, rules) if check else Hits({})
        with self.storage.transaction():
            self._refuse_taken(batch.ids)
            next_key = self._next_key()
            stored = self._stored_scores(batch, rules) if check else Hits({})
            pending = Pending(self.storage)
            decisions = self._decide(batch, stored, in_batch, rules, pending, next_key, check)
            docs = self._write(pending, next_key + len(pending.docs))
        self._sizes.remember(
            np.array([d.key for d in docs], dtype=np.int64),
            np.array([d.size for d in docs], dtype=np.int64),
        )
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

    def _decide(
        self,
        batch: Batch,
        stored: Hits,
        in_batch: Hits,
        rules: Policy,
        pending: Pending,
        next_key: int,
        checked: bool = True,
    ) -> list[Decision]:
        """Stage 3: the policy's decision on each text, in order; admitted ones join ``pending``.

        Later texts of the batch see the earlier admitted ones (only admitted ones count).
        Unchecked texts (no hits) are admitted as ``unchecked``.
        """
        info = {
            d.key: (d.id, d.group)
            for d in self.storage.docs(sorted(stored.other_keys()), meta=False)
        }
        pending.preload({group for _, group in info.values()})
        admitted: dict[int, NewDoc] = {}  # batch position → its stored form
        decisions: list[Decision] = []
        for pos, (doc_id, item, doc_meta) in enumerate(batch.items_with_meta):
            refusal = self._length_refusal(doc_id, item)
            if refusal is not None:
                decisions.append(refusal)
                continue
            matches: list[Match] = []
            for hit in stored.at(pos):
                mid, grp = info[hit.other]
                matches.append(match_of(mid, hit.other, hit.measures, pending.root(grp)))
            for hit in in_batch.at(pos):
                if hit.other in admitted:
                    d = admitted[hit.other]
                    matches.append(match_of(d.id, d.key, hit.measures, pending.root(d.group)))
            matches = sort_matches(matches)
            verdict = (
                rules.decide(matches, pending.total_size)
                if checked
                else Verdict(True, Reason.UNCHECKED, None)
            )
            if not verdict.accepted:
                decisions.append(
                    Decision(
                        doc_id,
                        False,
                        verdict.reason,
                        tuple(matches),
                        verdict.group,
                        None,
                        item.size,
                    )
                )
                continue
            key = next_key + len(pending.docs)
            group = pending.join([m.group for m in matches], key)
            doc = NewDoc(
                key,
                doc_id,
                group,
                item.size,
                item.values,
                item.counts,
                item.samples,
                dict(doc_meta),
                item.text,
            )
            pending.admit(doc, matches)
            admitted[pos] = doc
            decisions.append(
                Decision(doc_id, True, verdict.reason, tuple(matches), group, key, item.size)
            )
        return decisions

    def _write(self, pending: Pending, next_key: int) -> list[NewDoc]:
        """Stage 4: the admitted documents, group relabels, links and the key counter."""
        docs = pending.final_docs()
        self.storage.insert(docs)
        for source in self.sources:  # a source's own state (the Bloom rows) in the same write
            source.inserted(docs, self.storage)
        self.storage.relabel_groups(pending.relabels())
        self.storage.add_links(pending.links)
        self.storage.write_meta({"next_key": str(next_key)})
        return docs

"""The policy part of the collection: what a text's verified matches mean for it.

The rules themselves (policy, measure, threshold, group cap) are :class:`~neardup.index.policy.
Policy`; this part applies them where the collection needs a decision — to one checked text
(:meth:`Decider.would`: what ``add`` would do) and to every text of an add batch in order
(:meth:`Decider.batch`: later texts see the earlier admitted ones) — and refuses texts outside
the collection's length range first. Keeping it apart from the verifier means a decision never
re-scores anything: it takes the exact measures it is given, so ``check`` and ``add`` decide
alike on the same matches.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from neardup.index.batch import Batch, Hits, Pending
from neardup.index.policy import Policy, Reason, Verdict
from neardup.index.results import Decision, IndexableText, Match, match_of, sort_matches
from neardup.spec import IndexSpec
from neardup.storage import NewDoc


class Decider:
    """Decisions under a collection's index spec (``location`` names it in refusals)."""

    def __init__(self, index_spec: IndexSpec, location: str) -> None:
        self.index_spec = index_spec
        self.location = location

    def rules(self, override: str | None = None) -> Policy:
        """The policy of the index spec, with ``override`` (a policy name) for one call."""
        return Policy.of(self.index_spec, override)

    def length_refusal(self, doc_id: str, item: IndexableText) -> Decision | None:
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

    def would(
        self,
        item: IndexableText,
        matches: Sequence[Match],
        rules: Policy,
        group_size: Callable[[Sequence[int]], int],
    ) -> Decision:
        """What ``add`` would decide on a checked text whose verified matches (strongest
        first) are ``matches``; ``group_size`` counts the stored members of some groups."""
        hits = [
            m
            for m in matches
            if rules.reaches(m.resemblance, m.containment_query_in_doc, m.containment_doc_in_query)
        ]
        verdict = rules.decide(hits, group_size)
        return self.length_refusal("", item) or Decision(
            "", verdict.accepted, verdict.reason, tuple(hits), verdict.group, None, item.size
        )

    def batch(
        self,
        batch: Batch,
        stored: Hits,
        in_batch: Hits,
        info: Mapping[int, tuple[str, int]],
        rules: Policy,
        pending: Pending,
        next_key: int,
        checked: bool = True,
    ) -> list[Decision]:
        """The decision on each text of an add batch, in order; admitted ones join ``pending``.

        ``info`` is ``key → (id, group)`` of the stored documents ``stored`` hit. Later texts
        of the batch see the earlier admitted ones (only admitted ones count). Unchecked texts
        (no hits) are admitted as ``unchecked``.
        """
        pending.preload({group for _, group in info.values()})
        admitted: dict[int, NewDoc] = {}  # batch position → its stored form
        decisions: list[Decision] = []
        for pos, (doc_id, item, doc_meta) in enumerate(batch.items_with_meta):
            refusal = self.length_refusal(doc_id, item)
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

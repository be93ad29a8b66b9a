"""The decision stage of the collection: what a text's near-duplicates mean for it.

One :class:`Policy` object, made from the collection's :class:`~neardup.spec.IndexSpec` (and an
optional per-run override), answers both :meth:`Collection.add` and :meth:`Collection.check`:

* :meth:`Policy.decisive` — the value compared with the threshold (resemblance, or the larger
  of the two containments), written once for scalars and numpy arrays alike;
* :meth:`Policy.could_reach` — the size bound that rules pairs out before they are merged;
* :meth:`Policy.decide` — the verdict on a text from its matches at or above the threshold.

Policies, measures and reasons are string enums, so ``Reason.NEW == "new"`` and they print and
serialize as their plain values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from neardup.errors import InputError

if TYPE_CHECKING:
    from neardup.spec import IndexSpec

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
B = npt.NDArray[np.bool_]
V = TypeVar("V", float, F64)


class PolicyKind(StrEnum):
    """What ``add`` does with a text that has a member at or above the threshold."""

    REJECT = "reject"
    GROUP = "group"
    ALLOW = "allow"


class Measure(StrEnum):
    """The value the threshold applies to."""

    RESEMBLANCE = "resemblance"
    CONTAINMENT = "containment"


class Reason(StrEnum):
    """Why a text was admitted or refused."""

    NEW = "new"
    DUPLICATE = "duplicate"
    GROUPED = "grouped"
    GROUP_FULL = "group_full"
    LINKED = "linked"
    UNCHECKED = "unchecked"  #: stored by a bulk load, compared with nothing
    TOO_SHORT = "too_short"
    TOO_LONG = "too_long"


#: The refusals that come from the text's length alone (``IndexSpec.min_length``/``max_length``).
LENGTH_REASONS = (Reason.TOO_SHORT, Reason.TOO_LONG)


class HasGroup(Protocol):
    """A match as the policy sees it: the group of the member it matched."""

    @property
    def group(self) -> int: ...


@dataclass(frozen=True)
class Verdict:
    """The policy's answer: admitted or not, why, and the group concerned (``None`` if new)."""

    accepted: bool
    reason: Reason
    group: int | None


@dataclass(frozen=True)
class Policy:
    """The decision rules of a collection: policy, measure, threshold and group cap."""

    kind: PolicyKind
    measure: Measure
    threshold: float
    group_cap: int

    @classmethod
    def of(cls, spec: IndexSpec, override: str | None = None) -> Policy:
        """The policy of an index spec, with ``override`` (a policy name) for one run."""
        name = override or spec.policy
        try:
            kind = PolicyKind(name)
        except ValueError:
            allowed = ", ".join(p.value for p in PolicyKind)
            raise InputError(f"policy must be one of {allowed}, got {name!r}") from None
        return cls(kind, Measure(spec.measure), float(spec.threshold), int(spec.group_cap))

    def decisive(self, resemblance: V, query_in_doc: V, doc_in_query: V) -> V:
        """The value compared with the threshold (scalars or arrays of the same shape)."""
        if self.measure is Measure.RESEMBLANCE:
            return resemblance
        return np.maximum(query_in_doc, doc_in_query)

    def reaches_counts(self, shared: I64, size_query: I64, size_doc: I64) -> B:
        """Which pairs, given ``|Q ∩ D|``, ``|Q|`` and ``|D|``, reach the threshold."""
        with np.errstate(divide="ignore", invalid="ignore"):
            value = self.decisive(
                shared / (size_query + size_doc - shared), shared / size_query, shared / size_doc
            )
        return (shared > 0) & (value >= self.threshold)

    def reaches(self, resemblance: float, query_in_doc: float, doc_in_query: float) -> bool:
        """Whether one pair's measures reach the threshold."""
        return bool(self.decisive(resemblance, query_in_doc, doc_in_query) >= self.threshold)

    def could_reach(self, size_query: I64, size_doc: I64) -> B | None:
        """Pairs whose sizes alone allow the threshold, or ``None`` when sizes bound nothing.

        Resemblance is at most ``min(|A|, |B|) / max(|A|, |B|)`` (for multisets too);
        containment has no such bound.
        """
        if self.measure is not Measure.RESEMBLANCE:
            return None
        keep: B = np.minimum(size_query, size_doc) >= self.threshold * np.maximum(
            size_query, size_doc
        )
        return keep

    def decide(
        self, matches: Sequence[HasGroup], group_size: Callable[[Sequence[int]], int]
    ) -> Verdict:
        """The verdict on a text whose members at or above the threshold are ``matches``.

        ``matches`` come strongest first; ``group_size(groups)`` is the number of members of
        those (distinct) groups together, asked only under ``group``. A refused duplicate
        names the group of its strongest match; an admitted text (and a full group) the
        smallest group it joins.
        """
        if not matches:
            return Verdict(True, Reason.NEW, None)
        groups = sorted({m.group for m in matches})
        if self.kind is PolicyKind.REJECT:
            return Verdict(False, Reason.DUPLICATE, matches[0].group)
        if self.kind is PolicyKind.ALLOW:
            return Verdict(True, Reason.LINKED, groups[0])
        if group_size(groups) + 1 > self.group_cap:
            return Verdict(False, Reason.GROUP_FULL, groups[0])
        return Verdict(True, Reason.GROUPED, groups[0])

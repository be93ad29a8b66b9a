"""The collection: a durable index of texts that checks every new text on insert.

See :class:`~neardup.index.collection.Collection` — a composition of parts, each with one
contract, listed there — and the results it gives back in :mod:`neardup.index.results`.
Candidate sources are in :mod:`neardup.index.candidates` and the stage that asks them all in
:mod:`neardup.index.finding`; exact verification in :mod:`neardup.index.scoring` (over
:mod:`neardup.index.verify`), the policy's decisions in :mod:`neardup.index.deciding`, the one
orchestration of a check in :mod:`neardup.index.checking`, duplicate groups in
:mod:`neardup.index.groups`, storage backends in :mod:`neardup.storage`.
"""

from __future__ import annotations

from neardup.index.candidates import CandidateGenerator
from neardup.index.collection import (
    CheckResult,
    Collection,
    Decision,
    Document,
    Group,
    Match,
    describe_spec,
)
from neardup.spec import IndexSpec

__all__ = [
    "CandidateGenerator",
    "CheckResult",
    "Collection",
    "Decision",
    "Document",
    "Group",
    "IndexSpec",
    "Match",
    "describe_spec",
]

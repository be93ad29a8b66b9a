"""The collection: a durable index of texts that checks every new text on insert.

See :class:`~neardup.index.collection.Collection` (its parts are listed there) and the
results it gives back in :mod:`neardup.index.results`; candidate generation is in
:mod:`neardup.index.candidates`, exact verification in :mod:`neardup.index.verify`, duplicate
groups in :mod:`neardup.index.groups`, storage backends in :mod:`neardup.storage`.
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

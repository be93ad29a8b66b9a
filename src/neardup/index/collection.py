"""The collection: a durable store of texts that checks every new text before it goes in.

This is seed 000's task: a store where each new text is compared with everything already there;
a text too similar to a member is refused (policy ``reject``), or admitted into the duplicate
group of its near-duplicates while that group stays under a cap (``group``), or admitted with
its links recorded (``allow``). Seed 004's "uniqueness %" of a text is the share of its
shingles found in no document of the collection.

How a text is checked:

1. analysis — the :class:`~neardup.fingerprints.pipeline.Pipeline` of the stored spec gives the
shingle
   fingerprints in text order; their sorted distinct set is what gets compared, and the
   candidate generator (winnowing) picks the sample that goes into the inverted index;
2. candidates — documents sharing a sample, ranked by how many they share (at most
   ``max_candidates``);
3. verification — every candidate is re-scored exactly from its stored fingerprint set; nothing
   estimated is ever reported. Under a length-adaptive spec a short pair (the shorter text has
   fewer than ``short_below`` canonical tokens) is scored on the short shingles instead, from
   the stored text (:mod:`neardup.index.short`), as ``compare`` scores it;
4. decision — by the policy, on the chosen measure against the threshold.

``add_many`` works in batches: analysis of a batch outside any lock, then one write transaction
that looks up candidates for the whole batch, decides document by document (later documents of
the batch see the earlier admitted ones), and commits the batch at once. A batch is acknowledged
(its decisions yielded) only after its commit, so a process killed at any moment leaves every
acknowledged document whole and no document half-written.

:class:`Collection` is made of parts, one module each: what an open collection holds
(:mod:`~neardup.index.base`), the analysis of texts (:mod:`~neardup.index.analyzing`),
candidates and scores (:mod:`~neardup.index.scoring`), adding (:mod:`~neardup.index.adding`),
checking and fragments (:mod:`~neardup.index.checking`), reading
(:mod:`~neardup.index.reading`), removing (:mod:`~neardup.index.removing`), export
(:mod:`~neardup.index.export`) and integrity checks (:mod:`~neardup.index.integrity`); this
module makes and opens one. What they give back is :mod:`neardup.index.results`.
"""

from __future__ import annotations

import json
import os

from neardup._version import __version__
from neardup.errors import SpecMismatchError, StorageError
from neardup.index.adding import DEFAULT_BATCH, Adding
from neardup.index.checking import Checking
from neardup.index.export import Exporting
from neardup.index.integrity import IntegrityChecks
from neardup.index.items import check_id
from neardup.index.removing import Removing
from neardup.index.results import Analyzed, CheckResult, Decision, Document, Group, Match
from neardup.index.stored_spec import describe_spec, stored_specs
from neardup.spec import IndexSpec, Spec
from neardup.storage import FORMAT_VERSION, Storage, open_storage

__all__ = [
    "DEFAULT_BATCH",
    "Analyzed",
    "CheckResult",
    "Collection",
    "Decision",
    "Document",
    "Group",
    "Match",
    "check_id",
    "describe_spec",
]


class Collection(Adding, Checking, Removing, Exporting, IntegrityChecks):
    """A store of texts that checks every new text for near-duplicates before it goes in.

    Make one with :meth:`create`, open one with :meth:`open`. ``location`` is a SQLite file path,
    a ``postgresql://`` URL or ``memory:`` (see :mod:`neardup.storage`).
    """

    @classmethod
    def create(
        cls,
        location: str | os.PathLike[str] | Storage,
        spec: Spec,
        index_spec: IndexSpec | None = None,
        *,
        timeout: float | None = None,
    ) -> Collection:
        """Make a new, empty collection at ``location`` under ``spec``.

        A length-adaptive spec (:func:`~neardup.fingerprints.pipeline.default_spec`) is stored with
        its rule
        and applied at verification as ``compare`` applies it (:mod:`neardup.index.short`). A
        collection that keeps no texts (``store_text=False``) cannot re-shingle its candidates,
        so it is stored without the rule — it compares every pair on the spec's own shingles,
        and its spec says so."""
        index_spec = index_spec or IndexSpec()
        if isinstance(spec, Spec) and not index_spec.store_text:
            spec = spec.fixed()
        storage = (
            location
            if isinstance(location, Storage)
            else open_storage(location, create=True, timeout=timeout)
        )
        try:
            fingerprint = spec.fingerprint()
            storage.create(
                {
                    "format_version": str(FORMAT_VERSION),
                    "neardup_version": __version__,
                    "spec": spec.to_json(),
                    "spec_fingerprint": fingerprint,
                    "index_spec": json.dumps(index_spec.to_dict(), sort_keys=True),
                    "next_key": "1",
                }
            )
        except BaseException:
            storage.close()
            raise
        return cls(storage, spec, index_spec)

    @classmethod
    def open(
        cls,
        location: str | os.PathLike[str] | Storage,
        *,
        spec: Spec | None = None,
        index_spec: IndexSpec | None = None,
        readonly: bool | None = None,
        timeout: float | None = None,
    ) -> Collection:
        """Open an existing collection; a given ``spec``/``index_spec`` must match the stored."""
        storage = (
            location
            if isinstance(location, Storage)
            else open_storage(location, readonly=readonly, timeout=timeout)
        )
        try:
            if not storage.exists():
                raise StorageError(
                    f"{storage.location} holds no neardup collection "
                    f"(make one with `neardup index create`)"
                )
            meta = storage.read_meta()
            version = meta.get("format_version")
            if version != str(FORMAT_VERSION):
                raise StorageError(
                    f"{storage.location} has storage format version {version}, but this neardup "
                    f"reads version {FORMAT_VERSION}; rebuild the collection with this release"
                )
            stored_spec, stored_index = stored_specs(storage.location, meta)
            recorded = meta.get("spec_fingerprint", "")
            now = stored_spec.fingerprint()
            if recorded != now:
                raise SpecMismatchError(
                    f"{storage.location} was built under spec {recorded}, but with this release of "
                    f"neardup and its language resources the same spec is {now}: the algorithm or "
                    "a dictionary changed, so stored fingerprints would not match new ones; "
                    "rebuild the collection"
                )
            if spec is not None and spec.fingerprint() != recorded:
                raise SpecMismatchError(
                    f"{storage.location} was built under spec {recorded} "
                    f"({describe_spec(stored_spec)}), "
                    f"but the spec given is {spec.fingerprint()} ({describe_spec(spec)}); "
                    "fingerprints made under different specs cannot be compared"
                )
            if index_spec is not None and index_spec != stored_index:
                diff = ", ".join(
                    f"{k}: stored {v!r}, given {index_spec.to_dict()[k]!r}"
                    for k, v in stored_index.to_dict().items()
                    if index_spec.to_dict()[k] != v
                )
                raise SpecMismatchError(f"{storage.location} has other index settings ({diff})")
        except BaseException:
            storage.close()
            raise
        return cls(storage, stored_spec, stored_index)

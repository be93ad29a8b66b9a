"""The collection: a durable store of texts that checks every new text before it goes in.

This is the task of the shingle-method paper (Tsimbalov and Zolotarev): a store where each new
text is compared with everything already there; a text too similar to a member is refused
(policy ``reject``), or admitted into the duplicate group of its near-duplicates while that
group stays under a cap (``group``), or admitted with its links recorded (``allow``). The
web-articles compilation's "uniqueness %" of a text is the share of its shingles found in no
document of the collection.

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

:class:`Collection` is a composition of parts with one contract each, built in
:meth:`Collection.__init__` from a storage and the two specs:

* the storage (:mod:`neardup.storage`) — where documents, fingerprints, postings and groups are;
* the pipeline, :class:`~neardup.index.analyzing.IndexAnalyzer` — a text to its fingerprint set,
  samples and short form;
* the candidate sources, :class:`~neardup.index.finding.CandidateFinder` over a list of
  :class:`~neardup.index.candidates.CandidateSource` — which documents are worth verifying,
  with the evidence each source found; :attr:`Collection.sources` is that list, and appending
  a source to it is how another kind of candidate is added;
* the verifier, :class:`~neardup.index.scoring.Verifier` — exact scores of candidates;
* the policy, :class:`~neardup.index.deciding.Decider` — allow, reject or group;
* and the parts that run them: :class:`~neardup.index.checking.Checker` (the one orchestration
  of a check, which the web service goes through too), :class:`~neardup.index.adding.Writer`
  (add batches), :class:`~neardup.index.removing.Remover`, :class:`~neardup.index.reading.
  Reader`, :class:`~neardup.index.export.Exporter` and
  :class:`~neardup.index.integrity.IntegrityCheck`.

The collection's own methods are its public API and say what they do; each hands the work to
its part. What they give back is :mod:`neardup.index.results`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any, Self

from neardup._arguments import public
from neardup._version import __version__
from neardup.analysis.tricks import NONE, Tricks
from neardup.defaults import DEFAULTS
from neardup.errors import (
    ConfigurationError,
    InputError,
    NotSupportedError,
    SpecMismatchError,
    StorageError,
    TextLengthError,
    WrongTypeError,
)
from neardup.fingerprints.batch import BatchShingler
from neardup.fingerprints.pipeline import Analyzable, Pipeline, TextLike
from neardup.index.adding import DEFAULT_BATCH, AnalyzedItems, Writer
from neardup.index.analyzing import IndexAnalyzer
from neardup.index.candidates import CandidateGenerator, CandidateSource, generator_for, sources_for
from neardup.index.checking import Checker, LookedUp
from neardup.index.deciding import Decider
from neardup.index.export import Exporter
from neardup.index.finding import CandidateFinder
from neardup.index.integrity import IntegrityCheck
from neardup.index.items import check_id
from neardup.index.policy import LENGTH_REASONS, Policy
from neardup.index.reading import Reader
from neardup.index.removing import Remover
from neardup.index.results import CheckResult, Decision, Document, Group, IndexableText, Match
from neardup.index.scoring import Verifier
from neardup.index.short import ShortRule
from neardup.index.stored_spec import describe_spec, stored_specs
from neardup.spec import IndexSpec, Spec
from neardup.storage import FORMAT_VERSION, Storage, open_storage

if TYPE_CHECKING:
    from neardup.analysis.analyzed import AnalyzedText
    from neardup.passages.align import Aligner, Alignment

__all__ = [
    "DEFAULT_BATCH",
    "IndexableText",
    "CheckResult",
    "Collection",
    "Decision",
    "Document",
    "Group",
    "Match",
    "check_id",
    "describe_spec",
]


def _ids_of(ids: Iterable[str], what: str) -> tuple[str, ...]:
    """Document ids given as any iterable (a generator too), each checked to be a string; one
    string is one id."""
    out = (ids,) if isinstance(ids, str) else tuple(ids)
    wrong = [i for i in out if not isinstance(i, str)]
    if wrong:
        raise WrongTypeError(f"{what} must hold document ids (str), got {type(wrong[0]).__name__}")
    return out


@public
class Collection:
    """A store of texts that checks every new text for near-duplicates before it goes in.

    Make one with :meth:`create`, open one with :meth:`open`. ``location`` is a SQLite file path,
    a ``postgresql://`` URL or ``memory:`` (see :mod:`neardup.storage`).
    """

    def __init__(self, storage: Storage, spec: Spec, index_spec: IndexSpec) -> None:
        """The parts of an open collection over ``storage`` (see the module's docstring)."""
        self.storage = storage
        self.spec = spec
        self.index_spec = index_spec
        generator = generator_for(index_spec)
        self.analyzer = IndexAnalyzer(spec, index_spec, generator)
        self.finder = CandidateFinder(sources_for(index_spec, generator))
        self.verifier = Verifier(storage, self.analyzer.short, self.analyzer.multiset)
        self.decider = Decider(index_spec, storage.location)
        self.reader = Reader(storage, spec, index_spec)
        self.checker = Checker(
            storage,
            spec,
            index_spec,
            self.analyzer,
            self.finder,
            self.verifier,
            self.decider,
            self.reader,
        )
        self.writer = Writer(storage, self.analyzer, self.finder, self.verifier, self.decider)
        self.remover = Remover(storage, self.finder, self.analyzer.short)

    # --- the parts' state, as the collection always showed it ------------------------------

    @property
    def pipeline(self) -> Pipeline:
        """The analysis pipeline of the collection's spec."""
        return self.analyzer.pipeline

    @property
    def generator(self) -> CandidateGenerator:
        """The candidate generator whose samples the inverted index posts."""
        return self.analyzer.generator

    @property
    def short(self) -> ShortRule | None:
        """The length-adaptive rule (``None`` under a fixed spec)."""
        return self.analyzer.short

    @property
    def multiset(self) -> bool:
        return self.analyzer.multiset

    @property
    def _batch_shingler(self) -> BatchShingler | None:
        return self.analyzer.batch_shingler

    @property
    def sources(self) -> list[CandidateSource]:
        """The candidate sources every add and check asks, in order: append a source to
        have it consulted (its proposals are verified like the others')."""
        return self.finder.sources

    @sources.setter
    def sources(self, sources: Iterable[CandidateSource]) -> None:
        self.finder.sources = list(sources)

    @property
    def aligner(self) -> Aligner:
        """The second stage under the collection's analyzer, with the default settings."""
        return self.checker.aligner

    @property
    def location(self) -> str:
        return self.storage.location

    def close(self) -> None:
        self.storage.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- analysis ----------------------------------------------------------------------------

    def analyze(self, text: Analyzable) -> IndexableText:
        """The fingerprint set and sample of a text under the collection's spec (a text the
        request analysed already, :class:`~neardup.analysis.analyzed.AnalyzedText`, is not analysed
        again)."""
        return self.analyzer.analyze(text)

    def analyze_many(self, texts: Sequence[TextLike]) -> list[IndexableText]:
        """:meth:`analyze` of each text; under a spec the batch kernels take, the whole batch
        in a few nogil kernel calls, so threads analyzing batches use every core. The analyses
        are the same (``benchmarks/identity_check.py --collection-batches``)."""
        return self.analyzer.analyze_many(texts, alone=self.analyze)

    # --- adding ------------------------------------------------------------------------------

    def add(
        self,
        doc_id: str,
        text: TextLike | IndexableText,
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
        rules = self.decider.rules(policy)
        if batch_size < 1:
            raise InputError(f"batch_size must be at least 1, got {batch_size}")
        from neardup.sketch.parallel import workers_for

        jobs = workers_for(jobs)  # the one meaning of jobs: 0 is one per CPU
        for batch in self.writer.analyzed_batches(items, batch_size, jobs):
            yield from self._add_batch(batch, rules, check)

    def _add_batch(self, items: AnalyzedItems, rules: Policy, check: bool) -> list[Decision]:
        """One analysed batch checked and written (a method of its own: the one step a batch
        is committed by, which a test can interrupt)."""
        return self.writer.add_batch(items, rules, check)

    # --- checking ----------------------------------------------------------------------------

    def check(
        self,
        text: Analyzable | IndexableText,
        *,
        top: int | None = DEFAULTS.top,
        policy: str | None = None,
        combined: bool = False,
        fragments: bool = DEFAULTS.fragments,
        citations: bool = DEFAULTS.citations,
        aligner: Aligner | None = None,
        exclude: Iterable[str] = (),
        hidden: Tricks = NONE,
    ) -> CheckResult:
        """How unique ``text`` is against the collection, its matches and what ``add`` does.

        ``uniqueness`` is the share of the text's words found in no document, ``borrowed`` and
        ``cited`` the shares copied from one (outside and inside citations; ``citations=False``
        counts every copied word as borrowed): passages found by aligning the text with the
        stored texts of its ``top`` strongest matches. ``fragments=True`` lists the passages
        in :meth:`CheckResult.to_dict`. ``combined=True`` also scores each match shown with the
        combined score, from the stored texts (the collection must keep them). ``exclude``: ids
        of documents left out of this check, as if they were not stored (the writer's own
        earlier work, say); ids not stored are ignored. ``hidden``: the text hidden in the file
        the text was read from (:func:`neardup.inputs.hidden_in`), reported with the tricks the
        analyzer undid. The steps are :meth:`Checker.run
        <neardup.index.checking.Checker.run>`'s, the one orchestration of a check."""
        if combined and not self.index_spec.store_text:
            raise ConfigurationError("the combined score needs a collection that keeps its texts")
        if fragments and not self.index_spec.store_text:
            raise NotSupportedError(
                f"the collection {self.location} keeps no texts (created with --no-store-text); "
                "fragments need the stored texts",
                code="no_texts",
            )
        return self.checker.run(
            text,
            top=top,
            policy=policy,
            combined=combined,
            fragments=fragments,
            citations=citations,
            aligner=aligner,
            exclude=_ids_of(exclude, "exclude"),
            hidden=hidden,
        )

    def look_up(
        self,
        item: IndexableText,
        *,
        top: int | None,
        policy: str | None,
        exclude: Iterable[str] = (),
    ) -> LookedUp:
        """The storage's part of :meth:`check`, in one snapshot; the documents ``exclude``
        names are dropped from the candidates before they are verified."""
        return self.checker.look_up(item, top=top, policy=policy, exclude=exclude)

    def report(
        self,
        text: AnalyzedText,
        found: LookedUp,
        *,
        fragments: bool = DEFAULTS.fragments,
        citations: bool = DEFAULTS.citations,
        combined: bool = False,
        aligner: Aligner | None = None,
        hidden: Tricks = NONE,
    ) -> CheckResult:
        """:meth:`check`'s result from what :meth:`look_up` found (no storage is read)."""
        return self.checker.report(
            text,
            found,
            fragments=fragments,
            citations=citations,
            combined=combined,
            aligner=aligner,
            hidden=hidden,
        )

    def fragments(
        self,
        text: Analyzable,
        result: CheckResult | None = None,
        *,
        top: int | None = DEFAULTS.top,
        aligner: Aligner | None = None,
    ) -> Alignment:
        """The matched passages of ``text`` in its ``top`` strongest matches (the second stage):
        :meth:`check`'s alignment (``result``, a check of the same text with its alignment,
        is taken as it is)."""
        if not self.index_spec.store_text:
            raise NotSupportedError(
                f"the collection {self.location} keeps no texts (created with --no-store-text); "
                "fragments need the stored texts",
                code="no_texts",
            )
        if result is None or result.alignment is None:
            result = self.check(text, top=top, fragments=True, citations=False, aligner=aligner)
        assert result.alignment is not None  # the collection keeps its texts
        return result.alignment

    # --- removing, reading, export, integrity ------------------------------------------------

    def remove(self, ids: str | Iterable[str], *, batch_size: int = 1000) -> int:
        """Remove documents by id, in batches of one transaction each; groups are recomputed.

        ``ids`` is one id (a string is never taken as a sequence of ids) or an iterable of
        them. Every id is checked first: an unknown one raises NotFoundError and nothing is
        removed.
        """
        if batch_size < 1:
            raise InputError(f"batch_size must be at least 1, got {batch_size}")
        return self.remover.remove(ids, batch_size=batch_size)

    def get(self, doc_id: str, *, text: bool = True) -> Document:
        """A stored document by id; NotFoundError if it is not there."""
        return self.reader.get(doc_id, text=text)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.reader

    def __len__(self) -> int:
        return len(self.reader)

    def groups(self, *, min_size: int = 2) -> list[Group]:
        """Duplicate groups with at least ``min_size`` members, by id."""
        return self.reader.groups(min_size=min_size)

    def stats(self) -> dict[str, Any]:
        """Counts, sizes and settings of the collection."""
        return self.reader.stats()

    def iter_documents(self, *, text: bool = True) -> Iterator[tuple[Document, str]]:
        """Every document in admission order with its group representative's id."""
        return self.reader.iter_documents(text=text)

    def export(self, out: str | os.PathLike[str] | IO[str], *, fmt: str | None = None) -> int:
        """Write every document (id, key, group, representative, shingles, meta, text): JSONL/CSV.

        ``fmt`` is ``jsonl`` or ``csv``; by default it follows the file name (``.csv``, else
        JSONL; ``.gz`` compresses). ``-`` writes JSONL to standard output. Returns the count.
        """
        return Exporter(self.reader).export(out, fmt=fmt)

    def verify_integrity(self) -> list[str]:
        """Problems found by checking every stored invariant (an empty list means consistent).

        Every fingerprint array is sorted and distinct, its samples among it, with the
        recorded (non-negative) size; postings are exactly the samples of the stored
        documents, and looking those samples up finds every one of them; links join stored
        documents, newer to older; every document's group is the smallest key of its linked
        component; the key counter is past every key; stored texts belong to stored documents;
        the pseudo-matrix filter (``pmbf``/``both``) places every stored document with its
        size and its rows are exactly the bits of the parts placed in them.
        """
        return IntegrityCheck(self.storage, self.index_spec, self.analyzer, self.finder).run()

    # --- making and opening ------------------------------------------------------------------

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
        and its spec says so; nor does it keep sentence keys (``sentence_bands`` 0: what they
        find is marked by aligning the stored texts)."""
        index_spec = index_spec or IndexSpec()
        if isinstance(spec, Spec) and not index_spec.store_text:
            spec = spec.fixed()
        if not index_spec.store_text and index_spec.sentence_bands:
            # sentence candidates are marked by aligning the stored texts: none, no keys
            index_spec = index_spec.replace(sentence_bands=0)
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

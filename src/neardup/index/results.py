"""What the collection gives back: an analyzed text, a match, a decision, a check's result, a
stored document and a duplicate group.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from neardup.analysis.tricks import NONE, Tricks
from neardup.fingerprints.similarity import Fingerprints, Measures
from neardup.index.short import ShortForm
from neardup.index.verify import set_size
from neardup.passages.counting import WordCounts

if TYPE_CHECKING:
    from neardup.passages.align import Alignment

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class IndexableText:
    """A text ready for the index: its fingerprint set and sample (:meth:`Collection.analyze`)."""

    values: U64
    counts: I64 | None
    samples: U64
    text: str | None = None
    #: Characters of the decoded text (what ``IndexSpec.min_length``/``max_length`` limit).
    length: int = 0
    #: Its canonical token count and short fingerprints, under a length-adaptive spec.
    short: ShortForm | None = None
    #: What it looks up, when that is not its samples (:attr:`lookups`).
    probes: U64 | None = None
    #: The band keys of its sentences, a row a sentence (among its samples too), under an
    #: index spec with ``sentence_bands`` (:mod:`neardup.index.sentences`).
    sentence_keys: U64 | None = None

    @property
    def lookups(self) -> U64:
        """The values looked up for its candidates: its samples, or under a length-adaptive
        spec its samples and its words as :meth:`~neardup.index.short.ShortRule.samples`
        arranges them (what it posts and what it looks up then differ)."""
        return self.samples if self.probes is None else self.probes

    @property
    def size(self) -> int:
        return set_size(self.values, self.counts)

    @property
    def fingerprints(self) -> Fingerprints:
        return Fingerprints(self.values, self.counts)


@dataclass(frozen=True)
class Match:
    """A stored document and its exact measures against the text checked.

    ``containment_query_in_doc`` is the share of the text's shingles found in the document;
    ``containment_doc_in_query`` the share of the document's shingles found in the text.
    """

    id: str
    key: int
    resemblance: float
    containment_query_in_doc: float
    containment_doc_in_query: float
    shared: int
    shingles: int
    group: int
    #: The combined score (:mod:`neardup.score.combined`) when ``check(..., combined=True)`` asked.
    combined: float | None = None

    @property
    def strength(self) -> float:
        """The strongest evidence: the largest of resemblance and both containments."""
        return max(self.resemblance, self.containment_query_in_doc, self.containment_doc_in_query)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "resemblance": self.resemblance,
            "containment_query_in_doc": self.containment_query_in_doc,
            "containment_doc_in_query": self.containment_doc_in_query,
            "shared": self.shared,
            "shingles": self.shingles,
            "group": self.group,
            **({"combined": self.combined} if self.combined is not None else {}),
        }


@dataclass(frozen=True)
class Decision:
    """What ``add`` did with one text.

    ``reason``: ``new`` (admitted, no near-duplicate), ``duplicate`` (refused under ``reject``),
    ``grouped`` (admitted into a duplicate group), ``group_full`` (refused: the group is at its
    cap), ``linked`` (admitted under ``allow`` with links to its near-duplicates), ``too_short``
    / ``too_long`` (refused: outside the collection's length range; ``detail`` says the text's
    length and the range, and ``matches`` stay empty), ``unchecked`` (admitted by a bulk load,
    ``check=False``, compared with nothing). ``matches``
    are the members at or above the threshold, strongest first. ``group`` is the group the text
    joined (or, for ``group_full``, would have joined); ``key`` its internal key when admitted.
    """

    id: str
    accepted: bool
    reason: str
    matches: tuple[Match, ...] = ()
    group: int | None = None
    key: int | None = None
    shingles: int = 0
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "accepted": self.accepted,
            "reason": self.reason,
            "group": self.group,
            "shingles": self.shingles,
            "matches": [m.to_dict() for m in self.matches],
        }
        if self.detail:
            out["detail"] = self.detail
        return out


#: The keys of an alignment's JSON a check's JSON says once, at its top.
SAID_ONCE = (
    "uniqueness",
    "borrowed",
    "cited",
    "tokens",
    "borrowed_words",
    "cited_words",
    "unique_words",
    "by_kind",
)


@dataclass(frozen=True)
class CheckResult:
    """The verdict on a text against the collection, without storing it.

    ``uniqueness`` is the share (0…1) of the text's ``words`` (canonical tokens) found in no
    document; ``borrowed`` the share copied from one outside citations, ``cited`` inside them
    (the three add up to one: :data:`neardup.passages.align.UNIQUENESS_MEANING`); ``counts``
    are the words of each kind they come from (:mod:`neardup.passages.counting`). They come
    from ``alignment``, the passages the text shares with the stored texts of every match
    found, strongest first, up to the work limit (:data:`~neardup.defaults.COUNTED_SOURCES_MAX`
    sources, :data:`~neardup.defaults.COUNTED_CHARACTERS_MAX` characters): ``sources_counted``
    were aligned, ``sources_uncounted`` found past the limit, ``candidates_capped`` whether the
    candidates reached the collection's ``max_candidates`` (either: :attr:`limited`). A collection
    that keeps no texts has no alignment, and there a word is found when a shingle shared with
    a match counted covers it.
    ``matches`` lists the verified candidates that share at least one shingle, strongest first
    (:attr:`Match.strength`, then resemblance, then id), at most ``top`` of them — the list,
    never the figure; ``alignment`` holds the passages of those listed and, in
    :attr:`~neardup.passages.align.Alignment.more`, what the sources counted but not listed
    add. ``shingles`` is the size of the text's shingle set; ``would`` is what ``add`` would
    decide. ``listed``: whether :meth:`to_dict` lists the passages (``fragments=True``).
    """

    uniqueness: float
    borrowed: float
    cited: float
    words: int
    shingles: int
    candidates: int
    matches: tuple[Match, ...]
    would: Decision
    alignment: Alignment | None = None
    listed: bool = False
    #: How the words were found: ``passages`` (aligned with the stored texts, whatever the
    #: text's length) or ``shingles`` (a collection that keeps no texts).
    basis: str = "passages"
    #: What the analyzer found and undid in the text to get it past a checker.
    tricks: Tricks = NONE
    #: The words of each kind the shares come from (``None``: the shares times ``words``).
    counts: WordCounts | None = None
    #: The sources the figure counts (aligned, or their shingles counted) and those found past
    #: the work limit.
    sources_counted: int = 0
    sources_uncounted: int = 0
    #: Whether the candidate stage reached the collection's ``max_candidates`` (the documents
    #: sharing the most samples are verified): more documents may share a passage.
    candidates_capped: bool = False

    @property
    def limited(self) -> bool:
        """Whether a work limit may have left sources out of the figure: found sources past
        the counted limit, or candidates past the collection's ``max_candidates``."""
        return self.sources_uncounted > 0 or self.candidates_capped

    @property
    def word_counts(self) -> WordCounts:
        """The words of each kind (:attr:`counts`)."""
        if self.counts is not None:
            return self.counts
        return WordCounts(
            self.words, round(self.borrowed * self.words), 0, round(self.cited * self.words)
        )

    @property
    def suspicious(self) -> bool:
        """Whether the text carries tricks past their thresholds (made to evade)."""
        return self.tricks.suspicious

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``neardup index check --json`` and of ``/api/check``: one
        ``uniqueness``, the borrowed and cited shares beside it and the words they come from
        (``borrowed_words`` + ``cited_words`` + ``unique_words`` = ``words``; ``by_kind``
        splits the first two into copied, rewritten and cited), the sources counted, and with
        fragments the passages of each source listed (sources with none are left out), each
        with its ``kind``, the runs of counted words (``counted``) and what the sources not
        listed add (``more_sources``)."""
        from neardup.passages.align import UNIQUENESS_MEANING

        out: dict[str, Any] = {
            "uniqueness": round(self.uniqueness, 6),
            "uniqueness_percent": round(100.0 * self.uniqueness, 2),
            "borrowed": round(self.borrowed, 6),
            "cited": round(self.cited, 6),
            "words": self.words,
            **self.word_counts.to_dict(),
            "uniqueness_basis": self.basis,
            "meaning": UNIQUENESS_MEANING,
            "sources_counted": self.sources_counted,
            "sources_uncounted": self.sources_uncounted,
            "candidates_capped": self.candidates_capped,
            "limited": self.limited,
            "shingles": self.shingles,
            "candidates": self.candidates,
            "decision": {
                "accepted": self.would.accepted,
                "reason": self.would.reason,
                "group": self.would.group,
                **({"detail": self.would.detail} if self.would.detail else {}),
            },
            "matches": [m.to_dict() for m in self.matches],
            "suspicious": {
                "flag": self.suspicious,
                "tricks": [trick.to_dict() for trick in self.tricks.found],
            },
        }
        if self.listed and self.alignment is not None:
            passages = self.alignment.to_dict()
            for key in SAID_ONCE:
                passages.pop(key)  # said once, above
            out["fragments"] = passages
        return out


@dataclass(frozen=True)
class Document:
    """A stored document."""

    id: str
    key: int
    group: int
    shingles: int
    meta: dict[str, Any]
    text: str | None = None


@dataclass(frozen=True)
class Group:
    """A duplicate group: its id (smallest member key), representative (first admitted), members."""

    id: int
    representative: str
    members: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.members)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "representative": self.representative,
            "size": self.size,
            "members": list(self.members),
        }


def sort_matches(matches: Iterable[Match]) -> list[Match]:
    """Strongest first (:attr:`Match.strength`), then by resemblance, then by id."""
    return sorted(matches, key=lambda m: (-m.strength, -m.resemblance, m.id))


def match_of(doc_id: str, key: int, ms: Measures, group: int) -> Match:
    """The match of a stored document (or an earlier text of a batch) from its measures."""
    return Match(
        doc_id,
        key,
        ms.resemblance,
        ms.containment_ab,
        ms.containment_ba,
        ms.shared,
        ms.shingles_b,
        group,
    )

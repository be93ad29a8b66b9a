"""A text checked against a collection: its matches, its passages and its one uniqueness figure.

A check has two parts, so that a service can hold its storage lock for the first only:

* :func:`look_up` (storage): the verified matches of the text, what ``add`` would decide, and
  the stored texts of the strongest matches;
* :func:`report` (no storage): the passages the text shares with those texts (the second stage,
  :class:`~neardup.align.Aligner`), the citations, the combined score of each match, and the
  uniqueness — the share of the text's words found in no source, cited words counted apart
  (:attr:`neardup.align.Alignment.uniqueness`, the figure every entry point prints).

The text is analysed once (:class:`~neardup.analyzed.AnalyzedText`): the index's fingerprints,
the aligner, the citations and the combined score all take that one analysis, and each stored
text is analysed once too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from neardup.align import UNIQUENESS_MEANING, Aligner, Alignment, apply_citations
from neardup.analyzed import AnalyzedText
from neardup.defaults import DEFAULTS
from neardup.errors import ConfigurationError

if TYPE_CHECKING:
    from neardup.index.collection import Analyzed, CheckResult, Collection, Decision, Match


@dataclass(frozen=True)
class LookedUp:
    """What the storage said of a text: its matches (strongest first, at most ``top``), the
    candidates verified, what ``add`` would decide, and the stored texts of the matches (empty
    when the collection keeps none)."""

    matches: tuple[Match, ...]
    candidates: int
    shingles: int
    would: Decision
    stored: tuple[tuple[str, str], ...]


def look_up(
    col: Collection, item: Analyzed, *, top: int | None, policy: str | None
) -> LookedUp:
    """The storage's part of a check (one snapshot)."""
    from neardup.index.collection import Decision, _match, _sort_matches
    from neardup.index.policy import Policy

    rules = Policy.of(col.index_spec, policy)
    with col.storage.snapshot():
        pairs = col._stored_pairs([item])
        scored, _, shingles = col._verify(item, pairs.other.tolist())
        shared = [(k, m) for k, m in scored if m.shared > 0]
        infos = {d.key: d for d in col.storage.docs([k for k, _ in shared], meta=False)}
        matches = _sort_matches(
            _match(infos[k].id, k, m, infos[k].group) for k, m in shared if k in infos
        )
        hits = [
            m
            for m in matches
            if rules.reaches(m.resemblance, m.containment_query_in_doc, m.containment_doc_in_query)
        ]
        verdict = rules.decide(hits, col._stored_group_size)
        if top is not None:
            matches = matches[:top]
        stored: list[tuple[str, str]] = []
        if col.index_spec.store_text:
            for match in matches:
                text = col.get(match.id).text
                if text is not None:
                    stored.append((match.id, text))
    would = col._length_refusal("", item) or Decision(
        "", verdict.accepted, verdict.reason, tuple(hits), verdict.group, None, item.size
    )
    return LookedUp(tuple(matches), len(scored), shingles, would, tuple(stored))


def report(
    col: Collection,
    text: AnalyzedText,
    found: LookedUp,
    *,
    fragments: bool = DEFAULTS.fragments,
    citations: bool = DEFAULTS.citations,
    combined: bool = False,
    aligner: Aligner | None = None,
) -> CheckResult:
    """The check's result from what :func:`look_up` found (no storage is read)."""
    from neardup.index.collection import CheckResult

    aligner = aligner if aligner is not None else col.aligner
    sources = [(doc_id, col.pipeline.analyze(stored)) for doc_id, stored in found.stored]
    query = aligner.prepare(text)
    alignment: Alignment | None = None
    if col.index_spec.store_text:
        alignment = aligner.align(query, sources)
        if citations:
            alignment = apply_citations(alignment, query)
    matches = list(found.matches)
    if combined and matches:
        matches = _with_combined(col, text, sources, matches)
    if alignment is not None:
        uniqueness, borrowed, cited = alignment.uniqueness, alignment.borrowed, alignment.cited
        words = alignment.tokens
    else:  # no stored texts: the words that a found shingle covers count as found
        uniqueness, words = _uniqueness_from_shingles(col, text, found)
        borrowed, cited = 1.0 - uniqueness, 0.0
    return CheckResult(
        uniqueness=uniqueness,
        borrowed=borrowed,
        cited=cited,
        words=words,
        shingles=found.shingles,
        candidates=found.candidates,
        matches=tuple(matches),
        would=found.would,
        alignment=alignment,
        listed=fragments,
    )


def _with_combined(
    col: Collection,
    text: AnalyzedText,
    sources: Sequence[tuple[str, AnalyzedText]],
    matches: list[Match],
) -> list[Match]:
    from neardup.combined import CombinedFeatures, combined_scores

    by_id = dict(sources)
    if any(m.id not in by_id for m in matches):
        raise ConfigurationError("the combined score needs a collection that keeps its texts")
    table = CombinedFeatures(col.spec).table([text, *(by_id[m.id] for m in matches)])
    others = np.arange(1, len(matches) + 1, dtype=np.int64)
    scores = combined_scores(table, np.zeros(len(matches), dtype=np.int64), others)
    return [replace(m, combined=float(s)) for m, s in zip(matches, scores, strict=True)]


def _uniqueness_from_shingles(
    col: Collection, text: AnalyzedText, found: LookedUp
) -> tuple[float, int]:
    """The share of the text's words that no shingle shared with a match covers, and the
    words: the figure of a collection that keeps no texts to align against."""
    from neardup.shingles import shingle

    canonical = text.canonical
    n = len(canonical)
    if n == 0 or not found.matches:
        return 1.0, n
    keys = [m.key for m in found.matches]
    rule = col.short
    short = rule is not None and rule.is_short(n)
    if short and rule is not None:  # a short text is compared on the stored short forms
        forms = rule.stored_forms(keys, col.storage)
        sets = [forms[k].fingerprints.values for k in keys if k in forms]
    else:
        sets = [s.values for s in col.storage.fingerprints(keys)]
    values = np.unique(np.concatenate(sets)) if sets else np.zeros(0, np.uint64)
    shingling = col.spec.shingles.fixed(short=short)
    shingles = shingle(canonical, shingling, col.pipeline.family)
    hit = np.isin(shingles.hashes, values)
    covered = np.zeros(n + 1, dtype=np.int64)
    starts = np.flatnonzero(hit) * shingling.step
    np.add.at(covered, starts, 1)
    np.add.at(covered, np.minimum(starts + shingling.k, n), -1)
    words_found = int(np.count_nonzero(np.cumsum(covered[:n]) > 0))
    return 1.0 - words_found / n, n


def result_dict(result: CheckResult) -> dict[str, Any]:
    """The JSON of ``neardup index check --json``, ``/api/check`` and
    ``Collection.check(...).to_dict()``: one ``uniqueness`` key, the borrowed and cited shares
    beside it, and with fragments the passages of each source (sources with none left out)."""
    out: dict[str, Any] = {
        "uniqueness": round(result.uniqueness, 6),
        "uniqueness_percent": round(100.0 * result.uniqueness, 2),
        "borrowed": round(result.borrowed, 6),
        "cited": round(result.cited, 6),
        "words": result.words,
        "uniqueness_basis": "passages" if result.alignment is not None else "shingles",
        "meaning": UNIQUENESS_MEANING,
        "shingles": result.shingles,
        "candidates": result.candidates,
        "decision": {
            "accepted": result.would.accepted,
            "reason": result.would.reason,
            "group": result.would.group,
            **({"detail": result.would.detail} if result.would.detail else {}),
        },
        "matches": [m.to_dict() for m in result.matches],
    }
    if result.listed and result.alignment is not None:
        passages = result.alignment.to_dict()
        for key in ("uniqueness", "borrowed", "cited", "tokens"):
            passages.pop(key)  # said once, above
        out["fragments"] = passages
    return out

"""Sentence-level candidates: stored documents that hold one of a text's sentences, copied,
edited or reworded, however small a share of either text it is.

The postings of winnowed 5-shingles (:class:`~neardup.index.candidates.PostingsSource`) are
certain to meet a shared run of ``window + k - 1`` words (15 by default); a single copied
sentence of 8 to 14 words, or one with a word changed, shares fewer shingles and is met only
by chance, and a reworded sentence shares none. Here every sentence of a stored text posts a
few *band keys* of its set of terms (lemmas under the ``ru`` and ``auto`` presets, stems under
``en``, the spec's stop words left out): for each of ``IndexSpec.sentence_bands`` seeds, the
two smallest remixed term hashes joined into one key (:func:`neardup._kernels.sentences.
band_keys`). A set of terms does not care about word order or inflection, so

* a sentence copied as it is shares every band key with its source;
* a sentence with one of its ``n`` terms changed keeps each band with probability about
  ``((n - 1) / (n + 1))²`` (0.6 for 8 terms: seven of the default 12 bands on average);
* a reworded sentence whose terms have Jaccard resemblance ``J`` with its source keeps each
  band with probability about ``J²``.

The keys live in the postings beside the winnowed samples (among a document's stored
``samples``, so every backend keeps, drops and checks them as it does the others); remixed
64-bit values, they meet a shingle's fingerprint only by a 64-bit chance. A text checked
looks up the keys of its own sentences; a stored document's evidence is, over the text's
sentences, the largest sum of the rarity of the keys one sentence shares with it,
``ln(1 + 200 / postings)`` — a key many documents post (a boilerplate sentence, two common
words) counts little, a key of one document most, and every band shared adds — and the
documents are taken in turns over the sentences they are strongest for, so a sentence
repeated in many stored texts takes one place, not all
(:func:`~neardup.index.candidates.rank_sentences`). The strongest
:data:`~neardup.index.candidates.SENTENCE_CANDIDATES` are verified like every candidate
(:class:`~neardup.index.candidates.SentenceSource`). Those the check does not show as matches —
an edited or reworded sentence shares no 5-shingle with its source, and a copied one too few
to rank among the strongest matches — go to the second stage, at most :data:`ALIGNED` a check,
strongest first (:func:`to_align`), and are reported after the matches when it marks words
in them that no source before them marks (:func:`keep_new`).

Adds do not ask this source
(:attr:`~neardup.index.candidates.SentenceSource.checks_only`): a sentence is never enough to
make two texts near-duplicates, so what ``add`` decides does not change.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from neardup._kernels.sentences import band_keys
from neardup._kernels.winnow import remix
from neardup.fingerprints.hashing import HashFamily
from neardup.index.candidates import SENTENCES
from neardup.index.results import Match, match_of
from neardup.spec import FingerprintSpec

if TYPE_CHECKING:
    from neardup.analysis.analyzer import Canonical
    from neardup.fingerprints.similarity import Measures
    from neardup.index.finding import Proposals
    from neardup.passages.align import Alignment, SourceMatch
    from neardup.storage.base import Storage

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

#: Terms are hashed with this fixed family, whatever the spec's fingerprints: the keys must
#: not depend on a narrow family's collisions (CRC-32), and nothing else compares them.
TERM_HASH = FingerprintSpec(family="xxh3", bits=64, seed=0)
#: A sentence with fewer distinct terms posts no keys: two of three terms would be shared by
#: every sentence that names the same two things (a dateline, a caption).
MIN_TERMS = 4
#: The sentence candidates a check aligns beyond its matches, strongest first: each costs the
#: analysis and alignment of one stored text.
ALIGNED = 5
#: Mixed into every band's seed so the keys form a space of their own.
_SEED_BASE = np.uint64(0x5E57E11CE5EED5E5)


#: Where a sentence ends, for the keys: ``.``, ``!``, ``?`` or ``…`` (and closing quotes or
#: brackets) before white space and a word that does not start with a small letter; a line
#: break unless the next line goes on with a small letter; a block-level HTML tag. The second
#: stage's cut (:func:`~neardup.passages.rewrites.sentences.sentence_bounds`) without its
#: exceptions for initials and abbreviations, in one expression: the keys are stored, so their
#: cut is fixed here (a test pins it) and costs no Python per sentence.
_SENTENCE_END = re.compile(
    r"[.!?…]+[\"'»”’)\]]*(?=\s+[\"'«“„(\[\-–—]*\s*[^\W_a-zа-яё])"
    r"|\n(?![^\S\n]*[a-zа-яё])"
    r"|(?i:</?(?:p|div|li|ul|ol|h[1-6]|tr|td|th|table|blockquote|section|article|header|footer"
    r"|title|br|hr)\b[^>]*>)"
)


def sentence_starts(text: str) -> I64:
    """Where each sentence of ``text`` starts (the first at 0), for the keys."""
    ends = (m.end() for m in _SENTENCE_END.finditer(text))
    return np.concatenate(([0], np.fromiter(ends, dtype=np.int64))).astype(np.int64)


def band_seeds(bands: int) -> U64:
    """The seeds of bands ``0 … bands-1`` (fixed: the keys are part of a stored collection)."""
    out = np.empty(bands, dtype=np.uint64)
    for b in range(bands):
        out[b] = remix(_SEED_BASE ^ np.uint64(b + 1))
    return out


class SentenceKeys:
    """The band keys of a text's sentences under ``bands`` seeds."""

    def __init__(self, bands: int, *, min_terms: int = MIN_TERMS) -> None:
        self.bands = bands
        self.min_terms = min_terms
        self.seeds = band_seeds(bands)
        self.family = HashFamily(TERM_HASH)

    def of(self, text: str, canonical: Canonical) -> U64:
        """``(sentences, bands)`` keys: a row per sentence of ``text`` (:func:`sentence_starts`,
        a token in the sentence it starts in) with at least ``min_terms`` distinct terms of
        ``canonical`` (``text``'s own analysis), in text order."""
        if not self.bands or len(canonical) < self.min_terms:
            return np.zeros((0, self.bands), dtype=np.uint64)
        terms = self.family.spans(canonical.buf, canonical.byte_starts, canonical.byte_ends)
        # each token falls in the sentence it starts in
        cuts = sentence_starts(text)
        owner = np.searchsorted(cuts, np.asarray(canonical.starts, dtype=np.int64), side="right")
        change = np.flatnonzero(owner[1:] != owner[:-1]) + 1
        first = np.concatenate(([0], change)).astype(np.int64)
        end = np.concatenate((change, [owner.shape[0]])).astype(np.int64)
        keys, _ = band_keys(terms, first, end, self.seeds, self.min_terms)
        return keys

    def __repr__(self) -> str:
        return f"SentenceKeys(bands={self.bands}, min_terms={self.min_terms})"


def to_align(
    proposals: Proposals,
    scored: Sequence[tuple[int, Measures]],
    skip: Collection[int],
    storage: Storage,
    limit: int = ALIGNED,
) -> list[tuple[Match, str]]:
    """What the second stage should align beyond ``skip`` (the matches shown, aligned anyway;
    the documents left out) for the first query: the sentence source's strongest candidates,
    at most ``limit``, each with its measures (``scored``, the verified candidates) and its
    stored text — an edited or reworded sentence shares no shingle with its source, a copied
    one too few to rank among the strongest matches."""
    keys: list[int] = []
    for name, found in proposals.by_source:
        if name == SENTENCES:
            keys = [k for k in found.other[found.pos == 0].tolist() if k not in skip][:limit]
    if not keys:
        return []
    measures = dict(scored)
    out = {
        info.key: (match_of(info.id, info.key, measures[info.key], info.group), info.text)
        for info in storage.docs(keys, text=True, meta=False)
        if info.text is not None and info.key in measures
    }
    return [out[k] for k in keys if k in out]


def keep_new(alignment: Alignment, extra: Sequence[str]) -> tuple[Alignment, set[str]]:
    """``alignment`` with the sources ``extra`` names (sentence candidates, aligned beyond the
    matches, in that order) kept only where they mark query words that no source before them
    marks — a copy of a match adds nothing — and the ids kept."""
    if not extra:
        return alignment, set()
    asked = set(extra)
    covered = np.zeros(alignment.tokens + 1, dtype=np.bool_)

    def cover(source: SourceMatch) -> bool:
        new = False
        for first, end in source.token_ranges():
            new = new or not bool(covered[first:end].all())
            covered[first:end] = True
        return new

    by_id = {s.id: s for s in alignment.sources}
    for source in alignment.sources:
        if source.id not in asked:
            cover(source)
    kept = {i for i in extra if i in by_id and by_id[i].token_ranges() and cover(by_id[i])}
    if kept == asked:
        return alignment, kept
    sources = tuple(s for s in alignment.sources if s.id not in asked or s.id in kept)
    return replace(alignment, sources=sources), kept

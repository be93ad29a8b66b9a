"""The length-adaptive rule in the collection: short pairs verified on the short shingles.

A length-adaptive spec (:class:`~neardup.spec.ShingleSpec` with ``short_below``) compares a
pair whose shorter text has fewer than ``short_below`` canonical tokens on the short shingles
(word 1-grams by default), as ``compare``, ``matrix`` and ``eval`` do. The collection keeps one
fingerprint set per document (the long shingles) and the text; the rule needs, per candidate,
its canonical token count and its short fingerprint set, which it takes from the stored text,
re-analyzed, for the few candidates that need it:

* a short query (fewer than ``short_below`` tokens) makes every pair short, so each of its
  candidates is re-analyzed;
* a long query makes a pair short only with a short document. The stored set size bounds the
  document's token count from below (:func:`fewest_tokens`: ``n`` distinct word ``k``-shingles
  taken every ``step`` tokens need at least ``(n - 1)·step + k`` tokens), so only candidates
  with small sets (short, or very repetitive) are re-analyzed; every other pair stays long
  without reading its text.

The measures of a short pair come from the two short sets made by
:meth:`neardup.fingerprints.pipeline.Pipeline.fingerprints_of` — the very function ``compare``
applies to
the same two texts — counted by the verification kernels that give the long pairs the numbers
of :func:`neardup.fingerprints.similarity.compare`, so ``index check`` and ``compare`` agree.

Retrieval (:meth:`ShortRule.samples`): an edited sentence may share no word 5-shingle with its
source, so texts also post and look up words — a long text the minimum of every window of
``IndexSpec.short_window`` words (any run of that many shared words shares one), a short text
all its words — arranged so that a short text meets long and short texts through words and a
long text meets short texts only: long pairs are found exactly as before (docs/collection.md,
"Short texts").
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from neardup._kernels.winnow import winnow
from neardup._sorted import distinct
from neardup.analysis.analyzer import Canonical
from neardup.errors import ConfigurationError, DamagedCollectionError
from neardup.fingerprints.batch import BatchShingler
from neardup.fingerprints.pipeline import Pipeline
from neardup.fingerprints.shingles import shingle_hashes
from neardup.fingerprints.similarity import Fingerprints
from neardup.spec import ShingleSpec
from neardup.storage.base import Storage

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
B = npt.NDArray[np.bool_]

#: Mixed into the words a short text posts, so that a long text's word lookups meet only short
#: texts, never another long text's word minima (the golden-ratio constant: any odd-looking
#: 64-bit value would do; XOR keeps distinct words distinct).
TAG = np.uint64(0x9E3779B97F4A7C15)

#: Stored documents whose short form is remembered between batches (a short form of a long
#: document is its distinct words: a few kilobytes).
CACHED_FORMS = 4096


@dataclass(frozen=True)
class ShortForm:
    """What the rule needs of a text: its canonical token count and its short fingerprints
    (``hashes``: the same in text order, kept only for the text being analyzed)."""

    tokens: int
    fingerprints: Fingerprints
    hashes: U64 | None = None


def fewest_tokens(shingles: ShingleSpec, size: int) -> int:
    """The fewest canonical tokens a text with ``size`` long shingles can have (0: no bound).

    Word shingles: a text of ``T > k`` tokens has ``⌊(T − k) / step⌋ + 1`` shingle positions
    and at most that many distinct shingles, so ``size ≥ 2`` shingles need at least
    ``(size − 1)·step + k`` tokens (one shingle may be a text of any length up to ``k``).
    Character n-grams say nothing about the number of words.
    """
    if shingles.unit != "word" or size < 2:
        return 0
    return (size - 1) * shingles.step + shingles.k


class ShortRule:
    """The rule of one collection: which pairs are short, and their exact measures."""

    def __init__(self, pipeline: Pipeline, window: int) -> None:
        self.pipeline = pipeline
        self.shingles = pipeline.spec.shingles
        self.below = self.shingles.short_below
        self.window = window
        self._short_shingles = self.shingles.fixed(short=True)
        # what Pipeline.fingerprints_of(…, short=True) stamps its fingerprints with
        self._short_fingerprint = pipeline.spec.fixed(short=True).fingerprint()
        self._multiset = pipeline.spec.fingerprint_family.multiset
        self._cache: OrderedDict[int, ShortForm] = OrderedDict()
        self._shingler = BatchShingler.of(pipeline, short=True, long=False)

    def form(self, canonical: Canonical, *, keep_hashes: bool = False) -> ShortForm:
        """The short form of an analyzed text: the fingerprints
        :meth:`~neardup.fingerprints.pipeline.Pipeline.fingerprints_of` gives (the same hashes,
        made once
        when ``keep_hashes`` keeps them for the word minima)."""
        hashes = shingle_hashes(canonical, self._short_shingles, self.pipeline.family)
        fingerprints = Fingerprints.from_hashes(
            hashes, multiset=self._multiset, spec_fingerprint=self._short_fingerprint
        )
        return ShortForm(len(canonical), fingerprints, hashes if keep_hashes else None)

    def _forms(self, texts: list[str]) -> list[ShortForm]:
        """The short forms of stored texts (no hashes: they are kept long), those the batch
        kernel takes in one call."""
        batch = None if self._shingler is None else self._shingler.shingle(texts)
        forms = []
        for d, text in enumerate(texts):
            if batch is None or not batch.done[d]:
                forms.append(self.form(self.pipeline.canonical(text)))
                continue
            fingerprints = Fingerprints.from_hashes(
                batch.short[batch.short_starts[d] : batch.short_ends[d]],
                multiset=self._multiset,
                spec_fingerprint=self._short_fingerprint,
            )
            forms.append(ShortForm(int(batch.tokens[d]), fingerprints))
        return forms

    def form_of_set(self, tokens: int, values: U64, counts: I64 | None) -> ShortForm:
        """The short form of a text of ``tokens`` canonical tokens whose short fingerprint
        set is ``values`` (sorted distinct, with ``counts`` under a multiset spec)."""
        return ShortForm(tokens, Fingerprints(values, counts, self._short_fingerprint))

    def samples(self, form: ShortForm, samples: U64) -> tuple[U64, U64]:
        """What a text posts and what it looks up, given its (long) winnowed ``samples``.

        A long text posts, besides its samples, the minimum of every window of ``window``
        consecutive short shingles (its *word minima*); a short text posts all its short
        shingles *tagged* (:data:`TAG` mixed in, so that only lookups meant for short texts
        meet them). A short text looks up its samples, its words as they are (the word minima
        of the long text it came from) and tagged (the short texts it resembles); a long text
        looks up its samples and its word minima tagged (a short text inside it: any run of
        ``window`` of its words holds one of them). So a long text never meets another long
        text through words, and long pairs are found exactly as before. With ``window`` 0 a
        long text posts and looks up no words.
        """
        words = form.fingerprints.values
        if self.is_short(form.tokens):
            tagged = words ^ TAG
            return (
                distinct(np.concatenate((samples, tagged))),
                distinct(np.concatenate((samples, tagged, words))),
            )
        if not self.window:
            return samples, samples
        if form.hashes is None:
            raise ConfigurationError("the word minima need the short form's hashes (keep_hashes)")
        minima = distinct(winnow(np.ascontiguousarray(form.hashes, dtype=np.uint64), self.window))
        return (
            distinct(np.concatenate((samples, minima))),
            distinct(np.concatenate((samples, minima ^ TAG))),
        )

    def is_short(self, tokens: int) -> bool:
        return tokens < self.below

    def may_be_short(self, sizes: I64) -> B:
        """Which stored documents, by their long set sizes, could have fewer than
        ``short_below`` tokens (the others are surely long)."""
        sizes = np.asarray(sizes, dtype=np.int64).reshape(-1)
        if self.shingles.unit != "word":
            return np.ones(sizes.shape[0], dtype=np.bool_)
        # fewest_tokens over an array
        bound = np.where(sizes >= 2, (sizes - 1) * self.shingles.step + self.shingles.k, 0)
        out: B = bound < self.below
        return out

    def stored_forms(self, keys: Sequence[int], storage: Storage) -> dict[int, ShortForm]:
        """The short forms of stored documents, from their texts (remembered by key: a
        document never changes and a key is never reused). A key no longer stored is left
        out."""
        out: dict[int, ShortForm] = {}
        missing = []
        for key in keys:
            form = self._cache.get(key)
            if form is None:
                missing.append(key)
            else:
                self._cache.move_to_end(key)
                out[key] = form
        if missing:
            infos = list(storage.docs(sorted(set(missing)), text=True, meta=False))
            texts = []
            for info in infos:
                if info.text is None:
                    raise DamagedCollectionError(
                        f"document {info.key} ({info.id}) has no stored text, which the "
                        "collection's length-adaptive rule needs"
                    )
                texts.append(info.text)
            for info, form in zip(infos, self._forms(texts), strict=True):
                out[info.key] = form
                self._cache[info.key] = form
            while len(self._cache) > CACHED_FORMS:
                self._cache.popitem(last=False)
        return out

    def forget(self, keys: Sequence[int]) -> None:
        for key in keys:
            self._cache.pop(key, None)

    def split(
        self,
        pos: I64,
        other: I64,
        query_tokens: I64,
        other_tokens: Callable[[I64], I64],
    ) -> B:
        """Which pairs ``(pos, other)`` are short: ``other_tokens(other)`` gives each other
        side's token count (or any value at or above ``short_below`` when it is surely
        long)."""
        if pos.shape[0] == 0:
            return np.zeros(0, dtype=np.bool_)
        mask: B = np.asarray(
            self.shingles.short_pairs(query_tokens[pos], other_tokens(other)), dtype=np.bool_
        )
        return mask

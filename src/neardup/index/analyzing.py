"""The pipeline part of the collection: a text made ready for the index under the collection's
spec — its fingerprint set, sample and short form — one text at a time or a batch in a few
kernel calls.

It is a part of its own because every other part takes its output (:class:`IndexableText`) and none
needs to know how it was made: the candidate sources look its samples up, the verifier merges
its fingerprint sets, the writer stores them. Under a length-adaptive spec it also owns the
:class:`~neardup.index.short.ShortRule` that the verifier, the remover and the integrity check
share (one cache of stored short forms).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from neardup._sorted import distinct, distinct_counts
from neardup.analysis.analyzer import Canonical
from neardup.errors import ConfigurationError
from neardup.fingerprints.batch import BatchShingler, ShingledBatch
from neardup.fingerprints.pipeline import Analyzable, Pipeline, TextLike
from neardup.fingerprints.shingles import shingle
from neardup.index.batch import Parts
from neardup.index.candidates import CandidateGenerator, NoSamples, Winnowing
from neardup.index.results import IndexableText
from neardup.index.sentences import SentenceKeys
from neardup.index.short import TAG, ShortForm, ShortRule
from neardup.spec import IndexSpec, Spec

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


class IndexAnalyzer:
    """The analysis of texts for the index: the spec's pipeline, the candidate generator's
    samples and, under a length-adaptive spec, the short rule."""

    def __init__(self, spec: Spec, index_spec: IndexSpec, generator: CandidateGenerator) -> None:
        self.spec = spec
        self.index_spec = index_spec
        self.pipeline = Pipeline(spec)
        self.generator = generator
        self.multiset = spec.fingerprint_family.multiset
        self.short: ShortRule | None = None
        if spec.shingles.adaptive:
            if not index_spec.store_text:
                raise ConfigurationError(
                    "a length-adaptive spec needs a collection that keeps its texts: short "
                    "pairs are verified on the short shingles of the stored texts"
                )
            self.short = ShortRule(self.pipeline, index_spec.short_window)
        self.batch_shingler = BatchShingler.of(self.pipeline, short=self.short is not None)
        self.sentences: SentenceKeys | None = None
        if index_spec.sentence_bands:
            self.sentences = SentenceKeys(index_spec.sentence_bands)

    def analyze(self, text: Analyzable) -> IndexableText:
        """The fingerprint set and sample of a text under the collection's spec (a text the
        request analysed already, :class:`~neardup.analysis.analyzed.AnalyzedText`, is not analysed
        again)."""
        analysis = self.pipeline.analyze(text)
        decoded, canonical = analysis.text, analysis.canonical
        hashes = shingle(canonical, self.spec.shingles, self.pipeline.family).hashes
        short = None
        if self.short is not None:
            short = self.short.form(canonical, keep_hashes=True)
        return self._with_keys(self._analysis(decoded, hashes, short), decoded, canonical)

    def _with_keys(self, item: IndexableText, text: str, canonical: Canonical) -> IndexableText:
        """``item`` with the band keys of its sentences (``text`` and its analysis): posted
        among its samples, looked up by the sentence source alone (its other lookups stay
        what they were). A short text under the length rule has none: it finds the documents
        it came from through its words."""
        if self.sentences is None:
            return item
        rule, form = self.short, item.short
        if rule is not None and form is not None and rule.is_short(form.tokens):
            return item
        keys = self.sentences.of(text, canonical)
        if not keys.shape[0]:
            return item
        return replace(
            item,
            samples=distinct(np.concatenate((item.samples, keys.reshape(-1)))),
            probes=item.lookups,
            sentence_keys=keys,
        )

    def analyze_many(
        self, texts: Sequence[TextLike], alone: Callable[[TextLike], IndexableText] | None = None
    ) -> list[IndexableText]:
        """:meth:`analyze` of each text; under a spec the batch kernels take, the whole batch
        in a few nogil kernel calls (:class:`~neardup.fingerprints.batch.BatchShingler`, then
        :func:`~neardup._kernels.index_batch.index_parts`), so threads analyzing batches use
        every core. The analyses are the same (``benchmarks/identity_check.py
        --collection-batches``). ``alone`` analyses a text the kernels leave (default
        :meth:`analyze`; the collection passes its own, so what it is asked goes one way)."""
        one = self.analyze if alone is None else alone
        if self.batch_shingler is None:
            return [one(text) for text in texts]
        batch = self.batch_shingler.shingle(texts)
        parts = self._index_parts(batch)
        out = []
        for d, text in enumerate(texts):
            if not batch.done[d] or not isinstance(text, str):  # done only for str
                out.append(one(text))
                continue
            short = None
            if self.short is not None:
                short = self.short.form_of_set(
                    int(batch.tokens[d]), parts.short_values[d], parts.short_counts[d]
                )
            item = IndexableText(
                parts.values[d],
                parts.counts[d],
                parts.samples[d],
                text if self.index_spec.store_text else None,
                len(text),
                short,
                parts.probes[d],
            )
            if self.sentences is not None:  # the sentences need the text's own analysis
                analysis = self.pipeline.analyze(text)
                item = self._with_keys(item, analysis.text, analysis.canonical)
            out.append(item)
        return out

    def _index_parts(self, batch: ShingledBatch) -> Parts:
        from neardup._kernels.index_batch import index_parts

        window = self.generator.window if isinstance(self.generator, Winnowing) else 0
        short = self.short
        result = index_parts(
            batch.hashes,
            batch.starts,
            batch.ends,
            self.multiset,
            window,
            batch.short,
            batch.short_starts,
            batch.short_ends,
            batch.tokens,
            short is not None,
            0 if short is None else short.below,
            0 if short is None else short.window,
            TAG,
        )
        return Parts.of(result, self.multiset, short is not None and window > 0)

    def _analysis(self, decoded: str, hashes: U64, short: ShortForm | None) -> IndexableText:
        """What a text's shingle hashes (text order) and short form give the index."""
        if self.multiset:
            values, counts = distinct_counts(hashes)
            counts_arr: I64 | None = counts.astype(np.int64)
        else:
            values, counts_arr = distinct(hashes), None
        samples = self.generator.samples(hashes)
        probes = None
        rule = self.short
        if short is not None and rule is not None:
            if not isinstance(self.generator, NoSamples):
                samples, probes = rule.samples(short, samples)
            short = replace(short, hashes=None)  # what the batch keeps: not the hashes
        return IndexableText(
            values.astype(np.uint64),
            counts_arr,
            samples,
            decoded if self.index_spec.store_text else None,
            len(decoded),
            short,
            probes,
        )

    def analyzed(self, text: Analyzable | IndexableText) -> IndexableText:
        """The index's analysis of ``text``: made here, or given and checked to have what this
        collection needs (a short form under a length-adaptive spec)."""
        if not isinstance(text, IndexableText):
            return self.analyze(text)
        if self.short is not None and text.short is None:
            raise ConfigurationError(
                "this analysis has no short form, which the collection's length-adaptive rule "
                "needs: analyze the text with this collection (Collection.analyze)"
            )
        return text

"""A text made ready for the index under the collection's spec: its fingerprint set, sample and
short form, one text at a time or a batch in a few kernel calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from neardup._sorted import distinct, distinct_counts
from neardup.errors import ConfigurationError
from neardup.fingerprints.batch import ShingledBatch
from neardup.fingerprints.pipeline import Analyzable, TextLike
from neardup.fingerprints.shingles import shingle
from neardup.index.base import CollectionBase
from neardup.index.batch import Parts
from neardup.index.candidates import NoSamples, Winnowing
from neardup.index.results import Analyzed
from neardup.index.short import TAG, ShortForm

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


class Analyzing(CollectionBase):
    """The analysis of texts for the index."""

    def analyze(self, text: Analyzable) -> Analyzed:
        """The fingerprint set and sample of a text under the collection's spec (a text the
        request analysed already, :class:`~neardup.analysis.analyzed.AnalyzedText`, is not analysed
        again)."""
        analysis = self.pipeline.analyze(text)
        decoded, canonical = analysis.text, analysis.canonical
        hashes = shingle(canonical, self.spec.shingles, self.pipeline.family).hashes
        if self.short is None:
            return self._analysis(decoded, hashes, None)
        return self._analysis(decoded, hashes, self.short.form(canonical, keep_hashes=True))

    def analyze_many(self, texts: Sequence[TextLike]) -> list[Analyzed]:
        """:meth:`analyze` of each text; under a spec the batch kernels take, the whole batch
        in a few nogil kernel calls (:class:`~neardup.fingerprints.batch.BatchShingler`, then
        :func:`~neardup._kernels.index_batch.index_parts`), so threads analyzing batches use
        every core. The analyses are the same (``benchmarks/identity_check.py
        --collection-batches``)."""
        if self._batch_shingler is None:
            return [self.analyze(text) for text in texts]
        batch = self._batch_shingler.shingle(texts)
        parts = self._index_parts(batch)
        out = []
        for d, text in enumerate(texts):
            if not batch.done[d] or not isinstance(text, str):  # done only for str
                out.append(self.analyze(text))
                continue
            short = None
            if self.short is not None:
                short = self.short.form_of_set(
                    int(batch.tokens[d]), parts.short_values[d], parts.short_counts[d]
                )
            out.append(
                Analyzed(
                    parts.values[d],
                    parts.counts[d],
                    parts.samples[d],
                    text if self.index_spec.store_text else None,
                    len(text),
                    short,
                    parts.probes[d],
                )
            )
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

    def _analysis(self, decoded: str, hashes: U64, short: ShortForm | None) -> Analyzed:
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
        return Analyzed(
            values.astype(np.uint64),
            counts_arr,
            samples,
            decoded if self.index_spec.store_text else None,
            len(decoded),
            short,
            probes,
        )

    def _analyzed(self, text: Analyzable | Analyzed) -> Analyzed:
        if not isinstance(text, Analyzed):
            return self.analyze(text)
        if self.short is not None and text.short is None:
            raise ConfigurationError(
                "this analysis has no short form, which the collection's length-adaptive rule "
                "needs: analyze the text with this collection (Collection.analyze)"
            )
        return text

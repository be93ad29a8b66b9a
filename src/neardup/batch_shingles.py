"""Word shingle hashes of many raw texts in one nogil kernel call per batch.

The per-document path (:meth:`neardup.pipeline.Pipeline.canonical`, then
:func:`neardup.shingles.shingle_hashes`) costs Python glue per document (the analyzer's
dispatch, the compiled filters' calls, array wrapping) that holds the GIL, so threads analyzing
texts for a collection gain nothing. :class:`BatchShingler` runs
:func:`~neardup._kernels.sign_batch.shingle_words_batch` instead: the analyzer's fused chain,
its compiled token filters and the Rabin–Karp word shingles of a whole batch in one call (two
when the batch holds forms no table knows: they are learned in between, as signing does).

It takes the specs :class:`~neardup.sketch.minhash.MinHasher` signs in batches (one chain of
fusable char filters whose token filters, if any, are compiled into tables; word shingles;
``rabin``); :meth:`BatchShingler.of` is ``None`` for the others. A text the kernel cannot take
(bytes, HTML to strip, a character the fused table marks) comes back as ``None`` for the
caller's per-document path. The hashes are the per-document path's
(``tests/test_batch_shingles.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup.analysis.analyzer import BatchPlan
from neardup.fingerprint import RabinTables
from neardup.pipeline import Pipeline

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

#: The compiled filters' tables (``use_static`` … ``result_bytes``) of a chain without token
#: filters: the kernel does not read them.
_NO_FILTERS: tuple[Any, ...] = (
    False,
    np.zeros(0, dtype=np.int32),
    0,
    np.zeros(0, dtype=np.uint64),
    np.zeros(0, dtype=np.uint8),
    np.zeros(0, dtype=np.int64),
    np.zeros(0, dtype=np.uint8),
    False,
    np.zeros(0, dtype=np.uint64),
    np.zeros(0, dtype=np.uint64),
    np.zeros(0, dtype=np.int64),
    0,
    np.zeros(0, dtype=np.int64),
    np.zeros(0, dtype=np.uint8),
)


@dataclass(frozen=True)
class TextShingles:
    """A text's canonical token count and its shingle hashes in text order: the spec's
    shingles, and the length-adaptive rule's short ones when asked for."""

    tokens: int
    hashes: U64
    short: U64 | None


@dataclass(frozen=True)
class BatchShingler:
    """The batch path of one pipeline (:meth:`of`)."""

    analysis: BatchPlan
    rabin: RabinTables
    k: int
    step: int
    #: Tokens per short shingle (step 1), or 0 for none.
    short_k: int

    @classmethod
    def of(cls, pipeline: Pipeline, *, short: bool = False) -> BatchShingler | None:
        """The batch path of ``pipeline``'s spec, or ``None`` when the spec cannot take it.
        ``short``: also the short shingles of its length-adaptive rule (``None`` when they
        are not word shingles)."""
        spec = pipeline.spec
        shingles = spec.shingles
        if shingles.unit != "word":
            return None
        short_k = 0
        if short and shingles.adaptive:
            short_spec = shingles.fixed(short=True)
            if short_spec.unit != "word":
                return None
            short_k = short_spec.k
        rabin = pipeline.family.rabin_tables
        analysis = pipeline.analyzer.batch_plan()
        if rabin is None or analysis is None:
            return None
        return cls(analysis, rabin, shingles.k, shingles.step, short_k)

    def shingle(self, texts: Sequence[object]) -> list[TextShingles | None]:
        """Each text's shingles, or ``None`` for a text the per-document path must take."""
        from neardup._kernels.sign_batch import SIGNED, shingle_words_batch

        cps, doc_offsets, todo = self.analysis.code_points(texts)
        r = self.rabin
        rounds: list[tuple[Any, ...]] = []

        def call(tables: tuple[Any, ...], todo: npt.NDArray[np.bool_]) -> Any:
            result = shingle_words_batch(
                cps,
                doc_offsets,
                todo,
                *self.analysis.kernel_args(),
                compiled is not None,
                *tables,
                self.k,
                self.step,
                self.short_k,
                r.table,
                r.power,
                r.space_power,
                r.bits,
                r.c,
            )
            rounds.append(result[:6])
            return result[0], *result[6:]

        compiled = self.analysis.compiled
        if compiled is None:
            call(_NO_FILTERS, todo)
        else:
            for _ in compiled.until_known(todo, call):
                pass
        out: list[TextShingles | None] = [None] * len(texts)
        for status, tokens, hashes, offsets, short, short_offsets in rounds:
            for d in np.flatnonzero(status == SIGNED).tolist():
                out[d] = TextShingles(
                    int(tokens[d]),
                    hashes[offsets[d] : offsets[d + 1]],
                    short[short_offsets[d] : short_offsets[d + 1]] if self.short_k else None,
                )
        return out

"""Word shingle hashes of many raw texts in one nogil kernel call per batch.

The per-document path (:meth:`neardup.fingerprints.pipeline.Pipeline.canonical`, then
:func:`neardup.fingerprints.shingles.shingle_hashes`) costs Python glue per document (the analyzer's
dispatch, the compiled filters' calls, array wrapping) that holds the GIL, so threads analyzing
texts for a collection gain nothing. :class:`BatchShingler` runs
:func:`~neardup._kernels.sign_batch.shingle_words_batch` instead: the analyzer's fused chain,
its compiled token filters and the Rabin–Karp word shingles of a whole batch in one call (two
when the batch holds forms no table knows: they are learned in between, as signing does).

It takes the specs :class:`~neardup.sketch.minhash.MinHasher` signs in batches (one chain of
fusable char filters whose token filters, if any, are compiled into tables; word shingles;
``rabin``); :meth:`BatchShingler.of` is ``None`` for the others. A text the kernel cannot take
(bytes, HTML to strip, a character the fused table marks, a text longer than
:data:`~neardup.analysis.chunked.CHUNK_CHARS` characters, which that path analyses a piece at a
time in bounded memory) comes back as ``None`` for the caller's per-document path. The hashes
are the per-document path's (``tests/test_batch_shingles.py``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup.analysis.analyzer import BatchPlan, route_batch
from neardup.analysis.chunked import CHUNK_CHARS
from neardup.fingerprints.hashing import RabinTables
from neardup.fingerprints.pipeline import Pipeline

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


_NONE = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class TextShingles:
    """A text's canonical token count and its shingle hashes in text order: the spec's
    shingles, and the length-adaptive rule's short ones when asked for."""

    tokens: int
    hashes: U64
    short: U64 | None


@dataclass(frozen=True)
class ShingledBatch:
    """The shingles of a batch's texts, joined: text ``d`` (where ``done[d]``) has
    ``tokens[d]`` canonical tokens and the hashes ``hashes[starts[d]:ends[d]]`` (short ones:
    ``short[short_starts[d]:short_ends[d]]``, empty when not asked for); the others are the
    per-document path's."""

    done: npt.NDArray[np.bool_]
    tokens: I64
    hashes: U64
    starts: I64
    ends: I64
    short: U64
    short_starts: I64
    short_ends: I64

    def __len__(self) -> int:
        return int(self.done.shape[0])

    def __iter__(self) -> Iterator[TextShingles | None]:
        return (self[d] for d in range(len(self)))

    def __getitem__(self, d: int) -> TextShingles | None:
        if not self.done[d]:
            return None
        return TextShingles(
            int(self.tokens[d]),
            self.hashes[self.starts[d] : self.ends[d]],
            self.short[self.short_starts[d] : self.short_ends[d]]
            if self.short_starts.shape[0]
            else None,
        )


@dataclass(frozen=True)
class BatchShingler:
    """The batch path of one pipeline (:meth:`of`)."""

    #: The chains' batch plans by language; the first decides the language of a text under a
    #: spec with several (``auto``), as :meth:`~neardup.analysis.analyzer.Analyzer.canonical`
    #: does: by the Cyrillic and Latin letters of its filtered text.
    plans: tuple[tuple[str, BatchPlan], ...]
    rabin: RabinTables
    #: Tokens per shingle (0: none made), taken every ``step`` tokens.
    k: int
    step: int
    #: Tokens per short shingle (step 1), or 0 for none.
    short_k: int

    @classmethod
    def of(
        cls, pipeline: Pipeline, *, short: bool = False, long: bool = True
    ) -> BatchShingler | None:
        """The batch path of ``pipeline``'s spec, or ``None`` when the spec cannot take it.
        ``short``: also the short shingles of its length-adaptive rule (``None`` when they
        are not word shingles); ``long=False``: not the spec's own shingles (their hashes
        are left empty)."""
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
        plans = pipeline.analyzer.batch_plans()
        if rabin is None or plans is None:
            return None
        return cls(plans, rabin, shingles.k if long else 0, shingles.step, short_k)

    def shingle(self, texts: Sequence[object]) -> ShingledBatch:
        """The shingles of the texts the kernel takes (``done``; the others are left for the
        per-document path)."""
        # a text longer than a piece goes the per-document way, a piece at a time, so a huge
        # one is analysed in bounded memory (docs/benchmarks.md, "Huge single texts")
        cps, doc_offsets, groups = route_batch(
            self.plans,
            [t if not isinstance(t, str) or len(t) <= CHUNK_CHARS else None for t in texts],
        )
        rounds: list[tuple[Any, ...]] = []
        for plan, todo in groups:
            rounds += self._rounds(plan, cps, doc_offsets, todo)
        return self._joined(rounds, len(texts))

    def _rounds(
        self,
        plan: BatchPlan,
        cps: npt.NDArray[np.uint32],
        doc_offsets: I64,
        todo: npt.NDArray[np.bool_],
    ) -> list[tuple[Any, ...]]:
        """The kernel's calls over the texts ``todo`` marks, under one chain's plan: each
        one's statuses, token counts, hashes and short hashes with their offsets."""
        from neardup._kernels.sign_batch import shingle_words_batch

        r = self.rabin
        compiled = plan.compiled
        rounds: list[tuple[Any, ...]] = []

        def call(tables: tuple[Any, ...], todo: npt.NDArray[np.bool_]) -> Any:
            result = shingle_words_batch(
                cps,
                doc_offsets,
                todo,
                *plan.kernel_args(),
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

        if compiled is None:
            call(_NO_FILTERS, todo)
        else:
            for _ in compiled.until_known(todo, call):
                pass
        return rounds

    def _joined(self, rounds: list[tuple[Any, ...]], n: int) -> ShingledBatch:
        """One batch of the kernel's rounds: each text from the round that shingled it."""
        from neardup._kernels.sign_batch import SIGNED

        if len(rounds) == 1:
            status, tokens, hashes, offsets, short, short_offsets = rounds[0]
            return ShingledBatch(
                status == SIGNED,
                tokens,
                hashes,
                offsets[:-1],
                offsets[1:],
                short,
                short_offsets[:-1] if self.short_k else _NONE,
                short_offsets[1:] if self.short_k else _NONE,
            )

        done = np.zeros(n, dtype=np.bool_)
        tokens = np.zeros(n, dtype=np.int64)
        starts = np.zeros(n, dtype=np.int64)
        ends = np.zeros(n, dtype=np.int64)
        short_starts = np.zeros(n, dtype=np.int64)
        short_ends = np.zeros(n, dtype=np.int64)
        base = short_base = 0
        for status, round_tokens, hashes, offsets, short, short_offsets in rounds:
            took = status == SIGNED
            done |= took
            tokens[took] = round_tokens[took]
            starts[took] = base + offsets[:-1][took]
            ends[took] = base + offsets[1:][took]
            short_starts[took] = short_base + short_offsets[:-1][took]
            short_ends[took] = short_base + short_offsets[1:][took]
            base += hashes.shape[0]
            short_base += short.shape[0]
        return ShingledBatch(
            done,
            tokens,
            np.concatenate([r[2] for r in rounds]) if rounds else np.zeros(0, dtype=np.uint64),
            starts,
            ends,
            np.concatenate([r[4] for r in rounds]) if rounds else np.zeros(0, dtype=np.uint64),
            short_starts if self.short_k else _NONE,
            short_ends if self.short_k else _NONE,
        )

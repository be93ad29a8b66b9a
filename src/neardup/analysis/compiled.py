"""A chain's token filters run by kernels: each token's form is looked up, its fate (the term
it becomes, or dropped) read from tables, and the canonical stream written, with no Python per
token.

Every token filter (``stop``, ``pos``, ``lemma``, ``stem``, ``synonyms``, ``min_length``) decides
each token from its form alone, so a chain's filters are one function from a form to a term or
to nothing. Two tables hold that function:

* for a chain ``[stop] [pos] lemma`` (the ``ru`` preset), the dictionary's table
  (:mod:`neardup.analysis.morph_table`): every dictionary form's lemma, part of speech and
  ``Apro`` mark, from which the chain's drop mask is computed once (stop words, the parts of
  speech it drops);
* for every chain, an in-process table of the forms met before that the first table does not
  hold: a document's unknown forms go, once each and all in one call, through the chain's own
  filters (pymorphy3's predictor, the stemmer in one ``stemWords`` call, …), and what they give
  joins the table. Each thread has its own, so a kernel never reads one being written.

Both give what the filters give, so the output is the same as running them on the terms
(``tests/analysis/test_compiled.py`` and ``benchmarks/identity_check.py`` compare).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._kernels import morph as kernels
from neardup.spec import ChainSpec

U8 = npt.NDArray[np.uint8]
U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
Stream = tuple[U8, I64, I64, I64, I64]

#: The in-process table starts over when it holds this many forms (as the lemma cache did).
MAX_LEARNED = 1_000_000


@dataclass(frozen=True)
class _Static:
    """The dictionary table with this chain's decisions: bit ``e`` of ``drop_bits`` drops
    entry ``e``."""

    use: bool
    buckets: npt.NDArray[np.int32]
    bits: int
    records: U64
    drop_bits: U8
    term_offsets: I64
    term_bytes: U8


_NO_STATIC = _Static(
    False,
    np.zeros(3, dtype=np.int32),
    1,
    np.zeros(0, dtype=np.uint64),
    np.zeros(0, dtype=np.uint8),
    np.zeros(1, dtype=np.int64),
    np.zeros(0, dtype=np.uint8),
)


class _Learned:
    """The forms met that the static table does not hold, with what the filters made of them
    (UTF-8 bytes; empty when dropped), in an open-addressing table."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.count = 0
        self.size = 0
        self.keys1 = np.zeros(1024, dtype=np.uint64)
        self.keys2 = np.zeros(1024, dtype=np.uint64)
        self.values = np.full(1024, kernels.EMPTY_SLOT, dtype=np.int64)
        self.h1 = np.zeros(256, dtype=np.uint64)
        self.h2 = np.zeros(256, dtype=np.uint64)
        self.offsets = np.zeros(257, dtype=np.int64)
        self.bytes = np.zeros(4096, dtype=np.uint8)

    def add(self, h1: U64, h2: U64, outputs: list[bytes]) -> bool:
        """Learn the forms hashed ``(h1, h2)``; returns ``False`` when the table had to start
        over first (results numbered before are gone). An empty table takes any number, so a
        caller that learns again what it lost always ends."""
        new = len(outputs)
        fresh = self.count > 0 and self.count + new > MAX_LEARNED
        if fresh:
            self.clear()
        first, end = self.count, self.count + new
        if end > self.h1.shape[0]:
            grow = max(end, 2 * self.h1.shape[0])
            self.h1 = np.resize(self.h1, grow)
            self.h2 = np.resize(self.h2, grow)
            self.offsets = np.resize(self.offsets, grow + 1)
        data = b"".join(outputs)
        if self.size + len(data) > self.bytes.shape[0]:
            self.bytes = np.resize(self.bytes, max(self.size + len(data), 2 * self.bytes.shape[0]))
        self.bytes[self.size : self.size + len(data)] = np.frombuffer(data, dtype=np.uint8)
        lengths = np.fromiter(map(len, outputs), dtype=np.int64, count=new)
        self.offsets[first + 1 : end + 1] = self.size + np.cumsum(lengths)
        self.size += len(data)
        self.h1[first:end] = h1
        self.h2[first:end] = h2
        self.count = end
        if 2 * end > self.keys1.shape[0]:
            capacity = self.keys1.shape[0]
            while 2 * end > capacity:
                capacity *= 2
            self.keys1 = np.zeros(capacity, dtype=np.uint64)
            self.keys2 = np.zeros(capacity, dtype=np.uint64)
            self.values = np.full(capacity, kernels.EMPTY_SLOT, dtype=np.int64)
            first = 0
        kernels.overlay_insert(
            self.keys1,
            self.keys2,
            self.values,
            self.h1[first:end],
            self.h2[first:end],
            np.arange(first, end, dtype=np.int64),
        )
        return not fresh


def static_plan(spec: ChainSpec) -> bool:
    """Whether the dictionary table serves ``spec``: its token filters are ``lemma`` after an
    optional ``stop`` and an optional ``pos``, in that order."""
    names = [c.name for c in spec.token_filters]
    return (
        bool(names)
        and names[-1] == "lemma"
        and names[:-1] in ([], ["stop"], ["pos"], ["stop", "pos"])
    )


class CompiledFilters:
    """The token filters of a chain, run over a token stream by kernels (see the module)."""

    def __init__(self, spec: ChainSpec, filters: list[Callable[[list[str]], Any]]) -> None:
        self.spec = spec
        self.filters = filters
        self._use_static = static_plan(spec)
        self._static: _Static | None = None
        self._local = threading.local()
        self._lock = threading.Lock()

    def __reduce__(self) -> tuple[Any, ...]:
        # the tables are caches: a copy (another process) builds or loads its own
        return (CompiledFilters, (self.spec, self.filters))

    def static(self) -> _Static:
        """The dictionary table and this chain's decisions (loaded once, at first use)."""
        static = self._static
        if static is None:
            with self._lock:
                static = self._static
                if static is None:
                    static = self._static = (
                        _static_of(self.spec) if self._use_static else _NO_STATIC
                    )
        return static

    def forget(self) -> None:
        """Empty this thread's table of forms learned (a benchmark's cold pass)."""
        self.learned().clear()

    def learned(self) -> _Learned:
        learned: _Learned | None = getattr(self._local, "learned", None)
        if learned is None:
            learned = self._local.learned = _Learned()
        return learned

    def apply(self, buf: U8, byte_starts: I64, byte_ends: I64, starts: I64, ends: I64) -> Stream:
        """The filtered stream of the tokens ``buf[byte_starts[t]:byte_ends[t]]`` (spans
        ``starts``, ``ends`` in the input): the buffer of terms joined by spaces, the terms'
        byte spans and the kept tokens' spans."""
        static = self.static()
        learned = self.learned()
        h1, h2 = kernels.form_hashes(buf, byte_starts, byte_ends)
        codes = np.full(h1.shape[0], kernels.MISS, dtype=np.int64)
        misses = self._resolve(h1, h2, codes, static, learned)
        while misses:
            first = kernels.first_misses(h1, h2, codes)
            data = buf.tobytes()
            forms = [
                data[a:b].decode("utf-8")
                for a, b in zip(byte_starts[first].tolist(), byte_ends[first].tolist(), strict=True)
            ]
            if not learned.add(h1[first], h2[first], self.run_filters(forms)):
                # the table started over: the results this document found in it are gone
                codes[codes < kernels.DROP] = kernels.MISS
            misses = self._resolve(h1, h2, codes, static, learned)
        return kernels.emit(
            codes,
            starts,
            ends,
            static.term_offsets,
            static.term_bytes,
            learned.offsets,
            learned.bytes,
        )

    @staticmethod
    def _resolve(h1: U64, h2: U64, codes: I64, static: _Static, learned: _Learned) -> int:
        return int(
            kernels.resolve(
                h1,
                h2,
                codes,
                static.use,
                static.buckets,
                static.bits,
                static.records,
                static.drop_bits,
                learned.keys1,
                learned.keys2,
                learned.values,
            )
        )

    def run_filters(self, forms: list[str]) -> list[bytes]:
        """What the chain's filters make of each form, in one call each for the whole list:
        its term in UTF-8, or ``b""`` when a filter drops it."""
        terms = forms
        index = np.arange(len(forms))
        for token_filter in self.filters:
            terms, keep = token_filter(terms)
            if keep is not None:
                index = index[keep]
        out = [b""] * len(forms)
        for i, term in zip(index.tolist(), terms, strict=True):
            out[i] = term.encode("utf-8")
        return out


def _static_of(spec: ChainSpec) -> _Static:
    from neardup.analysis import morph_table, token_filters

    table = morph_table.dictionary_table()
    drop = np.zeros(len(table), dtype=np.bool_)
    for component in spec.token_filters:
        params: dict[str, Any] = dict(component.params)
        if component.name == "stop":
            vocabulary = token_filters.stop_vocabulary(**params)
            entries = table.find(sorted(vocabulary))
            drop[entries[entries >= 0]] = True
        elif component.name == "pos":
            dropped = frozenset(params.get("drop", token_filters.DEFAULT_DROP_POS))
            by_pos = np.array([name in dropped for name in table.pos_names], dtype=np.bool_)
            codes = table.tags & np.uint8(~morph_table.APRO & 0xFF)
            drop |= by_pos[codes]
            if "NPRO" in dropped:
                drop |= (table.tags & np.uint8(morph_table.APRO)) != 0
    return _Static(
        True,
        table.buckets,
        table.bits,
        table.records,
        np.packbits(drop, bitorder="little"),
        table.lemma_offsets,
        table.lemma_bytes,
    )

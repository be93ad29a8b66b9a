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
  joins the table. The threads share it: a kernel reads a snapshot that stays complete while
  another thread adds forms (see :class:`_Learned`).

For a chain that reads pymorphy3 (``pos``, ``lemma``), two things spare the predictor (about
50 µs a form): the forms it predicted are kept on disk
(:mod:`neardup.analysis.learned_cache`, keyed by the dictionary and the chain's spec) and
read into the shared table at the first form the dictionary table lacks, so a new process
starts with what earlier ones learned (and a text of dictionary forms never reads them); and
under the dictionary table's plan, a form of ASCII lowercase letters and digits only (a Latin
word, a number, a Roman numeral) is its own term unless the ``stop`` filter drops it, which is
what pymorphy3 gives such a form (its Latin, number and Roman-numeral analysers: the form as
its normal form, no part of speech), so the kernel writes it as it is and it never goes to
the filters at all (the rule is off when a stop word is such a form).

Both give what the filters give, so the output is the same as running them on the terms
(``tests/analysis/test_compiled.py`` and ``benchmarks/identity_check.py`` compare).
"""

from __future__ import annotations

import functools
import multiprocessing
import multiprocessing.util
import re
import threading
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._kernels import morph as kernels
from neardup.analysis import learned_cache
from neardup.spec import ChainSpec

U8 = npt.NDArray[np.uint8]
U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
Stream = tuple[U8, I64, I64, I64, I64]
#: What a batch kernel's call gives :meth:`CompiledFilters.until_known`: each document's
#: status, and the unknown forms' hashes and bytes.
KernelRound = tuple[npt.NDArray[np.int8], U64, U64, U8]

#: The in-process table starts over when it holds this many forms (as the lemma cache did).
MAX_LEARNED = 1_000_000
#: A process writes the forms it predicted to disk each time this many more are waiting
#: (and at exit).
SAVE_EVERY = 20_000
#: The forms whose fate under the dictionary table's plan is a rule (see the module), decided
#: in :func:`neardup._kernels.morph.resolve`.
_RULE_FORM = re.compile(r"[a-z0-9]+")
_MORPH_FILTERS = frozenset({"pos", "lemma"})


@dataclass(frozen=True)
class _Static:
    """The dictionary table with this chain's decisions: bit ``e`` of ``drop_bits`` drops
    entry ``e``."""

    use: bool
    #: whether the forms of :data:`_RULE_FORM` are decided by the rule (not when the ``pos``
    #: filter drops words of no part of speech)
    rule_forms: bool
    buckets: npt.NDArray[np.int32]
    bits: int
    records: U64
    drop_bits: U8
    term_offsets: I64
    term_bytes: U8


_NO_STATIC = _Static(
    False,
    False,
    np.zeros(3, dtype=np.int32),
    1,
    np.zeros(0, dtype=np.uint64),
    np.zeros(0, dtype=np.uint8),
    np.zeros(1, dtype=np.int64),
    np.zeros(0, dtype=np.uint8),
)


@dataclass(frozen=True)
class LearnedView:
    """A snapshot of the in-process table for one kernel call: its first ``known`` results are
    complete in these arrays, whatever other threads add meanwhile."""

    keys1: U64
    keys2: U64
    values: I64
    known: int
    offsets: I64
    bytes: U8


class _Learned:
    """The forms met that the static table does not hold, with what the filters made of them
    (UTF-8 bytes; empty when dropped), in an open-addressing table shared by the threads.

    Threads read it in kernels without a lock, through a :class:`LearnedView` (``view``, one
    attribute read); :meth:`add` writes under a lock, so that a reader always sees a complete
    table: results are appended after every view's ``known``, into the arrays in place while
    they have room (a reader never looks past its ``known``) or into new, longer copies (a
    reader keeps the old ones); keys go into empty slots of the table in place, after their
    results are written (a reader ignores a key whose result it does not know), or into a new
    table when the load would pass one half; starting over makes new arrays."""

    def __init__(self, capped: bool = True) -> None:
        #: whether it starts over at :data:`MAX_LEARNED` forms (not a caller's private table)
        self.capped = capped
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self.count = 0
        self.size = 0
        self.h1 = np.zeros(256, dtype=np.uint64)
        self.h2 = np.zeros(256, dtype=np.uint64)
        self.offsets = np.zeros(257, dtype=np.int64)
        self.bytes = np.zeros(4096, dtype=np.uint8)
        self._new_keys(1024)
        self._publish()

    def _new_keys(self, capacity: int) -> None:
        self.keys1 = np.zeros(capacity, dtype=np.uint64)
        self.keys2 = np.zeros(capacity, dtype=np.uint64)
        self.values = np.full(capacity, kernels.EMPTY_SLOT, dtype=np.int64)

    def _publish(self) -> None:
        self.view = LearnedView(
            self.keys1, self.keys2, self.values, self.count, self.offsets, self.bytes
        )

    def clear(self) -> None:
        with self._lock:
            self._reset()

    def add(self, h1: U64, h2: U64, outputs: list[bytes]) -> bool:
        """Learn the forms hashed ``(h1, h2)``; returns ``False`` when the table had to start
        over first (results numbered before are gone). An empty table takes any number, so a
        caller that learns again what it lost always ends."""
        with self._lock:
            new = len(outputs)
            fresh = self.capped and self.count > 0 and self.count + new > MAX_LEARNED
            if fresh:
                self._reset()
            first, end = self.count, self.count + new
            if end > self.h1.shape[0]:
                grow = max(end, 2 * self.h1.shape[0])
                self.h1 = np.resize(self.h1, grow)
                self.h2 = np.resize(self.h2, grow)
                self.offsets = np.resize(self.offsets, grow + 1)
            data = b"".join(outputs)
            if self.size + len(data) > self.bytes.shape[0]:
                self.bytes = np.resize(
                    self.bytes, max(self.size + len(data), 2 * self.bytes.shape[0])
                )
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
                self._new_keys(capacity)
                first = 0
            kernels.overlay_insert(
                self.keys1,
                self.keys2,
                self.values,
                self.h1[first:end],
                self.h2[first:end],
                np.arange(first, end, dtype=np.int64),
            )
            self._publish()
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
        self._learned: _Learned | None = None
        self._lock = threading.Lock()
        #: whether the forms on disk were read into the shared table (at the first miss)
        self._disk_read = False
        self._uses_morph = any(c.name in _MORPH_FILTERS for c in spec.token_filters)
        self._on_disk: learned_cache.LearnedForms | None = None
        self._saver: _Saver | None = None

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
        """Empty the table of forms learned, those loaded from disk too (a benchmark's cold
        pass)."""
        self.learned().clear()

    def learned(self) -> _Learned:
        """The table of forms learned, shared by the threads, with the forms kept on disk
        read into it."""
        learned = self._table()
        if not self._disk_read:
            self._read_disk(learned)
        return learned

    def _table(self) -> _Learned:
        """The shared table as it stands (made at first use): :meth:`apply` reads the disk's
        forms into it at the first form the dictionary table does not hold, so a text whose
        forms it all holds (a short one, often) never reads them."""
        learned = self._learned
        if learned is None:
            with self._lock:
                learned = self._learned
                if learned is None:
                    learned = self._learned = _Learned()
        return learned

    def _read_disk(self, learned: _Learned) -> None:
        """Add the forms on disk to the shared table, once a process."""
        on_disk = self.on_disk()
        with self._lock:
            if not self._disk_read:
                if len(on_disk):
                    learned.add(on_disk.h1, on_disk.h2, on_disk.outputs())
                self._disk_read = True

    def on_disk(self) -> learned_cache.LearnedForms:
        """The forms earlier processes predicted for this chain (loaded once, at first use)."""
        on_disk = self._on_disk
        if on_disk is None:
            with self._lock:
                on_disk = self._on_disk
                if on_disk is None:
                    on_disk = learned_cache.LearnedForms.empty()
                    store = self._open_store() if self._uses_morph else None
                    if store is not None:
                        on_disk = store.load()
                        self._saver = _Saver(store)
                        # written when this object goes, or at exit, whichever comes first
                        weakref.finalize(self, self._saver.save)
                        if multiprocessing.parent_process() is not None:
                            # a worker process (--jobs) ends without running atexit
                            multiprocessing.util.Finalize(None, self._saver.save, exitpriority=10)
                    self._on_disk = on_disk
        return on_disk

    def _open_store(self) -> learned_cache.LearnedStore | None:
        from neardup.analysis import morph_table

        try:
            key = learned_cache.chain_key(morph_table.dictionary_key(), self.spec.to_dict())
        except Exception:  # no dictionary to key on: this chain keeps its forms in memory
            return None
        root = learned_cache.learned_root()
        return None if root is None else learned_cache.LearnedStore(root / key)

    def save_learned(self) -> None:
        """Write the forms this process predicted to its file of the disk cache."""
        if self._saver is not None:
            self._saver.save()

    def apply(self, buf: U8, byte_starts: I64, byte_ends: I64, starts: I64, ends: I64) -> Stream:
        """The filtered stream of the tokens ``buf[byte_starts[t]:byte_ends[t]]`` (spans
        ``starts``, ``ends`` in the input): the buffer of terms joined by spaces, the terms'
        byte spans and the kept tokens' spans."""
        static = self.static()
        table = self._table()
        h1, h2 = kernels.form_hashes(buf, byte_starts, byte_ends)
        rounds = 0
        while True:
            # one view for the lookups and the writing (the codes number its results)
            view = table.view
            codes = np.full(h1.shape[0], kernels.MISS, dtype=np.int64)
            if not self._resolve(h1, h2, codes, static, view, buf, byte_starts, byte_ends):
                break
            if not self._disk_read:
                # the forms earlier processes predicted may hold these: look again
                self._read_disk(self._table())
                continue
            first = kernels.first_misses(h1, h2, codes)
            data = buf.tobytes()
            forms = [
                data[a:b].decode("utf-8")
                for a, b in zip(byte_starts[first].tolist(), byte_ends[first].tolist(), strict=True)
            ]
            rounds += 1
            table = self.table_for_round(table, rounds)
            table.add(h1[first], h2[first], self._fates(forms, h1[first], h2[first]))
        return kernels.emit(
            codes,
            starts,
            ends,
            static.term_offsets,
            static.term_bytes,
            view.offsets,
            view.bytes,
            buf,
            byte_starts,
            byte_ends,
        )

    def kernel_tables(self, view: LearnedView) -> tuple[Any, ...]:
        """The tables :func:`~neardup._kernels.sign_batch.sign_filtered_words` takes, from
        ``use_static`` to ``result_bytes``, with ``view`` of the in-process table."""
        static = self.static()
        return (
            static.use,
            static.buckets,
            static.bits,
            static.records,
            static.drop_bits,
            static.term_offsets,
            static.term_bytes,
            static.rule_forms,
            view.keys1,
            view.keys2,
            view.values,
            view.known,
            view.offsets,
            view.bytes,
        )

    @staticmethod
    def table_for_round(table: _Learned, rounds: int) -> _Learned:
        """Where a caller's ``rounds``-th lot of unknown forms is learned: the shared table
        first; from the second lot on, a private table that never starts over. A second lot
        means the shared table started over after the first was learned (another thread
        filled it), and two threads that kept emptying it for each other would never end;
        the private table only grows, so every round learns the forms it misses for good."""
        if rounds == 2:
            return _Learned(capped=False)
        return table

    def learn(self, h1: U64, h2: U64, forms: U8, into: _Learned) -> None:
        """Learn into ``into`` the forms hashed ``(h1, h2)``, given as their UTF-8 bytes joined
        by single spaces (what :func:`~neardup._kernels.sign_batch.sign_filtered_words`
        reports): the filters run once over all of them."""
        if h1.shape[0]:
            words = forms.tobytes().decode("utf-8").split(" ")
            into.add(h1, h2, self._fates(words, h1, h2))

    def until_known(
        self, todo: npt.NDArray[np.bool_], call: Callable[[tuple[Any, ...], Any], KernelRound]
    ) -> Iterator[npt.NDArray[np.int8]]:
        """Run a batch kernel until every document it took is done: ``call(tables, todo)``
        runs it on the documents ``todo`` marks with :meth:`kernel_tables` and returns their
        statuses and the unknown forms, as
        :func:`~neardup._kernels.sign_batch.sign_filtered_words` does. The forms no table
        knows, of the whole batch, are learned in one call of the filters between two calls
        (the second runs only the documents that waited for them). Yields each call's
        statuses."""
        from neardup._kernels.sign_batch import UNKNOWN_FORMS

        table = self.learned()
        rounds = 0
        while True:
            status, h1, h2, forms = call(self.kernel_tables(table.view), todo)
            yield status
            if not h1.shape[0]:
                return
            todo = status == UNKNOWN_FORMS
            rounds += 1
            # the shared table, or a private one once it lost this batch's forms
            table = self.table_for_round(table, rounds)
            self.learn(h1, h2, forms, table)

    @staticmethod
    def _resolve(
        h1: U64,
        h2: U64,
        codes: I64,
        static: _Static,
        view: LearnedView,
        buf: U8,
        byte_starts: I64,
        byte_ends: I64,
    ) -> int:
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
                view.keys1,
                view.keys2,
                view.values,
                view.known,
                static.rule_forms,
                buf,
                byte_starts,
                byte_ends,
            )
        )

    def _remember(self, forms: learned_cache.LearnedForms) -> None:
        if self._saver is not None:
            self._saver.remember(forms)

    def _fates(self, forms: list[str], h1: U64, h2: U64) -> list[bytes]:
        """What the filters make of each new form (remembered for the disk cache)."""
        out = self.run_filters(forms)
        self._remember(learned_cache.LearnedForms.of(h1, h2, out))
        return out

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


@functools.lru_cache(maxsize=8)
def _static_of(spec: ChainSpec) -> _Static:
    """The dictionary table with ``spec``'s decisions, made once per chain spec in a process
    (the combined score's pipeline and the command's share it: ~15 ms each)."""
    from neardup.analysis import morph_table, token_filters

    table = morph_table.dictionary_table()
    drop = np.zeros(len(table), dtype=np.bool_)
    rule_forms = True
    for component in spec.token_filters:
        params: dict[str, Any] = dict(component.params)
        if component.name == "stop":
            vocabulary = token_filters.stop_vocabulary(**params)
            entries = table.find(sorted(vocabulary))
            drop[entries[entries >= 0]] = True
            # the kernel's rule cannot look a form up in the stop words: off when one is such
            rule_forms = rule_forms and not any(_RULE_FORM.fullmatch(w) for w in vocabulary)
        elif component.name == "pos":
            dropped = frozenset(params.get("drop", token_filters.DEFAULT_DROP_POS))
            rule_forms = rule_forms and "" not in dropped
            by_pos = np.array([name in dropped for name in table.pos_names], dtype=np.bool_)
            codes = table.tags & np.uint8(~morph_table.APRO & 0xFF)
            drop |= by_pos[codes]
            if "NPRO" in dropped:
                drop |= (table.tags & np.uint8(morph_table.APRO)) != 0
    return _Static(
        True,
        rule_forms,
        table.buckets,
        table.bits,
        table.records,
        np.packbits(drop, bitorder="little"),
        table.lemma_offsets,
        table.lemma_bytes,
    )


class _Saver:
    """The forms a process predicted for one chain, written to its file of the disk cache
    every :data:`SAVE_EVERY` new forms and at the end."""

    def __init__(self, store: learned_cache.LearnedStore) -> None:
        self.store = store
        self.lock = threading.Lock()
        self.pending: list[learned_cache.LearnedForms] = []
        self.count = 0
        self.unsaved = 0

    def remember(self, forms: learned_cache.LearnedForms) -> None:
        with self.lock:
            if self.count >= learned_cache.MAX_DISK_FORMS:
                return
            self.pending.append(forms)
            self.count += len(forms)
            self.unsaved += len(forms)
            due = self.unsaved >= SAVE_EVERY
        if due:
            self.save()

    def save(self) -> None:
        with self.lock:
            if not self.unsaved:
                return
            merged = learned_cache.merge(self.pending, learned_cache.MAX_DISK_FORMS)
            self.pending = [merged]
            self.count = len(merged)
            self.unsaved = 0
            self.store.save(merged)

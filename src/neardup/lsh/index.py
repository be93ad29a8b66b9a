""":class:`LSHIndex`: a MinHash LSH index a program keeps — add, update, remove and query
documents by text, signature or stored key, in memory or in a SQLite or PostgreSQL store.

The web-articles compilation's snapy API (query, update, remove, contains, adjacency list, weighted
edge list) and what datasketch's ``MinHashLSH`` users expect (``insert``/``query`` by key, a
threshold, the false positive and negative weights that choose the bands), on neardup's own MinHash
(:class:`~neardup.sketch.MinHasher`) and band keys (:func:`~neardup.sketch.band_keys`), with
the bucket table, lookups and candidate counts in :mod:`neardup._kernels.lsh`.

Guide: docs/sketches.md ("LSHIndex").
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from typing import Any, NamedTuple, TypeAlias, cast

import numpy as np
import numpy.typing as npt

from neardup._arguments import public
from neardup.defaults import DEFAULTS
from neardup.errors import (
    DamagedCollectionError,
    DuplicateIdError,
    InputError,
    InvalidTextError,
    NeardupError,
    NotFoundError,
    NotSupportedError,
    SpecError,
    SpecMismatchError,
    WrongTypeError,
    brief,
)
from neardup.fingerprints.similarity import Fingerprints, resemblance
from neardup.lsh.params import RECALL_WEIGHTS, Params, estimate_floor, resolve
from neardup.lsh.store import Entry, LSHStore, NullStore, open_store
from neardup.lsh.table import Candidates, SlotTable
from neardup.sketch.minhash import MinHasher
from neardup.spec import SketchSpec, Spec

#: A document's key: a ``str`` or an ``int``.
Key: TypeAlias = str | int
Signatures = npt.NDArray[np.uint64] | npt.NDArray[np.uint32]
I64 = npt.NDArray[np.int64]


class _Ask(NamedTuple):
    """What a query asks beyond its items."""

    min_similarity: float | None
    min_bands: int
    limit: int | None


class LSHResult(NamedTuple):
    """One document a query found: its key (``id``) and its similarity to the query —
    estimated from the signatures (the share of equal minhashes), or the exact resemblance of
    the stored fingerprints when the index verifies."""

    id: Key
    similarity: float


#: ``LSHResult`` from an ``(id, similarity)`` pair, made in C (what ``LSHResult._make`` does
#: through a Python frame).
_new_result = partial(tuple.__new__, LSHResult)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _foreign_sketch(item: object) -> bool:
    """A MinHash object of another library (datasketch's ``MinHash``/``LeanMinHash``,
    rensa's): its values come from hash functions that neardup's signatures do not share."""
    module = type(item).__module__ or ""
    return module.split(".", 1)[0] in ("datasketch", "rensa")


def _refuse_foreign(item: object, num_perm: int) -> WrongTypeError:
    name = f"{type(item).__module__.split('.', 1)[0]}.{type(item).__name__}"
    return WrongTypeError(
        f"LSHIndex does not take a {name}: its minhashes come from that library's hash "
        "functions, which this index's band keys and estimates do not share. Give the "
        "document's text (the index signs it), its Fingerprints, or a neardup signature "
        "(neardup.MinHasher(spec).sign_texts([...]) or .sign_hashes([...]) for token hashes); "
        "to index that library's values alone, give its array (a datasketch MinHash's "
        "`.hashvalues`) to an index made with "
        f"spec=SketchSpec(num_perm={num_perm}) and give every item the same way"
    )


def _check_key(key: object) -> Key:
    if isinstance(key, np.integer):
        return int(key)
    if isinstance(key, bool) or not isinstance(key, str | int):
        raise InputError(f"a key must be a str or an int, got {type(key).__name__}: {key!r}")
    if isinstance(key, str) and ("\x00" in key or _SURROGATE.search(key)):
        # no store keeps them alike (UTF-8 cannot encode a lone surrogate; PostgreSQL refuses
        # NUL): refused on every store, rather than kept by one and refused by another
        raise InvalidTextError(
            f"a key must be valid Unicode without NUL or a lone surrogate, got {key[:80]!r}"
        )
    return key


def _add(seen: set[Key], key: Key) -> bool:
    seen.add(key)
    return False


def _encode(key: Key) -> str:
    return json.dumps(key, ensure_ascii=False)


def _decode(text: str) -> Key:
    value = json.loads(text)
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InputError(f"a stored key is neither a str nor an int: {text!r}")
    return value


def _entry(key: Key, signature: Signatures, fps: Fingerprints | None) -> Entry:
    if fps is None:
        return Entry(_encode(key), signature.tobytes())
    counts = None if fps.counts is None else fps.counts.tobytes()
    return Entry(_encode(key), signature.tobytes(), fps.values.tobytes(), counts)


@public
class LSHIndex:
    """MinHash LSH: documents in buckets by band keys, queried for near copies.

    ``threshold``: the resemblance the index finds: the bands are chosen for it (with
    ``weights`` = the false positive and false negative weights of
    :func:`~neardup.sketch.params.choose`, as datasketch's ``MinHashLSH``; by default
    :data:`~neardup.lsh.params.RECALL_WEIGHTS`, which weigh a missed document more, or, for a
    store that holds an index, the bands it was made with), and a
    query returns the candidates whose similarity is at least the threshold (less the
    estimate's margin, :func:`~neardup.lsh.params.estimate_floor`; the exact threshold under
    ``verify``) unless it is given ``min_similarity``. ``num_perm``: MinHash functions per
    signature. ``spec``: how texts are signed
    (:func:`~neardup.fingerprints.pipeline.default_spec` when ``None``; a
    :class:`~neardup.spec.SketchSpec` alone for an index of signatures only; bands and rows
    given in its sketch are used instead of the chooser's). ``store``: ``None`` (memory), a
    SQLite file name, a ``postgresql://`` URL or a store object (:mod:`neardup.lsh.store`);
    a store that holds an index must have been made with the same parameters. ``verify``: keep
    every document's fingerprints and report the exact resemblance instead of the estimate
    (documents are then added as texts or fingerprints, not signatures).

    Items (what is added or queried) are texts (``str``/``bytes``), signatures (``(num_perm,)``
    arrays of this spec's dtype) or :class:`~neardup.fingerprints.similarity.Fingerprints`.
    """

    def __init__(
        self,
        threshold: float = DEFAULTS.threshold,
        num_perm: int = 128,
        weights: tuple[float, float] | None = None,
        spec: Spec | SketchSpec | None = None,
        store: LSHStore | str | os.PathLike[str] | None = None,
        verify: bool = False,
    ) -> None:
        opened = open_store(store)
        if weights is None:
            # no weights asked: a store that holds an index keeps the banding it was made
            # with (an index made before the recall weights became the default still opens)
            spec = _stored_banding(spec, num_perm, opened)
        chosen = RECALL_WEIGHTS if weights is None else weights
        self._init(resolve(threshold, num_perm, chosen, spec, verify), opened)

    @classmethod
    def open(cls, store: LSHStore | str | os.PathLike[str]) -> LSHIndex:
        """Reopen a stored index with the parameters it was made with."""
        from neardup.lsh.params import Params as _Params

        opened = open_store(store)
        stored = opened.read_params()
        if not stored:
            opened.close()
            raise NotFoundError(f"no LSH index in {opened.location}")
        self = cls.__new__(cls)
        self._init(_Params.from_record(stored, opened.location), opened)
        return self

    def _init(self, params: Params, store: LSHStore) -> None:
        try:
            self._start(params, store)
        except NeardupError:
            raise
        except (ValueError, TypeError, KeyError, OverflowError, MemoryError) as exc:
            # read back from a store that is not what an LSHIndex wrote: a key that is not
            # JSON, a signature of text, parameters too large to lay out
            why = brief(f"{type(exc).__name__}: {exc}")
            raise DamagedCollectionError(
                f"the LSH store {store.location} is damaged ({why}); build the index again in "
                "a new store"
            ) from None

    def _start(self, params: Params, store: LSHStore) -> None:
        self.params = params
        self.store = store
        self.hasher = MinHasher(params.spec)
        self._dtype: type = self.hasher.dtype
        self._np_dtype = np.dtype(self._dtype)
        self._table = SlotTable(
            params.num_perm, params.bands, params.rows, params.sketch.seed, self._dtype
        )
        self._slot_of: dict[Key, int] = {}
        self._key_at: list[Key | None] = []
        self._fps: list[Fingerprints | None] = []
        self._pipeline: Any = None
        self._writes = not isinstance(store, NullStore)
        self._set_floor()
        stored = store.read_params()
        if stored:
            params.check_against(stored, store.location)
            self._load(store.load())
        else:
            store.write_params(params.record())

    def _set_floor(self) -> None:
        """The default floor of a query: the estimate's (a count of equal minhashes) and,
        under verification, the exact resemblance's."""
        params = self.params
        self._floor = estimate_floor(params.threshold, params.num_perm)
        self._floor_same = 1 if params.verify else self._table.min_same(self._floor)

    # --- pickling (datasketch's MinHashLSH pickles): an index in memory -------------------
    def __getstate__(self) -> dict[str, Any]:
        if self.store.kind not in ("none", "memory"):
            raise NotSupportedError(
                f"an LSH index kept in a {self.store.kind} store is not pickled: its store "
                f"keeps it; reopen it with LSHIndex.open({self.store.location!r})"
            )
        state = self.__dict__.copy()
        for name in ("hasher", "_dtype", "_np_dtype", "_pipeline"):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.hasher = MinHasher(self.params.spec)
        self._dtype = self.hasher.dtype
        self._np_dtype = np.dtype(self._dtype)
        self._pipeline = None

    # --- properties -----------------------------------------------------------------------
    @property
    def threshold(self) -> float:
        return self.params.threshold

    @property
    def num_perm(self) -> int:
        return self.params.num_perm

    @property
    def bands(self) -> int:
        return self.params.bands

    @property
    def rows(self) -> int:
        return self.params.rows

    @property
    def b(self) -> int:
        """The bands (datasketch's ``MinHashLSH.b``)."""
        return self.params.bands

    @property
    def r(self) -> int:
        """The rows of a band (datasketch's ``MinHashLSH.r``)."""
        return self.params.rows

    @property
    def h(self) -> int:
        """The MinHash functions (datasketch's ``MinHashLSH.h``)."""
        return self.params.num_perm

    def is_empty(self) -> bool:
        """Whether the index holds no document (datasketch's ``is_empty``)."""
        return not self._slot_of

    @property
    def verify(self) -> bool:
        return self.params.verify

    @property
    def spec(self) -> Spec | SketchSpec:
        return self.params.spec

    def __repr__(self) -> str:
        return (
            f"LSHIndex(threshold={self.threshold:g}, num_perm={self.num_perm}, "
            f"bands={self.bands}, rows={self.rows}, verify={self.verify}, "
            f"store={self.store.location!r}, documents={len(self)})"
        )

    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, np.integer):
            key = int(key)
        return not isinstance(key, bool) and isinstance(key, str | int) and key in self._slot_of

    def __iter__(self) -> Iterator[Key]:
        """The keys, in the order they were added (an updated key counts as added anew)."""
        return iter(self.keys())

    def keys(self) -> list[Key]:
        """The keys, in the order they were added (snapy's ``contains()``)."""
        return [k for k in self._key_at if k is not None]

    def signature(self, key: Key) -> Signatures:
        """Not kept: the index holds each document's band keys and the low 16 bits of its
        minhashes (what its estimate needs), a quarter of the signature's size. Keep the
        signatures apart (or in a store) when they are needed again."""
        self._slot(key)
        raise NotSupportedError(
            "an LSHIndex keeps band keys and 16 bits of each minhash, not the signatures: keep "
            "them apart (MinHasher(index.spec).sign_texts(...) makes them again from the texts)"
        )

    def close(self) -> None:
        """Close the store (the in-memory index stays readable)."""
        self.store.close()

    def __enter__(self) -> LSHIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- items ----------------------------------------------------------------------------
    def _slot(self, key: Key) -> int:
        slot = self._slot_of.get(_check_key(key))
        if slot is None:
            raise NotFoundError(f"key {key!r} is not in the index")
        return slot

    @property
    def pipeline(self) -> Any:
        if self._pipeline is None:
            self._pipeline = self.hasher.pipeline
        return self._pipeline

    def _signatures(self, items: Any, *, what: str) -> Signatures:
        """``(n, num_perm)`` signatures from a matrix or a list of signature rows."""
        try:
            arr = np.asarray(items)
        except (ValueError, OverflowError) as exc:
            raise InputError(f"{what} is not a signature or a list of them: {exc}") from None
        if arr.ndim == 1:
            arr = arr[None, :]
        if arr.ndim != 2 or arr.dtype.kind not in "ui":
            raise InputError(
                f"{what} must be texts or ({self.num_perm},) unsigned integer signatures, "
                f"got an array of shape {arr.shape} and dtype {arr.dtype}"
            )
        if arr.shape[1] != self.num_perm:
            raise SpecMismatchError(
                f"{what} has signatures of {arr.shape[1]} values; this index takes "
                f"{self.num_perm} (num_perm): they were made under another spec"
            )
        target = np.dtype(self._dtype)
        if arr.dtype != target:
            if arr.dtype.kind == "u" and arr.dtype.itemsize > target.itemsize:
                raise SpecMismatchError(
                    f"{what} has {arr.dtype} signatures; this index keeps {target} "
                    "(value_bits): they were made under another spec"
                )
            if arr.dtype.kind == "i" and (arr.size and int(arr.min()) < 0):
                raise InputError(f"{what} has negative minhashes")
            arr = arr.astype(target)
        return np.ascontiguousarray(arr)

    def _prepare(
        self, items: Any, *, what: str, want_fps: bool
    ) -> tuple[Signatures, list[Fingerprints] | None]:
        """Signatures (and under verification fingerprints) of a batch of items."""
        if isinstance(items, np.ndarray):
            if want_fps:
                raise self._no_fingerprints(what)
            return self._signatures(items, what=what), None
        if isinstance(items, str | bytes):
            raise InputError(f"{what} must be a list of items, not one {type(items).__name__}")
        if not isinstance(items, Iterable):
            raise WrongTypeError(f"{what} must be a list of items, got {type(items).__name__}")
        batch = list(items)
        if not batch:
            empty: Signatures = np.empty((0, self.num_perm), dtype=self._dtype)
            return empty, [] if want_fps else None
        if all(isinstance(x, str | bytes) for x in batch):
            if isinstance(self.spec, SketchSpec):
                raise SpecError(
                    "this index was made with a SketchSpec alone, so it takes signatures; "
                    "to add or query texts make it with a full Spec (or spec=None, the defaults)"
                )
            sigs = cast(Signatures, np.ascontiguousarray(self.hasher.sign_texts(batch)))
            fps = [self.pipeline.fingerprints(t) for t in batch] if want_fps else None
            return sigs, fps
        if all(isinstance(x, Fingerprints) for x in batch):
            sigs = cast(Signatures, np.ascontiguousarray(self.hasher.sign_many(batch)))
            return sigs, (batch if want_fps else None)
        if any(isinstance(x, str | bytes | Fingerprints) for x in batch):
            raise InputError(f"{what} mixes texts, fingerprints and signatures: give one kind")
        foreign = next((x for x in batch if _foreign_sketch(x)), None)
        if foreign is not None:
            raise _refuse_foreign(foreign, self.num_perm)
        if want_fps:
            raise self._no_fingerprints(what)
        return self._signatures(batch, what=what), None

    @staticmethod
    def _no_fingerprints(what: str) -> InputError:
        return InputError(
            f"{what}: this index verifies (verify=True) with each document's fingerprints; "
            "give texts or Fingerprints, not signatures"
        )

    # --- changes --------------------------------------------------------------------------
    def insert(self, key: Key, item: Any, check_duplication: bool = True) -> None:
        """datasketch's ``MinHashLSH.insert``: :meth:`add` (a key already there is always
        refused, so ``check_duplication`` changes nothing). ``item`` is a text, a neardup
        signature or fingerprints; a datasketch ``MinHash`` is refused with how to convert."""
        self.add_batch([key], [item])

    @contextmanager
    def insertion_session(self, buffer_size: int = 50_000) -> Iterator[_Session]:
        """datasketch's ``insertion_session``: ``session.insert(key, item)`` calls are added
        in batches of ``buffer_size`` (and the rest when the block ends)."""
        session = _Session(self, buffer_size)
        yield session
        session.flush()

    def add(self, key: Key, item: Any) -> None:
        """Add one document (a text, a signature or fingerprints) under a new key; a key
        already there raises :class:`~neardup.errors.DuplicateIdError` (use :meth:`update`)."""
        self.add_batch([key], [item])

    def add_batch(self, keys: Sequence[Key], items: Any) -> None:
        """Add documents: ``items`` is a list of texts (signed in one batch), of fingerprints,
        or of signatures, or an ``(n, num_perm)`` signature matrix. All or nothing: a key
        already there (or twice in ``keys``) refuses the whole batch."""
        keys = [_check_key(k) for k in keys]
        if len(set(keys)) != len(keys):
            seen: set[Key] = set()
            twice = next(k for k in keys if k in seen or _add(seen, k))
            raise DuplicateIdError(f"key {twice!r} is given twice in one batch")
        there = [k for k in keys if k in self._slot_of]
        if there:
            raise DuplicateIdError(
                f"key {there[0]!r} is already in the index: use update() to replace it"
            )
        self._put(keys, items, replace=False)

    def update(self, key: Key, item: Any) -> None:
        """Replace a stored document's content (its key must be there: a
        :class:`~neardup.errors.NotFoundError` otherwise)."""
        self.update_batch([key], [item])

    def update_batch(self, keys: Sequence[Key], items: Any) -> None:
        """Replace several stored documents in one go (all must be there)."""
        keys = [_check_key(k) for k in keys]
        if len(set(keys)) != len(keys):
            raise DuplicateIdError("a key is given twice in one batch")
        for k in keys:
            self._slot(k)
        self._put(keys, items, replace=True)

    def _put(self, keys: list[Key], items: Any, *, replace: bool) -> None:
        sigs, fps = self._prepare(items, what="the documents", want_fps=self.verify)
        if sigs.shape[0] != len(keys):
            raise InputError(f"{len(keys)} keys for {sigs.shape[0]} documents")
        if not keys:
            return
        if self._writes:
            self.store.put(
                [_entry(k, sigs[i], None if fps is None else fps[i]) for i, k in enumerate(keys)],
                replace=replace,
            )
        if replace:
            self._forget(keys)
        self._place(keys, sigs, fps)

    def _place(self, keys: list[Key], sigs: Signatures, fps: list[Fingerprints] | None) -> None:
        slots = self._table.add(sigs)
        self._slot_of.update(zip(keys, slots.tolist(), strict=True))
        self._key_at.extend(keys)
        self._fps.extend(fps if fps is not None else [None] * len(keys))

    def _forget(self, keys: list[Key]) -> None:
        slots = np.array([self._slot_of.pop(k) for k in keys], dtype=np.int64)
        self._table.kill(slots)
        for s in slots.tolist():
            self._key_at[s] = None
            self._fps[s] = None
        if self._table.needs_compaction():
            old = self._table.compact().tolist()
            self._key_at = [self._key_at[s] for s in old]
            self._fps = [self._fps[s] for s in old]
            self._slot_of = {k: i for i, k in enumerate(self._key_at) if k is not None}

    def remove(self, key: Key) -> None:
        """Forget a document; an unknown key raises :class:`~neardup.errors.NotFoundError`."""
        self.remove_batch([key])

    def remove_batch(self, keys: Sequence[Key]) -> None:
        """Forget documents (all or nothing: every key must be there)."""
        keys = [_check_key(k) for k in keys]
        for k in keys:
            self._slot(k)
        if len(set(keys)) != len(keys):
            raise InputError("a key is given twice in one batch")
        if keys:
            if self._writes:
                self.store.delete([_encode(k) for k in keys])
            self._forget(keys)

    def _load(self, entries: list[Entry]) -> None:
        if not entries:
            return
        width = self.num_perm * np.dtype(self._dtype).itemsize
        if any(len(e.signature) != width for e in entries):
            raise SpecMismatchError(
                f"the LSH store {self.store.location} holds signatures of another width"
            )
        sigs: Signatures = np.frombuffer(b"".join(e.signature for e in entries), dtype=self._dtype)
        fps: list[Fingerprints] | None = None
        if self.verify:
            fp_spec = self.hasher.fingerprint_spec
            fps = [
                Fingerprints(
                    np.frombuffer(e.values or b"", dtype=np.uint64).copy(),
                    None if e.counts is None else np.frombuffer(e.counts, np.int64).copy(),
                    fp_spec,
                )
                for e in entries
            ]
        self._place(
            [_decode(e.key) for e in entries], sigs.reshape(len(entries), self.num_perm), fps
        )

    # --- queries --------------------------------------------------------------------------
    def query(
        self,
        item: Any,
        *,
        min_similarity: float | None = None,
        min_bands: int = 1,
        limit: int | None = None,
    ) -> list[LSHResult]:
        """The documents sharing at least ``min_bands`` bands (snapy's "sensitivity") with
        ``item`` (a text, a signature or fingerprints), best first; ``min_similarity`` drops
        those below it, ``limit`` keeps the first ones."""
        if isinstance(item, np.ndarray):
            if item.ndim != 1:
                raise InputError(
                    f"query() takes one signature, got an array of shape {item.shape}: "
                    "use query_batch() for a matrix"
                )
            if (
                item.dtype == self._np_dtype
                and item.shape[0] == self.num_perm
                and limit is None
                and not self.verify
            ):
                # the common case, without the checks a batch of anything needs
                table = self._table
                codes = table.query_one(
                    item,
                    1 if min_bands == 1 else self._min_bands(min_bands),
                    self._floor_same if min_similarity is None else self._min_same(min_similarity),
                )
                if not codes:
                    return []
                slots, num, key_at = table.capacity, self.num_perm, self._key_at
                return [_new_result((key_at[c % slots], (num - c // slots) / num)) for c in codes]
        return self.query_batch(
            [item], min_similarity=min_similarity, min_bands=min_bands, limit=limit
        )[0]

    def query_key(
        self,
        key: Key,
        *,
        min_similarity: float | None = None,
        min_bands: int = 1,
        limit: int | None = None,
    ) -> list[LSHResult]:
        """The documents similar to a stored one (itself left out)."""
        ask = _Ask(min_similarity, min_bands, limit)
        return self._query_slots([self._slot(key)], ask)[0]

    def query_batch(
        self,
        items: Any,
        *,
        min_similarity: float | None = None,
        min_bands: int = 1,
        limit: int | None = None,
    ) -> list[list[LSHResult]]:
        """:meth:`query` for a batch (a list of items, or an ``(n, num_perm)`` matrix): one
        kernel call for the lookups, merges and counts of all of them."""
        ask = _Ask(min_similarity, min_bands, limit)
        if not isinstance(items, np.ndarray) and _foreign_sketch(items):
            raise _refuse_foreign(items, self.num_perm)
        sigs, fps = self._prepare(items, what="the queries", want_fps=self.verify)
        found = self._table.query(
            sigs, min_same=self._estimate_floor(ask), min_bands=self._min_bands(ask.min_bands)
        )
        return self._results(found, sigs.shape[0], fps, ask)

    def _query_slots(self, slots: Sequence[int], ask: _Ask) -> list[list[LSHResult]]:
        idx = np.asarray(slots, dtype=np.int64)
        found = self._table.query_slots(
            idx, min_same=self._estimate_floor(ask), min_bands=self._min_bands(ask.min_bands)
        )
        fps = [cast(Fingerprints, self._fps[s]) for s in slots] if self.verify else None
        return self._results(found, idx.shape[0], fps, ask)

    def _estimate_floor(self, ask: _Ask) -> int:
        """The fewest equal minhashes a candidate needs: the default floor's, or
        ``min_similarity``'s (none under verification: the exact value decides)."""
        if ask.min_similarity is None:
            return self._floor_same
        same = self._min_same(ask.min_similarity)  # checks it
        return 1 if self.verify else same

    def _min_same(self, min_similarity: float) -> int:
        if not 0.0 <= float(min_similarity) <= 1.0:
            raise InputError(f"min_similarity must be in [0, 1], got {min_similarity!r}")
        return self._table.min_same(float(min_similarity))

    def _min_bands(self, min_bands: int) -> int:
        if isinstance(min_bands, bool) or not isinstance(min_bands, int):
            raise InputError(f"min_bands must be an integer, got {min_bands!r}")
        if not 1 <= min_bands <= self.bands:
            raise InputError(f"min_bands must be in [1, {self.bands}], got {min_bands}")
        return min_bands

    def _results(
        self, found: Candidates, n: int, fps: list[Fingerprints] | None, ask: _Ask
    ) -> list[list[LSHResult]]:
        limit = ask.limit
        if limit is not None and (isinstance(limit, bool) or int(limit) < 0):
            raise InputError(f"limit must be a non-negative integer, got {limit!r}")
        key_at = cast(list[Key], self._key_at)  # the slots a query finds are live
        slots = found.slots.tolist()
        offsets = found.offsets.tolist()
        if fps is not None:
            out = [
                self._verified(slots[offsets[i] : offsets[i + 1]], fps[i], ask.min_similarity)
                for i in range(n)
            ]
        else:
            sims = found.similarities.tolist()
            keys = [key_at[s] for s in slots]
            # tuple.__new__ through partial: no Python frame per result
            results = list(map(_new_result, zip(keys, sims, strict=True)))
            out = [results[a:b] for a, b in zip(offsets, offsets[1:], strict=False)]
        if limit is not None:
            out = [rows[: int(limit)] for rows in out]
        return out

    def _verified(
        self, slots: list[int], query: Fingerprints, min_similarity: float | None
    ) -> list[LSHResult]:
        floor = self.threshold if min_similarity is None else float(min_similarity)
        scored = []
        for s in slots:
            stored = self._fps[s]
            assert stored is not None  # kept for every live slot under verification
            sim = resemblance(query, stored)
            if sim > 0.0 and sim >= floor:
                scored.append((-sim, s, sim))
        scored.sort()
        key_at = cast(list[Key], self._key_at)
        return [LSHResult(key_at[s], sim) for _, s, sim in scored]

    # --- the whole index ------------------------------------------------------------------
    def _all(self, ask: _Ask) -> tuple[list[int], list[list[LSHResult]]]:
        slots = [self._slot_of[k] for k in self.keys()]
        return slots, self._query_slots(slots, ask) if slots else []

    def adjacency_list(
        self, min_similarity: float | None = None, *, min_bands: int = 1
    ) -> dict[Key, list[Key]]:
        """Every key with the keys of its candidates (best first), as snapy's
        ``adjacency_list``; a key with none maps to ``[]``."""
        slots, found = self._all(_Ask(min_similarity, min_bands, None))
        key_at = cast(list[Key], self._key_at)
        return {key_at[s]: [r.id for r in rows] for s, rows in zip(slots, found, strict=True)}

    def edge_list(
        self, min_similarity: float | None = None, *, weighted: bool = True, min_bands: int = 1
    ) -> list[tuple[Key, Key, float]] | list[tuple[Key, Key]]:
        """Every similar pair once, ``(earlier key, later key, similarity)`` (or without the
        similarity when not ``weighted``), best first, then in the order the keys were added."""
        slots, found = self._all(_Ask(min_similarity, min_bands, None))
        edges: list[tuple[float, int, int, float]] = []
        for s, rows in zip(slots, found, strict=True):
            for r in rows:
                t = self._slot_of[r.id]
                if s < t:
                    edges.append((-r.similarity, s, t, r.similarity))
        edges.sort()
        key_at = cast(list[Key], self._key_at)
        if weighted:
            return [(key_at[s], key_at[t], sim) for _, s, t, sim in edges]
        return [(key_at[s], key_at[t]) for _, s, t, _ in edges]


class _Session:
    """What :meth:`LSHIndex.insertion_session` yields: inserts kept and added in batches."""

    def __init__(self, index: LSHIndex, buffer_size: int) -> None:
        if isinstance(buffer_size, bool) or not isinstance(buffer_size, int) or buffer_size < 1:
            raise InputError(f"buffer_size must be a positive integer, got {buffer_size!r}")
        self.index = index
        self.buffer_size = buffer_size
        self.keys: list[Key] = []
        self.items: list[Any] = []

    def insert(self, key: Key, item: Any, check_duplication: bool = True) -> None:
        self.keys.append(key)
        self.items.append(item)
        if len(self.keys) >= self.buffer_size:
            self.flush()

    def flush(self) -> None:
        keys, items = self.keys, self.items
        self.keys, self.items = [], []
        if keys:
            self.index.add_batch(keys, items)


def _stored_banding(
    spec: Spec | SketchSpec | None, num_perm: int, store: LSHStore
) -> Spec | SketchSpec | None:
    """``spec`` with the bands and rows of the index ``store`` holds, when it holds one and
    ``spec`` names no bands of its own; otherwise ``spec`` as it is."""
    sketch = spec if isinstance(spec, SketchSpec) else spec.sketch if spec is not None else None
    if sketch is not None and sketch.bands:
        return spec
    try:
        stored = store.read_params()
        bands, rows = int(stored["bands"]), int(stored["rows"])
    except (KeyError, TypeError, ValueError):
        return spec
    if bands * rows > num_perm or bands < 1 or rows < 1:
        return spec
    if spec is None:
        from neardup.fingerprints.pipeline import default_spec

        spec = default_spec()
    base = spec if isinstance(spec, SketchSpec) else spec.sketch or SketchSpec(num_perm=num_perm)
    banded = replace(base, bands=bands, rows=rows)
    return banded if isinstance(spec, SketchSpec) else spec.replace(sketch=banded)

"""MinHash signatures: N seeded functions over a document's fingerprints, the minimum of each.

For two fingerprint sets A and B and one random function h, ``P(min h(A) = min h(B)) =
|A ∩ B| / |A ∪ B|`` (Broder; the shingle-method paper, formula 9). N functions give N such coin
flips, so the share of equal positions is an unbiased estimate of the resemblance with standard
deviation ``sqrt(s(1 - s) / N)``. The function family and the empty-set rule are in
docs/sketches.md.

The public class is :class:`MinHasher`: ``sign`` (one fingerprint set), ``sign_many`` (a list,
packed into one flat array for ONE kernel call), ``sign_texts`` (raw texts through the
:class:`~neardup.fingerprints.pipeline.Pipeline`), ``estimate`` / ``estimate_many``. Signatures are
``(N,)`` or ``(n, N)`` arrays of ``uint64`` (``uint32`` under ``value_bits=32``: the top half
of each 64-bit value).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._arguments import public
from neardup._constraints import Real, check, constraint_of
from neardup._kernels import minhash as kernels
from neardup.analysis.analyzer import BatchPlan, Canonical, route_batch
from neardup.analysis.tricks import NONE as NO_TRICKS
from neardup.analysis.tricks import Tricks
from neardup.errors import InputError, SpecError, SpecMismatchError, WrongTypeError
from neardup.fingerprints.hashing import RabinTables, splitmix64
from neardup.fingerprints.similarity import Fingerprints
from neardup.spec import SketchSpec, Spec

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
SignatureArray = npt.NDArray[np.uint64] | npt.NDArray[np.uint32]

GAMMA = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1


@lru_cache(maxsize=64)
def _function_seeds(seed: int, count: int) -> U64:
    out = np.array([splitmix64((seed + i * GAMMA) & MASK64) for i in range(count)], dtype=np.uint64)
    out.setflags(write=False)
    return out


def function_seeds(seed: int, count: int) -> U64:
    """``s_0 … s_{count-1}``: the outputs of a SplitMix64 generator seeded with ``seed``
    (``s_i = splitmix64(seed + i·γ)``). MinHash function ``i`` is ``splitmix64(x ^ s_i)``."""
    return _function_seeds(int(seed), int(count))


MERSENNE61 = (1 << 61) - 1


@lru_cache(maxsize=64)
def _affine_coefficients(seed: int, count: int) -> tuple[U64, U64]:
    stream = [splitmix64((seed + j * GAMMA) & MASK64) for j in range(2 * count)]
    mult = np.array([1 + stream[2 * i] % (MERSENNE61 - 1) for i in range(count)], np.uint64)
    add = np.array([stream[2 * i + 1] % MERSENNE61 for i in range(count)], np.uint64)
    mult.setflags(write=False)
    add.setflags(write=False)
    return mult, add


def affine_coefficients(seed: int, count: int) -> tuple[U64, U64]:
    """``(a, b)`` of the affine family: with ``t_j = splitmix64(seed + j·γ)`` (the same
    generator as :func:`function_seeds`), ``a_i = 1 + t_{2i} mod (p - 1)`` and ``b_i = t_{2i+1}
    mod p``, ``p = 2^61 - 1``; function ``i`` is ``(a_i·(x mod p) + b_i) mod p``. The first
    ``N`` functions of a seed are the same whatever ``N`` is."""
    return _affine_coefficients(int(seed), int(count))


def affine_reference(x: int, a: int, b: int) -> int:
    """One function of the affine family in plain Python integers (the definition)."""
    return (a * (x % MERSENNE61) + b) % MERSENNE61


def _shift(family: str, value_bits: int) -> int:
    """How far a 64-bit signature value is shifted right to keep ``value_bits``: the top bits
    of the value (64 wide under ``splitmix``, 61 under ``affine``, which 64 bits keep whole)."""
    return max(0, (61 if family == "affine" else 64) - value_bits)


#: One permutation hashing with optimal densification, version 1 (see
#: :func:`neardup._kernels.minhash.densify`): one hash per element, whatever ``num_perm``.
OPH = "oph1"
#: The :func:`purpose_seed` tags of its element hash and its densification probes.
OPH_HASH_TAG = 5
OPH_DENSIFY_TAG = 6


@lru_cache(maxsize=64)
def _oph_seeds(seed: int) -> U64:
    out = np.array(
        [purpose_seed(seed, OPH_HASH_TAG), purpose_seed(seed, OPH_DENSIFY_TAG)], dtype=np.uint64
    )
    out.setflags(write=False)
    return out


def oph_seeds(seed: int) -> U64:
    """``[element hash seed, densification seed]`` of the ``oph1`` family."""
    return _oph_seeds(int(seed))


def _oph_bin(h: int, bins: int) -> int:
    return (h * bins) >> 64


def oph_reference(items: Sequence[int], num_perm: int, seed: int = 0) -> list[int]:
    """An ``oph1`` sketch in plain Python (the definition the kernels meet): bin ``⌊h·N/2^64⌋``
    of ``h = splitmix64(x ^ s_hash)`` keeps its least ``h``; an empty bin ``i`` takes the value
    of bin ``⌊g·N/2^64⌋``, ``g = splitmix64(s_densify ^ splitmix64(i·2^32 + t))``, for the
    first ``t = 0, 1, …`` that names a non-empty bin."""
    hash_seed, densify_seed = (int(v) for v in oph_seeds(seed))
    bins: list[int | None] = [None] * num_perm
    for x in items:
        h = splitmix64(x ^ hash_seed)
        b = _oph_bin(h, num_perm)
        current = bins[b]
        if current is None or h < current:
            bins[b] = h
    if all(v is None for v in bins):
        return [empty_value(64)] * num_perm
    out = []
    for i, v in enumerate(bins):
        attempt = 0
        while v is None:
            g = splitmix64(densify_seed ^ splitmix64(((i << 32) | attempt) & MASK64))
            v = bins[_oph_bin(g, num_perm)]
            attempt += 1
        out.append(v)
    return out


def purpose_seed(seed: int, tag: int) -> int:
    """A seed for one use of the sketch seed (band keys, megashingles, sampling), independent
    of the MinHash functions: ``splitmix64(seed ^ splitmix64(tag))``."""
    return splitmix64((seed ^ splitmix64(tag)) & MASK64)


def empty_value(value_bits: int) -> int:
    """The value every position of an empty set's signature holds: all ones."""
    return (1 << value_bits) - 1


def reference_signature(
    values: Iterable[int],
    num_perm: int,
    seed: int = 0,
    value_bits: int = 64,
    family: str = "splitmix",
) -> list[int]:
    """The MinHash signature of a set of fingerprints in plain Python: the definition the
    kernel meets (slow; for tests and for reimplementations in other languages)."""
    items = list(values)
    shift = _shift(family, value_bits)
    if not items:
        return [empty_value(value_bits)] * num_perm
    if family == OPH:
        values64 = oph_reference(items, num_perm, seed)
        return [min(v >> shift, empty_value(value_bits)) for v in values64]
    if family == "affine":
        mult, add = affine_coefficients(seed, num_perm)
        return [
            min(affine_reference(x, int(a), int(b)) for x in items) >> shift
            for a, b in zip(mult.tolist(), add.tolist(), strict=True)
        ]
    seeds = [splitmix64((seed + i * GAMMA) & MASK64) for i in range(num_perm)]
    return [min(splitmix64(x ^ s) for x in items) >> shift for s in seeds]


def pack(
    arrays: Sequence[npt.NDArray[Any]], dtype: type = np.uint64
) -> tuple[npt.NDArray[Any], I64]:
    """Concatenate 1-d arrays into one flat array and ``offsets`` (length ``len(arrays) + 1``)."""
    lengths = np.fromiter((a.shape[0] for a in arrays), dtype=np.int64, count=len(arrays))
    offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    flat: npt.NDArray[Any] = (
        np.concatenate(arrays).astype(dtype, copy=False) if arrays else np.zeros(0, dtype=dtype)
    )
    return flat, offsets


@dataclass(frozen=True)
class _SignPlan:
    """The constant arguments of :func:`~neardup._kernels.sign_batch.sign_rabin_words`."""

    #: The chains' batch plans by language (:meth:`~neardup.analysis.analyzer.Analyzer.
    #: batch_plans`; one, or one per language under ``auto``).
    plans: tuple[tuple[str, BatchPlan], ...]
    rabin: RabinTables
    k: int
    step: int
    seeds: U64
    mult: U64
    oph: U64

    def signing_args(self) -> tuple[Any, ...]:
        """The shingling, fingerprint and MinHash arguments, before ``out``."""
        r = self.rabin
        return (
            self.k,
            self.step,
            r.table,
            r.power,
            r.space_power,
            r.bits,
            r.c,
            self.seeds,
            self.mult,
            self.oph,
        )


def _as_array(value: Any, name: str) -> npt.NDArray[Any]:
    try:
        return np.asarray(value)
    except (ValueError, OverflowError) as exc:
        raise InputError(f"{name} is not an array of minhashes: {exc}") from None


def _as_list(items: Iterable[Any]) -> list[Any]:
    """A batch as a list; a lone ``str`` or ``bytes`` is refused rather than taken as a batch
    of its characters."""
    if isinstance(items, str | bytes):
        raise WrongTypeError(
            f"expected a list of texts or fingerprints, got one {type(items).__name__}"
        )
    return list(items)


def _sketch_spec(spec: Spec | SketchSpec | None) -> tuple[Spec | None, SketchSpec]:
    if spec is None:
        return None, SketchSpec()
    if isinstance(spec, SketchSpec):
        return None, spec
    if isinstance(spec, Spec):
        sketch = spec.sketch if spec.sketch is not None else SketchSpec()
        return spec.replace(sketch=sketch), sketch
    raise WrongTypeError(f"expected a Spec or a SketchSpec, got {type(spec).__name__}")


@public
class MinHasher:
    """Signs fingerprint sets (or texts) with N seeded functions under one spec.

    ``spec``: a full :class:`~neardup.spec.Spec` (needed for ``sign_texts``; a missing
    ``sketch`` part means the default ``SketchSpec()``), or just a
    :class:`~neardup.spec.SketchSpec` to sign fingerprints made elsewhere.
    """

    def __init__(self, spec: Spec | SketchSpec | None = None) -> None:
        self.spec, self.sketch = _sketch_spec(spec)
        if self.sketch.method != "minhash":
            raise SpecError(f"MinHasher signs with method 'minhash', not {self.sketch.method!r}")
        self.num_perm = self.sketch.num_perm
        self.value_bits = self.sketch.value_bits
        self.dtype: type = np.uint64 if self.value_bits == 64 else np.uint32
        self.empty = empty_value(self.value_bits)
        self.family = self.sketch.family
        if self.family == "affine":
            #: ``seeds`` holds the ``b_i`` and ``mult`` the ``a_i`` under the affine family;
            #: ``mult`` is empty under splitmix (the kernels branch on that).
            self.mult, self.seeds = affine_coefficients(self.sketch.seed, self.num_perm)
        else:
            self.seeds = function_seeds(self.sketch.seed, self.num_perm)
            self.mult = np.zeros(0, dtype=np.uint64)
        #: The element hash and densification seeds under ``oph1`` (empty otherwise: the
        #: kernels branch on that; ``seeds`` then only sizes the signature).
        self.oph = oph_seeds(self.sketch.seed) if self.family == OPH else np.zeros(0, np.uint64)
        self._shift = np.uint64(_shift(self.family, self.value_bits))
        self._pipeline: Any = None
        self._plan: _SignPlan | None | bool = False  # False: not built yet
        #: Fingerprint spec that inputs must carry (the spec without its sketch part).
        self.fingerprint_spec = self.spec.replace(sketch=None).fingerprint() if self.spec else ""
        #: The spec fingerprint stored with signatures (includes the sketch part).
        self.spec_fingerprint = self.spec.fingerprint() if self.spec else ""

    def __repr__(self) -> str:
        return (
            f"MinHasher(num_perm={self.num_perm}, seed={self.sketch.seed}, "
            f"value_bits={self.value_bits}, family={self.family!r})"
        )

    @property
    def pipeline(self) -> Any:
        """The :class:`~neardup.fingerprints.pipeline.Pipeline` of the spec (without its sketch
        part)."""
        if self._pipeline is None:
            if self.spec is None:
                raise SpecError(
                    "signing texts needs a full Spec (analyzer, shingles, fingerprints)"
                )
            from neardup.fingerprints.pipeline import Pipeline

            self._pipeline = Pipeline(self.spec.replace(sketch=None))
        return self._pipeline

    # --- signing ---------------------------------------------------------------------------

    def _check_fingerprints(self, fps: Fingerprints) -> None:
        if (
            self.fingerprint_spec
            and fps.spec_fingerprint
            and fps.spec_fingerprint != self.fingerprint_spec
        ):
            raise SpecMismatchError(
                f"fingerprints made under spec {fps.spec_fingerprint} cannot be signed under spec "
                f"{self.fingerprint_spec}: make them with this MinHasher's pipeline"
            )

    def _finish(self, sig64: U64) -> SignatureArray:
        if self.value_bits == 64:
            return sig64
        # the top 32 bits of the value; an empty set's all-ones stays all ones
        return np.minimum(sig64 >> self._shift, np.uint64(0xFFFFFFFF)).astype(np.uint32)

    def _flat(self, flat: U64, offsets: I64) -> U64:
        """64-bit signatures of packed sets under the family: ONE kernel call."""
        if self.family == OPH:
            return kernels.minhash_flat_oph(flat, offsets, self.num_perm, self.oph)
        if self.family == "affine":
            return kernels.minhash_flat_affine(flat, offsets, self.mult, self.seeds)
        return kernels.minhash_flat(flat, offsets, self.seeds)

    def _flat_multiset(self, flat: U64, counts: I64, offsets: I64) -> U64:
        """64-bit signatures of packed multisets under the family: ONE kernel call."""
        if self.family == OPH:
            return kernels.minhash_flat_multiset_oph(flat, counts, offsets, self.num_perm, self.oph)
        if self.family == "affine":
            return kernels.minhash_flat_multiset_affine(
                flat, counts, offsets, self.mult, self.seeds
            )
        return kernels.minhash_flat_multiset(flat, counts, offsets, self.seeds)

    def sign_hashes(self, hashes: Sequence[U64]) -> SignatureArray:
        """``(n, N)`` signatures of raw ``uint64`` hash arrays (repeats allowed): ONE kernel
        call."""
        if isinstance(hashes, np.ndarray) or not all(
            isinstance(h, np.ndarray) and h.ndim == 1 for h in hashes
        ):
            raise WrongTypeError("hashes must be a list of 1-d arrays of hash values")
        flat, offsets = pack(hashes)
        return self._finish(self._flat(flat, offsets))

    def sign_many(self, items: Sequence[Fingerprints] | Sequence[str]) -> SignatureArray:
        """``(n, N)`` signatures of fingerprint sets (or of texts, as :meth:`sign_texts`)."""
        items = _as_list(items)
        if items and not isinstance(items[0], Fingerprints):
            return self.sign_texts(items)
        fps: list[Fingerprints] = items
        for fp in fps:
            self._check_fingerprints(fp)
        if any(fp.counts is not None for fp in fps):
            if not all(fp.counts is not None for fp in fps):
                raise SpecMismatchError("cannot sign sets and multisets in one batch")
            flat, offsets = pack([fp.values for fp in fps])
            counts, _ = pack([fp.counts for fp in fps], np.int64)  # type: ignore[misc]
            return self._finish(self._flat_multiset(flat, counts, offsets))
        return self.sign_hashes([fp.values for fp in fps])

    def sign(self, fps: Fingerprints) -> SignatureArray:
        """The ``(N,)`` signature of one fingerprint set."""
        return self.sign_many([fps])[0]

    def sign_texts(self, texts: Iterable[str | bytes]) -> SignatureArray:
        """``(n, N)`` signatures of raw texts: the pipeline's shingle hashes of every text,
        then ONE kernel call for the batch (sets need no sort or dedup: the minimum ignores
        repeats; multiset specs go through the fingerprint counts).

        Under a spec the fused analyzer path can run (chains of only fusable char filters,
        token filters only if compiled into tables, word shingles, ``rabin`` sets), the batch
        goes through :func:`~neardup._kernels.sign_batch.sign_rabin_words` (no token filters)
        or :func:`~neardup._kernels.sign_batch.sign_filtered_words`: one nogil call from raw
        code points to signatures (two when the batch holds forms no table knows: they are
        learned in between); under a chain per language (``auto``) one call per chain, each
        for the texts :func:`~neardup.analysis.analyzer.route_batch` gives it. The documents
        it cannot take (HTML, a character the fused table marks, bytes) are signed here one by
        one, as before; the values are the same."""
        return self.sign_texts_and_tricks(texts)[0]

    def sign_texts_and_tricks(
        self, texts: Iterable[str | bytes]
    ) -> tuple[SignatureArray, list[Tricks]]:
        """:meth:`sign_texts`, and what the ``fold`` filter undid in each text
        (:attr:`Canonical.tricks <neardup.analysis.analyzer.Canonical.tricks>`) from the same
        analysis: a text the batch kernel signed is one the filter's scan found clean, so it
        has none; the others were analysed one by one and their tricks recorded."""
        texts = _as_list(texts)
        found = [NO_TRICKS] * len(texts)
        plan = self._batch_plan()
        if plan is not None and texts:
            return self._finish(self._sign_texts_batch(texts, plan, found)), found
        return self._finish(self._sign_texts_each(texts, found)), found

    def _sign_texts_each(
        self,
        texts: Sequence[str | bytes],
        found: list[Tricks] | None = None,
        fast_failed: bool = False,
    ) -> U64:
        """The per-document path: 64-bit signatures (before :meth:`_finish`); each text's
        tricks into ``found`` (the same length as ``texts``) when given; ``fast_failed``: the
        texts a batch kernel could not take (:meth:`Analyzer.canonical
        <neardup.analysis.analyzer.Analyzer.canonical>`)."""
        pipeline = self.pipeline

        def analysed(t: str | bytes, d: int) -> Canonical:
            if fast_failed and isinstance(t, str):
                canonical = pipeline.analyzer.canonical(t, fast_failed=True)
            else:
                canonical = pipeline.canonical(t)
            if found is not None:
                found[d] = canonical.tricks
            return canonical

        if pipeline.spec.fingerprint_family.multiset:
            fps = [pipeline.fingerprints_of(analysed(t, d)) for d, t in enumerate(texts)]
            flat, offsets = pack([fp.values for fp in fps])
            counts, _ = pack([fp.counts for fp in fps], np.int64)
            return self._flat_multiset(flat, counts, offsets)
        from neardup.fingerprints.shingles import shingle_hashes

        spec, family = pipeline.spec.shingles, pipeline.family
        flat, offsets = pack(
            [shingle_hashes(analysed(t, d), spec, family) for d, t in enumerate(texts)]
        )
        return self._flat(flat, offsets)

    @property
    def signs_in_batches(self) -> bool:
        """Whether texts are signed by ``nogil`` kernel calls per batch (the ``plain``-like
        chains, and those whose token filters are compiled, such as ``ru``, ``en`` and
        ``auto``'s two, with Rabin–Karp word shingles): threads then scale across cores."""
        return self._batch_plan() is not None

    def _batch_plan(self) -> _SignPlan | None:
        """What the batch kernel needs under this spec, or ``None`` when the spec cannot take
        it (built once): the analyzer's :class:`~neardup.analysis.analyzer.BatchPlan`, the
        Rabin–Karp tables, the shingling and the MinHash seeds."""
        if self._plan is not False:
            return self._plan  # type: ignore[return-value]
        # built whole, then stored once: threads share a hasher (sketch.parallel)
        plan = self._build_plan()
        self._plan = plan
        return plan

    def _build_plan(self) -> _SignPlan | None:
        pipeline = self.pipeline
        spec = pipeline.spec
        if spec.fingerprint_family.multiset or spec.shingles.unit != "word":
            return None
        rabin = pipeline.family.rabin_tables
        plans = pipeline.analyzer.batch_plans()
        if rabin is None or plans is None:
            return None
        return _SignPlan(
            plans, rabin, spec.shingles.k, spec.shingles.step, self.seeds, self.mult, self.oph
        )

    def _sign_texts_batch(
        self, texts: list[str | bytes], plan: _SignPlan, found: list[Tricks]
    ) -> U64:
        n = len(texts)
        cps, doc_offsets, groups = route_batch(plan.plans, texts)
        out = np.empty((n, self.num_perm), dtype=np.uint64)
        done = np.zeros(n, dtype=np.bool_)
        for chain, todo in groups:
            if chain.compiled is None:
                from neardup._kernels.sign_batch import sign_rabin_words

                done |= sign_rabin_words(
                    cps, doc_offsets, todo, *chain.kernel_args(), *plan.signing_args(), out
                )
            else:
                done |= self._sign_filtered_batch(cps, doc_offsets, todo, plan, chain, out)
        rest = np.flatnonzero(~done).tolist()
        if rest:
            found_rest = [NO_TRICKS] * len(rest)
            out[rest] = self._sign_texts_each(
                [texts[d] for d in rest], found_rest, fast_failed=True
            )
            for d, tricks in zip(rest, found_rest, strict=True):
                found[d] = tricks
        return out

    @staticmethod
    def _sign_filtered_batch(
        cps: npt.NDArray[np.uint32],
        doc_offsets: I64,
        todo: npt.NDArray[np.bool_],
        plan: _SignPlan,
        chain: BatchPlan,
        out: U64,
    ) -> npt.NDArray[np.bool_]:
        """:func:`~neardup._kernels.sign_batch.sign_filtered_words` until every document is
        signed or sent to the general path: the forms no table knows, of the whole batch, are
        learned in one call of the filters between two kernel calls (the second signs only the
        documents that waited for them). Returns which documents are signed."""
        from neardup._kernels import sign_batch

        def call(tables: tuple[Any, ...], todo: npt.NDArray[np.bool_]) -> Any:
            return sign_batch.sign_filtered_words(
                cps, doc_offsets, todo, *chain.kernel_args(), *tables, *plan.signing_args(), out
            )

        compiled = chain.compiled
        assert compiled is not None  # the caller's choice of this path
        done = np.zeros(todo.shape[0], dtype=np.bool_)
        for status in compiled.until_known(todo, call):
            done |= status == sign_batch.SIGNED
        return done

    # --- estimates -------------------------------------------------------------------------

    def _as_rows(self, sig: SignatureArray, name: str) -> SignatureArray:
        arr = _as_array(sig, name)
        if arr.ndim == 1:
            arr = arr[None, :]
        if arr.ndim != 2 or arr.shape[1] != self.num_perm or arr.dtype != self.dtype:
            raise SpecMismatchError(
                f"{name} has shape {arr.shape} and dtype {arr.dtype}, but this spec "
                f"makes {self.num_perm} values of {np.dtype(self.dtype).name}: it was made under "
                "another spec"
            )
        return arr

    def estimate(self, a: SignatureArray, b: SignatureArray) -> float:
        """Estimated resemblance of two signatures: the share of equal positions (0.0 when
        either is the signature of an empty set)."""
        return float(self.estimate_many(a, b)[0])

    def estimate_many(self, a: SignatureArray, b: SignatureArray) -> npt.NDArray[np.float64]:
        """Row-by-row estimates of ``(n, N)`` against ``(n, N)``, or against one ``(N,)``."""
        rows_a = self._as_rows(a, "the first signature")
        rows_b = self._as_rows(b, "the second signature")
        if rows_b.shape[0] not in (1, rows_a.shape[0]):
            raise InputError(f"cannot pair {rows_a.shape[0]} signatures with {rows_b.shape[0]}")
        return kernels.equal_share(rows_a, rows_b, self.dtype(self.empty))


def estimate(a: SignatureArray, b: SignatureArray) -> float:
    """Estimated resemblance of two signatures of the same spec (shape and dtype must agree)."""
    a = _as_array(a, "the first signature")
    b = _as_array(b, "the second signature")
    if (
        a.shape != b.shape
        or a.dtype != b.dtype
        or a.ndim != 1
        or a.dtype not in (np.dtype(np.uint32), np.dtype(np.uint64))
    ):
        raise SpecMismatchError(
            f"signatures of shape {a.shape} {a.dtype} and {b.shape} {b.dtype} were made under "
            "different specs"
        )
    empty = np.iinfo(a.dtype).max
    return float(kernels.equal_share(a[None, :], b[None, :], a.dtype.type(empty))[0])


def standard_error(resemblance: float, num_perm: int) -> float:
    """The standard deviation of the MinHash estimate: ``sqrt(s (1 - s) / N)``."""
    check("resemblance", resemblance, Real(0.0, 1.0), InputError)
    check("num_perm", num_perm, constraint_of(SketchSpec, "num_perm"), InputError)
    return float(np.sqrt(resemblance * (1.0 - resemblance) / num_perm))

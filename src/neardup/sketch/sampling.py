"""Broder's samples of a fingerprint set: mod-m (the web-articles compilation: "keep the checksums
divisible by a number") and bottom-k (the k smallest), with their estimators.

Both select on a REMIXED value ``g(x) = splitmix64(x ^ key_seed)``, not on the fingerprint
itself: Rabin–Karp and CRC values have structured low bits (a CRC is linear, a Rabin value of
a short shingle is small), so ``x mod m == 0`` would keep a biased share of shingles. ``g`` is a
bijection with full avalanche, so ``g(x) mod m == 0`` keeps each distinct shingle with
probability 1/m independently of its text.

* mod-m: ``S(A) = {x ∈ A : g(x) ≡ 0 (mod m)}`` — its size grows with the document (≈ |A|/m).
  ``|S(A) ∩ S(B)|`` is a uniform 1/m sample of ``A ∩ B``, so resemblance
  ``|S(A)∩S(B)| / |S(A)∪S(B)|`` AND containment ``|S(A)∩S(B)| / |S(A)|`` are estimated.
* bottom-k: ``B(A)`` = the k smallest ``g(x)`` — fixed size. Resemblance is estimated from the
  k smallest of ``B(A) ∪ B(B)``: the share of them present in both. Containment is not a
  property of bottom-k samples (Broder); :meth:`BottomK.containment` derives it from the
  resemblance and the stored set sizes: ``|A∩B| ≈ J (|A| + |B|) / (1 + J)``.

Empty samples follow the core rule: no evidence of likeness, every estimate 0.0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from neardup._kernels import minhash as kernels
from neardup._kernels import setops
from neardup.errors import SpecError, SpecMismatchError
from neardup.fingerprints.similarity import Fingerprints
from neardup.sketch.minhash import pack, purpose_seed
from neardup.spec import SketchSpec

U64 = npt.NDArray[np.uint64]

#: Tags for :func:`~neardup.sketch.minhash.purpose_seed`.
MOD_M_TAG = 3
BOTTOM_K_TAG = 4


@dataclass(frozen=True)
class ModSample:
    """A mod-m sample: the kept fingerprints (sorted) and the size of the full set."""

    values: U64
    size: int
    modulus: int
    seed: int

    def __len__(self) -> int:
        return int(self.values.shape[0])


@dataclass(frozen=True)
class BottomKSample:
    """A bottom-k sample: the ≤ k smallest remixed keys (ascending) and the full set size."""

    keys: U64
    size: int
    k: int
    seed: int

    def __len__(self) -> int:
        return int(self.keys.shape[0])


def _check(a: ModSample | BottomKSample, b: ModSample | BottomKSample, kind: type) -> None:
    if not isinstance(a, kind) or not isinstance(b, kind):
        raise SpecMismatchError(
            f"this sampler compares {kind.__name__}s, got a {type(a).__name__} and a "
            f"{type(b).__name__}"
        )
    if (
        isinstance(a, ModSample)
        and isinstance(b, ModSample)
        and (a.modulus, a.seed) != (b.modulus, b.seed)
    ):
        raise SpecMismatchError(
            f"mod-m samples of m={a.modulus}, seed={a.seed} and m={b.modulus}, seed={b.seed} "
            "cannot be compared"
        )
    if (
        isinstance(a, BottomKSample)
        and isinstance(b, BottomKSample)
        and (a.k, a.seed) != (b.k, b.seed)
    ):
        raise SpecMismatchError(
            f"bottom-k samples of k={a.k}, seed={a.seed} and k={b.k}, seed={b.seed} cannot be "
            "compared"
        )


class ModM:
    """Mod-m sampling under a sketch spec (``method="mod_m"``, ``modulus``, ``seed``)."""

    def __init__(
        self, spec: SketchSpec | None = None, *, modulus: int | None = None, seed: int = 0
    ) -> None:
        if spec is None:
            spec = SketchSpec(method="mod_m", modulus=modulus or 1, seed=seed)
        if spec.method != "mod_m":
            raise SpecError(f"ModM samples with method 'mod_m', not {spec.method!r}")
        self.spec = spec
        self.modulus = spec.modulus
        self.seed = spec.seed
        self._key_seed = np.uint64(purpose_seed(spec.seed, MOD_M_TAG))

    def sample_many(self, fps: Sequence[Fingerprints]) -> list[ModSample]:
        """Samples of a batch of fingerprint sets: ONE kernel call."""
        flat, offsets = pack([fp.values for fp in fps])
        kept, out_offsets = kernels.mod_sample_flat(
            flat, offsets, np.uint64(self.modulus), self._key_seed
        )
        return [
            ModSample(kept[out_offsets[i] : out_offsets[i + 1]], len(fp), self.modulus, self.seed)
            for i, fp in enumerate(fps)
        ]

    def sample(self, fps: Fingerprints) -> ModSample:
        return self.sample_many([fps])[0]

    @staticmethod
    def _counts(a: ModSample, b: ModSample) -> tuple[int, int, int]:
        _check(a, b, ModSample)
        shared = int(setops.intersection_size(a.values, b.values))
        return len(a), len(b), shared

    def resemblance(self, a: ModSample, b: ModSample) -> float:
        """``|S(A) ∩ S(B)| / |S(A) ∪ S(B)|``."""
        na, nb, shared = self._counts(a, b)
        union = na + nb - shared
        return shared / union if union else 0.0

    def containment(self, a: ModSample, b: ModSample) -> float:
        """How much of A is in B: ``|S(A) ∩ S(B)| / |S(A)|``."""
        na, _, shared = self._counts(a, b)
        return shared / na if na else 0.0


class BottomK:
    """Bottom-k sampling under a sketch spec (``method="bottom_k"``, ``num_perm`` = k, ``seed``)."""

    def __init__(
        self, spec: SketchSpec | None = None, *, k: int | None = None, seed: int = 0
    ) -> None:
        if spec is None:
            spec = SketchSpec(method="bottom_k", num_perm=k or 128, seed=seed)
        if spec.method != "bottom_k":
            raise SpecError(f"BottomK samples with method 'bottom_k', not {spec.method!r}")
        self.spec = spec
        self.k = spec.num_perm
        self.seed = spec.seed
        self._key_seed = np.uint64(purpose_seed(spec.seed, BOTTOM_K_TAG))

    def sample_many(self, fps: Sequence[Fingerprints]) -> list[BottomKSample]:
        """Samples of a batch of fingerprint sets: ONE kernel call."""
        keys, lengths = self.keys_many(fps)
        return [
            BottomKSample(keys[i, : lengths[i]], len(fp), self.k, self.seed)
            for i, fp in enumerate(fps)
        ]

    def keys_many(self, fps: Sequence[Fingerprints]) -> tuple[U64, npt.NDArray[np.int64]]:
        """``(n, k)`` keys padded with ``2^64 - 1`` and the count of real keys per row."""
        flat, offsets = pack([fp.values for fp in fps])
        return kernels.bottom_k_flat(flat, offsets, self.k, self._key_seed)

    def sample(self, fps: Fingerprints) -> BottomKSample:
        return self.sample_many([fps])[0]

    def resemblance(self, a: BottomKSample, b: BottomKSample) -> float:
        """Of the k smallest keys of ``B(A) ∪ B(B)``, the share found in both."""
        _check(a, b, BottomKSample)
        taken, shared = kernels.bottom_k_union_shared(a.keys, len(a), b.keys, len(b), self.k)
        return shared / taken if taken else 0.0

    def containment(self, a: BottomKSample, b: BottomKSample) -> float:
        """``|A ∩ B| / |A|`` derived from the resemblance estimate and the set sizes."""
        j = self.resemblance(a, b)
        if not a.size or not j:
            return 0.0
        shared = j * (a.size + b.size) / (1.0 + j)
        return min(1.0, shared / a.size)

"""Supershingles, megashingles and LSH band keys: MinHash signatures grouped into a few keys.

The shingle-method paper (after Fetterly et al.) splits 84 minhashes into 6 groups of 14 and hashes
each group into a "supershingle"; two documents are candidates when they share at least one. Classic
LSH banding (the web-articles compilation: b bands × r rows, the S-curve) is the same construction
under another name: M supershingles of L minhashes = b bands of r rows. Megashingles (Zelenkov &
Segalovich) are hashes of PAIRS of supershingles: sharing one means sharing at least two
supershingles, a stricter test (its probability is in :mod:`neardup.sketch.params`).

Keys are positional: supershingle ``b`` is compared only with supershingle ``b`` of the other
document (its band index is hashed into the key), so keys of every band can share one table.
The keys are candidates only; the index re-scores them before reporting anything.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from neardup._arguments import public
from neardup._kernels import minhash as kernels
from neardup.errors import InputError, SpecError
from neardup.fingerprints.hashing import splitmix64
from neardup.sketch.minhash import GAMMA, MASK64, SignatureArray, purpose_seed
from neardup.spec import SketchSpec

U64 = npt.NDArray[np.uint64]

#: Tags for :func:`~neardup.sketch.minhash.purpose_seed`.
BAND_TAG = 1
MEGA_TAG = 2


def band_seeds(seed: int, bands: int) -> U64:
    """Per-band seeds: ``splitmix64(purpose_seed(seed, BAND_TAG) + b·γ)``."""
    base = purpose_seed(seed, BAND_TAG)
    return np.array(
        [splitmix64((base + b * GAMMA) & MASK64) for b in range(bands)], dtype=np.uint64
    )


def band_keys(signatures: SignatureArray, bands: int, rows: int, *, seed: int = 0) -> U64:
    """``(n, bands)`` uint64 keys: band ``b`` hashes minhashes ``[b·rows, (b+1)·rows)``.

    ``signatures``: ``(n, N)`` or ``(N,)`` (then the result is ``(bands,)``), uint64 or uint32,
    with ``bands · rows ≤ N``.
    """
    arr = np.asarray(signatures)
    single = arr.ndim == 1
    rows2d = arr[None, :] if single else arr
    if rows2d.ndim != 2 or rows2d.dtype not in (np.uint64, np.uint32):
        raise InputError(
            f"signatures must be a (n, N) uint64 or uint32 array, got {arr.shape} {arr.dtype}"
        )
    if bands < 1 or rows < 1:
        raise SpecError(f"bands and rows must be positive, got {bands} × {rows}")
    if bands * rows > rows2d.shape[1]:
        raise SpecError(
            f"{bands} bands × {rows} rows need {bands * rows} minhashes, "
            f"signatures have {rows2d.shape[1]}"
        )
    keys = kernels.band_keys(np.ascontiguousarray(rows2d), bands, rows, band_seeds(seed, bands))
    return keys[0] if single else keys


def supershingles(signatures: SignatureArray, groups: int, size: int, *, seed: int = 0) -> U64:
    """The shingle-method paper's supershingles: ``groups`` hashes of ``size`` consecutive minhashes
    each."""
    return band_keys(signatures, groups, size, seed=seed)


def megashingles(keys: U64, *, seed: int = 0) -> U64:
    """``(n, M(M-1)/2)`` megashingles of ``(n, M)`` supershingles: one key per pair ``i < j``."""
    arr = np.asarray(keys, dtype=np.uint64)
    single = arr.ndim == 1
    rows2d = arr[None, :] if single else arr
    if rows2d.shape[1] < 2:
        raise SpecError("megashingles pair supershingles: they need at least 2")
    out = kernels.pair_keys(np.ascontiguousarray(rows2d), np.uint64(purpose_seed(seed, MEGA_TAG)))
    return out[0] if single else out


def shares_key(a: U64, b: U64) -> bool:
    """True when two documents' key rows agree in at least one position (a candidate pair)."""
    return bool(np.any(np.asarray(a) == np.asarray(b)))


@public
class Banding:
    """The keys a :class:`~neardup.spec.SketchSpec` with ``bands`` × ``rows`` (and ``mega``)
    asks for, from its MinHash signatures."""

    def __init__(self, spec: SketchSpec) -> None:
        if not spec.bands:
            raise SpecError("this sketch spec has no bands: give bands and/or rows")
        self.spec = spec
        self.bands = spec.bands
        self.rows = spec.rows
        self.mega = spec.mega

    def keys(self, signatures: SignatureArray) -> U64:
        """Supershingles / band keys, then megashingles when the spec asks for them."""
        keys = band_keys(signatures, self.bands, self.rows, seed=self.spec.seed)
        return megashingles(keys, seed=self.spec.seed) if self.mega else keys

    @property
    def keys_per_document(self) -> int:
        return self.bands * (self.bands - 1) // 2 if self.mega else self.bands

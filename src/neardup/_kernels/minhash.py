"""MinHash, band-key and sampling kernels over packed fingerprint arrays.

A batch of documents enters as ONE flat ``uint64`` array of fingerprints plus ``offsets``
(document ``d`` owns ``values[offsets[d]:offsets[d+1]]``), so a whole batch is one call and no
Python code runs per shingle or per hash function. Every kernel is ``nogil``: threads can sign
batches side by side.

The function family (why: docs/sketches.md): function ``i`` is
``h_i(x) = splitmix64(x XOR s_i)`` where ``splitmix64`` is the SplitMix64 output function
(add the golden gamma, then Stafford's "Mix13" finalizer) and ``s_i`` is the ``i``-th output
of a SplitMix64 generator seeded with the sketch seed. Each ``h_i`` is a bijection of the
64-bit integers, so distinct fingerprints never tie, and the first ``N`` functions of a seed
are the same whatever ``N`` is (a 256-function signature extends the 128-function one).

The classic family (``SketchSpec.family = "affine"``; the web-articles compilation's
``(a·x + b) mod p``) is ``h_i(x) = (a_i · (x mod p) + b_i) mod p`` with the Mersenne prime
``p = 2^61 - 1``: the product is reduced with ``2^61 ≡ 1 (mod p)`` from 32-bit halves, so no
128-bit integer is needed. Its values are below ``p``, so ``EMPTY`` never occurs as a value.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, nogil=True, inline="always")
def splitmix64(x: np.uint64) -> np.uint64:
    """SplitMix64's output for state ``x``: equal to
    :func:`neardup.fingerprints.hashing.splitmix64`."""
    z = x + GAMMA
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, nogil=True)
def splitmix64_array(x: U64) -> U64:
    """:func:`splitmix64` of every element."""
    out = np.empty(x.shape[0], dtype=np.uint64)
    for i in range(x.shape[0]):
        out[i] = splitmix64(x[i])
    return out


@njit(cache=True, nogil=True)
def occurrence_key(x: np.uint64, j: int) -> np.uint64:
    """The element standing for the ``j``-th repeat of ``x`` in a multiset (``j = 0``: ``x``)."""
    if j == 0:
        return x
    return splitmix64(x ^ splitmix64(np.uint64(j) * GAMMA))


@njit(cache=True, nogil=True)
def update_signature(sig: U64, x: np.uint64, seeds: U64) -> None:
    """Fold one element into a running signature: ``sig[i] = min(sig[i], h_i(x))`` (a
    store every time: the loop then runs in vector registers, 8 % faster than a test)."""
    for i in range(seeds.shape[0]):
        sig[i] = min(sig[i], splitmix64(x ^ seeds[i]))


MERSENNE61 = np.uint64((1 << 61) - 1)
_LOW32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_S29 = np.uint64(29)
_S61 = np.uint64(61)
_S3 = np.uint64(3)


@njit(cache=True, nogil=True, inline="always")
def mod_mersenne61(x: np.uint64) -> np.uint64:
    """``x mod (2^61 - 1)`` for any 64-bit ``x``: fold the top 3 bits onto the low 61."""
    y = (x & MERSENNE61) + (x >> _S61)
    if y >= MERSENNE61:
        y -= MERSENNE61
    return y


@njit(cache=True, nogil=True, inline="always")
def mulmod_mersenne61(a: np.uint64, x: np.uint64) -> np.uint64:
    """``a · x mod (2^61 - 1)`` for ``a, x < 2^61``, without 128-bit integers.

    With ``a = a1·2^32 + a0`` and ``x = x1·2^32 + x0`` (``a1, x1 < 2^29``): ``a·x = a1x1·2^64 +
    (a1x0 + a0x1)·2^32 + a0x0``; ``2^64 ≡ 8``, and the middle term ``m = m1·2^29 + m0`` gives
    ``m·2^32 ≡ m1 + m0·2^32``. Every partial sum stays below ``2^63``.
    """
    a0 = a & _LOW32
    a1 = a >> _S32
    x0 = x & _LOW32
    x1 = x >> _S32
    low = a0 * x0
    mid = a1 * x0 + a0 * x1
    high = a1 * x1
    total = (
        (high << _S3)
        + (mid >> _S29)
        + ((mid & np.uint64((1 << 29) - 1)) << _S32)
        + (low & MERSENNE61)
        + (low >> _S61)
    )
    return mod_mersenne61(total)


@njit(cache=True, nogil=True, inline="always")
def affine_hash(x: np.uint64, a: np.uint64, b: np.uint64) -> np.uint64:
    """``(a · (x mod p) + b) mod p`` with ``p = 2^61 - 1`` (``a, b < p``)."""
    return mod_mersenne61(mulmod_mersenne61(a, mod_mersenne61(x)) + b)


@njit(cache=True, nogil=True)
def update_signature_affine(sig: U64, x: np.uint64, mult: U64, add: U64) -> None:
    """Fold one element into a running signature of the affine family."""
    for i in range(mult.shape[0]):
        sig[i] = min(sig[i], affine_hash(x, mult[i], add[i]))


@njit(cache=True, nogil=True)
def minhash_flat_affine(values: U64, offsets: I64, mult: U64, add: U64) -> U64:
    """:func:`minhash_flat` under the affine family ``(a_i·x + b_i) mod (2^61 - 1)``."""
    n = offsets.shape[0] - 1
    num = mult.shape[0]
    out = np.empty((n, num), dtype=np.uint64)
    sig = np.empty(num, dtype=np.uint64)
    for d in range(n):
        for i in range(num):
            sig[i] = EMPTY
        for e in range(offsets[d], offsets[d + 1]):
            update_signature_affine(sig, values[e], mult, add)
        for i in range(num):
            out[d, i] = sig[i]
    return out


@njit(cache=True, nogil=True)
def minhash_flat_multiset_affine(
    values: U64, counts: I64, offsets: I64, mult: U64, add: U64
) -> U64:
    """:func:`minhash_flat_multiset` under the affine family."""
    n = offsets.shape[0] - 1
    num = mult.shape[0]
    out = np.empty((n, num), dtype=np.uint64)
    sig = np.empty(num, dtype=np.uint64)
    for d in range(n):
        for i in range(num):
            sig[i] = EMPTY
        for e in range(offsets[d], offsets[d + 1]):
            for j in range(counts[e]):
                update_signature_affine(sig, occurrence_key(values[e], j), mult, add)
        for i in range(num):
            out[d, i] = sig[i]
    return out


@njit(cache=True, nogil=True)
def minhash_flat(values: U64, offsets: I64, seeds: U64) -> U64:
    """``(n, N)`` MinHash signatures: ``out[d, i] = min over x in doc d of h_i(x)``.

    A document with no fingerprints gets all ``EMPTY`` (``2^64 - 1``). Repeated values in a
    document do not change its signature (the minimum of a set), so raw shingle hashes may be
    passed unsorted and with repeats.
    """
    n = offsets.shape[0] - 1
    num = seeds.shape[0]
    out = np.empty((n, num), dtype=np.uint64)
    sig = np.empty(num, dtype=np.uint64)
    for d in range(n):
        for i in range(num):
            sig[i] = EMPTY
        for e in range(offsets[d], offsets[d + 1]):
            update_signature(sig, values[e], seeds)
        for i in range(num):
            out[d, i] = sig[i]
    return out


@njit(cache=True, nogil=True)
def minhash_flat_multiset(values: U64, counts: I64, offsets: I64, seeds: U64) -> U64:
    """MinHash of multisets: value ``x`` with count ``c`` stands for the ``c`` distinct elements
    ``occurrence_key(x, 0..c-1)``, so equal positions estimate ``Σ min / Σ max``."""
    n = offsets.shape[0] - 1
    num = seeds.shape[0]
    out = np.empty((n, num), dtype=np.uint64)
    sig = np.empty(num, dtype=np.uint64)
    for d in range(n):
        for i in range(num):
            sig[i] = EMPTY
        for e in range(offsets[d], offsets[d + 1]):
            for j in range(counts[e]):
                update_signature(sig, occurrence_key(values[e], j), seeds)
        for i in range(num):
            out[d, i] = sig[i]
    return out


@njit(cache=True, nogil=True)
def band_keys(signatures: npt.NDArray[np.uint64], bands: int, rows: int, band_seeds: U64) -> U64:
    """``(n, bands)`` keys: band ``b`` hashes minhashes ``b·rows … b·rows + rows - 1``.

    ``key = splitmix64(… splitmix64(splitmix64(band_seeds[b] XOR v_0) XOR v_1) … XOR v_{r-1})``:
    band ``b``'s seed is in every key, so keys of different bands never meet in one table.
    Signatures may be ``uint64`` or ``uint32`` (widened).
    """
    n = signatures.shape[0]
    out = np.empty((n, bands), dtype=np.uint64)
    for d in range(n):
        for b in range(bands):
            h = band_seeds[b]
            base = b * rows
            for r in range(rows):
                h = splitmix64(h ^ np.uint64(signatures[d, base + r]))
            out[d, b] = h
    return out


@njit(cache=True, nogil=True)
def pair_keys(keys: U64, pair_seed: np.uint64) -> U64:
    """``(n, M(M-1)/2)`` megashingles: one key per pair ``i < j`` of the ``M`` band keys, in
    the order (0,1), (0,2), …, (0,M-1), (1,2), …; ``splitmix64(splitmix64(k_i ^ seed) ^ k_j)``."""
    n = keys.shape[0]
    m = keys.shape[1]
    out = np.empty((n, m * (m - 1) // 2), dtype=np.uint64)
    for d in range(n):
        p = 0
        for i in range(m):
            left = splitmix64(keys[d, i] ^ pair_seed)
            for j in range(i + 1, m):
                out[d, p] = splitmix64(left ^ keys[d, j])
                p += 1
    return out


@njit(cache=True, nogil=True, inline="always")
def agreeing(a: U64, b: U64, empty: np.uint64) -> int:
    """How many positions of two signatures agree; 0 when either is an empty set's (every
    position ``empty``)."""
    same = 0
    a_empty = True
    b_empty = True
    for i in range(a.shape[0]):
        x = a[i]
        y = b[i]
        if x != empty:
            a_empty = False
        if y != empty:
            b_empty = False
        if x == y:
            same += 1
    if a_empty or b_empty:
        return 0
    return same


@njit(cache=True, nogil=True)
def equal_share(
    a: npt.NDArray[np.uint64], b: npt.NDArray[np.uint64], empty: np.uint64
) -> npt.NDArray[np.float64]:
    """Row by row, the share of positions where ``a`` and ``b`` agree; 0.0 where either row is
    an empty-set signature (every position ``empty``). ``b`` has one row or as many as ``a``."""
    n = a.shape[0]
    num = a.shape[1]
    out = np.zeros(n, dtype=np.float64)
    one = b.shape[0] == 1
    for d in range(n):
        out[d] = agreeing(a[d], b[0 if one else d], empty) / num
    return out


# --- sampling (Broder): mod-m and bottom-k ---------------------------------------------------


@njit(cache=True, nogil=True)
def mod_sample_flat(
    values: U64, offsets: I64, modulus: np.uint64, key_seed: np.uint64
) -> tuple[U64, I64]:
    """Keep the fingerprints ``x`` with ``splitmix64(x ^ key_seed) mod m == 0``, per document.

    Returns the kept values (each document's run in input order) and their offsets.
    """
    n = offsets.shape[0] - 1
    keep = np.zeros(values.shape[0], dtype=np.bool_)
    out_offsets = np.zeros(n + 1, dtype=np.int64)
    total = 0
    for d in range(n):
        for e in range(offsets[d], offsets[d + 1]):
            if splitmix64(values[e] ^ key_seed) % modulus == 0:
                keep[e] = True
                total += 1
        out_offsets[d + 1] = total
    out = np.empty(total, dtype=np.uint64)
    p = 0
    for e in range(values.shape[0]):
        if keep[e]:
            out[p] = values[e]
            p += 1
    return out, out_offsets


@njit(cache=True, nogil=True)
def bottom_k_flat(values: U64, offsets: I64, k: int, key_seed: np.uint64) -> tuple[U64, I64]:
    """``(n, k)`` ascending keys ``splitmix64(x ^ key_seed)`` of each document's k smallest
    distinct keys (padded with ``EMPTY``), and how many each document has (≤ k)."""
    n = offsets.shape[0] - 1
    out = np.full((n, k), EMPTY, dtype=np.uint64)
    lengths = np.zeros(n, dtype=np.int64)
    for d in range(n):
        size = offsets[d + 1] - offsets[d]
        if size == 0:
            continue
        keys = np.empty(size, dtype=np.uint64)
        for e in range(size):
            keys[e] = splitmix64(values[offsets[d] + e] ^ key_seed)
        keys.sort()
        got = 0
        prev = EMPTY
        for e in range(size):
            if got == k:
                break
            if e > 0 and keys[e] == prev:
                continue
            out[d, got] = keys[e]
            prev = keys[e]
            got += 1
        lengths[d] = got
    return out, lengths


@njit(cache=True, nogil=True)
def bottom_k_union_shared(a: U64, a_len: int, b: U64, b_len: int, k: int) -> tuple[int, int]:
    """Merge two ascending bottom-k key lists: of the k smallest keys of the union, how many
    are there (≤ k) and how many of them are in both lists."""
    i = 0
    j = 0
    taken = 0
    shared = 0
    while taken < k and (i < a_len or j < b_len):
        if j >= b_len or (i < a_len and a[i] < b[j]):
            i += 1
        elif i >= a_len or b[j] < a[i]:
            j += 1
        else:
            shared += 1
            i += 1
            j += 1
        taken += 1
    return taken, shared


# --- one permutation hashing with optimal densification (family "oph1") -----------------------
# One hash per element instead of one per function: ``h = splitmix64(x ^ s_hash)`` falls in bin
# ``⌊h·N / 2^64⌋`` and the bin keeps its least ``h`` (Li, Owen and Zhang, NIPS 2012). A bin no
# element fell in takes the value of the first non-empty bin of its own random probe sequence
# (Shrivastava, ICML 2017, "optimal densification"): bin ``i`` tries ``⌊g(i, t)·N / 2^64⌋`` for
# ``t = 0, 1, …`` with ``g(i, t) = splitmix64(s_densify ^ splitmix64(i·2^32 + t))``. Two sets
# agree in a position with probability their resemblance, as under N functions, for the cost of
# one hash per element and the probes of the empty bins.


@njit(cache=True, nogil=True, inline="always")
def oph_bin(h: np.uint64, bins: int) -> int:
    """``⌊h · bins / 2^64⌋`` for ``bins < 2^32``, without 128-bit integers."""
    k = np.uint64(bins)
    return np.int64(((h >> _S32) * k + (((h & _LOW32) * k) >> _S32)) >> _S32)


@njit(cache=True, nogil=True, inline="always")
def update_oph(sig: U64, x: np.uint64, hash_seed: np.uint64) -> None:
    """Fold one element into a running one-permutation sketch (bins not densified yet)."""
    h = splitmix64(x ^ hash_seed)
    b = oph_bin(h, sig.shape[0])
    if h < sig[b]:
        sig[b] = h


@njit(cache=True, nogil=True)
def densify(sig: U64, densify_seed: np.uint64) -> None:
    """Fill the empty bins of a one-permutation sketch in place (optimal densification); a
    sketch with no element stays all ``EMPTY``."""
    k = sig.shape[0]
    full = 0
    for i in range(k):
        if sig[i] != EMPTY:
            full += 1
    if full == 0 or full == k:
        return
    filled = sig.copy()
    for i in range(k):
        if filled[i] != EMPTY:
            continue
        attempt = 0
        while True:
            key = (np.uint64(i) << _S32) | np.uint64(attempt)
            j = oph_bin(splitmix64(densify_seed ^ splitmix64(key)), k)
            if filled[j] != EMPTY:
                sig[i] = filled[j]
                break
            attempt += 1


@njit(cache=True, nogil=True)
def minhash_flat_oph(values: U64, offsets: I64, num: int, oph: U64) -> U64:
    """``(n, num)`` one-permutation sketches with optimal densification; ``oph`` holds the
    element hash seed and the densification seed."""
    n = offsets.shape[0] - 1
    out = np.empty((n, num), dtype=np.uint64)
    sig = np.empty(num, dtype=np.uint64)
    for d in range(n):
        for i in range(num):
            sig[i] = EMPTY
        for e in range(offsets[d], offsets[d + 1]):
            update_oph(sig, values[e], oph[0])
        densify(sig, oph[1])
        for i in range(num):
            out[d, i] = sig[i]
    return out


@njit(cache=True, nogil=True)
def minhash_flat_multiset_oph(values: U64, counts: I64, offsets: I64, num: int, oph: U64) -> U64:
    """:func:`minhash_flat_oph` of multisets (repeats as :func:`occurrence_key` elements)."""
    n = offsets.shape[0] - 1
    out = np.empty((n, num), dtype=np.uint64)
    sig = np.empty(num, dtype=np.uint64)
    for d in range(n):
        for i in range(num):
            sig[i] = EMPTY
        for e in range(offsets[d], offsets[d + 1]):
            for j in range(counts[e]):
                update_oph(sig, occurrence_key(values[e], j), oph[0])
        densify(sig, oph[1])
        for i in range(num):
            out[d, i] = sig[i]
    return out

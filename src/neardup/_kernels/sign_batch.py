"""Raw texts to MinHash signatures in ONE kernel call per batch (fused analyzer, Rabin word
shingles, MinHash), so a thread holds the GIL only to join and encode the batch.

Signing a text one call at a time costs Python glue per document (the analyzer's dispatch,
array wrapping, shingle starts) that runs under the GIL and caps what a second thread gains.
:func:`sign_rabin_words` loops over the documents inside numba, calling the same building
blocks the per-document path calls (:func:`~neardup._kernels.text.fused_words`,
:func:`~neardup._kernels.hashing.rabin_word_shingles_table`, the MinHash update of
:func:`~neardup._kernels.minhash.minhash_flat`), so its signatures are the same values. A
document the fused kernel cannot take (a character its table marks) is flagged and signed by
the caller on the general path.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from neardup._kernels.hashing import rabin_word_shingles_table
from neardup._kernels.minhash import EMPTY, update_signature, update_signature_affine
from neardup._kernels.text import fused_words

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


@njit(cache=True, nogil=True)
def sign_rabin_words(
    cps: npt.NDArray[np.uint32],
    doc_offsets: I64,
    todo: npt.NDArray[np.bool_],
    table: U64,
    limit: int,
    exp_offsets: I64,
    join_hyphens: bool,
    keep_numbers: bool,
    k: int,
    step: int,
    rk_table: U64,
    power: U64,
    space_power: U64,
    bits: int,
    c: np.uint64,
    seeds: U64,
    mult: U64,
    out: U64,
) -> npt.NDArray[np.bool_]:
    """Sign document ``d`` (code points ``cps[doc_offsets[d]:doc_offsets[d+1]]``) into
        ``out[d]`` for every ``d`` with ``todo[d]``; returns ``done``, false where the fused
        kernel sent the document to the general path (its row is left untouched) or ``todo`` is
        false. Word shingles of ``k`` tokens every ``step`` (one shingle of all tokens when there
        are at most ``k``, none when there are none), Rabin fingerprints, ``h_i = splitmix64(x ^
        seeds[i])`` (or the affine family when ``mult`` holds its ``a_i`` and ``seeds`` its ``b_i``:
    ``update_signature_affine``); an empty document gets all ``EMPTY``."""
    n = doc_offsets.shape[0] - 1
    num = seeds.shape[0]
    done = np.zeros(n, dtype=np.bool_)
    sig = np.empty(num, dtype=np.uint64)
    affine = mult.shape[0] > 0
    for d in range(n):
        if not todo[d]:
            continue
        ok, buf, byte_starts, byte_ends, _, _, _, _ = fused_words(
            cps[doc_offsets[d] : doc_offsets[d + 1]],
            table,
            limit,
            exp_offsets,
            join_hyphens,
            keep_numbers,
            False,
        )
        if not ok:
            continue
        n_tokens = byte_starts.shape[0]
        if n_tokens == 0:
            first = np.zeros(0, dtype=np.int64)
        elif n_tokens <= k:
            first = np.zeros(1, dtype=np.int64)
        else:
            first = np.arange(0, n_tokens - k + 1, step).astype(np.int64)
        hashes = rabin_word_shingles_table(
            buf, byte_starts, byte_ends, first, k, rk_table, power, space_power, bits, c
        )
        for i in range(num):
            sig[i] = EMPTY
        # the family is chosen once per document, so the default loop stays the plain one
        if affine:
            for e in range(hashes.shape[0]):
                update_signature_affine(sig, hashes[e], mult, seeds)
        else:
            for e in range(hashes.shape[0]):
                update_signature(sig, hashes[e], seeds)
        for i in range(num):
            out[d, i] = sig[i]
        done[d] = True
    return done

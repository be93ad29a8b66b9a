"""Hot loop of the collection's sentence keys (neardup.index.sentences): min-hash band keys
of each sentence's set of terms.

A sentence is the set of its distinct term hashes. For band ``b`` every term is remixed with
the band's seed (the SplitMix64 finalizer of ``term ^ seed``) and the two smallest distinct
remixed values are joined into one 64-bit key: two sentences share band ``b``'s key when the
two smallest of their union under that seed lie in both, which happens with probability about
``J²`` for term sets of Jaccard resemblance ``J`` — a copied sentence shares every band, one
with a word changed most of them, a reworded one some.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from neardup._kernels.winnow import remix

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


@njit(cache=True, nogil=True)
def band_keys(terms: U64, first: I64, end: I64, seeds: U64, min_terms: int) -> tuple[U64, I64]:
    """The band keys of each sentence ``terms[first[s]:end[s]]`` with at least ``min_terms``
    distinct terms: ``(keys, kept)``, ``keys[i, b]`` band ``b``'s key of sentence
    ``kept[i]``; sentences with fewer terms are left out."""
    n_sent = first.shape[0]
    bands = seeds.shape[0]
    keys = np.empty((n_sent, bands), dtype=np.uint64)
    kept = np.empty(n_sent, dtype=np.int64)
    m = 0
    for s in range(n_sent):
        lo = first[s]
        hi = end[s]
        if hi - lo < min_terms:
            continue
        own = np.sort(terms[lo:hi])
        distinct = 1
        for i in range(1, own.shape[0]):
            if own[i] != own[i - 1]:
                own[distinct] = own[i]
                distinct += 1
        if distinct < min_terms:
            continue
        for b in range(bands):
            seed = seeds[b]
            low = np.uint64(0xFFFFFFFFFFFFFFFF)
            second = np.uint64(0xFFFFFFFFFFFFFFFF)
            for i in range(distinct):
                x = remix(own[i] ^ seed)
                if x < low:
                    second = low
                    low = x
                elif x < second:
                    second = x
            keys[m, b] = remix(remix(low ^ seed) ^ second)
        kept[m] = s
        m += 1
    return keys[:m], kept[:m]

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

:func:`sign_filtered_words` does the same for a chain whose token filters are compiled into
tables (the ``ru`` preset's lemmas, stop words and parts of speech;
:mod:`neardup._kernels.morph`): between the tokenizer and the shingles, each form is looked
up and the canonical stream written, as :meth:`neardup.analysis.compiled.CompiledFilters.apply`
does. A document with a form neither table knows is left unsigned and the batch's unknown
forms are returned once each, for the caller to learn in one call of the filters and to call
again with those documents.

The per-document signing (:func:`_sign_tokens`) is inlined into each kernel: called, it left
the MinHash update loop unvectorized in one of them (twice the time per shingle).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from neardup._kernels.hashing import rabin_word_shingles_table
from neardup._kernels.minhash import (
    EMPTY,
    densify,
    update_oph,
    update_signature,
    update_signature_affine,
)
from neardup._kernels.morph import MISS, emit, form_hashes, resolve
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
    oph: U64,
    out: U64,
) -> npt.NDArray[np.bool_]:
    """Sign document ``d`` (code points ``cps[doc_offsets[d]:doc_offsets[d+1]]``) into
        ``out[d]`` for every ``d`` with ``todo[d]``; returns ``done``, false where the fused
        kernel sent the document to the general path (its row is left untouched) or ``todo`` is
        false. Word shingles of ``k`` tokens every ``step`` (one shingle of all tokens when there
        are at most ``k``, none when there are none), Rabin fingerprints, ``h_i = splitmix64(x ^
        seeds[i])`` (or the affine family when ``mult`` holds its ``a_i`` and ``seeds`` its ``b_i``:
    ``update_signature_affine``; or one permutation hashing with optimal densification when
    ``oph`` holds its two seeds: ``update_oph`` and ``densify``); an empty document gets all
    ``EMPTY``."""
    n = doc_offsets.shape[0] - 1
    done = np.zeros(n, dtype=np.bool_)
    sig = np.empty(seeds.shape[0], dtype=np.uint64)
    for d in range(n):
        if not todo[d]:
            continue
        ok, buf, byte_starts, byte_ends = _document_tokens(
            cps, doc_offsets, d, table, limit, exp_offsets, join_hyphens, keep_numbers
        )
        if not ok:
            continue
        _sign_tokens(
            buf,
            byte_starts,
            byte_ends,
            k,
            step,
            rk_table,
            power,
            space_power,
            bits,
            c,
            seeds,
            mult,
            oph,
            sig,
        )
        out[d, :] = sig
        done[d] = True
    return done


@njit(cache=True, nogil=True, inline="always")
def _document_tokens(
    cps: npt.NDArray[np.uint32],
    doc_offsets: I64,
    d: int,
    table: U64,
    limit: int,
    exp_offsets: I64,
    join_hyphens: bool,
    keep_numbers: bool,
) -> tuple[bool, npt.NDArray[np.uint8], I64, I64]:
    """The fused kernel's canonical stream of document ``d`` (``ok`` false: the general path's)."""
    ok, buf, byte_starts, byte_ends, _, _, _, _ = fused_words(
        cps[doc_offsets[d] : doc_offsets[d + 1]],
        table,
        limit,
        exp_offsets,
        join_hyphens,
        keep_numbers,
        False,
    )
    return ok, buf, byte_starts, byte_ends


@njit(cache=True, nogil=True, inline="always")
def _word_starts(n_tokens: int, k: int, step: int) -> I64:
    """The first token of each word shingle
    (:func:`neardup.fingerprints.shingles.word_shingle_starts`)."""
    if n_tokens == 0:
        return np.zeros(0, dtype=np.int64)
    if n_tokens <= k:
        return np.zeros(1, dtype=np.int64)
    return np.arange(0, n_tokens - k + 1, step).astype(np.int64)


@njit(cache=True, nogil=True, inline="always")
def _sign_tokens(
    buf: npt.NDArray[np.uint8],
    byte_starts: I64,
    byte_ends: I64,
    k: int,
    step: int,
    rk_table: U64,
    power: U64,
    space_power: U64,
    bits: int,
    c: np.uint64,
    seeds: U64,
    mult: U64,
    oph: U64,
    sig: U64,
) -> None:
    """The signature of one canonical stream into ``sig``: word shingles of ``k`` tokens every
    ``step`` (one of all tokens when there are at most ``k``, none when there are none), Rabin
    fingerprints, then the MinHash family (affine when ``mult`` is not empty)."""
    first = _word_starts(byte_starts.shape[0], k, step)
    hashes = rabin_word_shingles_table(
        buf, byte_starts, byte_ends, first, k, rk_table, power, space_power, bits, c
    )
    for i in range(seeds.shape[0]):
        sig[i] = EMPTY
    # the family is chosen once per document, so the default loop stays the plain one
    if oph.shape[0] > 0:
        for e in range(hashes.shape[0]):
            update_oph(sig, hashes[e], oph[0])
        densify(sig, oph[1])
    elif mult.shape[0] > 0:
        for e in range(hashes.shape[0]):
            update_signature_affine(sig, hashes[e], mult, seeds)
    else:
        for e in range(hashes.shape[0]):
            update_signature(sig, hashes[e], seeds)


#: What :func:`sign_filtered_words` did with a document (``GENERAL``: left to the per-document
#: path — a character the fused tables do not cover, or every word dropped by the filters).
SKIPPED, SIGNED, GENERAL, UNKNOWN_FORMS = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def grown(arr: npt.NDArray[Any], need: int) -> npt.NDArray[Any]:
    """``arr``, or a copy at least twice as long when it holds fewer than ``need`` items."""
    if need <= arr.shape[0]:
        return arr
    out = np.empty(max(need, 2 * arr.shape[0]), dtype=arr.dtype)
    out[: arr.shape[0]] = arr
    return out


@njit(cache=True, nogil=True, inline="always")
def _no_unknown_forms() -> tuple[I64, U64, U64, npt.NDArray[np.uint8]]:
    """An empty set of unknown forms (:func:`_note_unknown`): its slots, hashes and bytes."""
    return (
        np.full(256, -1, dtype=np.int64),
        np.empty(64, dtype=np.uint64),
        np.empty(64, dtype=np.uint64),
        np.empty(1024, dtype=np.uint8),
    )


@njit(cache=True, nogil=True)
def _note_unknown(
    codes: I64,
    h1: U64,
    h2: U64,
    buf: npt.NDArray[np.uint8],
    byte_starts: I64,
    byte_ends: I64,
    seen: I64,
    miss1: U64,
    miss2: U64,
    miss_bytes: npt.NDArray[np.uint8],
    n_miss: int,
    size: int,
) -> tuple[I64, U64, U64, npt.NDArray[np.uint8], int, int]:
    """Add a document's unresolved forms (``codes[t] == MISS``) to the batch's set of unknown
    forms, once each in order of first appearance: ``seen`` (open addressing on ``h1``, load
    under one half) indexes the first ``n_miss`` hashes, whose bytes fill ``miss_bytes[:size]``
    joined by single spaces. Returns the set, grown as needed."""
    capacity = seen.shape[0]
    for t in range(codes.shape[0]):
        if codes[t] != MISS:
            continue
        if 2 * (n_miss + 1) > capacity:
            capacity *= 2
            seen = np.full(capacity, -1, dtype=np.int64)
            for m in range(n_miss):
                slot = miss1[m] & np.uint64(capacity - 1)
                while seen[slot] >= 0:
                    slot = (slot + np.uint64(1)) & np.uint64(capacity - 1)
                seen[slot] = m
        mask = np.uint64(capacity - 1)
        slot = h1[t] & mask
        fresh = True
        while seen[slot] >= 0:
            m = seen[slot]
            if miss1[m] == h1[t] and miss2[m] == h2[t]:
                fresh = False
                break
            slot = (slot + np.uint64(1)) & mask
        if not fresh:
            continue
        seen[slot] = n_miss
        miss1 = grown(miss1, n_miss + 1)
        miss2 = grown(miss2, n_miss + 1)
        miss1[n_miss] = h1[t]
        miss2[n_miss] = h2[t]
        n_miss += 1
        length = byte_ends[t] - byte_starts[t]
        miss_bytes = grown(miss_bytes, size + length + 1)
        if size > 0:
            miss_bytes[size] = 32
            size += 1
        miss_bytes[size : size + length] = buf[byte_starts[t] : byte_ends[t]]
        size += length
    return seen, miss1, miss2, miss_bytes, n_miss, size


@njit(cache=True, nogil=True, inline="always")
def _filtered_terms(
    buf: npt.NDArray[np.uint8],
    byte_starts: I64,
    byte_ends: I64,
    use_static: bool,
    buckets: npt.NDArray[np.int32],
    static_bits: int,
    records: U64,
    drop_bits: npt.NDArray[np.uint8],
    term_offsets: I64,
    term_bytes: npt.NDArray[np.uint8],
    rule_forms: bool,
    keys1: U64,
    keys2: U64,
    values: I64,
    known: int,
    result_offsets: I64,
    result_bytes: npt.NDArray[np.uint8],
) -> tuple[int, I64, U64, U64, npt.NDArray[np.uint8], I64, I64]:
    """A token stream through the compiled filters: each form looked up
    (:func:`~neardup._kernels.morph.resolve`) and, when every form is known, the canonical
    stream written (:func:`~neardup._kernels.morph.emit`). Returns the number of unknown
    forms, the codes and form hashes (which :func:`_note_unknown` takes), and the terms with
    their byte spans (empty when a form is unknown)."""
    h1, h2 = form_hashes(buf, byte_starts, byte_ends)
    codes = np.full(h1.shape[0], MISS, dtype=np.int64)
    misses = resolve(
        h1,
        h2,
        codes,
        use_static,
        buckets,
        static_bits,
        records,
        drop_bits,
        keys1,
        keys2,
        values,
        known,
        rule_forms,
        buf,
        byte_starts,
        byte_ends,
    )
    if misses > 0:
        none = np.zeros(0, dtype=np.int64)
        return misses, codes, h1, h2, np.zeros(0, dtype=np.uint8), none, none
    terms, term_starts, term_ends, _, _ = emit(
        codes,
        byte_starts,
        byte_ends,
        term_offsets,
        term_bytes,
        result_offsets,
        result_bytes,
        buf,
        byte_starts,
        byte_ends,
    )
    return 0, codes, h1, h2, terms, term_starts, term_ends


@njit(cache=True, nogil=True)
def sign_filtered_words(
    cps: npt.NDArray[np.uint32],
    doc_offsets: I64,
    todo: npt.NDArray[np.bool_],
    table: U64,
    limit: int,
    exp_offsets: I64,
    join_hyphens: bool,
    keep_numbers: bool,
    use_static: bool,
    buckets: npt.NDArray[np.int32],
    static_bits: int,
    records: U64,
    drop_bits: npt.NDArray[np.uint8],
    term_offsets: I64,
    term_bytes: npt.NDArray[np.uint8],
    rule_forms: bool,
    keys1: U64,
    keys2: U64,
    values: I64,
    known: int,
    result_offsets: I64,
    result_bytes: npt.NDArray[np.uint8],
    k: int,
    step: int,
    rk_table: U64,
    power: U64,
    space_power: U64,
    bits: int,
    c: np.uint64,
    seeds: U64,
    mult: U64,
    oph: U64,
    out: U64,
) -> tuple[npt.NDArray[np.int8], U64, U64, npt.NDArray[np.uint8]]:
    """:func:`sign_rabin_words` for a chain with token filters compiled into tables
    (:mod:`neardup._kernels.morph`): each token of document ``d`` (with ``todo[d]``) is looked
    up (:func:`~neardup._kernels.morph.resolve`: the static table, the rule for ASCII forms,
    the first ``known`` results of the in-process table), the canonical stream written
    (:func:`~neardup._kernels.morph.emit`) and signed into ``out[d]``.

    Returns each document's status (``SIGNED``; ``GENERAL``: the fused kernel sent it to the
    general path, or the filters dropped every word of it, which the chain's
    ``keep_if_all_dropped`` may keep; ``UNKNOWN_FORMS``: a form is in neither table, so it
    is left for the caller to learn the forms and call again; ``SKIPPED``: not ``todo``), and
    the batch's unknown forms, once each in order of first appearance: their hashes ``h1``,
    ``h2`` and their UTF-8 bytes joined by single spaces."""
    n = doc_offsets.shape[0] - 1
    status = np.zeros(n, dtype=np.int8)
    sig = np.empty(seeds.shape[0], dtype=np.uint64)
    seen, miss1, miss2, miss_bytes = _no_unknown_forms()
    n_miss = 0
    size = 0
    for d in range(n):
        if not todo[d]:
            continue
        ok, buf, byte_starts, byte_ends = _document_tokens(
            cps, doc_offsets, d, table, limit, exp_offsets, join_hyphens, keep_numbers
        )
        if not ok:
            status[d] = GENERAL
            continue
        misses, codes, h1, h2, terms, term_starts, term_ends = _filtered_terms(
            buf,
            byte_starts,
            byte_ends,
            use_static,
            buckets,
            static_bits,
            records,
            drop_bits,
            term_offsets,
            term_bytes,
            rule_forms,
            keys1,
            keys2,
            values,
            known,
            result_offsets,
            result_bytes,
        )
        if misses > 0:
            status[d] = UNKNOWN_FORMS
            seen, miss1, miss2, miss_bytes, n_miss, size = _note_unknown(
                codes,
                h1,
                h2,
                buf,
                byte_starts,
                byte_ends,
                seen,
                miss1,
                miss2,
                miss_bytes,
                n_miss,
                size,
            )
            continue
        if term_starts.shape[0] == 0 and byte_starts.shape[0] > 0:
            # the filters dropped every word: the chain decides whether it keeps them
            status[d] = GENERAL
            continue
        _sign_tokens(
            terms,
            term_starts,
            term_ends,
            k,
            step,
            rk_table,
            power,
            space_power,
            bits,
            c,
            seeds,
            mult,
            oph,
            sig,
        )
        out[d, :] = sig
        status[d] = SIGNED
    return status, miss1[:n_miss].copy(), miss2[:n_miss].copy(), miss_bytes[:size].copy()


@njit(cache=True, nogil=True)
def shingle_words_batch(
    cps: npt.NDArray[np.uint32],
    doc_offsets: I64,
    todo: npt.NDArray[np.bool_],
    table: U64,
    limit: int,
    exp_offsets: I64,
    join_hyphens: bool,
    keep_numbers: bool,
    filtered: bool,
    use_static: bool,
    buckets: npt.NDArray[np.int32],
    static_bits: int,
    records: U64,
    drop_bits: npt.NDArray[np.uint8],
    term_offsets: I64,
    term_bytes: npt.NDArray[np.uint8],
    rule_forms: bool,
    keys1: U64,
    keys2: U64,
    values: I64,
    known: int,
    result_offsets: I64,
    result_bytes: npt.NDArray[np.uint8],
    k: int,
    step: int,
    short_k: int,
    rk_table: U64,
    power: U64,
    space_power: U64,
    bits: int,
    c: np.uint64,
) -> tuple[npt.NDArray[np.int8], I64, U64, I64, U64, I64, U64, U64, npt.NDArray[np.uint8]]:
    """The word shingle hashes of each document ``d`` with ``todo[d]``, in text order, as the
    per-document path gives them (:func:`neardup.fingerprints.shingles.shingle_hashes` of the
    analyzer's
    canonical stream): what a collection stores and samples, where
    :func:`sign_filtered_words` goes on to MinHash. ``filtered``: the chain's token filters are
    the compiled tables (``use_static`` … ``result_bytes``, as there); otherwise those are
    ignored and the tokenizer's stream is the canonical one.

    Shingles of ``k`` tokens every ``step`` (none with ``k`` 0), and with ``short_k > 0`` also
    of ``short_k`` tokens every token (the length-adaptive rule's short shingles). Returns
    each document's status (as :func:`sign_filtered_words`'s, ``SIGNED`` meaning hashed), its
    canonical token count, the hashes joined with their offsets (document ``d``:
    ``hashes[offsets[d]:offsets[d + 1]]``, empty unless hashed), the short ones likewise, and
    the batch's unknown forms."""
    n = doc_offsets.shape[0] - 1
    status = np.zeros(n, dtype=np.int8)
    tokens = np.zeros(n, dtype=np.int64)
    offsets = np.zeros(n + 1, dtype=np.int64)
    short_offsets = np.zeros(n + 1, dtype=np.int64)
    hashes = np.empty(1024, dtype=np.uint64)
    short = np.empty(1024 if short_k > 0 else 0, dtype=np.uint64)
    n_hashes = 0
    n_short = 0
    seen, miss1, miss2, miss_bytes = _no_unknown_forms()
    n_miss = 0
    size = 0
    for d in range(n):
        offsets[d] = n_hashes
        short_offsets[d] = n_short
        if not todo[d]:
            continue
        ok, buf, byte_starts, byte_ends = _document_tokens(
            cps, doc_offsets, d, table, limit, exp_offsets, join_hyphens, keep_numbers
        )
        if not ok:
            status[d] = GENERAL
            continue
        if filtered:
            misses, codes, h1, h2, terms, term_starts, term_ends = _filtered_terms(
                buf,
                byte_starts,
                byte_ends,
                use_static,
                buckets,
                static_bits,
                records,
                drop_bits,
                term_offsets,
                term_bytes,
                rule_forms,
                keys1,
                keys2,
                values,
                known,
                result_offsets,
                result_bytes,
            )
            if misses > 0:
                status[d] = UNKNOWN_FORMS
                seen, miss1, miss2, miss_bytes, n_miss, size = _note_unknown(
                    codes,
                    h1,
                    h2,
                    buf,
                    byte_starts,
                    byte_ends,
                    seen,
                    miss1,
                    miss2,
                    miss_bytes,
                    n_miss,
                    size,
                )
                continue
            if term_starts.shape[0] == 0 and byte_starts.shape[0] > 0:
                # the filters dropped every word: the chain decides whether it keeps them
                status[d] = GENERAL
                continue
        else:
            terms, term_starts, term_ends = buf, byte_starts, byte_ends
        n_tokens = term_starts.shape[0]
        if k > 0:
            first = _word_starts(n_tokens, k, step)
            found = rabin_word_shingles_table(
                terms, term_starts, term_ends, first, k, rk_table, power, space_power, bits, c
            )
            hashes = grown(hashes, n_hashes + found.shape[0])
            hashes[n_hashes : n_hashes + found.shape[0]] = found
            n_hashes += found.shape[0]
        if short_k > 0:
            first = _word_starts(n_tokens, short_k, 1)
            found = rabin_word_shingles_table(
                terms, term_starts, term_ends, first, short_k, rk_table, power, space_power, bits, c
            )
            short = grown(short, n_short + found.shape[0])
            short[n_short : n_short + found.shape[0]] = found
            n_short += found.shape[0]
        tokens[d] = n_tokens
        status[d] = SIGNED
    offsets[n] = n_hashes
    short_offsets[n] = n_short
    return (
        status,
        tokens,
        hashes[:n_hashes].copy(),
        offsets,
        short[:n_short].copy(),
        short_offsets,
        miss1[:n_miss].copy(),
        miss2[:n_miss].copy(),
        miss_bytes[:size].copy(),
    )


@njit(cache=True, nogil=True)
def letter_counts_batch(
    cps: npt.NDArray[np.uint32],
    doc_offsets: I64,
    todo: npt.NDArray[np.bool_],
    table: U64,
    limit: int,
    exp_offsets: I64,
    join_hyphens: bool,
    keep_numbers: bool,
) -> tuple[npt.NDArray[np.bool_], I64, I64]:
    """The Cyrillic and Latin letters of each document's filtered text (what decides its
    chain under a spec with one per language), for each ``d`` with ``todo[d]`` that the fused
    kernel takes (``counted``; the others go the per-document way)."""
    n = doc_offsets.shape[0] - 1
    counted = np.zeros(n, dtype=np.bool_)
    cyrillic = np.zeros(n, dtype=np.int64)
    latin = np.zeros(n, dtype=np.int64)
    for d in range(n):
        if not todo[d]:
            continue
        ok, _, _, _, _, _, cyr, lat = fused_words(
            cps[doc_offsets[d] : doc_offsets[d + 1]],
            table,
            limit,
            exp_offsets,
            join_hyphens,
            keep_numbers,
            True,
        )
        counted[d] = ok
        cyrillic[d] = cyr
        latin[d] = lat
    return counted, cyrillic, latin

"""Shingles: word k-grams taken every ``step`` tokens, or character n-grams.

Each shingle knows the character span it covers in the original input. Rules for short input
(documented in docs/guide.md): a text with fewer tokens than ``k`` but at least one forms a
single shingle of all its tokens (so short texts still compare, by equality); an empty text
forms none. With ``step > 1`` shingles start at tokens ``0, step, 2·step, …`` while a whole
shingle fits, as the web-articles compilation's "встык" (end to end, ``step = k``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from neardup.analysis.analyzer import Canonical
from neardup.fingerprints.hashing import HashFamily
from neardup.spec import ShingleSpec

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Shingles:
    """A document's shingles in text order: fingerprints and original character spans."""

    hashes: U64
    starts: I64
    ends: I64

    def __len__(self) -> int:
        return int(self.hashes.shape[0])


def word_shingle_starts(n_tokens: int, k: int, step: int) -> I64:
    """Index of the first token of each word shingle."""
    if n_tokens == 0:
        return np.zeros(0, dtype=np.int64)
    if n_tokens <= k:
        return np.zeros(1, dtype=np.int64)
    return np.arange(0, n_tokens - k + 1, step, dtype=np.int64)


def char_shingle_spans(buf: npt.NDArray[np.uint8], n: int, step: int) -> tuple[I64, I64, I64, I64]:
    """Byte spans of char n-grams over the canonical text, and their character positions.

    Returns ``(byte_starts, byte_ends, char_starts, char_ends)``.
    """
    # a UTF-8 character starts at every byte that is not a continuation byte (10xxxxxx)
    char_bytes = np.flatnonzero((buf & 0xC0) != 0x80).astype(np.int64)
    n_chars = char_bytes.shape[0]
    if n_chars == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    bounds = np.append(char_bytes, buf.shape[0])
    if n_chars <= n:
        first = np.zeros(1, dtype=np.int64)
    else:
        first = np.arange(0, n_chars - n + 1, step, dtype=np.int64)
    last = np.minimum(first + n, n_chars)
    return bounds[first], bounds[last], first, last


def shingle_hashes(canonical: Canonical, spec: ShingleSpec, family: HashFamily) -> U64:
    """Only the hashes of :func:`shingle` (text order), without the character spans: what
    MinHash signing needs."""
    if spec.unit == "word":
        first = word_shingle_starts(len(canonical), spec.k, spec.step)
        return family.word_shingles(
            canonical.buf, canonical.byte_starts, canonical.byte_ends, first, spec.k
        )
    byte_starts, byte_ends, _, _ = char_shingle_spans(canonical.buf, spec.k, spec.step)
    return family.spans(canonical.buf, byte_starts, byte_ends)


def shingle(canonical: Canonical, spec: ShingleSpec, family: HashFamily) -> Shingles:
    """The shingles of a canonical stream under ``spec``, hashed by ``family``."""
    n_tokens = len(canonical)
    if spec.unit == "word":
        first = word_shingle_starts(n_tokens, spec.k, spec.step)
        hashes = family.word_shingles(
            canonical.buf, canonical.byte_starts, canonical.byte_ends, first, spec.k
        )
        last = np.minimum(first + spec.k, n_tokens) - 1
        return Shingles(hashes, canonical.starts[first], canonical.ends[last])
    byte_starts, byte_ends, _, _ = char_shingle_spans(canonical.buf, spec.k, spec.step)
    hashes = family.spans(canonical.buf, byte_starts, byte_ends)
    if hashes.shape[0] == 0:
        return Shingles(hashes, byte_starts, byte_ends)
    # a char n-gram covers the tokens its first and last bytes fall in (a separating space
    # belongs to the token after it at the start, to the token before it at the end)
    first_tok = np.searchsorted(canonical.byte_ends, byte_starts, side="right")
    last_tok = np.searchsorted(canonical.byte_starts, byte_ends - 1, side="right") - 1
    first_tok = np.minimum(first_tok, n_tokens - 1)
    last_tok = np.maximum(last_tok, first_tok)
    return Shingles(hashes, canonical.starts[first_tok], canonical.ends[last_tok])

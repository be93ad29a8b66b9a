"""Exact copies: a 128-bit BLAKE2b of a document's canonical tokens (or of its raw text), and
each document that repeats an earlier one's hash named a copy of that first one."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt

from neardup.analysis.chain import Canonical

ExactMode = Literal["off", "canonical", "raw"]


def content_hash(text: str, canonical: Canonical | None) -> bytes | None:
    """The hash of ``canonical``'s terms when given, else of ``text``'s UTF-8 bytes (a lone
    surrogate kept as its code, as the JSONL writer escapes it); ``None`` for a text with
    nothing to compare (no tokens, or empty), which is nobody's copy."""
    if canonical is not None:
        if len(canonical) == 0:
            return None
        data = canonical.buf.tobytes()
    else:
        if not text:
            return None
        data = text.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=16).digest()


def copies_of(hashes: Sequence[bytes | None]) -> npt.NDArray[np.int64]:
    """For each document, the first earlier document with the same hash, or -1."""
    first: dict[bytes, int] = {}
    out = np.full(len(hashes), -1, np.int64)
    for i, digest in enumerate(hashes):
        if digest is None:
            continue
        at = first.setdefault(digest, i)
        if at != i:
            out[i] = at
    return out

"""Exact repeated substrings across a corpus (the finding of Lee et al., ACL 2022,
"Deduplicating Training Data Makes Language Models Better"): every run of at least
``min_tokens`` canonical tokens that also occurs in another document.

Lee et al. find them with a suffix array of the whole corpus. Here the same set is found by
counting: a run of ``L`` or more tokens occurs in two documents exactly when each of its
``L``-token windows does, so every window of ``L`` tokens is hashed (a polynomial hash of its
tokens' 64-bit hashes, mod 2^64), the documents each window hash occurs in are counted by the
exact counter of :mod:`neardup.corpus.spans` (in memory up to a bound, spilled to disk by key
partition beyond it), and the windows found in two documents or more are merged into spans.
Memory: the counter's bound, plus the texts' token hashes (8 bytes a token) while they are
held. Two different windows with one 64-bit hash (about n²/2^65 for n windows) would be
taken for a repeat."""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neardup._arguments import checked
from neardup.corpus.spans import I64, U64, ExactCounter
from neardup.defaults import DEFAULTS
from neardup.errors import InputError, WrongTypeError
from neardup.spec import Spec

#: The multiplier of the window hash (odd, so its powers never vanish mod 2^64).
_BASE = np.uint64(0x100000001B3)


def token_hashes(terms: list[str]) -> U64:
    """A 64-bit BLAKE2b of each canonical term."""
    return np.fromiter(
        (
            int.from_bytes(
                hashlib.blake2b(t.encode("utf-8", "surrogatepass"), digest_size=8).digest(),
                "little",
            )
            for t in terms
        ),
        dtype=np.uint64,
        count=len(terms),
    )


def window_hashes(tokens: U64, length: int) -> U64:
    """The hash of every window of ``length`` consecutive tokens (none when fewer)."""
    if tokens.shape[0] < length:
        return np.zeros(0, np.uint64)
    powers = np.ones(length, np.uint64)
    with np.errstate(over="ignore"):
        for j in range(length - 2, -1, -1):
            powers[j] = powers[j + 1] * _BASE
        windows = np.lib.stride_tricks.sliding_window_view(tokens, length)
        return (windows * powers).sum(axis=1, dtype=np.uint64)


@dataclass(frozen=True)
class RepeatedSubstrings:
    """Each text's repeated substrings as ``(start, end)`` character offsets (merged, in text
    order), and each text with them cut out (``cleaned``)."""

    spans: list[list[tuple[int, int]]]
    cleaned: list[str]
    min_tokens: int

    @property
    def chars(self) -> int:
        return sum(end - start for spans in self.spans for start, end in spans)


@checked
def repeated_substrings(
    texts: Iterable[str],
    *,
    min_tokens: int = 50,
    spec: Spec | None = None,
    memory_mb: int = DEFAULTS.span_memory_mb,
) -> RepeatedSubstrings:
    """The runs of at least ``min_tokens`` canonical tokens (the analyzer of ``spec``, default
    :func:`neardup.fingerprints.pipeline.default_spec`) that occur in two texts or more, found
    in every text that has them, and the texts with them cut out."""
    from neardup.fingerprints.pipeline import Pipeline, default_spec

    if isinstance(texts, str | bytes):
        raise WrongTypeError("repeated_substrings takes an iterable of texts, not one text")
    if (
        isinstance(min_tokens, bool)
        or not isinstance(min_tokens, int)
        or not 1 <= min_tokens <= 1 << 16
    ):
        raise InputError(f"min_tokens must be an integer in [1, 65536], got {min_tokens!r}")
    items = list(texts)
    for i, text in enumerate(items):
        if not isinstance(text, str):
            raise WrongTypeError(f"text {i} is {type(text).__name__}, not str")
    pipeline = Pipeline(spec if spec is not None else default_spec())
    starts: list[I64] = []
    ends: list[I64] = []
    windows: list[U64] = []
    with tempfile.TemporaryDirectory(prefix="neardup-substrings-") as folder:
        counter = ExactCounter(Path(folder), memory_mb << 20)
        for text in items:
            canonical = pipeline.canonical(text)
            starts.append(np.asarray(canonical.starts, np.int64))
            ends.append(np.asarray(canonical.ends, np.int64))
            hashed = window_hashes(token_hashes(canonical.terms), min_tokens)
            windows.append(hashed)
            counter.add(np.unique(hashed))
        counter.finish(1)
        spans = [
            _merged(counter.counts(w) > 1, s, e, min_tokens)
            for w, s, e in zip(windows, starts, ends, strict=True)
        ]
    cleaned = [_cut(text, found) for text, found in zip(items, spans, strict=True)]
    return RepeatedSubstrings(spans, cleaned, min_tokens)


def _merged(repeated: np.ndarray, starts: I64, ends: I64, length: int) -> list[tuple[int, int]]:
    """The character spans of the token runs covered by the repeated windows."""
    out: list[tuple[int, int]] = []
    run_first = run_last = -1
    for i in np.flatnonzero(repeated).tolist():
        if run_last >= i:  # overlaps or touches the run
            run_last = i + length - 1
            continue
        if run_first >= 0:
            out.append((int(starts[run_first]), int(ends[run_last])))
        run_first, run_last = i, i + length - 1
    if run_first >= 0:
        out.append((int(starts[run_first]), int(ends[run_last])))
    return out


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    pieces: list[str] = []
    at = 0
    for start, end in spans:
        pieces.append(text[at:start])
        at = end
    pieces.append(text[at:])
    return "".join(pieces)

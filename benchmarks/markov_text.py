"""New texts from a first-order word chain over real ones: real vocabulary and word-pair
statistics, but (unlike a variant) no long runs shared with any one source.

A document of a large benchmark corpus has to be *new* most of the time, as on the web, where a
third or so of the pages are near-copies of others; the real corpora of ../shared/data hold
about 44,000 texts, so a million-document collection needs fresh text. Each next word is drawn
from the words that follow the current one somewhere in the real texts (a random occurrence of
it), so common phrases recur as they do in real text while runs of five or more words shared
between two generated documents stay rare.

Deterministic: the same texts, seed and length give the same document on every machine.
"""

from __future__ import annotations

from collections.abc import Iterable

import numba as nb
import numpy as np

_END = -1  # between two source texts: the walk restarts at the start of a random text


@nb.njit(cache=True, nogil=True)
def _walk(
    successors: np.ndarray, start: np.ndarray, firsts: np.ndarray, n_words: int, u: np.ndarray
) -> np.ndarray:
    out = np.empty(n_words, dtype=np.int32)
    current = firsts[int(u[0] * firsts.shape[0])]
    out[0] = current
    for i in range(1, n_words):
        lo = start[current]
        hi = start[current + 1]
        following = _END if hi == lo else successors[lo + int(u[2 * i] * (hi - lo))]
        if following == _END:
            following = firsts[int(u[2 * i + 1] * firsts.shape[0])]
        out[i] = following
        current = following
    return out


class MarkovText:
    """A word chain trained on ``texts`` (words split on whitespace, punctuation kept on them)."""

    def __init__(self, texts: Iterable[str]) -> None:
        vocab: dict[str, int] = {}
        pieces: list[list[int]] = []
        for text in texts:
            ids = [vocab.setdefault(w, len(vocab)) for w in text.split()]
            if len(ids) > 1:
                pieces.append(ids + [_END])
        if not pieces:
            raise ValueError("a word chain needs at least one text of two words")
        seq = np.fromiter((i for p in pieces for i in p), dtype=np.int32)
        self.words = list(vocab)
        current, following = seq[:-1], seq[1:]
        inside = current != _END
        current, following = current[inside], following[inside]
        order = np.argsort(current, kind="stable")
        self.successors = following[order]
        self.start = np.searchsorted(current[order], np.arange(len(self.words) + 1)).astype(
            np.int64
        )
        starts = np.concatenate(([0], np.flatnonzero(seq == _END)[:-1] + 1))
        self.firsts = seq[starts]

    def generate(self, n_words: int, rng: np.random.Generator) -> str:
        """A text of ``n_words`` words (at least one)."""
        n_words = max(1, int(n_words))
        ids = _walk(self.successors, self.start, self.firsts, n_words, rng.random(2 * n_words))
        words = self.words
        return " ".join([words[i] for i in ids.tolist()])

"""Deterministic synthetic texts for the tests of the collection (no corpus text is copied).

Words are made of syllables, so they look like words to the tokenizer; a document is a seeded
draw of words with a Zipf-like frequency. ``edit`` substitutes words at a known rate.
"""

from __future__ import annotations

import numpy as np

_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]


def vocabulary(size: int = 4000, seed: int = 7) -> list[str]:
    rng = np.random.default_rng(seed)
    words: set[str] = set()
    out: list[str] = []
    while len(out) < size:
        n = int(rng.integers(2, 5))
        w = "".join(_SYLLABLES[int(i)] for i in rng.integers(0, len(_SYLLABLES), n))
        if w not in words:
            words.add(w)
            out.append(w)
    return out


VOCAB = vocabulary()
_WEIGHTS = 1.0 / np.arange(1, len(VOCAB) + 1) ** 0.8
_WEIGHTS /= _WEIGHTS.sum()


def words(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    idx = rng.choice(len(VOCAB), size=n, p=_WEIGHTS)
    return [VOCAB[int(i)] for i in idx]


def text(n: int, seed: int) -> str:
    return " ".join(words(n, seed))


def edit(source: str, rate: float, seed: int) -> str:
    """Substitute each word with probability ``rate`` by a random vocabulary word."""
    rng = np.random.default_rng(seed)
    toks = source.split()
    hit = rng.random(len(toks)) < rate
    repl = rng.integers(0, len(VOCAB), len(toks))
    return " ".join(VOCAB[int(r)] if h else t for t, h, r in zip(toks, hit, repl))

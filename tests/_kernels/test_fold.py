"""The fold filter's one-pass look at a text gives what the NumPy calls it replaced gave."""

from __future__ import annotations

import numpy as np
import pytest

from neardup._kernels.fold import text_words
from neardup._kernels.text import code_points
from neardup.analysis import confusables as cf

#: Characters of every class the filter tells apart: Latin, Cyrillic and Greek letters (with
#: and without look-alikes), digits, marks, ignorables, stuffing, CJK, spaces, punctuation.
ALPHABET = (
    "aceopxyAB CHMkмнаеорсхуАВСНМКтлбдзΑΒοραβ0123456789\u0301\u200b\u00ad\ue000中文 \n\t.,-«»"
)


def _reference(cps: np.ndarray) -> tuple[np.ndarray, ...]:
    table = cf.classes()
    cls = table[cps].astype(np.int64)
    word = (cls & cf.WORD) != 0
    edges = np.flatnonzero(np.diff(np.concatenate(([0], word.view(np.int8), [0]))))
    starts, ends = edges[0::2], edges[1::2]
    all_into = cf.TO_LATIN | cf.TO_CYRILLIC | cf.TO_GREEK
    counts = [int(np.count_nonzero(((cls & s) != 0) & ((cls & all_into) == 0))) for s in cf.SCRIPTS]
    letter = ((cls & cf.LETTERS) != 0).astype(np.int64)
    digit = ((cls & cf.DIGIT) != 0).astype(np.int64)
    if starts.shape[0]:
        bits = np.bitwise_or.reduceat(cls, starts)
        letters = np.add.reduceat(letter, starts)
        digits = np.add.reduceat(digit, starts)
    else:
        bits = letters = digits = cls[:0]
    total = int(np.count_nonzero(cls & cf.LETTERS))
    return cls, starts, ends, bits, letters, digits, np.array(counts), total


@pytest.mark.parametrize("seed", range(40))
def test_one_pass_equals_the_numpy_calls(seed: int) -> None:
    rng = np.random.default_rng(seed)
    size = int(rng.integers(0, 300)) if seed else 0
    # runs of one kind of character, so words of every length and mix occur
    text = "".join(rng.choice(list(ALPHABET), size=size).tolist())
    if seed % 3 == 0:
        text = text.replace(" ", "")  # one long word
    cps = code_points(text)
    got = text_words(cps, cf.classes())
    want = _reference(cps)
    for g, w in zip(got[:-1], want[:-1], strict=True):
        assert np.array_equal(g, w)
    assert got[-1] == want[-1]


def test_edges_of_the_text() -> None:
    for text in ["", " ", "a", "a ", " a", "мир", "a b c", "  ab  cd  "]:
        got = text_words(code_points(text), cf.classes())
        want = _reference(code_points(text))
        assert [np.asarray(x).tolist() for x in got] == [np.asarray(x).tolist() for x in want]

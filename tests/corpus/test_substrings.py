"""Exact repeated substrings across documents (runs of at least L canonical tokens)."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.corpus.substrings import repeated_substrings, window_hashes
from neardup.errors import InputError, WrongTypeError
from tests import _textgen


def test_a_shared_run_is_found_in_both_texts_and_cut() -> None:
    shared = _textgen.text(60, seed=77)
    head, tail = _textgen.text(40, seed=1), _textgen.text(30, seed=2)
    texts = [
        f"{head} {shared} {tail}",
        _textgen.text(50, seed=3) + " " + shared.upper(),
        _textgen.text(80, seed=4),
    ]
    result = repeated_substrings(texts, min_tokens=20)
    start = len(head) + 1
    assert result.spans[0] == [(start, start + len(shared))]
    assert result.spans[1] == [(len(texts[1]) - len(shared), len(texts[1]))]
    assert result.spans[2] == []
    assert result.cleaned[0] == f"{head}  {tail}" and result.cleaned[2] == texts[2]
    assert result.chars == 2 * len(shared)


def test_a_run_shorter_than_the_minimum_or_in_one_text_only_stays() -> None:
    shared = _textgen.text(15, seed=5)
    own = _textgen.text(40, seed=6)
    texts = [f"{own} {own}", f"{shared} x", f"{shared} y"]
    result = repeated_substrings(texts, min_tokens=20)
    assert result.spans == [[], [], []]


def test_window_hashes_match_their_windows() -> None:
    tokens = np.array([5, 7, 5, 7, 5], np.uint64)
    hashed = window_hashes(tokens, 2)
    assert hashed.shape == (4,) and hashed[0] == hashed[2] and hashed[1] == hashed[3]
    assert hashed[0] != hashed[1]
    assert window_hashes(tokens, 6).shape == (0,)


def test_hostile_inputs_and_wrong_arguments() -> None:
    huge = "word " * 100_000
    result = repeated_substrings(["", "\ud800 x", huge, huge], min_tokens=50)
    assert result.spans[:2] == [[], []]
    assert result.spans[2] == [(0, len(huge) - 1)] == result.spans[3]
    with pytest.raises(WrongTypeError):
        repeated_substrings("one text")
    with pytest.raises(InputError):
        repeated_substrings(["a"], min_tokens=0)

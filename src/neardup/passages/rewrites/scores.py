"""Sentence scores: the cosine of two sentences' term sets weighed by a pair-local IDF."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from neardup._kernels import rewrites as kernels

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Bags:
    """A query's sentences as sets of term ids (CSR: pointers and ids), numbered in the order
    the terms first appear, and how many sentences hold each id: made once for a query
    compared with many sources (:func:`bags_against` adds a source's terms after them)."""

    vocabulary: Mapping[str, int]
    ptr: I64
    ids: I64
    df: I64


def _side(
    terms: Iterable[Iterable[str]], known: Mapping[str, int], extra: dict[str, int]
) -> tuple[I64, I64]:
    """One text's sentences as sorted distinct term ids: a term of ``known`` keeps its id, a
    new one is numbered after every id there is, in order of appearance (into ``extra``)."""
    base = len(known)
    ptr = [0]
    ids: list[int] = []
    for sentence in terms:
        distinct = sorted(
            {known[t] if t in known else extra.setdefault(t, base + len(extra)) for t in sentence}
        )
        ids.extend(distinct)
        ptr.append(len(ids))
    return np.asarray(ptr, dtype=np.int64), np.asarray(ids, dtype=np.int64)


def bags_of(terms: Iterable[Iterable[str]]) -> Bags:
    """The :class:`Bags` of a query's sentences (``terms``: each sentence's terms)."""
    vocabulary: dict[str, int] = {}
    ptr, ids = _side(terms, {}, vocabulary)
    return Bags(vocabulary, ptr, ids, np.bincount(ids, minlength=len(vocabulary)))


def bags_against(a: Bags, b_terms: Iterable[Iterable[str]]) -> tuple[I64, I64, I64, I64, F64]:
    """The query's sentences and a source's as sets of term ids (CSR, per text) and each
    term's pair-local IDF over the sentences of both texts; the ids are those one vocabulary
    over the query then the source would give, so the scores are the same."""
    extra: dict[str, int] = {}
    b_ptr, b_ids = _side(b_terms, a.vocabulary, extra)
    df = np.bincount(b_ids, minlength=len(a.vocabulary) + len(extra))
    df[: a.df.shape[0]] += a.df
    n_sentences = (a.ptr.shape[0] - 1) + (b_ptr.shape[0] - 1)
    idf = np.log((1.0 + n_sentences) / (1.0 + df)) + 1.0
    return a.ptr, a.ids, b_ptr, b_ids, idf.astype(np.float64)


def _bags(
    a_terms: Iterable[Iterable[str]], b_terms: Iterable[Iterable[str]]
) -> tuple[I64, I64, I64, I64, F64]:
    """Sentences as sets of term ids (CSR: pointers and ids, per text) and each term's
    pair-local IDF over the sentences of both texts."""
    return bags_against(bags_of(a_terms), b_terms)


def sentence_scores(
    a_terms: Iterable[Iterable[str]], b_terms: Iterable[Iterable[str]], *, floor: float = 0.0
) -> tuple[I64, I64, F64]:
    """The score of every pair of sentences sharing a term and scoring at least ``floor``:
    ``(i, j, score)`` ordered by ``i`` then ``j``, where ``a_terms[i]`` and ``b_terms[j]`` are
    the sentences' terms (what :class:`RewriteFinder` compares; the calibration calls this)."""
    a_ptr, a_ids, b_ptr, b_ids, idf = _bags(a_terms, b_terms)
    return kernels.pair_scores(a_ptr, a_ids, b_ptr, b_ids, idf, float(floor))


def similarity_matrix(a_terms: Iterable[Iterable[str]], b_terms: Iterable[Iterable[str]]) -> F64:
    """All sentence scores as a dense ``(len(a_terms), len(b_terms))`` matrix."""
    a_list, b_list = list(map(list, a_terms)), list(map(list, b_terms))
    out = np.zeros((len(a_list), len(b_list)), dtype=np.float64)
    i, j, s = sentence_scores(a_list, b_list)
    out[i, j] = s
    return out


def _restrict(ptr: I64, ids: I64, keep: npt.NDArray[np.bool_]) -> tuple[I64, I64]:
    """A CSR of sentences with the rows not in ``keep`` emptied."""
    sizes = np.diff(ptr) * keep
    new_ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    rows = np.repeat(keep, np.diff(ptr))
    return new_ptr, ids[rows]

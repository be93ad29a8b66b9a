"""The analyzer: a text's canonical token stream under an :class:`AnalyzerSpec`, by its one
chain or, under a chain per language (``auto``), by the chain of the text's dominant language;
a text longer than :data:`~neardup.analysis.chunked.CHUNK_CHARS` a piece at a time
(:mod:`neardup.analysis.chunked`). The chains themselves are :mod:`neardup.analysis.chain`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from neardup._kernels import text as text_kernels
from neardup._table_cache import disk_cached
from neardup.analysis import chain as chain_module
from neardup.analysis import chunked, evasion, registry
from neardup.analysis.chain import (
    BatchPlan,
    Canonical,
    Chain,
    IntArray,
    code_point_letter_counts,
    dominant_language,
    letter_counts,
    route_batch,
)
from neardup.errors import WrongTypeError
from neardup.spec import AnalyzerSpec

__all__ = [
    "Analyzer",
    "BatchPlan",
    "Canonical",
    "IntArray",
    "dominant_language",
    "letter_counts",
    "route_batch",
]


class Analyzer:
    """Turns texts into canonical token streams under an :class:`AnalyzerSpec`."""

    def __init__(self, spec: AnalyzerSpec, *, compile_filters: bool = True) -> None:
        registry.validate(spec)
        self.spec = spec
        self._chains = {lang: Chain(chain, compile_filters) for lang, chain in spec.chains}
        self._routed = len(self._chains) > 1
        self._folds = any(chain.folds for chain in self._chains.values())

    @property
    def chains(self) -> Mapping[str, Chain]:
        """The chains by language; the first decides a text's language when there are several."""
        return self._chains

    @property
    def routed(self) -> bool:
        """Whether each text goes to the chain of its language (more than one chain)."""
        return self._routed

    def canonical(self, text: str, *, fast_failed: bool = False) -> Canonical:
        """The canonical stream of ``text``, with the tricks the ``fold`` filter undid in
        :attr:`Canonical.tricks`. ``fast_failed``: a batch kernel has already found that the
        fused path cannot take the text (the texts a batch leaves to this path), so a single
        chain does not try it again (both paths give the same tokens; this one is slower)."""
        if not self._folds:
            return self._canonical(text, fast_failed)
        with evasion.recording() as found:
            result = self._canonical(text, fast_failed)
        return replace(result, tricks=found.tricks) if found.tricks else result

    def _canonical(self, text: str, fast_failed: bool = False) -> Canonical:
        if not isinstance(text, str):
            raise WrongTypeError(
                f"the analyzer takes str, got {type(text).__name__}; decode bytes first"
            )
        if len(text) > chunked.CHUNK_CHARS:  # a huge text, a piece at a time
            pieces = chunked.canonical(self, text)
            if pieces is not None:
                return pieces
        if not self._routed:
            lang, chain = next(iter(self._chains.items()))
            scan = None if fast_failed else chain.fast_scan(text)
            if scan is not None:
                return chain.finish(scan, lang)
            filtered, offsets = chain.filter_chars(text)
            return chain.canonical(filtered, offsets, lang)
        first_lang, first = next(iter(self._chains.items()))
        # the language first, from the letters as they stand when no filter can change their
        # count, so the tokenizer runs once, under the chain of that language
        language = _raw_language(text)
        if language is not None:
            lang = language if language in self._chains else first_lang
            chain = self._chains[lang]
            scan = chain.fast_scan(text)
            if scan is not None:
                return chain.finish(scan, lang)
        scan = first.fast_scan(text, count_letters=True)
        if scan is not None:
            language = scan.language
            chain = self._chains.get(language, first)
            lang = language if language in self._chains else first_lang
            if chain.spec.char_filters != first.spec.char_filters:
                scan = chain.fast_scan(text)
                if scan is None:
                    filtered, offsets = chain.filter_chars(text)
                    return chain.canonical(filtered, offsets, lang)
            return chain.finish(scan, lang)
        filtered, offsets = first.filter_chars(text)
        language = dominant_language(filtered)
        chain = self._chains.get(language, first)
        if chain.spec.char_filters != first.spec.char_filters:
            filtered, offsets = chain.filter_chars(text)
        return chain.canonical(
            filtered, offsets, language if language in self._chains else first_lang
        )

    def batch_plans(self) -> tuple[tuple[str, BatchPlan], ...] | None:
        """The :class:`BatchPlan` of every chain by language, the first chain's first (it
        decides a text's language when there are several), or ``None`` when a chain cannot be
        run by the batch kernels."""
        plans = tuple((lang, chain.batch_plan(lang)) for lang, chain in self._chains.items())
        if any(plan is None for _, plan in plans):
            return None
        return plans  # type: ignore[return-value]

    def forget_learned(self) -> None:
        """Empty the tables of forms learned by the compiled token filters, which the threads
        share (the dictionary's table stays): the next texts start as a new process with no
        forms kept on disk does."""
        for chain in self._chains.values():
            if chain.compiled is not None:
                chain.compiled.forget()

    def canonical_many(self, texts: list[str]) -> list[Canonical]:
        return [self.canonical(t) for t in texts]


@lru_cache(maxsize=1)
@disk_cached("letter_count_stable", chain_module)
def _count_stable() -> npt.NDArray[np.bool_]:
    """Per code point of the Basic Multilingual Plane: whether every chain's char filters
    (NFKC, lowercase, ``ё``→``е``, marks stripped) leave the Cyrillic and ASCII letters it
    counts as they are, alone and beside any other character (combining marks, which compose
    with the letter before them, never are)."""
    table = np.zeros(0x10000, dtype=np.bool_)
    for cp in range(0x10000):
        if 0xD800 <= cp < 0xE000:
            continue
        ch = chr(cp)
        if unicodedata.category(ch).startswith("M") or unicodedata.combining(ch):
            continue
        folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", ch).lower())
        table[cp] = letter_counts(folded) == letter_counts(ch)
    return table


def _raw_language(text: str) -> str | None:
    """:func:`dominant_language` of the filtered text, read off the text as it stands — or
    ``None`` when a character in it might change the count under the filters (the chain's
    scan counts then)."""
    cps = text_kernels.code_points(text)
    stable = _count_stable()
    if cps.shape[0] and (int(cps.max()) >= stable.shape[0] or not stable[cps].all()):
        return None
    cyrillic, latin = code_point_letter_counts(cps)
    return "ru" if cyrillic > latin else "en"

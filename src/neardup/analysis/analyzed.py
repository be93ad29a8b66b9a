"""A text analysed once per request: its decoding, canonical stream, language and spans.

A request (``compare``, ``index check``, a page's check) used to analyse the same text three
to five times: once for the measures, once for the combined score, once more for the aligner
and again for the citations. :class:`AnalyzedText` is made once (:meth:`Pipeline.analyze
<neardup.fingerprints.pipeline.Pipeline.analyze>`) and taken by every stage; what a stage
derives from it
(the aligner's shingles, the combined score's plain-text stream) is kept on it too, so a
second stage asking for the same thing gets it without analysing again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import numpy.typing as npt

from neardup._arguments import public_methods

if TYPE_CHECKING:
    from neardup.analysis.analyzer import Canonical
    from neardup.spec import AnalyzerSpec

T = TypeVar("T")
U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


@public_methods
@dataclass(frozen=True, eq=False)
class AnalyzedText:
    """A decoded text and its canonical stream under one analyzer.

    ``text`` is the text as decoded (spans point into it); ``canonical`` its canonical token
    stream (``canonical.language`` the chain chosen, ``canonical.starts``/``ends`` each token's
    span in ``text``); ``analyzer`` the analyzer spec that made it. A stage that derives
    something from the text under another setting keeps it with :meth:`derived`.
    """

    text: str
    canonical: Canonical
    analyzer: AnalyzerSpec
    _derived: dict[Hashable, Any] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def language(self) -> str:
        return self.canonical.language

    def __len__(self) -> int:
        return len(self.canonical)

    def derived(self, key: Hashable, make: Callable[[], T]) -> T:
        """What ``make()`` gives for ``key``, made at most once for this text."""
        with self._lock:
            if key in self._derived:
                return self._derived[key]
        value = make()
        with self._lock:
            return self._derived.setdefault(key, value)


@dataclass(frozen=True)
class Prepared:
    """A text analyzed for alignment: its canonical tokens and shingle fingerprints.

    Make one with :meth:`Aligner.prepare <neardup.passages.align.Aligner.prepare>` to align the same
    text many times without analyzing it again (a collection checking one query against many
    candidates).
    """

    text: str
    canonical: Canonical
    hashes: U64
    sorted_hashes: U64
    order: I64
    spec_fingerprint: str

    def __len__(self) -> int:
        return len(self.canonical)

"""A corpus of any size whose share of near-copies does not grow with its size, as on the web.

Documents ``0 … n_real-1`` are the real texts. Every later document ``i`` is drawn with its own
seeded generator ``(seed, 0, i)``: with probability ``dup_rate`` it is a variant of an earlier
document picked uniformly (real, new or itself a variant; kinds as in ``collection_data``:
word edits, morphology changes, a pasted run of words), otherwise a *new* text from the word
chain of its language (``markov_text``) with the length of a random real text. So a document
has about ``dup_rate`` near-copies on average whatever the size of the corpus (with a
10-times larger run holding 10 times the variants, but also 10 times the sources), unlike the
``sources`` corpus, where every variant comes from one of the same ~44,000 real texts.

``doc(i)`` is a pure function of the corpus's inputs, so worker processes make documents
independently and in any order; a variant regenerates its source (recursively, cached).
"""

from __future__ import annotations

from functools import lru_cache

import collection_data as cd
import numpy as np
from markov_text import MarkovText

#: What a variant is, drawn uniformly (the first word edits keep it near-identical, the last
#: are far enough that only containment or nothing finds them).
VARIANT_KINDS = (
    ("edit", 0.02),
    ("edit", 0.1),
    ("edit", 0.3),
    ("edit", 0.5),
    ("morph", 0.3),
    ("paste", 300),
)
#: Queries, in rotation: variants of stored documents, and two kinds of new text.
QUERY_KINDS = (
    ("edit", 0.02),
    ("edit", 0.05),
    ("edit", 0.1),
    ("edit", 0.2),
    ("paste", 300),
    ("paste", 100),
    ("edit", 0.5),
    ("new", 0),
)
DUP_RATE = 0.3


def language(doc_id: str) -> str:
    return "en" if doc_id.startswith(("reuters:", "ng:")) else "ru"


class WebCorpus:
    def __init__(self, real: list[tuple[str, str]], seed: int, dup_rate: float = DUP_RATE) -> None:
        self.real = real
        self.seed = seed
        self.dup_rate = dup_rate
        langs = [language(i) for i, _ in real]
        self.models = {
            lang: MarkovText(t for (_, t), doc_lang in zip(real, langs) if doc_lang == lang)
            for lang in sorted(set(langs))
        }
        self.langs = langs
        self.lengths = np.array([len(t.split()) for _, t in real], dtype=np.int64)
        self.vocab = cd.vocabulary([t for _, t in real[:3000]])
        self._doc = lru_cache(maxsize=8192)(self._make)

    @property
    def n_real(self) -> int:
        return len(self.real)

    def doc(self, i: int) -> tuple[str, str]:
        """``(id, text)`` of document ``i``."""
        return self._doc(i)

    def _make(self, i: int) -> tuple[str, str]:
        if i < self.n_real:
            return self.real[i]
        rng = np.random.default_rng((self.seed, 0, i))
        if rng.random() < self.dup_rate:
            kind, arg = VARIANT_KINDS[int(rng.integers(len(VARIANT_KINDS)))]
            j = int(rng.integers(i))
            return f"w{i}:{kind}{arg}:of:{self._name(j)}", self._variant(kind, arg, j, i, rng)
        return f"w{i}:new", self._new(rng)

    def query(self, j: int, n_docs: int) -> tuple[str, str, str]:
        """``(id, text, kind)`` of query ``j`` against the first ``n_docs`` documents."""
        rng = np.random.default_rng((self.seed, 1, j))
        kind, arg = QUERY_KINDS[j % len(QUERY_KINDS)]
        if kind == "new":
            return f"q{j}:new", self._new(rng), "new"
        src = int(rng.integers(n_docs))
        return (
            f"q{j}:{kind}{arg}:of:{self._name(src)}",
            self._variant(kind, arg, src, n_docs, rng),
            f"{kind}{arg}",
        )

    def _name(self, i: int) -> str:
        return self.real[i][0] if i < self.n_real else f"w{i}"

    def _new(self, rng: np.random.Generator) -> str:
        r = int(rng.integers(self.n_real))
        return self.models[self.langs[r]].generate(int(self.lengths[r]), rng)

    def _variant(
        self, kind: str, arg: float, source: int, below: int, rng: np.random.Generator
    ) -> str:
        text = self.doc(source)[1]
        if kind == "edit":
            return cd.edit(text, float(arg), rng, self.vocab)
        if kind == "morph":
            return cd.morph(text, float(arg), rng)
        host = self.doc(int(rng.integers(below)))[1]
        return cd.paste(host, text, int(arg), rng)

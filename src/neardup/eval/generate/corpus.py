"""The corpus the datasets are generated from: its documents, and how they share text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from neardup.errors import require
from neardup.eval.generate.kinds import NGRAM_FILTER, WORD_RE
from neardup.inputs import CorpusReader


@dataclass(frozen=True)
class CorpusDoc:
    """A document of the source corpus with what the negatives are chosen by."""

    index: int
    id: str
    text: str
    source: str = ""
    topics: tuple[str, ...] = ()


def _script_share(text: str, lang: str) -> float:
    letters = [c for c in text[:5000] if c.isalpha()]
    if not letters:
        return 0.0
    if lang == "ru":
        good = sum(1 for c in letters if "\u0400" <= c <= "\u04ff")
    else:
        good = sum(1 for c in letters if c.isascii())
    return good / len(letters)


def read_corpus(
    path: str | Path, lang: str, min_chars: int, max_chars: int
) -> tuple[list[CorpusDoc], int]:
    """Documents usable as sources: in the length range, mostly in ``lang``'s script, and not
    one of a group of exact duplicates (by text with whitespace collapsed). Returns them in
    corpus order and the number of documents read."""
    records: list[tuple[str, str, str, tuple[str, ...]]] = []
    for doc in CorpusReader([path]):  # the one reader: a JSONL, a CSV, a folder of texts…
        topics = doc.meta.get("topics") or ()
        records.append(
            (
                doc.id,
                doc.text,
                str(doc.meta.get("source") or ""),
                tuple(str(t) for t in topics) if isinstance(topics, list) else (),
            )
        )
    seen: dict[str, int] = {}
    for _, text, _, _ in records:
        key = " ".join(text.split())
        seen[key] = seen.get(key, 0) + 1
    docs: list[CorpusDoc] = []
    for doc_id, text, source, topics in records:
        if not (min_chars <= len(text) <= max_chars) or seen[" ".join(text.split())] > 1:
            continue
        if _script_share(text, lang) < 0.8:
            continue
        docs.append(CorpusDoc(len(docs), doc_id, text, source, topics))
    return docs, len(records)


def _ngrams(text: str, n: int = NGRAM_FILTER) -> set[str]:
    words = [w.lower() for w in WORD_RE.findall(text)]
    return {" ".join(words[i : i + n]) for i in range(len(words) - n + 1)}


class _Reuse:
    """Whether two documents share a run of 8 words (then they are never a negative)."""

    def __init__(self) -> None:
        self._cache: dict[str, set[str]] = {}

    def grams(self, doc: CorpusDoc) -> set[str]:
        found = self._cache.get(doc.id)
        if found is None:
            found = _ngrams(doc.text)
            self._cache[doc.id] = found
        return found

    def shared(self, a: CorpusDoc, b: CorpusDoc) -> bool:
        return not self.grams(a).isdisjoint(self.grams(b))


def _rare_word_matrix(docs: Sequence[CorpusDoc]) -> Any:
    """Binary documents × rare words (document frequency 2 … max(2, 1 %)), words ≥ 4 letters."""
    sparse: Any = require("scipy.sparse", "eval")
    token_sets = [
        sorted({w.lower() for w in WORD_RE.findall(d.text) if len(w) >= 4 and w.isalpha()})
        for d in docs
    ]
    df: dict[str, int] = {}
    for tokens in token_sets:
        for t in tokens:
            df[t] = df.get(t, 0) + 1
    limit = max(2, int(0.01 * len(docs)))
    columns = {t: k for k, t in enumerate(sorted(t for t, c in df.items() if 2 <= c <= limit))}
    rows, cols = [], []
    for r, tokens in enumerate(token_sets):
        for t in tokens:
            c = columns.get(t)
            if c is not None:
                rows.append(r)
                cols.append(c)
    data = np.ones(len(rows), dtype=np.int32)
    return sparse.csr_matrix((data, (rows, cols)), shape=(len(docs), max(1, len(columns))))

"""The generated pair sets of docs/quality.md's leading table, and of the combined model's fit.

Every set is built by :mod:`neardup.eval.generate` from real documents of
``ru_news.jsonl.gz`` (Russian) and ``reuters21578.jsonl.gz`` (English), 800–4,000 characters.
The usable documents are split by position: the even ones make the **eval** pairs
(benchmarks/quality_table.py), the odd ones the **train** pairs (benchmarks/fit_combined.py),
so the combined model never sees a document it is evaluated on. Each set has one positive and
one negative pair per source document:

``exact``      the document against itself with its whitespace and line breaks redone;
               negative: the document against its nearest other document (the largest TF-IDF
               cosine of words among the half's documents: the same story told by another
               outlet or on another day — the hard negatives)
``light``      ``mixed`` edits (substitute+insert+delete) at 5 or 10 %
``inflect``    ``inflect+synonym`` at 20 or 30 % (``inflect`` alone without a thesaurus)
``rewrite``    paraphrase-like: ``mixed+inflect+reorder`` at 30 or 50 %
``paste``      a short passage (5–15 % of the document, a few sentences) against another
               document it was pasted into; negative: the passage against the document's
               nearest other document (without it)
``sentence``   a sentence (8–25 words) against itself with 20 % of its words inflected, 10 %
               substituted, 5 % deleted and 5 % inserted; negative: the sentence of its document
               sharing the most words with it

Negatives sharing any 8-word sequence with their positive's source are dropped (real reuse).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neardup.eval import generate as gen

DATA = Path(os.environ.get("NEARDUP_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
FILES = {"ru": "ru_news.jsonl.gz", "en": "reuters21578.jsonl.gz"}
THESAURUS = Path("/usr/share/mythes/th_ru_RU_v2.dat")
SETS = ("exact", "light", "inflect", "rewrite", "paste", "sentence")


@dataclass
class PairSet:
    """Pairs ``(a[p], b[p])`` with labels 1 (a copy, edited) or 0."""

    a: list[str]
    b: list[str]
    labels: list[int]

    def add(self, a: str, b: str, label: int) -> None:
        self.a.append(a)
        self.b.append(b)
        self.labels.append(label)

    def extend(self, other: PairSet) -> None:
        self.a += other.a
        self.b += other.b
        self.labels += other.labels

    @property
    def y(self) -> np.ndarray:
        return np.asarray(self.labels, dtype=np.int8)


def _respace(text: str, rng: np.random.Generator) -> str:
    words = text.split()
    out = []
    for w in words:
        out.append(w)
        out.append("\n" if rng.random() < 0.05 else "  " if rng.random() < 0.1 else " ")
    return "".join(out).strip()


def _sentences(text: str) -> list[str]:
    return [
        s
        for s in (text[a:b].strip() for a, b in gen.sentence_spans(text))
        if 8 <= len(gen.word_spans(s)) <= 25 and "\n" not in s
    ]


def _no_reuse(a: str, b: str) -> bool:
    return not (gen._ngrams(a) & gen._ngrams(b))


def _nearest(texts: list[str]) -> list[int]:
    """For each text, the other text with the largest TF-IDF cosine of words."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    x = TfidfVectorizer().fit_transform(texts)
    sims = (x @ x.T).toarray()
    np.fill_diagonal(sims, -1.0)
    return [int(i) for i in sims.argmax(axis=1)]


def _closest_sentence(sentence: str, others: list[str]) -> str:
    words = {w.lower() for w in sentence.split()}
    return max(others, key=lambda o: (len(words & {w.lower() for w in o.split()}), o))


def edit_sentence(
    sentence: str, rng: np.random.Generator, language: gen.Language, vocabulary: list[str]
) -> str:
    """The ``sentence`` set's edits: 20 % of the words inflected, 10 % substituted, 5 %
    deleted and 5 % inserted."""
    edits = {"inflect": 0.2, "substitute": 0.1, "delete": 0.05, "insert": 0.05}
    edited, _ = gen.edit_words(sentence, edits, rng, language, vocabulary)
    return str(edited)


def build_sets(lang: str, split: str, docs: int, seed: int = 16) -> dict[str, PairSet]:
    """The six sets of one language from ``docs`` documents of the ``split`` half."""
    corpus, _ = gen.read_corpus(DATA / FILES[lang], lang, 800, 4000)
    half = corpus[0::2] if split == "eval" else corpus[1::2]
    pool = [d.text for d in half[: docs * 3]]
    nearest = _nearest(pool)
    synonyms = gen.load_synonyms(THESAURUS) if lang == "ru" and THESAURUS.exists() else None
    language = gen.Language(lang, synonyms)
    vocabulary = sorted({t[x:y] for t in pool for x, y in gen.word_spans(t)})
    inflect = "inflect+synonym" if synonyms else "inflect"
    sets = {name: PairSet([], [], []) for name in SETS}
    for d in range(min(docs, len(pool))):
        text, other = pool[d], pool[nearest[d]]
        rng = np.random.default_rng([seed, d, 0 if split == "eval" else 1, len(lang)])
        negative_ok = _no_reuse(text, other)
        sets["exact"].add(text, _respace(text, rng), 1)
        for name, kind, levels in (
            ("light", "mixed", (0.05, 0.1)),
            ("inflect", inflect, (0.2, 0.3)),
            ("rewrite", "mixed+inflect+reorder", (0.3, 0.5)),
        ):
            variant, _ = gen.apply_kind(text, kind, levels[d % 2], rng, language, vocabulary)
            sets[name].add(text, variant, 1)
        if negative_ok:
            for name in ("exact", "light", "inflect", "rewrite"):
                sets[name].add(text, other, 0)
        start, length = gen.take_fragment(text, float(rng.uniform(0.05, 0.15)), rng)
        piece = text[start : start + length]
        host = pool[(d + 2) % len(pool)]
        pasted, _ = gen.paste(host, piece, rng)
        sets["paste"].add(piece, pasted, 1)
        if _no_reuse(piece, other):
            sets["paste"].add(piece, other, 0)
        sentences = _sentences(text)
        if len(sentences) >= 2:
            edited = edit_sentence(sentences[0], rng, language, vocabulary)
            sets["sentence"].add(sentences[0], edited, 1)
            sets["sentence"].add(sentences[0], _closest_sentence(sentences[0], sentences[1:]), 0)
    return sets


def all_sets(split: str, docs: int, seed: int = 16) -> dict[str, PairSet]:
    """``{"ru exact": …, "en sentence": …}`` for both languages."""
    out: dict[str, PairSet] = {}
    for lang in FILES:
        for name, pairs in build_sets(lang, split, docs, seed).items():
            out[f"{lang} {name}"] = pairs
    return out


def mixed(sets: dict[str, PairSet]) -> PairSet:
    """Every pair of every set, in one."""
    out = PairSet([], [], [])
    for pairs in sets.values():
        out.extend(pairs)
    return out

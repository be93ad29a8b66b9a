"""The generated pair sets of docs/quality.md's leading table, and of the combined model's fit.

Every set is built by :mod:`neardup.eval.generate` from real documents of
``ru_news.jsonl.gz`` (Russian) and ``reuters21578.jsonl.gz`` (English), 800–4,000 characters.
The usable documents are split by position: the even ones make the **eval** pairs
(benchmarks/quality_table.py), the odd ones the **train** pairs (benchmarks/fit_combined.py),
so the combined model never sees a document it is evaluated on.

Each source document ``A`` has a nearest other document ``B`` (the largest TF-IDF cosine of
words among the half's documents: the same story told by another outlet or on another day). The
four whole-document sets take one *style* per document, in turn, so that their negatives are
hard and their positives are no easier than the negatives:

``plain``      positive ``(A, A′)``; negative ``(A, B)``
``template``   both texts of a pair wrapped in web-page furniture (30–50 % as many words as the
               text): positive ``A`` and ``A′`` on two different sites; negative ``A`` and ``B``
               on the *same* site (shared boilerplate)
``quote``      a common quotation ``Q`` (1–3 sentences of a third document) pasted into ``A``
               and ``B``: positive ``(A+Q, (A+Q)′)``; negative ``(A+Q, B+Q)``

where ``A′`` is the set's edit of ``A``:

``exact``      whitespace and line breaks redone
``light``      ``mixed`` edits (substitute+insert+delete) at 10 or 15 %
``inflect``    ``inflect+synonym`` at 30 or 40 % (synonyms from Debian's ``mythes-ru`` and
               ``mythes-en-us``, when installed: ``apt-get install mythes-ru mythes-en-us``;
               without them ``inflect`` alone)
``rewrite``    paraphrase-like: ``mixed+inflect+synonym+reorder`` at 40 or 60 %

The other two sets:

``paste``      partial copies of different shares. Odd documents: a short passage (3–15 % of
               ``A``, a few sentences) against another document it was pasted into; even
               documents: ``A`` itself against another document into which 20–60 % of ``A`` was
               pasted (the larger part of the host is other text). Half of the pasted passages
               have 15 % of their words edited (``mixed+inflect``). Negative: the same query
               the same host with a passage of ``B`` of the same length pasted instead (same
               story, same surroundings)
``sentence``   a sentence (8–25 words) against itself with 20 % of its words inflected, 10 %
               swapped for a synonym, 10 % substituted, 5 % deleted and 5 % inserted; negatives:
               the sentence of its document sharing the most words with it, and the sentence of
               any other document of the half, of a length within a quarter of its own, sharing
               the most words with it (common phrases)

Negatives sharing any 8-word sequence with their positive's source outside the planted
quotation or furniture are dropped (real reuse).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from neardup.eval import generate as gen

DATA = Path(os.environ.get("NEARDUP_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
FILES = {"ru": "ru_news.jsonl.gz", "en": "reuters21578.jsonl.gz"}
THESAURI = {
    "ru": Path("/usr/share/mythes/th_ru_RU_v2.dat"),
    "en": Path("/usr/share/mythes/th_en_US_v2.dat"),
}
SETS = ("exact", "light", "inflect", "rewrite", "paste", "sentence")
STYLES = ("plain", "template", "quote")
#: English thesaurus entries of short words are mostly abbreviations ("in" → "indium"), not
#: synonyms a writer would use: only words of this many letters or more are swapped.
EN_SYNONYM_MIN_LETTERS = 4


@dataclass
class PairSet:
    """Pairs ``(a[p], b[p])`` with labels 1 (a copy, edited) or 0."""

    a: list[str]
    b: list[str]
    labels: list[int]
    #: What the edits of the positives did, summed (words and a count per edit).
    edits: gen.EditLog = field(default_factory=gen.EditLog)

    def add(self, a: str, b: str, label: int) -> None:
        self.a.append(a)
        self.b.append(b)
        self.labels.append(label)

    def extend(self, other: PairSet) -> None:
        self.a += other.a
        self.b += other.b
        self.labels += other.labels

    def logged(self, log: gen.EditLog) -> None:
        self.edits.words += log.words
        self.edits.sentences += log.sentences
        for edit, n in log.counts.items():
            self.edits.add(edit, n)

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
    """The sentences of 8–25 words, each on one line (Reuters wraps its lines at 65
    characters: the whitespace is normalized first)."""
    flat = " ".join(text.split())
    return [
        s
        for s in (flat[a:b].strip() for a, b in gen.sentence_spans(flat))
        if 8 <= len(gen.word_spans(s)) <= 25
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


def _shared_words(sentence: str, other: str) -> int:
    return len({w.lower() for w in sentence.split()} & {w.lower() for w in other.split()})


def _closest_sentence(sentence: str, others: list[str]) -> str:
    return max(others, key=lambda o: (_shared_words(sentence, o), o))


def _closest_near_length(sentence: str, others: list[str]) -> str | None:
    """The sentence of ``others`` within a quarter of ``sentence``'s length sharing the most
    words with it."""
    n = len(sentence.split())
    near = [o for o in others if abs(len(o.split()) - n) <= n / 4]
    return _closest_sentence(sentence, near) if near else None


def _synonyms(lang: str) -> dict[str, tuple[str, ...]] | None:
    path = THESAURI[lang]
    if not path.exists():
        print(
            f"quality_sets: {path} is missing, so the {lang} sets have no synonym edits and "
            "differ from the documented ones (apt-get install mythes-ru mythes-en-us)",
            file=sys.stderr,
        )
        return None
    table = gen.load_synonyms(path)
    if lang == "en":
        return {w: s for w, s in table.items() if len(w) >= EN_SYNONYM_MIN_LETTERS}
    return table


def _quotation(text: str, rng: np.random.Generator) -> str:
    """One to three consecutive sentences of ``text`` (at most 60 words): a common quotation."""
    spans = gen.sentence_spans(text)
    first = int(rng.integers(max(1, len(spans) - 2)))
    quote = ""
    for a, b in spans[first : first + int(rng.integers(1, 4))]:
        more = f"{quote} {text[a:b].strip()}".strip()
        if quote and len(more.split()) > 60:
            break
        quote = more
    return quote


def _with(text: str, piece: str, rng: np.random.Generator) -> str:
    return gen.paste(text, piece, rng)[0]


class _Builder:
    """The pairs of one language and half (see the module docstring)."""

    def __init__(self, lang: str, split: str, docs: int, seed: int) -> None:
        corpus, _ = gen.read_corpus(DATA / FILES[lang], lang, 800, 4000)
        half = corpus[0::2] if split == "eval" else corpus[1::2]
        self.lang, self.split, self.seed = lang, split, seed
        self.pool = [d.text for d in half[: docs * 3]]
        self.docs = min(docs, len(self.pool))
        self.nearest = _nearest(self.pool)
        synonyms = _synonyms(lang)
        self.language = gen.Language(lang, synonyms)
        self.vocabulary = sorted({t[x:y] for t in self.pool for x, y in gen.word_spans(t)})
        self.inflect = "inflect+synonym" if synonyms else "inflect"
        self.rewrite = "mixed+inflect+synonym+reorder" if synonyms else "mixed+inflect+reorder"
        self.sentences = [_sentences(t) for t in self.pool]
        self.sets = {name: PairSet([], [], []) for name in SETS}

    def rng(self, d: int) -> np.random.Generator:
        return np.random.default_rng(
            [self.seed, d, 0 if self.split == "eval" else 1, len(self.lang)]
        )

    def edit(self, text: str, name: str, level: int, rng: np.random.Generator) -> str:
        if name == "exact":
            return _respace(text, rng)
        kind, levels = {
            "light": ("mixed", (0.1, 0.15)),
            "inflect": (self.inflect, (0.3, 0.4)),
            "rewrite": (self.rewrite, (0.4, 0.6)),
        }[name]
        variant, log = gen.apply_kind(
            text, kind, levels[level], rng, self.language, self.vocabulary
        )
        self.sets[name].logged(log)
        return variant

    def wrap(self, text: str, site: int, rng: np.random.Generator) -> str:
        rate = float(rng.uniform(0.3, 0.5))
        return gen.add_boilerplate(text, rate, rng, self.lang, skin=(site, int(rng.integers(16))))[
            0
        ]

    def documents(self, d: int) -> None:
        rng = self.rng(d)
        text, other = self.pool[d], self.pool[self.nearest[d]]
        style = STYLES[d % len(STYLES)]
        third = self.pool[(d + len(self.pool) // 2) % len(self.pool)]
        quote = _quotation(third, rng)
        negative_ok = _no_reuse(text, other)
        sites = rng.permutation(len(gen.SKINS[self.lang]))[:2].tolist()
        for name in ("exact", "light", "inflect", "rewrite"):
            level = (d // len(STYLES)) % 2
            if style == "plain":
                a, a2, b = text, self.edit(text, name, level, rng), other
            elif style == "template":
                a = self.wrap(text, sites[0], rng)
                a2 = self.wrap(self.edit(text, name, level, rng), sites[1], rng)
                b = self.wrap(other, sites[0], rng)
            else:
                a = _with(text, quote, rng)
                a2 = self.edit(a, name, level, rng)
                b = _with(other, quote, rng)
            self.sets[name].add(a, a2, 1)
            if negative_ok:
                self.sets[name].add(a, b, 0)
        self.paste(d, text, other, rng)
        self.sentence(d, rng)

    def paste(self, d: int, text: str, other: str, rng: np.random.Generator) -> None:
        share = float(rng.uniform(0.03, 0.15) if d % 2 else rng.uniform(0.2, 0.6))
        start, length = gen.take_fragment(text, share, rng)
        piece = text[start : start + length]
        if rng.random() < 0.5:
            piece_pasted = gen.apply_kind(
                piece, "mixed+inflect", 0.15, rng, self.language, self.vocabulary
            )[0]
        else:
            piece_pasted = piece
        query = piece if d % 2 else text
        host = self.pool[(d + 2) % len(self.pool)]
        self.sets["paste"].add(query, _with(host, piece_pasted, rng), 1)
        start_b, length_b = gen.take_fragment(other, min(1.0, length / max(1, len(other))), rng)
        decoy = _with(host, other[start_b : start_b + length_b], rng)
        if _no_reuse(query, decoy) and _no_reuse(text, other):
            self.sets["paste"].add(query, decoy, 0)

    def sentence(self, d: int, rng: np.random.Generator) -> None:
        sentences = self.sentences[d]
        if len(sentences) < 2:
            return
        rates = {"inflect": 0.2, "synonym": 0.1, "substitute": 0.1, "delete": 0.05, "insert": 0.05}
        if not self.language.synonyms:
            rates["inflect"] += rates.pop("synonym")
        source = sentences[0]
        edited, log = gen.edit_words(source, rates, rng, self.language, self.vocabulary)
        self.sets["sentence"].logged(log)
        self.sets["sentence"].add(source, edited, 1)
        self.sets["sentence"].add(source, _closest_sentence(source, sentences[1:]), 0)
        elsewhere = [s for e, ss in enumerate(self.sentences) if e != d for s in ss]
        near = _closest_near_length(source, elsewhere)
        if near is not None and _no_reuse(source, near):
            self.sets["sentence"].add(source, near, 0)


def build_sets(lang: str, split: str, docs: int, seed: int = 16) -> dict[str, PairSet]:
    """The six sets of one language from ``docs`` documents of the ``split`` half."""
    builder = _Builder(lang, split, docs, seed)
    for d in range(builder.docs):
        builder.documents(d)
    return builder.sets


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

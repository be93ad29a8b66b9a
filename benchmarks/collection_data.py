"""Documents and labelled near-duplicates for the collection's quality check and benchmark.

Real texts come from ``../shared/data`` (never copied into the project); variants are made
from them with seeded edits at known rates:

* ``edit``: each word replaced (2/3), deleted (1/6) or followed by an inserted word (1/6) with
  probability ``rate``; new words are drawn from the corpus's own vocabulary;
* ``morph``: the ending of each Cyrillic word of 5+ letters replaced with probability ``rate``
  by another common Russian inflection (what lemmatization is meant to undo);
* ``paste``: a run of ``n`` consecutive words of a source pasted into a host document at a
  random word boundary (a partial copy).

Used by ``tests/index/test_quality.py`` (slow) and ``benchmarks/collection_bench.py``.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"

_ENDINGS = [
    "а",
    "ы",
    "е",
    "у",
    "ой",
    "ом",
    "ами",
    "ах",
    "ей",
    "ого",
    "ому",
    "ым",
    "ая",
    "ое",
    "ие",
    "ых",
]
_CYR = re.compile(r"^[а-яё]{5,}$", re.IGNORECASE)


def iter_texts(
    name: str, *, min_chars: int = 1000, max_chars: int = 20000
) -> Iterator[tuple[str, str]]:
    """``(id, text)`` of a corpus file, skipping texts out of range and exact repeats."""
    seen: set[str] = set()
    with gzip.open(DATA / name, "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            text = row.get("text") or ""
            if not min_chars <= len(text) <= max_chars or text in seen:
                continue
            seen.add(text)
            yield str(row["id"]), text


def load_texts(name: str, n: int, **kwargs: int) -> list[tuple[str, str]]:
    out = []
    for item in iter_texts(name, **kwargs):
        out.append(item)
        if len(out) >= n:
            break
    return out


def vocabulary(texts: list[str], size: int = 20000) -> list[str]:
    words: dict[str, int] = {}
    for t in texts:
        for w in t.split():
            if w.isalpha():
                words[w] = words.get(w, 0) + 1
    return sorted(words, key=lambda w: (-words[w], w))[:size]


def edit(text: str, rate: float, rng: np.random.Generator, vocab: list[str]) -> str:
    words = text.split()
    n = len(words)
    hit = rng.random(n) < rate
    how = rng.random(n)
    new = rng.integers(0, len(vocab), n)
    out: list[str] = []
    for w, h, r, v in zip(words, hit.tolist(), how.tolist(), new.tolist()):
        if not h:
            out.append(w)
        elif r < 2 / 3:
            out.append(vocab[v])
        elif r >= 5 / 6:
            out.extend((w, vocab[v]))
    return " ".join(out)


def morph(text: str, rate: float, rng: np.random.Generator) -> str:
    words = text.split()
    hit = (rng.random(len(words)) < rate).tolist()
    ends = rng.integers(0, len(_ENDINGS), len(words)).tolist()
    out = []
    for w, h, e in zip(words, hit, ends):
        if h and _CYR.match(w):
            w = (w[:-2] if len(w) > 6 else w[:-1]) + _ENDINGS[e]
        out.append(w)
    return " ".join(out)


def paste(host: str, source: str, n_words: int, rng: np.random.Generator) -> str:
    src = source.split()
    start = int(rng.integers(0, max(1, len(src) - n_words)))
    piece = src[start : start + n_words]
    words = host.split()
    at = int(rng.integers(0, len(words) + 1))
    return " ".join(words[:at] + piece + words[at:])


def variants(docs: list[tuple[str, str]], n: int, seed: int = 0) -> list[tuple[str, str, str]]:
    """``n`` labelled variants ``(id, text, kind)`` of the given documents, kinds in rotation."""
    rng = np.random.default_rng(seed)
    vocab = vocabulary([t for _, t in docs[:2000]])
    kinds = [
        "edit:0.02",
        "edit:0.05",
        "edit:0.10",
        "edit:0.20",
        "morph:0.30",
        "paste:300",
        "paste:100",
        "edit:0.03+paste:200",
    ]
    out = []
    for i in range(n):
        src_id, src = docs[int(rng.integers(len(docs)))]
        kind = kinds[i % len(kinds)]
        text = src
        for part in kind.split("+"):
            name, _, arg = part.partition(":")
            if name == "edit":
                text = edit(text, float(arg), rng, vocab)
            elif name == "morph":
                text = morph(text, float(arg), rng)
            else:
                host = docs[int(rng.integers(len(docs)))][1]
                text = paste(host, text, int(arg), rng)
        out.append((f"v{i}:{kind}:{src_id}", text, kind))
    return out

"""Where word shingles stop working: AUC by text length (issue #16's length-adaptive rule).

Passages of a set number of words are cut from ``ru_news.jsonl.gz`` (Russian) and
``reuters21578.jsonl.gz`` (English); a positive pair is a passage against itself edited (20 % of
its words inflected, 10 % substituted, 5 % deleted, 5 % inserted), a negative pair the passage
against the next passage of the same document (one topic, shared names). For each length the
ROC AUC of containment under word 5-shingles (the long-text default), word 1-grams and
character 3- and 4-grams over the same canonical tokens (``auto`` preset) is printed. The rule in
:class:`neardup.spec.ShingleSpec` (``short_below``) is read off this table.

    NEARDUP_DATA=/work/shared/data .venv/bin/python benchmarks/quality_lengths.py
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
from pathlib import Path

import numpy as np

from neardup.eval import methods, metrics
from neardup.eval.generate import Language, edit_words, word_spans
from neardup.fingerprints.pipeline import Pipeline, make_spec

DATA = Path(os.environ.get("NEARDUP_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
FILES = {"ru": "ru_news.jsonl.gz", "en": "reuters21578.jsonl.gz"}
LENGTHS = (5, 10, 15, 20, 30, 40, 60, 100)
SHINGLES = {
    "word k=5": {"k": 5},
    "word k=1": {"k": 1},
    "char k=3": {"k": 3, "unit": "char"},
    "char k=4": {"k": 4, "unit": "char"},
}
RATES = {"inflect": 0.2, "substitute": 0.1, "delete": 0.05, "insert": 0.05}


def passages(language: str, words: int, limit: int) -> list[tuple[str, str]]:
    """Two consecutive passages of ``words`` words from each of ``limit`` documents."""
    found: list[tuple[str, str]] = []
    with gzip.open(DATA / FILES[language], "rt", encoding="utf-8") as fh:
        for line in fh:
            text = json.loads(line).get("text") or ""
            spans = word_spans(text)
            if len(spans) < 2 * words + 10:
                continue
            start = 5
            first = text[spans[start][0] : spans[start + words - 1][1]]
            second = text[spans[start + words][0] : spans[start + 2 * words - 1][1]]
            found.append((first, second))
            if len(found) >= limit:
                break
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=150, help="documents per length")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--languages", default="ru,en")
    args = parser.parse_args()
    specs = {name: make_spec("auto", **opts) for name, opts in SHINGLES.items()}  # type: ignore[arg-type]
    print(f"{'lang':4} {'words':>5} {'tokens':>6} " + " ".join(f"{n:>9}" for n in SHINGLES))
    for language in args.languages.split(","):
        lang = Language(language)
        for words in LENGTHS:
            rng = np.random.default_rng([args.seed, words])
            pool = passages(language, words, args.pairs)
            vocabulary = sorted({s[x:y] for p in pool for s in p for x, y in word_spans(s)})
            a: list[str] = []
            b: list[str] = []
            labels: list[int] = []
            for first, second in pool:
                edited, _ = edit_words(first, RATES, rng, lang, vocabulary)
                a += [first, first]
                b += [edited, second]
                labels += [1, 0]
            y = np.asarray(labels, dtype=np.int8)
            pipeline = Pipeline(specs["word k=5"])
            tokens = np.mean([len(pipeline.canonical(t)) for t in a[::2]])
            row = [
                metrics.roc_auc(y, methods.score_pairs("containment", a, b, spec))
                for spec in specs.values()
            ]
            print(
                f"{language:4} {words:5d} {tokens:6.1f} " + " ".join(f"{v:9.3f}" for v in row),
                flush=True,
            )


if __name__ == "__main__":
    main()

"""Sentence-length pairs: how the shingling settings do on short texts (issue #16).

Generates pairs from sentences (8–20 words) of ``../shared/data/ru_news.jsonl.gz`` — positives
are a sentence against itself edited (30 % of its words inflected, 20 % substituted, 10 %
deleted, 10 % inserted), negatives two sentences of one document (one topic, shared names) —
and prints the ROC AUC of resemblance and containment under several specs, and TF-IDF.
Small and quick (under a minute): run by hand, figures in docs/quality.md ("Short texts").

    NEARDUP_DATA=/work/shared/data .venv/bin/python benchmarks/quality_short.py
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
from pathlib import Path

import numpy as np

from neardup.eval import methods, metrics
from neardup.eval.generate import Language, edit_words, sentence_spans, word_spans
from neardup.fingerprints.pipeline import make_spec
from neardup.spec import DEFAULT_SHORT_BELOW

#: The shared corpora: ``../shared/data`` beside the checkout, or $NEARDUP_DATA (a worktree).
DATA = (
    Path(os.environ.get("NEARDUP_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
    / "ru_news.jsonl.gz"
)
SPECS = {
    "defaults (auto, adaptive)": {"preset": "auto", "k": 5, "short_below": DEFAULT_SHORT_BELOW},
    "ru k=5 (the old default)": {"preset": "ru", "k": 5},
    "ru k=2": {"preset": "ru", "k": 2},
    "ru k=1": {"preset": "ru", "k": 1},
    "ru k=1, every word kept": {
        "preset": "ru",
        "k": 1,
        "keep_stop_words": True,
        "keep_function_words": True,
    },
    "plain k=5": {"preset": "plain", "k": 5},
    "plain char k=3": {"preset": "plain", "k": 3, "unit": "char"},
    "plain char k=4": {"preset": "plain", "k": 4, "unit": "char"},
}


def sentences(limit: int) -> list[tuple[str, str]]:
    """Pairs of two sentences (8–20 words) of one document, one pair a document."""
    found: list[tuple[str, str]] = []
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        for line in fh:
            text = json.loads(line)["text"]
            usable = [
                text[a:b].strip()
                for a, b in sentence_spans(text)
                if 8 <= len(word_spans(text[a:b])) <= 20 and "\n" not in text[a:b].strip()
            ]
            if len(usable) >= 2:
                found.append((usable[0], usable[1]))
            if len(found) >= limit:
                break
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sentences", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    pool = sentences(args.sentences)
    language = Language("ru")
    vocabulary = sorted({s[x:y] for pair in pool for s in pair for x, y in word_spans(s)})
    a: list[str] = []
    b: list[str] = []
    labels: list[int] = []
    rates = {"inflect": 0.3, "substitute": 0.2, "delete": 0.1, "insert": 0.1}
    for sentence, neighbour in pool:
        edited, _ = edit_words(sentence, rates, rng, language, vocabulary)
        # positive: the sentence heavily edited; negative: the next sentence of its document
        a += [sentence, sentence]
        b += [edited, neighbour]
        labels += [1, 0]
    y = np.asarray(labels, dtype=np.int8)
    words = [len(word_spans(s)) for s in a]
    print(f"{len(y)} pairs ({int(y.sum())} positive), {np.mean(words):.1f} words a sentence")
    print(f"{'spec':28} {'resemblance':>11} {'containment':>11} {'tfidf':>7}")
    for name, options in SPECS.items():
        spec = make_spec(str(options.pop("preset")), **options)  # type: ignore[arg-type]
        row = [
            metrics.roc_auc(y, methods.score_pairs(method, a, b, spec))
            for method in ("resemblance", "containment", "tfidf")
        ]
        print(f"{name:28} {row[0]:11.3f} {row[1]:11.3f} {row[2]:7.3f}")


if __name__ == "__main__":
    main()

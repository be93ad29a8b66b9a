"""Seed 003, Table 1, rerun: four news texts compared by 4-word shingles and by TF-IDF.

The paper ("Алгоритм поиска схожих публикаций СМИ", 2015) prints four Russian news texts and a
table of their pairwise similarity: on the left the shingle algorithm "without a hash function,
shingle length 4 words" (containment, asymmetric: row i, column j is the share of text i's
shingles found in text j), on the right its TF-IDF cosine (symmetric). The texts are in
../shared/data/seed003_news.jsonl, cut from the paper as they stand.

    .venv/bin/python benchmarks/seed003_table1.py              # matrices and the paper's, as text
    .venv/bin/python benchmarks/seed003_table1.py --markdown   # the tables of docs/seed003.md

Deterministic: no randomness anywhere (MinHash is seeded, and not used here).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from neardup.fingerprints.pipeline import Pipeline, make_spec
from neardup.score.matrix import similarity_matrix

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "seed003_news.jsonl"

#: Table 1 of seed 003, as printed.
PAPER_SHINGLES = np.array(
    [
        [1, 0.5667, 0.0000, 0.0000],
        [0.9153, 1, 0.0000, 0.0000],
        [0.0000, 0.0000, 1, 0.0000],
        [0.0000, 0.0000, 0.0000, 1],
    ]
)
PAPER_TFIDF = np.array(
    [
        [1, 0.69504, 0.04154, 0.01418],
        [0.69504, 1, 0.02198, 0.01214],
        [0.04154, 0.02198, 1, 0.04032],
        [0.01418, 0.01214, 0.04032, 1],
    ]
)

#: The runs: a label, the matrix method, the preset, and options.
RUNS: list[tuple[str, str, str, dict[str, object]]] = [
    ("shingles k=4, containment, preset ru", "containment", "ru", {}),
    ("shingles k=4, containment, preset plain", "containment", "plain", {}),
    ("TF-IDF cosine, preset ru, smooth idf (default)", "tfidf", "ru", {"idf": "smooth"}),
    (
        "TF-IDF cosine, preset ru, paper idf ln(N/df), binary tf",
        "tfidf",
        "ru",
        {"idf": "paper", "binary": True},
    ),
    ("TF-IDF cosine, preset ru, paper idf ln(N/df), raw tf", "tfidf", "ru", {"idf": "paper"}),
]


def load(path: Path = DATA) -> tuple[list[str], list[str]]:
    ids, texts = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                doc = json.loads(line)
                ids.append(str(doc["id"]))
                texts.append(doc["text"])
    return ids, texts


def run(texts: list[str]) -> dict[str, np.ndarray]:
    out = {}
    for label, method, preset, options in RUNS:
        spec = make_spec(preset, k=4)
        out[label] = similarity_matrix(texts, method=method, spec=spec, **options).matrix  # type: ignore[arg-type]
    return out


def shingle_counts(texts: list[str], preset: str = "ru") -> tuple[int, int, int]:
    """``|S1|``, ``|S2|``, ``|S1 ∩ S2|`` of the 4-word shingles of texts 1 and 2."""
    pipeline = Pipeline(make_spec(preset, k=4))
    a, b = pipeline.fingerprints(texts[0]), pipeline.fingerprints(texts[1])
    m = pipeline.compare(texts[0], texts[1])
    return len(a), len(b), m.shared


def _fmt(matrix: np.ndarray, digits: int) -> list[list[str]]:
    return [[f"{v:.{digits}f}" for v in row] for row in matrix]


def as_text(results: dict[str, np.ndarray], ids: list[str]) -> str:
    lines = []
    for label, matrix in [
        ("PAPER: shingles k=4 (Table 1, left)", PAPER_SHINGLES),
        ("PAPER: TF-IDF (Table 1, right)", PAPER_TFIDF),
        *results.items(),
    ]:
        lines.append(label)
        lines.append("      " + " ".join(f"{i:>8}" for i in ids))
        for i, row in zip(ids, _fmt(matrix, 5)):
            lines.append(f"{i:>5} " + " ".join(f"{v:>8}" for v in row))
        lines.append("")
    return "\n".join(lines)


def as_markdown(results: dict[str, np.ndarray], ids: list[str]) -> str:
    parts = []
    for label, matrix in results.items():
        parts.append(f"**{label}**\n")
        parts.append("| text | " + " | ".join(ids) + " |")
        parts.append("|---|" + "---:|" * len(ids))
        for i, row in zip(ids, _fmt(matrix, 4)):
            parts.append(f"| {i} | " + " | ".join(row) + " |")
        parts.append("")
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(
            f"no data at {args.data}: this needs ../shared/data/seed003_news.jsonl", file=sys.stderr
        )
        return 2
    ids, texts = load(args.data)
    results = run(texts)
    print(as_markdown(results, ids) if args.markdown else as_text(results, ids))
    for preset in ("ru", "plain"):
        s1, s2, shared = shingle_counts(texts, preset)
        print(
            f"preset {preset}: |S1| = {s1}, |S2| = {s2}, |S1 ∩ S2| = {shared}: "
            f"C(1 in 2) = {shared / s1:.4f}, C(2 in 1) = {shared / s2:.4f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

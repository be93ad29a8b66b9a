"""The collection on short texts, with and without the length-adaptive rule (issue #16).

For Russian and English pair sets built from the evaluation half of the generated sets
(benchmarks/quality_sets.py), every second text of a set goes into one in-memory collection
(policy ``allow``) and every first text is checked against it. A pair scores the measure the
collection reports for it, 0 when its candidate generation did not find it; "found" is the
share of the positive pairs it found (retrieval recall), reported apart from the AUC. Sets:

``sentence``          an edited sentence (8–25 words) against its original; resemblance
``sentence in doc``   that edited sentence against its whole source document, and against
                      the document nearest to it; containment (the larger of the two)
``doc with sentence`` the same pairs the other way: the sentences stored, the documents
                      checked (a long text holding a short stored one)
``paste``             a passage against the document it was pasted into; containment
``light``             whole documents with 5–10 % edits (long pairs: the rule must change
                      nothing); resemblance

Columns: ``compare`` — the AUC of ``neardup compare`` on the same pairs (every pair scored:
what the collection could reach with perfect retrieval); ``before`` — the collection's spec
without the rule (what a collection did until now); ``after`` — the default spec with it.
A second table gives the cost on a SQLite collection of long documents and sentences:
bytes per document, insert rate and check time (CPU seconds, with the load average).

    NEARDUP_DATA=/work/shared/data .venv/bin/python benchmarks/collection_short.py --update-docs
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from quality_common import table, update_section
from quality_sets import DATA, FILES, PairSet, _Builder, _no_reuse, _sentences, build_sets

from neardup.eval import generate as gen
from neardup.eval.metrics import roc_auc
from neardup.fingerprints.pipeline import Pipeline, default_spec
from neardup.index import Collection, IndexSpec
from neardup.spec import Spec

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "collection.md"
SECTION = "collection-short"
#: IndexSpec.short_window of the runs (``--short-window``).
SHORT_WINDOW = [IndexSpec().short_window]


def index_spec() -> IndexSpec:
    return IndexSpec(policy="allow", short_window=SHORT_WINDOW[0])


def sentence_in_doc(lang: str, docs: int, seed: int) -> PairSet:
    """Edited sentences (the ``sentence`` set's edits) against their source document (1) and
    the document nearest to it (0)."""
    source = _Builder(lang, "eval", docs, seed)
    rates = {"inflect": 0.2, "synonym": 0.1, "substitute": 0.1, "delete": 0.05, "insert": 0.05}
    if not source.language.synonyms:
        rates["inflect"] += rates.pop("synonym")
    out = PairSet([], [], [])
    for d in range(source.docs):
        if not source.sentences[d]:
            continue
        rng = np.random.default_rng([seed, d, 7, len(lang)])
        edited, _ = gen.edit_words(
            source.sentences[d][0], rates, rng, source.language, source.vocabulary
        )
        out.add(edited, source.pool[d], 1)
        other = source.pool[source.nearest[d]]
        if _no_reuse(edited, other):
            out.add(edited, other, 0)
    return out


def decisive(measure: str, resemblance: float, query_in_doc: float, doc_in_query: float) -> float:
    """The value the collection's threshold applies to (containment: the larger one)."""
    return resemblance if measure == "resemblance" else max(query_in_doc, doc_in_query)


def collection_scores(spec: Spec, pairs: PairSet, measure: str) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's score as the collection reports it (0 unfound) and whether it was found."""
    stored = sorted(set(pairs.b))
    ids = {text: str(i) for i, text in enumerate(stored)}
    scores = np.zeros(len(pairs.labels))
    found = np.zeros(len(pairs.labels), dtype=bool)
    with Collection.create("memory:", spec, index_spec()) as col:
        col.add_many((ids[t], t) for t in stored)
        checked: dict[str, dict[str, float]] = {}
        for p, (a, b) in enumerate(zip(pairs.a, pairs.b, strict=True)):
            if a not in checked:
                checked[a] = {
                    m.id: decisive(
                        measure,
                        m.resemblance,
                        m.containment_query_in_doc,
                        m.containment_doc_in_query,
                    )
                    for m in col.check(a, top=None).matches
                }
            if ids[b] in checked[a]:
                scores[p], found[p] = checked[a][ids[b]], True
    return scores, found


def compare_scores(spec: Spec, pairs: PairSet, measure: str) -> np.ndarray:
    pipeline = Pipeline(spec)
    out = []
    for a, b in zip(pairs.a, pairs.b, strict=True):
        m = pipeline.compare(a, b)
        out.append(decisive(measure, m.resemblance, m.containment_ab, m.containment_ba))
    return np.array(out)


def quality(docs: int, seed: int) -> list[list[object]]:
    rule, plain = default_spec(), default_spec().fixed()
    rows: list[list[object]] = []
    for lang in FILES:
        built = build_sets(lang, "eval", docs, seed)
        in_doc = sentence_in_doc(lang, docs, seed)
        sets = {
            "sentence": (built["sentence"], "resemblance"),
            "sentence in doc": (in_doc, "containment"),
            "doc with sentence": (PairSet(in_doc.b, in_doc.a, in_doc.labels), "containment"),
            "paste": (built["paste"], "containment"),
            "light": (built["light"], "resemblance"),
        }
        for name, (pairs, measure) in sets.items():
            y = pairs.y
            ceiling = roc_auc(y, compare_scores(rule, pairs, measure))
            before, found_before = collection_scores(plain, pairs, measure)
            after, found_after = collection_scores(rule, pairs, measure)
            rows.append(
                [
                    f"{lang} {name}",
                    f"{int(y.sum())} / {int((y == 0).sum())}",
                    measure,
                    ceiling,
                    roc_auc(y, before),
                    roc_auc(y, after),
                    float(found_before[y == 1].mean()),
                    float(found_after[y == 1].mean()),
                ]
            )
            print(rows[-1], flush=True)
    return rows


def cost_texts(docs: int) -> tuple[list[str], list[str]]:
    """Long Russian documents, and one sentence (edited) of each as a short text."""
    corpus, _ = gen.read_corpus(DATA / FILES["ru"], "ru", 800, 4000)
    long_texts = [d.text for d in corpus[:docs]]
    rng = np.random.default_rng(5)
    language = gen.Language("ru", None)
    vocabulary = sorted({t[x:y] for t in long_texts[:200] for x, y in gen.word_spans(t)})
    short_texts = []
    for text in long_texts:
        sentences = _sentences(text)
        if sentences:
            edited, _ = gen.edit_words(
                sentences[-1], {"substitute": 0.1, "inflect": 0.2}, rng, language, vocabulary
            )
            short_texts.append(edited)
    return long_texts, short_texts


def cost(docs: int) -> list[list[object]]:
    """Bytes per document, insert rates and check time of a SQLite collection, both specs."""
    long_texts, short_texts = cost_texts(docs)
    long_items = [(f"l{i}", t) for i, t in enumerate(long_texts)]
    short_items = [(f"s{i}", t) for i, t in enumerate(short_texts)]
    queries = short_texts[: min(200, len(short_texts))]
    warm = Pipeline(default_spec())
    for text in long_texts + short_texts:  # every word form analyzed once before any clock
        warm.canonical(text)
    rows: list[list[object]] = []
    for label, spec in (("before", default_spec().fixed()), ("after", default_spec())):
        with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_CACHE")) as tmp:
            path = Path(tmp) / "c.db"
            with Collection.create(path, spec, index_spec()) as col:
                col.add_many(long_items[:50])  # kernels compiled first
                load = os.getloadavg()[0]
                t0 = time.process_time()
                col.add_many(long_items[50:])
                t1 = time.process_time()
                col.add_many(short_items)
                t2 = time.process_time()
                for q in queries:
                    col.check(q)
                check = time.process_time() - t2
                stats = col.stats()
            rows.append(
                [
                    label,
                    stats["documents"],
                    round(stats["bytes_per_document"]),
                    f"{stats['postings_per_document']:.1f}",
                    round((len(long_items) - 50) / (t1 - t0)),
                    round(len(short_items) / (t2 - t1)),
                    1000 * check / len(queries),
                    f"{load:.1f}",
                ]
            )
            print(rows[-1], flush=True)
    return rows


def render(quality_rows: Sequence[Sequence[object]], cost_rows: Sequence[Sequence[object]]) -> str:
    head = [
        "set",
        "pairs + / −",
        "measure",
        "compare AUC",
        "collection AUC before",
        "after",
        "found before",
        "after",
    ]
    cost_head = [
        "spec",
        "documents",
        "bytes / doc",
        "postings / doc",
        "insert, long docs / CPU s",
        "then short texts / CPU s",
        "check ms CPU (short text)",
        "load",
    ]
    return (
        "Command: `NEARDUP_DATA=/work/shared/data .venv/bin/python "
        "benchmarks/collection_short.py --update-docs`. Before: the default spec without the "
        "rule (what a collection did until now); after: with it.\n\n"
        + table(head, quality_rows)
        + "\n\nCost on SQLite: Russian news documents (800–4,000 characters) inserted first, then "
        "one edited sentence of each; then 200 of the sentences checked:\n\n"
        + table(cost_head, cost_rows)
        + f"\n\nPython, {os.cpu_count()} cores shared with other jobs; {time.strftime('%Y-%m-%d')}."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=150, help="source documents per language")
    parser.add_argument("--cost-docs", type=int, default=2000, help="documents of the cost run")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--update-docs", action="store_true")
    parser.add_argument("--short-window", type=int, default=IndexSpec().short_window)
    args = parser.parse_args()
    SHORT_WINDOW[0] = args.short_window
    quality_rows = quality(args.docs, args.seed)
    cost_rows = cost(args.cost_docs)
    body = render(quality_rows, cost_rows)
    print(body)
    if args.update_docs:
        update_section(SECTION, body, DOCS)


if __name__ == "__main__":
    main()

"""The check a teacher reads: essays with known pastes, rewrites, quotes and references, checked
against a collection; and rewrite marks on real pairs of different stories about one event.

Essays are built from real texts of ``NEARDUP_DATA`` (never copied into the project): a host of
15 unrelated sentences of the dev sets (pairs labelled 0, which no stored text holds: an
otherwise original text), into which, after one of its sentences, one piece is put:

* ``sentence`` — a sentence of 8 to 30 words of a stored document;
* ``paragraph`` — a run of 3 to 6 sentences of a stored document;
* ``share2`` / ``share5`` / ``share10`` — 2, 5 or 10 % of a stored document's words, in a row;
* ``rewrite`` — a paragraph of three dev paraphrase pairs (ParaPhraser, STS-B ru; MSRP, STS-B
  en; label 1): the first sentences were put into a stored document before the collection
  was built, the second ones make the query's paragraph (sentence-level rewrites in context);
* ``quote-ref`` — a stored sentence in quotation marks with ``[1]`` and a reference list at the
  end of the essay (cited); ``quote-bare`` — in quotation marks with no reference (borrowed);
* ``fake-ref`` — a stored sentence followed by a reference no list resolves, ``[7]`` or
  ``(Иванов, 2010)`` / ``(Smith, 2010)`` (borrowed: "reference not found");
* ``none`` — nothing.

The collection: ``--docs`` pieces of at most 2,000 characters of Russian news, Reuters, 20
Newsgroups and Russian literature (the build of ``benchmarks/sentence_candidates.py``; ``--db``
keeps it and reuses it). Each essay goes through ``Collection.check`` with its defaults.

Printed: *sentence recall* (pasted sentences with half their characters or more inside the
passages), *paste recall* (mean share of a paste's characters inside passages, per kind),
*rewrite recall* in the collection, the citation verdicts, PAN-style plagdet of the query-side
passages (Potthast et al., COLING 2010: character macro precision and recall, granularity,
plagdet = F1 / log2(1 + granularity)) over every essay, and the mean and worst |figure − truth|
where the figure is the check's uniqueness and the truth the share of the essay's tokens
outside the pieces put in.

Then the rewrite precision (``neardup.passages.rewrites``), the pair alone as ``compare
--fragments`` aligns it: false "rewritten" marks per pair of different news stories about one
event (``tgcontest_same_event`` ru + en: label 1, the same event told by two outlets, and label
0, two events of one topic; with ``--mined N``, N same-topic pairs of ru_news and of Reuters
with TF-IDF cosine 0.3–0.7 and no verbatim passage) and the recall of true rewrites (three dev
paraphrase pairs placed inside two unrelated news texts), each on the two halves of a seeded
split (the margin rule was tuned on half 0; half 1 is the held-out check), with the finder's
defaults and with the margin rule off (``min_margin=-1``).

    NEARDUP_DATA=/work/shared/data .venv/bin/python benchmarks/checker_bench.py --docs 5000
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import sys
import tempfile
import time
import zlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sentence_candidates import (  # noqa: E402
    DATA,
    after_a_sentence,
    build,
    corpus,
    essay_hosts,
    is_sentence,
    paraphrase_pairs,
    texts,
)

from neardup.fingerprints.pipeline import Pipeline, default_spec  # noqa: E402
from neardup.index import Collection, IndexSpec  # noqa: E402
from neardup.passages.align import Aligner  # noqa: E402
from neardup.passages.rewrites import RewriteFinder, sentence_spans  # noqa: E402

KINDS = (
    "sentence",
    "paragraph",
    "share2",
    "share5",
    "share10",
    "rewrite",
    "quote-ref",
    "quote-bare",
    "fake-ref",
    "none",
)
PASTES = ("sentence", "paragraph", "share2", "share5", "share10")
QUOTES = {"ru": ("«", "»"), "en": ("“", "”")}
REFERENCE_LIST = {
    "ru": "\n\nСписок литературы\n1. Петров П. П. Заметки о городе. — М.: Наука, 2015. — 120 с.",
    "en": "\n\nReferences\n1. Peters, P. (2015). Notes on the city. London: Harbour Press.",
}
FAKE_REFS = {"ru": (" [7]", " (Иванов, 2010)"), "en": (" [7]", " (Smith, 2010)")}
Span = tuple[int, int]


@dataclass
class Essay:
    lang: str
    kind: str
    query: str
    #: the pieces put in: character spans of the query
    spans: list[Span] = field(default_factory=list)


def stored_sentence(
    docs: list[tuple[str, str, str]], mine: list[int], rng: np.random.Generator
) -> str:
    while True:
        _, _, text = docs[mine[int(rng.integers(0, len(mine)))]]
        found = [text[a:b] for a, b in sentence_spans(text) if is_sentence(text[a:b])]
        if found:
            return " ".join(found[int(rng.integers(0, len(found)))].split())


def stored_paragraph(
    docs: list[tuple[str, str, str]], mine: list[int], rng: np.random.Generator
) -> str:
    while True:
        _, _, text = docs[mine[int(rng.integers(0, len(mine)))]]
        spans = sentence_spans(text)
        if len(spans) >= 4:
            size = int(rng.integers(3, min(6, len(spans) - 1) + 1))
            at = int(rng.integers(0, len(spans) - size + 1))
            piece = text[spans[at][0] : spans[at + size - 1][1]]
            if 200 <= len(piece) <= 1500:
                return " ".join(piece.split())


def stored_share(
    docs: list[tuple[str, str, str]], mine: list[int], rng: np.random.Generator, percent: int
) -> str:
    _, _, text = docs[mine[int(rng.integers(0, len(mine)))]]
    words = text.split()
    n = max(1, round(len(words) * percent / 100))
    at = int(rng.integers(0, max(1, len(words) - n + 1)))
    return " ".join(words[at : at + n])


def make_essays(
    docs: list[tuple[str, str, str]], per_kind: int, seed: int
) -> tuple[list[tuple[str, str, str]], list[Essay]]:
    """The collection (rewrite sources put in) and the essays, ``per_kind`` per kind and
    language."""
    rng = np.random.default_rng(seed)
    docs = list(docs)
    essays: list[Essay] = []
    for lang in ("ru", "en"):
        hosts = essay_hosts(lang, len(KINDS) * per_kind, rng)
        mine = [i for i, (_, la, _) in enumerate(docs) if la == lang]
        pairs = paraphrase_pairs(lang, 3 * per_kind, rng)
        opening, closing = QUOTES[lang]
        for k, kind in enumerate(KINDS):
            for n in range(per_kind):
                host = hosts[k * per_kind + n]
                tail, piece, extra = "", "", ""
                if kind == "sentence" or kind.startswith(("quote", "fake")):
                    piece = stored_sentence(docs, mine, rng)
                elif kind == "paragraph":
                    piece = stored_paragraph(docs, mine, rng)
                elif kind.startswith("share"):
                    piece = stored_share(docs, mine, rng, int(kind[5:]))
                elif kind == "rewrite":
                    chunk = pairs[3 * n : 3 * n + 3]
                    piece = " ".join(b for _, b in chunk)
                    i = mine[int(rng.integers(0, len(mine)))]
                    doc_id, la, text = docs[i]
                    stored, _, _ = after_a_sentence(text, " ".join(a for a, _ in chunk), rng)
                    docs[i] = (doc_id, la, stored)
                if kind.startswith("quote"):
                    piece = opening + piece.rstrip(".") + closing
                    extra = " [1]." if kind == "quote-ref" else "."
                    tail = REFERENCE_LIST[lang] if kind == "quote-ref" else ""
                elif kind == "fake-ref":
                    extra = FAKE_REFS[lang][n % 2]
                if kind == "none":
                    essays.append(Essay(lang, kind, host))
                    continue
                query, s0, s1 = after_a_sentence(host, piece + extra, rng)
                essays.append(Essay(lang, kind, query + tail, [(s0, s0 + len(piece))]))
    return docs, essays


def overlap(span: Span, others: Iterable[Span]) -> int:
    """Characters of ``span`` inside the union of ``others``."""
    marks = np.zeros(span[1] - span[0], dtype=bool)
    for a, b in others:
        lo, hi = max(a, span[0]), min(b, span[1])
        if hi > lo:
            marks[lo - span[0] : hi - span[0]] = True
    return int(marks.sum())


def true_uniqueness(pipeline: Pipeline, essay: Essay) -> float:
    starts = np.asarray(pipeline.analyze(essay.query).canonical.starts, dtype=np.int64)
    if starts.shape[0] == 0:
        return 1.0
    inside = np.zeros(starts.shape[0], dtype=bool)
    for a, b in essay.spans:
        inside |= (starts >= a) & (starts < b)
    return 1.0 - float(inside.mean())


def check_all(col: Collection, essays: list[Essay]) -> list[dict[str, Any]]:
    pipeline = Pipeline(default_spec())
    rows = []
    for essay in essays:
        c0 = time.process_time()
        result = col.check(essay.query, fragments=True)
        cpu = time.process_time() - c0
        alignment = result.alignment
        passages = [] if alignment is None else [*alignment.passages, *alignment.rewritten]
        rows.append(
            {
                "essay": essay,
                "detections": [(p.a_start, p.a_end) for p in passages],
                "statuses": [(p.a_start, p.a_end, p.citation, p.kind) for p in passages],
                "figure": result.uniqueness,
                "truth": true_uniqueness(pipeline, essay),
                "cpu": cpu,
            }
        )
    return rows


def plagdet(rows: list[dict[str, Any]]) -> dict[str, float]:
    """PAN character measures on the query side over every essay."""
    precisions, recalls, granularity = [], [], []
    for row in rows:
        cases, found = row["essay"].spans, row["detections"]
        for d in found:
            precisions.append(overlap(d, cases) / max(1, d[1] - d[0]))
        for s in cases:
            recalls.append(overlap(s, found) / max(1, s[1] - s[0]))
            hits = sum(1 for d in found if overlap(s, [d]) > 0)
            if hits:
                granularity.append(hits)
    p = float(np.mean(precisions)) if precisions else 1.0
    r = float(np.mean(recalls)) if recalls else 0.0
    g = float(np.mean(granularity)) if granularity else 1.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "granularity": g, "plagdet": f1 / math.log2(1 + g)}


def essay_table(rows: list[dict[str, Any]]) -> list[str]:
    by_kind: dict[str, list[float]] = defaultdict(list)
    verdicts: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        essay = row["essay"]
        for span in essay.spans:
            covered = overlap(span, row["detections"]) / max(1, span[1] - span[0])
            by_kind[essay.kind].append(covered)
            want = {"quote-ref": ("cited",), "fake-ref": ("unresolved",)}
            statuses = want.get(essay.kind, (None, "unresolved"))
            right = [(a, b) for a, b, c, _ in row["statuses"] if c in statuses]
            if essay.kind.startswith(("quote", "fake")):
                verdicts[essay.kind].append(overlap(span, right) / max(1, span[1] - span[0]))
    sentences = by_kind["sentence"]
    pastes = [c for k in PASTES for c in by_kind[k]]
    errors = [abs(r["figure"] - r["truth"]) for r in rows]
    pan = plagdet(rows)
    cpu = sorted(r["cpu"] for r in rows)
    lines = [
        "| measure | value |",
        "|---|---|",
        f"| sentence recall (half a pasted sentence marked) | "
        f"{np.mean([c >= 0.5 for c in sentences]):.3f} |",
        f"| paste recall (characters marked; sentences, paragraphs, 2/5/10 %) | "
        f"{np.mean(pastes):.3f} |",
    ]
    lines += [f"| — {k} | {np.mean(by_kind[k]):.3f} |" for k in PASTES]
    lines += [
        f"| rewrite recall in the collection (characters marked) | "
        f"{np.mean(by_kind['rewrite']):.3f} |",
        f"| quotation with a reference that resolves: counted cited | "
        f"{np.mean(verdicts['quote-ref']):.3f} |",
        f"| quotation with no reference: counted borrowed | "
        f"{np.mean(verdicts['quote-bare']):.3f} |",
        f'| made-up reference: borrowed, "reference not found" | '
        f"{np.mean(verdicts['fake-ref']):.3f} |",
        f"| plagdet (precision / recall / granularity) | {pan['plagdet']:.3f} "
        f"({pan['precision']:.3f} / {pan['recall']:.3f} / {pan['granularity']:.3f}) |",
        f"| \\|figure − truth\\| mean / worst (points of %) | {100 * np.mean(errors):.1f} / "
        f"{100 * max(errors):.1f} |",
        f"| check CPU p50 / p99 (ms) | {1000 * cpu[len(cpu) // 2]:.0f} / "
        f"{1000 * cpu[min(len(cpu) - 1, int(0.99 * len(cpu)))]:.0f} |",
    ]
    return lines


# ---------------------------------------------------------------- rewrite precision, pairs


def half(key: str) -> int:
    return zlib.crc32(key.encode()) % 2


def dev_rows(name: str) -> list[dict[str, Any]]:
    with gzip.open(DATA / "dev" / f"{name}.jsonl.gz", "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def news(lang: str, low: int, high: int) -> list[str]:
    name = "ru_news.jsonl.gz" if lang == "ru" else "reuters21578.jsonl.gz"
    return [t for t in texts(name) if low <= len(t) <= high]


def same_event_pairs(mined: int, seed: int) -> list[dict[str, Any]]:
    out = []
    for lang in ("ru", "en"):
        for n, row in enumerate(dev_rows(f"tgcontest_same_event_{lang}")):
            key = f"tg-{lang}-{n}"
            out.append({"key": key, "group": f"same-event label {row['label']}", **row})
    if mined:
        from neardup.score.tfidf import TfidfModel

        plain = Aligner(rewrites=False)
        rng = np.random.default_rng(seed)
        for lang in ("ru", "en"):
            docs = news(lang, 1500 if lang == "ru" else 1200, 8000)
            docs = [docs[i] for i in rng.permutation(len(docs))[:3000].tolist()]
            matrix = TfidfModel().fit_transform(docs)
            sim = (matrix @ matrix.T).toarray()
            found = np.argwhere(np.triu((sim > 0.3) & (sim < 0.7), 1))
            used: set[int] = set()
            made = 0
            for i, j in found[rng.permutation(len(found))].tolist():
                if made >= mined or i in used or j in used or docs[i][:200] == docs[j][:200]:
                    continue
                if plain.align(docs[i], {"b": docs[j]}).sources[0].passages:
                    continue
                used |= {i, j}
                made += 1
                key = f"mined-{lang}-{i}-{j}"
                out.append({"key": key, "group": f"mined {lang}", "a": docs[i], "b": docs[j]})
    return out


def rewrites_in_news(per_lang: int, seed: int) -> list[dict[str, Any]]:
    """Three dev paraphrase pairs placed inside two unrelated news texts."""
    rng = np.random.default_rng(seed)
    out = []
    sets = {"ru": "paraphraser_test_ru", "en": "msrp_train_en"}
    for lang, name in sets.items():
        pairs = [r for r in dev_rows(name) if r["label"] == 1]
        pairs = [pairs[i] for i in rng.permutation(len(pairs)).tolist()]
        docs = news(lang, 1500 if lang == "ru" else 1200, 6000)
        docs = [docs[i] for i in rng.permutation(len(docs)).tolist()]
        for k in range(per_lang):
            chunk = pairs[3 * k : 3 * k + 3]
            ends = [(r["a"].strip(), r["b"].strip()) for r in chunk]
            a_piece = " ".join(s if s[-1:] in ".!?…" else s + "." for s, _ in ends)
            b_piece = " ".join(s if s[-1:] in ".!?…" else s + "." for _, s in ends)
            a, s0, s1 = after_a_sentence(docs[2 * k], a_piece, rng)
            b, _, _ = after_a_sentence(docs[2 * k + 1], b_piece, rng)
            out.append({"key": f"pos-{lang}-{k}", "lang": lang, "a": a, "b": b, "span": (s0, s1)})
    return out


def rewrite_precision(mined: int, per_lang: int, seed: int) -> list[str]:
    negatives = same_event_pairs(mined, seed)
    positives = rewrites_in_news(per_lang, seed)
    settings = {"defaults": RewriteFinder(), "margin off": RewriteFinder(min_margin=-1.0)}
    lines = [
        "| finder | half | false rewrite marks per pair: "
        + " / ".join(sorted({n["group"] for n in negatives}))
        + " / all | rewrite recall in context ru / en |",
        "|---|---|---|---|",
    ]
    for name, finder in settings.items():
        aligner = Aligner()
        aligner._finder = finder  # the product's aligner with this finder
        marks: dict[tuple[int, str], list[int]] = defaultdict(list)
        recall: dict[tuple[int, str], list[float]] = defaultdict(list)
        for pair in negatives:
            found = aligner.align(pair["a"], {"b": pair["b"]}).sources[0].rewritten
            marks[(half(pair["key"]), pair["group"])].append(len(found))
        for pair in positives:
            match = aligner.align(pair["a"], {"b": pair["b"]}).sources[0]
            spans = [(p.a_start, p.a_end) for p in [*match.passages, *match.rewritten]]
            s0, s1 = pair["span"]
            recall[(half(pair["key"]), pair["lang"])].append(overlap((s0, s1), spans) / (s1 - s0))
        for h in (0, 1):
            groups = sorted(g for hh, g in marks if hh == h)
            every = [m for g in groups for m in marks[(h, g)]]
            per = " / ".join(f"{np.mean(marks[(h, g)]):.3f}" for g in groups)
            lines.append(
                f"| {name} | {h} | {per} / **{np.mean(every):.3f}** ({len(every)} pairs) | "
                f"{np.mean(recall[(h, 'ru')]):.3f} / {np.mean(recall[(h, 'en')]):.3f} |"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--cases", type=int, default=30, help="essays per kind and language")
    ap.add_argument("--pairs", type=int, default=150, help="rewrites in news per language")
    ap.add_argument("--mined", type=int, default=0, help="same-topic news pairs per language")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--db", type=Path, help="keep the collection here (reused when it exists)")
    ap.add_argument("--skip-collection", action="store_true")
    args = ap.parse_args(argv)
    load0 = os.getloadavg()
    if not args.skip_collection:
        docs, used = corpus(args.docs, 2000, set())
        docs, essays = make_essays(docs, args.cases, args.seed)
        path = args.db or Path(tempfile.mkdtemp(prefix="checker-")) / "collection.db"
        if path.exists():
            col, made = Collection.open(str(path)), {"reused": str(path)}
        else:
            col, made = build(docs, IndexSpec().sentence_bands, path)
        print(json.dumps({"built": made, "texts_read": used}), flush=True)
        rows = check_all(col, essays)
        col.close()
        print(f"\n{len(essays)} essays, {args.docs:,} documents\n")
        print("\n".join(essay_table(rows)), flush=True)
    print("\n" + "\n".join(rewrite_precision(args.mined, args.pairs, args.seed)))
    print(f"\nload {load0[0]:.1f} → {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

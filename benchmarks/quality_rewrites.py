"""Rewritten passages (:mod:`neardup.passages.rewrites`): the sentence threshold chosen on real
labelled
paraphrases, then the PAN text-alignment measures per kind of edit on generated rewrites.

``--calibrate``: the human-labelled sentence pairs of ``../shared/data/dev/`` (ParaPhraser
headlines, STS-B ru, MSRP, STS-B en). Each set is split in two halves (a seeded permutation);
the threshold is the one whose WORST F1 over the sets is highest on the first halves, and its
F1 on the held-out halves is reported. A pair is scored as the module scores it inside a text:
the set's pairs are taken 25 at a time, as if the 25 first sentences were one text and the 25
second sentences another, so the pair-local IDF counts 50 sentences as it would in two short
news texts; the off-diagonal pairs of those blocks (sentences of different pairs) give the rate
at which unrelated sentences score above the threshold.

``--pan``: real documents (``ru_news.jsonl.gz``, ``reuters21578.jsonl.gz``, 1,500–6,000
characters). A run of 3–6 sentences of a source is edited (one kind per row, below) and pasted
at a sentence boundary of an unrelated document (the host: no 8 words in a row shared with the
source); the truth is the pasted span in the host and the run's span in the source. Each pair
(host with paste, source) goes through the verbatim aligner alone (``Aligner()`` defaults),
the rewrite finder alone (defaults) and both (the finder skipping the aligner's query spans:
what the product shows), and the PAN measures (Potthast et al., "An Evaluation Framework for
Plagiarism Detection", COLING 2010: character-level macro precision and recall over
detections and cases, granularity, plagdet = F1 / log2(1 + granularity)) are computed per kind
over that kind's pairs. Another set of pairs, an unrelated document against a source with
nothing pasted, counts the false detections.

Kinds: ``verbatim``; ``synonym`` (half of the words tried against a MyThes thesaurus:
/usr/share/mythes/, Debian's mythes-ru and mythes-en-us); ``inflect`` (30 % of the words);
``delete`` (20 %); ``mixed`` (substitute+insert+delete, 20 %); ``word-order`` (30 % of the words
swapped with a neighbour inside their sentence); ``clauses`` (each sentence's clauses rotated,
the last one first); ``sentences`` (half of the sentences moved); ``paraphrase`` (synonyms and
inflections 15 % each, 10 % deleted, then word order and clauses as above).

``--ablation``: the same measures under other settings (the extension threshold, the window,
the sentence threshold), to show what each one does; ``--per-kind`` pairs each.

``--speed``: CPU time per pair of news-size texts (process time, after the kernels compiled).

    .venv/bin/python benchmarks/quality_rewrites.py --calibrate --pan --speed
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT / "src"))

from neardup.eval import generate as gen  # noqa: E402
from neardup.fingerprints.pipeline import Pipeline, default_spec  # noqa: E402
from neardup.passages.align import Aligner  # noqa: E402
from neardup.passages.rewrites import DEFAULT_THRESHOLD, RewriteFinder, sentence_scores  # noqa: E402

DEV_SETS = ("paraphraser_test_ru", "stsb_ru", "msrp_train_en", "stsb_en")
BLOCK = 25
MERGE_REACH = 40
GRID = np.round(np.arange(0.20, 0.901, 0.025), 3)
THESAURI = {
    "ru": Path("/usr/share/mythes/th_ru_RU_v2.dat"),
    "en": Path("/usr/share/mythes/th_en_US_v2.dat"),
}
CORPORA = {"ru": "ru_news.jsonl.gz", "en": "reuters21578.jsonl.gz"}
SYSTEMS = ("verbatim", "rewrites", "both", "both as regions")
KINDS = (
    "verbatim",
    "synonym",
    "inflect",
    "delete",
    "mixed",
    "word-order",
    "clauses",
    "sentences",
    "paraphrase",
)

Span = tuple[int, int]
Case = tuple[int, int, int, int, int]  # pair id, a start, a end, b start, b end


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# the threshold, on the labelled sentence pairs


def read_pairs(name: str) -> list[dict[str, Any]]:
    with gzip.open(DATA / "dev" / f"{name}.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def score_set(
    pipeline: Pipeline, pairs: Sequence[dict[str, Any]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each pair's score (its block's IDF), its label, and the off-diagonal (unrelated) scores."""
    a_terms = [pipeline.canonical(p["a"]).terms for p in pairs]
    b_terms = [pipeline.canonical(p["b"]).terms for p in pairs]
    scores = np.zeros(len(pairs))
    unrelated: list[float] = []
    for lo in range(0, len(pairs), BLOCK):
        hi = min(lo + BLOCK, len(pairs))
        i, j, s = sentence_scores(a_terms[lo:hi], b_terms[lo:hi])
        same = i == j
        scores[lo + i[same]] = s[same]
        n = hi - lo
        off = np.zeros(n * n - n)
        off[: int((~same).sum())] = s[~same]  # pairs sharing no term score 0
        unrelated.extend(off.tolist())
    labels = np.asarray([int(p["label"]) for p in pairs])
    return scores, labels, np.asarray(unrelated)


def f1_at(scores: np.ndarray, labels: np.ndarray, t: float) -> tuple[float, float, float]:
    predicted = scores >= t
    tp = int(np.count_nonzero(predicted & (labels == 1)))
    p = tp / max(1, int(predicted.sum()))
    r = tp / max(1, int((labels == 1).sum()))
    return (2 * p * r / (p + r) if p + r else 0.0), p, r


def calibrate() -> float:
    pipeline = Pipeline(default_spec())
    halves: dict[str, tuple[Any, Any, np.ndarray]] = {}
    for name in DEV_SETS:
        pairs = read_pairs(name)
        scores, labels, unrelated = score_set(pipeline, pairs)
        order = np.random.default_rng(zlib.crc32(name.encode())).permutation(len(pairs))
        first, second = np.sort(order[: len(order) // 2]), np.sort(order[len(order) // 2 :])
        halves[name] = ((scores[first], labels[first]), (scores[second], labels[second]), unrelated)
        log(f"[calibrate] {name}: {len(pairs)} pairs, {int(labels.sum())} positive")
    train = np.array([[f1_at(*halves[n][0], t)[0] for t in GRID] for n in DEV_SETS])
    worst = train.min(axis=0)
    best = int(np.argmax(worst))
    chosen = float(GRID[best])
    print(
        f"\nSentence threshold chosen on the first halves: {chosen} "
        f"(worst-set F1 {worst[best]:.3f})\n"
    )
    print(
        "| set | pairs (held out) | F1 held out | precision | recall "
        "| best F1 held out (its threshold) | unrelated pairs ≥ threshold |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in DEV_SETS:
        (_, _), (s2, l2), unrelated = halves[name]
        f1, p, r = f1_at(s2, l2, chosen)
        own = [f1_at(s2, l2, t)[0] for t in GRID]
        k = int(np.argmax(own))
        above = float(np.mean(unrelated >= chosen))
        print(
            f"| {name} | {len(s2)} | {f1:.3f} | {p:.3f} | {r:.3f} | {own[k]:.3f} ({GRID[k]}) "
            f"| {above:.4f} |"
        )
    print("\nOne set left out: the threshold chosen on the others' first halves, F1 on it\n")
    print("| left out | threshold from the others | F1 (whole set) | its own best F1 (threshold) |")
    print("|---|---:|---:|---:|")
    for k, name in enumerate(DEV_SETS):
        others = np.delete(train, k, axis=0).min(axis=0)
        t = float(GRID[int(np.argmax(others))])
        (s1, l1), (s2, l2), _ = halves[name]
        scores, labels = np.concatenate((s1, s2)), np.concatenate((l1, l2))
        own = [f1_at(scores, labels, g)[0] for g in GRID]
        b = int(np.argmax(own))
        print(f"| {name} | {t} | {f1_at(scores, labels, t)[0]:.3f} | {own[b]:.3f} ({GRID[b]}) |")
    print("\nWorst-set F1 on the first halves by threshold:")
    print(" ".join(f"{t}:{w:.3f}" for t, w in zip(GRID.tolist(), worst.tolist(), strict=True)))
    return chosen


# ---------------------------------------------------------------------------------------------
# PAN measures (character level)


def _length(spans: Iterable[Span]) -> int:
    """Characters in the union of ``spans``."""
    total, reach = 0, -1
    for lo, hi in sorted(spans):
        lo = max(lo, reach)
        if hi > lo:
            total += hi - lo
            reach = hi
        reach = max(reach, hi)
    return total


def _overlap(x: Span, y: Span) -> Span | None:
    lo, hi = max(x[0], y[0]), min(x[1], y[1])
    return (lo, hi) if hi > lo else None


def _detects(r: Case, s: Case) -> bool:
    """A detection detects a case when it overlaps it in both documents of the same pair."""
    return r[0] == s[0] and bool(_overlap(r[1:3], s[1:3])) and bool(_overlap(r[3:5], s[3:5]))


def pan_measures(cases: Sequence[Case], detections: Sequence[Case]) -> dict[str, float]:
    """Precision, recall, granularity and plagdet of ``detections`` against ``cases``.

    A case's characters are those of its span in the suspicious document and in the source,
    taken as distinct; ``s ⊓ r`` is their intersection when ``r`` detects ``s`` (else empty).
    recall = mean over cases of |∪_r (s ⊓ r)| / |s|; precision = mean over detections of
    |∪_s (s ⊓ r)| / |r| (0 when there are none); granularity = mean over detected cases of
    the number of detections detecting them (1 when none is detected)."""
    recall_sum = 0.0
    grains: list[int] = []
    for s in cases:
        hits = [r for r in detections if _detects(r, s)]
        if hits:
            grains.append(len(hits))
        got_a = _length([o for r in hits if (o := _overlap(r[1:3], s[1:3]))])
        got_b = _length([o for r in hits if (o := _overlap(r[3:5], s[3:5]))])
        recall_sum += (got_a + got_b) / ((s[2] - s[1]) + (s[4] - s[3]))
    precision_sum = 0.0
    for r in detections:
        hits = [s for s in cases if _detects(r, s)]
        got_a = _length([o for s in hits if (o := _overlap(r[1:3], s[1:3]))])
        got_b = _length([o for s in hits if (o := _overlap(r[3:5], s[3:5]))])
        precision_sum += (got_a + got_b) / max(1, (r[2] - r[1]) + (r[4] - r[3]))
    recall = recall_sum / len(cases) if cases else 0.0
    precision = precision_sum / len(detections) if detections else 0.0
    granularity = float(np.mean(grains)) if grains else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "precision": precision,
        "recall": recall,
        "granularity": granularity,
        "plagdet": f1 / float(np.log2(1 + granularity)),
    }


# ---------------------------------------------------------------------------------------------
# generated rewrites


def read_docs(lang: str, limit: int) -> list[str]:
    docs, _ = gen.read_corpus(DATA / CORPORA[lang], lang, 1500, 6000)
    return [d.text for d in docs[:limit]]


def _words8(text: str) -> set[str]:
    words = [w.lower() for w in gen.WORD_RE.findall(text)]
    return {" ".join(words[i : i + 8]) for i in range(len(words) - 7)}


# sentences for the edits: ends at . ! ? … before white space, blank lines, line breaks before
# anything but a small letter (hard-wrapped Reuters lines go on with small letters)
EDIT_SENTENCE_SEP = re.compile(r"(?<=[.!?…])\s+|\n\s*\n\s*|\n(?=\s*[^\sa-zа-яё])")


def edit_sentences(text: str) -> list[Span]:
    spans: list[Span] = []
    start = 0
    for m in EDIT_SENTENCE_SEP.finditer(text):
        if m.start() > start:
            spans.append((start, m.start()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def swap_words(text: str, rate: float, rng: np.random.Generator) -> str:
    """``rate`` of the words of each sentence swapped with their right neighbour."""
    out = []
    cursor = 0
    for lo, hi in edit_sentences(text):
        out.append(text[cursor:lo])
        sentence = text[lo:hi]
        spans = gen.word_spans(sentence)
        words = [sentence[a:b] for a, b in spans]
        for _ in range(round(rate * len(words))):
            if len(words) < 2:
                break
            k = int(rng.integers(len(words) - 1))
            words[k], words[k + 1] = words[k + 1], words[k]
        if spans and sentence[spans[0][0] : spans[0][0] + 1].isupper() and words[0][:1].islower():
            words[0] = words[0][:1].upper() + words[0][1:]
        pieces, last = [], 0
        for (a, b), w in zip(spans, words, strict=True):
            pieces.append(sentence[last:a])
            pieces.append(w)
            last = b
        pieces.append(sentence[last:])
        out.append("".join(pieces))
        cursor = hi
    out.append(text[cursor:])
    return "".join(out)


def rotate_clauses(text: str) -> str:
    """Each sentence with clauses (split at commas) begins with its last clause."""
    out = []
    cursor = 0
    for lo, hi in edit_sentences(text):
        out.append(text[cursor:lo])
        sentence = text[lo:hi]
        end = re.search(r"[.!?…]+[\"»”)]*$", sentence)
        tail = end.group() if end else ""
        body = sentence[: len(sentence) - len(tail)]
        clauses = [c.strip() for c in body.split(",")]
        if len(clauses) >= 2 and all(clauses) and body[:1].isupper():
            first = clauses[0]
            if len(first) > 1 and first[1:2].islower():
                clauses[0] = first[:1].lower() + first[1:]
            last = clauses[-1]
            clauses = [last[:1].upper() + last[1:], *clauses[:-1]]
            sentence = ", ".join(clauses) + tail
        out.append(sentence)
        cursor = hi
    out.append(text[cursor:])
    return "".join(out)


def edit(
    kind: str, piece: str, rng: np.random.Generator, language: gen.Language, vocabulary: list[str]
) -> tuple[str, float | None]:
    """The edited piece and the share of its words a word edit changed (None: not counted)."""
    if kind == "verbatim":
        return piece, 0.0
    word_rates = {
        "synonym": {"synonym": 0.4},
        "inflect": {"inflect": 0.3},
        "delete": {"delete": 0.2},
        "mixed": {"substitute": 0.2 / 3, "insert": 0.2 / 3, "delete": 0.2 / 3},
        "paraphrase": {"synonym": 0.15, "inflect": 0.15, "delete": 0.1},
    }
    if kind in word_rates:
        text, done = gen.edit_words(piece, word_rates[kind], rng, language, vocabulary)
        share = sum(done.counts.values()) / max(1, done.words)
        if kind == "paraphrase":
            text = rotate_clauses(swap_words(text, 0.3, rng))
        return text, share
    if kind == "word-order":
        return swap_words(piece, 0.3, rng), None
    if kind == "clauses":
        return rotate_clauses(piece), None
    if kind == "sentences":
        return gen.reorder_sentences(piece, 0.5, rng)[0], None
    raise ValueError(kind)


def take_run(text: str, rng: np.random.Generator) -> Span | None:
    """A run of 3–6 sentences of ``text``, 200–1,500 characters."""
    spans = [s for s in edit_sentences(text) if s[1] - s[0] >= 20]
    if len(spans) < 4:
        return None
    for _ in range(8):
        n = int(rng.integers(3, 7))
        first = int(rng.integers(0, max(1, len(spans) - n + 1)))
        run = spans[first : first + n]
        lo, hi = run[0][0], run[-1][1]
        if 200 <= hi - lo <= 1500:
            return lo, hi
    return None


Pair = tuple[str, str, list[Case]]  # suspicious, source, truth


def build_pairs(
    lang: str, per_kind: int
) -> tuple[dict[str, list[Pair]], dict[str, float | None], dict[str, list[Pair]]]:
    docs = read_docs(lang, 4 * per_kind * len(KINDS) + 200)
    grams = [_words8(d) for d in docs]
    language = gen.Language(lang, gen.load_synonyms(THESAURI[lang]))
    vocabulary = sorted({w.lower() for d in docs[:200] for w in gen.WORD_RE.findall(d)})
    by_kind: dict[str, list[Pair]] = {}
    achieved: dict[str, float | None] = {}
    cursor = 0
    for kind in KINDS:
        rng = np.random.default_rng(zlib.crc32(f"{lang}:{kind}".encode()))
        pairs: list[Pair] = []
        shares: list[float] = []
        while len(pairs) < per_kind and cursor + 1 < len(docs):
            source, host = docs[cursor], docs[cursor + 1]
            s_grams, h_grams = grams[cursor], grams[cursor + 1]
            cursor += 2
            if s_grams & h_grams:
                continue
            run = take_run(source, rng)
            if run is None:
                continue
            piece, share = edit(kind, source[run[0] : run[1]], rng, language, vocabulary)
            piece = piece.strip()
            if share is not None:
                shares.append(share)
            suspicious, at = gen.paste(host, piece, rng)
            pairs.append((suspicious, source, [(0, at, at + len(piece), run[0], run[1])]))
        by_kind[kind] = pairs
        achieved[kind] = float(np.mean(shares)) if shares else None
    negatives: list[Pair] = []
    for k in range(per_kind):
        a, b = cursor + 2 * k, cursor + 2 * k + 1
        if b < len(docs) and not (grams[a] & grams[b]):
            negatives.append((docs[a], docs[b], []))
    rest = list(range(cursor + 2 * per_kind, len(docs)))
    alike = similar_negatives(docs, grams, rest, per_kind)
    return by_kind, achieved, {"random": negatives, "most alike": alike}


def merge_neighbours(found: Sequence[Case], reach: int = MERGE_REACH) -> list[Case]:
    """Detections of one pair joined when they overlap or lie at most ``reach`` characters
    apart in both texts (a verbatim piece and the rewritten sentences around it: one region)."""
    out: list[Case] = []
    for d in sorted(found):
        if out:
            last = out[-1]
            near_a = d[0] == last[0] and d[1] <= last[2] + reach
            near_b = d[3] <= last[4] + reach and last[3] <= d[4] + reach
            if near_a and near_b:
                out[-1] = (
                    last[0],
                    last[1],
                    max(last[2], d[2]),
                    min(last[3], d[3]),
                    max(last[4], d[4]),
                )
                continue
        out.append(d)
    return out


def similar_negatives(
    docs: Sequence[str], grams: Sequence[set[str]], pool: Sequence[int], count: int
) -> list[Pair]:
    """Unrelated pairs on one topic: each document of ``pool`` with the other one most like it
    by scikit-learn's TF-IDF cosine that shares no 8 words in a row with it (so it is no
    reprint), the ``count`` most alike of those pairs."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = [docs[i] for i in pool]
    rows = TfidfVectorizer().fit_transform(texts)
    cosine = (rows @ rows.T).toarray()
    np.fill_diagonal(cosine, -1.0)
    chosen: list[tuple[float, int, int]] = []
    for x in range(len(pool)):
        for y in np.argsort(-cosine[x], kind="stable")[:5].tolist():
            if not (grams[pool[x]] & grams[pool[y]]):
                chosen.append((float(cosine[x, y]), pool[x], pool[y]))
                break
    chosen.sort(key=lambda c: (-c[0], c[1], c[2]))
    return [(docs[a], docs[b], []) for _, a, b in chosen[:count]]


def detect(
    aligner: Aligner, finder: RewriteFinder, pairs: Sequence[Pair]
) -> dict[str, tuple[list[Case], list[Case]]]:
    """Cases and detections of each system over ``pairs`` (pair ids are their positions)."""
    out: dict[str, tuple[list[Case], list[Case]]] = {s: ([], []) for s in SYSTEMS}
    for n, (suspicious, source, truth) in enumerate(pairs):
        cases = [(n, *c[1:]) for c in truth]
        a = aligner.prepare(suspicious)
        b = aligner.prepare(source)
        verbatim = [
            (n, p.a_start, p.a_end, p.b_start, p.b_end) for p in aligner.pair(a, b).passages
        ]
        alone = finder.find(a, b)
        skip_a = [(p[1], p[2]) for p in verbatim]
        skip_b = [(p[3], p[4]) for p in verbatim]
        joined = finder.find(a, b, skip_a_spans=skip_a, skip_b_spans=skip_b)
        rewrites = [(n, p.a_start, p.a_end, p.b_start, p.b_end) for p in alone]
        both = verbatim + [(n, p.a_start, p.a_end, p.b_start, p.b_end) for p in joined]
        merged = merge_neighbours(verbatim + rewrites)
        systems = (verbatim, rewrites, both, merged)
        for name, found in zip(SYSTEMS, systems, strict=True):
            out[name][0].extend(cases)
            out[name][1].extend(found)
    return out


def pan(per_kind: int) -> None:
    aligner = Aligner()
    finder = RewriteFinder()
    print(
        f"\nPAN measures per kind ({per_kind} pairs per kind and language; sentence threshold "
        f"{finder.threshold}). Cells: precision / recall / granularity / **plagdet**.\n"
    )
    print("| lang | kind (words changed) | " + " | ".join(SYSTEMS) + " |")
    print("|---|---|" + "---|" * len(SYSTEMS))
    for lang in ("ru", "en"):
        t0 = time.perf_counter()
        by_kind, achieved, negatives = build_pairs(lang, per_kind)
        log(f"[pan] {lang}: pairs built in {time.perf_counter() - t0:.0f} s")
        for kind, pairs in by_kind.items():
            found = detect(aligner, finder, pairs)
            cells = []
            for system in SYSTEMS:
                m = pan_measures(*found[system])
                cells.append(
                    f"{m['precision']:.3f} / {m['recall']:.3f} / {m['granularity']:.2f} / "
                    f"**{m['plagdet']:.3f}**"
                )
            share = achieved[kind]
            label = f"{kind} ({'–' if share is None else f'{100 * share:.0f} %'})"
            print(f"| {lang} | {label} | " + " | ".join(cells) + " |")
        for label, group in negatives.items():
            found = detect(aligner, finder, group)
            false = [
                f"{len(found[s][1])} detections, {sum(d[2] - d[1] for d in found[s][1])} chars"
                for s in SYSTEMS
            ]
            print(
                f"| {lang} | unrelated pairs, {label} ({len(group)}) | " + " | ".join(false) + " |"
            )


ABLATION = (
    ("defaults", {}),
    ("no extension", {"extend_threshold": 1.0}),
    ("extension at 0.6 x threshold", {"extend_threshold": 0.3}),
    ("extension at 0.4 x threshold", {"extend_threshold": 0.2}),
    ("window 1", {"window": 1}),
    ("window 6", {"window": 6}),
    ("threshold 0.4", {"threshold": 0.4}),
    ("threshold 0.6", {"threshold": 0.6}),
)


def ablation(per_kind: int) -> None:
    """Plagdet of the rewrites alone and of both as regions under other settings (mean over
    the kinds of both languages), and the false detections on unrelated pairs."""
    aligner = Aligner()
    built = {lang: build_pairs(lang, per_kind) for lang in ("ru", "en")}
    print(f"\nOther settings ({per_kind} pairs per kind and language; mean plagdet over kinds)\n")
    print("| settings | rewrites | both as regions | worst kind (regions) | false detections |")
    print("|---|---:|---:|---|---:|")
    for name, options in ABLATION:
        finder = RewriteFinder(**options)  # type: ignore[arg-type]
        alone, regions, worst, false = [], [], (2.0, ""), 0
        for lang, (by_kind, _, negatives) in built.items():
            for kind, pairs in by_kind.items():
                found = detect(aligner, finder, pairs)
                alone.append(pan_measures(*found["rewrites"])["plagdet"])
                value = pan_measures(*found["both as regions"])["plagdet"]
                regions.append(value)
                worst = min(worst, (value, f"{lang} {kind}"))
            for group in negatives.values():
                false += len(detect(aligner, finder, group)["rewrites"][1])
        print(
            f"| {name} | {np.mean(alone):.3f} | {np.mean(regions):.3f} "
            f"| {worst[1]} {worst[0]:.3f} | {false} |"
        )


def speed(repeat: int) -> None:
    docs = read_docs("ru", 2 * repeat + 2)
    finder = RewriteFinder()
    aligner = Aligner()
    finder.find(docs[0], docs[1])  # compile
    prepared = [aligner.prepare(d) for d in docs]
    sizes = [len(d) for d in docs]
    t0 = time.process_time()
    for k in range(repeat):
        finder.find(docs[2 * k], docs[2 * k + 1])
    whole = (time.process_time() - t0) / repeat
    t0 = time.process_time()
    for k in range(repeat):
        finder.find(prepared[2 * k], prepared[2 * k + 1])
    reuse = (time.process_time() - t0) / repeat
    print(
        f"\nCPU time per pair ({repeat} pairs of ru_news texts, "
        f"mean {np.mean(sizes):.0f} characters): "
        f"{1000 * whole:.1f} ms with analysis, {1000 * reuse:.1f} ms with both texts already "
        "prepared by the aligner"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--pan", action="store_true")
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--ablation", action="store_true")
    parser.add_argument("--per-kind", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=100)
    args = parser.parse_args(argv)
    if args.calibrate:
        chosen = calibrate()
        if chosen != DEFAULT_THRESHOLD:
            print(
                f"\n(neardup.passages.rewrites.DEFAULT_THRESHOLD is {DEFAULT_THRESHOLD}: update it)"
            )
    if args.pan:
        pan(args.per_kind)
    if args.ablation:
        ablation(args.per_kind)
    if args.speed:
        speed(args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The labelled pair sets the combined score is fitted, calibrated and checked on, and their cache.

Four groups, each read or built by path from ``../shared/data`` (no text of them is copied into
the project):

* **dev** — the seven human-labelled sets of ``dev/`` (headlines, sentences, whole articles;
  the README there says what a label means in each);
* **long** — whole news stories labelled by metadata, mined by benchmarks/quality_long_real.py
  (ru_news reprints, Reuters corrections and re-issues, with same-day same-topic negatives);
* **passage** — long real documents that share a verbatim paragraph, and documents on one
  subject that share none (:func:`passage_sets`, below);
* **generated** — benchmarks/quality_sets.py's twelve sets (edits, rewrites, pastes,
  sentences) of one half of the documents: a guard, never the aim.

**passage** (one set a language; ru_news for ``ru``, Reuters for ``en``). For each source
document ``S`` (1,500–8,000 characters; Reuters 1,200–8,000): a document ``T`` on the same
subject — ru_news: Nezavisimaya Gazeta of the same date (its URL), Russia Today of the same
section and a nearby article number (the same news days); Reuters: the same date and a shared
topic code — whose title shares less than 0.3 of its words with ``S``'s and which shares no
8-word run with ``S``; a paragraph ``P`` of ``S`` and ``P_T`` of ``T`` (25–120 words; else as
many sentences); a host ``H``, any other document sharing no 8-word run with either. ``P`` is
inserted into ``H`` at a sentence boundary (``H+P``), and so is ``P_T`` (``H+P_T``). The pairs:

==========================================  =====  ===========================================
``(S, H+P)``                                1      the host reuses a paragraph of the source
``(P, H+P)``                                1      the paragraph is inside the host
``(S, T)``                                  0      one subject, no shared passage
``(S, H+P_T)``                              0      the host holds a paragraph on the subject,
                                                   of another document
``(P, T)``                                  0      a paragraph against a document on its subject
==========================================  =====  ===========================================

Each set's raw measures (:func:`neardup.score.combined.pair_measures` under the default spec)
are cached in :data:`CACHE` under a key made of the set's texts and pairs and of what the
default analyzer makes of a probe text, so a change of the analyzer (a stop list, a lemma)
recomputes them and nothing else does.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import sys
import time
import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from neardup.eval.generate import corpus as gen_corpus
from neardup.eval.generate import edits as gen_edits

DATA = Path(os.environ.get("NEARDUP_DATA", ROOT.parent / "shared" / "data"))
DEV = DATA / "dev"
CACHE = Path(os.environ.get("NEARDUP_CALIBRATION_CACHE", "/tmp/neardup-calibration"))
GENERATED_CACHE = ROOT / "build" / "quality"
DEV_SETS = (
    "paraphraser_test_ru",
    "stsb_ru",
    "tgcontest_same_event_ru",
    "msrp_train_en",
    "stsb_en",
    "sick_en",
    "tgcontest_same_event_en",
)
#: The sets whose pairs are whole documents (the F1 at 0.5 must hold on them too).
LONG_DEV = ("tgcontest_same_event_ru", "tgcontest_same_event_en")
PASSAGE_FILES = {"ru": "ru_news.jsonl.gz", "en": "reuters21578.jsonl.gz"}
PASSAGE_CHARS = {"ru": (1500, 8000), "en": (1200, 8000)}
PARAGRAPH_WORDS = (25, 120)
#: Russia Today's article numbers this close are the same news days.
RT_DAYS = 60


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class Pairs:
    """One labelled set: its distinct texts and pairs ``(texts[a[p]], texts[b[p]])``."""

    name: str
    texts: list[str]
    a: np.ndarray
    b: np.ndarray
    y: np.ndarray
    scores: dict[str, np.ndarray] = field(default_factory=dict)
    group: str = "dev"  # dev, long, passage, generated
    kinds: np.ndarray | None = None  # what each pair is (passage and mined sets)
    measures: np.ndarray | None = None  # neardup.score.combined.pair_measures, a row a pair
    part: str = "whole"  # or "training half", "held-out half"
    #: Negatives left out for sharing an 8-word run with their partner (mined sets: the title
    #: rules call some real partial copies negatives).
    dropped: int = 0

    @classmethod
    def of(
        cls,
        name: str,
        rows: Sequence[tuple[str, str, int]],
        group: str = "dev",
        kinds: Sequence[str] | None = None,
    ) -> Pairs:
        index: dict[str, int] = {}
        for a, b, _ in rows:
            index.setdefault(a, len(index))
            index.setdefault(b, len(index))
        a_idx = np.fromiter((index[r[0]] for r in rows), np.int64, len(rows))
        b_idx = np.fromiter((index[r[1]] for r in rows), np.int64, len(rows))
        y = np.fromiter((r[2] for r in rows), np.int8, len(rows))
        kind = np.asarray(list(kinds)) if kinds is not None else None
        return cls(name, list(index), a_idx, b_idx, y, group=group, kinds=kind)

    def halves(self, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """A fixed split of the pairs, stratified by label: (training, held-out) indices."""
        rng = np.random.default_rng([seed, zlib.crc32(self.name.encode())])
        train: list[np.ndarray] = []
        for label in (0, 1):
            idx = rng.permutation(np.flatnonzero(self.y == label))
            train.append(idx[: len(idx) // 2])
        first = np.sort(np.concatenate(train))
        rest = np.setdiff1d(np.arange(len(self.y)), first)
        return first, rest

    def subset(self, idx: np.ndarray, part: str) -> Pairs:
        """The pairs ``idx`` (scores, kinds and measures sliced; texts shared)."""
        return Pairs(
            self.name,
            self.texts,
            self.a[idx],
            self.b[idx],
            self.y[idx],
            {k: v[idx] for k, v in self.scores.items()},
            self.group,
            self.kinds[idx] if self.kinds is not None else None,
            self.measures[idx] if self.measures is not None else None,
            part,
        )

    def rows(self) -> list[tuple[str, str, int]]:
        return [
            (self.texts[i], self.texts[j], int(y))
            for i, j, y in zip(self.a.tolist(), self.b.tolist(), self.y.tolist(), strict=True)
        ]


# ---------------------------------------------------------------------------------------------
# the cache


def _cached_json(path: Path, make: Callable[[], Any]) -> Any:
    if path.exists():
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return json.load(f)
    value = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False)
    return value


def _set_key(p: Pairs, salt: str) -> str:
    h = hashlib.sha256(salt.encode())
    for t in p.texts:
        h.update(t.encode())
        h.update(b"\0")
    h.update(p.a.tobytes())
    h.update(p.b.tobytes())
    return h.hexdigest()[:20]


_PROBE = (
    "Он сказал, что мы не будем этого делать, потому что было уже поздно и все ушли домой. "
    "He said that we would not be doing it because it was too late and they had all gone home."
)


def analyzer_key() -> str:
    """What the default analyzer is, for the cache: its spec and what it makes of a probe."""
    from neardup.fingerprints.pipeline import Pipeline, default_spec
    from neardup.score.combined import FEATURE_FUNCTIONS, MEASURES

    spec = default_spec()
    pipeline = Pipeline(spec)
    probe = [pipeline.canonical(s).terms for s in _PROBE.split(". ")]
    return json.dumps([spec.fingerprint(), probe, list(MEASURES), sorted(FEATURE_FUNCTIONS)])


def measure(sets: Sequence[Pairs], refresh: bool = False) -> None:
    """Fill each set's ``measures`` (cached; computed under the default spec when missing)."""
    from neardup.fingerprints.pipeline import default_spec
    from neardup.score.combined import CombinedFeatures, pair_measures

    salt = analyzer_key()
    builder: CombinedFeatures | None = None
    for p in sets:
        path = CACHE / f"measures-{_set_key(p, salt)}.npy"
        if path.exists() and not refresh:
            p.measures = np.load(path)
            continue
        t0 = time.perf_counter()
        builder = builder or CombinedFeatures(default_spec())
        table = builder.table(p.texts)
        p.measures = pair_measures(table, p.a, p.b)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, p.measures)
        log(f"[{p.name}] measured {len(p.y)} pairs: {time.perf_counter() - t0:.0f} s")


# ---------------------------------------------------------------------------------------------
# the sets


def read_dev(directory: Path = DEV, limit: int | None = None) -> list[Pairs]:
    out = []
    for name in DEV_SETS:
        with gzip.open(directory / f"{name}.jsonl.gz", "rt", encoding="utf-8") as f:
            rows = [(r["a"], r["b"], int(r["label"])) for r in map(json.loads, f)]
        out.append(Pairs.of(name, rows[:limit] if limit else rows, "dev"))
    return out


def generated(split: str, docs: int = 100, seed: int = 16) -> list[Pairs]:
    """benchmarks/quality_sets.py's twelve sets of one half (kept in build/quality/)."""
    from neardup.eval.generate import GENERATOR_VERSION

    path = GENERATED_CACHE / f"dev_generated_{split}_{docs}_{seed}_v{GENERATOR_VERSION}.json.gz"

    def make() -> dict[str, Any]:
        from quality_sets import all_sets

        t0 = time.perf_counter()
        sets = all_sets(split, docs, seed)
        log(f"generated the {split} sets in {time.perf_counter() - t0:.0f} s")
        return {k: [list(s.a), list(s.b), list(s.labels)] for k, s in sets.items()}

    raw = _cached_json(path, make)
    return [
        Pairs.of(f"{split} {k}", list(zip(*v, strict=True)), "generated") for k, v in raw.items()
    ]


def mined(seed: int = 23) -> list[Pairs]:
    """benchmarks/quality_long_real.py's three mined sets (rows cached in :data:`CACHE`)."""

    def make() -> list[list[Any]]:
        import quality_long_real as lr

        t0 = time.perf_counter()
        rng = np.random.default_rng(seed)
        corrections, reissues = lr.reuters_sets(rng)
        reprints = lr.ru_reprints(rng)
        out = []
        for m in (reprints, corrections, reissues):
            rows, kinds = lr.mined_rows(m)
            out.append([m.name, [list(r) for r in rows], kinds])
        log(f"mined the long real sets in {time.perf_counter() - t0:.0f} s")
        return out

    raw = _cached_json(CACHE / f"mined-{seed}.json.gz", make)
    out = []
    for name, rows, kinds in raw:
        keep = [
            k
            for k, (a, b, y) in enumerate(rows)
            if y == 1 or gen_corpus._ngrams(a).isdisjoint(gen_corpus._ngrams(b))
        ]
        dropped = len(rows) - len(keep)
        out.append(Pairs.of(name, [tuple(rows[k]) for k in keep], "long", [kinds[k] for k in keep]))
        out[-1].dropped = dropped
    return out


_WORD = re.compile(r"\w+")
_RT_NUMBER = re.compile(r"rt\.com/([\w-]+)/\w+/(\d+)")
_NG_DATE = re.compile(r"ng\.ru/([\w-]+)/(\d{4}-\d\d-\d\d)/")


def _title_words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower().replace("ё", "е")))


def _subjects(doc: dict[str, Any], lang: str) -> list[tuple[str, ...]]:
    """The keys of "the same subject" (see the module docstring)."""
    if lang == "en":
        day = (doc.get("date") or "").strip().split(" ")[0]
        topics = doc.get("topics") or []
        return [(day, t) for t in topics] if day and isinstance(topics, list) else []
    url = doc.get("url") or ""
    if m := _NG_DATE.search(url):
        return [("ng", m.group(2))]
    if m := _RT_NUMBER.search(url):
        n = int(m.group(2)) // RT_DAYS
        return [("rt", m.group(1), str(k)) for k in (n, n + 1)]
    return []


def _paragraph(text: str, lang: str, rng: np.random.Generator) -> str | None:
    """A paragraph of ``text`` of :data:`PARAGRAPH_WORDS` words (else a run of sentences)."""
    low, high = PARAGRAPH_WORDS
    split = r"\n\s*\n|\n(?=\s{2,})" if lang == "en" else r"\n+"
    paragraphs = [" ".join(p.split()) for p in re.split(split, text)]
    fit = [p for p in paragraphs if low <= len(p.split()) <= high]
    if fit:
        return fit[int(rng.integers(len(fit)))]
    flat = " ".join(text.split())
    sentences = [flat[a:b].strip() for a, b in gen_edits.sentence_spans(flat)]
    start = int(rng.integers(max(1, len(sentences))))
    run: list[str] = []
    for s in sentences[start:]:
        run.append(s)
        words = len(" ".join(run).split())
        if words >= low:
            return " ".join(run) if words <= high else None
    return None


def _passage_set(lang: str, sources: int, seed: int) -> tuple[list[list[Any]], list[str]]:
    with gzip.open(DATA / PASSAGE_FILES[lang], "rt", encoding="utf-8") as f:
        docs = [json.loads(line) for line in f]
    low, high = PASSAGE_CHARS[lang]
    seen: dict[str, int] = defaultdict(int)
    for d in docs:
        seen[" ".join((d.get("text") or "").split())] += 1
    usable = [
        i
        for i, d in enumerate(docs)
        if low <= len(d.get("text") or "") <= high
        and d.get("source") != "cyberleninka"
        and seen[" ".join(d["text"].split())] == 1
    ]
    by_subject: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i in usable:
        for key in _subjects(docs[i], lang):
            by_subject[key].append(i)
    titles = {i: _title_words(docs[i].get("title") or "") for i in usable}
    grams: dict[int, set[str]] = {}

    def eight(i: int) -> set[str]:
        if i not in grams:
            grams[i] = gen_corpus._ngrams(docs[i]["text"])
        return grams[i]

    def apart(i: int, j: int) -> bool:
        union = titles[i] | titles[j]
        close = len(titles[i] & titles[j]) / len(union) if union else 0.0
        return i != j and close < 0.3 and eight(i).isdisjoint(eight(j))

    rng = np.random.default_rng([seed, len(lang)])
    rows: list[list[Any]] = []
    kinds: list[str] = []
    made = 0
    for s in rng.permutation(usable).tolist():
        if made == sources:
            break
        same = sorted({j for key in _subjects(docs[s], lang) for j in by_subject[key]} - {s})
        same = [j for j in rng.permutation(same).tolist()[:20] if apart(s, j)]
        if not same:
            continue
        t = same[0]
        hosts = [h for h in rng.choice(usable, 20).tolist() if apart(s, h) and apart(t, h)]
        p, p_t = _paragraph(docs[s]["text"], lang, rng), _paragraph(docs[t]["text"], lang, rng)
        if not hosts or p is None or p_t is None:
            continue
        source, other, host = docs[s]["text"], docs[t]["text"], docs[hosts[0]]["text"]
        with_p = gen_edits.paste(host, p, rng)[0]
        with_p_t = gen_edits.paste(host, p_t, rng)[0]
        for a, b, y, kind in (
            (source, with_p, 1, "source in host"),
            (p, with_p, 1, "paragraph in host"),
            (source, other, 0, "same subject"),
            (source, with_p_t, 0, "same-subject paragraph in host"),
            (p, other, 0, "paragraph vs same-subject document"),
        ):
            rows.append([a, b, y])
            kinds.append(kind)
        made += 1
    return rows, kinds


def passage_sets(sources: int = 150, seed: int = 23) -> list[Pairs]:
    """The two passage sets (see the module docstring; rows cached in :data:`CACHE`)."""
    out = []
    for lang in PASSAGE_FILES:

        def make(lang: str = lang) -> list[Any]:
            t0 = time.perf_counter()
            rows, kinds = _passage_set(lang, sources, seed)
            seconds = time.perf_counter() - t0
            log(f"built the {lang} passage set ({len(rows)} pairs) in {seconds:.0f} s")
            return [rows, kinds]

        rows, kinds = _cached_json(CACHE / f"passages-{lang}-{sources}-{seed}.json.gz", make)
        name = f"{'ru_news' if lang == 'ru' else 'reuters'} shared paragraph"
        out.append(Pairs.of(name, [tuple(r) for r in rows], "passage", kinds))
    return out


def real_sets(limit: int | None = None) -> list[Pairs]:
    """Every real labelled set: the dev sets, the mined long sets, the passage sets."""
    return [*read_dev(DEV, limit), *mined(), *passage_sets()]

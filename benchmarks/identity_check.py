"""Identity check: SHA-256 digests of what the text → fingerprint path produces on real corpora.

Speed work on the analyzer, the hash kernels, the fingerprint sets and MinHash signing must not
change a single output. This script runs the whole path over ~1,000 documents of each of
``../shared/data/ru_news.jsonl.gz``, ``reuters21578.jsonl.gz`` and ``20newsgroups.jsonl.gz``, the
first 50 works of ``ruslit.jsonl.gz`` and a few hundred generated texts full of the characters
that send the fast paths back to the general one (final sigma, İ, ß, ligatures, combining
marks, Hangul jamo, astral characters, HTML), and hashes:

* per preset (plain, ru, en, auto): each document's canonical buffer, token byte spans,
  original character spans and language;
* per preset and hash family (rabin 64/56/32, xxh3 64, crc32, crc64) and shingling (word
  5-grams step 1, word 3-grams step 2, char 5-grams): shingle hashes and spans, the
  fingerprint set (``Fingerprints.from_hashes``) and the multiset (values and counts);
* ``Pipeline.fingerprints`` of the full pipeline (plain preset, every family), and MinHash
  signatures (``MinHasher.sign_texts``, every preset with rabin 64 and plain with xxh3, 128
  functions: the batch kernels where the spec takes them), checked against ``sign_many`` of
  the fingerprint sets.

Run it before a change with ``--save`` and after it with ``--compare``: it prints the digest of
each section and names the sections that differ.

``--compiled-vs-python`` checks the token filters run by kernels (issue 15: the dictionary's
word-form table and the in-process table of forms met, ``neardup.analysis.compiled``) against
the filters run in Python on lists of terms (``Analyzer(compile_filters=False)``, the path
before), document by document, for the presets with token filters (ru, en, auto): canonical
buffers, token byte spans, original spans and language. ``--docs 0 --ruslit 0`` takes every
document of every corpus. It prints, per corpus and preset, the documents and tokens compared
and every document that differs (none, so far).

    .venv/bin/python benchmarks/identity_check.py --save /tmp/identity_before.json
    .venv/bin/python benchmarks/identity_check.py --compare /tmp/identity_before.json
    .venv/bin/python benchmarks/identity_check.py --docs 100 --ruslit 5   # a quick check
    .venv/bin/python benchmarks/identity_check.py --compiled-vs-python --docs 0 --ruslit 0
    .venv/bin/python benchmarks/identity_check.py --collection-batches

``--collection-batches`` checks a collection's analysis of a batch of texts in two kernel calls
(``Collection.analyze_many``, what ``neardup index add --jobs`` runs in threads) against its
analysis of one text at a time, field by field (fingerprint set, samples, probes, short form),
for every preset and several collection specs; it prints, per corpus, preset and spec, the
documents that differ (none, so far).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import itertools
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
PRESETS = ("plain", "ru", "en", "auto")
FAMILIES = (("rabin", 64), ("rabin", 56), ("rabin", 32), ("xxh3", 64), ("crc32", 32), ("crc64", 64))
SHINGLINGS = (("word", 5, 1), ("word", 3, 2), ("char", 5, 1))


def load(name: str, limit: int) -> list[str]:
    """The first ``limit`` texts of a corpus (every one when ``limit`` is 0)."""
    with gzip.open(DATA / f"{name}.jsonl.gz", "rt", encoding="utf-8") as fh:
        lines = itertools.islice(fh, limit or None)
        return [json.loads(line).get("text") or "" for line in lines]


_TRICKY = list(
    "abcxyz АБВЁЁёйЙ ΣΣσς ΟΔΟΣ İIıi ßẞ ﬁﬂ … № ½ Ⅻ Ｆｕｌｌ \u00a0\u2009\t\n-‐'’.,3 7"
) + [
    "\u0301",
    "\u0308",
    "\u0323",
    "\u0345",
    "\u034f",
    "\u0e31",
    "\u1100",
    "\u1161",
    "\u11a8",
    "가",
    "\U0001d400",
    "\U0001f600",
    "\u212a",
    "\u0130",
    "\u1e9e",
    "\u0f73",
    "\u09be",
    "\u09c7",
    "<p>",
    "</p>",
    "<div>",
    "&amp;",
    "<br>",
    "\ufeff",
    "e\u0301",
    "мо\u0301локо",
]


def generated(count: int) -> list[str]:
    """Seeded texts of words from ordinary and tricky characters (some HTML-like)."""
    rng = random.Random(20240611)
    words = [
        "молоко",
        "Москва",
        "ЁЛКА",
        "news",
        "Today",
        "ΟΔΥΣΣΕΥΣ",
        "straße",
        "file",
        "COVID-19",
        "3.14",
        "северо-западный",
        "don't",
        "İstanbul",
    ]
    out = []
    for i in range(count):
        parts = []
        for _ in range(rng.randrange(0, 80)):
            if rng.random() < 0.7:
                parts.append(rng.choice(words))
            else:
                parts.append("".join(rng.choice(_TRICKY) for _ in range(rng.randrange(1, 6))))
        text = " ".join(parts)
        if i % 10 == 0:
            text = "<!doctype html><html><body><p>" + text + "</p></body></html>"
        out.append(text)
    return out


def corpora(docs: int, ruslit: int, synthetic: int) -> dict[str, list[str]]:
    out = {name: load(name, docs) for name in ("ru_news", "reuters21578", "20newsgroups")}
    out["ruslit"] = load("ruslit", ruslit)
    out["generated"] = generated(synthetic)
    return out


class Digests:
    def __init__(self) -> None:
        self.sections: dict[str, Any] = {}

    def get(self, name: str) -> Any:
        if name not in self.sections:
            self.sections[name] = hashlib.sha256()
        return self.sections[name]

    def add(self, name: str, *arrays: Any) -> None:
        h = self.get(name)
        for a in arrays:
            if isinstance(a, str):
                b = a.encode("utf-8", "surrogatepass")
                h.update(b"s" + len(b).to_bytes(8, "little") + b)
            elif a is None:
                h.update(b"n")
            else:
                arr = np.ascontiguousarray(a)
                h.update(f"a{arr.dtype.str}{arr.shape}".encode() + arr.tobytes())

    def hexdigests(self) -> dict[str, str]:
        return {name: h.hexdigest() for name, h in sorted(self.sections.items())}


def run(texts: dict[str, list[str]], num_perm: int) -> dict[str, str]:
    from neardup.fingerprints.hashing import HashFamily
    from neardup.fingerprints.pipeline import Pipeline, make_spec
    from neardup.fingerprints.shingles import shingle
    from neardup.fingerprints.similarity import Fingerprints
    from neardup.sketch.minhash import MinHasher
    from neardup.spec import FingerprintSpec, ShingleSpec, SketchSpec

    d = Digests()
    families = {(f, b): HashFamily(FingerprintSpec(family=f, bits=b)) for f, b in FAMILIES}
    shinglings = {s: ShingleSpec(unit=s[0], k=s[1], step=s[2]) for s in SHINGLINGS}  # type: ignore[arg-type]
    for corpus, docs in texts.items():
        t0 = time.process_time()
        for preset in PRESETS:
            pipeline = Pipeline(make_spec(preset))
            for text in docs:
                c = pipeline.canonical(text)
                d.add(
                    f"{corpus}/{preset}/canonical",
                    c.buf,
                    c.byte_starts,
                    c.byte_ends,
                    c.starts,
                    c.ends,
                    c.language,
                )
                for (fam, bits), family in families.items():
                    for key, sspec in shinglings.items():
                        sh = shingle(c, sspec, family)
                        fp = Fingerprints.from_hashes(sh.hashes)
                        ms = Fingerprints.from_hashes(sh.hashes, multiset=True)
                        name = f"{corpus}/{preset}/{fam}{bits}/{key[0]}{key[1]}s{key[2]}"
                        d.add(name, sh.hashes, sh.starts, sh.ends, fp.values, ms.values, ms.counts)
        for fam, bits in FAMILIES:
            pipeline = Pipeline(make_spec("plain", family=fam, bits=bits))
            for text in docs:
                fp = pipeline.fingerprints(text)
                d.add(
                    f"{corpus}/pipeline/plain/{fam}{bits}",
                    fp.values,
                    fp.counts,
                    fp.spec_fingerprint,
                )
        for preset, fam in (*((p, "rabin") for p in PRESETS), ("plain", "xxh3")):
            spec = make_spec(preset, family=fam).replace(sketch=SketchSpec(num_perm=num_perm))
            hasher = MinHasher(spec)
            sigs = hasher.sign_texts(docs)
            by_sets = hasher.sign_many([hasher.pipeline.fingerprints(t) for t in docs])
            if not np.array_equal(sigs, by_sets):
                raise SystemExit(
                    f"{corpus}: sign_texts differs from sign_many of the fingerprint sets "
                    f"({preset}, {fam})"
                )
            d.add(f"{corpus}/minhash/{preset}/{fam}", sigs)
        print(
            f"  {corpus}: {len(docs)} documents, {time.process_time() - t0:.1f} s CPU",
            file=sys.stderr,
            flush=True,
        )
    return d.hexdigests()


def compiled_vs_python(texts: dict[str, list[str]], show: int = 20) -> int:
    """Compare the compiled token filters with the filters on lists, document by document;
    returns the number of documents that differ."""
    from neardup.analysis.analyzer import Analyzer
    from neardup.analysis.presets import preset

    differing = 0
    for name in ("ru", "en", "auto"):
        spec = preset(name)
        fast, reference = Analyzer(spec), Analyzer(spec, compile_filters=False)
        for corpus, docs in texts.items():
            tokens = bad = 0
            t0 = time.process_time()
            for i, text in enumerate(docs):
                a, b = fast.canonical(text), reference.canonical(text)
                tokens += len(b)
                if (
                    a.buf.tobytes() != b.buf.tobytes()
                    or a.language != b.language
                    or not all(
                        np.array_equal(x, y)
                        for x, y in (
                            (a.byte_starts, b.byte_starts),
                            (a.byte_ends, b.byte_ends),
                            (a.starts, b.starts),
                            (a.ends, b.ends),
                        )
                    )
                ):
                    bad += 1
                    if bad <= show:
                        diff = [(x, y) for x, y in zip(a.terms, b.terms) if x != y][:5]
                        print(f"    {corpus} #{i}: {len(a)} vs {len(b)} tokens; first {diff}")
            differing += bad
            print(
                f"  {name:5s} {corpus:13s} {len(docs):6,d} documents {tokens:11,d} tokens: "
                f"{bad} differ ({time.process_time() - t0:.1f} s CPU)",
                flush=True,
            )
    return differing


def _analyses_equal(a: Any, b: Any) -> bool:
    """Two :class:`neardup.index.collection.IndexableText` hold the same values."""

    def same(x: Any, y: Any) -> bool:
        if x is None or y is None:
            return x is None and y is None
        return bool(np.array_equal(x, y)) and np.asarray(x).dtype == np.asarray(y).dtype

    if (a.short is None) != (b.short is None):
        return False
    short_same = a.short is None or (
        a.short.tokens == b.short.tokens
        and same(a.short.fingerprints.values, b.short.fingerprints.values)
        and same(a.short.fingerprints.counts, b.short.fingerprints.counts)
        and a.short.fingerprints.spec_fingerprint == b.short.fingerprints.spec_fingerprint
    )
    return bool(
        short_same
        and same(a.values, b.values)
        and same(a.counts, b.counts)
        and same(a.samples, b.samples)
        and same(a.probes, b.probes)
        and a.text == b.text
        and a.length == b.length
    )


def collection_batches(texts: dict[str, list[str]], batch: int = 256) -> int:
    """Compare a collection's batch analysis (``Collection.analyze_many``: the nogil kernels
    that ``index add --jobs`` runs in threads) with its analysis of one text at a time, for
    every preset, the default collection spec (length-adaptive, winnowing) and variations
    (word 3-shingles every 2 tokens, multisets, the pseudo-matrix filter's collection with no
    samples); returns the number of documents that differ."""
    from neardup.fingerprints.pipeline import make_spec
    from neardup.index import Collection, IndexSpec
    from neardup.spec import FingerprintSpec, ShingleSpec

    variations: dict[str, tuple[dict[str, Any], IndexSpec]] = {
        "default": ({}, IndexSpec()),
        "k3s2": ({"shingles": ShingleSpec(k=3, step=2, short_below=32)}, IndexSpec()),
        "multiset": ({"fingerprint_family": FingerprintSpec(multiset=True)}, IndexSpec()),
        "pmbf": ({}, IndexSpec(candidates="pmbf")),
    }
    differing = 0
    for name in PRESETS:
        for variation, (changes, index_spec) in variations.items():
            spec = make_spec(name).replace(**changes) if changes else make_spec(name)
            col = Collection.create("memory:", spec, index_spec)
            for corpus, docs in texts.items():
                bad = 0
                t0 = time.process_time()
                for start in range(0, len(docs), batch):
                    part = docs[start : start + batch]
                    many = col.analyze_many(part)
                    for i, (text, got) in enumerate(zip(part, many, strict=True)):
                        if not _analyses_equal(got, col.analyze(text)):
                            bad += 1
                            if bad <= 5:
                                print(f"    {name} {variation} {corpus} #{start + i} differs")
                differing += bad
                print(
                    f"  {name:5s} {variation:8s} {corpus:13s} {len(docs):6,d} documents: "
                    f"{bad} differ ({time.process_time() - t0:.1f} s CPU)",
                    flush=True,
                )
    return differing


def total(sections: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(sections, sort_keys=True).encode()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--docs", type=int, default=1000, help="documents of each news/newsgroup corpus"
    )
    parser.add_argument("--ruslit", type=int, default=50, help="works of ruslit (default 50)")
    parser.add_argument(
        "--generated", type=int, default=400, help="generated tricky texts (default 400)"
    )
    parser.add_argument("--num-perm", type=int, default=128)
    parser.add_argument("--save", type=Path, help="write the digests to this JSON file")
    parser.add_argument("--compare", type=Path, help="compare with digests saved by --save")
    parser.add_argument(
        "--compiled-vs-python",
        action="store_true",
        help="compare the compiled token filters with the filters on lists, then stop",
    )
    parser.add_argument(
        "--collection-batches",
        action="store_true",
        help="compare a collection's batch analysis with its analysis of one text at a time, "
        "then stop",
    )
    args = parser.parse_args(argv)
    if not DATA.exists():
        print(f"no data directory {DATA}", file=sys.stderr)
        return 2
    texts = corpora(args.docs, args.ruslit, args.generated)
    if args.collection_batches:
        differing = collection_batches(texts)
        print("IDENTICAL" if not differing else f"DIFFERENT: {differing} documents")
        return 1 if differing else 0
    if args.compiled_vs_python:
        differing = compiled_vs_python(texts)
        print("IDENTICAL" if not differing else f"DIFFERENT: {differing} documents")
        return 1 if differing else 0
    t0 = time.perf_counter()
    sections = run(texts, args.num_perm)
    digest = total(sections)
    print(f"{len(sections)} sections, {time.perf_counter() - t0:.1f} s")
    print(f"SHA-256 over all sections: {digest}")
    result = {
        "args": {
            k: v for k, v in vars(args).items() if k in ("docs", "ruslit", "generated", "num_perm")
        },
        "total": digest,
        "sections": sections,
    }
    if args.save:
        args.save.write_text(json.dumps(result, indent=1))
        print(f"saved to {args.save}")
    if args.compare:
        ref = json.loads(args.compare.read_text())
        if ref["args"] != result["args"]:
            print(f"different arguments: {ref['args']} vs {result['args']}")
            return 1
        bad = [
            name
            for name in sorted(set(ref["sections"]) | set(sections))
            if ref["sections"].get(name) != sections.get(name)
        ]
        if bad:
            print(f"DIFFERENT: {len(bad)} of {len(sections)} sections differ from {args.compare}:")
            for name in bad:
                print(f"  {name}")
            return 1
        print(f"IDENTICAL to {args.compare} ({ref['total']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

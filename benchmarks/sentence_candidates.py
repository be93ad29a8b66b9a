"""Single copied sentences and reworded sentences in a collection: what ``index check`` finds
and marks with the sentence keys (``IndexSpec.sentence_bands``) and without them, and what the
check costs.

The collection holds real texts of ``NEARDUP_DATA`` (never copied into the project) cut at
sentence ends into pieces of at most ``--piece`` characters (2,000 by default: an essay's
size), taken in turn from Russian news (ru_news), Reuters, 20 Newsgroups and Russian
literature (ruslit), so that 100,000 documents fit the corpora. Queries are texts of the same
corpora kept out of the collection (Russian news and Reuters, 800 to 2,000 characters) into
which, after one of their sentences, is put:

* ``copy`` — a sentence of 8 to 30 words of a stored document, as it is;
* ``edit`` — the same with one word (not the first) replaced by a word of another text;
* ``rewrite`` — the second sentence of a human-labelled paraphrase pair (dev sets: ParaPhraser
  and STS-B ru; MSRP and STS-B en, label 1), whose first sentence was put into a stored
  document before the collection was built; counted among those that ``compare
  --fragments`` of the query and that document marks (the ceiling);
* ``none`` — nothing (what an original text costs).

A query counts as *offered* when a candidate source proposes the planted document (or any
stored text holding the copied sentence), *found* when the check reports it among its matches,
*marked* when the passages (copied or rewritten) of one source the check reports cover half
the planted sentence or more (a sentence many stored texts repeat, boilerplate, is marked from
whichever of them the check reports). The check is ``Collection.check``
with its defaults (top 10, citations, rewrites); its CPU time is taken per query, with every
source (``on``) and with the sentence source taken out of the same collection (``off``: the
answers of a collection without sentence keys, ``sentence_bands`` 0, whose postings lack only
the keys, which the other sources never meet).

    NEARDUP_DATA=/work/shared/data .venv/bin/python benchmarks/sentence_candidates.py --docs 10000
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from neardup.fingerprints.pipeline import default_spec
from neardup.index import Collection, IndexSpec
from neardup.passages.rewrites import sentence_spans

DATA = Path(os.environ.get("NEARDUP_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
#: corpus file → language; pieces are taken from them in turn
CORPORA = {
    "ru_news.jsonl.gz": "ru",
    "reuters21578.jsonl.gz": "en",
    "20newsgroups.jsonl.gz": "en",
    "ruslit.jsonl.gz": "ru",
}
#: where query hosts come from (kept out of the collection)
HOSTS = {"ru": "ru_news.jsonl.gz", "en": "reuters21578.jsonl.gz"}
PARAPHRASES = {
    "ru": ("paraphraser_test_ru.jsonl.gz", "stsb_ru.jsonl.gz"),
    "en": ("msrp_train_en.jsonl.gz", "stsb_en.jsonl.gz"),
}
KINDS = ("copy", "edit", "rewrite", "none")
HOST_KINDS = ("essay", "news")


def texts(name: str) -> Iterator[str]:
    seen: set[str] = set()
    with gzip.open(DATA / name, "rt", encoding="utf-8") as fh:
        for line in fh:
            text = json.loads(line).get("text") or ""
            if text.strip() and text not in seen:
                seen.add(text)
                yield text


def pieces(text: str, size: int) -> Iterator[str]:
    """``text`` cut at sentence ends into pieces of at most ``size`` characters (a longer
    sentence is a piece of its own), each of 200 characters or more."""
    start = end = 0
    for s0, s1 in sentence_spans(text):
        if s1 - start > size and end > start:
            if end - start >= 200:
                yield text[start:end]
            start = s0
        end = s1
    if end - start >= 200:
        yield text[start:end]


def host_texts(lang: str, n: int) -> list[str]:
    """``n`` query hosts of 800 to 2,000 characters: the last such texts of a corpus (the
    collection leaves them out)."""
    return [t for t in texts(HOSTS[lang]) if 800 <= len(t) <= 2000][-n:]


def corpus(
    n_docs: int, size: int, hosts: set[str]
) -> tuple[list[tuple[str, str, str]], dict[str, int]]:
    """``(id, lang, text)`` of the collection (no piece of a query host), and how many texts
    of each corpus it read."""
    streams = {name: (t for t in texts(name) if t not in hosts) for name in CORPORA}
    cut = {name: iter(()) for name in CORPORA}
    used = dict.fromkeys(CORPORA, 0)
    out: list[tuple[str, str, str]] = []
    while len(out) < n_docs and streams:
        for name in list(streams):
            piece = next(cut[name], None)
            while piece is None:
                text = next(streams[name], None)
                if text is None:
                    del streams[name]
                    break
                used[name] += 1
                cut[name] = pieces(text, size)
                piece = next(cut[name], None)
            if piece is not None and len(out) < n_docs:
                out.append((f"{name.split('.')[0]}:{len(out)}", CORPORA[name], piece))
    return out, used


def vocabulary(docs: list[tuple[str, str, str]], lang: str) -> list[str]:
    words = [w for _, la, t in docs[:400] if la == lang for w in t.split() if w.isalpha()]
    return sorted(set(words))


def after_a_sentence(host: str, planted: str, rng: np.random.Generator) -> tuple[str, int, int]:
    """``planted`` put after a sentence of ``host`` (not the last): the text and its span."""
    spans = sentence_spans(host)
    s1 = spans[int(rng.integers(0, max(1, len(spans) - 1)))][1]
    text = host[:s1] + " " + planted + host[s1:]
    return text, s1 + 1, s1 + 1 + len(planted)


def is_sentence(piece: str) -> bool:
    """A sentence of 8 to 30 words that starts with a capital letter and ends with a full
    stop, ``!``, ``?`` or ``…`` (not a line of verse, a heading or a list item)."""
    words = piece.split()
    return (
        8 <= len(words) <= 30
        and piece[0].isupper()
        and piece.rstrip("\"'»”’)").endswith((".", "!", "?", "…"))
    )


def ended(sentence: str) -> str:
    """A sentence with a full stop when it has no end of its own (a headline)."""
    return sentence if sentence.rstrip("\"'»”’)").endswith((".", "!", "?", "…")) else sentence + "."


@dataclass
class Planted:
    lang: str
    kind: str
    query: str
    source: str | None = None
    span: tuple[int, int] = (0, 0)
    #: the copied sentence as it stands in its document, white space made single
    sentence: str = ""
    #: every stored document that holds it (a repeated sentence is found in any of them)
    holders: frozenset[str] = frozenset()
    words: int = 0
    ceiling: bool = True
    #: the text it was put into
    host: str = ""
    #: ``essay`` (the dev sets' sentences) or ``news`` (a report of the corpora)
    host_kind: str = "essay"
    #: whether that text alone leaves room among a check's 10 matches (a news report shares
    #: boilerplate with many stored reports; a copied sentence's source ranks below them)
    room: bool = True


def paraphrase_pairs(lang: str, n: int, rng: np.random.Generator) -> list[tuple[str, str]]:
    pairs = []
    for name in PARAPHRASES[lang]:
        with gzip.open(DATA / "dev" / name, "rt", encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                a, b = row["a"].strip(), row["b"].strip()
                if row["label"] == 1 and a != b and len(b.split()) >= 8:
                    pairs.append((ended(a), ended(b)))
    order = rng.permutation(len(pairs))[:n]
    return [pairs[i] for i in order.tolist()]


def essay_hosts(lang: str, n: int, rng: np.random.Generator) -> list[str]:
    """``n`` texts of 15 unrelated sentences each: the dev sets' sentences of pairs labelled
    0 (never planted), which no stored text holds — an otherwise original text, sharing no
    boilerplate with the collection as a news report does."""
    sentences: list[str] = []
    for name in PARAPHRASES[lang]:
        with gzip.open(DATA / "dev" / name, "rt", encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                if row["label"] == 0:
                    sentences.extend(ended(row[side].strip()) for side in ("a", "b"))
    sentences = sorted(set(sentences))
    order = rng.permutation(len(sentences)).tolist()
    return [" ".join(sentences[i] for i in order[k * 15 : (k + 1) * 15]) for k in range(n)]


def plant(
    docs: list[tuple[str, str, str]], hosts_of: dict[str, list[str]], per_kind: int, seed: int
) -> tuple[list[tuple[str, str, str]], list[Planted]]:
    """The collection with the rewrites' first sentences put in, and the queries: each
    planted sentence put into an essay of the dev sets' sentences and into a news report."""
    rng = np.random.default_rng(seed)
    docs = list(docs)
    out: list[Planted] = []
    for lang in ("ru", "en"):
        hosts = {"news": list(hosts_of[lang]), "essay": essay_hosts(lang, 4 * per_kind, rng)}
        rng.shuffle(hosts["news"])
        putter = Putter(lang, hosts, rng, out)
        mine = [i for i, (_, la, _) in enumerate(docs) if la == lang]
        copies(docs, mine, vocabulary(docs, lang), per_kind, rng, putter)
        for a_sentence, b_sentence in paraphrase_pairs(lang, per_kind, rng):
            i = mine[int(rng.integers(0, len(mine)))]
            doc_id, la, text = docs[i]
            stored, _, _ = after_a_sentence(text, a_sentence, rng)
            docs[i] = (doc_id, la, stored)
            putter.put("rewrite", b_sentence, doc_id)
        for _ in range(per_kind):
            putter.put("none", "", None)
    flat = [(doc_id, " ".join(text.split())) for doc_id, _, text in docs]
    for q in out:
        if q.sentence:
            q.holders = frozenset(i for i, t in flat if q.sentence in t)
    return docs, out


@dataclass
class Putter:
    """Puts a sentence into the next host of each kind, as a query."""

    lang: str
    hosts: dict[str, list[str]]
    rng: np.random.Generator
    out: list[Planted]
    used: int = 0

    def put(self, kind: str, sentence: str, source: str | None, original: str = "") -> None:
        for host_kind in HOST_KINDS:
            host = self.hosts[host_kind][self.used % len(self.hosts[host_kind])]
            query, span = host, (0, 0)
            if source is not None:
                query, s0, s1 = after_a_sentence(host, sentence, self.rng)
                span = (s0, s1)
            self.out.append(
                Planted(
                    self.lang,
                    kind,
                    query,
                    source,
                    span,
                    sentence=original,
                    words=len(sentence.split()),
                    host=host,
                    host_kind=host_kind,
                )
            )
        self.used += 1


def copies(
    docs: list[tuple[str, str, str]],
    mine: list[int],
    vocab: list[str],
    per_kind: int,
    rng: np.random.Generator,
    putter: Putter,
) -> None:
    """Sentences of stored texts put into hosts as they are and with one word changed."""
    for kind in ("copy", "edit"):
        made = 0
        while made < per_kind:
            doc_id, _, text = docs[mine[int(rng.integers(0, len(mine)))]]
            spans = [(a, b) for a, b in sentence_spans(text) if is_sentence(text[a:b])]
            if not spans:
                continue
            a, b = spans[int(rng.integers(0, len(spans)))]
            words = text[a:b].split()
            if kind == "edit":
                at = int(rng.integers(1, len(words)))
                words[at] = vocab[int(rng.integers(0, len(vocab)))]
            putter.put(kind, " ".join(words), doc_id, " ".join(text[a:b].split()))
            made += 1


def sources_of(q: Planted) -> frozenset[str]:
    """The documents whose finding counts: the one planted in, any that holds the sentence."""
    return q.holders | {q.source} if q.source is not None else frozenset()


def marked_in(alignment: Any, q: Planted, *, anyone: bool = False) -> bool:
    """Whether the passages of one of ``q``'s sources (``anyone``: of any one source) cover
    half the planted sentence or more."""
    if alignment is None or q.source is None:
        return False
    s0, s1 = q.span
    inside: dict[str, int] = {}
    for p in list(alignment.passages) + list(alignment.rewritten):
        if anyone or p.source in sources_of(q):
            inside[p.source] = inside.get(p.source, 0) + max(
                0, min(s1, p.a_end) - max(s0, p.a_start)
            )
    return max(inside.values(), default=0) >= (s1 - s0) / 2


def build(docs: list[tuple[str, str, str]], bands: int, path: Path) -> tuple[Collection, dict]:
    spec = IndexSpec(policy="allow", sentence_bands=bands)
    col = Collection.create(str(path), default_spec(), spec)
    c0, t0 = time.process_time(), time.perf_counter()
    col.add_many(((i, t) for i, _, t in docs), batch_size=1000, check=False, jobs=1)
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    counts = col.storage.counts()
    size = path.stat().st_size
    return col, {
        "bands": bands,
        "docs": len(docs),
        "insert_cpu_s": round(cpu, 1),
        "insert_wall_s": round(wall, 1),
        "postings_per_doc": round(counts["postings"] / len(docs), 1),
        "bytes_per_doc": round(size / len(docs)),
    }


def run_queries(col: Collection, queries: list[Planted], sentence_source: bool) -> dict[str, Any]:
    every = list(col.sources)
    col.sources = [s for s in every if sentence_source or s.name != "sentences"]
    try:
        for q in queries[:: max(1, len(queries) // 10)]:
            col.check(q.query)  # the first ones (kernels compiled, the tail read) apart
        cpu: list[float] = []
        rows: list[dict[str, Any]] = []
        for q in queries:
            c0 = time.process_time()
            result = col.check(q.query)
            cpu.append(1000 * (time.process_time() - c0))
            if q.source is None:
                rows.append({"lang": q.lang, "kind": q.kind, "cpu": cpu[-1]})
                continue
            item = col.analyze(q.query)
            proposals = col.finder.stored([item], col.storage)
            wanted = sources_of(q)
            offered = any(
                doc.id in wanted
                for doc in col.storage.docs(proposals.pairs.other.tolist(), meta=False)
            )
            planted = q.query[q.span[0] : q.span[1]]
            rows.append(
                {
                    "lang": q.lang,
                    "kind": q.kind,
                    "words": q.words,
                    "tokens": len(col.pipeline.analyze(planted).canonical),
                    "offered": offered,
                    "found": bool(wanted & {m.id for m in result.matches}),
                    "marked": marked_in(result.alignment, q, anyone=True),
                    "cpu": cpu[-1],
                }
            )
    finally:
        col.sources = every
    c = np.array(cpu)
    return {
        "rows": rows,
        "cpu_p50": float(np.percentile(c, 50)),
        "cpu_p99": float(np.percentile(c, 99)),
        "cpu_mean": float(c.mean()),
    }


def ceilings(col: Collection, queries: list[Planted]) -> None:
    """Which rewrites ``compare --fragments`` marks between the query and its document, and
    which hosts leave room among a check's matches on their own."""
    alone: dict[str, bool] = {}
    for q in queries:
        if q.host not in alone:
            alone[q.host] = len(col.check(q.host).matches) < 10
        q.room = alone[q.host]
    for q in queries:
        if q.kind == "rewrite" and q.source is not None:
            stored = col.get(q.source).text or ""
            q.ceiling = marked_in(col.aligner.align(q.query, [(q.source, stored)]), q)


def share(rows: list[dict[str, Any]], what: str) -> str:
    if not rows:
        return "–"
    hit = sum(1 for r in rows if r[what])
    return f"{hit / len(rows):.3f} ({hit}/{len(rows)})"


def table(runs: dict[str, dict[str, Any]], queries: list[Planted], host_kind: str) -> list[str]:
    """Offered, found and marked shares by language and kind, in ``host_kind`` hosts."""
    lines = [
        f"| lang | kind ({host_kind}) | queries | offered off | on | found off | on | "
        "marked off | on |",
        "|---|---|---:|---|---|---|---|---|---|",
    ]
    for lang in ("ru", "en"):
        for kind, least in (("copy", 0), ("copy", 8), ("edit", 0), ("edit", 8), ("rewrite", 0)):
            keep = [
                i
                for i, q in enumerate(queries)
                if q.lang == lang
                and q.kind == kind
                and q.host_kind == host_kind
                and (kind != "rewrite" or q.ceiling)
                and runs["on"]["rows"][i]["tokens"] >= least
            ]
            cells = []
            for what in ("offered", "found", "marked"):
                for state in ("off", "on"):
                    cells.append(share([runs[state]["rows"][i] for i in keep], what))
            label = f"{kind}, {least}+ tokens" if least else kind
            lines.append(f"| {lang} | {label} | {len(keep)} | " + " | ".join(cells) + " |")
    return lines


def costs(runs: dict[str, dict[str, Any]], queries: list[Planted]) -> list[str]:
    lines = [
        "| hosts | queries | check CPU p50 ms off | on | p99 ms off | on | mean ms off | on |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for host_kind in (*HOST_KINDS, "all"):
        keep = [i for i, q in enumerate(queries) if host_kind in ("all", q.host_kind)]
        cells = []
        for stat in ("p50", "p99", "mean"):
            for state in ("off", "on"):
                c = np.array([runs[state]["rows"][i]["cpu"] for i in keep])
                cells.append(
                    f"{(c.mean() if stat == 'mean' else np.percentile(c, int(stat[1:]))):.1f}"
                )
        lines.append(f"| {host_kind} | {len(keep)} | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=100, help="queries per kind and language")
    ap.add_argument("--bands", type=int, default=IndexSpec().sentence_bands)
    ap.add_argument("--piece", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--db", type=Path, help="keep the collection here (reused when it exists)")
    ap.add_argument("--json", type=Path, help="write the results here too")
    args = ap.parse_args(argv)
    hosts = {lang: host_texts(lang, 4 * args.queries) for lang in HOSTS}
    docs, used = corpus(args.docs, args.piece, {t for h in hosts.values() for t in h})
    docs, queries = plant(docs, hosts, args.queries, args.seed)
    folder = Path(tempfile.mkdtemp(prefix="sentences-"))
    path = args.db or folder / "collection.db"
    if path.exists():
        col, made = Collection.open(str(path)), {"reused": str(path)}
    else:
        col, made = build(docs, args.bands, path)
    print(json.dumps({"built": made, "texts_read": used}), flush=True)
    ceilings(col, queries)
    load0 = os.getloadavg()
    runs = {state: run_queries(col, queries, state == "on") for state in ("off", "on")}
    load1 = os.getloadavg()
    lines = table(runs, queries, "essay")
    lines += [""] + table(runs, queries, "news")
    lines += [""] + costs(runs, queries)
    full = {k: sum(not q.room for q in queries if q.host_kind == k) for k in HOST_KINDS}
    lines.append(
        f"\nhosts whose check alone fills the 10 matches: {full['essay']} essay queries, "
        f"{full['news']} news queries; load {load0[0]:.1f} → {load1[0]:.1f}"
    )
    print("\n".join(lines))
    if args.json:
        args.json.write_text(
            json.dumps(
                {"built": made, "runs": runs, "args": {k: str(v) for k, v in vars(args).items()}},
                indent=1,
            )
        )
    col.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Repeated-line cleaning on a web-like corpus with known truth, side by side with peers.

The corpus: news documents of ``../shared/data`` (Reuters and Russian news, half each), each
given boilerplate the way web pages carry it — lines (cookie banners, menus, "subscribe"
calls, legal footers) at the top and bottom, and three-line paragraphs in the middle — each
boilerplate line on 1 % to 20 % of the pages, and one occurrence in five altered as pages
alter them (other case, doubled spaces, a Cyrillic homoglyph in a Latin word). Lines found in more
than one of the source documents (an agency's sign-off such as "REUTER") are taken out first,
so the truth — every injected line — is whole.

Each tool runs in its own process on the same JSONL (its CPU seconds and peak memory from
``wait4``), and its output is compared with the input line by line (``difflib`` over the
non-blank lines of each document): a line the output no longer has is removed. Precision and
recall are over line occurrences; bytes are UTF-8 bytes of text removed.

Tools: neardup's :func:`neardup.clean_texts` at the line level (a line in more than
``span_docs`` documents is cut, every occurrence) and the whole ``neardup dedup --level line``
job (near-duplicate documents first; its records' texts compared, the near-copies it drops
counted as not cleaned); datatrove's sentence dedup on lines (``split_sentences=False``,
``n_sentences=1``: every occurrence after the first is removed) and text-dedup's CCNet line
dedup (its ``compute_hashes``/``dedup`` functions over the corpus, as its script runs them),
each from ``--peers-python`` (a Python with them installed: ``pip install datatrove spacy
text-dedup``); a row says so when one does not import.

    python benchmarks/clean_levels.py --docs 4000 --peers-python /tmp/peers/bin/python
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = next(
    (p / "shared" / "data" for p in ROOT.parents if (p / "shared" / "data").is_dir()),
    ROOT.parent / "shared" / "data",
)

# boilerplate written for this benchmark (not taken from any site)
TOP = [
    "Accept all cookies to continue reading this page",
    "Menu | Home | News | Business | Sport | Weather | Contacts",
    "Мы используем файлы cookie, чтобы сайт работал лучше",
    "Главная | Новости | Экономика | Спорт | Погода | Контакты",
    "Sign in to save your favourite articles for later",
    "Войдите, чтобы сохранять статьи в избранное",
]
BOTTOM = [
    "Subscribe to our channel for more news every day",
    "Подписывайтесь на наш канал, чтобы первыми узнавать новости",
    "All rights reserved. Reproduction without permission is prohibited",
    "Все права защищены. Перепечатка без разрешения редакции запрещена",
    "Follow us on social networks and share this story with friends",
    "Читайте также другие материалы рубрики на нашем сайте",
]
PARAGRAPHS = [
    [
        "Advertisement",
        "Our partners may use your data to show you relevant offers",
        "You can change your choice at any time in the settings",
    ],
    [
        "Реклама",
        "Партнёры сайта могут использовать ваши данные для показа предложений",
        "Изменить выбор можно в любой момент в настройках",
    ],
    [
        "Related stories",
        "More from this section will appear here as soon as it is published",
        "Thank you for reading and supporting independent journalism",
    ],
]
HOMOGLYPHS = {"o": "\u043e", "a": "\u0430", "e": "\u0435", "c": "\u0441"}


def _alter(line: str, rng: random.Random) -> str:
    """One occurrence in five altered as pages alter boilerplate."""
    roll = rng.random()
    if roll < 0.08:
        return line.upper()
    if roll < 0.16:
        return line.replace(" ", "  ")
    if roll < 0.2:
        for latin, cyrillic in HOMOGLYPHS.items():
            if latin in line:
                return line.replace(latin, cyrillic, 1)
    return line


def _unrepeated(texts: list[str]) -> list[str]:
    """The texts without the lines found in more than one of them (a news agency's sign-off,
    a photo credit), so the injected lines are the only repeated ones and the truth is whole."""
    from collections import Counter

    def norm(line: str) -> str:
        return " ".join(line.casefold().split())

    df = Counter(key for text in texts for key in {norm(x) for x in text.splitlines() if x.strip()})
    return ["\n".join(x for x in t.splitlines() if df[norm(x)] <= 1) for t in texts]


def build_corpus(n: int, seed: int) -> tuple[list[dict[str, Any]], list[set[int]]]:
    """``n`` documents with boilerplate, and per document the indices (among its non-blank
    lines) of the injected ones."""
    rng = random.Random(seed)
    texts: list[str] = []
    for name in ("reuters21578.jsonl.gz", "ru_news.jsonl.gz"):
        with gzip.open(DATA / name, "rt", encoding="utf-8") as fh:
            for line in fh:
                text = json.loads(line).get("text") or ""
                if len(text.split()) >= 30:
                    texts.append(text)
                if len(texts) >= (n if name != "reuters21578.jsonl.gz" else n // 2):
                    break
    rng.shuffle(texts)
    texts = _unrepeated(texts[:n])
    rates = {line: rng.uniform(0.01, 0.2) for line in [*TOP, *BOTTOM]}
    para_rates = [rng.uniform(0.01, 0.08) for _ in PARAGRAPHS]
    rows: list[dict[str, Any]] = []
    truth: list[set[int]] = []
    for i, text in enumerate(texts[:n]):
        body = [(line, False) for line in text.splitlines() if line.strip()]
        for paragraph, rate in zip(PARAGRAPHS, para_rates, strict=True):
            if rng.random() < rate:
                at = rng.randrange(len(body) + 1)
                body[at:at] = [(_alter(line, rng), True) for line in paragraph]
        top = [(_alter(line, rng), True) for line in TOP if rng.random() < rates[line]]
        bottom = [(_alter(line, rng), True) for line in BOTTOM if rng.random() < rates[line]]
        lines = [*top, *body, *bottom]
        rows.append({"id": f"w{i}", "text": "\n".join(line for line, _ in lines) + "\n"})
        truth.append({k for k, (_, injected) in enumerate(lines) if injected})
    return rows, truth


# --- the tools, each a script run in its own process ----------------------------------------

NEARDUP_LIB = """
import json, sys
from neardup import CleanOptions, clean_texts
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
result = clean_texts([r["text"] for r in rows], CleanOptions(level="line"))
with open(sys.argv[2], "w", encoding="utf-8") as fh:
    for r, t in zip(rows, result.texts):
        fh.write(json.dumps({"id": r["id"], "text": t.text if t.kept else ""}) + "\\n")
"""

NEARDUP_JOB = """
import json, sys, tempfile, os
from neardup.cli.main import main
out = os.path.join(tempfile.mkdtemp(), "out")
code = main(["dedup", sys.argv[1], "--out", out, "--level", "line", "-q", "--jobs", "1"])
with open(sys.argv[2], "w", encoding="utf-8") as fh:
    for line in open(os.path.join(out, "documents.jsonl"), encoding="utf-8"):
        r = json.loads(line)
        fh.write(json.dumps({"id": r["id"], "text": r["text"] if r["kept"] else None}) + "\\n")
sys.exit(code)
"""

DATATROVE = """
import json, sys, tempfile, os
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.readers import JsonlReader
from datatrove.pipeline.writers import JsonlWriter
from datatrove.pipeline.dedup.sentence_dedup import (
    SentDedupConfig, SentenceDedupFilter, SentenceDedupSignature, SentenceFindDedups)
from datatrove.utils.hashing import HashConfig
work = tempfile.mkdtemp()
# sha1: datatrove 0.10's xxhash path hands str to an xxhash that takes only bytes
config = SentDedupConfig(n_sentences=1, split_sentences=False, only_dedup_in_index=True,
                         min_doc_words=0, min_num_sentences=0,
                         hash_config=HashConfig(hash_fc="sha1"))
src = os.path.dirname(sys.argv[1]); name = os.path.basename(sys.argv[1])
reader = lambda: JsonlReader(src, glob_pattern=name, compression=None)
LocalPipelineExecutor([reader(), SentenceDedupSignature(f"{work}/sigs", config=config)],
                      tasks=1, logging_dir=f"{work}/l1").run()
LocalPipelineExecutor([SentenceFindDedups(f"{work}/sigs", f"{work}/dups", config=config)],
                      tasks=1, logging_dir=f"{work}/l2").run()
LocalPipelineExecutor([reader(), SentenceDedupFilter(f"{work}/dups", config=config),
                       JsonlWriter(f"{work}/out", compression=None)],
                      tasks=1, logging_dir=f"{work}/l3").run()
kept = {}
for f in sorted(os.listdir(f"{work}/out")):
    for line in open(f"{work}/out/{f}", encoding="utf-8"):
        r = json.loads(line); kept[r["id"]] = r["text"]
with open(sys.argv[2], "w", encoding="utf-8") as fh:
    for line in open(sys.argv[1], encoding="utf-8"):
        r = json.loads(line)
        fh.write(json.dumps({"id": r["id"], "text": kept.get(r["id"], "")}) + "\\n")
"""

TEXT_DEDUP = """
import json, sys
from text_dedup.ccnet import compute_hashes, dedup, HASH_COLUMN, ID_COLUMN
from text_dedup.utils import INDEX_COLUMN, xxh3_64_digest
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
seen, remove = set(), set()
for i, r in enumerate(rows):
    h = compute_hashes({"text": [r["text"]]}, [i], "text", xxh3_64_digest)
    for value, doc, line in zip(h[HASH_COLUMN], h[ID_COLUMN], h[INDEX_COLUMN]):
        if value in seen:
            remove.add((doc, line))
        seen.add(value)
with open(sys.argv[2], "w", encoding="utf-8") as fh:
    for i, r in enumerate(rows):
        out = dedup(dict(r), i, "text", remove)
        fh.write(json.dumps({"id": r["id"], "text": out["text"]}) + "\\n")
"""


def run_tool(
    python: str, script: str, corpus: Path, out: Path, env: dict[str, str]
) -> dict[str, Any]:
    """Run ``script`` on the corpus in a child process: its wall and CPU seconds, peak RSS."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [python, "-c", script, str(corpus), str(out)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    stderr = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        return {"error": stderr.strip().splitlines()[-1] if stderr.strip() else f"exit {status}"}
    return {
        "wall_s": round(wall, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "peak_mb": round(usage.ru_maxrss / 1024),
    }


def score(rows: list[dict[str, Any]], truth: list[set[int]], out: Path) -> dict[str, Any]:
    """Precision and recall of the removed line occurrences, and the bytes removed."""
    cleaned = {}
    for line in out.read_text("utf-8").splitlines():
        r = json.loads(line)
        cleaned[r["id"]] = r["text"]
    hit = removed = injected = byte_count = skipped = 0
    for row, true in zip(rows, truth, strict=True):
        before = [x for x in row["text"].splitlines() if x.strip()]
        text = cleaned.get(row["id"])
        if text is None:  # a document a job dropped as a near-copy: not cleaned, not counted
            skipped += 1
            continue
        after = [x for x in text.splitlines() if x.strip()]
        matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
        kept = {i for a, _, size in matcher.get_matching_blocks() for i in range(a, a + size)}
        gone = set(range(len(before))) - kept
        hit += len(gone & true)
        removed += len(gone)
        injected += len(true)
        byte_count += len(row["text"].encode("utf-8", "surrogatepass")) - len(
            text.encode("utf-8", "surrogatepass")
        )
    return {
        "precision": round(hit / removed, 4) if removed else 0.0,
        "recall": round(hit / injected, 4) if injected else 0.0,
        "lines_removed": removed,
        "bytes_removed": byte_count,
        "documents_not_compared": skipped,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--peers-python", default=None, help="a Python with the peers installed")
    parser.add_argument("--skip-job", action="store_true", help="leave out the whole dedup job")
    args = parser.parse_args()
    rows, truth = build_corpus(args.docs, args.seed)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    peers = args.peers_python
    tools: list[tuple[str, str | None, str]] = [
        ("neardup clean_texts (line)", sys.executable, NEARDUP_LIB),
        (
            "neardup dedup --level line (job)",
            None if args.skip_job else sys.executable,
            NEARDUP_JOB,
        ),
        ("datatrove sentence dedup (lines)", peers, DATATROVE),
        ("text-dedup ccnet (lines)", peers, TEXT_DEDUP),
    ]
    print(f"corpus: {len(rows)} documents, {sum(map(len, truth))} injected boilerplate lines")
    print(f"host: {os.cpu_count()} CPUs, AVX-512: {_avx512()}")
    with tempfile.TemporaryDirectory(prefix="clean-levels-") as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
        header = (
            f"{'tool':36} {'precision':>9} {'recall':>7} {'bytes rm':>10} {'CPU s':>7} {'MB':>6}"
        )
        print(header)
        results = {}
        for name, python, script in tools:
            if python is None:
                print(f"{name:36} not run (no --peers-python, or --skip-job)")
                continue
            out = Path(tmp) / f"{len(results)}.jsonl"
            found = run_tool(python, script, corpus, out, env)
            if "error" in found:
                print(f"{name:36} did not run: {found['error'][:90]}")
                results[name] = found
                continue
            found.update(score(rows, truth, out))
            results[name] = found
            print(
                f"{name:36} {found['precision']:9.4f} {found['recall']:7.4f} "
                f"{found['bytes_removed']:10d} {found['cpu_s']:7.1f} {found['peak_mb']:6d}"
            )
        print(json.dumps(results, indent=1))


def _avx512() -> bool:
    try:
        return "avx512f" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


if __name__ == "__main__":
    main()

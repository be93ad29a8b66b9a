"""Quality of matched fragments on generated partial copies (PAN plagdet, character level).

A generator takes pairs of unrelated news texts from ../shared/data/ru_news.jsonl.gz (a host
and a source), cuts a fragment of 30–150 words out of the source and pastes it into the host
at a random word boundary — verbatim, with light word edits (5–10 % of its words substituted
by a word of another text or deleted), or (``--modes …,moderate``) with 15–25 % — and keeps
the ground truth: the pasted span in the new ("suspicious") text and the fragment's span in the
source. `neardup.passages.align` then aligns each suspicious text against its source and the
passages
are scored with `neardup.eval.metrics.fragment_scores`.

Pairs are taken only when host and source share no 8-word sequence (plain lowercase words),
so a passage found outside the pasted fragment is a false detection, not a real reuse that
the news corpus happens to hold.

    .venv/bin/python benchmarks/quality_fragments.py                  # 300 cases per mode
    .venv/bin/python benchmarks/quality_fragments.py --cases 40       # a quick check
    .venv/bin/python benchmarks/quality_fragments.py --sweep          # k / gap / min_tokens grid
    .venv/bin/python benchmarks/quality_fragments.py --json out.json  # figures as JSON

Deterministic: the same --seed gives the same cases.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neardup.eval.formats import Fragment
from neardup.eval.metrics import FragmentScores, fragment_scores
from neardup.passages.align import DEFAULT_GAP, DEFAULT_K, DEFAULT_MIN_TOKENS, Aligner, Prepared

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "ru_news.jsonl.gz"
WORD = re.compile(r"\S+")
PLAIN_WORD = re.compile(r"\w+")
#: Share of a fragment's words edited, per mode (uniform between the two).
EDIT_RATES = {"light": (0.05, 0.10), "moderate": (0.15, 0.25)}


@dataclass(frozen=True)
class Case:
    """A suspicious text with one pasted fragment, and where it came from."""

    id: str
    text: str
    source_id: str
    source_text: str
    truth: Fragment


def load_texts(path: Path, min_chars: int = 1500, max_chars: int = 12000) -> list[tuple[str, str]]:
    """Distinct news texts of a moderate length."""
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            text = doc["text"]
            if min_chars <= len(text) <= max_chars and text not in seen:
                seen.add(text)
                out.append((str(doc["id"]), text))
    return out


def _grams(text: str, n: int = 8) -> set[tuple[str, ...]]:
    words = PLAIN_WORD.findall(text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def _edit(
    words: list[str], seps: list[str], rate: float, pool: list[str], rng: np.random.Generator
) -> str:
    """Substitute or delete about ``rate`` of the words (half each); keep the separators."""
    pieces: list[str] = []
    n = len(words)
    edited = rng.random(n) < rate
    deleted = rng.random(n) < 0.5
    for t in range(n):
        last = t == n - 1
        if edited[t] and deleted[t] and 0 < t and not last:
            continue  # drop the word and its separator
        word = pool[int(rng.integers(len(pool)))] if edited[t] else words[t]
        pieces.append(word)
        if not last:
            pieces.append(seps[t])
    return "".join(pieces)


def generate(texts: list[tuple[str, str]], n_cases: int, mode: str, seed: int) -> list[Case]:
    """``n_cases`` suspicious texts, each a host with one fragment of a source pasted in."""
    rng = np.random.default_rng(seed)
    pool: list[str] = []
    for _, text in texts[:200]:
        pool.extend(w for w in PLAIN_WORD.findall(text) if len(w) > 3)
    cases: list[Case] = []
    while len(cases) < n_cases:
        h, s = rng.choice(len(texts), size=2, replace=False)
        _, host = texts[int(h)]
        source_id, source = texts[int(s)]
        if _grams(host) & _grams(source):
            continue  # the two already share text: not a clean negative background
        spans = [(m.start(), m.end()) for m in WORD.finditer(source)]
        length = int(rng.integers(30, 151))
        if len(spans) < length + 2:
            continue
        first = int(rng.integers(0, len(spans) - length))
        frag_spans = spans[first : first + length]
        src_start, src_end = frag_spans[0][0], frag_spans[-1][1]
        fragment = source[src_start:src_end]
        if mode in EDIT_RATES:
            words = [source[a:b] for a, b in frag_spans]
            seps = [source[frag_spans[t][1] : frag_spans[t + 1][0]] for t in range(length - 1)]
            low, high = EDIT_RATES[mode]
            fragment = _edit(words, seps, float(rng.uniform(low, high)), pool, rng)
        host_words = [m.start() for m in WORD.finditer(host)]
        at = host_words[int(rng.integers(1, len(host_words)))]
        text = host[:at] + fragment + " " + host[at:]
        case_id = f"{mode}-{len(cases)}"
        truth = Fragment(source_id, case_id, src_start, src_end - src_start, at, len(fragment))
        cases.append(Case(case_id, text, source_id, source, truth))
    return cases


def evaluate(
    cases: list[Case], aligner: Aligner, prepared: dict[str, Prepared] | None = None
) -> tuple[FragmentScores, float, float]:
    """Plagdet of the aligner's passages; also the mean absolute error of borrowed % and the
    seconds spent aligning."""
    detections: list[Fragment] = []
    errors: list[float] = []
    seconds = 0.0
    for case in cases:
        t0 = time.perf_counter()
        source = prepared[case.id] if prepared is not None else case.source_text
        result = aligner.align(case.text, [(case.source_id, source)])
        seconds += time.perf_counter() - t0
        for p in result.passages:
            detections.append(
                Fragment(
                    case.source_id,
                    case.id,
                    p.b_start,
                    p.b_end - p.b_start,
                    p.a_start,
                    p.a_end - p.a_start,
                )
            )
        # the true borrowed share, in the aligner's own unit (canonical tokens of the query)
        canon = aligner.pipeline.canonical(case.text)
        susp_start = case.truth.suspicious_offset
        susp_end = susp_start + case.truth.suspicious_length
        inside = (canon.starts >= susp_start) & (canon.ends <= susp_end)
        true_share = float(inside.mean()) if len(canon) else 0.0
        errors.append(abs(result.borrowed - true_share))
    return fragment_scores([c.truth for c in cases], detections), float(np.mean(errors)), seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=300, help="cases per mode (default 300)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--sweep", action="store_true", help="try a grid of k, gap, min_tokens")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument(
        "--modes",
        default="verbatim,light",
        help="comma-separated: verbatim, light (5-10 %% edits), moderate (15-25 %%)",
    )
    args = parser.parse_args(argv)
    if not DATA.exists():
        print(
            f"no data at {DATA}: this benchmark needs ../shared/data/ru_news.jsonl.gz",
            file=sys.stderr,
        )
        return 2
    texts = load_texts(DATA)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in modes if m != "verbatim" and m not in EDIT_RATES]
    if unknown:
        parser.error(f"unknown mode(s): {', '.join(unknown)}")
    suites = {
        mode: generate(texts, args.cases, mode, args.seed + i) for i, mode in enumerate(modes)
    }
    grid = [(DEFAULT_K, DEFAULT_GAP, DEFAULT_MIN_TOKENS)]
    if args.sweep:
        grid = [(k, g, m) for k in (2, 3, 4) for g in (0, 2, 4, 6, 8) for m in (4, 6, 8, 10)]
    rows = []
    print(
        f"{'k':>2} {'gap':>3} {'min':>3} {'mode':>8} {'prec':>6} {'rec':>6} {'gran':>6} "
        f"{'plagdet':>7} {'|Δ%|':>6} {'ms/pair':>7}"
    )
    for k, gap, min_tokens in grid:
        aligner = Aligner(k=k, gap=gap, min_tokens=min_tokens)
        for mode, cases in suites.items():
            scores, err, seconds = evaluate(cases, aligner)
            row = {
                "k": k,
                "gap": gap,
                "min_tokens": min_tokens,
                "mode": mode,
                **scores.to_dict(),
                "borrowed_abs_error": err,
                "ms_per_pair": 1000 * seconds / len(cases),
            }
            rows.append(row)
            print(
                f"{k:>2} {gap:>3} {min_tokens:>3} {mode:>8} {scores.precision:6.3f} "
                f"{scores.recall:6.3f} {scores.granularity:6.3f} {scores.plagdet:7.3f} "
                f"{100 * err:6.2f} {row['ms_per_pair']:7.1f}",
                flush=True,
            )
    if args.json:
        args.json.write_text(
            json.dumps({"cases_per_mode": args.cases, "seed": args.seed, "rows": rows}, indent=1),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

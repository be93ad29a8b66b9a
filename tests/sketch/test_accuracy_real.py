"""MinHash accuracy on real texts: over 10,000 pairs from ../shared/data/ru_news.jsonl.gz.

Pairs: each of 1,500 news texts against an edited copy of itself at edit rates from 1 % to
60 % (word substitutions, deletions, insertions and swaps of neighbours, at equal shares), and
2,000 pairs of different texts. The exact resemblance of each pair comes from its fingerprint
sets; the estimate from 128-function signatures. The test checks that the estimate is unbiased
(mean error ≈ 0) and that its RMS error in every resemblance bucket is within the theoretical
band ``sqrt(s (1 - s) / N)``.
"""

from __future__ import annotations

import gzip
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from neardup import Pipeline, make_spec
from neardup.fingerprints.similarity import compare
from neardup.sketch import MinHasher
from neardup.spec import SketchSpec

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "ru_news.jsonl.gz"
N = 128
RATES = (0.01, 0.03, 0.06, 0.1, 0.15, 0.2, 0.3, 0.45, 0.6)
BUCKETS = (0.0, 0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 1.0001)

pytestmark = pytest.mark.slow


def _edit(terms: np.ndarray, rate: float, rng: np.random.Generator, vocab: np.ndarray) -> list[str]:
    """Edit about ``rate`` of the words: a quarter each substituted, deleted, followed by an
    inserted word, or swapped with the next one."""
    n = terms.shape[0]
    op = rng.random(n)
    choice = rng.integers(0, 4, size=n)
    hit = op < rate
    out = terms.copy()
    subst = hit & (choice == 0)
    out[subst] = vocab[rng.integers(0, vocab.shape[0], size=int(subst.sum()))]
    swap = np.flatnonzero(hit & (choice == 3))
    swap = swap[swap + 1 < n]
    out[swap], out[swap + 1] = out[swap + 1].copy(), out[swap].copy()
    keep = ~(hit & (choice == 1))
    insert = hit & (choice == 2)
    pieces = []
    extra = vocab[rng.integers(0, vocab.shape[0], size=int(insert.sum()))]
    j = 0
    for word, k, ins in zip(out.tolist(), keep.tolist(), insert.tolist()):
        if k:
            pieces.append(word)
        if ins:
            pieces.append(extra[j])
            j += 1
    return pieces


def test_minhash_estimate_is_unbiased_and_within_the_band_on_real_pairs() -> None:
    if not DATA.exists():
        pytest.skip(f"the shared corpora are not here: {DATA} is missing")
    rng = np.random.default_rng(20240612)
    spec = make_spec("plain", k=5).replace(sketch=SketchSpec(num_perm=N, seed=11))
    pipeline = Pipeline(spec.replace(sketch=None))
    hasher = MinHasher(spec)
    with gzip.open(DATA, "rt", encoding="utf-8") as f:
        raw = [json.loads(line)["text"] for line in itertools.islice(f, 2600)]
    bases = []
    seen = set()
    for text in raw:
        terms = pipeline.canonical(text).terms
        key = " ".join(terms)
        if len(terms) >= 120 and key not in seen:  # exact duplicates would give J = 1 random pairs
            seen.add(key)
            bases.append(np.array(terms, dtype=object))
        if len(bases) == 1500:
            break
    assert len(bases) == 1500
    vocab = np.array(
        [
            "".join(rng.choice(list("абвгдежзиклмнопрстуфхцчшщэюя"), size=int(rng.integers(3, 10))))
            for _ in range(5000)
        ],
        dtype=object,
    )
    left, right = [], []
    for terms in bases:
        base_text = " ".join(terms.tolist())
        for rate in RATES:
            left.append(base_text)
            right.append(" ".join(_edit(terms, rate, rng, vocab)))
    for _ in range(2000):
        i, j = rng.choice(len(bases), size=2, replace=False)
        left.append(" ".join(bases[i].tolist()))
        right.append(" ".join(bases[j].tolist()))
    assert len(left) >= 10_000
    fa = list(pipeline.fingerprints_many(left))
    fb = list(pipeline.fingerprints_many(right))
    truth = np.array([compare(a, b).resemblance for a, b in zip(fa, fb)])
    est = hasher.estimate_many(hasher.sign_many(fa), hasher.sign_many(fb))
    err = est - truth

    # unbiased overall: the mean error is within 4 standard errors of 0
    var = truth * (1 - truth) / N
    se_mean = float(np.sqrt(var.sum())) / len(err)
    assert abs(float(err.mean())) < 4 * se_mean + 1e-12, (float(err.mean()), se_mean)

    report = []
    for lo, hi in zip(BUCKETS[:-1], BUCKETS[1:]):
        sel = (truth >= lo) & (truth < hi)
        count = int(sel.sum())
        if count < 100:
            continue
        rms = float(np.sqrt(np.mean(err[sel] ** 2)))
        band = float(np.sqrt(np.mean(var[sel])))
        mean = float(err[sel].mean())
        report.append((lo, hi, count, mean, rms, band))
        # RMS error within the theoretical band (with the sampling slack of `count` pairs)
        assert rms <= band * (1 + 3 * np.sqrt(2 / count)) + 1e-12, report[-1]
        # and no bias in the bucket either
        assert abs(mean) < 4 * band / np.sqrt(count) + 1e-12, report[-1]
    print("\nbucket  pairs  mean error  RMS error  band sqrt(s(1-s)/N)")
    for lo, hi, count, mean, rms, band in report:
        print(f"[{lo:.2f}, {min(hi, 1.0):.2f})  {count:5d}  {mean:+.5f}  {rms:.5f}  {band:.5f}")
    print(
        f"all {len(err)} pairs: mean error {float(err.mean()):+.6f} (standard error {se_mean:.6f})"
    )
    assert len(report) >= 5, report  # the pairs spread over the resemblance range

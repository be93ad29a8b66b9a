"""Quality: the collection's decisions agree with brute-force exact computation (slow).

Real news from ../shared/data/ru_news.jsonl.gz plus labelled variants (word edits at known
rates, morphology changes, pasted paragraphs; benchmarks/collection_data.py) go into two
collections under ``allow`` (so every pair at or above the threshold becomes a link): one on
resemblance, one on containment. Every pair the brute force finds at or above the threshold
must be linked (recall ≥ 0.98), and every similarity the index reports must equal the exact
value.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from neardup._kernels.winnow import verify_many
from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "ru_news.jsonl.gz"
N_DOCS = 400
N_VARIANTS = 240
THRESHOLD = 0.5

pytestmark = pytest.mark.slow


def _data_module():
    spec = importlib.util.spec_from_file_location(
        "collection_data", ROOT / "benchmarks" / "collection_data.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _exact_all_pairs(values: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shared counts of every pair i > j: (i, j, shared) for pairs that share anything."""
    lengths = np.array([v.shape[0] for v in values], dtype=np.int64)
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    flat = np.concatenate(values)
    empty = np.zeros(0, dtype=np.int64)
    rows_i, rows_j, rows_s = [], [], []
    for i in range(1, len(values)):
        shared, _ = verify_many(
            values[i], empty, flat[: offsets[i]], empty, offsets[: i + 1], False
        )
        nz = np.flatnonzero(shared)
        rows_i.append(np.full(nz.shape[0], i))
        rows_j.append(nz)
        rows_s.append(shared[nz])
    return np.concatenate(rows_i), np.concatenate(rows_j), np.concatenate(rows_s)


@pytest.fixture(scope="module")
def corpus() -> tuple[list[str], list]:
    if not DATA.exists():
        pytest.skip(f"the real corpus is missing: {DATA} (../shared/data is not here)")
    data = _data_module()
    docs = data.load_texts("ru_news.jsonl.gz", N_DOCS, min_chars=1500, max_chars=12000)
    variants = data.variants(docs, N_VARIANTS, seed=4)
    items = [(i, t) for i, t in docs] + [(i, t) for i, t, _ in variants]
    rng = np.random.default_rng(5)
    order = rng.permutation(len(items))  # variants arrive before and after their sources
    items = [items[k] for k in order]
    col = Collection.create("memory:", make_spec("ru"))
    analyzed = [(i, col.analyze(t)) for i, t in items]
    return [i for i, _ in analyzed], [a for _, a in analyzed]


@pytest.mark.parametrize("measure", ["resemblance", "containment"])
def test_links_agree_with_brute_force(corpus: tuple[list[str], list], measure: str) -> None:
    ids, analyzed = corpus
    col = Collection.create(
        "memory:", make_spec("ru"), IndexSpec(policy="allow", measure=measure, threshold=THRESHOLD)
    )
    decisions = col.add_many(list(zip(ids, analyzed)), batch_size=64)
    assert all(d.accepted for d in decisions)
    sizes = np.array([a.values.shape[0] for a in analyzed], dtype=np.int64)
    pi, pj, shared = _exact_all_pairs([a.values for a in analyzed])
    res = shared / (sizes[pi] + sizes[pj] - shared)
    c_ij = shared / np.maximum(sizes[pi], 1)
    c_ji = shared / np.maximum(sizes[pj], 1)
    value = res if measure == "resemblance" else np.maximum(c_ij, c_ji)
    expected = {
        (ids[i], ids[j])
        for i, j in zip(pi[value >= THRESHOLD].tolist(), pj[value >= THRESHOLD].tolist())
    }
    exact = {
        (ids[i], ids[j]): (r, a, b)
        for i, j, r, a, b in zip(
            pi.tolist(), pj.tolist(), res.tolist(), c_ij.tolist(), c_ji.tolist()
        )
    }
    found = {}
    for d in decisions:
        for m in d.matches:
            found[(d.id, m.id)] = (
                m.resemblance,
                m.containment_query_in_doc,
                m.containment_doc_in_query,
            )
    assert len(expected) > 50, "too few pairs above the threshold to measure recall"
    recall = len(expected & set(found)) / len(expected)
    print(
        f"\n{measure} ≥ {THRESHOLD}: {len(ids)} documents, {len(expected)} pairs by brute force, "
        f"{len(set(found) & expected)} found by the index, recall {recall:.4f}, "
        f"{len(set(found) - expected)} reported beyond them"
    )
    assert recall >= 0.98
    assert set(found) <= expected  # nothing below the threshold is linked
    for pair, got in found.items():
        assert got == pytest.approx(exact[pair], abs=0, rel=0), pair  # bit-for-bit the exact values
    assert col.verify_integrity() == []


def test_check_reports_exact_values_and_uniqueness(corpus: tuple[list[str], list]) -> None:
    ids, analyzed = corpus
    col = Collection.create(
        "memory:", make_spec("ru"), IndexSpec(policy="allow", threshold=THRESHOLD)
    )
    n = len(ids) - 60
    col.add_many(list(zip(ids[:n], analyzed[:n])), batch_size=128)
    stored = [a.values for a in analyzed[:n]]
    for q in analyzed[n:]:
        result = col.check(q)
        got = {m.id: m for m in result.matches}
        found_any = np.zeros(q.values.shape[0], dtype=bool)
        for doc_id, v in zip(ids[:n], stored):
            hit = np.isin(q.values, v)
            s = int(hit.sum())
            if doc_id in got:
                m = got[doc_id]
                assert m.shared == s
                assert m.resemblance == s / (q.values.shape[0] + v.shape[0] - s)
                assert m.containment_query_in_doc == s / q.values.shape[0]
                found_any |= hit
            elif s and max(s / q.values.shape[0], s / v.shape[0]) >= THRESHOLD:
                pytest.fail(f"check missed {doc_id}: shares {s} shingles")
        # the words of a text no match shares a shingle with are all unique
        if not found_any.any():
            assert result.uniqueness == 1.0 and result.borrowed == 0.0

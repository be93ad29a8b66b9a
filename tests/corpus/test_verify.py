"""The verification of raw JSONL candidates by components of the candidate graph gives the
scores, groups and similarities of the direct computation: every document fingerprinted, every
pair scored, the groups made over the whole corpus."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from neardup.corpus import verify
from neardup.corpus.groups import components, keep_priority, representatives
from neardup.corpus.signing import SignedBlock, signer
from neardup.corpus.verify import exact_scores, verify_candidates
from neardup.fingerprints.pipeline import make_spec
from tests import _textgen

SPEC = make_spec("plain", k=3)


def _corpus() -> list[str]:
    """Chains of near-copies of different lengths (each text an edit of the one before, so a
    chain is one component of the candidate graph whose pairs are not all near-copies), and
    unrelated texts between them."""
    texts: list[str] = []
    for chain, size in enumerate((1, 2, 3, 7, 12)):
        text = _textgen.text(60 + 7 * chain, seed=chain)
        for step in range(size):
            texts.append(text)
            text = _textgen.edit(text, 0.08, seed=1000 * chain + step)
        texts.append(_textgen.text(50, seed=500 + chain))
    return texts


def _blocks(tmp_path: Path, texts: list[str], per_file: int) -> list[SignedBlock]:
    """The texts written to JSONL files of ``per_file`` records, with the record spans the
    signing would note (several blocks to a file)."""
    blocks: list[SignedBlock] = []
    for first in range(0, len(texts), per_file):
        path = tmp_path / f"part{first}.jsonl"
        lines = [
            json.dumps({"id": f"d{first + i}", "text": t}, ensure_ascii=False).encode() + b"\n"
            for i, t in enumerate(texts[first : first + per_file])
        ]
        path.write_bytes(b"".join(lines))
        offsets = np.cumsum([0, *(len(line) for line in lines)])
        for lo in range(0, len(lines), 4):
            hi = min(lo + 4, len(lines))
            blocks.append(
                SignedBlock(
                    ids=[],
                    lengths=np.zeros(hi - lo, np.int64),
                    keep_values=None,
                    chunk=(
                        np.zeros((0, 0), np.uint64),
                        np.zeros(0, np.uint64),
                        np.zeros(0, np.int64),
                        None,
                    ),
                    keys=np.zeros(0, np.uint64),
                    samples=np.zeros(0, np.uint64),
                    sample_sizes=np.zeros(0, np.int64),
                    path=str(path),
                    starts=offsets[lo:hi].astype(np.int64),
                    ends=(offsets[lo + 1 : hi + 1] - 1).astype(np.int64),
                )
            )
    return blocks


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("task_documents", [2, 2048])
def test_components_verified_apart_give_the_whole_corpus_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int, task_documents: int
) -> None:
    monkeypatch.setattr(verify, "TASK_DOCUMENTS", task_documents)
    texts = _corpus()
    n = len(texts)
    blocks = _blocks(tmp_path, texts, per_file=10)
    # candidates: every pair within 3 of each other (so components join chains and strangers)
    a, b = (
        np.array(x, dtype=np.int64)
        for x in zip(*[(i, j) for i in range(n) for j in range(i + 1, min(n, i + 4))], strict=True)
    )
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    priority = keep_priority("longest", lengths, None)
    threshold = 0.5
    got = verify_candidates(
        SPEC.to_json(), blocks, a, b, priority, (threshold, "resemblance"), "text", jobs
    )

    pipeline = signer(SPEC.to_json()).pipeline
    sets = [pipeline.fingerprints(t).values for t in texts]
    offsets = np.cumsum([0, *(s.shape[0] for s in sets)]).astype(np.int64)
    values = np.concatenate(sets)
    want = exact_scores(values, offsets, None, a, b)
    assert np.array_equal(got.scores.resemblance, want.resemblance)
    assert np.array_equal(got.scores.containment_ab, want.containment_ab)
    assert np.array_equal(got.scores.containment_ba, want.containment_ba)
    keep = want.resemblance >= threshold
    assert 0 < keep.sum() < keep.shape[0]  # the pairs are both joined and refused
    rep = representatives(components(n, a[keep], b[keep]), priority)
    assert np.array_equal(got.rows, np.arange(n))
    assert np.array_equal(got.rep, rep)
    assert (rep != np.arange(n)).sum() >= 10
    similarity = np.ones(n)
    members = np.flatnonzero(rep != np.arange(n))
    similarity[members] = exact_scores(values, offsets, None, members, rep[members]).resemblance
    assert np.array_equal(got.similarity, similarity)


def test_only_the_candidate_documents_are_read(tmp_path: Path) -> None:
    texts = _corpus()
    blocks = _blocks(tmp_path, texts, per_file=7)
    a, b = np.array([5, 20], dtype=np.int64), np.array([6, 29], dtype=np.int64)
    priority = np.zeros(len(texts))
    got = verify_candidates(SPEC.to_json(), blocks, a, b, priority, (0.5, "resemblance"), "text", 2)
    assert got.rows.tolist() == [5, 6, 20, 29]
    assert got.scores.resemblance[0] > 0.5 and got.scores.resemblance[1] == 0.0
    assert got.rep.tolist() == [5, 5, 20, 29]

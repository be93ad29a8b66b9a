"""Stage 3, verification: exact resemblance and containment of candidate pairs from their
fingerprint sets, or the MinHash estimate."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._sorted import distinct
from neardup.corpus.arrays import F64, I64, U64
from neardup.corpus.options import Measure
from neardup.corpus.signing import SignedBlock, batch_shingler, signer
from neardup.corpus.workers import map_unordered


@dataclass(frozen=True)
class PairScores:
    """Measures of pairs of documents: exact (with sizes) or estimated."""

    resemblance: F64
    containment_ab: F64 | None = None
    containment_ba: F64 | None = None

    def measure(self, name: Measure) -> F64:
        if name == "containment":
            assert self.containment_ab is not None and self.containment_ba is not None
            return np.maximum(self.containment_ab, self.containment_ba)
        return self.resemblance


def _ratio(num: F64, den: F64) -> F64:
    out = np.zeros(num.shape[0], dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def exact_scores(
    values: U64, offsets: I64, counts: I64 | None, a: I64, b: I64, block: int = 1 << 20
) -> PairScores:
    """Exact resemblance and containment both ways of pairs, from the fingerprint sets (the
    same numbers as :func:`neardup.fingerprints.similarity.compare`), one kernel call per block of
    pairs."""
    from neardup._kernels.pairs import pair_multiset_overlaps, pair_overlaps

    shared = np.empty(a.shape[0], dtype=np.int64)
    for lo in range(0, a.shape[0], block):
        sa, sb = a[lo : lo + block], b[lo : lo + block]
        if counts is None:
            shared[lo : lo + block] = pair_overlaps(values, offsets, sa, sb)
        else:
            shared[lo : lo + block] = pair_multiset_overlaps(values, counts, offsets, sa, sb)
    if counts is None:
        sizes = np.diff(offsets)
    else:
        csum = np.zeros(counts.shape[0] + 1, dtype=np.int64)
        np.cumsum(counts, out=csum[1:])
        sizes = csum[offsets[1:]] - csum[offsets[:-1]]
    size_a = sizes[a].astype(np.float64)
    size_b = sizes[b].astype(np.float64)
    inter = shared.astype(np.float64)
    return PairScores(
        resemblance=_ratio(inter, size_a + size_b - inter),
        containment_ab=_ratio(inter, size_a),
        containment_ba=_ratio(inter, size_b),
    )


def estimated_scores(
    signatures: npt.NDArray[Any], empty: int, a: I64, b: I64, block: int = 1 << 18
) -> PairScores:
    """MinHash estimates of the resemblance of pairs (share of equal positions)."""
    from neardup._kernels.minhash import equal_share

    out = np.empty(a.shape[0], dtype=np.float64)
    fill = signatures.dtype.type(empty)
    for lo in range(0, a.shape[0], block):
        rows_a = np.ascontiguousarray(signatures[a[lo : lo + block]])
        rows_b = np.ascontiguousarray(signatures[b[lo : lo + block]])
        out[lo : lo + block] = equal_share(rows_a, rows_b, fill)
    return PairScores(resemblance=out)


@dataclass
class StoredFingerprints:
    """Fingerprint sets of documents (rows ``rows[i]``, or every document when ``None``)."""

    values: U64
    offsets: I64
    counts: I64 | None
    rows: I64 | None = None

    def scores(self, a: I64, b: I64) -> PairScores:
        if self.rows is not None:
            a, b = np.searchsorted(self.rows, a), np.searchsorted(self.rows, b)
        return exact_scores(self.values, self.offsets, self.counts, a, b)


def _fingerprint_records(
    spec_json: str, paths: list[str], file_of: I64, starts: I64, ends: I64, text_field: str
) -> tuple[U64, I64]:
    """Fingerprint sets (flat values, offsets) of the JSONL records at these byte spans of
    ``paths[file_of[i]]`` (read and checked once already while signing)."""
    pipeline = signer(spec_json).pipeline
    texts: list[str] = []
    handles: dict[int, Any] = {}
    try:
        for f, start, end in zip(file_of.tolist(), starts.tolist(), ends.tolist(), strict=True):
            fh = handles.get(f)
            if fh is None:
                fh = handles[f] = open(paths[f], "rb")  # noqa: SIM115 - closed below
            fh.seek(start)
            obj = json.loads(fh.read(end - start).decode("utf-8", "replace"))
            texts.append(obj.get(text_field) or "")
    finally:
        for fh in handles.values():
            fh.close()
    # the texts the batch kernel takes in one call (the signing's path), the rest one by one
    shingler = batch_shingler(spec_json)
    batch = shingler.shingle(texts) if shingler is not None else None
    values: list[U64] = []
    for d, text in enumerate(texts):
        if batch is not None and batch.done[d]:
            values.append(distinct(batch.hashes[batch.starts[d] : batch.ends[d]]))
        else:
            values.append(pipeline.fingerprints(text).values)
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum([v.shape[0] for v in values], out=offsets[1:])
    flat = np.concatenate(values) if values else np.zeros(0, np.uint64)
    return (flat if flat.shape[0] else np.zeros(1, np.uint64)), offsets


@dataclass(frozen=True)
class VerifiedCandidates:
    """What the verification of the candidates gives the groups stage: the scores of every
    candidate pair (in the order of the pairs given), and for every candidate document
    (``rows``, sorted) its kept document and its similarity to it."""

    scores: PairScores
    rows: I64
    rep: I64
    similarity: F64


def _verify_components(
    spec_json: str,
    paths: list[str],
    file_of: I64,
    starts: I64,
    ends: I64,
    text_field: str,
    a: I64,
    b: I64,
    priority: F64,
    threshold: float,
    measure: Measure,
) -> tuple[F64, F64, F64, I64, F64]:
    """One task: whole components of the candidate graph (its documents' record spans, in
    input order; its pairs as indices into them). The documents are fingerprinted, the pairs
    scored, and the groups within the task made as the groups stage makes them for the whole
    corpus (a component of the candidate graph holds every verified edge of its documents, so
    they are the same groups and the same kept documents): returns the pairs' resemblance and
    containments, each document's kept document (an index here) and its similarity to it."""
    from neardup.corpus.groups import components, representatives

    values, offsets = _fingerprint_records(spec_json, paths, file_of, starts, ends, text_field)
    scores = exact_scores(values, offsets, None, a, b)
    keep = scores.measure(measure) >= threshold
    m = starts.shape[0]
    rep = representatives(components(m, a[keep], b[keep]), priority)
    similarity = np.ones(m, dtype=np.float64)
    members = np.flatnonzero(rep != np.arange(m))
    if members.shape[0]:
        to_rep = exact_scores(values, offsets, None, members, rep[members])
        similarity[members] = to_rep.measure(measure)
    assert scores.containment_ab is not None and scores.containment_ba is not None
    return scores.resemblance, scores.containment_ab, scores.containment_ba, rep, similarity


#: Documents one verification task fingerprints (whole components: a larger one is one task).
TASK_DOCUMENTS = 2048


def verify_candidates(
    spec_json: str,
    locations: list[SignedBlock],
    a: I64,
    b: I64,
    priority: F64,
    rule: tuple[float, Measure],
    text_field: str,
    jobs: int,
    progress: Any = None,
) -> VerifiedCandidates:
    """Exact verification of the candidate pairs ``a``–``b`` of raw JSONL input, in ``jobs``
    processes: the candidate documents' records are re-read by byte span and fingerprinted in
    tasks of whole components of the candidate graph, each task scoring its own pairs and
    groups, so only scores come back (not the fingerprint sets: a gigabyte at a million
    documents, which the parent received, held and scored alone). ``progress`` is
    ``(bars, task)``, advanced by the pairs each task scored."""
    from neardup.corpus.groups import components

    paths = list(dict.fromkeys(str(block.path) for block in locations))
    file_index = {path: i for i, path in enumerate(paths)}
    sizes = [int(block.lengths.shape[0]) for block in locations]
    n = int(sum(sizes))
    file_all = np.repeat(
        np.array([file_index[str(block.path)] for block in locations], dtype=np.int64), sizes
    )
    starts_all = np.concatenate([blk.starts for blk in locations if blk.starts is not None])
    ends_all = np.concatenate([blk.ends for blk in locations if blk.ends is not None])
    rows = np.union1d(a, b).astype(np.int64)
    label = components(n, a, b)[rows]
    # rows by component (each in input order); tasks cut at component ends
    order = np.lexsort((rows, label))
    by_comp = rows[order]
    ends_at = np.flatnonzero(np.diff(label[order])) + 1
    cuts = [0]
    for end in ends_at.tolist():
        if end - cuts[-1] >= TASK_DOCUMENTS:
            cuts.append(end)
    cuts.append(by_comp.shape[0])
    task_of_row = np.zeros(n, dtype=np.int64)
    task_of_row[by_comp] = np.repeat(np.arange(len(cuts) - 1), np.diff(cuts))
    pair_task = task_of_row[a]
    pair_order = np.argsort(pair_task, kind="stable")
    pair_cuts = np.searchsorted(pair_task[pair_order], np.arange(len(cuts)))
    threshold, measure = rule
    tasks: list[tuple[Any, ...]] = []
    places: list[tuple[I64, I64, I64]] = []  # a task's documents, their places in rows, pairs
    for t, (lo, hi) in enumerate(zip(cuts[:-1], cuts[1:], strict=True)):
        if hi == lo:
            continue
        docs = np.sort(by_comp[lo:hi])
        pairs = pair_order[pair_cuts[t] : pair_cuts[t + 1]]
        tasks.append(
            (
                _verify_components,
                spec_json,
                paths,
                file_all[docs],
                starts_all[docs],
                ends_all[docs],
                text_field,
                np.searchsorted(docs, a[pairs]),
                np.searchsorted(docs, b[pairs]),
                priority[docs],
                threshold,
                measure,
            )
        )
        places.append((docs, np.searchsorted(rows, docs), pairs))
    resemblance = np.zeros(a.shape[0], dtype=np.float64)
    containment_ab = np.zeros(a.shape[0], dtype=np.float64)
    containment_ba = np.zeros(a.shape[0], dtype=np.float64)
    rep = np.zeros(rows.shape[0], dtype=np.int64)
    similarity = np.ones(rows.shape[0], dtype=np.float64)

    def store(index: int, result: tuple[F64, F64, F64, I64, F64]) -> None:
        docs, at, pairs = places[index]
        resemblance[pairs], containment_ab[pairs], containment_ba[pairs] = result[:3]
        rep[at] = docs[result[3]]
        similarity[at] = result[4]
        if progress is not None:
            progress[0].advance(progress[1], int(pairs.shape[0]))

    weights = [int(docs.shape[0]) for docs, _, _ in places]
    map_unordered(tasks, min(jobs, max(1, len(tasks))), store, weights=weights)
    return VerifiedCandidates(
        PairScores(resemblance, containment_ab, containment_ba), rows, rep, similarity
    )

"""Stage 3, verification: exact resemblance and containment of candidate pairs from their
fingerprint sets, or the MinHash estimate."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._sorted import distinct
from neardup.dedup.arrays import F64, I64, U64
from neardup.dedup.options import Measure
from neardup.dedup.signing import SignedBlock, batch_shingler, signer
from neardup.dedup.workers import map_in_order


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
    same numbers as :func:`neardup.similarity.compare`), one kernel call per block of pairs."""
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
    spec_json: str, path: str, starts: I64, ends: I64, text_field: str
) -> tuple[U64, I64]:
    """Fingerprint sets (flat values, sizes) of the JSONL records at these byte spans (read
    and checked once already while signing)."""
    pipeline = signer(spec_json).pipeline
    texts: list[str] = []
    with open(path, "rb") as fh:
        for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
            fh.seek(start)
            obj = json.loads(fh.read(end - start).decode("utf-8", "replace"))
            texts.append(obj.get(text_field) or "")
    # the texts the batch kernel takes in one call (the signing's path), the rest one by one
    shingler = batch_shingler(spec_json)
    batch = shingler.shingle(texts) if shingler is not None else None
    values: list[U64] = []
    for d, text in enumerate(texts):
        if batch is not None and batch.done[d]:
            values.append(distinct(batch.hashes[batch.starts[d] : batch.ends[d]]))
        else:
            values.append(pipeline.fingerprints(text).values)
    sizes = np.fromiter((v.shape[0] for v in values), dtype=np.int64, count=len(values))
    return (np.concatenate(values) if values else np.zeros(0, np.uint64)), sizes


def candidate_fingerprints(
    spec_json: str, locations: list[SignedBlock], rows: I64, text_field: str, jobs: int
) -> StoredFingerprints:
    """The fingerprint sets of the candidate documents only (``rows``, sorted), made in
    ``jobs`` processes from their records' byte spans."""
    files = [block.path for block in locations]
    file_of = np.repeat(
        np.arange(len(locations)), [int(block.lengths.shape[0]) for block in locations]
    )
    starts = np.concatenate([blk.starts for blk in locations if blk.starts is not None])
    ends = np.concatenate([blk.ends for blk in locations if blk.ends is not None])
    tasks = []
    for lo in range(0, rows.shape[0], 2048):
        part = rows[lo : lo + 2048]
        cuts = np.flatnonzero(np.diff(file_of[part])) + 1
        for piece in np.split(part, cuts):
            path = files[int(file_of[piece[0]])]
            tasks.append(
                (_fingerprint_records, spec_json, path, starts[piece], ends[piece], text_field)
            )
    values: list[U64] = []
    sizes: list[I64] = []

    def store(result: tuple[U64, I64]) -> None:
        values.append(result[0])
        sizes.append(result[1])

    map_in_order(tasks, min(jobs, max(1, len(tasks))), store, warm_up=lambda: None)
    flat = np.concatenate(values) if values else np.zeros(1, np.uint64)
    offsets = np.zeros(rows.shape[0] + 1, dtype=np.int64)
    if sizes:
        np.cumsum(np.concatenate(sizes), out=offsets[1:])
    return StoredFingerprints(
        flat if flat.shape[0] else np.zeros(1, np.uint64), offsets, None, rows
    )

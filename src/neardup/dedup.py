"""Batch deduplication of a corpus on one machine: ``neardup.dedup(...)`` and ``neardup dedup``.

Stages (each timed in ``summary.json``, each with its progress bar):

1. **sign** — the input is read as a stream in chunks, in ``jobs`` worker processes. Plain
   JSONL files are cut into byte slices that the workers read and parse themselves (by the
   reader's rules, :mod:`neardup.inputs`); they sign by the fused path of ``neardup sign``
   and the fingerprint sets of only the candidates are made in stage 3, from their records'
   byte spans. Other inputs go through :func:`read_documents` (the one reader) in the parent,
   and each chunk gets its fingerprint sets (exact verification) and signatures in one
   kernel call. Signatures, band keys (and fingerprint sets) go to disk chunk by chunk
   (``OUT.partial/work``); only a few numbers per document stay in memory.
2. **candidates** — MinHash LSH bands (``bands × rows`` from
   :func:`neardup.sketch.params.choose` for the threshold). For each band in turn, its keys of
   all documents are sorted (one ``argsort``); documents with the same key form a bucket. A
   bucket of ``m`` documents gives the pairs of documents at most ``window`` places apart in
   it (input order): all ``m(m-1)/2`` pairs while ``m ≤ window + 1``, at most ``window · m``
   beyond, so no step is quadratic. A bigger bucket (thousands of exact copies) still links
   every member to its neighbours, which is all the connected components need.
3. **verify** — every candidate pair is scored before it may join two documents: the exact
   resemblance or containment (``max`` of both ways) from the fingerprint sets (one numba call
   per block of pairs over a memory-mapped file), or the MinHash estimate, by option. Pairs at
   or above ``threshold`` are the edges.
4. **groups** — connected components of the edges (``scipy.sparse.csgraph``). The kept
   document of each group follows the keep rule (``first``, ``longest``, ``max:FIELD``,
   ``min:FIELD``; ties to the first seen); a group is named by its first document's id.
5. **write** — every record is written with ``group``, ``kept``, ``similarity`` (the chosen
   measure against the kept document) and ``representative``: for plain JSONL by splicing the
   added fields into the record's own bytes (no second parse), otherwise by reading the input
   a second time; then the edge list, ``summary.json`` and ``spec.json``.

Everything is built in ``OUT.partial`` and renamed to ``OUT`` at the end, so an interrupted run
never leaves an output that looks complete. ``spec.json`` records the spec and the dedup
options; a later run into the same place with other ones is refused.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from neardup import __version__
from neardup._constraints import Integer, OneOf, Real, check_fields, constraint_of, param
from neardup.errors import DatasetError, InputError, SpecMismatchError, require
from neardup.spec import SketchSpec, Spec

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

SPEC_FILE = "spec.json"
SUMMARY_FILE = "summary.json"
FORMAT_NAME = "neardup.dedup"
FORMAT_VERSION = 1
#: How much more a missed pair weighs than a false candidate when the bands are chosen: every
#: candidate is verified, so a false one costs a merge, a missed one costs a near-copy left in
#: the corpus (at 0.5: 32 bands × 4 rows, P(candidate | s = 0.5) = 0.87 instead of 25 × 5, 0.55).
FN_WEIGHT = 10.0
#: Output columns added to every record.
ADDED_FIELDS = ("group", "kept", "similarity", "representative")

Verify = Literal["exact", "estimate"]
Measure = Literal["resemblance", "containment"]


# --- input ---------------------------------------------------------------------------------


def read_documents(
    inputs: Sequence[str | os.PathLike[str]],
    *,
    id_field: str = "id",
    text_field: str = "text",
    fmt: str | None = None,
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(id, text, meta)`` of every input document, streamed: the ONE place dedup reads input
    (through :mod:`neardup.inputs`, the project's reader)."""
    from neardup.inputs import iter_inputs

    for doc in iter_inputs(inputs, id_field=id_field, text_field=text_field, fmt=fmt):
        yield doc.id, doc.text, doc.meta


# --- options -------------------------------------------------------------------------------


@dataclass(frozen=True)
class DedupOptions:
    """What, besides the spec, decides the groups (written to ``spec.json``)."""

    threshold: float = param(0.7, Real(0.0, 1.0, low_open=True))
    measure: Measure = param("resemblance", OneOf(("resemblance", "containment")))
    verify: Verify = param("exact", OneOf(("exact", "estimate")))
    keep: str = "first"
    num_perm: int = param(128, constraint_of(SketchSpec, "num_perm"))
    bands: int = param(0, constraint_of(SketchSpec, "bands"))
    rows: int = param(0, constraint_of(SketchSpec, "rows"))
    window: int = param(50, Integer(1, 1 << 20))
    #: 0: candidates by the LSH bands only. W: also every pair of documents that share a
    #: winnowed sample (the collection's :class:`~neardup.index.candidates.Winnowing` over
    #: windows of W shingles): any shared run of W shingles, however small a part of the
    #: longer text, becomes a candidate — the partial copies containment is for.
    winnow: int = param(0, Integer(0, 4096))

    def __post_init__(self) -> None:
        check_fields(self, "dedup", InputError)
        if self.measure == "containment" and self.verify == "estimate":
            raise InputError("containment needs exact verification (--verify exact)")
        if self.winnow and self.verify == "estimate":
            raise InputError("winnowed candidates need exact verification (--verify exact)")
        parse_keep(self.keep)
        if self.window < 1:
            raise InputError(f"the bucket window must be at least 1, got {self.window}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_keep(keep: str) -> tuple[str, str | None]:
    """``first`` | ``longest`` | ``max:FIELD`` | ``min:FIELD`` → ``(rule, field)``."""
    if keep in ("first", "longest"):
        return keep, None
    rule, _, name = keep.partition(":")
    if rule in ("max", "min") and name:
        return rule, name
    raise InputError(f"unknown keep rule {keep!r}; expected first, longest, max:FIELD or min:FIELD")


def dedup_spec(spec: Spec, options: DedupOptions) -> Spec:
    """``spec`` with the MinHash sketch the options ask for (bands × rows from the chooser
    of :mod:`neardup.sketch.params` for the threshold, unless given); the seed and family
    (``splitmix`` or ``affine``) of ``spec.sketch``, when it has one, are kept."""
    bands, rows = options.bands, options.rows
    if not bands or not rows:
        from neardup.sketch.params import choose

        lsh_threshold = min(options.threshold, 0.99)
        if options.measure == "containment":
            # containment c of a short text in a long one is resemblance of at least c·|A|/|B|:
            # search lower than the threshold so containment pairs become candidates
            lsh_threshold = max(0.05, lsh_threshold / 2)
        choice = choose(lsh_threshold, options.num_perm, fn_weight=FN_WEIGHT)
        bands, rows = choice.bands, choice.rows
    # the seed and the MinHash family of a sketch given with the spec are kept
    given = spec.sketch if spec.sketch is not None else SketchSpec()
    sketch = SketchSpec(
        method="minhash",
        num_perm=options.num_perm,
        seed=given.seed,
        bands=bands,
        rows=rows,
        family=given.family,
    )
    return spec.replace(sketch=sketch)


# --- results -------------------------------------------------------------------------------


@dataclass
class DedupResult:
    """What a run did; ``summary.json`` holds the same."""

    out: Path
    documents: int
    groups: int
    duplicate_groups: int
    removed: int
    candidate_pairs: int
    verified_pairs: int
    seconds: dict[str, float]
    bands: int
    rows: int
    bytes_read: int = 0
    capped_buckets: int = 0
    largest_bucket: int = 0
    files: dict[str, str] = field(default_factory=dict)
    #: CPU seconds per stage: this process and its finished worker processes.
    cpu_seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["out"] = str(self.out)
        return out


# --- stage 1: signing ------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _signer(spec_json: str) -> Any:
    from neardup.sketch.minhash import MinHasher

    if _WORKER.get("spec") != spec_json:
        _WORKER["spec"] = spec_json
        _WORKER["hasher"] = MinHasher(Spec.from_json(spec_json))
    return _WORKER["hasher"]


SignedChunk = tuple[npt.NDArray[Any], U64, I64, I64 | None]


def sign_chunk(spec_json: str, texts: list[str], exact: bool) -> SignedChunk:
    """``(signatures, fingerprint values, lengths, counts)`` of a chunk of texts: the pipeline's
    fingerprint sets (when ``exact``) signed in one kernel call, or the texts signed directly."""
    return _sign_and_winnow(spec_json, texts, exact, 0)[0]


def _sign_and_winnow(
    spec_json: str, texts: list[str], exact: bool, winnow: int
) -> tuple[SignedChunk, U64, I64]:
    """:func:`sign_chunk`, and with ``winnow`` each text's winnowed samples (the collection's
    generator over its shingles in text order): flat values and a count per text."""
    hasher = _signer(spec_json)
    no_samples = np.zeros(0, np.uint64), np.zeros(len(texts), np.int64)
    if not exact:
        sigs = hasher.sign_texts(texts)
        return (sigs, np.zeros(0, np.uint64), np.zeros(len(texts), np.int64), None), *no_samples
    if winnow:
        from neardup.index.candidates import Winnowing
        from neardup.similarity import Fingerprints

        pipeline, generator = hasher.pipeline, Winnowing(window=winnow)
        hashes = [pipeline.shingles(t).hashes for t in texts]
        multiset = pipeline.spec.fingerprint_family.multiset
        fps = [
            Fingerprints.from_hashes(
                h, multiset=multiset, spec_fingerprint=pipeline.spec_fingerprint
            )
            for h in hashes
        ]
        picked = [generator.samples(h) for h in hashes]
        sample_sizes = np.fromiter((len(p) for p in picked), np.int64, count=len(picked))
        samples = np.concatenate(picked) if picked else np.zeros(0, np.uint64)
    else:
        fps = [hasher.pipeline.fingerprints(t) for t in texts]
        samples, sample_sizes = no_samples
    sigs = hasher.sign_many(fps) if fps else hasher.sign_hashes([])
    lengths = np.fromiter((len(f) for f in fps), dtype=np.int64, count=len(fps))
    values = np.concatenate([f.values for f in fps]) if fps else np.zeros(0, np.uint64)
    counts = None
    if fps and fps[0].counts is not None:
        counts = np.concatenate([f.counts for f in fps]).astype(np.int64)
    return (sigs, values, lengths, counts), samples, sample_sizes


def _default_jobs() -> int:
    from neardup.sketch.parallel import default_jobs

    return default_jobs()


def _keep_value(meta: dict[str, Any], name: str, doc_id: str) -> Any:
    value = meta.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise DatasetError(
            f"document {doc_id!r}: the keep column {name!r} must be a number or a string, "
            f"got {type(value).__name__}"
        )
    return value


class _Work:
    """The on-disk state of stages 1–3 under ``OUT.partial/work``."""

    def __init__(self, root: Path, num_perm: int, dtype: np.dtype[Any], exact: bool) -> None:
        self.root = root
        root.mkdir(parents=True)
        self.num_perm = num_perm
        self.dtype = dtype
        self.exact = exact
        self.sig_file = open(root / "signatures.bin", "wb")  # noqa: SIM115 - closed in finish
        self.fp_file = open(root / "fingerprints.u64", "wb")  # noqa: SIM115
        self.count_file: Any = None
        self.sample_file: Any = None
        self.sample_sizes: list[I64] = []
        self.key_chunks: list[tuple[int, int]] = []  # (start, size)
        self.lengths: list[I64] = []
        self.set_sizes: list[I64] = []
        self.n = 0

    def add(self, chunk: SignedChunk, keys: U64, text_lengths: I64) -> None:
        sigs, values, lengths, counts = chunk
        self.sig_file.write(np.ascontiguousarray(sigs).tobytes())
        np.save(self.root / f"keys_{len(self.key_chunks)}.npy", np.ascontiguousarray(keys.T))
        self.key_chunks.append((self.n, int(sigs.shape[0])))
        if self.exact:
            self.fp_file.write(values.tobytes())
            if counts is not None:
                if self.count_file is None:
                    self.count_file = open(self.root / "counts.i64", "wb")  # noqa: SIM115
                self.count_file.write(counts.tobytes())
            self.set_sizes.append(lengths)
        self.lengths.append(text_lengths)
        self.n += int(sigs.shape[0])

    def add_samples(self, values: U64, sizes: I64) -> None:
        if self.sample_file is None:
            self.sample_file = open(self.root / "samples.u64", "wb")  # noqa: SIM115
        self.sample_file.write(np.ascontiguousarray(values, dtype=np.uint64).tobytes())
        self.sample_sizes.append(sizes)

    def samples(self) -> tuple[U64, I64]:
        """Every winnowed sample, and the document (row) each belongs to."""
        if self.sample_file is None:
            return np.zeros(0, np.uint64), np.zeros(0, np.int64)
        values = np.fromfile(self.root / "samples.u64", dtype=np.uint64)
        sizes = np.concatenate(self.sample_sizes)
        return values, np.repeat(np.arange(self.n, dtype=np.int64), sizes)

    def finish(self) -> None:
        self.sig_file.close()
        self.fp_file.close()
        if self.count_file is not None:
            self.count_file.close()
        if self.sample_file is not None:
            self.sample_file.close()

    def band_column(self, band: int) -> U64:
        """Band ``band``'s key of every document, in input order."""
        out = np.empty(self.n, dtype=np.uint64)
        for c, (start, size) in enumerate(self.key_chunks):
            keys = np.load(self.root / f"keys_{c}.npy", mmap_mode="r")
            out[start : start + size] = keys[band]
        return out

    def signatures(self) -> npt.NDArray[Any]:
        if self.n == 0:
            return np.zeros((0, self.num_perm), dtype=self.dtype)
        return np.memmap(
            self.root / "signatures.bin", dtype=self.dtype, mode="r", shape=(self.n, self.num_perm)
        )

    def fingerprints(self) -> tuple[U64, I64, I64 | None]:
        """Flat values (memory-mapped), offsets, counts of every document's fingerprint set."""
        sizes = np.concatenate(self.set_sizes) if self.set_sizes else np.zeros(0, np.int64)
        offsets = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        total = int(offsets[-1])
        if total == 0:
            values = np.zeros(1, dtype=np.uint64)
        else:
            values = np.memmap(self.root / "fingerprints.u64", np.uint64, "r", shape=(total,))
        counts = None
        if self.count_file is not None:
            counts = np.asarray(np.fromfile(self.root / "counts.i64", dtype=np.int64))
        return values, offsets, counts


def _chunks(
    docs: Iterable[tuple[str, str, dict[str, Any]]], size: int, max_chars: int
) -> Iterator[list[tuple[str, str, dict[str, Any]]]]:
    block: list[tuple[str, str, dict[str, Any]]] = []
    chars = 0
    for doc in docs:
        block.append(doc)
        chars += len(doc[1])
        if len(block) >= size or chars >= max_chars:
            yield block
            block, chars = [], 0
    if block:
        yield block


# --- stage 2: candidates ---------------------------------------------------------------------


def bucket_pairs(keys: U64, window: int) -> tuple[I64, I64, int, int]:
    """Candidate pairs ``(a, b)`` (``a < b``, row positions) of one band's keys: documents with
    equal keys at most ``window`` places apart within their bucket (input order). Also returns
    how many buckets were larger than ``window + 1`` (capped) and the largest bucket's size."""
    n = keys.shape[0]
    if n < 2:
        empty = np.zeros(0, np.int64)
        return empty, empty, 0, min(n, 1)
    order = np.argsort(keys, kind="stable").astype(np.int64)
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])))
    sizes = np.diff(np.append(starts, n))
    largest = int(sizes.max())
    capped = int((sizes > window + 1).sum())
    a_parts: list[I64] = []
    b_parts: list[I64] = []
    for d in range(1, min(window, largest - 1) + 1):
        same = sorted_keys[d:] == sorted_keys[:-d]
        idx = np.flatnonzero(same)
        if idx.shape[0] == 0:
            break
        a_parts.append(order[idx])
        b_parts.append(order[idx + d])
    if not a_parts:
        empty = np.zeros(0, np.int64)
        return empty, empty, capped, largest
    a = np.concatenate(a_parts)
    b = np.concatenate(b_parts)
    return np.minimum(a, b), np.maximum(a, b), capped, largest


def candidate_pairs(band_columns: Iterable[U64], n: int, window: int) -> tuple[I64, I64, int, int]:
    """Distinct candidate pairs over every band (each band's keys in turn)."""
    codes: list[U64] = []
    capped = 0
    largest = 0
    for keys in band_columns:
        a, b, c, big = bucket_pairs(keys, window)
        capped += c
        largest = max(largest, big)
        if a.shape[0]:
            codes.append(np.unique(a.astype(np.uint64) * np.uint64(n) + b.astype(np.uint64)))
    if not codes:
        empty = np.zeros(0, np.int64)
        return empty, empty, capped, largest
    pairs = np.unique(np.concatenate(codes))
    a = (pairs // np.uint64(n)).astype(np.int64)
    b = (pairs % np.uint64(n)).astype(np.int64)
    return a, b, capped, largest


def winnowed_pairs(samples: U64, rows: I64, window: int) -> tuple[I64, I64]:
    """Pairs of documents that share a winnowed sample (``rows[i]`` is the document of
    ``samples[i]``, in input order), by the bucket rule of the LSH bands: a sample posted by
    many documents (boilerplate) pairs each with its ``window`` neighbours only."""
    a, b, _, _ = bucket_pairs(samples, window)
    da, db = rows[a], rows[b]
    other = da != db
    return np.minimum(da[other], db[other]), np.maximum(da[other], db[other])


def _with_winnowed_pairs(
    a: I64, b: I64, samples: U64, rows: I64, n: int, window: int
) -> tuple[I64, I64]:
    wa, wb = winnowed_pairs(samples, rows, window)
    size = np.uint64(max(n, 1))
    codes = np.unique(
        np.concatenate(
            [
                a.astype(np.uint64) * size + b.astype(np.uint64),
                wa.astype(np.uint64) * size + wb.astype(np.uint64),
            ]
        )
    )
    return (codes // size).astype(np.int64), (codes % size).astype(np.int64)


# --- stage 3: verification -------------------------------------------------------------------


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
class _StoredFingerprints:
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
    pipeline = _signer(spec_json).pipeline
    fps = []
    with open(path, "rb") as fh:
        for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
            fh.seek(start)
            obj = json.loads(fh.read(end - start).decode("utf-8", "replace"))
            fps.append(pipeline.fingerprints(obj.get(text_field) or ""))
    sizes = np.fromiter((len(f) for f in fps), dtype=np.int64, count=len(fps))
    values = np.concatenate([f.values for f in fps]) if fps else np.zeros(0, np.uint64)
    return values, sizes


def _candidate_fingerprints(
    spec_json: str, locations: list[_Signed], rows: I64, text_field: str, jobs: int
) -> _StoredFingerprints:
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

    _map_in_order(tasks, min(jobs, max(1, len(tasks))), store, warm_up=lambda: None)
    flat = np.concatenate(values) if values else np.zeros(1, np.uint64)
    offsets = np.zeros(rows.shape[0] + 1, dtype=np.int64)
    if sizes:
        np.cumsum(np.concatenate(sizes), out=offsets[1:])
    return _StoredFingerprints(
        flat if flat.shape[0] else np.zeros(1, np.uint64), offsets, None, rows
    )


# --- stage 4: groups -------------------------------------------------------------------------


def components(n: int, a: I64, b: I64) -> I64:
    """The component label of each of ``n`` nodes given the edges (``scipy.sparse.csgraph``),
    relabelled as the smallest node of each component."""
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    require("scipy", "eval")
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(a.shape[0], dtype=np.int8), (a, b)), shape=(n, n)).tocsr()
    _, labels = connected_components(graph, directed=False)
    first = np.full(int(labels.max()) + 1, n, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(n, dtype=np.int64))
    return first[labels]


def representatives(group: I64, priority: F64) -> I64:
    """The kept document of each document's group: the highest ``priority``, ties to the
    first in input order."""
    n = group.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    index = np.arange(n, dtype=np.int64)
    order = np.lexsort((index, -priority, group))
    first = np.concatenate(([True], group[order][1:] != group[order][:-1]))
    rep_of_group = np.empty(n, dtype=np.int64)
    rep_of_group[group[order][first]] = order[first]
    return rep_of_group[group]


def keep_priority(rule: str, lengths: I64, values: list[Any] | None) -> F64:
    """Priorities for :func:`representatives` under a keep rule (missing values rank last)."""
    n = lengths.shape[0]
    if rule == "first":
        return np.zeros(n, dtype=np.float64)
    if rule == "longest":
        return lengths.astype(np.float64)
    assert values is not None
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, str) for v in present):
        ranks = {v: i for i, v in enumerate(sorted(set(present)))}
        raw = np.array([ranks[v] if v is not None else np.nan for v in values], dtype=np.float64)
    elif all(not isinstance(v, str) for v in present):
        raw = np.array([v if v is not None else np.nan for v in values], dtype=np.float64)
    else:
        raise DatasetError("the keep column mixes numbers and strings; it must hold one kind")
    if rule == "min":
        raw = -raw
    return np.where(np.isnan(raw), -np.inf, raw)


# --- stage 5: output -------------------------------------------------------------------------


class _RecordWriter:
    """Records to a JSONL or Parquet file, in batches."""

    def __init__(self, path: Path, fmt: str) -> None:
        self.path = path
        self.fmt = fmt
        self.batch: list[dict[str, Any]] = []
        self._writer: Any = None
        self._schema: Any = None
        self._fh: Any = None
        if fmt == "jsonl":
            self._fh = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed in close()

    def write(self, record: dict[str, Any]) -> None:
        if self._fh is not None:
            self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            return
        self.batch.append(record)
        if len(self.batch) >= 4096:
            self._flush()

    def _flush(self) -> None:
        if not self.batch:
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self._writer is None:
            table = pa.Table.from_pylist(self.batch)
            self._schema = table.schema
            self._writer = pq.ParquetWriter(self.path, self._schema)
        else:
            try:
                table = pa.Table.from_pylist(self.batch, schema=self._schema)
            except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                raise DatasetError(
                    f"records of different shapes cannot share one Parquet file ({exc}); "
                    "write JSONL instead"
                ) from None
        self._writer.write_table(table)
        self.batch = []

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            return
        if self._writer is None and not self.batch:
            import pyarrow as pa
            import pyarrow.parquet as pq

            pq.write_table(pa.table({"id": pa.array([], pa.string())}), self.path)
            return
        self._flush()
        self._writer.close()


def _spec_record(spec: Spec, options: DedupOptions) -> dict[str, Any]:
    return {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "spec": spec.to_dict(),
        "spec_fingerprint": spec.fingerprint(),
        "dedup": options.to_dict(),
        "created_by": f"neardup {__version__}",
    }


def check_output(out: Path, spec: Spec, options: DedupOptions, overwrite: bool) -> None:
    """Refuse an existing output (unless ``overwrite``), and always one made under another
    spec or other dedup options."""
    if not out.exists():
        return
    stored = out / SPEC_FILE
    if stored.is_file():
        try:
            meta = json.loads(stored.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DatasetError(f"{stored}: not readable JSON ({exc})") from None
        mine = _spec_record(spec, options)
        if (
            meta.get("spec_fingerprint") != mine["spec_fingerprint"]
            or meta.get("dedup") != mine["dedup"]
        ):
            raise SpecMismatchError(
                f"{out} holds a dedup made under spec {meta.get('spec_fingerprint')} with "
                f"options {json.dumps(meta.get('dedup'), sort_keys=True)}; this run's spec is "
                f"{mine['spec_fingerprint']} with {json.dumps(mine['dedup'], sort_keys=True)}. "
                "Choose another --out, or remove it first"
            )
    if not overwrite:
        raise InputError(f"{out} already exists; choose another --out or pass --overwrite")


# --- the job -------------------------------------------------------------------------------


class _Progress:
    """A rich progress bar per stage (or nothing)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._progress: Any = None

    def __enter__(self) -> _Progress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import Progress

            self._progress = Progress(console=Console(stderr=True), transient=False)
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def task(self, name: str, total: float | None) -> Any:
        if self._progress is None:
            return None
        return self._progress.add_task(name, total=total)

    def advance(self, task: Any, amount: float = 1) -> None:
        if self._progress is not None and task is not None:
            self._progress.update(task, advance=amount)

    def done(self, task: Any) -> None:
        if self._progress is not None and task is not None:
            t = self._progress.tasks[task]
            self._progress.update(task, total=t.completed, completed=t.completed)


@dataclass
class _Signed:
    """What signing one block of documents gives the parent: a few numbers per document, and
    for raw JSONL slices where each record lies in its file (for the write stage's splice)."""

    ids: list[str]
    lengths: I64
    keep_values: list[Any] | None
    chunk: SignedChunk
    keys: U64
    #: Winnowed samples (``DedupOptions.winnow``): flat values, a count per document.
    samples: U64
    sample_sizes: I64
    #: Raw slices only: the file, each record's byte span in it (``end`` before the line's
    #: trailing whitespace), and whether the record can be written by appending to its bytes.
    path: str | None = None
    starts: I64 | None = None
    ends: I64 | None = None
    spliceable: npt.NDArray[np.bool_] | None = None
    replaced: int = 0


def _sign_texts_block(
    spec_json: str,
    docs: list[tuple[str, str, dict[str, Any]]],
    exact: bool,
    keep_field: str | None,
    winnow: int,
) -> _Signed:
    """Sign documents the parent read (any input format)."""
    chunk, samples, sample_sizes = _sign_and_winnow(
        spec_json, [t for _, t, _ in docs], exact, winnow
    )
    return _Signed(
        ids=[d[0] for d in docs],
        lengths=np.fromiter((len(t) for _, t, _ in docs), dtype=np.int64, count=len(docs)),
        keep_values=(
            None if keep_field is None else [_keep_value(m, keep_field, i) for i, _, m in docs]
        ),
        chunk=chunk,
        keys=_banding(spec_json).keys(chunk[0]),
        samples=samples,
        sample_sizes=sample_sizes,
    )


def _banding(spec_json: str) -> Any:
    if _WORKER.get("banding_spec") != spec_json:
        from neardup.sketch.supershingles import Banding

        sketch = Spec.from_json(spec_json).sketch
        assert sketch is not None
        _WORKER["banding_spec"] = spec_json
        _WORKER["banding"] = Banding(sketch)
    return _WORKER["banding"]


def _line_number(path: str, offset: int) -> int:
    """The 1-based line number of the byte ``offset`` of a file (only for error messages)."""
    count = 0
    with open(path, "rb") as fh:
        left = offset
        while left > 0:
            data = fh.read(min(left, 1 << 24))
            if not data:
                break
            count += data.count(b"\n")
            left -= len(data)
    return count + 1


def _sign_raw_slice(
    spec_json: str,
    path: str,
    start: int,
    end: int,
    exact: bool,
    keep_field: str | None,
    options: Any,
    winnow: int,
) -> _Signed:
    """Read the lines of bytes ``[start, end)`` of a plain JSONL file (the worker reads its
    own slice: the parent neither parses nor ships the texts) and sign them. Each line is
    decoded, parsed and checked by the reader's own rules (:mod:`neardup.inputs`)."""
    from neardup.inputs import _record, _too_large, decode_line, parse_json_object

    with open(path, "rb") as fh:
        fh.seek(start)
        data = fh.read(end - start)
    docs: list[tuple[str, str, dict[str, Any]]] = []
    starts: list[int] = []
    ends: list[int] = []
    splice: list[bool] = []
    replaced = 0
    pos = 0
    plain_fields = options.id_field == "id" and options.text_field == "text"
    while pos < len(data):
        nl = data.find(b"\n", pos)
        stop = len(data) if nl < 0 else nl
        line = data[pos:stop]
        line_start = start + pos
        pos = stop + 1
        if line_start == 0 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
            line_start += 3
        if len(line) + 1 > options.max_bytes:
            where = f"{path}, line {_line_number(path, line_start)}"
            raise _too_large(where, options.max_bytes)
        body = line.rstrip()
        if not body.strip():
            continue
        text, gained = decode_line(
            body,
            options.strict_decoding,
            lambda: f"{path}, line {_line_number(path, line_start)}",  # noqa: B023 (called at once)
        )
        replaced += gained
        clean = not gained
        try:
            obj = parse_json_object(text, path)
            doc = _record(obj, path, options)
        except DatasetError:  # again, with the line number in the message
            where = f"{path}, line {_line_number(path, line_start)}"
            doc = _record(parse_json_object(text, where), where, options)
            raise AssertionError("unreachable: the record failed once") from None
        docs.append(doc)
        starts.append(line_start)
        ends.append(line_start + len(body))
        splice.append(
            clean
            and plain_fields
            and body.endswith(b"}")
            and isinstance(obj.get("id"), str)
            and isinstance(obj.get("text"), str)
            and not any(name in obj for name in ADDED_FIELDS)
        )
    signed = _sign_texts_block(spec_json, docs, exact, keep_field, winnow)
    signed.path = path
    signed.starts = np.array(starts, dtype=np.int64)
    signed.ends = np.array(ends, dtype=np.int64)
    signed.spliceable = np.array(splice, dtype=np.bool_)
    signed.replaced = replaced
    return signed


#: Bytes of JSONL one worker task reads (about 1,000 news articles).
SLICE_BYTES = 4 << 20


def raw_jsonl_files(inputs: Sequence[str | os.PathLike[str]], fmt: str | None) -> list[str] | None:
    """The input files when every one is a plain (not gzipped) JSONL file named on its own:
    then workers read their own slices and the output is written by splicing each record's
    bytes. ``None`` means the general path (the parent reads through :func:`read_documents`)."""
    from neardup.inputs import format_for

    files: list[str] = []
    for raw in inputs:
        path = Path(raw)
        if not path.is_file() or path.name.lower().endswith(".gz"):
            return None
        found = format_for(path)
        if (fmt or (found.name if found is not None else None)) != "jsonl":
            return None
        files.append(str(path))
    return files


def _slices(files: list[str], size: int) -> Iterator[tuple[str, int, int]]:
    """``(path, start, end)`` byte ranges of about ``size`` bytes, each ending after a newline
    (or at the end of the file)."""
    for path in files:
        total = os.path.getsize(path)
        with open(path, "rb") as fh:
            start = 0
            while start < total:
                fh.seek(min(start + size, total))
                if start + size < total:
                    fh.readline()
                end = min(fh.tell(), total) if start + size < total else total
                yield path, start, end
                start = end


def _sign_all(
    read: Any,
    raw_files: list[str] | None,
    read_options: Any,
    spec: Spec,
    work: _Work,
    *,
    exact: bool,
    jobs: int,
    keep_field: str | None,
    progress: _Progress,
    batch_size: int,
    winnow: int = 0,
) -> tuple[list[str], list[Any] | None, list[_Signed] | None]:
    """Stage 1. Returns the ids, keep values, and (raw JSONL input) each block's record
    locations for the write stage."""
    spec_json = spec.to_json()
    ids: list[str] = []
    seen: dict[str, int] = {}
    keep_values: list[Any] | None = [] if keep_field else None
    locations: list[_Signed] | None = [] if raw_files is not None else None
    task = progress.task("sign", None)
    replaced: dict[str, int] = {}

    def store(signed: _Signed) -> None:
        for doc_id in signed.ids:
            if doc_id in seen:
                raise DatasetError(
                    f"duplicate id {doc_id!r}: documents {seen[doc_id] + 1} and {len(ids) + 1} "
                    "of the input have it; ids must be unique"
                )
            seen[doc_id] = len(ids)
            ids.append(doc_id)
        if keep_values is not None and signed.keep_values is not None:
            keep_values.extend(signed.keep_values)
        work.add(signed.chunk, signed.keys, signed.lengths)
        if winnow:
            work.add_samples(signed.samples, signed.sample_sizes)
        if locations is not None:
            assert signed.path is not None
            if signed.replaced:
                replaced[signed.path] = replaced.get(signed.path, 0) + signed.replaced
            signed.chunk = _EMPTY_CHUNK  # only the locations are kept
            signed.ids = []
            signed.samples = signed.keys = np.zeros(0, np.uint64)
            locations.append(signed)
        progress.advance(task, int(signed.lengths.shape[0]))

    tasks = _sign_tasks(
        read, raw_files, read_options, spec_json, exact, keep_field, batch_size, winnow
    )
    _map_in_order(tasks, jobs, store, warm_up=lambda: _warm_up(spec_json, exact))
    work.finish()
    progress.done(task)
    for path, count in replaced.items():
        read_options.warn(
            f"{path}: {count} invalid UTF-8 byte sequence(s) replaced by U+FFFD "
            "(--strict-decoding refuses such input)"
        )
    if raw_files is not None and not ids:
        raise InputError(f"nothing could be read from {', '.join(raw_files)}: no records")
    return ids, keep_values, locations


def _sign_tasks(
    read: Any,
    raw_files: list[str] | None,
    read_options: Any,
    spec_json: str,
    exact: bool,
    keep_field: str | None,
    batch_size: int,
    winnow: int,
) -> Iterator[tuple[Any, ...]]:
    """``(function, *arguments)`` of each signing task, in input order: byte slices of raw
    JSONL files (the worker reads them), or blocks of documents the parent read."""
    if raw_files is not None:
        for path, lo, hi in _slices(raw_files, SLICE_BYTES):
            yield (
                _sign_raw_slice,
                spec_json,
                path,
                lo,
                hi,
                exact,
                keep_field,
                read_options,
                winnow,
            )
        return
    for block in _chunks(read(), batch_size, 4_000_000):
        yield (_sign_texts_block, spec_json, block, exact, keep_field, winnow)


def _warm_up(spec_json: str, exact: bool) -> None:
    """Build the worker state (pipeline, numba kernels) once in the parent, before it forks."""
    sign_chunk(spec_json, ["Warm-up: тёплый текст, <b>html</b>."], exact)
    _banding(spec_json)


def _map_in_order(tasks: Iterable[tuple[Any, ...]], jobs: int, store: Any, warm_up: Any) -> None:
    """Run ``(function, *arguments)`` tasks in ``jobs`` processes (here when 1), at most
    ``2 · jobs`` at a time, and ``store`` each result in task order."""
    if jobs == 1:
        for fn, *args in tasks:
            store(fn(*args))
        return
    import multiprocessing

    warm_up()
    method = "fork" if sys.platform.startswith("linux") else "spawn"
    pool: Executor = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method))
    pending: deque[Future[Any]] = deque()
    try:
        for fn, *args in tasks:
            pending.append(pool.submit(fn, *args))
            if len(pending) >= 2 * jobs:
                store(pending.popleft().result())
        while pending:
            store(pending.popleft().result())
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


_EMPTY_CHUNK: SignedChunk = (
    np.zeros((0, 0), np.uint64),
    np.zeros(0, np.uint64),
    np.zeros(0, np.int64),
    None,
)


def _record_tail(group_id: str, kept: bool, similarity: float, rep_id: str) -> str:
    """The added fields of a record, as the end of a JSON object."""
    return (
        f', "group": {json.dumps(group_id, ensure_ascii=False)}, '
        f'"kept": {"true" if kept else "false"}, '
        f'"similarity": {json.dumps(round(similarity, 6))}, '
        f'"representative": {json.dumps(rep_id, ensure_ascii=False)}}}\n'
    )


def _splice_records(
    locations: list[_Signed],
    path: Path,
    ids: list[str],
    group: I64,
    rep: I64,
    similarity: F64,
    kept_only: bool,
    fields: tuple[str, str],
    progress: _Progress,
) -> None:
    """Stage 5 for raw JSONL input: each record's own bytes (memory-mapped), its closing brace
    replaced by the added fields; a record that cannot be spliced (invalid UTF-8, an id that
    is a number, a field named like an added one) is decoded and written as the general path
    does. No JSON is parsed or re-encoded for the others."""
    import mmap

    task = progress.task("write", len(ids))
    maps: dict[str, mmap.mmap] = {}
    i = 0
    try:
        with open(path, "wb") as out:
            for block in locations:
                assert block.path is not None and block.starts is not None
                assert block.ends is not None and block.spliceable is not None
                if block.path not in maps:
                    with open(block.path, "rb") as fh:
                        maps[block.path] = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
                data = maps[block.path]
                parts: list[bytes] = []
                for start, end, clean in zip(
                    block.starts.tolist(),
                    block.ends.tolist(),
                    block.spliceable.tolist(),
                    strict=True,
                ):
                    r = int(rep[i])
                    kept = r == i
                    if kept or not kept_only:
                        tail = _record_tail(ids[int(group[i])], kept, float(similarity[i]), ids[r])
                        if clean:
                            parts.append(data[start : end - 1].rstrip() + tail.encode("utf-8"))
                        else:
                            parts.append(_rewritten(data[start:end], ids[i], tail, fields))
                    i += 1
                out.write(b"".join(parts))
                progress.advance(task, int(block.starts.shape[0]))
    finally:
        for m in maps.values():
            m.close()


def _rewritten(line: bytes, doc_id: str, tail: str, fields: tuple[str, str]) -> bytes:
    """A record the splice cannot take, re-encoded like the general path's."""
    id_field, text_field = fields
    obj = json.loads(line.decode("utf-8", "replace"))
    text = obj.get(text_field)
    record: dict[str, Any] = {"id": doc_id, "text": "" if text is None else text}
    skip = (id_field, text_field, *ADDED_FIELDS)
    record.update({k: v for k, v in obj.items() if k not in skip})
    head = json.dumps(record, ensure_ascii=False)
    return (head[:-1] + tail).encode("utf-8")


def _write_records(
    docs: Iterable[tuple[str, str, dict[str, Any]]],
    path: Path,
    fmt: str,
    ids: list[str],
    group: I64,
    rep: I64,
    similarity: F64,
    kept_only: bool,
    progress: _Progress,
) -> None:
    writer = _RecordWriter(path, fmt)
    task = progress.task("write", len(ids))
    try:
        for i, (doc_id, text, meta) in enumerate(docs):
            if i >= len(ids) or ids[i] != doc_id:
                raise DatasetError(
                    f"the input changed while it was being deduplicated (document {i + 1} "
                    f"is {doc_id!r} now)"
                )
            kept = bool(rep[i] == i)
            if kept_only and not kept:
                progress.advance(task)
                continue
            record = {"id": doc_id, "text": text, **meta}
            record["group"] = ids[int(group[i])]
            record["kept"] = kept
            record["similarity"] = round(float(similarity[i]), 6)
            record["representative"] = ids[int(rep[i])]
            writer.write(record)
            progress.advance(task)
    finally:
        writer.close()


def _write_edges(path: Path, fmt: str, ids: list[str], a: I64, b: I64, scores: PairScores) -> None:
    columns: dict[str, Any] = {
        "a": [ids[i] for i in a.tolist()],
        "b": [ids[i] for i in b.tolist()],
        "resemblance" if scores.containment_ab is not None else "estimate": np.round(
            scores.resemblance, 6
        ).tolist(),
    }
    if scores.containment_ab is not None and scores.containment_ba is not None:
        columns["containment_ab"] = np.round(scores.containment_ab, 6).tolist()
        columns["containment_ba"] = np.round(scores.containment_ba, 6).tolist()
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table(columns), path)
        return
    names = list(columns)
    with open(path, "w", encoding="utf-8") as fh:
        for row in zip(*columns.values(), strict=True):
            fh.write(json.dumps(dict(zip(names, row, strict=True)), ensure_ascii=False) + "\n")


def dedup(
    inputs: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    out: str | os.PathLike[str],
    options: DedupOptions | None = None,
    *,
    spec: Spec | None = None,
    output_format: Literal["jsonl", "parquet"] = "jsonl",
    kept_only: bool = False,
    id_field: str = "id",
    text_field: str = "text",
    input_format: str | None = None,
    jobs: int = 1,
    batch_size: int = 512,
    overwrite: bool = False,
    progress: bool = False,
    keep_work: bool = False,
) -> DedupResult:
    """Deduplicate a corpus into the directory ``out``.

    ``out`` gets ``documents.jsonl`` (or ``.parquet``: every input record — only the kept ones
    with ``kept_only`` — with ``group``, ``kept``, ``similarity`` and ``representative``),
    ``edges.jsonl`` (or ``.parquet``: the verified pairs with their measures),
    ``summary.json`` and ``spec.json``. ``options`` (:class:`DedupOptions`: threshold,
    measure, verification, keep rule, LSH shape) default to ``DedupOptions()``; ``spec``
    defaults to the ``auto`` preset (``ru`` or ``en`` by each document's script); see the
    module docstring for the stages.
    """
    from neardup.pipeline import make_spec

    if isinstance(inputs, str | os.PathLike):
        inputs = [inputs]
    if not inputs:
        raise InputError("no input given")
    if output_format not in ("jsonl", "parquet"):
        raise InputError(f"the output format must be jsonl or parquet, got {output_format!r}")
    if output_format == "parquet":
        require("pyarrow", "parquet")
    if jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {jobs}")
    options = options if options is not None else DedupOptions()
    full_spec = dedup_spec(spec if spec is not None else make_spec("auto"), options)
    assert full_spec.sketch is not None
    out_path = Path(out)
    check_output(out_path, full_spec, options, overwrite)
    rule, keep_field = parse_keep(options.keep)
    exact = options.verify == "exact"
    partial = out_path.with_name(out_path.name + ".partial")
    if partial.exists():
        shutil.rmtree(partial)
    partial.mkdir(parents=True)
    seconds: dict[str, float] = {}
    try:
        with _Progress(progress) as bars:
            result = _run(
                inputs,
                partial,
                out_path,
                full_spec,
                options,
                rule=rule,
                keep_field=keep_field,
                exact=exact,
                output_format=output_format,
                kept_only=kept_only,
                read=lambda: read_documents(
                    inputs, id_field=id_field, text_field=text_field, fmt=input_format
                ),
                id_field=id_field,
                text_field=text_field,
                input_format=input_format,
                jobs=jobs,
                batch_size=batch_size,
                bars=bars,
                seconds=seconds,
            )
        if not keep_work:
            shutil.rmtree(partial / "work", ignore_errors=True)
        if out_path.exists():
            shutil.rmtree(out_path) if out_path.is_dir() else out_path.unlink()
        os.replace(partial, out_path)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return result


def _run(
    inputs: Sequence[str | os.PathLike[str]],
    partial: Path,
    out_path: Path,
    spec: Spec,
    options: DedupOptions,
    *,
    rule: str,
    keep_field: str | None,
    exact: bool,
    output_format: str,
    kept_only: bool,
    read: Any,
    id_field: str,
    text_field: str,
    input_format: str | None,
    jobs: int,
    batch_size: int,
    bars: _Progress,
    seconds: dict[str, float],
) -> DedupResult:
    cpu_seconds: dict[str, float] = {}
    from neardup.sketch.minhash import empty_value

    assert spec.sketch is not None
    clock = _StageClock(seconds, cpu_seconds)
    from neardup.inputs import ReadOptions

    dtype = np.dtype(np.uint64 if spec.sketch.value_bits == 64 else np.uint32)
    raw_files = raw_jsonl_files(inputs, input_format)
    # raw JSONL: sign by the fused path now, fingerprint only the candidates later (their
    # records are re-read by byte span); otherwise every fingerprint set is kept while signing
    lazy = (
        exact
        and raw_files is not None
        and not options.winnow
        and not spec.fingerprint_family.multiset
    )
    work = _Work(partial / "work", spec.sketch.num_perm, dtype, exact and not lazy)
    fields = (id_field, text_field)
    ids, keep_values, locations = _sign_all(
        read,
        raw_files,
        ReadOptions(id_field=id_field, text_field=text_field),
        spec,
        work,
        exact=exact and not lazy,
        jobs=jobs,
        keep_field=keep_field,
        progress=bars,
        batch_size=batch_size,
        winnow=options.winnow,
    )
    n = len(ids)
    clock.lap("sign")

    task = bars.task("candidates", spec.sketch.bands)

    def columns() -> Iterator[U64]:
        for band in range(spec.sketch.bands):  # type: ignore[union-attr]
            yield work.band_column(band)
            bars.advance(task)

    a, b, capped, largest = candidate_pairs(columns(), max(n, 1), options.window)
    if options.winnow:
        a, b = _with_winnowed_pairs(a, b, *work.samples(), n, options.window)
    clock.lap("candidates")

    task = bars.task("verify", max(1, a.shape[0]))
    if lazy:
        assert locations is not None
        fingerprints = _candidate_fingerprints(
            spec.to_json(), locations, np.union1d(a, b), text_field, jobs
        )
        scores = fingerprints.scores(a, b)
    elif exact:
        fingerprints = _StoredFingerprints(*work.fingerprints())
        scores = fingerprints.scores(a, b)
    else:
        sigs = work.signatures()
        scores = estimated_scores(sigs, empty_value(spec.sketch.value_bits), a, b)
    keep_edge = scores.measure(options.measure) >= options.threshold
    ea, eb = a[keep_edge], b[keep_edge]
    edge_scores = PairScores(
        scores.resemblance[keep_edge],
        None if scores.containment_ab is None else scores.containment_ab[keep_edge],
        None if scores.containment_ba is None else scores.containment_ba[keep_edge],
    )
    bars.advance(task, max(1, a.shape[0]))
    clock.lap("verify")

    task = bars.task("groups", 1)
    lengths = np.concatenate(work.lengths) if work.lengths else np.zeros(0, np.int64)
    group = components(n, ea, eb)
    rep = representatives(group, keep_priority(rule, lengths, keep_values))
    similarity = np.ones(n, dtype=np.float64)
    members = np.flatnonzero(rep != np.arange(n))
    if members.shape[0]:
        if exact:
            to_rep = fingerprints.scores(members, rep[members])
        else:
            to_rep = estimated_scores(
                sigs, empty_value(spec.sketch.value_bits), members, rep[members]
            )
        similarity[members] = to_rep.measure(options.measure)
    bars.advance(task)
    clock.lap("groups")

    ext = "parquet" if output_format == "parquet" else "jsonl"
    files = {"documents": f"documents.{ext}", "edges": f"edges.{ext}"}
    if locations is not None and ext == "jsonl":
        _splice_records(
            locations,
            partial / files["documents"],
            ids,
            group,
            rep,
            similarity,
            kept_only,
            fields,
            bars,
        )
    else:
        _write_records(
            read(),
            partial / files["documents"],
            ext,
            ids,
            group,
            rep,
            similarity,
            kept_only,
            bars,
        )
    _write_edges(partial / files["edges"], ext, ids, ea, eb, edge_scores)
    clock.lap("write")
    clock.total()

    groups = int(np.unique(group).shape[0]) if n else 0
    sizes = np.bincount(group, minlength=n) if n else np.zeros(0, np.int64)
    result = DedupResult(
        out=out_path,
        documents=n,
        groups=groups,
        duplicate_groups=int((sizes > 1).sum()),
        removed=n - groups,
        candidate_pairs=int(a.shape[0]),
        verified_pairs=int(ea.shape[0]),
        seconds={k: round(v, 3) for k, v in seconds.items()},
        cpu_seconds={k: round(v, 3) for k, v in cpu_seconds.items()},
        bands=spec.sketch.bands,
        rows=spec.sketch.rows,
        bytes_read=_input_bytes(inputs),
        capped_buckets=capped,
        largest_bucket=largest,
        files={**files, "summary": SUMMARY_FILE, "spec": SPEC_FILE},
    )
    summary = result.to_dict()
    summary["options"] = options.to_dict()
    (partial / SUMMARY_FILE).write_text(
        json.dumps(summary, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    (partial / SPEC_FILE).write_text(
        json.dumps(_spec_record(spec, options), ensure_ascii=False, indent=2, sort_keys=True)
        + "\n",
        encoding="utf-8",
    )
    return result


def _cpu_now() -> float:
    """CPU seconds of this process and of its finished children (the stage's workers)."""
    import resource

    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


class _StageClock:
    """Wall and CPU seconds of each stage, in the order they run."""

    def __init__(self, wall: dict[str, float], cpu: dict[str, float]) -> None:
        self.wall, self.cpu = wall, cpu
        self.wall0 = self.wall_mark = time.perf_counter()
        self.cpu0 = self.cpu_mark = _cpu_now()

    def lap(self, name: str) -> None:
        now, cpu = time.perf_counter(), _cpu_now()
        self.wall[name], self.cpu[name] = now - self.wall_mark, cpu - self.cpu_mark
        self.wall_mark, self.cpu_mark = now, cpu

    def total(self) -> None:
        self.wall["total"] = time.perf_counter() - self.wall0
        self.cpu["total"] = _cpu_now() - self.cpu0


def _input_bytes(inputs: Sequence[str | os.PathLike[str]]) -> int:
    total = 0
    for raw in inputs:
        path = Path(raw)
        if path.is_file():
            total += path.stat().st_size
        elif path.is_dir():
            total += sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return total


def read_groups(out: str | os.PathLike[str]) -> dict[str, str]:
    """``{id: group}`` of a dedup output directory (JSONL or Parquet)."""
    root = Path(out)
    meta = json.loads((root / SUMMARY_FILE).read_text(encoding="utf-8"))
    path = root / meta["files"]["documents"]
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path, columns=["id", "group"])
        return dict(zip(table["id"].to_pylist(), table["group"].to_pylist(), strict=True))
    out_map: dict[str, str] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            out_map[str(rec["id"])] = str(rec["group"])
    return out_map


def partition(groups: dict[str, str]) -> set[frozenset[str]]:
    """Groups as a set of member sets (to compare runs whatever their labels)."""
    members: dict[str, set[str]] = {}
    for doc_id, g in groups.items():
        members.setdefault(g, set()).add(doc_id)
    return {frozenset(m) for m in members.values()}


__all__ = [
    "DedupOptions",
    "DedupResult",
    "bucket_pairs",
    "candidate_pairs",
    "components",
    "dedup",
    "dedup_spec",
    "partition",
    "read_documents",
    "read_groups",
    "representatives",
]

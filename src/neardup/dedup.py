"""Batch deduplication of a corpus on one machine: ``neardup.dedup(...)`` and ``neardup dedup``.

Stages (each timed in ``summary.json``, each with its progress bar):

1. **sign** — the input is read as a stream (:func:`read_documents`, the one reader) in chunks;
   each chunk goes through the :class:`~neardup.pipeline.Pipeline` (fingerprints, when the
   verification is exact) and the :class:`~neardup.sketch.minhash.MinHasher` (one kernel call
   per chunk), in ``jobs`` worker processes. Signatures, band keys and fingerprint sets go to
   disk chunk by chunk (``OUT.partial/work``); only a few numbers per document stay in memory.
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
5. **write** — the input is read a second time and every record is written with ``group``,
   ``kept``, ``similarity`` (the chosen measure against the kept document) and
   ``representative``; then the edge list, ``summary.json`` and ``spec.json``.

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

    def __post_init__(self) -> None:
        check_fields(self, "dedup", InputError)
        if self.measure == "containment" and self.verify == "estimate":
            raise InputError("containment needs exact verification (--verify exact)")
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
    hasher = _signer(spec_json)
    if not exact:
        sigs = hasher.sign_texts(texts)
        return sigs, np.zeros(0, np.uint64), np.zeros(len(texts), np.int64), None
    fps = [hasher.pipeline.fingerprints(t) for t in texts]
    sigs = hasher.sign_many(fps) if fps else hasher.sign_hashes([])
    lengths = np.fromiter((len(f) for f in fps), dtype=np.int64, count=len(fps))
    values = np.concatenate([f.values for f in fps]) if fps else np.zeros(0, np.uint64)
    counts = None
    if fps and fps[0].counts is not None:
        counts = np.concatenate([f.counts for f in fps]).astype(np.int64)
    return sigs, values, lengths, counts


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

    def finish(self) -> None:
        self.sig_file.close()
        self.fp_file.close()
        if self.count_file is not None:
            self.count_file.close()

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


def _sign_all(
    docs: Iterable[tuple[str, str, dict[str, Any]]],
    spec: Spec,
    work: _Work,
    *,
    exact: bool,
    jobs: int,
    keep_field: str | None,
    progress: _Progress,
    batch_size: int,
) -> tuple[list[str], list[Any] | None]:
    from neardup.sketch.supershingles import Banding

    assert spec.sketch is not None
    banding = Banding(spec.sketch)
    spec_json = spec.to_json()
    ids: list[str] = []
    seen: dict[str, int] = {}
    keep_values: list[Any] | None = [] if keep_field else None
    task = progress.task("sign", None)

    def metadata(block: list[tuple[str, str, dict[str, Any]]]) -> I64:
        for doc_id, _, meta in block:
            if doc_id in seen:
                raise DatasetError(
                    f"duplicate id {doc_id!r}: documents {seen[doc_id] + 1} and {len(ids) + 1} "
                    "of the input have it; ids must be unique"
                )
            seen[doc_id] = len(ids)
            ids.append(doc_id)
            if keep_values is not None and keep_field is not None:
                keep_values.append(_keep_value(meta, keep_field, doc_id))
        return np.fromiter((len(t) for _, t, _ in block), dtype=np.int64, count=len(block))

    def store(chunk: SignedChunk, lengths: I64) -> None:
        work.add(chunk, banding.keys(chunk[0]), lengths)
        progress.advance(task, int(lengths.shape[0]))

    blocks = _chunks(docs, batch_size, 4_000_000)
    if jobs == 1:
        for block in blocks:
            lengths = metadata(block)
            store(sign_chunk(spec_json, [t for _, t, _ in block], exact), lengths)
    else:
        import multiprocessing

        sign_chunk(spec_json, ["Warm-up: тёплый текст, <b>html</b>."], exact)
        method = "fork" if sys.platform.startswith("linux") else "spawn"
        pool: Executor = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method))
        pending: deque[tuple[I64, Future[SignedChunk]]] = deque()
        try:
            for block in blocks:
                lengths = metadata(block)
                texts = [t for _, t, _ in block]
                pending.append((lengths, pool.submit(sign_chunk, spec_json, texts, exact)))
                if len(pending) >= 2 * jobs:
                    done_lengths, future = pending.popleft()
                    store(future.result(), done_lengths)
            while pending:
                done_lengths, future = pending.popleft()
                store(future.result(), done_lengths)
        finally:
            for _, future in pending:
                future.cancel()
            pool.shutdown(wait=True, cancel_futures=True)
    work.finish()
    progress.done(task)
    return ids, keep_values


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
    *,
    spec: Spec | None = None,
    threshold: float = 0.7,
    measure: Measure = "resemblance",
    verify: Verify = "exact",
    keep: str = "first",
    num_perm: int = 128,
    bands: int = 0,
    rows: int = 0,
    window: int = 50,
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
    ``summary.json`` and ``spec.json``. ``spec`` defaults to the ``auto`` preset (``ru`` or
    ``en`` by each document's script); see the module docstring for the stages.
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
    options = DedupOptions(threshold, measure, verify, keep, num_perm, bands, rows, window)
    full_spec = dedup_spec(spec if spec is not None else make_spec("auto"), options)
    assert full_spec.sketch is not None
    out_path = Path(out)
    check_output(out_path, full_spec, options, overwrite)
    rule, keep_field = parse_keep(keep)
    exact = verify == "exact"
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
    jobs: int,
    batch_size: int,
    bars: _Progress,
    seconds: dict[str, float],
) -> DedupResult:
    from neardup.sketch.minhash import empty_value

    assert spec.sketch is not None
    started = time.perf_counter()
    dtype = np.dtype(np.uint64 if spec.sketch.value_bits == 64 else np.uint32)
    work = _Work(partial / "work", spec.sketch.num_perm, dtype, exact)
    t0 = time.perf_counter()
    ids, keep_values = _sign_all(
        read(),
        spec,
        work,
        exact=exact,
        jobs=jobs,
        keep_field=keep_field,
        progress=bars,
        batch_size=batch_size,
    )
    n = len(ids)
    seconds["sign"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    task = bars.task("candidates", spec.sketch.bands)

    def columns() -> Iterator[U64]:
        for band in range(spec.sketch.bands):  # type: ignore[union-attr]
            yield work.band_column(band)
            bars.advance(task)

    a, b, capped, largest = candidate_pairs(columns(), max(n, 1), options.window)
    seconds["candidates"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    task = bars.task("verify", max(1, a.shape[0]))
    if exact:
        values, offsets, counts = work.fingerprints()
        scores = exact_scores(values, offsets, counts, a, b)
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
    seconds["verify"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    task = bars.task("groups", 1)
    lengths = np.concatenate(work.lengths) if work.lengths else np.zeros(0, np.int64)
    group = components(n, ea, eb)
    rep = representatives(group, keep_priority(rule, lengths, keep_values))
    similarity = np.ones(n, dtype=np.float64)
    members = np.flatnonzero(rep != np.arange(n))
    if members.shape[0]:
        if exact:
            to_rep = exact_scores(values, offsets, counts, members, rep[members])
        else:
            to_rep = estimated_scores(
                sigs, empty_value(spec.sketch.value_bits), members, rep[members]
            )
        similarity[members] = to_rep.measure(options.measure)
    bars.advance(task)
    seconds["groups"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    ext = "parquet" if output_format == "parquet" else "jsonl"
    files = {"documents": f"documents.{ext}", "edges": f"edges.{ext}"}
    _write_records(
        read(), partial / files["documents"], ext, ids, group, rep, similarity, kept_only, bars
    )
    _write_edges(partial / files["edges"], ext, ids, ea, eb, edge_scores)
    seconds["write"] = time.perf_counter() - t0
    seconds["total"] = time.perf_counter() - started

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

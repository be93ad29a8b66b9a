"""Stage 1, signing: the input read in blocks (or byte slices of plain JSONL files that the
workers read themselves), each block's signatures, band keys (and fingerprint sets, winnowed
samples) written to the :class:`~neardup.corpus.workspace.Workspace`."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup import inputs
from neardup.analysis.tricks import KINDS, NONE, Tricks, folds
from neardup.corpus.arrays import I64, U64, SignedChunk
from neardup.corpus.options import ADDED_FIELDS
from neardup.corpus.progress import StageProgress
from neardup.corpus.workers import map_in_order
from neardup.corpus.workspace import Workspace
from neardup.errors import DatasetError, InputError
from neardup.inputs import ByteSlice, ReadOptions, is_plain_jsonl, jsonl_slices, read_slice
from neardup.spec import Spec

_WORKER: dict[str, Any] = {}


def signer(spec_json: str) -> Any:
    from neardup.sketch.minhash import MinHasher

    if _WORKER.get("spec") != spec_json:
        _WORKER["spec"] = spec_json
        _WORKER["hasher"] = MinHasher(Spec.from_json(spec_json))
    return _WORKER["hasher"]


def batch_shingler(spec_json: str) -> Any:
    """The batch path of the signer's pipeline (:class:`~neardup.fingerprints.batch.BatchShingler`,
    ``None`` when the spec has none), built once per spec in a worker."""
    if _WORKER.get("shingler_spec") != spec_json:
        from neardup.fingerprints.batch import BatchShingler

        _WORKER["shingler_spec"] = spec_json
        _WORKER["shingler"] = BatchShingler.of(signer(spec_json).pipeline)
    return _WORKER["shingler"]


def sign_chunk(spec_json: str, texts: list[str], exact: bool) -> SignedChunk:
    """``(signatures, fingerprint values, lengths, counts)`` of a chunk of texts: the pipeline's
    fingerprint sets (when ``exact``) signed in one kernel call, or the texts signed directly."""
    return _sign_and_winnow(spec_json, texts, exact, 0)[0]


def _sign_and_winnow(
    spec_json: str, texts: list[str], exact: bool, winnow: int
) -> tuple[SignedChunk, U64, I64, list[Tricks] | None]:
    """:func:`sign_chunk`, and with ``winnow`` each text's winnowed samples (the collection's
    generator over its shingles in text order): flat values and a count per text; and each
    text's tricks when the signing found them (not on the paths that keep fingerprint sets)."""
    hasher = signer(spec_json)
    no_samples = np.zeros(0, np.uint64), np.zeros(len(texts), np.int64)
    if not exact:
        sigs, found = hasher.sign_texts_and_tricks(texts)
        chunk = (sigs, np.zeros(0, np.uint64), np.zeros(len(texts), np.int64), None)
        return chunk, *no_samples, found
    if winnow:
        from neardup.fingerprints.similarity import Fingerprints
        from neardup.index.candidates import Winnowing

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
    return (sigs, values, lengths, counts), samples, sample_sizes, None


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


@dataclass
class TrickCounts:
    """How many documents had tricks undone (hidden-text evasion): any kind (``documents``), past a
    kind's threshold (``suspicious``), and of each kind (``kinds``; ``hidden_text``: text
    hidden in an office file, kept out when it was read)."""

    documents: int = 0
    suspicious: int = 0
    kinds: dict[str, int] = field(default_factory=dict)

    def add(self, found: Tricks) -> None:
        if not found:
            return
        self.documents += 1
        self.suspicious += found.suspicious
        for kind in found.kinds:
            self.kinds[kind] = self.kinds.get(kind, 0) + 1

    def absorb(self, other: TrickCounts) -> None:
        self.documents += other.documents
        self.suspicious += other.suspicious
        for kind, count in other.kinds.items():
            self.kinds[kind] = self.kinds.get(kind, 0) + count

    def to_dict(self) -> dict[str, Any]:
        order = sorted(self.kinds, key=lambda k: KINDS.index(k) if k in KINDS else len(KINDS))
        return {
            "documents": self.documents,
            "suspicious": self.suspicious,
            "kinds": {kind: self.kinds[kind] for kind in order},
        }


def count_tricks(
    spec_json: str,
    docs: Sequence[tuple[str, str, dict[str, Any]]],
    found: Sequence[Tricks] | None = None,
) -> TrickCounts:
    """The tricks of a block of documents: what the spec's ``fold`` undid — ``found``, what
    the signing's analysis recorded, else searched here (the fast path's scan first, so a
    clean text costs one numba pass; the few it flags are searched) — and the text hidden in
    their office files (``meta["hidden_text"]``)."""
    counts = TrickCounts()
    if found is None:
        found = _search_tricks(spec_json, [text for _, text, _ in docs])
    for (doc_id, text, meta), tricks in zip(docs, found, strict=True):
        hidden = inputs.hidden_of(inputs.InputDoc(doc_id, text, meta))
        counts.add(tricks.merged(hidden))
    return counts


def _search_tricks(spec_json: str, texts: list[str]) -> list[Tricks]:
    """What the spec's ``fold`` undoes in each text, for the signing paths that do not
    record it (those that keep fingerprint sets)."""
    if _WORKER.get("folds_spec") != spec_json:
        _WORKER["folds_spec"] = spec_json
        _WORKER["folds"] = folds(Spec.from_json(spec_json))
    if not _WORKER["folds"]:
        return [NONE] * len(texts)
    from neardup._kernels.text import code_points
    from neardup.analysis import evasion

    return [
        evasion.find_tricks(text) if evasion.might_have_tricks(code_points(text)) else NONE
        for text in texts
    ]


@dataclass
class SignedBlock:
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
    tricks: TrickCounts = field(default_factory=TrickCounts)


def _sign_texts_block(
    spec_json: str,
    docs: list[tuple[str, str, dict[str, Any]]],
    exact: bool,
    keep_field: str | None,
    winnow: int,
    signatures: bool = True,
) -> SignedBlock:
    """Sign documents the parent read (any input format); without ``signatures`` only their
    band keys go back (the job verifies from fingerprints: a million signatures are a
    gigabyte the parent would receive and write for nothing)."""
    chunk, samples, sample_sizes, found = _sign_and_winnow(
        spec_json, [t for _, t, _ in docs], exact, winnow
    )
    keys = _banding(spec_json).keys(chunk[0])
    if not signatures:
        chunk = (chunk[0][:, :0], *chunk[1:])
    return SignedBlock(
        ids=[d[0] for d in docs],
        lengths=np.fromiter((len(t) for _, t, _ in docs), dtype=np.int64, count=len(docs)),
        keep_values=(
            None if keep_field is None else [_keep_value(m, keep_field, i) for i, _, m in docs]
        ),
        chunk=chunk,
        keys=keys,
        samples=samples,
        sample_sizes=sample_sizes,
        tricks=count_tricks(spec_json, docs, found),
    )


def _banding(spec_json: str) -> Any:
    if _WORKER.get("banding_spec") != spec_json:
        from neardup.sketch.supershingles import Banding

        sketch = Spec.from_json(spec_json).sketch
        assert sketch is not None
        _WORKER["banding_spec"] = spec_json
        _WORKER["banding"] = Banding(sketch)
    return _WORKER["banding"]


def _sign_raw_slice(
    spec_json: str,
    piece: ByteSlice,
    exact: bool,
    keep_field: str | None,
    options: ReadOptions,
    winnow: int,
    signatures: bool = True,
) -> SignedBlock:
    """Read a slice of a plain JSONL file (the worker reads its own slice through
    :func:`neardup.inputs.read_slice`: the parent neither parses nor ships the texts) and
    sign its records, noting where each lies for the write stage's splice."""
    docs: list[tuple[str, str, dict[str, Any]]] = []
    starts: list[int] = []
    ends: list[int] = []
    splice: list[bool] = []
    replaced = 0
    plain_fields = options.id_field == "id" and options.text_field == "text"
    for record in read_slice(piece, options):
        obj = record.obj
        docs.append(record.doc)
        starts.append(record.start)
        ends.append(record.end)
        replaced += record.replaced
        splice.append(
            not record.replaced
            and plain_fields
            and isinstance(obj.get("id"), str)
            and isinstance(obj.get("text"), str)
            and not any(name in obj for name in ADDED_FIELDS)
        )
    signed = _sign_texts_block(spec_json, docs, exact, keep_field, winnow, signatures)
    signed.path = piece.path
    signed.starts = np.array(starts, dtype=np.int64)
    signed.ends = np.array(ends, dtype=np.int64)
    signed.spliceable = np.array(splice, dtype=np.bool_)
    signed.replaced = replaced
    return signed


#: Bytes of JSONL one worker task reads (a :class:`~neardup.inputs.ByteSlice`).
SLICE_BYTES = inputs.SLICE_BYTES


def raw_jsonl_files(inputs: Sequence[str | os.PathLike[str]], fmt: str | None) -> list[str] | None:
    """The input files when every one is a plain (not gzipped) JSONL file named on its own:
    then workers read their own slices and the output is written by splicing each record's
    bytes. ``None`` means the general path (the parent reads through :func:`read_documents`)."""
    files: list[str] = []
    for raw in inputs:
        try:
            plain = Path(raw).is_file() and is_plain_jsonl(raw, fmt)
        except OSError:  # the general path's reader says why it cannot be read
            return None
        if not plain:
            return None
        files.append(str(Path(raw)))
    return files


def sign_corpus(
    read: Any,
    raw_files: list[str] | None,
    read_options: Any,
    spec: Spec,
    work: Workspace,
    *,
    exact: bool,
    jobs: int,
    keep_field: str | None,
    progress: StageProgress,
    batch_size: int,
    winnow: int = 0,
    tricks: TrickCounts | None = None,
    signatures: bool = True,
) -> tuple[list[str], list[Any] | None, list[SignedBlock] | None]:
    """Stage 1. Returns the ids, keep values, and (raw JSONL input) each block's record
    locations for the write stage; the documents with tricks are counted into ``tricks``.
    Without ``signatures`` the workers send back band keys, not signatures (the verification
    reads fingerprints)."""
    spec_json = spec.to_json()
    ids: list[str] = []
    seen: dict[str, int] = {}
    keep_values: list[Any] | None = [] if keep_field else None
    locations: list[SignedBlock] | None = [] if raw_files is not None else None
    task = progress.task("sign", None)
    replaced: dict[str, int] = {}

    def store(signed: SignedBlock) -> None:
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
        if tricks is not None:
            tricks.absorb(signed.tricks)
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
        read, raw_files, read_options, spec_json, exact, keep_field, batch_size, winnow, signatures
    )
    map_in_order(tasks, jobs, store, warm_up=lambda: _warm_up(spec_json, exact))
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
    signatures: bool = True,
) -> Iterator[tuple[Any, ...]]:
    """``(function, *arguments)`` of each signing task, in input order: byte slices of raw
    JSONL files (the worker reads them), or blocks of documents the parent read."""
    if raw_files is not None:
        for path in raw_files:
            for piece in jsonl_slices(path, SLICE_BYTES):
                yield (
                    _sign_raw_slice,
                    *(spec_json, piece, exact, keep_field, read_options, winnow, signatures),
                )
        return
    for block in _chunks(read(), batch_size, 4_000_000):
        yield (_sign_texts_block, spec_json, block, exact, keep_field, winnow, signatures)


def _warm_up(spec_json: str, exact: bool) -> None:
    """Build the worker state (pipeline, numba kernels) once in the parent, before it forks."""
    sign_chunk(spec_json, ["Warm-up: тёплый текст, <b>html</b>."], exact)
    _banding(spec_json)


_EMPTY_CHUNK: SignedChunk = (
    np.zeros((0, 0), np.uint64),
    np.zeros(0, np.uint64),
    np.zeros(0, np.int64),
    None,
)

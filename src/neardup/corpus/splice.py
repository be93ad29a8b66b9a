"""Stage 5 for raw JSONL input, the splice: each record's own bytes, its closing brace replaced
by the added fields, written front to back in large blocks.

The parent lays the output out once (:func:`splice_layout`): the JSON of every id and of every
distinct similarity, encoded once; each record's byte span, whether it is written
(``kept_only``) and the length of its added fields. Then, run by run of records in input
order, it re-encodes the few records the splice cannot take (:func:`rewritten_head`) and so
places the run's records in the output; a thread fills the run by a compiled loop into the
output's next buffer (:class:`~neardup.corpus.direct_write.SequentialWriter`, whose own thread
writes it) while the parent lays out the next runs, and no Python code runs per spliced
record.
"""

from __future__ import annotations

import json
import os
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from io import BufferedReader
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup.corpus.arrays import F64, I64
from neardup.corpus.direct_write import SequentialWriter
from neardup.corpus.options import ADDED_FIELDS
from neardup.corpus.progress import StageProgress
from neardup.corpus.signing import SignedBlock
from neardup.errors import DatasetError

U8 = npt.NDArray[np.uint8]

#: How text is written to the JSONL outputs: UTF-8, and a lone surrogate (which a JSON input
#: may hold, escaped as ``\\ud800``; UTF-8 cannot encode it) as that escape again, so every
#: record is written and reads back the same. It only occurs inside JSON strings, where the
#: escape is valid JSON.
ENCODING_ERRORS = "backslashreplace"

#: The fixed bytes of the added fields, in the order :func:`fill_records` takes them.
FIXED_PIECES = (
    b', "group": ',
    b', "kept": true, "similarity": ',
    b', "kept": false, "similarity": ',
    b', "representative": ',
    b"}\n",
)

#: Bytes of output (or of input read) one run takes: large writes, and buffers that stay small
#: (and mostly in the CPU's cache).
TASK_BYTES = 8 << 20


@dataclass
class SpliceLayout:
    """What the runs share: per record (row) its span in its file, where its kept bytes stop,
    its group, kept record, similarity code, the length of its added fields, whether it is
    written, its re-encoded head in its run's (``override ≥ 0``) and its offset in the output
    (set run by run); and the encoded ids, similarities and fixed pieces."""

    starts: I64
    ends: I64
    stops: I64
    group: I64
    rep: I64
    sim_code: I64
    tails: I64
    written: npt.NDArray[np.bool_]
    clean: npt.NDArray[np.bool_]
    override: I64
    out_offsets: I64
    id_blob: U8
    id_offsets: I64
    sim_blob: U8
    sim_offsets: I64
    fixed: U8
    fixed_offsets: I64


def rewritten_head(line: bytes, doc_id: str, fields: tuple[str, str]) -> bytes:
    """A record the splice cannot take, re-encoded like the general path's, without its
    closing brace (the added fields follow)."""
    id_field, text_field = fields
    obj = json.loads(line.decode("utf-8", "replace"))
    text = obj.get(text_field)
    record: dict[str, Any] = {"id": doc_id, "text": "" if text is None else text}
    skip = (id_field, text_field, *ADDED_FIELDS)
    record.update({k: v for k, v in obj.items() if k not in skip})
    head = json.dumps(record, ensure_ascii=False)
    return head[:-1].encode("utf-8", ENCODING_ERRORS)


def _csr(pieces: list[str]) -> tuple[U8, I64]:
    """Strings of JSON (no raw newline: JSON escapes it) encoded as written, end to end, and
    where each starts: one join and one encoding for all (``backslashreplace`` works character
    by character, so the pieces encode as their concatenation does)."""
    raw = np.frombuffer(("\n".join(pieces) + "\n").encode("utf-8", ENCODING_ERRORS), np.uint8)
    newlines = np.flatnonzero(raw == 10)
    offsets = np.zeros(len(pieces) + 1, dtype=np.int64)
    offsets[1:] = newlines - np.arange(len(pieces))
    return np.ascontiguousarray(raw[raw != 10]), offsets


def _blob(pieces: list[bytes]) -> tuple[U8, I64]:
    offsets = np.zeros(len(pieces) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in pieces], out=offsets[1:])
    return np.frombuffer(b"".join(pieces), np.uint8).copy(), offsets


class _MappedFile:
    """An input file mapped read-only, whose pages are given back as each block is read (they
    stay in the page cache): the process's resident memory stays that of a block, not of the
    whole input (the peak memory ``dedup`` reports)."""

    def __init__(self, path: str) -> None:
        import mmap

        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            self._map = mmap.mmap(fh.fileno(), 0, prot=mmap.PROT_READ) if size else None
        self.data: npt.NDArray[np.uint8] = (
            np.frombuffer(self._map, dtype=np.uint8)
            if self._map is not None
            else np.zeros(0, np.uint8)
        )

    def release(self, start: int, end: int) -> None:
        """Give back the whole pages of bytes ``start``–``end``."""
        import mmap

        if self._map is None or not hasattr(mmap, "MADV_DONTNEED"):
            return
        first = start - start % mmap.PAGESIZE
        if end > first:
            self._map.madvise(mmap.MADV_DONTNEED, first, end - first)

    def close(self) -> None:
        self.data = np.zeros(0, np.uint8)  # the view goes before the map can close
        if self._map is not None:
            self._map.close()


def splice_layout(
    locations: list[SignedBlock],
    ids: list[str],
    group: I64,
    rep: I64,
    similarity: F64,
    kept_only: bool,
) -> tuple[SpliceLayout, list[tuple[str, int, int]]]:
    """The shared layout (the records' offsets still unset), and the runs of records
    ``(file, first row, end row)`` in input order, each within one file and about
    :data:`TASK_BYTES` of input."""
    from neardup._kernels.dedup_write import record_stops

    n = len(ids)
    starts = np.zeros(n, dtype=np.int64)
    ends = np.zeros(n, dtype=np.int64)
    stops = np.zeros(n, dtype=np.int64)
    clean = np.zeros(n, dtype=np.bool_)
    runs: list[tuple[str, int, int]] = []
    lo = 0
    for path, blocks in _by_file(locations):
        mapped: _MappedFile | None = None
        for block in blocks:
            assert block.starts is not None and block.ends is not None
            assert block.spliceable is not None
            hi = lo + int(block.starts.shape[0])
            if hi == lo:
                continue
            if mapped is None:
                mapped = _MappedFile(path)
            starts[lo:hi], ends[lo:hi], clean[lo:hi] = block.starts, block.ends, block.spliceable
            if ends[hi - 1] > mapped.data.shape[0]:  # the loop below reads unchecked
                raise DatasetError(f"{path} changed while it was being deduplicated")
            record_stops(mapped.data, starts[lo:hi], ends[lo:hi], stops[lo:hi])
            mapped.release(int(starts[lo]), int(ends[hi - 1]))
            if (
                runs
                and runs[-1][0] == path
                and starts[lo] >= ends[lo - 1]  # the file read on (a run is one span of it)
                and ends[hi - 1] - starts[runs[-1][1]] <= TASK_BYTES
            ):
                runs[-1] = (path, runs[-1][1], hi)
            else:
                runs.append((path, lo, hi))
            lo = hi
        if mapped is not None:
            mapped.close()
    if lo != n:
        raise DatasetError(f"the input changed while it was being deduplicated ({lo} of {n})")
    id_blob, id_offsets = _csr([encode_basestring(doc_id) for doc_id in ids])
    # one text per distinct value (by its bits: -0.0 and 0.0 are written apart)
    bits, sim_code = np.unique(
        np.ascontiguousarray(similarity, dtype=np.float64).view(np.uint64), return_inverse=True
    )
    sim_blob, sim_offsets = _csr(
        [json.dumps(round(float(v), 6)) for v in bits.view(np.float64).tolist()]
    )
    sim_code = sim_code.reshape(-1).astype(np.int64)
    fixed, fixed_offsets = _blob(list(FIXED_PIECES))
    row = np.arange(n, dtype=np.int64)
    id_len = np.diff(id_offsets)
    size = np.diff(fixed_offsets)
    tails = (
        size[0]
        + id_len[group]
        + np.where(rep == row, size[1], size[2])
        + np.diff(sim_offsets)[sim_code]
        + size[3]
        + id_len[rep]
        + size[4]
    )
    layout = SpliceLayout(
        starts=starts,
        ends=ends,
        stops=stops,
        group=group.astype(np.int64),
        rep=rep.astype(np.int64),
        sim_code=sim_code,
        tails=tails,
        written=rep == row if kept_only else np.ones(n, dtype=np.bool_),
        clean=clean,
        override=np.full(n, -1, dtype=np.int64),
        out_offsets=np.zeros(n + 1, dtype=np.int64),
        id_blob=id_blob,
        id_offsets=id_offsets,
        sim_blob=sim_blob,
        sim_offsets=sim_offsets,
        fixed=fixed,
        fixed_offsets=fixed_offsets,
    )
    return layout, runs


def _by_file(locations: list[SignedBlock]) -> list[tuple[str, list[SignedBlock]]]:
    """The blocks in order, consecutive blocks of one file together."""
    groups: list[tuple[str, list[SignedBlock]]] = []
    for block in locations:
        assert block.path is not None
        if groups and groups[-1][0] == block.path:
            groups[-1][1].append(block)
        else:
            groups.append((block.path, [block]))
    return groups


def place_run(
    t: SpliceLayout, ids: list[str], fields: tuple[str, str], src_path: str, lo: int, hi: int
) -> tuple[U8, I64]:
    """Re-encode the run's records the splice cannot take and set the run's offsets in the
    output (after the run before it); returns the re-encoded heads (end to end, and where
    each starts), which only this run's fill reads."""
    heads: list[bytes] = []
    redo = np.flatnonzero(t.written[lo:hi] & ~t.clean[lo:hi]) + lo
    if redo.shape[0]:
        with open(src_path, "rb") as fh:
            for at in redo.tolist():
                fh.seek(int(t.starts[at]))
                line = fh.read(int(t.ends[at] - t.starts[at]))
                t.override[at] = len(heads)
                heads.append(rewritten_head(line, ids[at], fields))
    over_blob, over_offsets = _blob(heads)
    body = t.stops[lo:hi] - t.starts[lo:hi]
    body[redo - lo] = np.diff(over_offsets)
    sizes = np.where(t.written[lo:hi], body + t.tails[lo:hi], 0)
    np.cumsum(sizes, out=t.out_offsets[lo + 1 : hi + 1])
    t.out_offsets[lo + 1 : hi + 1] += t.out_offsets[lo]
    return over_blob, over_offsets


class _Buffers(threading.local):
    """A thread's buffer of input, kept from run to run: the first writes to fresh memory
    fault each of its pages in, which costs more than the copy itself."""

    def __init__(self) -> None:
        self.src = np.zeros(0, dtype=np.uint8)

    def source(self, size: int) -> U8:
        if self.src.shape[0] < size:
            self.src = np.empty(max(size, TASK_BYTES), dtype=np.uint8)
        return self.src[:size]


def _read_exactly(fh: BufferedReader, buffer: U8) -> int:
    view = buffer.data
    got = 0
    while got < len(view):
        step = fh.readinto(view[got:])
        if not step:
            break
        got += step
    return got


def _write_run(
    t: SpliceLayout,
    heads: tuple[U8, I64],
    buffers: _Buffers,
    sink: SequentialWriter,
    src_path: str,
    lo: int,
    hi: int,
) -> int:
    """Records ``lo``–``hi`` of ``src_path`` (placed) filled into the output's next bytes
    (the runs are written in order). Returns how many records it took."""
    from neardup._kernels.dedup_write import fill_records

    size = int(t.out_offsets[hi] - t.out_offsets[lo])
    if size == 0:
        return hi - lo
    src_base = int(t.starts[lo])
    # the compiled loop does not check its indices: every record must lie in the span read
    if (t.starts[lo:hi] < src_base).any() or (t.ends[lo:hi] > t.ends[hi - 1]).any():
        raise AssertionError(f"records {lo}–{hi} do not lie in one span of {src_path}")
    src = buffers.source(int(t.ends[hi - 1]) - src_base)
    with open(src_path, "rb") as fh:
        fh.seek(src_base)
        if _read_exactly(fh, src) != src.shape[0]:
            raise DatasetError(f"{src_path} changed while it was being deduplicated")
    out = sink.reserve(size)
    got = fill_records(
        out,
        lo,
        hi,
        t.out_offsets,
        src,
        src_base,
        t.starts,
        t.stops,
        t.override,
        heads[0],
        heads[1],
        t.group,
        t.rep,
        t.sim_code,
        t.id_blob,
        t.id_offsets,
        t.sim_blob,
        t.sim_offsets,
        t.fixed,
        t.fixed_offsets,
    )
    if got != size:
        raise AssertionError(f"record {-1 - got} of the output is not the size laid out")
    sink.commit(size)
    return hi - lo


def splice_write(
    locations: list[SignedBlock],
    path: Path,
    ids: list[str],
    group: I64,
    rep: I64,
    similarity: F64,
    kept_only: bool,
    fields: tuple[str, str],
    progress: StageProgress,
    jobs: int = 1,
    *,
    direct: bool = True,
) -> None:
    """Write the records by the splice into ``path``, front to back (past the page cache
    unless ``direct`` is false: :mod:`neardup.corpus.direct_write`, whose own thread writes a
    buffer while the next is filled); with ``jobs`` ≥ 2 one thread fills the runs (the copy
    loop and the reads run without the GIL) while this one places the next, at most two runs
    ahead (their re-encoded records held). One filler, not ``jobs``: the output is one
    stream, and through the page cache two writers were slower than one (14.7 s against 11.7
    on a million documents)."""
    task = progress.task("write", len(ids))
    layout, runs = splice_layout(locations, ids, group, rep, similarity, kept_only)
    buffers = _Buffers()
    sink = SequentialWriter(path, direct=direct, background=True)
    try:
        if jobs <= 1 or len(runs) < 2:
            for src, lo, hi in runs:
                heads = place_run(layout, ids, fields, src, lo, hi)
                progress.advance(task, _write_run(layout, heads, buffers, sink, src, lo, hi))
            return
        pending: deque[Future[int]] = deque()
        with ThreadPoolExecutor(1) as pool:
            try:
                for src, lo, hi in runs:
                    heads = place_run(layout, ids, fields, src, lo, hi)
                    pending.append(
                        pool.submit(_write_run, layout, heads, buffers, sink, src, lo, hi)
                    )
                    if len(pending) >= 2:
                        progress.advance(task, pending.popleft().result())
                while pending:
                    progress.advance(task, pending.popleft().result())
            finally:
                for future in pending:
                    future.cancel()
    finally:
        sink.close()

"""Signing a stream of texts in chunks, on one core or several, with memory kept flat.

Texts arrive as an iterator and leave as ``(ids, (n, N) array)`` chunks in input order; at most
``2 · jobs`` chunks are in flight, so memory does not grow with the corpus.

Threads or processes? Every numba kernel releases the GIL (``nogil=True``). Under a spec the
batch kernels can run (chains of fusable char filters whose token filters, if any, are
compiled into tables, as ``plain``, ``ru``, ``en`` and ``auto``'s two are; word shingles;
``rabin`` sets), ``MinHasher.sign_texts`` signs a whole chunk in a few nogil kernel calls
(:mod:`neardup._kernels.sign_batch`; under ``auto``, one per chain after one that counts each
text's letters), so threads scale: a thread holds the GIL only to join and encode its chunk,
and to learn the forms no table knows. The threads share one
:class:`~neardup.sketch.minhash.MinHasher` (one analyzer, one dictionary table, one table of
the forms learned). Other specs (char shingles, multisets, other hash families) are signed
document by document, capped by the GIL under threads, and use processes on large inputs.

Processes read their own texts (:func:`sign_reader`): each worker opens the same input through
the one reader (:meth:`neardup.inputs.CorpusReader.shard`: a plain JSONL file in byte slices
read by :func:`neardup.inputs.read_slice`, as dedup's workers read theirs; other input in
blocks of positions) and signs the blocks of its share,
sending back ids and signatures only; the parent never holds a text, and puts the blocks back
in order. A worker inherits its warmed-up :class:`~neardup.sketch.minhash.MinHasher` by fork
on Linux (the Unicode tables and kernels come from their disk caches elsewhere).
:func:`choose_executor` is the rule ``--executor auto`` follows.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from neardup._processes import run_watched, start_method, worker_pool
from neardup.defaults import DEFAULTS
from neardup.errors import InputError
from neardup.spec import Spec

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess
    from multiprocessing.queues import Queue

    from neardup.inputs import CorpusReader

Chunk = tuple[list[str], npt.NDArray[Any]]

#: Inputs of at least this many bytes (on disk, compressed or not) may be signed by worker
#: processes: under ``auto`` when threads would be capped by the GIL, and under ``process``.
#: Below it a worker's start and its reading the input through cost more than they save, and
#: :func:`sign_reader` signs with threads instead (benchmarks/sign_speed.py tries the sizes
#: around it).
PROCESS_MIN_BYTES = 4_000_000

_hashers: dict[str, Any] = {}
_hashers_lock = threading.Lock()


def _hasher(spec_json: str) -> Any:
    """The process's :class:`~neardup.sketch.minhash.MinHasher` of a spec, shared by its
    threads: one analyzer, one dictionary table and one table of the forms learned, read by
    every thread's kernels (a thread of its own would build and fill them again)."""
    hasher = _hashers.get(spec_json)
    if hasher is None:
        from neardup.sketch.minhash import MinHasher

        with _hashers_lock:
            hasher = _hashers.get(spec_json)
            if hasher is None:
                if len(_hashers) >= 8:  # a long-lived process signing under many specs
                    _hashers.clear()
                hasher = _hashers[spec_json] = MinHasher(Spec.from_json(spec_json))
    return hasher


def _sign_chunk(spec_json: str, texts: list[str]) -> npt.NDArray[Any]:
    return _hasher(spec_json).sign_texts(texts)


def _chunks(
    docs: Iterable[tuple[str, str]], size: int, max_chars: int
) -> Iterator[tuple[list[str], list[str]]]:
    """Blocks of at most ``size`` documents and about ``max_chars`` characters (a block closes
    once it reaches either), so long texts (novels) do not pile up in one batch."""
    ids: list[str] = []
    texts: list[str] = []
    chars = 0
    for doc_id, text in docs:
        ids.append(doc_id)
        texts.append(text)
        chars += len(text)
        if len(texts) >= size or chars >= max_chars:
            yield ids, texts
            ids, texts, chars = [], [], 0
    if texts:
        yield ids, texts


def default_jobs() -> int:
    """The CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


#: The most workers ``jobs`` takes (as the CLI's ``--jobs``: neardup.cli._types.MAX_JOBS).
MAX_JOBS = 1024


def workers_for(jobs: int) -> int:
    """How many workers ``jobs`` asks for, by the one meaning ``--jobs`` has in every command:
    how many workers the command may keep busy, 0 for one per CPU (:func:`default_jobs`);
    anything else than an integer in ``[0, MAX_JOBS]`` is an :class:`InputError`."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 0 <= jobs <= MAX_JOBS:
        raise InputError(
            f"jobs must be an integer from 0 (one per CPU) to {MAX_JOBS}, got {jobs!r}"
        )
    return jobs or default_jobs()


def sign_stream(
    spec: Spec,
    docs: Iterable[tuple[str, str]],
    *,
    jobs: int = DEFAULTS.jobs,
    batch_size: int = 256,
    max_chars: int = 4_000_000,
    executor: Literal["process", "thread"] = "process",
) -> Iterator[Chunk]:
    """Sign ``(id, text)`` pairs in chunks of ``batch_size`` documents (or ``max_chars``
    characters); yield ``(ids, signatures)`` in input order. ``jobs > 1`` signs chunks in
    parallel in worker processes (or threads); 0 is one per CPU (:func:`workers_for`)."""
    jobs = workers_for(jobs)
    if batch_size < 1:
        raise InputError(f"the batch size must be at least 1, got {batch_size}")
    if executor not in ("process", "thread"):
        raise InputError(f"executor must be 'process' or 'thread', got {executor!r}")
    spec_json = spec.to_json()
    chunks = _chunks(docs, batch_size, max_chars)
    if jobs > 1:
        # an input of one chunk has nothing to share: workers would only add their start
        first = list(itertools.islice(chunks, 2))
        if len(first) == 2:
            chunks = itertools.chain(first, chunks)
        else:
            jobs, chunks = 1, iter(first)
    if jobs == 1:
        for ids, texts in chunks:
            yield ids, _sign_chunk(spec_json, texts)
        return
    pool = _pool(spec_json, jobs, executor)
    pending: deque[tuple[list[str], Future[npt.NDArray[Any]]]] = deque()
    try:
        for ids, texts in chunks:
            pending.append((ids, pool.submit(_sign_chunk, spec_json, texts)))
            if len(pending) >= 2 * jobs:
                done_ids, future = pending.popleft()
                yield done_ids, future.result()
        while pending:
            done_ids, future = pending.popleft()
            yield done_ids, future.result()
    finally:
        for _, future in pending:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


def _pool(spec_json: str, jobs: int, executor: str) -> Executor:
    """``jobs`` workers of ``executor``'s kind for :func:`sign_stream` (threads in a daemonic
    process, a pool's worker, which may not start processes)."""
    import multiprocessing

    if executor == "process" and not multiprocessing.current_process().daemon:
        # On Linux, fork: a worker starts in milliseconds with the parent's loaded kernels and
        # analyzer (built and warmed here first: the analyzer builds its Unicode tables on first
        # use, which would otherwise cost every worker a second or more); spawn and forkserver
        # re-import numpy, numba and the analyzer in every worker. Workers touch no lock the
        # parent's threads use.
        _hasher(spec_json).sign_texts(["Warm-up: тёплый текст, <b>html</b> ﬁ №1."])
        return worker_pool(jobs)
    return ThreadPoolExecutor(max_workers=jobs)


def sign_all(spec: Spec, texts: Iterable[str], **options: Any) -> npt.NDArray[Any]:
    """All signatures of ``texts`` as one ``(n, N)`` array (see :func:`sign_stream`)."""
    parts = [
        sig for _, sig in sign_stream(spec, ((str(i), t) for i, t in enumerate(texts)), **options)
    ]
    if not parts:
        from neardup.sketch.minhash import MinHasher

        hasher = MinHasher(spec)
        return np.zeros((0, hasher.num_perm), dtype=hasher.dtype)
    return np.concatenate(parts)


def choose_executor(spec: Spec, total_bytes: int, jobs: int) -> Literal["thread", "process"]:
    """What ``--executor auto`` runs ``jobs`` workers with: threads when one nogil kernel call
    signs a whole batch (they scale), or when the input is small (below
    :data:`PROCESS_MIN_BYTES`: threads are never slower than one core); processes otherwise."""
    from neardup.sketch.minhash import MinHasher

    if jobs <= 1 or MinHasher(spec).signs_in_batches or total_bytes < PROCESS_MIN_BYTES:
        return "thread"
    return "process"


def executor_that_runs(
    spec: Spec, total_bytes: int, jobs: int, executor: Literal["process", "thread", "auto"]
) -> Literal["thread", "process"]:
    """What :func:`sign_reader` signs an input of ``total_bytes`` with when asked for
    ``executor``: ``auto`` as :func:`choose_executor` decides; ``process`` only from
    :data:`PROCESS_MIN_BYTES` (below it, workers' start and their reading the input through
    cost more than they save: processes would be slower than one core), threads otherwise."""
    if executor == "auto":
        return choose_executor(spec, total_bytes, jobs)
    if executor == "process" and total_bytes < PROCESS_MIN_BYTES:
        return "thread"
    return executor


def _sign_share(
    spec_json: str,
    reader: CorpusReader,
    part: int,
    parts: int,
    block: int,
    max_chars: int,
    out: Queue[tuple[Any, ...]],
) -> None:
    """A worker: sign the blocks of share ``part`` and put ``("block", index, ids, values,
    bytes read)`` for each, then ``("done", documents, bytes read, skipped, warnings)``, or
    ``("error", exception)``."""
    from dataclasses import replace

    try:
        warnings: list[str] = []
        reader.options = replace(reader.options, on_warning=warnings.append)
        current = -1
        ids: list[str] = []
        texts: list[str] = []
        parts_done: list[npt.NDArray[Any]] = []
        chars = 0

        def flush() -> None:
            nonlocal texts, chars
            if texts:
                parts_done.append(_sign_chunk(spec_json, texts))
            texts, chars = [], 0

        for index, doc in reader.shard(part, parts, block):
            if index != current:
                flush()
                if ids:
                    out.put(("block", current, ids, np.concatenate(parts_done), reader.bytes_read))
                current, ids, parts_done = index, [], []
            ids.append(doc.id)
            texts.append(doc.text)
            chars += len(doc.text)
            if chars >= max_chars:  # long texts (novels) do not pile up in one batch
                flush()
        flush()
        if ids:
            out.put(("block", current, ids, np.concatenate(parts_done), reader.bytes_read))
        out.put(("done", reader.documents, reader.bytes_read, reader.skipped, warnings))
    except BaseException as exc:  # noqa: BLE001 - handed to the parent, which raises it
        out.put(("error", exc))


def sign_reader(
    spec: Spec,
    reader: CorpusReader,
    *,
    jobs: int = DEFAULTS.jobs,
    batch_size: int = 256,
    max_chars: int = 4_000_000,
    executor: Literal["process", "thread", "auto"] = "auto",
) -> Iterator[Chunk]:
    """Sign every document of ``reader``; yield ``(ids, signatures)`` in input order. With
    threads (or one job) the texts are read here and signed as :func:`sign_stream` does; with
    processes each worker reads its own share of the input and only ids and signatures come
    back. ``reader`` counts what was read either way (``documents``, ``bytes_read``).

    Processes run only on an input of at least :data:`PROCESS_MIN_BYTES` (on disk), whether
    chosen by ``auto`` or asked for: a smaller one is signed by threads here. ``jobs`` 0 is
    one per CPU (:func:`workers_for`)."""
    jobs = workers_for(jobs)
    executor = executor_that_runs(spec, reader.total_bytes, jobs, executor)
    if jobs <= 1 or executor == "thread":
        yield from sign_stream(
            spec,
            ((doc.id, doc.text) for doc in reader),
            jobs=jobs,
            batch_size=batch_size,
            max_chars=max_chars,
            executor="thread",
        )
        return
    if executor != "process":
        raise InputError(f"executor must be 'process', 'thread' or 'auto', got {executor!r}")
    if batch_size < 1:
        raise InputError(f"the batch size must be at least 1, got {batch_size}")
    yield from _sign_in_processes(spec, reader, jobs, batch_size, max_chars)


def _sign_in_processes(
    spec: Spec, reader: CorpusReader, jobs: int, block: int, max_chars: int
) -> Iterator[Chunk]:
    import multiprocessing

    spec_json = spec.to_json()
    # warmed before the fork, so workers inherit the loaded kernels and tables (see sign_stream)
    _hasher(spec_json).sign_texts(["Warm-up: тёплый текст, <b>html</b> ﬁ №1."])
    context = multiprocessing.get_context(start_method())
    queues: list[Queue[tuple[Any, ...]]] = [context.Queue(maxsize=2) for _ in range(jobs)]
    workers: list[BaseProcess] = [
        context.Process(  # type: ignore[attr-defined]
            target=run_watched,  # a worker blocked on a full queue ends if this process dies
            args=(
                os.getpid(),
                _sign_share,
                spec_json,
                reader,
                part,
                jobs,
                block,
                max_chars,
                queues[part],
            ),
            daemon=True,
        )
        for part in range(jobs)
    ]
    for worker in workers:
        worker.start()
    finals: list[tuple[Any, ...] | None] = [None] * jobs
    peeked: list[tuple[Any, ...] | None] = [None] * jobs
    try:
        index = 0
        while any(final is None for final in finals):
            part = index % jobs
            index += 1
            if finals[part] is not None:
                continue
            message = peeked[part] or queues[part].get()
            peeked[part] = None
            if message[0] == "error":
                raise message[1]
            if message[0] == "done":
                finals[part] = message
            elif message[1] == index - 1:
                reader.bytes_read = max(reader.bytes_read, message[4])
                yield message[2], message[3]
            else:  # block ``index - 1`` held no document; this share's next block is later
                peeked[part] = message
    finally:
        for worker in workers:
            if worker.is_alive() and any(final is None for final in finals):
                worker.terminate()
            worker.join()
        for queue in queues:
            queue.close()
    _absorb(reader, [final for final in finals if final is not None])


def _absorb(reader: CorpusReader, finals: list[tuple[Any, ...]]) -> None:
    """The workers' counts into the parent's reader, and their warnings said once each."""
    seen: set[str] = set()
    for final in finals:
        for message in final[4]:
            if message not in seen:
                seen.add(message)
                reader.options.warn(message)
    reader.absorb(
        sum(final[1] for final in finals),
        max(final[2] for final in finals),
        [entry for final in finals for entry in final[3]],
    )

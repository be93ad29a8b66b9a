"""Signing a stream of texts in chunks, on one core or several, with memory kept flat.

Texts arrive as an iterator and leave as ``(ids, (n, N) array)`` chunks in input order; at most
``2 · jobs`` chunks are in flight, so memory does not grow with the corpus.

Threads or processes? The numba kernels (tokenizer, shingle hashing, MinHash) release the GIL,
but the analyzer's Python parts (char filters such as NFKC and lowercase, token filters) and
the per-document glue hold it, which caps what threads gain. Under a spec the fused analyzer
can run (``plain`` with word shingles and ``rabin`` sets), ``MinHasher.sign_texts`` signs a
whole chunk in ONE nogil kernel call (:mod:`neardup._kernels.sign_batch`), so a thread holds
the GIL only to join and encode its chunk; processes cost more CPU for moving texts and
signatures between processes. benchmarks/sign_speed.py measures both (docs/benchmarks.md,
section "signing"); processes stay the default since other specs (lemmas, stems) are capped
by the GIL. A worker
process builds its :class:`~neardup.sketch.minhash.MinHasher` once from the spec's JSON (on
Linux it inherits the parent's, warmed up before the fork); a thread keeps one per thread.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from neardup.errors import InputError
from neardup.spec import Spec

Chunk = tuple[list[str], npt.NDArray[Any]]

_local = threading.local()


def _hasher(spec_json: str) -> Any:
    from neardup.sketch.minhash import MinHasher

    cached = getattr(_local, "hasher", None)
    if cached is None or cached[0] != spec_json:
        cached = (spec_json, MinHasher(Spec.from_json(spec_json)))
        _local.hasher = cached
    return cached[1]


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


def sign_stream(
    spec: Spec,
    docs: Iterable[tuple[str, str]],
    *,
    jobs: int = 1,
    batch_size: int = 256,
    max_chars: int = 4_000_000,
    executor: Literal["process", "thread"] = "process",
) -> Iterator[Chunk]:
    """Sign ``(id, text)`` pairs in chunks of ``batch_size`` documents (or ``max_chars``
    characters); yield ``(ids, signatures)`` in input order. ``jobs > 1`` signs chunks in
    parallel in worker processes (or threads)."""
    if jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {jobs}")
    if batch_size < 1:
        raise InputError(f"the batch size must be at least 1, got {batch_size}")
    spec_json = spec.to_json()
    if jobs == 1:
        for ids, texts in _chunks(docs, batch_size, max_chars):
            yield ids, _sign_chunk(spec_json, texts)
        return
    pool: Executor
    if executor == "process":
        import multiprocessing

        # On Linux, fork: a worker starts in milliseconds with the parent's loaded kernels and
        # analyzer (built and warmed here first: the analyzer builds its Unicode tables on first
        # use, which would otherwise cost every worker a second or more); spawn and forkserver
        # re-import numpy, numba and the analyzer in every worker. Workers touch no lock the
        # parent's threads use.
        _hasher(spec_json).sign_texts(["Warm-up: тёплый текст, <b>html</b> ﬁ №1."])
        method = "fork" if sys.platform.startswith("linux") else "spawn"
        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(method))
    elif executor == "thread":
        pool = ThreadPoolExecutor(max_workers=jobs)
    else:
        raise InputError(f"executor must be 'process' or 'thread', got {executor!r}")
    pending: deque[tuple[list[str], Future[npt.NDArray[Any]]]] = deque()
    try:
        for ids, texts in _chunks(docs, batch_size, max_chars):
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

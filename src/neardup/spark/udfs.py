"""The functions Spark runs on its executors (``mapInArrow`` over Arrow batches): signing,
the pairs of each bucket, and the scores of pairs, by the local engine's own functions. They
are at module level so that they pickle by reference (the executors import this module)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from neardup.corpus import bucket_pairs, estimated_scores, exact_scores, sign_chunk
from neardup.spec import Spec


def _binary_values(column: Any, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """Flat values and offsets (in elements) of an Arrow binary column of packed arrays."""
    import pyarrow as pa

    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if arr.type != pa.large_binary():
        arr = arr.cast(pa.large_binary())
    n = len(arr)
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset : arr.offset + n + 1]
    data = arr.buffers()[2]
    itemsize = np.dtype(dtype).itemsize
    start, stop = int(offsets[0]), int(offsets[-1])
    raw = np.frombuffer(data, dtype=np.uint8)[start:stop] if data is not None else np.zeros(0)
    values = np.frombuffer(raw.tobytes(), dtype=dtype)
    return values, (offsets - start) // itemsize


def _sign_batches(
    batches: Iterator[Any], spec_json: str, exact: bool, keep_field: str | None
) -> Iterator[Any]:
    """Each document's signature, fingerprint set and band keys, by the local engine's
    :func:`~neardup.corpus.sign_chunk`."""
    import pyarrow as pa

    from neardup.sketch.supershingles import Banding

    spec = Spec.from_json(spec_json)
    assert spec.sketch is not None
    banding = Banding(spec.sketch)
    for batch in batches:
        texts = [t if t is not None else "" for t in batch.column("text").to_pylist()]
        sigs, values, set_sizes, _ = sign_chunk(spec_json, texts, exact)
        keys = banding.keys(sigs).view(np.int64)
        offsets = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(set_sizes, out=offsets[1:])
        fps = [values[offsets[i] : offsets[i + 1]].tobytes() for i in range(len(texts))]
        columns = {
            "id": batch.column("id"),
            "order": batch.column("order"),
            "length": pa.array([len(t) for t in texts], pa.int64()),
            "sig": pa.array([row.tobytes() for row in sigs], pa.large_binary()),
            "fps": pa.array(fps, pa.large_binary()),
            "keys": pa.array(list(keys), pa.list_(pa.int64())),
        }
        if keep_field is not None:
            columns["keep_value"] = batch.column("keep_value")
        yield pa.RecordBatch.from_pydict(columns)


def _pair_batches(batches: Iterator[Any], bucket_window: int) -> Iterator[Any]:
    """Each bucket's candidate pairs by the local engine's bucket window rule."""
    import pyarrow as pa

    for batch in batches:
        members = batch.column("members")
        flat = np.asarray(members.flatten().to_numpy(zero_copy_only=False), dtype=np.int64)
        lengths = np.asarray(members.value_lengths().to_numpy(zero_copy_only=False))
        bucket = np.repeat(np.arange(len(batch), dtype=np.uint64), lengths)
        a, b, _, _ = bucket_pairs(bucket, bucket_window)
        ra, rb = flat[a], flat[b]
        yield pa.RecordBatch.from_pydict(
            {"a": np.minimum(ra, rb), "b": np.maximum(ra, rb)},
        )


def _score_batches(
    batches: Iterator[Any], exact: bool, value_bits: int, num_perm: int, rounded: bool = False
) -> Iterator[Any]:
    """Each pair's measures; ``rounded``: to six decimals by Python's ``round`` on the exact
    double, as the local engine writes them (Spark's ``round`` goes half up on the decimal
    string, and a tie such as 81/128 = 0.6328125 would come out 0.632813, not 0.632812)."""
    import pyarrow as pa

    from neardup.sketch.minhash import empty_value

    for batch in batches:
        m = len(batch)
        if exact:
            va, oa = _binary_values(batch.column("fa"), np.uint64)
            vb, ob = _binary_values(batch.column("fb"), np.uint64)
            values = np.concatenate([va, vb]) if m else np.zeros(1, np.uint64)
            offsets = np.concatenate([oa, ob[1:] + oa[-1]])
            idx = np.arange(m, dtype=np.int64)
            scores = exact_scores(values, offsets, None, idx, idx + m)
            cols = {
                "resemblance": scores.resemblance,
                "containment_ab": scores.containment_ab,
                "containment_ba": scores.containment_ba,
            }
        else:
            dtype = np.uint64 if value_bits == 64 else np.uint32
            sa, _ = _binary_values(batch.column("fa"), dtype)
            sb, _ = _binary_values(batch.column("fb"), dtype)
            sigs = np.concatenate([sa, sb]).reshape(2 * m, num_perm)
            idx = np.arange(m, dtype=np.int64)
            scores = estimated_scores(sigs, empty_value(value_bits), idx, idx + m)
            cols = {"resemblance": scores.resemblance}
        out = {"a": batch.column("a"), "b": batch.column("b")}
        if rounded:
            cols = {
                k: np.array([round(float(x), 6) for x in np.asarray(v)]) for k, v in cols.items()
            }
        out.update({k: pa.array(v, pa.float64()) for k, v in cols.items()})
        yield pa.RecordBatch.from_pydict(out)

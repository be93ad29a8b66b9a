"""The cleaning stages on Spark (:class:`neardup.corpus.cleaning.CleanOptions`), by the local
engine's functions: exact copies by content hash (:func:`exact_copies`: each copy's first
document, found by a group-by of the hashes), and the repeated spans of the kept documents
(:func:`repeated_spans`: span tables made on the executors, their distinct keys counted by a
group-by, the spans of keys in more than ``span_docs`` documents joined back and brought to
the driver, which cuts them while it writes the records, as the local engine does)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from neardup.corpus.cleaning import CleanOptions, content_hashes, span_tables
from neardup.errors import NotSupportedError


def _hash_batches(batches: Iterator[Any], spec_json: str, mode: str) -> Iterator[Any]:
    """Each document's content hash (null: an empty text, nobody's copy)."""
    import pyarrow as pa

    for batch in batches:
        texts = [t if t is not None else "" for t in batch.column("text").to_pylist()]
        hashes = content_hashes(spec_json, mode, texts)
        yield pa.RecordBatch.from_pydict(
            {"order": batch.column("order"), "hash": pa.array(hashes, pa.binary())}
        )


def check_clean(clean: CleanOptions) -> None:
    """Refuse, before any work, what the Spark engine does not do: approximate counting."""
    if clean.level != "off" and clean.span_counting != "exact":
        raise NotSupportedError(
            "the Spark engine counts repeated spans exactly (by a group-by); approximate "
            "counting (--span-counting approximate) is the local engine's",
            code="spark_span_counting",
        )


def exact_copies(source: Any, spec_json: str, mode: str) -> Any:
    """``(a, b)``: ``b`` an exact copy of ``a``, the first document (by ``order``) with its
    hash."""
    from pyspark.sql import functions as F

    hashed = source.select("order", "text").mapInArrow(
        lambda it: _hash_batches(it, spec_json, mode), "order long, hash binary"
    )
    hashed = hashed.where(F.col("hash").isNotNull())
    firsts = hashed.groupBy("hash").agg(F.min("order").alias("a"))
    return (
        hashed.join(firsts, "hash")
        .where(F.col("order") != F.col("a"))
        .select("a", F.col("order").alias("b"))
    )


def without_copies(pairs: Any, copies: Any) -> Any:
    """The candidate pairs that join no exact copy (``copies``: ``(a, b)``, or ``None``)."""
    from pyspark.sql import functions as F

    if copies is None:
        return pairs
    for end in ("a", "b"):
        pairs = pairs.join(copies.select(F.col("b").alias(end)), end, "left_anti")
    return pairs


def with_copy_edges(edges: Any, copies: Any) -> Any:
    """The verified edges and an edge of measure 1 from each exact copy's first to it."""
    from pyspark.sql import functions as F

    if copies is None:
        return edges
    ones = [F.lit(1.0).alias(c) for c in edges.columns if c not in ("a", "b")]
    return edges.unionByName(copies.select("a", "b", *ones))


def _span_batches(batches: Iterator[Any], spec_json: str, level: str) -> Iterator[Any]:
    """Each kept document's span table, as the local engine's ``spans`` stage makes it."""
    import pyarrow as pa

    for batch in batches:
        texts = [t if t is not None else "" for t in batch.column("text").to_pylist()]
        tables = span_tables(spec_json, level, texts)
        yield pa.RecordBatch.from_pydict(
            {
                "order": batch.column("order"),
                "total": pa.array([t.total_tokens for t in tables], pa.int64()),
                "starts": pa.array([t.starts.tolist() for t in tables], pa.list_(pa.int64())),
                "ends": pa.array([t.ends.tolist() for t in tables], pa.list_(pa.int64())),
                "keys": pa.array(
                    [t.keys.view(np.int64).tolist() for t in tables], pa.list_(pa.int64())
                ),
                "tokens": pa.array([t.tokens.tolist() for t in tables], pa.list_(pa.int64())),
                "distinct": pa.array(
                    [t.distinct_keys().view(np.int64).tolist() for t in tables],
                    pa.list_(pa.int64()),
                ),
            }
        )


def repeated_spans(
    kept: Any, spec_json: str, clean: CleanOptions
) -> tuple[dict[int, tuple[Any, Any, Any, bool]], dict[str, int]]:
    """The spans to cut from each kept document (``kept``: ``order`` and ``text`` of the kept
    documents) by ``order``: starts, ends, document counts and whether it is dropped; and the
    counts of the summary (documents counted, repeated keys)."""
    from pyspark.sql import functions as F

    from neardup.spark.components import checkpoint

    tables = checkpoint(
        kept.select("order", "text").mapInArrow(
            lambda it: _span_batches(it, spec_json, clean.level),
            "order long, total long, starts array<long>, ends array<long>, keys array<long>, "
            "tokens array<long>, distinct array<long>",
        )
    )
    counts = (
        tables.select(F.explode("distinct").alias("key"))
        .groupBy("key")
        .count()
        .where(F.col("count") > clean.span_docs)
    )
    counts = checkpoint(counts)
    spans = tables.select(
        "order",
        "total",
        F.explode(F.arrays_zip("starts", "ends", "keys", "tokens")).alias("s"),
    ).select(
        "order",
        "total",
        F.col("s.starts").alias("start"),
        F.col("s.ends").alias("end"),
        F.col("s.keys").alias("key"),
        F.col("s.tokens").alias("tokens"),
    )
    removed = spans.where(F.col("tokens") > 0).join(counts, "key")
    rows = removed.select("order", "total", "start", "end", "count", "tokens").orderBy(
        "order", "start"
    )
    by_doc: dict[int, list[Any]] = {}
    totals: dict[int, int] = {}
    for row in rows.toLocalIterator():
        order = int(row["order"])
        by_doc.setdefault(order, []).append(row)
        totals[order] = int(row["total"])
    cuts: dict[int, tuple[Any, Any, Any, bool]] = {}
    for order, found in by_doc.items():
        left = totals[order] - sum(int(r["tokens"]) for r in found)
        cuts[order] = (
            np.array([r["start"] for r in found], np.int64),
            np.array([r["end"] for r in found], np.int64),
            np.array([r["count"] for r in found], np.int64),
            left < clean.span_min_tokens,
        )
    stats = {"documents_counted": int(tables.count()), "repeated_keys": int(counts.count())}
    return cuts, stats

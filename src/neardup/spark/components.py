"""Connected components of an edge DataFrame on Spark (large-star / small-star rounds), and
the checkpoint that cuts an iterated DataFrame's lineage."""

from __future__ import annotations

from typing import Any


def checkpoint(df: Any) -> Any:
    """Cut the lineage of an iterated DataFrame (reliable checkpoint when a directory is set)."""
    if df.sparkSession.sparkContext.getCheckpointDir():
        return df.checkpoint(eager=True)
    return df.localCheckpoint(eager=True)


def _fingerprint(edges: Any) -> tuple[int, int]:
    from pyspark.sql import functions as F

    row = edges.agg(
        F.count(F.lit(1)).alias("n"),
        F.coalesce(F.sum(F.xxhash64("u", "v").cast("decimal(38,0)")), F.lit(0)).alias("h"),
    ).first()
    return int(row["n"]), int(row["h"])


def connected_components(edges: Any, max_rounds: int = 100) -> Any:
    """``(node, root)`` for every node that has an edge, ``root`` the smallest node of its
    component: alternating large-star and small-star rounds over the ``(a, b)`` edges,
    checkpointed every round, until the edge set no longer changes."""
    from pyspark.sql import functions as F

    e = edges.select(F.least("a", "b").alias("v"), F.greatest("a", "b").alias("u")).where(
        F.col("u") != F.col("v")
    )
    e = checkpoint(e.select("u", "v").distinct())
    before = _fingerprint(e)
    for _ in range(max_rounds):
        # large-star: every node links its larger neighbours to its smallest neighbour (or itself)
        both = e.select("u", "v").union(e.select(F.col("v").alias("u"), F.col("u").alias("v")))
        m = both.groupBy("u").agg(F.min("v").alias("m"))
        large = (
            both.join(m, "u")
            .where(F.col("v") > F.col("u"))
            .select(F.col("v").alias("u"), F.least("m", "u").alias("v"))
            .where(F.col("u") != F.col("v"))
            .distinct()
        )
        # small-star: every node links itself and its smaller neighbours to the smallest of them
        small_m = large.groupBy("u").agg(F.min("v").alias("m"))
        small = (
            large.join(small_m, "u")
            .select(F.col("v").alias("u"), F.col("m").alias("v"))
            .union(small_m.select("u", F.col("m").alias("v")))
            .where(F.col("u") != F.col("v"))
            .distinct()
        )
        e = checkpoint(small)
        after = _fingerprint(e)
        if after == before:
            break
        before = after
    roots = e.select("v").distinct().select(F.col("v").alias("node"), F.col("v").alias("root"))
    return e.select(F.col("u").alias("node"), F.col("v").alias("root")).union(roots).distinct()

"""The dedup as DataFrame operations (:func:`dedup_dataframe`): sign, candidates, verify,
groups, keep — the stages of the package docstring — planned on the driver."""

from __future__ import annotations

from typing import Any

from neardup.corpus import ADDED_FIELDS, DedupOptions, dedup_spec, parse_keep
from neardup.errors import NotSupportedError
from neardup.spark.clean import exact_copies, with_copy_edges, without_copies
from neardup.spark.components import checkpoint, connected_components
from neardup.spark.udfs import _pair_batches, _score_batches, _sign_batches
from neardup.spec import Spec


def _score(pairs: Any, signed: Any, exact: bool, spec: Spec, rounded: bool = False) -> Any:
    from pyspark.sql import functions as F

    assert spec.sketch is not None
    col = "fps" if exact else "sig"
    left = signed.select(F.col("order").alias("a"), F.col(col).alias("fa"))
    right = signed.select(F.col("order").alias("b"), F.col(col).alias("fb"))
    joined = pairs.join(left, "a").join(right, "b").select("a", "b", "fa", "fb")
    schema = "a long, b long, resemblance double" + (
        ", containment_ab double, containment_ba double" if exact else ""
    )
    value_bits, num_perm = spec.sketch.value_bits, spec.sketch.num_perm
    return joined.mapInArrow(
        lambda it: _score_batches(it, exact, value_bits, num_perm, rounded), schema
    )


def _measure(scored: Any, measure: str) -> Any:
    from pyspark.sql import functions as F

    if measure == "containment":
        return F.greatest(scored["containment_ab"], scored["containment_ba"])
    return scored["resemblance"]


def _copies_ranked_as_first(docs: Any, copies: Any, has_keep_value: bool) -> Any:
    """Each exact copy given its first copy's length and keep value, as the local engine ranks
    it: ties go to the first in input order, so a copy is never kept over its first."""
    from pyspark.sql import functions as F

    columns = ["length", *(["keep_value"] if has_keep_value else [])]
    firsts = docs.select(
        F.col("order").alias("a"), *(F.col(c).alias(f"first_{c}") for c in columns)
    )
    link = copies.join(firsts, "a").select(
        F.col("b").alias("order"), F.lit(True).alias("is_copy"), *(f"first_{c}" for c in columns)
    )
    docs = docs.join(link, "order", "left")
    for c in columns:
        docs = docs.withColumn(
            c, F.when(F.col("is_copy").isNotNull(), F.col(f"first_{c}")).otherwise(F.col(c))
        )
    return docs.drop("is_copy", *(f"first_{c}" for c in columns))


def dedup_dataframe(
    df: Any,
    options: DedupOptions | None = None,
    *,
    spec: Spec | None = None,
    edges_out: list[Any] | None = None,
    exact_mode: str = "off",
) -> Any:
    """Every row of a DataFrame of ``id`` and ``text`` (and ``order``, else
    ``monotonically_increasing_id()``; with ``keep='max:F'`` or ``'min:F'`` a column ``F``)
    with the local engine's added fields: its columns (``id`` as a string, a null ``text`` as
    ``""``, a column named like an added field replaced) then ``group`` (the id of the group's
    first document), ``kept``, ``similarity``, ``representative``, and ``order`` last.
    ``options`` are the local engine's (:class:`neardup.corpus.DedupOptions`, default
    ``DedupOptions()``). ``edges_out``, when given a list, receives the verified-edge
    DataFrame ``(a, b, resemblance[, containment_ab, containment_ba])`` in ``order``
    numbers (and, with ``exact_mode``, then the ``(a, b)`` pairs of exact copies).
    ``exact_mode`` (``canonical`` or ``raw``, as ``CleanOptions.exact``): exact copies found
    first by content hash, each joined to its first copy by an edge of measure 1 and left out
    of the candidate pairs, as the local engine does."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from neardup.fingerprints.pipeline import default_spec

    options = options if options is not None else DedupOptions()
    threshold, measure = options.threshold, options.measure
    # ``DedupOptions.window`` is the bucket window (named ``window`` for --window, spec.json)
    bucket_window = options.window
    full = dedup_spec(spec if spec is not None else default_spec(), options)
    assert full.sketch is not None
    if full.fingerprint_family.multiset:
        raise NotSupportedError("the Spark engine deduplicates sets, not multisets")
    rule, keep_field = parse_keep(options.keep)
    exact = options.verify == "exact"
    if "order" not in df.columns:
        df = df.withColumn("order", F.monotonically_increasing_id())
    cols = [F.col("id").cast("string").alias("id"), F.col("text"), F.col("order").cast("long")]
    if keep_field is not None:
        cols.append(F.col(keep_field).alias("keep_value"))
    source = df.select(*cols)
    spec_json = full.to_json()
    keep_type = (
        ""
        if keep_field is None
        else f", keep_value {source.schema['keep_value'].dataType.simpleString()}"
    )
    signed = source.mapInArrow(
        lambda it: _sign_batches(it, spec_json, exact, keep_field),
        "id string, order long, length long, sig binary, fps binary, keys array<long>" + keep_type,
    )
    signed = checkpoint(signed)

    band_rows = signed.select("order", F.posexplode("keys").alias("band", "key"))
    buckets = (
        band_rows.groupBy("band", "key")
        .agg(F.array_sort(F.collect_list("order")).alias("members"))
        .where(F.size("members") > 1)
        .select("members")
    )
    pairs = buckets.mapInArrow(
        lambda it: _pair_batches(it, bucket_window), "a long, b long"
    ).distinct()
    copies = None
    if exact_mode != "off":
        copies = checkpoint(exact_copies(source, spec_json, exact_mode))
    pairs = without_copies(pairs, copies)
    scored = _score(pairs, signed, exact, full)
    edges = with_copy_edges(scored.where(_measure(scored, measure) >= threshold), copies)
    edges = checkpoint(edges)
    if edges_out is not None:
        edges_out.append(edges)
        if copies is not None:  # second: the exact copies' (first, copy) pairs
            edges_out.append(copies)

    labels = connected_components(edges)
    docs = (
        signed.select("id", "order", "length", *(["keep_value"] if keep_field else []))
        .join(labels, signed["order"] == labels["node"], "left")
        .withColumn("root", F.coalesce("root", "order"))
        .drop("node")
    )
    if copies is not None and rule != "first":
        docs = _copies_ranked_as_first(docs, copies, keep_field is not None)
    if rule == "first":
        priority = [F.col("order").asc()]
    elif rule == "longest":
        priority = [F.col("length").desc(), F.col("order").asc()]
    elif rule == "max":
        priority = [F.col("keep_value").desc_nulls_last(), F.col("order").asc()]
    else:
        priority = [F.col("keep_value").asc_nulls_last(), F.col("order").asc()]
    w = Window.partitionBy("root").orderBy(*priority)
    first_w = Window.partitionBy("root").orderBy(F.col("order").asc())
    docs = docs.withColumn("rep_order", F.first("order").over(w)).withColumn(
        "group", F.first("id").over(first_w)
    )
    docs = docs.withColumn("rep", F.first("id").over(w))
    docs = checkpoint(docs)
    members = docs.where(F.col("order") != F.col("rep_order")).select(
        F.col("order").alias("a"), F.col("rep_order").alias("b")
    )
    to_rep = _score(members, signed, exact, full, rounded=True)
    to_rep = to_rep.select(F.col("a").alias("order"), _measure(to_rep, measure).alias("sim"))
    added = docs.join(to_rep, "order", "left").select(
        "order",
        "group",
        (F.col("order") == F.col("rep_order")).alias("kept"),
        F.coalesce("sim", F.lit(1.0)).alias("similarity"),
        F.col("rep").alias("representative"),
    )
    # the input's own columns, as the local engine writes a record: id, text, the others
    others = [c for c in df.columns if c not in ("id", "text", "order", *ADDED_FIELDS)]
    record = df.select(
        F.col("order").cast("long").alias("order"),
        F.col("id").cast("string").alias("id"),
        F.coalesce(F.col("text"), F.lit("")).alias("text"),
        *others,
    )
    return record.join(added, "order").select(
        "id", "text", *others, "group", "kept", "similarity", "representative", "order"
    )

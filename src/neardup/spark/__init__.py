"""The dedup of :mod:`neardup.corpus` on Apache Spark (``pip install 'neardup[spark]'``).

:func:`dedup_dataframe` takes a DataFrame with ``id`` and ``text`` (and optionally an
``order`` column: input order, for the ``first`` keep rule and the bucket window) and returns
``(id, group, kept, similarity, representative)``. The stages are the local engine's, as
DataFrame operations:

1. **sign** — ``mapInArrow`` over Arrow batches: the same :func:`neardup.corpus.sign_chunk`
   (the spec's pipeline and MinHasher, built once per Python worker from the spec's JSON)
   gives each document its signature, fingerprint set (exact verification) and band keys.
2. **candidates** — ``(band, key)`` rows shuffled by ``(band, key)``; each bucket's members
   (sorted by ``order``) become pairs by the same window rule as the local engine
   (:func:`neardup.corpus.bucket_pairs`, vectorized over an Arrow batch of buckets).
3. **verify** — pairs joined with both documents' fingerprint sets (or signatures) and
   scored on the executors by :func:`neardup.corpus.exact_scores` /
   :func:`~neardup.corpus.estimated_scores`; pairs under the threshold are dropped.
4. **groups** — connected components by alternating large-star and small-star rounds
   (Kiveris et al., "Connected Components in MapReduce and Beyond", 2014) on the edge
   DataFrame, checkpointed every round; every component ends as a star around its smallest
   ``order``. The edge set never comes to the driver.
5. **keep** — a window over each group picks the kept document by the keep rule, and the
   similarity of every member to it is scored like stage 3.

Same spec, same input order, same options → the same groups as the local engine.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from neardup.corpus import (
    ADDED_FIELDS,
    SPEC_FILE,
    SUMMARY_FILE,
    DedupOptions,
    bucket_pairs,
    dedup_spec,
    estimated_scores,
    exact_scores,
    parse_keep,
    read_documents,
    sign_chunk,
)
from neardup.errors import MissingDependencyError, NotSupportedError, require
from neardup.spec import Spec

__all__ = ["dedup_dataframe", "dedup_files", "session"]


_LOG4J = """rootLogger.level = error
rootLogger.appenderRef.stderr.ref = stderr
appender.stderr.type = Console
appender.stderr.name = stderr
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def _log4j() -> str:
    """A log4j2 configuration that lets only errors through (written once to a temp file)."""
    import tempfile

    path = os.path.join(tempfile.gettempdir(), "neardup-spark-log4j2.properties")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(_LOG4J)
    return path


def session(
    master: str = "local[2]",
    *,
    app_name: str = "neardup-dedup",
    shuffle_partitions: int = 8,
    conf: dict[str, str] | None = None,
) -> Any:
    """A quiet SparkSession (no UI, warnings only, Arrow on), or one clear error when Spark
    cannot start (no Java, most often). ``master``: ``local[N]`` (one JVM), a cluster's URL
    (``spark://host:7077``, ``yarn``), or ``local-cluster[W,C,MB]``: W workers of C cores and
    MB MiB on this machine, each executor a JVM of its own (its memory defaults to MB)."""
    require("pyspark", "spark")
    from pyspark.sql import SparkSession

    java_home = os.environ.get("JAVA_HOME")
    if not shutil.which("java") and not (java_home and os.path.exists(java_home)):
        raise MissingDependencyError(
            "Spark cannot start: no Java found (install Debian's openjdk-17-jre-headless, "
            "or set JAVA_HOME)"
        )
    # the Python workers run this interpreter (where neardup is installed), unless told otherwise
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # the driver JVM reads its log4j configuration at start-up: errors only
    log4j = f"-Dlog4j2.configurationFile=file:{_log4j()}"
    if log4j not in os.environ.get("SPARK_SUBMIT_OPTS", ""):
        os.environ["SPARK_SUBMIT_OPTS"] = (
            os.environ.get("SPARK_SUBMIT_OPTS", "") + " " + log4j
        ).strip()
    import warnings

    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{_log4j()}")
    )
    settings = dict(conf or {})
    cluster = re.fullmatch(r"local-cluster\[\s*\d+\s*,\s*\d+\s*,\s*(\d+)\s*\]", master)
    if cluster and "spark.executor.memory" not in settings:
        # Spark's default executor (1g) waits for ever on a smaller worker: take its memory
        settings["spark.executor.memory"] = f"{cluster.group(1)}m"
    for key, value in settings.items():
        builder = builder.config(key, value)
    try:
        spark = builder.getOrCreate()
    except Exception as exc:  # py4j/JVM start-up failures come as plain exceptions
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise MissingDependencyError(f"Spark cannot start: {first}") from None
    spark.sparkContext.setLogLevel("ERROR")
    return spark


# --- executor-side functions (module level: they pickle by reference) ---------------------------


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


def _pair_batches(batches: Iterator[Any], window: int) -> Iterator[Any]:
    import pyarrow as pa

    for batch in batches:
        members = batch.column("members")
        flat = np.asarray(members.flatten().to_numpy(zero_copy_only=False), dtype=np.int64)
        lengths = np.asarray(members.value_lengths().to_numpy(zero_copy_only=False))
        bucket = np.repeat(np.arange(len(batch), dtype=np.uint64), lengths)
        a, b, _, _ = bucket_pairs(bucket, window)
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


# --- driver-side plan --------------------------------------------------------------------------


def _checkpoint(df: Any) -> Any:
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
    e = _checkpoint(e.select("u", "v").distinct())
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
        e = _checkpoint(small)
        after = _fingerprint(e)
        if after == before:
            break
        before = after
    roots = e.select("v").distinct().select(F.col("v").alias("node"), F.col("v").alias("root"))
    return e.select(F.col("u").alias("node"), F.col("v").alias("root")).union(roots).distinct()


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


def dedup_dataframe(
    df: Any,
    options: DedupOptions | None = None,
    *,
    spec: Spec | None = None,
    edges_out: list[Any] | None = None,
) -> Any:
    """Every row of a DataFrame of ``id`` and ``text`` (and ``order``, else
    ``monotonically_increasing_id()``; with ``keep='max:F'`` or ``'min:F'`` a column ``F``)
    with the local engine's added fields: its columns (``id`` as a string, a null ``text`` as
    ``""``, a column named like an added field replaced) then ``group`` (the id of the group's
    first document), ``kept``, ``similarity``, ``representative``, and ``order`` last.
    ``options`` are the local engine's (:class:`neardup.corpus.DedupOptions`, default
    ``DedupOptions()``). ``edges_out``, when given a list, receives the verified-edge
    DataFrame ``(a, b, resemblance[, containment_ab, containment_ba])`` in ``order``
    numbers."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from neardup.fingerprints.pipeline import default_spec

    options = options if options is not None else DedupOptions()
    threshold, measure, window = options.threshold, options.measure, options.window
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
    signed = _checkpoint(signed)

    band_rows = signed.select("order", F.posexplode("keys").alias("band", "key"))
    buckets = (
        band_rows.groupBy("band", "key")
        .agg(F.array_sort(F.collect_list("order")).alias("members"))
        .where(F.size("members") > 1)
        .select("members")
    )
    pairs = buckets.mapInArrow(lambda it: _pair_batches(it, window), "a long, b long").distinct()
    scored = _score(pairs, signed, exact, full)
    edges = _checkpoint(scored.where(_measure(scored, measure) >= threshold))
    if edges_out is not None:
        edges_out.append(edges)

    labels = connected_components(edges)
    docs = (
        signed.select("id", "order", "length", *(["keep_value"] if keep_field else []))
        .join(labels, signed["order"] == labels["node"], "left")
        .withColumn("root", F.coalesce("root", "order"))
        .drop("node")
    )
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
    docs = _checkpoint(docs)
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


def _stage_input(
    inputs: list[str],
    staging: Any,
    keep_field: str | None,
    id_field: str,
    text_field: str,
    input_format: str | None,
    batch_size: int,
) -> list[str]:
    """Stream the input through :func:`neardup.corpus.read_documents` (the one reader) into
    Parquet parts with an ``order`` column; returns the ids in input order."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from neardup.errors import DatasetError

    seen: set[str] = set()
    ids: list[str] = []
    order = 0
    part = 0
    block: list[dict[str, Any]] = []

    def flush() -> None:
        nonlocal part, block
        if block:
            try:
                table = pa.Table.from_pylist(block)
            except UnicodeEncodeError:
                raise DatasetError(
                    "a record holds a lone surrogate (an escape such as \\ud800 in the JSON "
                    "input), which Spark's UTF-8 strings cannot hold; deduplicate it with the "
                    "local engine, which keeps it escaped"
                ) from None
            pq.write_table(table, staging / f"part-{part:05d}.parquet")
            part += 1
            block = []

    for doc_id, text, meta in read_documents(
        inputs, id_field=id_field, text_field=text_field, fmt=input_format
    ):
        if doc_id in seen:
            raise DatasetError(f"duplicate id {doc_id!r}: ids must be unique")
        seen.add(doc_id)
        ids.append(doc_id)
        row: dict[str, Any] = {"id": doc_id, "text": text, "order": order}
        if keep_field is not None:
            row[keep_field] = meta.get(keep_field)
        block.append(row)
        order += 1
        if len(block) >= batch_size:
            flush()
    flush()
    return ids


def dedup_files(
    inputs: list[str],
    out: str | os.PathLike[str],
    options: DedupOptions | None = None,
    *,
    spec: Spec | None = None,
    master: str = "local[2]",
    spark: Any = None,
    output_format: str = "parquet",
    kept_only: bool = False,
    id_field: str = "id",
    text_field: str = "text",
    input_format: str | None = None,
    overwrite: bool = False,
    batch_size: int = 4096,
) -> dict[str, Any]:
    """The CLI's ``--engine spark``: the input is streamed through
    :func:`neardup.corpus.read_documents` (the one reader) into Parquet parts with an ``order``
    column and deduplicated by :func:`dedup_dataframe`; then ``OUT`` gets what the local
    engine writes (through ``OUT.partial``, by its own writers): ``documents.jsonl`` (or
    ``.parquet``: every input record, its text and fields, with the added fields; the input
    is read a second time for them), ``edges.jsonl`` / ``.parquet`` (the verified pairs by
    id), ``summary.json`` and ``spec.json``. Only a few numbers per document and the edges
    come to the driver, as the local engine holds them."""
    import time
    from pathlib import Path

    require("pyarrow", "parquet")
    from neardup.corpus import check_output, publish, write_spec
    from neardup.corpus.output import write_edges, write_records
    from neardup.corpus.progress import StageProgress
    from neardup.corpus.verify import PairScores
    from neardup.errors import DatasetError, InputError
    from neardup.fingerprints.pipeline import default_spec

    if output_format not in ("jsonl", "parquet"):
        raise InputError(f"the output format must be jsonl or parquet, got {output_format!r}")
    opts = options if options is not None else DedupOptions()
    full = dedup_spec(spec if spec is not None else default_spec(), opts)
    out_path = Path(out)
    check_output(out_path, full, opts, overwrite)
    partial = out_path.with_name(out_path.name + ".partial")
    if partial.exists():
        shutil.rmtree(partial)
    staging = partial / "work" / "input"
    staging.mkdir(parents=True)
    started = time.perf_counter()
    seconds: dict[str, float] = {}
    try:
        _, keep_field = parse_keep(opts.keep)
        ids = _stage_input(
            inputs, staging, keep_field, id_field, text_field, input_format, batch_size
        )
        seconds["read"] = time.perf_counter() - started
        if spark is None:  # a session already running in this process is used, not stopped
            from pyspark.sql import SparkSession

            spark = SparkSession.getActiveSession()
        own = spark is None
        spark = spark if spark is not None else session(master)
        try:
            master_url = str(spark.sparkContext.master)  # the session's, when one ran already
            t0 = time.perf_counter()
            if not ids:
                raise DatasetError("the input holds no documents")
            df = spark.read.parquet(str(staging))
            edges_out: list[Any] = []
            result = dedup_dataframe(df, opts, spec=spec, edges_out=edges_out)
            group, rep, similarity = _annotations(result, ids)
            a, b, scores = _edges(edges_out[0], opts.verify == "exact")
            seconds["spark"] = time.perf_counter() - t0
        finally:
            if own:
                spark.stop()
        t0 = time.perf_counter()
        ext = output_format
        files = {"documents": f"documents.{ext}", "edges": f"edges.{ext}"}
        docs = read_documents(inputs, id_field=id_field, text_field=text_field, fmt=input_format)
        no_bars = StageProgress(False)
        write_records(
            docs, partial / files["documents"], ext, ids, group, rep, similarity, kept_only, no_bars
        )
        write_edges(partial / files["edges"], ext, ids, a, b, PairScores(*scores))
        seconds["write"] = time.perf_counter() - t0
        kept = int((rep == np.arange(len(ids))).sum())
        summary = {
            "out": str(out_path),
            "engine": "spark",
            "master": master_url,
            "documents": len(ids),
            "groups": kept,
            "removed": len(ids) - kept,
            "verified_pairs": int(a.shape[0]),
            "seconds": {k: round(v, 3) for k, v in seconds.items()},
            "options": opts.to_dict(),
            "files": {**files, "summary": SUMMARY_FILE, "spec": SPEC_FILE},
        }
        shutil.rmtree(partial / "work", ignore_errors=True)
        (partial / SUMMARY_FILE).write_text(
            json.dumps(summary, ensure_ascii=False, indent=2) + "\n", "utf-8"
        )
        write_spec(partial, full, opts)
        publish(partial, out_path)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return summary


def _annotations(result: Any, ids: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each document's group and kept document (as input positions) and its similarity to
    it, from :func:`dedup_dataframe`'s rows, streamed to the driver."""
    n = len(ids)
    position = {doc_id: i for i, doc_id in enumerate(ids)}
    group = np.arange(n, dtype=np.int64)
    rep = np.arange(n, dtype=np.int64)
    similarity = np.ones(n, dtype=np.float64)
    rows = result.select("order", "group", "representative", "similarity")
    for row in rows.toLocalIterator():
        i = int(row["order"])
        group[i] = position[row["group"]]
        rep[i] = position[row["representative"]]
        similarity[i] = row["similarity"]
    return group, rep, similarity


def _edges(edges: Any, exact: bool) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """The verified pairs (input positions, in the local engine's order: by ``a``, then
    ``b``) and their measures."""
    names = ["resemblance", "containment_ab", "containment_ba"] if exact else ["resemblance"]
    rows = edges.select("a", "b", *names).orderBy("a", "b").collect()
    a = np.array([r["a"] for r in rows], dtype=np.int64)
    b = np.array([r["b"] for r in rows], dtype=np.int64)
    scores: list[Any] = [np.array([r[k] for r in rows], dtype=np.float64) for k in names]
    return a, b, scores + [None] * (3 - len(scores))

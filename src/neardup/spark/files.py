"""Files in, files out (:func:`dedup_files`, the CLI's ``--engine spark``): the input staged
as Parquet through the one reader, deduplicated by :func:`~neardup.spark.job.dedup_dataframe`,
and written by the local engine's own writers, so the output is the local engine's."""

from __future__ import annotations

import json
import os
import shutil
from typing import Any

import numpy as np

from neardup.corpus import (
    SPEC_FILE,
    SUMMARY_FILE,
    DedupOptions,
    dedup_spec,
    parse_keep,
    read_documents,
)
from neardup.corpus.clean_stages import SpanCutter
from neardup.corpus.cleaning import CleanOptions
from neardup.errors import require
from neardup.spark.clean import check_clean
from neardup.spark.job import dedup_dataframe
from neardup.spark.session import session
from neardup.spec import Spec


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
    clean: CleanOptions | None = None,
) -> dict[str, Any]:
    """The CLI's ``--engine spark``: the input is streamed through
    :func:`neardup.corpus.read_documents` (the one reader) into Parquet parts with an ``order``
    column and deduplicated by :func:`dedup_dataframe`; then ``OUT`` gets what the local
    engine writes (through ``OUT.partial``, by its own writers): ``documents.jsonl`` (or
    ``.parquet``: every input record, its text and fields, with the added fields; the input
    is read a second time for them), ``edges.jsonl`` / ``.parquet`` (the verified pairs by
    id), ``summary.json`` and ``spec.json``. Only a few numbers per document and the edges
    come to the driver, as the local engine holds them. ``clean`` adds the local engine's
    cleaning (:mod:`neardup.spark.clean`): exact copies first, repeated spans cut from the
    kept documents as the records are written (``spans.jsonl``), and their counts."""
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
    clean = clean if clean is not None else CleanOptions()
    check_clean(clean)
    clean_record = clean.to_dict() if clean.active else None
    full = dedup_spec(spec if spec is not None else default_spec(), opts)
    out_path = Path(out)
    check_output(out_path, full, opts, overwrite, clean_record)
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
            result = dedup_dataframe(
                df, opts, spec=spec, edges_out=edges_out, exact_mode=clean.exact
            )
            group, rep, similarity = _annotations(result, ids)
            a, b, scores = _edges(edges_out[0], opts.verify == "exact")
            exact_count = int(edges_out[1].count()) if len(edges_out) > 1 else 0
            cuts: dict[int, Any] = {}
            span_counts: dict[str, int] = {}
            if clean.level != "off":
                from pyspark.sql import functions as F

                from neardup.spark.clean import repeated_spans

                # the kept documents from the staged input, by the driver's own annotations:
                # filtering ``result`` would run the whole dedup plan again
                kept_orders = spark.createDataFrame(
                    [(int(i),) for i in np.flatnonzero(rep == np.arange(len(ids)))], "order long"
                )
                kept_rows = df.join(F.broadcast(kept_orders), "order")
                cuts, span_counts = repeated_spans(kept_rows, full.to_json(), clean)
            seconds["spark"] = time.perf_counter() - t0
        finally:
            if own:
                spark.stop()
        t0 = time.perf_counter()
        ext = output_format
        files = {"documents": f"documents.{ext}", "edges": f"edges.{ext}"}
        docs = read_documents(inputs, id_field=id_field, text_field=text_field, fmt=input_format)
        no_bars = StageProgress(False)
        cutter = None
        if clean.level != "off":
            files["spans"] = f"spans.{ext}"
            cutter = SpanCutter(partial / files["spans"], ext, ids, cuts.get)
        write_records(
            docs,
            partial / files["documents"],
            ext,
            ids,
            group,
            rep,
            similarity,
            kept_only,
            no_bars,
            rewrite=cutter,
        )
        if cutter is not None:
            cutter.close()
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
        if clean.exact != "off":
            summary["exact_duplicates"] = exact_count
        if cutter is not None:
            stats = cutter.stats
            summary["spans"] = {
                "level": clean.level,
                **span_counts,
                "spans_removed": stats.spans_removed,
                "chars_removed": stats.chars_removed,
                "documents_cut": stats.documents_cut,
                "documents_dropped": stats.documents_dropped,
                "counting": clean.span_counting,
                "error_bound": {},
            }
        shutil.rmtree(partial / "work", ignore_errors=True)
        (partial / SUMMARY_FILE).write_text(
            json.dumps(summary, ensure_ascii=False, indent=2) + "\n", "utf-8"
        )
        write_spec(partial, full, opts, clean_record)
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

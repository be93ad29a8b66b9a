"""Batch deduplication of a corpus on one machine: ``neardup.dedup(...)`` and ``neardup dedup``.

Stages (each timed in ``summary.json``, each with its progress bar), one module each:

1. **sign** (:mod:`~neardup.corpus.signing`) — the input is read as a stream in chunks, in
   ``jobs`` worker processes. Plain JSONL files are cut into byte slices that the workers
   read and parse themselves (:class:`neardup.inputs.ByteSlice`, by the reader's rules); they
   sign by the fused path of ``neardup sign`` and the fingerprint sets of only the candidates
   are made in stage 3, from their records' byte spans. Other inputs go through
   :func:`read_documents` (the one reader) in the parent, and each chunk gets its fingerprint
   sets (exact verification) and signatures in one kernel call; the tricks ``fold`` undid are
   counted from the signing's own analysis. Signatures, band keys (and
   fingerprint sets) go to disk chunk by chunk (:mod:`~neardup.corpus.workspace`,
   ``OUT.partial/work``); only a few numbers per document stay in memory.
2. **candidates** (:mod:`~neardup.corpus.candidates`) — MinHash LSH bands (``bands × rows``
   from :func:`neardup.sketch.params.choose` for the threshold). For each band, its keys of
   all documents are sorted (one ``argsort``; the bands shared by ``jobs`` threads);
   documents with the same key form a bucket. A bucket of ``m`` documents gives the pairs of
   documents at most ``window`` places apart in it (input order; the *bucket window*, named
   ``window`` in the options, ``--window`` and ``spec.json``, ``bucket_window`` inside the
   package, not winnowing's window): all ``m(m-1)/2`` pairs
   while ``m ≤ window + 1``, at most ``window · m`` beyond, so no step is quadratic. A
   bigger bucket (thousands of exact copies) still links every member to its neighbours,
   which is all the connected components need.
3. **verify** (:mod:`~neardup.corpus.verify`) — every candidate pair is scored before it may
   join two documents: the exact resemblance or containment (``max`` of both ways) from the
   fingerprint sets (one numba call per block of pairs), or the MinHash estimate, by option.
   For plain JSONL the candidates' sets are made again by the batch kernel in worker tasks of
   whole components of the candidate graph, each scoring its pairs and making its groups, so
   only scores come back. Pairs at or above ``threshold`` are the edges.
4. **groups** (:mod:`~neardup.corpus.groups`) — connected components of the edges (a
   union–find kernel). The kept document of each group follows the keep rule
   (``first``, ``longest``, ``max:FIELD``, ``min:FIELD``; ties to the first seen); a group is
   named by its first document's id.
5. **write** (:mod:`~neardup.corpus.output`) — every record is written with ``group``,
   ``kept``, ``similarity`` (the chosen measure against the kept document) and
   ``representative``: for plain JSONL by splicing the added fields into the record's own
   bytes (no second parse; :mod:`~neardup.corpus.splice`: runs of records filled by a compiled
   loop by one thread while the next is laid out, written front to back past the page cache;
   the input's pages given back a block at a time), otherwise by reading the input a
   second time; then the edge list, ``summary.json`` and ``spec.json``.

Each stage is a small object with one ``run(context)``
(:data:`neardup.corpus.job.DEDUP_STAGES`), reading and filling one
:class:`~neardup.corpus.pipeline.JobContext` (:mod:`~neardup.corpus.pipeline`); how stage 3
scores pairs — in worker tasks for plain JSONL, from stored fingerprint sets, or by the
estimate — is a strategy chosen once per run (:mod:`~neardup.corpus.pair_scoring`), since it
also decides what the signing stores.

Cleaning (:mod:`~neardup.corpus.cleaning`, ``CleanOptions``, off by default): stage
**exact** (:mod:`~neardup.corpus.clean_stages`) before signing hashes every document's
canonical (or raw) text and joins each exact copy to its first by an edge of measure 1,
leaving it out of the candidate pairs; stage **spans** before writing cuts the kept documents
into lines, paragraphs or sentences (:mod:`~neardup.corpus.spans`) and counts the documents
each span's canonical tokens occur in; the write stage cuts the spans found in more than
``span_docs`` documents out of the text and lists them in ``spans.jsonl``.

Everything is built in ``OUT.partial`` and renamed to ``OUT`` at the end
(:mod:`~neardup.corpus.job`), so an interrupted run never leaves an output that looks
complete. ``spec.json`` records the spec and the dedup options (:mod:`~neardup.corpus.options`);
a later run into the same place with other ones is refused.
"""

from __future__ import annotations

from neardup.corpus.candidates import bucket_pairs, candidate_pairs, winnowed_pairs
from neardup.corpus.cleaning import CleanedText, CleanOptions, CleanResult, clean_texts
from neardup.corpus.groups import components, keep_priority, representatives
from neardup.corpus.job import dedup
from neardup.corpus.options import (
    ADDED_FIELDS,
    FN_WEIGHT,
    FORMAT_NAME,
    FORMAT_VERSION,
    MAX_NUM_PERM,
    SPEC_FILE,
    SUMMARY_FILE,
    DedupOptions,
    DedupResult,
    Measure,
    Verify,
    check_output,
    dedup_spec,
    parse_keep,
    publish,
    read_documents,
    spec_record,
    write_spec,
)
from neardup.corpus.output import partition, read_groups
from neardup.corpus.signing import SLICE_BYTES, raw_jsonl_files, sign_chunk
from neardup.corpus.substrings import RepeatedSubstrings, repeated_substrings
from neardup.corpus.verify import PairScores, estimated_scores, exact_scores

__all__ = [
    "ADDED_FIELDS",
    "FN_WEIGHT",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MAX_NUM_PERM",
    "SLICE_BYTES",
    "SPEC_FILE",
    "SUMMARY_FILE",
    "CleanOptions",
    "CleanResult",
    "CleanedText",
    "DedupOptions",
    "DedupResult",
    "Measure",
    "PairScores",
    "RepeatedSubstrings",
    "Verify",
    "bucket_pairs",
    "candidate_pairs",
    "clean_texts",
    "check_output",
    "components",
    "dedup",
    "dedup_spec",
    "estimated_scores",
    "exact_scores",
    "keep_priority",
    "parse_keep",
    "partition",
    "publish",
    "raw_jsonl_files",
    "read_documents",
    "read_groups",
    "repeated_substrings",
    "representatives",
    "sign_chunk",
    "spec_record",
    "winnowed_pairs",
    "write_spec",
]

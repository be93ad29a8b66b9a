"""datatrove's whole MinHash dedup job, its three steps run locally: ``JsonlReader`` →
``MinhashDedupSignature`` (its own text normalisation and word tokenizer, 5-grams, xxhash
64-bit), ``MinhashDedupBuckets`` (one task per band), ``MinhashDedupCluster`` (union-find of
the band collisions, unverified, with each document's cluster id saved), each a
``LocalPipelineExecutor``. datatrove has no band chooser (its default is 14 bands of 8 hashes,
a threshold near 0.72): the bands and rows come from the parent (datasketch's optimal
parameters for the threshold). It reads one file per task, so with ``--jobs N`` above 1 the
runner first splits the JSONL into N contiguous parts (timed with the job); tasks run in
``--jobs`` worker processes started by ``fork`` (forkserver workers would be children of a
server process the parent never waits for, and their CPU time would be lost).

Runs in datatrove's own venv: ``build/peers/datatrove/bin/python
benchmarks/peers/run_datatrove.py ...``.
"""

from __future__ import annotations

import os
import shutil
import struct
from importlib.metadata import version
from pathlib import Path

import _common
from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.dedup.minhash import (
    MinhashConfig,
    MinhashDedupBuckets,
    MinhashDedupCluster,
    MinhashDedupSignature,
)
from datatrove.pipeline.readers import JsonlReader


def split_input(corpus: Path, folder: Path, parts: int) -> list[int]:
    """``parts`` contiguous pieces of the JSONL in ``folder`` (a link to it for one); the
    index of each piece's first record."""
    folder.mkdir(parents=True)
    if parts == 1:
        os.symlink(corpus.resolve(), folder / "part_000.jsonl")
        return [0]
    with corpus.open("rb") as fh:
        lines = [line for line in fh if line.strip()]
    starts = []
    for r in range(parts):
        lo, hi = len(lines) * r // parts, len(lines) * (r + 1) // parts
        starts.append(lo)
        with (folder / f"part_{r:03d}.jsonl").open("wb") as out:
            out.writelines(lines[lo:hi])
    return starts


def main() -> None:
    args = _common.parse_args(__doc__.splitlines()[0])
    steps = _common.Steps()
    shutil.rmtree(args.work, ignore_errors=True)
    work = args.work
    starts = split_input(args.corpus, work / "input", args.jobs)
    steps.lap("split")
    config = MinhashConfig(n_grams=5, num_buckets=args.bands, hashes_per_bucket=args.rows)
    common = {"workers": args.jobs, "start_method": "fork"}
    LocalPipelineExecutor(
        pipeline=[
            JsonlReader(str(work / "input"), glob_pattern="*.jsonl"),
            MinhashDedupSignature(output_folder=str(work / "signatures"), config=config),
        ],
        tasks=args.jobs,
        logging_dir=str(work / "logs" / "signatures"),
        **common,
    ).run()
    steps.lap("signatures")
    LocalPipelineExecutor(
        pipeline=[
            MinhashDedupBuckets(
                input_folder=str(work / "signatures"),
                output_folder=str(work / "buckets"),
                config=config,
            )
        ],
        tasks=config.num_buckets,
        logging_dir=str(work / "logs" / "buckets"),
        **common,
    ).run()
    steps.lap("buckets")
    LocalPipelineExecutor(
        pipeline=[
            MinhashDedupCluster(
                input_folder=str(work / "buckets"),
                output_folder=str(work / "clusters"),
                config=config,
                save_cluster_id=True,
            )
        ],
        tasks=1,
        logging_dir=str(work / "logs" / "clusters"),
        **{**common, "workers": 1},
    ).run()
    steps.lap("cluster")
    # the ids of the clustered documents: (file, document) → the record's row in the corpus
    ids, _ = _common.read_jsonl(args.corpus)
    clusters: dict[int, list[str]] = {}
    removed = 0
    for path in sorted((work / "clusters").glob("*.clusters")):
        rank = int(path.name.split(".")[0])
        data = path.read_bytes()
        for doc, cid in struct.iter_unpack("<II", data):
            clusters.setdefault(cid, []).append(ids[starts[rank] + doc])
    for path in (work / "clusters").glob("*.remove"):
        removed += path.stat().st_size // 4
    n = _common.write_clusters(args.out, clusters.values())
    steps.lap("write")
    steps.info.update(
        version=version("datatrove"),
        reports="clusters",
        bands_rows=f"{args.bands}x{args.rows}",
        clusters=n,
        removed=removed,
    )
    steps.done()


if __name__ == "__main__":
    main()

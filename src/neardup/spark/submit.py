"""``spark-submit`` entry point: the Spark engine of ``neardup dedup`` on a cluster.

    spark-submit --master yarn $(python -c 'import neardup.spark.submit as m; print(m.__file__)') \\
        INPUT... --out OUT [--threshold 0.7] [--preset auto] [--keep first] [--verify exact]

The session is the one spark-submit configured (master, executors, memory); the executors need
neardup installed (``pip install 'neardup[spark]'``, or a packed environment via
``--archives``). Exit codes as the CLI: 2 for bad input or options, 1 for other errors.
"""

from __future__ import annotations

import argparse
import json
import sys

from neardup.defaults import DEFAULTS
from neardup.errors import ConfigurationError, InputError, NeardupError, SpecError


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="neardup-spark-dedup", description=__doc__.splitlines()[0])
    p.add_argument("inputs", nargs="+")
    p.add_argument("--out", required=True)
    p.add_argument("--preset", default="auto")
    p.add_argument("-k", type=int, default=5)
    p.add_argument("--threshold", type=float, default=DEFAULTS.threshold)
    p.add_argument("--measure", choices=["resemblance", "containment"], default="resemblance")
    p.add_argument("--verify", choices=["exact", "estimate"], default="exact")
    p.add_argument("--keep", default="first")
    p.add_argument("--num-perm", type=int, default=128)
    p.add_argument("--window", type=int, default=50)
    p.add_argument("--format", choices=["jsonl", "parquet"], default="parquet")
    p.add_argument("--id-field", default="id")
    p.add_argument("--text-field", default="text")
    p.add_argument("--kept-only", action="store_true")
    p.add_argument("--overwrite", action="store_true")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    try:
        from pyspark.sql import SparkSession

        from neardup.corpus import DedupOptions
        from neardup.fingerprints.pipeline import make_spec
        from neardup.spark import dedup_files

        spark = SparkSession.builder.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        options = DedupOptions(
            threshold=args.threshold,
            measure=args.measure,
            verify=args.verify,
            keep=args.keep,
            num_perm=args.num_perm,
            window=args.window,
        )
        summary = dedup_files(
            args.inputs,
            args.out,
            options,
            spec=make_spec(args.preset, k=args.k),
            spark=spark,
            output_format=args.format,
            kept_only=args.kept_only,
            id_field=args.id_field,
            text_field=args.text_field,
            overwrite=args.overwrite,
        )
    except (InputError, SpecError, ConfigurationError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    except NeardupError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(summary, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

The code is in modules by what it does: :mod:`~neardup.spark.session` (the SparkSession),
:mod:`~neardup.spark.udfs` (what runs on the executors), :mod:`~neardup.spark.components`
(connected components), :mod:`~neardup.spark.job` (the DataFrame plan) and
:mod:`~neardup.spark.files` (files in and out, the CLI's engine).
"""

from __future__ import annotations

from neardup.spark.components import connected_components
from neardup.spark.files import dedup_files
from neardup.spark.job import dedup_dataframe
from neardup.spark.session import session

__all__ = ["connected_components", "dedup_dataframe", "dedup_files", "session"]

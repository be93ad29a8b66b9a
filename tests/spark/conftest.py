"""One SparkSession for the whole test run (per pytest-xdist worker): local[2], two shuffle
partitions, no UI, errors-only logging."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    from neardup.spark import session

    # 4 GB for the driver (local mode runs the executors in it): the heavy tests read tens of
    # thousands of documents through Parquet, past the default 1 GB heap
    spark = session(
        "local[2]",
        app_name="neardup-tests",
        shuffle_partitions=2,
        conf={"spark.driver.memory": "4g"},
    )
    try:
        yield spark
    finally:
        spark.stop()

"""A quiet SparkSession for the dedup (:func:`session`): no UI, errors only (its own log4j2
configuration), Arrow on, and one clear error when Spark cannot start."""

from __future__ import annotations

import os
import re
import shutil
import sys
from typing import Any

from neardup.errors import MissingDependencyError, require

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

"""PostgreSQL for the tests: the server URL, a reachability check that fails loudly, unique schemas.

``NEARDUP_TEST_POSTGRES_URL`` (default ``postgresql://postgres@127.0.0.1:5432/test``). A server
that cannot be reached FAILS the test with a message saying so, unless
``NEARDUP_SKIP_POSTGRES=1`` is set, which skips it instead.
"""

from __future__ import annotations

import itertools
import os
import time

import pytest

PG_URL = os.environ.get("NEARDUP_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
_counter = itertools.count()


def postgres_or_fail() -> None:
    """Fail (or skip with NEARDUP_SKIP_POSTGRES=1) when the test server cannot be reached."""
    skip = os.environ.get("NEARDUP_SKIP_POSTGRES") == "1"
    try:
        import psycopg
    except ImportError:
        msg = (
            "psycopg is not installed (pip install 'neardup[postgres]'): "
            "PostgreSQL tests cannot run"
        )
        if skip:
            pytest.skip(f"NEARDUP_SKIP_POSTGRES=1: {msg}")
        pytest.fail(msg, pytrace=False)
    try:
        psycopg.connect(PG_URL, connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        msg = (
            f"the PostgreSQL server is missing: cannot connect to {PG_URL} "
            f"({str(exc).strip()[:200]}). "
            "Start it (scripts/test.sh does: pg_ctlcluster --skip-systemctl-redirect "
            "$(ls /etc/postgresql) main start) or set NEARDUP_SKIP_POSTGRES=1 to skip these tests"
        )
        if skip:
            pytest.skip(f"NEARDUP_SKIP_POSTGRES=1: {msg}")
        pytest.fail(msg, pytrace=False)


def unique_schema() -> str:
    return f"ndtest_{os.getpid()}_{next(_counter)}_{time.time_ns() % 10**9}"


def drop_schemas(*schemas: str) -> None:
    """Remove these schemas of the test server and everything in them."""
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        for schema in schemas:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

"""Durability: SIGKILL a child adding, merging or removing, 10 times per backend, then check.

The short run of the kill probe (``tests/index/_kill_probe.py``; the full run, over 100 kills,
is ``benchmarks/kill_probe.py``). Every document acknowledged as added (and not as removed) is
present byte for byte, every one acknowledged as removed is gone, ``verify_integrity()`` finds
nothing, and every kill landed in a live process.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec
from tests.index._kill_probe import check, probe
from tests.storage._postgres import PG_URL, drop_schemas, postgres_or_fail, unique_schema

ROUNDS = 10


def _probe(location: str) -> None:
    Collection.create(
        location, make_spec("plain"), IndexSpec(policy="group", threshold=0.5)
    ).close()
    tally = probe(location, ROUNDS)
    # A child that finishes before its kill depends on the machine's speed and load, so it is
    # not counted against the probe; the rounds go on until ROUNDS kills landed in live work.
    assert sum(tally.kills.values()) == ROUNDS, f"too many children finished first: {tally}"
    assert tally.added > 100, f"only {tally.added} documents were acknowledged in all rounds"
    assert tally.removed, "no removal was acknowledged"
    assert check(location, tally) == []


@pytest.mark.slow
def test_sigkill_on_sqlite(tmp_path: Path) -> None:
    _probe(str(tmp_path / "kill.db"))


@pytest.mark.slow
def test_sigkill_on_postgres() -> None:
    postgres_or_fail()
    schema = unique_schema()
    try:
        _probe(f"{PG_URL}?schema={schema}")
    finally:
        drop_schemas(schema)

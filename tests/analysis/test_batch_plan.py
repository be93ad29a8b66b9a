"""The batch plan analysis gives the sketch: typed, public, and only for chains that fuse (and
whose token filters, if any, are compiled)."""

from __future__ import annotations

import numpy as np

from neardup import make_spec
from neardup._kernels import hashing
from neardup.analysis.analyzer import Analyzer, BatchPlan
from neardup.fingerprint import HashFamily, RabinTables
from neardup.spec import FingerprintSpec


def test_a_plain_chain_has_a_plan() -> None:
    plan = Analyzer(make_spec("plain").analyzer).batch_plan()
    assert isinstance(plan, BatchPlan)
    assert plan.html_check and plan.join_hyphens and plan.keep_numbers and plan.language == "*"
    assert plan.table.dtype == np.uint64 and plan.exp_offsets.dtype == np.int64
    assert plan.takes("простой текст") and not plan.takes(b"bytes")
    assert not plan.takes("<html><body><p>страница</p></body></html>")
    never = Analyzer(make_spec("plain", html="never", numbers=False).analyzer).batch_plan()
    assert never is not None and not never.html_check and not never.keep_numbers
    assert never.takes("<html><body><p>страница</p></body></html>")


def test_chains_that_cannot_fuse_have_none() -> None:
    for spec in (make_spec("auto"), make_spec("plain", html="always")):
        assert Analyzer(spec.analyzer).batch_plan() is None
    # token filters: a plan only when they are compiled into tables
    ru = make_spec("ru").analyzer
    plan = Analyzer(ru).batch_plan()
    assert plan is not None and plan.compiled is not None
    assert Analyzer(ru, compile_filters=False).batch_plan() is None
    assert Analyzer(make_spec("plain").analyzer).batch_plan().compiled is None  # type: ignore[union-attr]


def test_rabin_tables_only_for_rabin() -> None:
    tables = HashFamily(FingerprintSpec(bits=56, seed=3)).rabin_tables
    assert isinstance(tables, RabinTables)
    assert tables.bits == 56 and tables.table.shape == (hashing.RK_TABLE_ROWS * 256,)
    assert tables.power.shape[0] >= hashing.RK_POWERS
    assert HashFamily(FingerprintSpec(family="xxh3")).rabin_tables is None

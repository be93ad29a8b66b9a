"""The batch plan analysis gives the sketch: typed, public, and only for chains that fuse (and
whose token filters, if any, are compiled)."""

from __future__ import annotations

import numpy as np

from neardup import make_spec
from neardup._kernels import hashing
from neardup.analysis.analyzer import Analyzer, BatchPlan
from neardup.fingerprints.hashing import HashFamily, RabinTables
from neardup.spec import FingerprintSpec


def only_plan(analyzer: Analyzer) -> BatchPlan | None:
    """The plan of an analyzer of one chain (``None``: its chain has none)."""
    plans = analyzer.batch_plans()
    if plans is None:
        return None
    assert len(plans) == 1
    return plans[0][1]


def test_a_plain_chain_has_a_plan() -> None:
    plan = only_plan(Analyzer(make_spec("plain").analyzer))
    assert isinstance(plan, BatchPlan)
    assert plan.html_check and plan.join_hyphens and plan.keep_numbers and plan.language == "*"
    assert plan.table.dtype == np.uint64 and plan.exp_offsets.dtype == np.int64
    assert plan.takes("простой текст") and not plan.takes(b"bytes")
    assert not plan.takes("<html><body><p>страница</p></body></html>")
    never = only_plan(Analyzer(make_spec("plain", html="never", numbers=False).analyzer))
    assert never is not None and not never.html_check and not never.keep_numbers
    assert never.takes("<html><body><p>страница</p></body></html>")


def test_chains_that_cannot_fuse_have_none() -> None:
    assert Analyzer(make_spec("plain", html="always").analyzer).batch_plans() is None
    # token filters: a plan only when they are compiled into tables
    ru = make_spec("ru").analyzer
    plan = only_plan(Analyzer(ru))
    assert plan is not None and plan.compiled is not None
    assert only_plan(Analyzer(ru, compile_filters=False)) is None
    assert only_plan(Analyzer(make_spec("plain").analyzer)).compiled is None  # type: ignore[union-attr]


def test_rabin_tables_only_for_rabin() -> None:
    tables = HashFamily(FingerprintSpec(bits=56, seed=3)).rabin_tables
    assert isinstance(tables, RabinTables)
    assert tables.bits == 56 and tables.table.shape == (hashing.RK_TABLE_ROWS * 256,)
    assert tables.power.shape[0] >= hashing.RK_POWERS
    assert HashFamily(FingerprintSpec(family="xxh3")).rabin_tables is None


def test_a_chain_per_language_has_a_plan_for_each() -> None:
    """``auto``: the Russian chain first (it decides each text's language), then the English
    one; both with their token filters compiled."""
    plans = Analyzer(make_spec("auto").analyzer).batch_plans()
    assert plans is not None
    assert [language for language, _ in plans] == ["ru", "en"]
    assert all(plan.compiled is not None for _, plan in plans)
    assert Analyzer(make_spec("auto").analyzer, compile_filters=False).batch_plans() is None

"""The dedup job is a list of stage objects: they run in the order the package docstring
documents, the list can be read and checked, and each stage's pair scoring is chosen once."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar

import pytest

import neardup.corpus as corpus_package
import neardup.corpus.job as job
from neardup import make_spec
from neardup.corpus import DedupOptions, dedup, dedup_spec
from neardup.corpus.pair_scoring import (
    EstimatedPairScoring,
    StoredPairScoring,
    WorkerPairScoring,
    choose_pair_scoring,
)
from neardup.corpus.pipeline import JobContext, JobSettings, check_order
from tests.corpus._corpus import records, write

DOCUMENTED = re.findall(r"^\d\. \*\*(\w+)\*\*", corpus_package.__doc__ or "", re.MULTILINE)


def test_the_stage_list_is_the_documented_order() -> None:
    assert DOCUMENTED == ["sign", "candidates", "verify", "groups", "write"]
    assert [stage.name for stage in job.DEDUP_STAGES] == DOCUMENTED
    check_order(job.DEDUP_STAGES)  # each stage's inputs come from an earlier one
    # every slot a stage needs is given by exactly one stage
    given = [slot for stage in job.DEDUP_STAGES for slot in stage.gives]
    assert len(given) == len(set(given))
    assert {slot for stage in job.DEDUP_STAGES for slot in stage.needs} <= set(given)


def test_a_stage_list_out_of_order_is_refused() -> None:
    sign, candidates, verify, groups, write_stage = job.DEDUP_STAGES
    with pytest.raises(ValueError, match="'verify' needs candidates"):
        check_order([sign, verify, candidates, groups, write_stage])
    with pytest.raises(ValueError, match="'sign' needs|'write' needs"):
        check_order([write_stage, sign])


class _Recorded:
    """A stage that runs another and notes its name and the context slots filled before it."""

    log: ClassVar[list[tuple[str, tuple[str, ...]]]] = []

    def __init__(self, stage: Any) -> None:
        self.stage = stage
        self.name, self.needs, self.gives = stage.name, stage.needs, stage.gives

    def run(self, context: JobContext) -> None:
        slots = ("signed", "candidates", "edges", "groups")
        filled = tuple(slot for slot in slots if getattr(context, slot) is not None)
        self.log.append((self.name, filled))
        self.stage.run(context)


@pytest.mark.parametrize("verify", ["exact", "estimate"])
def test_the_stages_run_in_order_and_are_timed_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, verify: str
) -> None:
    _Recorded.log = []
    monkeypatch.setattr(job, "DEDUP_STAGES", tuple(_Recorded(s) for s in job.DEDUP_STAGES))
    corpus = write(tmp_path / "in.jsonl", records(9))
    result = dedup(
        [corpus],
        tmp_path / "out",
        DedupOptions(threshold=0.6, verify=verify),  # type: ignore[arg-type]
    )
    assert result.groups < result.documents == 9
    assert _Recorded.log == [
        ("sign", ()),
        ("candidates", ("signed",)),
        ("verify", ("signed", "candidates")),
        ("groups", ("signed", "candidates", "edges")),
        ("write", ("signed", "candidates", "edges", "groups")),
    ]
    assert list(result.seconds) == [*DOCUMENTED, "total"]
    assert list(result.cpu_seconds) == [*DOCUMENTED, "total"]


def test_the_pair_scoring_is_chosen_once_by_input_and_options() -> None:
    spec = dedup_spec(make_spec("plain", k=3), DedupOptions(bands=16, rows=8))
    settings = JobSettings()
    raw = ["in.jsonl"]
    exact, estimate = DedupOptions(), DedupOptions(verify="estimate")
    assert isinstance(choose_pair_scoring(spec, exact, settings, raw), WorkerPairScoring)
    assert isinstance(choose_pair_scoring(spec, exact, settings, None), StoredPairScoring)
    winnowed = DedupOptions(winnow=8)
    assert isinstance(choose_pair_scoring(spec, winnowed, settings, raw), StoredPairScoring)
    assert isinstance(choose_pair_scoring(spec, estimate, settings, raw), EstimatedPairScoring)
    # what each makes the signing keep
    keeps = {
        kind: (s.keeps_fingerprints, s.keeps_signatures)
        for kind, s in [
            ("worker", choose_pair_scoring(spec, exact, settings, raw)),
            ("stored", choose_pair_scoring(spec, exact, settings, None)),
            ("estimate", choose_pair_scoring(spec, estimate, settings, raw)),
        ]
    }
    assert keeps == {
        "worker": (False, False),
        "stored": (True, False),
        "estimate": (False, True),
    }

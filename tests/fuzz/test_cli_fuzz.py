"""The command line and the library under hostile input: every case ends in a result or a clear
refusal.

The default run tries a few hundred cases of the seeded generator (``makers.py``) in a worker
process that the test bounds from outside (``runner.py``: no alarm in the process that runs the
cases, kernels warmed before any case); ``benchmarks/fuzz_probe.py`` runs ten thousand and more,
with its counts in docs/hardening.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from neardup.errors import InputError
from tests.fuzz.harness import Outcome, command_of, run_case
from tests.fuzz.library import NON_STRING_VALUES, call_library
from tests.fuzz.makers import LIBRARY_APIS, MAKERS, cases
from tests.fuzz.runner import run, run_cases

CASES = 400

#: Tracebacks known and owned elsewhere, counted apart so that the harness keeps running them
#: (``(command, error prefix)``). Every finding of issue 27 is fixed: none is left.
ELSEWHERE: tuple[tuple[str, str], ...] = ()


def _elsewhere(outcome: Outcome) -> bool:
    command = command_of(outcome.argv).split(" ")[0]
    return outcome.verdict == "traceback" and any(
        command == owner and outcome.detail.startswith(error) for owner, error in ELSEWHERE
    )


def _describe(failures: list[Outcome]) -> str:
    return "\n\n".join(f"neardup {' '.join(o.argv)}\n  {o.verdict}: {o.detail}" for o in failures)


@pytest.mark.slow
def test_hostile_cases_end_in_a_result_or_a_clear_refusal(tmp_path: Path) -> None:
    tally = run(1, CASES, tmp_path)
    assert tally.cases == CASES
    ours = [o for o in tally.failures if not _elsewhere(o)]
    assert ours == [], _describe(ours)
    assert tally.bad <= 50, "more failures than the tally keeps: some were not seen"
    # every maker ran, and the generator reaches both sides on the commands
    assert {command_of(c).split(" ")[0] for c in cases(1, CASES, tmp_path / "again")} >= {
        name.split(" ")[0] for name in MAKERS
    }
    assert tally.by_verdict.get("ok", 0) > 0
    assert tally.by_verdict.get("refused", 0) > 0
    assert all(peak > 0 for peak in tally.peak_by_command.values())


def test_the_judge_tells_a_traceback_from_a_refusal(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.txt")
    refused = run_case(["compare", missing, missing])
    assert refused.verdict == "refused"
    assert refused.exit_code == 2
    text = tmp_path / "a.txt"
    text.write_text("парк город река дом улица школа учитель", encoding="utf-8")
    assert run_case(["compare", str(text), str(text)]).verdict == "ok"


@pytest.mark.slow
def test_a_hung_case_costs_its_worker_and_the_next_case_runs_in_a_new_one(
    tmp_path: Path,
) -> None:
    """The only limit is the parent's: the hung worker is killed whole, never interrupted."""
    text = tmp_path / "a.txt"
    text.write_text("парк город река дом улица школа учитель", encoding="utf-8")
    seen: list[Outcome] = []
    tally = run_cases(
        [["@hang"], ["compare", str(text), str(text)]],
        tmp_path,
        hang_limit=20,
        on_outcome=seen.append,
    )
    assert [o.verdict for o in seen] == ["hang", "ok"]
    assert tally.bad == 1


def test_the_harness_sets_no_alarm() -> None:
    for module in ("harness", "runner", "library", "makers"):
        source = (Path(__file__).parent / f"{module}.py").read_text()
        assert "signal.alarm" not in source and "SIGALRM" not in source, module


# ---- the library given texts that are not strings (issue 27) --------------------------------


# every one of these raised a plain TypeError before issue 27
@pytest.mark.parametrize("kind", sorted(set(NON_STRING_VALUES) - {"bytes"}))
@pytest.mark.parametrize("api", LIBRARY_APIS)
def test_the_library_refuses_a_text_that_is_not_a_string(api: str, kind: str) -> None:
    with pytest.raises(InputError):
        call_library(api, NON_STRING_VALUES[kind]())


@pytest.mark.parametrize("api", LIBRARY_APIS)
def test_the_library_takes_bytes_as_a_text(api: str) -> None:
    assert call_library(api, NON_STRING_VALUES["bytes"]()) is not None

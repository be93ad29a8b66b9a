"""The command line under hostile input: every case ends in a result or a clear refusal.

The default run tries a few hundred cases of the seeded generator in `harness.py`;
`benchmarks/fuzz_probe.py` runs ten thousand and more, with its counts in docs/hardening.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.harness import Outcome, Tally, run, run_case

CASES_PER_SEED = 120


def _describe(failures: list[Outcome]) -> str:
    return "\n\n".join(f"neardup {' '.join(o.argv)}\n  {o.verdict}: {o.detail}" for o in failures)


@pytest.mark.parametrize("seed", [1, 2])
def test_hostile_command_lines_end_in_a_result_or_a_clear_refusal(
    seed: int, tmp_path: Path
) -> None:
    tally: Tally = run(seed, CASES_PER_SEED, tmp_path, time_limit=60)
    assert tally.cases == CASES_PER_SEED
    assert tally.bad == 0, _describe(tally.failures)
    # the generator must reach both sides: some cases succeed and some are refused
    assert tally.by_verdict.get("ok", 0) > 0
    assert tally.by_verdict.get("refused", 0) > 0


def test_the_judge_tells_a_traceback_from_a_refusal(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.txt")
    refused = run_case(["compare", missing, missing])
    assert refused.verdict == "refused"
    assert refused.exit_code == 2
    text = tmp_path / "a.txt"
    text.write_text("парк город река дом улица школа учитель", encoding="utf-8")
    assert run_case(["compare", str(text), str(text)]).verdict == "ok"

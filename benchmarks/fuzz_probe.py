"""The full hostile-input run of the command line and the library: many thousand seeded cases.

    .venv/bin/python benchmarks/fuzz_probe.py --cases 10000 [--seed 1] [--workers 2] [--write-docs]

Each case is a `neardup` command line over files made to break it, or a library call with a
text that is not a string, or a damaged filter or signature file (see tests/fuzz/). The cases
run in worker processes bounded from outside (tests/fuzz/runner.py: no alarm inside; a case
that gives no answer within --hang-limit seconds costs its worker). The run prints how many
cases ended in a result, a clear refusal, a traceback, a hang or too much memory (a case may
use the larger of 10 × its input's bytes and 1 GiB), per command with its peak memory, and the
first failures in full; `--write-docs` puts the tables into docs/hardening.md. Exit status 1
when any case crashed, hung or ran past its memory.
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fuzz.harness import Outcome, Tally, command_of  # noqa: E402
from tests.fuzz.runner import HANG_LIMIT, run  # noqa: E402

DOC = ROOT / "docs" / "hardening.md"
START, END = "<!-- section: fuzz -->", "<!-- end: fuzz -->"


def _markdown(tally: Tally, args: argparse.Namespace, seconds: float, load: str) -> str:
    command = (
        f".venv/bin/python benchmarks/fuzz_probe.py --cases {tally.cases} --seed {args.seed} "
        f"--workers {args.workers}"
    )
    lines = [
        START,
        f"`{command}` — {seconds:.0f} s on {platform.machine()}, Python "
        f"{platform.python_version()}, {args.workers} worker(s), hang limit "
        f"{args.hang_limit:.0f} s, load average {load} (a shared, loaded machine).",
        "",
        "| outcome | cases |",
        "|---|---:|",
    ]
    for verdict in ("ok", "refused", "traceback", "hang", "memory", "unclear"):
        lines.append(f"| {verdict} | {tally.by_verdict.get(verdict, 0):,} |")
    lines += ["", "| command | cases | peak memory of a case (MiB) |", "|---|---:|---:|"]
    for name, count in sorted(tally.by_command.items()):
        peak = tally.peak_by_command.get(name, 0) / 2**20
        lines.append(f"| `{name}` | {count:,} | {peak:,.0f} |")
    lines.append(END)
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--hang-limit", type=float, default=HANG_LIMIT, help="seconds per case")
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--progress", type=int, default=500, help="print a line every N cases")
    args = parser.parse_args()
    done = [0]

    def progress(outcome: Outcome) -> None:
        done[0] += 1
        if outcome.verdict not in ("ok", "refused"):
            print(f"{outcome.verdict}: {command_of(outcome.argv)}: {outcome.detail[:200]}")
        if done[0] % args.progress == 0:
            print(f"{done[0]} cases", flush=True)

    with tempfile.TemporaryDirectory(prefix="neardup-fuzz-") as folder:
        started = time.perf_counter()
        tally = run(
            args.seed,
            args.cases,
            Path(folder),
            workers=args.workers,
            hang_limit=args.hang_limit,
            on_outcome=progress,
        )
        seconds = time.perf_counter() - started
    load = Path("/proc/loadavg").read_text().split()[0]
    print(f"{tally.cases} cases in {seconds:.0f} s: {tally.by_verdict}")
    for name, count in sorted(tally.by_command.items()):
        print(f"  {name}: {count} cases, peak {tally.peak_by_command.get(name, 0) / 2**20:.0f} MiB")
    for outcome in tally.failures[:20]:
        print(f"\n{outcome.verdict}: neardup {' '.join(outcome.argv)}\n  {outcome.detail}")
    if args.write_docs:
        text = DOC.read_text(encoding="utf-8")
        block = _markdown(tally, args, seconds, load)
        if START in text:
            text = text[: text.index(START)] + block + text[text.index(END) + len(END) :]
        else:
            text = text.rstrip("\n") + "\n\n" + block + "\n"
        DOC.write_text(text, encoding="utf-8")
    return 1 if tally.bad else 0


if __name__ == "__main__":
    sys.exit(main())

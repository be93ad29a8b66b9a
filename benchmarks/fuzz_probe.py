"""The full hostile-input run of the command line: many thousand seeded cases, counted.

    .venv/bin/python benchmarks/fuzz_probe.py --cases 10000 [--seed 1] [--write-docs]

Each case is a `neardup` command line over files made to break it (see
tests/fuzz/harness.py). The run prints how many cases ended in a result, a clear refusal, a
traceback or a hang, per command, and the first failures in full; `--write-docs` puts the
counts into docs/hardening.md. Exit status 1 when any case crashed or hung.
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

from tests.fuzz.harness import Tally, run  # noqa: E402

DOC = ROOT / "docs" / "hardening.md"
START, END = "<!-- section: fuzz -->", "<!-- end: fuzz -->"


def _markdown(tally: Tally, seed: int, seconds: float, load: str) -> str:
    lines = [
        START,
        f"`.venv/bin/python benchmarks/fuzz_probe.py --cases {tally.cases} --seed {seed}` — "
        f"{seconds:.0f} s on {platform.machine()}, Python {platform.python_version()}, "
        f"load average {load}.",
        "",
        "| outcome | cases |",
        "|---|---:|",
    ]
    for verdict in ("ok", "refused", "traceback", "hang", "unclear"):
        lines.append(f"| {verdict} | {tally.by_verdict.get(verdict, 0):,} |")
    lines += ["", "| command | cases |", "|---|---:|"]
    for command, count in sorted(tally.by_command.items()):
        lines.append(f"| `{command}` | {count:,} |")
    lines.append(END)
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=int, default=60, help="seconds per case")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="neardup-fuzz-") as folder:
        started = time.perf_counter()
        tally = run(args.seed, args.cases, Path(folder), time_limit=args.time_limit)
        seconds = time.perf_counter() - started
    load = open("/proc/loadavg").read().split()[0]
    print(f"{tally.cases} cases in {seconds:.0f} s: {tally.by_verdict}")
    print(f"per command: {tally.by_command}")
    for outcome in tally.failures[:20]:
        print(f"\n{outcome.verdict}: neardup {' '.join(outcome.argv)}\n  {outcome.detail}")
    if args.write_docs:
        text = DOC.read_text(encoding="utf-8")
        block = _markdown(tally, args.seed, seconds, load)
        if START in text:
            text = text[: text.index(START)] + block + text[text.index(END) + len(END) :]
        else:
            text = text.rstrip("\n") + "\n\n" + block + "\n"
        DOC.write_text(text, encoding="utf-8")
    return 1 if tally.bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""compare and index check against an earlier checkout, side by side in one run (issue 22).

Each text used to be analysed three to five times per request (the measures, the combined
score, the aligner, the citations); now once. This times whole processes of both versions,
alternately, on the same inputs, and prints CPU-second medians and their ratio (new / old):

* ``compare A B --fragments --json`` of two news-size texts of ru_news (a paragraph of the
  second pasted into the first), and of the example essay and its source;
* ``index check DB essay --fragments --json`` on the README's collection, with the rewritten
  passages (new by default) and without them (``--no-rewrites``: the same work as before).

    git worktree add /tmp/neardup-base <commit before>      # the earlier version's source
    .venv/bin/python benchmarks/one_analysis.py --base /tmp/neardup-base --runs 7

The earlier version runs with this environment's packages and its own ``src`` first on the
path; its kernels compile on its first (untimed) run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from child_runs import child_env, timed_child

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "ru_news.jsonl.gz"
RUN_CLI = "import sys; from neardup.cli.main import main; sys.argv[0] = 'neardup'; sys.exit(main())"


def news_pair(folder: Path) -> tuple[Path, Path]:
    """Two long ru_news texts, a stretch of the second pasted into the middle of the first."""
    docs: list[str] = []
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        for line in fh:
            text = json.loads(line)["text"]
            if len(text) > 20_000:
                docs.append(text)
            if len(docs) == 2:
                break
    a, b = docs
    middle = len(b) // 2
    pasted = a[: len(a) // 2] + b[middle : middle + 3000] + a[len(a) // 2 :]
    (folder / "a.txt").write_text(pasted, encoding="utf-8")
    (folder / "b.txt").write_text(b, encoding="utf-8")
    return folder / "a.txt", folder / "b.txt"


def command(src: Path, *args: str) -> tuple[list[str], dict[str, str]]:
    env = child_env({"PYTHONPATH": str(src)})
    return [sys.executable, "-c", RUN_CLI, *args], env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--base", type=Path, required=True, help="a checkout of the earlier version"
    )
    parser.add_argument("--runs", type=int, default=7, help="timed runs of each (default 7)")
    args = parser.parse_args()
    new_src, old_src = ROOT / "src", args.base / "src"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        a, b = news_pair(folder)
        essay = ROOT / "examples" / "essay_with_quote.txt"
        park = ROOT / "examples" / "collection" / "park.txt"
        dbs = {}
        for version, src in (("old", old_src), ("new", new_src)):
            # each version's collection under its own default spec
            dbs[version] = db = str(folder / f"{version}.db")
            for cmd in (
                ["index", "create", db, "--policy", "group", "--threshold", "0.5"],
                ["index", "add", db, str(ROOT / "examples" / "collection")],
            ):
                timed_child(*command(src, *cmd))
        rows = {
            "compare, news-size pair": ["compare", str(a), str(b), "--fragments", "--json"],
            "compare, essay and source": [
                "compare",
                str(essay),
                str(park),
                "--fragments",
                "--json",
            ],
            "index check --fragments": [
                "index",
                "check",
                "DB",
                str(essay),
                "--fragments",
                "--json",
            ],
        }
        print(f"{'request':<32} {'old CPU s':>10} {'new CPU s':>10} {'new/old':>8}  load")
        for name, cli in rows.items():
            variants = [(name, cli, cli)]
            if cli[0] == "index":
                variants.append((name + " --no-rewrites", cli, [*cli, "--no-rewrites"]))
            for label, old_cli, new_cli in variants:
                old_cli = [dbs["old"] if x == "DB" else x for x in old_cli]
                new_cli = [dbs["new"] if x == "DB" else x for x in new_cli]
                for src, line in ((old_src, old_cli), (new_src, new_cli)):  # compile, untimed
                    timed_child(*command(src, *line))
                old, new, ratios = [], [], []
                for _ in range(args.runs):
                    _, cpu_old = timed_child(*command(old_src, *old_cli))
                    _, cpu_new = timed_child(*command(new_src, *new_cli))
                    old.append(cpu_old)
                    new.append(cpu_new)
                    ratios.append(cpu_new / cpu_old)
                load = os.getloadavg()[0]
                print(
                    f"{label:<32} {statistics.median(old):>10.3f} {statistics.median(new):>10.3f} "
                    f"{statistics.median(ratios):>8.3f}  {load:.1f}"
                )


if __name__ == "__main__":
    main()

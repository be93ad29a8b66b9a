"""Rewrite the outputs shown in README.md and docs/*.md from real runs of their examples.

    python scripts/update_doc_examples.py                 # every doc
    python scripts/update_doc_examples.py docs/guide.md   # some docs
    python scripts/update_doc_examples.py --check         # report only; exit 1 on a difference
    python scripts/update_doc_examples.py --list          # the examples, where they are, which run

Run it with the project's environment (``.venv/bin/python``); review the diff before committing:
a changed figure in a doc should be a change you meant. The convention is in
``tests/_doc_examples.py``; ``tests/test_docs_examples.py`` checks the same in the test run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests._doc_examples import (  # noqa: E402  (after the path is set)
    REPO,
    DocFormatError,
    describe,
    doc_paths,
    mismatches,
    parse_doc,
    run_doc,
    update_doc,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("docs", nargs="*", type=Path, help="docs to update (default: all)")
    parser.add_argument("--check", action="store_true", help="report differences, change nothing")
    parser.add_argument("--list", action="store_true", help="list the examples and stop")
    args = parser.parse_args()
    paths = [p.resolve() for p in args.docs] or doc_paths()
    if args.list:
        for path in paths:
            listing = describe(path)
            if listing:
                print(listing)
        return 0
    failed = False
    for path in paths:
        if not any(block.runs for block in parse_doc(path)):
            continue
        with tempfile.TemporaryDirectory(prefix="neardup-doc-") as scratch:
            outcomes = run_doc(path, Path(scratch) / "scratch")
        problems = mismatches(path, outcomes)
        name = path.relative_to(REPO)
        if args.check:
            for problem in problems:
                print(problem, end="\n\n")
            failed = failed or bool(problems)
            print(f"{name}: {len(outcomes)} examples, {len(problems)} differ", file=sys.stderr)
            continue
        bad_status = [p for p in problems if "exit status" in p.split("\n")[1]]
        for problem in bad_status:
            print(problem, end="\n\n")
        failed = failed or bool(bad_status)
        changed = update_doc(path, outcomes)
        print(
            f"{name}: {len(outcomes)} examples, {'rewritten' if changed else 'unchanged'}",
            file=sys.stderr,
        )
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except DocFormatError as error:
        print(error, file=sys.stderr)
        sys.exit(2)

"""The source names the methods and papers it follows, not the project's history: no "seed 00N"
(say which paper: the shingle-method paper, the pseudo-matrix Bloom filter paper, Zelenkov &
Segalovich's shingles, the TF-IDF news-similarity paper, the web-articles compilation) and no
"issue N" (say what the rule is for) in ``src/``'s code, comments or docstrings. File, command
and data names that hold "seed" are not mentions and are not matched."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "neardup"
HISTORY = re.compile(r"\bseed 00[0-9]\b|\bissue [0-9]+\b", re.IGNORECASE)


def mentions(text: str) -> list[tuple[int, str]]:
    lines = enumerate(text.splitlines(), 1)
    return [(n, line.strip()) for n, line in lines if HISTORY.search(line)]


def test_the_pattern_finds_history() -> None:
    found = mentions("a = 1  # seed 003's formula\n# issue 24: hidden text\nseed_003.txt\nseed 0\n")
    assert [n for n, _ in found] == [1, 2]


def test_no_history_in_the_source() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{n}: {line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, line in mentions(path.read_text(encoding="utf-8"))
    ]
    assert not found, "history in the source:\n" + "\n".join(found)

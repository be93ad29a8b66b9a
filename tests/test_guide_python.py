"""The guide's "Python" section: every block imports from ``neardup`` only, is run by
``tests/test_docs_examples.py`` (the docs' example checker) and shows its output after it."""

from __future__ import annotations

import re
from pathlib import Path

from tests._doc_examples import REPO, Block, parse_doc

GUIDE = REPO / "docs" / "guide.md"


def _python_blocks() -> list[Block]:
    text = GUIDE.read_text(encoding="utf-8")
    start = text.count("\n", 0, text.index("\n## Python\n")) + 1
    end_at = text.find("\n## ", text.index("\n## Python\n") + 1)
    end = text.count("\n", 0, end_at) + 1 if end_at != -1 else len(text.split("\n"))
    return [b for b in parse_doc(Path(GUIDE)) if b.lang == "python" and start <= b.line <= end]


BLOCKS = _python_blocks()


def test_the_section_has_the_examples_the_issue_asks_for() -> None:
    code = "\n".join(block.steps[0].command for block in BLOCKS)
    assert len(BLOCKS) >= 5
    for needed in (
        "compare(",
        "Collection.create(",
        ".check(",
        ".groups()",
        ".remove(",
        "MinHasher(",
        "Banding(",
        "Aligner(",
        "except SpecError",
    ):
        assert needed in code, needed


def test_every_example_runs_imports_neardup_only_and_shows_its_output() -> None:
    for block in BLOCKS:
        code = block.steps[0].command
        imports = re.findall(r"^\s*(?:from|import)\s+([\w.]+)", code, re.MULTILINE)
        assert imports and set(imports) == {"neardup"}, (block.line, imports)
        assert block.runs, f"guide.md:{block.line} is marked no-run"
        assert block.steps[0].shown.strip(), f"guide.md:{block.line} has no output block after it"

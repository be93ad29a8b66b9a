"""docs/python.md (the library in Python): every block imports from ``neardup`` only, is run by
``tests/test_docs_examples.py`` (the docs' example checker) and shows its output after it."""

from __future__ import annotations

import re
from pathlib import Path

from tests._doc_examples import REPO, Block, parse_doc

PYTHON_DOC = REPO / "docs" / "python.md"


def _python_blocks() -> list[Block]:
    return [b for b in parse_doc(Path(PYTHON_DOC)) if b.lang == "python"]


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
        assert block.runs, f"python.md:{block.line} is marked no-run"
        assert block.steps[0].shown.strip(), f"python.md:{block.line} has no output block after it"

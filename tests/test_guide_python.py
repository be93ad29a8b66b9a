"""Every example of the guide's "Python" section runs, imports from ``neardup`` only, and prints
what the guide shows after it."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "guide.md"
FENCE = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)


def _section() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index("\n## Python\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _examples() -> list[tuple[str, str | None]]:
    """``(code, expected output or None)`` for every python block, in order."""
    blocks = [(m.group(1), m.group(2)) for m in FENCE.finditer(_section())]
    out: list[tuple[str, str | None]] = []
    for i, (lang, body) in enumerate(blocks):
        if lang != "python":
            continue
        following = blocks[i + 1] if i + 1 < len(blocks) else None
        out.append((body, following[1] if following and following[0] == "text" else None))
    return out


EXAMPLES = _examples()


def test_the_section_has_the_examples_the_issue_asks_for() -> None:
    code = "\n".join(body for body, _ in EXAMPLES)
    assert len(EXAMPLES) >= 5
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


@pytest.mark.parametrize("number", range(len(EXAMPLES)))
def test_example_runs_and_prints_what_the_guide_shows(
    number: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, expected = EXAMPLES[number]
    imports = re.findall(r"^\s*(?:from|import)\s+([\w.]+)", code, re.MULTILINE)
    assert imports and set(imports) == {"neardup"}, imports
    monkeypatch.chdir(tmp_path)
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        exec(compile(code, f"guide example {number + 1}", "exec"), {"__name__": "__guide__"})
    assert expected is not None, "every example is followed by its output"
    assert stdout.getvalue().rstrip("\n") == expected.rstrip("\n")

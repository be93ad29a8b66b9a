"""Every example of README.md and docs/*.md runs and prints what the doc shows after it.

The convention and the runner are in ``tests/_doc_examples.py``; ``python
scripts/update_doc_examples.py`` rewrites the shown outputs from real runs."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from tests._doc_examples import (
    REPO,
    DocFormatError,
    Outcome,
    doc_paths,
    mismatches,
    parse_doc,
    run_doc,
    update_doc,
)

DOCS = doc_paths()
RUNNABLE = [p for p in DOCS if "<!-- doc-example" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_console_and_python_block_is_marked(path: Path) -> None:
    parse_doc(path)  # raises DocFormatError, naming the file and line


def test_the_docs_have_examples_that_run() -> None:
    names = {path.relative_to(REPO).as_posix() for path in RUNNABLE}
    assert {"README.md", "docs/collection.md", "docs/fragments.md", "docs/guide.md"} <= names


@pytest.mark.slow
@pytest.mark.parametrize("path", RUNNABLE, ids=lambda p: p.relative_to(REPO).as_posix())
def test_doc_examples_print_what_the_doc_shows(path: Path, tmp_path: Path) -> None:
    skipped: list[str] = []
    problems = mismatches(path, run_doc(path, tmp_path / "scratch", skipped))
    for reason in skipped:
        warnings.warn(f"not run: {reason}", stacklevel=1)
    assert not problems, (
        "\n\n".join(problems) + "\n\n(python scripts/update_doc_examples.py rewrites the outputs)"
    )


def _doc(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "example.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_wrong_figure_is_reported_with_file_line_and_both_outputs(tmp_path: Path) -> None:
    path = _doc(
        tmp_path,
        "# t\n\n<!-- doc-example -->\n```console\n"
        "$ echo uniqueness 76.7 %\nuniqueness 100.0 %\n```\n",
    )
    [block] = parse_doc(path)
    outcomes = [Outcome(block, block.steps[0], 0, "uniqueness 76.7 %\n")]
    monkey_repo = tmp_path
    problems = mismatches_in(path, outcomes, monkey_repo)
    assert len(problems) == 1
    assert problems[0].startswith("example.md:5: $ echo uniqueness 76.7 %")
    assert "-uniqueness 100.0 %" in problems[0] and "+uniqueness 76.7 %" in problems[0]


def test_masks_lines_and_exit_status(tmp_path: Path) -> None:
    path = _doc(
        tmp_path,
        '<!-- doc-example: mask="\\d+\\.\\d s" lines="2" exit="2" -->\n'
        "```console\n$ f\ntook 1.0 s\n```\n",
    )
    [block] = parse_doc(path)
    assert block.options == {"mask": [r"\d+\.\d s"], "lines": ["2"], "exit": ["2"]}
    same = Outcome(block, block.steps[0], 2, "took 9.9 s")
    assert mismatches_in(path, [same], tmp_path) == []
    wrong_status = Outcome(block, block.steps[0], 0, "took 9.9 s")
    assert "exit status 0, the doc expects 2" in mismatches_in(path, [wrong_status], tmp_path)[0]


def test_unmarked_blocks_and_reasonless_no_run_are_refused(tmp_path: Path) -> None:
    with pytest.raises(DocFormatError, match=r"example.md:1: a ```console block without"):
        parse_doc(_doc(tmp_path, "```console\n$ ls\n```\n"))
    with pytest.raises(DocFormatError, match=r"example.md:1: a ```bash block without"):
        parse_doc(_doc(tmp_path, "```bash\nls\n```\n"))
    with pytest.raises(DocFormatError, match=r"example.md:1: a ```sh block without"):
        parse_doc(_doc(tmp_path, "```sh\nls\n```\n"))
    with pytest.raises(DocFormatError, match="no-run needs its reason"):
        parse_doc(_doc(tmp_path, '<!-- doc-example: no-run="" -->\n```console\n$ ls\n```\n'))
    with pytest.raises(DocFormatError, match="a marker before a ```text block"):
        parse_doc(_doc(tmp_path, "<!-- doc-example -->\n```text\nx\n```\n"))


def test_update_rewrites_outputs_and_keeps_masked_text(tmp_path: Path) -> None:
    path = _doc(
        tmp_path,
        '<!-- doc-example: mask="\\d+\\.\\d s" -->\n```console\n$ a \\\n  --long\nold 1.0 s\n'
        "$ b\nsame 2.0 s\n```\n\n<!-- doc-example -->\n```python\nprint(1)\n```\n",
    )
    blocks = parse_doc(path)
    outcomes = [
        Outcome(blocks[0], blocks[0].steps[0], 0, "new 3.0 s\nmore\n"),
        Outcome(blocks[0], blocks[0].steps[1], 0, "same 7.0 s\n"),
        Outcome(blocks[1], blocks[1].steps[0], 0, "1\n"),
    ]
    failed = Outcome(blocks[1], blocks[1].steps[0], 1, "Traceback …\n")
    assert not update_doc(path, [failed])  # a failure is never written into the doc
    assert update_doc(path, outcomes)
    assert path.read_text(encoding="utf-8") == (
        '<!-- doc-example: mask="\\d+\\.\\d s" -->\n```console\n$ a \\\n  --long\nnew 3.0 s\nmore\n'
        "$ b\nsame 2.0 s\n```\n\n<!-- doc-example -->\n```python\nprint(1)\n```\n"
        "\n```text\n1\n```\n"
    )
    assert mismatches_in(path, [], tmp_path) == []


def test_a_command_runs_in_the_docs_scratch_directory(tmp_path: Path) -> None:
    path = _doc(
        tmp_path,
        "<!-- doc-example -->\n```console\n$ echo hi > f.txt && ls examples/collection | head -1\n"
        "bakery.txt\n$ cat f.txt\nhi\n```\n",
    )
    outcomes = run_doc(path, tmp_path / "scratch")
    assert mismatches_in(path, outcomes, tmp_path) == []


def mismatches_in(path: Path, outcomes: list[Outcome], root: Path) -> list[str]:
    """``mismatches`` for a doc outside the repository (names relative to ``root``)."""
    import tests._doc_examples as module

    saved = module.REPO
    module.REPO = root
    try:
        return mismatches(path, outcomes)
    finally:
        module.REPO = saved


def test_tail_shows_the_last_lines_and_needs_leaves_a_block_out(tmp_path: Path) -> None:
    path = _doc(
        tmp_path,
        '<!-- doc-example: tail="1" -->\n```console\n$ printf "a\\nb\\nc\\n"\nc\n```\n\n'
        '<!-- doc-example: needs="no-such-file" -->\n```console\n$ false\n```\n',
    )
    skipped: list[str] = []
    outcomes = run_doc(path, tmp_path / "scratch", skipped)
    assert [o.printed for o in outcomes] == ["c"]
    assert skipped == ["example.md:8: no-such-file is missing"]
    assert mismatches_in(path, outcomes, tmp_path) == []


def test_a_bash_block_runs_whole_and_shows_its_output_after_it(tmp_path: Path) -> None:
    path = _doc(
        tmp_path,
        "<!-- doc-example -->\n```bash\nx=2\necho $((x + 1))\n```\n\n```text\n3\n```\n\n"
        '<!-- doc-example: no-run="a server" -->\n```sh\nneardup serve db\n```\n',
    )
    blocks = parse_doc(path)
    assert [b.runs for b in blocks] == [True, False]
    outcomes = run_doc(path, tmp_path / "scratch")
    assert [o.printed for o in outcomes] == ["3\n"]
    assert mismatches_in(path, outcomes, tmp_path) == []
    failing = _doc(tmp_path, "<!-- doc-example -->\n```bash\nfalse\necho not reached\n```\n")
    [outcome] = run_doc(failing, tmp_path / "scratch2")
    assert outcome.status != 0 and "not reached" not in outcome.printed

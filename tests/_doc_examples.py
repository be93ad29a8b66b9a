"""The examples of README.md and docs/*.md, found, run and compared with what the docs show.

The convention (``docs/guide.md`` tells it to writers, under "Examples in these docs"):

* A marker line ``<!-- doc-example -->`` (options after a colon) stands right before a fenced
  block that is run.
* A ```` ```console ```` block holds commands, each on a line starting with ``$ `` (a line ending
  in ``\\`` continues on the next), each followed by what it prints (stdout and stderr as a
  terminal shows them).
* A ```` ```python ```` block is a script, and a ```` ```bash ```` (or ```` ```sh ````) block
  is a shell script run whole by ``bash``; the ```` ```text ```` block right after either (when
  there is one) is what it prints on stdout.
* Every ``console``/``python``/``bash``/``sh`` block carries a marker: one that runs, or one
  that says in one line why it does not (``no-run="why"``); an unmarked one fails the test.
* Every block of a doc runs in one scratch directory of that doc (a copy of ``examples/``, and
  ``.venv`` pointing at the running interpreter's environment), in the doc's order, so a
  collection built by an earlier command is there for a later one.

Options of a marker, ``key="value"`` or a bare ``key``:

* ``no-run="why"`` — shown but not run (a server, a cluster, a long benchmark); the reason is
  required.
* ``mask="REGEX"`` (repeatable) — parts of the output that change from run to run (timings,
  paths); they are compared as ``…``.
* ``lines="1-3,5"`` — the block shows only these lines of each command's output;
  ``tail="2"`` only the last lines (a long report whose summary is what matters).
* ``exit="2"`` — the exit status every command of the block must end with (0 by default).
* ``needs="../shared/data/FILE"`` — the block reads the project's shared data (``../shared``
  beside the scratch directory points at the one beside the repository); where that file is
  missing the block is not run and the runner says so (``run_doc``'s ``skipped``).

``check_doc`` runs one doc and returns readable mismatches; ``update_doc`` rewrites the shown
outputs from real runs (``python scripts/update_doc_examples.py``).
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^<!--\s*doc-example(?::(?P<options>.*?))?\s*-->\s*$")
FENCE_OPEN = re.compile(r"^```(?P<lang>[\w-]*)\s*$")
OPTION = re.compile(r'([\w-]+)(?:="((?:[^"\\]|\\.)*)")?')
RUN_LANGS = ("console", "python", "bash", "sh")
SCRIPT_LANGS = ("python", "bash", "sh")
MASKED = "…"
TIMEOUT_SECONDS = 900


# Docs other sessions own and have not marked yet: their blocks are not checked until they are
# (the owner removes the name once every console/python/bash block there has a marker).
NOT_YET_MARKED: frozenset[str] = frozenset()


def doc_paths() -> list[Path]:
    """README.md and every docs/*.md that follows the convention, in a fixed order."""
    paths = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    return [p for p in paths if p.relative_to(REPO).as_posix() not in NOT_YET_MARKED]


@dataclass
class Step:
    """One command of a console block (or a whole script block) and what the doc shows after it."""

    command: str
    shown: str
    line: int  # 1-based line of the command in the doc


@dataclass
class Block:
    lang: str
    line: int  # 1-based line of the opening fence
    body_start: int  # 0-based index of the first body line
    body_end: int  # 0-based index of the closing fence
    options: dict[str, list[str]] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    # a script block: where the output block's body lies (0-based, end = its closing fence), if any
    output_start: int | None = None
    output_end: int | None = None

    @property
    def runs(self) -> bool:
        return "no-run" not in self.options

    def option(self, name: str, default: str | None = None) -> str | None:
        values = self.options.get(name)
        return values[-1] if values else default


class DocFormatError(ValueError):
    """A doc breaks the convention (an unmarked block, a marker without a block, …)."""


def _parse_options(text: str | None) -> dict[str, list[str]]:
    options: dict[str, list[str]] = {}
    for match in OPTION.finditer(text or ""):
        value = (match.group(2) or "").replace('\\"', '"')
        options.setdefault(match.group(1), []).append(value)
    return options


def _fences(lines: list[str]) -> list[tuple[str, int, int]]:
    """``(lang, opening index, closing index)`` of every fenced block."""
    out: list[tuple[str, int, int]] = []
    i = 0
    while i < len(lines):
        opened = FENCE_OPEN.match(lines[i]) if lines[i].startswith("```") else None
        if opened is None:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        out.append((opened.group("lang"), i, j))
        i = j + 1
    return out


def _console_steps(lines: list[str], start: int, end: int) -> list[Step]:
    steps: list[Step] = []
    i = start
    while i < end:
        if not lines[i].startswith("$ "):
            if steps:
                raise DocFormatError(f"line {i + 1}: output outside a command")
            raise DocFormatError(f"line {i + 1}: a console block starts with '$ command'")
        command_line = i
        parts = [lines[i][2:]]
        while parts[-1].endswith("\\") and i + 1 < end:
            i += 1
            parts.append(lines[i])
        i += 1
        shown: list[str] = []
        while i < end and not lines[i].startswith("$ "):
            shown.append(lines[i])
            i += 1
        steps.append(Step("\n".join(parts), "\n".join(shown), command_line + 1))
    return steps


def _script_step(block: Block, lines: list[str], following: tuple[str, int, int] | None) -> None:
    """A script block's one step: its code, and the ```text block right after it as its
    output."""
    open_at, close_at = block.line - 1, block.body_end
    shown = ""
    if following is not None and following[0] == "text":
        between = lines[close_at + 1 : following[1]]
        if all(not line.strip() for line in between):
            block.output_start, block.output_end = following[1] + 1, following[2]
            shown = "\n".join(lines[following[1] + 1 : following[2]])
    code = "\n".join(lines[open_at + 1 : close_at])
    block.steps = [Step(code, shown, open_at + 2)]


def parse_doc(path: Path) -> list[Block]:
    """The marked blocks of ``path``; an unmarked console/python/bash/sh block is an error."""
    lines = path.read_text(encoding="utf-8").split("\n")
    fences = _fences(lines)
    blocks: list[Block] = []
    for index, (lang, open_at, close_at) in enumerate(fences):
        above = open_at - 1
        while above >= 0 and not lines[above].strip():
            above -= 1
        marker = MARKER.match(lines[above]) if above >= 0 else None
        if marker is None:
            if lang in RUN_LANGS:
                raise DocFormatError(
                    f"{path.name}:{open_at + 1}: a ```{lang} block without a <!-- doc-example --> "
                    'marker (add one, or <!-- doc-example: no-run="why" -->)'
                )
            continue
        if lang not in RUN_LANGS:
            raise DocFormatError(f"{path.name}:{open_at + 1}: a marker before a ```{lang} block")
        block = Block(lang, open_at + 1, open_at + 1, close_at, _parse_options(marker["options"]))
        if "no-run" in block.options and not block.option("no-run"):
            raise DocFormatError(f"{path.name}:{open_at + 1}: no-run needs its reason")
        try:
            if lang == "console":
                block.steps = _console_steps(lines, open_at + 1, close_at)
            else:
                _script_step(block, lines, fences[index + 1] if index + 1 < len(fences) else None)
        except DocFormatError as error:
            raise DocFormatError(f"{path.name}:{error}") from None
        blocks.append(block)
    for i, line in enumerate(lines):
        if MARKER.match(line) and not any(b.line - 1 > i for b in blocks):
            raise DocFormatError(f"{path.name}:{i + 1}: a marker with no block after it")
    return blocks


def _select_lines(text: str, spec: str) -> str:
    picked: list[str] = []
    rows = text.split("\n")
    for part in spec.split(","):
        first, _, last = part.strip().partition("-")
        for number in range(int(first), int(last or first) + 1):
            if number <= len(rows):
                picked.append(rows[number - 1])
    return "\n".join(picked)


def normalized(text: str, masks: list[str]) -> str:
    """Trailing spaces and blank lines dropped, masked parts as ``…``."""
    for mask in masks:
        text = re.sub(mask, MASKED, text)
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


class Scratch:
    """The scratch directory of one doc: a copy of examples/ and ``.venv`` → this environment."""

    def __init__(self, root: Path) -> None:
        self.root = root
        shutil.copytree(REPO / "examples", root / "examples")
        shared = REPO.parent / "shared"
        if shared.is_dir() and not (root.parent / "shared").exists():
            (root.parent / "shared").symlink_to(shared, target_is_directory=True)
        (root / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
        bin_dir = str(Path(sys.executable).parent)
        self.env = {
            **os.environ,
            "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
            "COLUMNS": "100",
            "LINES": "50",
            "TERM": "dumb",
            "NO_COLOR": "1",
            "PYTHONUNBUFFERED": "1",
            "PYTHONIOENCODING": "utf-8",
        }
        for name in ("FORCE_COLOR", "NEARDUP_TOKEN", "VIRTUAL_ENV"):
            self.env.pop(name, None)

    def run(self, block: Block, step: Step) -> tuple[int, str]:
        if block.lang == "console":
            args = ["bash", "-c", step.command]
            stdin = None
            stderr = subprocess.STDOUT
        elif block.lang in ("bash", "sh"):
            args = ["bash", "-e", "-c", step.command]
            stdin = None
            stderr = subprocess.PIPE
        else:
            args = [sys.executable, "-"]
            stdin = step.command
            stderr = subprocess.PIPE
        done = subprocess.run(
            args,
            input=stdin,
            cwd=self.root,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            encoding="utf-8",
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
        printed = done.stdout
        if block.lang in SCRIPT_LANGS and done.returncode != 0:
            printed += done.stderr
        return done.returncode, printed


@dataclass
class Outcome:
    block: Block
    step: Step
    status: int
    printed: str  # after ``lines``, before masks


def run_doc(path: Path, scratch_root: Path, skipped: list[str] | None = None) -> list[Outcome]:
    """Run every runnable block of ``path`` in order, in one scratch directory; a block whose
    ``needs`` file is missing is left out and named in ``skipped``."""
    blocks = parse_doc(path)
    scratch = Scratch(scratch_root)
    outcomes: list[Outcome] = []
    for block in blocks:
        if not block.runs:
            continue
        missing = [n for n in block.options.get("needs", []) if not (scratch_root / n).exists()]
        if missing:
            if skipped is not None:
                skipped.append(f"{path.name}:{block.line}: {', '.join(missing)} is missing")
            continue
        for step in block.steps:
            status, printed = scratch.run(block, step)
            lines_spec = block.option("lines")
            if lines_spec:
                printed = _select_lines(printed, lines_spec)
            tail = block.option("tail")
            if tail:
                printed = "\n".join(normalized(printed, []).split("\n")[-int(tail) :])
            outcomes.append(Outcome(block, step, status, printed))
    return outcomes


def mismatches(path: Path, outcomes: list[Outcome]) -> list[str]:
    """A readable report per example whose output or status differs from the doc."""
    name = path.relative_to(REPO)
    problems: list[str] = []
    for outcome in outcomes:
        block, step = outcome.block, outcome.step
        expected_status = int(block.option("exit", "0") or 0)
        masks = block.options.get("mask", [])
        shown = normalized(step.shown, masks)
        printed = normalized(outcome.printed, masks)
        head = f"{name}:{step.line}: " + (
            f"$ {step.command}" if block.lang == "console" else f"{block.lang} block"
        )
        if outcome.status != expected_status:
            problems.append(
                f"{head}\n  exit status {outcome.status}, the doc expects {expected_status}\n"
                + _indent(outcome.printed)
            )
        elif shown != printed:
            diff = difflib.unified_diff(
                shown.split("\n"), printed.split("\n"), "the doc shows", "the command printed", n=1
            )
            problems.append(f"{head}\n" + _indent("\n".join(line.rstrip() for line in diff)))
    return problems


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.rstrip("\n").split("\n"))


def _shown_lines(outcome: Outcome, masks: list[str]) -> list[str]:
    """What the doc should show: its own text when only masked parts differ (no churn from
    timings) or the command failed (a failure is reported, never written into the doc), else
    what was printed."""
    failed = outcome.status != int(outcome.block.option("exit", "0") or 0)
    same = failed or normalized(outcome.step.shown, masks) == normalized(outcome.printed, masks)
    text = normalized(outcome.step.shown if same else outcome.printed, [])
    return text.split("\n") if text else []


def update_doc(path: Path, outcomes: list[Outcome]) -> bool:
    """Rewrite the shown outputs of ``path`` from ``outcomes``; True when the file changed."""
    original = path.read_text(encoding="utf-8")
    lines = original.split("\n")
    by_block: dict[int, list[Outcome]] = {}
    for outcome in outcomes:
        by_block.setdefault(outcome.block.line, []).append(outcome)
    # from the bottom up, so earlier indices stay valid
    for block in sorted({o.block.line: o.block for o in outcomes}.values(), key=lambda b: -b.line):
        done = by_block[block.line]
        masks = block.options.get("mask", [])

        if block.lang == "console":
            body: list[str] = []
            for outcome in done:
                command_lines = outcome.step.command.split("\n")
                body.append("$ " + command_lines[0])
                body.extend(command_lines[1:])
                body.extend(_shown_lines(outcome, masks))
            lines[block.body_start : block.body_end] = body
        else:
            printed = _shown_lines(done[0], masks)
            if block.output_start is not None and block.output_end is not None:
                lines[block.output_start : block.output_end] = printed
            elif printed:
                lines[block.body_end + 1 : block.body_end + 1] = ["", "```text", *printed, "```"]
    text = "\n".join(lines)
    if text != original:
        path.write_text(text, encoding="utf-8")
        return True
    return False


def describe(path: Path) -> str:
    """One line per block: where it is, whether it runs, its commands (for the report)."""
    out: list[str] = []
    for block in parse_doc(path):
        state = "runs" if block.runs else f"no-run: {block.option('no-run')}"
        first = block.steps[0].command.split("\n")[0] if block.steps else ""
        if block.lang in SCRIPT_LANGS:
            first = f"{block.lang} block"
        out.append(f"{path.relative_to(REPO)}:{block.line} {block.lang} ({state}) {first}")
    return "\n".join(out)

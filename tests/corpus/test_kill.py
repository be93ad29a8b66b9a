"""SIGKILL during ``dedup`` (local, one and two processes) leaves no output that looks
complete: ``OUT`` is absent, or the complete output of an earlier run; a rerun with
``--overwrite`` succeeds and gives the output of an uninterrupted run.

The child (``tests/corpus/_kill_child.py``) stops at a named point of the run and says so;
it is killed there, with its worker processes (its process group), so every kill lands in
live work at a known place, whatever the machine's speed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from neardup.cli.main import main
from tests.corpus._corpus import records, write

ROOT = Path(__file__).resolve().parents[2]
OUTPUT_FILES = ("documents.jsonl", "edges.jsonl", "spec.json")


def contents(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in OUTPUT_FILES}


def kill_at(corpus: Path, out: Path, jobs: int, point: str) -> None:
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.corpus._kill_child", str(corpus), str(out), str(jobs), point],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: the workers are killed with it
    )
    assert child.stdout is not None
    try:
        lines = []
        for line in child.stdout:
            lines.append(line.strip())
            if line.strip() in (f"at {point}", "done"):
                break
        assert lines[-1] == f"at {point}", f"the child never reached {point}: {lines}"
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL


@pytest.fixture(scope="module")
def corpus_and_reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    root = tmp_path_factory.mktemp("kill")
    corpus = write(root / "in.jsonl", records(120))
    assert main(["dedup", str(corpus), "--out", str(root / "ref"), "-q"]) == 0
    return corpus, contents(root / "ref")


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize(
    ("point", "earlier", "left"),
    [
        ("sign", False, "nothing"),  # a first run killed while its workers sign
        ("write", True, "the earlier output"),  # killed after writing its documents
        ("publish", True, "nothing"),  # between renaming the old output aside and the new in
    ],
)
def test_sigkill_leaves_no_output_that_looks_complete(
    corpus_and_reference: tuple[Path, dict[str, bytes]],
    tmp_path: Path,
    jobs: int,
    point: str,
    earlier: bool,
    left: str,
) -> None:
    corpus, reference = corpus_and_reference
    out = tmp_path / "out"
    if earlier:
        assert main(["dedup", str(corpus), "--out", str(out), "-q"]) == 0
    kill_at(corpus, out, jobs, point)
    if left == "nothing":
        assert not out.exists()
    else:
        assert contents(out) == reference
    assert main(["dedup", str(corpus), "--out", str(out), "-q", "--overwrite"]) == 0
    assert contents(out) == reference
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]

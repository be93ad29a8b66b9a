"""Running a ``neardup`` command in-process, as the CLI tests do."""

from __future__ import annotations

import pytest

from neardup.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The exit code, standard output and standard error of ``neardup ARGS`` (what was
    printed before it is dropped)."""
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err

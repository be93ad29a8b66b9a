"""Every test keeps the forms its chains learn in a folder of its own, so no test reads what
an earlier run (or another test) left in the user's cache; and every test hears the CLI in
English whatever the machine's locale (``NEARDUP_LANG=en``), except those that set another
language themselves (tests/cli/test_language.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _learned_forms_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEARDUP_LEARNED_DIR", str(tmp_path / "learned-forms"))


@pytest.fixture(autouse=True)
def _cli_in_english(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEARDUP_LANG", "en")

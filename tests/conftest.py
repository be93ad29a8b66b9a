"""Every test keeps the forms its chains learn in a folder of its own, so no test reads what
an earlier run (or another test) left in the user's cache."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _learned_forms_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEARDUP_LEARNED_DIR", str(tmp_path / "learned-forms"))

"""Fixtures the CLI tests share."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import _textgen as tg


@pytest.fixture
def texts(tmp_path: Path) -> Path:
    """A folder of three texts: one, a near copy of it (2 % of the words edited), another."""
    folder = tmp_path / "texts"
    folder.mkdir()
    base = tg.text(300, 1)
    (folder / "base.txt").write_text(base, encoding="utf-8")
    (folder / "near.txt").write_text(tg.edit(base, 0.02, 2), encoding="utf-8")
    (folder / "other.txt").write_text(tg.text(300, 3), encoding="utf-8")
    return folder

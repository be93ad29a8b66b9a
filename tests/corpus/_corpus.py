"""A small JSONL corpus with near-copies, for the dedup tests of this folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests import _textgen


def records(n: int = 24) -> list[dict[str, Any]]:
    """``n`` texts of 80 words; every third is a near-copy (3 % of words edited) of the one
    before it, so groups form."""
    out: list[dict[str, Any]] = []
    for i in range(n):
        if i % 3 == 2:
            text = _textgen.edit(out[i - 1]["text"], 0.03, seed=100 + i)
        else:
            text = _textgen.text(80, seed=i)
        out.append({"id": f"d{i}", "text": text, "n": i})
    return out


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

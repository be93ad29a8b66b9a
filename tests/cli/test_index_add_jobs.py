"""``neardup index add -j/--jobs``: the threads analyzing ahead reach the collection, and the
decisions and what is stored are the same whatever their number."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from neardup.index import Collection
from neardup.sketch import parallel
from tests import _batch_texts as bt
from tests.cli._run import run


@pytest.fixture
def jobs_seen(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ``jobs`` of every ``Collection.iter_add`` call the command makes."""
    seen: list[int] = []
    iter_add = Collection.iter_add

    def spy(self: Collection, items: Any, **options: Any) -> Any:
        seen.append(options["jobs"])
        return iter_add(self, items, **options)

    monkeypatch.setattr(Collection, "iter_add", spy)
    return seen


@pytest.fixture
def data(tmp_path: Path) -> Path:
    rows = [
        {"id": f"d{i:03d}", "text": text}
        for i, text in enumerate(bt.with_near_duplicates(60, seed=8))
    ]
    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    return path


def _add(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: Path, name: str, *jobs: str
) -> tuple[dict[str, Any], str]:
    """A new collection ``name`` with ``data`` added by ``index add … --json`` with the
    options ``jobs``: the command's summary and the collection's export."""
    db = str(tmp_path / f"{name}.db")
    create = ("index", "create", db, "-p", "ru", "--policy", "group", "--threshold", "0.5")
    assert run(capsys, *create)[0] == 0
    code, out, err = run(
        capsys, "index", "add", db, str(data), "--batch-size", "7", "--json", *jobs
    )
    assert code == 0, err
    exported = tmp_path / f"{name}.jsonl"
    assert run(capsys, "index", "export", db, str(exported))[0] == 0
    return json.loads(out), exported.read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_same_output_and_collection_whatever_the_jobs(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    data: Path,
    jobs_seen: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    one, one_export = _add(capsys, tmp_path, data, "one", "-j", "1")
    two, two_export = _add(capsys, tmp_path, data, "two", "--jobs", "2")
    monkeypatch.setattr(parallel, "default_jobs", lambda: 3)
    every_cpu, every_cpu_export = _add(capsys, tmp_path, data, "all", "-j", "0")
    default, default_export = _add(capsys, tmp_path, data, "default")
    # 0 and no option: one thread per CPU
    assert jobs_seen == [1, 2, 3, 3]
    assert len(one["decisions"]) == one["accepted"] + one["rejected"] == 60
    assert set(one["reasons"]) - {"new"}  # texts were grouped, not only added
    assert two == every_cpu == default == one
    assert two_export == every_cpu_export == default_export == one_export
    assert len(one_export.splitlines()) == one["documents"] == one["accepted"]


def test_help_and_bad_jobs(capsys: pytest.CaptureFixture[str], tmp_path: Path, data: Path) -> None:
    code, out, _ = run(capsys, "index", "add", "--help")
    assert code == 0
    assert "-j, --jobs" in out and "one per CPU" in out
    db = str(tmp_path / "c.db")
    assert run(capsys, "index", "create", db, "-p", "plain")[0] == 0
    for bad in ("-1", "1025", "two"):
        code, _, err = run(capsys, "index", "add", db, str(data), "-j", bad)
        assert code == 2 and "--jobs" in err, bad
    code, out, _ = run(capsys, "index", "stats", db, "--json")
    assert json.loads(out)["documents"] == 0

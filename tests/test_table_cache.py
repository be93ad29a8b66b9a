"""The on-disk cache of Unicode tables: keyed, atomic, damaged files rebuilt."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from neardup import _table_cache as table_cache
from neardup._table_cache import disk_cached, load
from neardup.analysis import char_filters

SOURCE = "FACTOR = {factor}\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("NEARDUP_CACHE_DIR", str(root))
    return root


@pytest.fixture
def source_module(tmp_path: Path) -> types.ModuleType:
    """A module whose source stands for the code that builds a table."""
    path = tmp_path / "table_source.py"
    path.write_text(SOURCE.format(factor=3))
    spec = importlib.util.spec_from_file_location("table_source", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def counted(module: types.ModuleType, name: str = "squares") -> tuple[list[int], Any]:
    """A builder that counts its calls: the cube of ``n`` numbers as an array, and with
    ``pair`` a tuple of two arrays."""
    calls: list[int] = []

    @disk_cached(name, module)
    def build(n: int, pair: bool = False) -> object:
        calls.append(n)
        values = np.arange(n, dtype=np.uint32) * module.FACTOR
        return (values, values.astype(np.int64) + 1) if pair else values

    return calls, build


def files(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "unicode").iterdir())


def test_built_once_then_loaded_exactly(cache: Path, source_module: types.ModuleType) -> None:
    calls, build = counted(source_module)
    first = build(5)
    again = build(5)
    assert calls == [5]
    assert again.dtype == np.uint32
    assert again.tolist() == [0, 3, 6, 9, 12] == first.tolist()
    pair = build(4, True)
    loaded = build(4, True)
    assert calls == [5, 4]
    assert isinstance(loaded, tuple) and len(loaded) == 2
    assert loaded[0].tolist() == [0, 3, 6, 9] and loaded[1].dtype == np.int64
    assert loaded[1].tolist() == pair[1].tolist() == [1, 4, 7, 10]
    # one file per table and arguments, no temporary file left behind
    assert len(files(cache)) == 2
    assert not [name for name in files(cache) if name.endswith(".tmp")]


def test_key_follows_unicode_version(
    cache: Path, source_module: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls, build = counted(source_module)
    before = build.path(5)
    build(5)
    monkeypatch.setattr(table_cache, "unicodedata", types.SimpleNamespace(unidata_version="99.0.0"))
    after = build.path(5)
    assert after != before and after is not None and "-99.0.0-" in after.name
    build(5)
    assert calls == [5, 5]
    # the table of the other Unicode version was replaced, not kept beside it
    assert [after.name] == files(cache)


def test_key_follows_the_building_source(cache: Path, source_module: types.ModuleType) -> None:
    calls, build = counted(source_module)
    assert build(3).tolist() == [0, 3, 6]
    before = build.path(3)
    assert source_module.__file__ is not None
    Path(source_module.__file__).write_text(SOURCE.format(factor=5) + "# changed\n")
    table_cache._source_digest.cache_clear()
    source_module.FACTOR = 5
    after = build.path(3)
    assert after != before
    assert build(3).tolist() == [0, 5, 10]
    assert calls == [3, 3]


def test_arguments_have_files_of_their_own(cache: Path, source_module: types.ModuleType) -> None:
    calls, build = counted(source_module)
    build(2)
    build(3)
    build(2)
    build(3)
    assert calls == [2, 3]
    assert len(files(cache)) == 2


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # cut short
        lambda data: data[:-1] + bytes([data[-1] ^ 0xFF]),  # a flipped byte in the array
        lambda data: b"",  # empty
        lambda data: b"NOTATABLE" + data[9:],  # another format
        lambda data: data + b"\x00",  # trailing garbage
    ],
)
def test_damaged_file_is_rebuilt(
    cache: Path, source_module: types.ModuleType, damage: object
) -> None:
    calls, build = counted(source_module)
    build(6)
    path = build.path(6)
    assert path is not None
    good = path.read_bytes()
    path.write_bytes(damage(good))  # type: ignore[operator]
    assert load(path) is None
    assert build(6).tolist() == [0, 3, 6, 9, 12, 15]
    assert calls == [6, 6]
    assert path.read_bytes() == good  # written again, whole


def test_cache_off_or_unwritable(
    tmp_path: Path, source_module: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEARDUP_CACHE_DIR", "")
    calls, build = counted(source_module)
    assert build.path(2) is None
    build(2)
    build(2)
    assert calls == [2, 2]
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("NEARDUP_CACHE_DIR", str(blocker))
    assert build(2).tolist() == [0, 3]
    assert build(2).tolist() == [0, 3]
    assert calls == [2, 2, 2, 2]


def test_default_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("NEARDUP_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert table_cache.cache_dir() == tmp_path / "neardup"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert table_cache.cache_dir() == Path.home() / ".cache" / "neardup"


def test_analyzer_tables_from_disk_equal_fresh_builds(cache: Path) -> None:
    """The analyzer's real tables: what a later process loads is exactly what it would build."""
    from neardup._kernels import text as text_kernels

    filters = ("nfkc", "lowercase", "yo")
    builders = [
        (text_kernels.class_table.__wrapped__, (char_filters.FAST_DOMAIN,)),  # type: ignore[attr-defined]
        (char_filters._nfkc_safe.__wrapped__, ()),  # type: ignore[attr-defined]
        (char_filters._build_fused_table, (filters,)),
    ]
    for cached, args in builders:
        written = cached(*args)  # builds (the directory is empty) and writes
        loaded = cached(*args)  # reads the file
        fresh = cached.__wrapped__(*args)  # builds again, no disk
        for value in (written, loaded):
            for got, want in zip(
                value if isinstance(value, tuple) else (value,),
                fresh if isinstance(fresh, tuple) else (fresh,),
                strict=True,
            ):
                assert got.dtype == want.dtype
                assert np.array_equal(got, want)
    assert len(files(cache)) == 3
    assert sys.maxunicode == 0x10FFFF

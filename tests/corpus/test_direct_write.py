"""The sequential writer gives the same file direct or through the page cache, whatever the
pieces' sizes, and falls back to the page cache where direct writes are refused."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np
import pytest

from neardup.corpus import direct_write
from neardup.corpus.direct_write import ALIGN, SequentialWriter


def _write(
    path: Path, pieces: list[bytes], *, direct: bool, background: bool = False
) -> SequentialWriter:
    sink = SequentialWriter(path, direct=direct, background=background)
    for piece in pieces:
        buffer = sink.reserve(len(piece))
        buffer[:] = np.frombuffer(piece, dtype=np.uint8)
        sink.commit(len(piece))
    sink.close()
    return sink


@pytest.mark.parametrize(
    "sizes",
    [
        [],
        [0],
        [1],
        [ALIGN],
        [ALIGN - 1, 1],
        [ALIGN + 1, 0, 3 * ALIGN - 2, 5],
        [100_000, 7, 1 << 20, ALIGN * 3],
    ],
)
def test_direct_and_buffered_files_are_the_same(tmp_path: Path, sizes: list[int]) -> None:
    rng = np.random.default_rng(len(sizes) + sum(sizes))
    pieces = [rng.integers(0, 256, size, dtype=np.uint8).tobytes() for size in sizes]
    want = b"".join(pieces)
    for direct in (True, False):
        for background in (False, True):
            path = tmp_path / f"out_{direct}_{background}"
            _write(path, pieces, direct=direct, background=background)
            assert path.read_bytes() == want, (direct, background)


def test_an_existing_file_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "out"
    path.write_bytes(b"x" * (3 * ALIGN + 17))
    _write(path, [b"short"], direct=True)
    assert path.read_bytes() == b"short"


def test_a_refused_direct_open_writes_through_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not hasattr(os, "O_DIRECT"):
        pytest.skip("no O_DIRECT on this system")
    real_open = os.open

    def refuse_direct(path: str, flags: int, mode: int = 0o777) -> int:
        if flags & os.O_DIRECT:
            raise OSError(errno.EINVAL, "Invalid argument")
        return real_open(path, flags, mode)

    monkeypatch.setattr(direct_write.os, "open", refuse_direct)
    sink = _write(tmp_path / "out", [b"a" * 5000, b"b" * 3], direct=True)
    assert not sink.direct
    assert (tmp_path / "out").read_bytes() == b"a" * 5000 + b"b" * 3


def test_a_refused_first_direct_write_goes_on_through_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not hasattr(os, "O_DIRECT"):
        pytest.skip("no O_DIRECT on this system")
    real_write = os.write
    refused: list[int] = []

    def refuse_once(fd: int, data: memoryview) -> int:
        if not refused:
            refused.append(len(data))
            raise OSError(errno.EINVAL, "Invalid argument")
        return real_write(fd, data)

    monkeypatch.setattr(direct_write.os, "write", refuse_once)
    pieces = [bytes(range(256)) * 40, b"tail", b"x" * 9000]
    sink = _write(tmp_path / "out", pieces, direct=True, background=True)
    assert refused and not sink.direct
    assert (tmp_path / "out").read_bytes() == b"".join(pieces)


def test_a_failed_background_write_is_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int, data: memoryview) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(direct_write.os, "write", full)
    sink = SequentialWriter(tmp_path / "out", direct=False, background=True)
    buffer = sink.reserve(10)
    buffer[:] = 1
    sink.commit(10)
    with pytest.raises(OSError, match="No space left"):
        sink.close()

"""Damaged ``.pmbf`` files are refused through the error tree, and a killed build leaves none.

Issue 27: ``bloom query`` on a damaged filter printed ``zipfile.BadZipFile`` tracebacks, and
the library raised ``BadZipFile`` and ``MemoryError``. Every damage here (bits flipped, the file
cut, bytes zeroed or repeated, the zip's members' headers rewritten) must end in the filter
loading whole (a flip the format cannot see) or in :class:`DamagedFileError`; through the CLI,
exit 1 with one ``Error:`` line.
"""

from __future__ import annotations

import io
import json
import random
import signal
import struct
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest

from neardup.bloom.file import BloomIndex
from neardup.bloom.pseudo_matrix import _MAGIC, PseudoMatrixBloomFilter
from neardup.cli.main import main
from neardup.errors import DamagedFileError, StorageError
from tests._textgen import text

DAMAGES = 300


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, bytes]:
    folder = tmp_path_factory.mktemp("pmbf")
    corpus = folder / "corpus.jsonl"
    docs = {f"d{i}": text(120, seed=i) for i in range(12)}
    corpus.write_text("".join(json.dumps({"id": k, "text": v}) + "\n" for k, v in docs.items()))
    path = folder / "c.pmbf"
    args = ["bloom", "build", str(corpus), "-o", str(path), "--preset", "plain", "--n", "300"]
    assert main(args) == 0
    query = folder / "q.txt"
    query.write_text(docs["d3"], encoding="utf-8")
    return path, query, path.read_bytes()


def _damage(data: bytes, rng: random.Random) -> bytes:
    kind = rng.randrange(6)
    cut = rng.randrange(len(data))
    if kind == 0:  # one bit flipped
        flipped = bytearray(data)
        flipped[cut] ^= 1 << rng.randrange(8)
        return bytes(flipped)
    if kind == 1:  # the file cut short
        return data[:cut]
    if kind == 2:  # a run of bytes zeroed
        return data[:cut] + bytes(rng.randrange(1, 64)) + data[cut + 64 :]
    if kind == 3:  # random bytes written over a run
        return data[:cut] + rng.randbytes(rng.randrange(1, 200)) + data[cut + 200 :]
    if kind == 4:  # a run repeated
        return data[:cut] + data[cut : cut + 100] + data[cut:]
    return _member_rewritten(data, rng)


def _member_rewritten(data: bytes, rng: random.Random) -> bytes:
    """A well-formed zip whose one member is a damaged array: a header that declares an
    enormous shape, a dtype numpy refuses, or a shape that disagrees with the data."""
    with zipfile.ZipFile(io.BytesIO(data[len(_MAGIC) :])) as source:
        members = {name: source.read(name) for name in source.namelist()}
    name = rng.choice(sorted(members))
    header = rng.choice(
        [
            "{'descr': '<u8', 'fortran_order': False, 'shape': (1000000000000000,), }",
            "{'descr': '|O', 'fortran_order': False, 'shape': (3,), }",
            "{'descr': '<u8', 'fortran_order': False, 'shape': (7, 3), }",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
            "not a dict at all",
        ]
    )
    padded = header + " " * (63 - (10 + len(header)) % 64) + "\n"
    members[name] = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(padded)) + padded.encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for member, content in members.items():
            target.writestr(member, content)
    return _MAGIC + out.getvalue()


def test_every_damaged_file_loads_whole_or_is_refused(
    built: tuple[Path, Path, bytes], tmp_path: Path
) -> None:
    _, _, data = built
    rng = random.Random(27)
    refused = 0
    for _ in range(DAMAGES):
        damaged = tmp_path / "damaged.pmbf"
        damaged.write_bytes(_damage(data, rng))
        try:
            BloomIndex.load(damaged)
        except DamagedFileError as exc:
            assert str(damaged) in str(exc)
            refused += 1
        except StorageError:
            pytest.fail("a damaged file must be a DamagedFileError")
        except Exception as exc:  # noqa: BLE001 - an InputError for a bad magic line is fine
            assert type(exc).__name__ == "InputError", repr(exc)
    assert refused > DAMAGES // 2


def test_the_command_refuses_a_damaged_filter_without_a_traceback(
    built: tuple[Path, Path, bytes], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, query, data = built
    cases = {
        "bad crc": _flip(data, len(data) // 2),
        "not a zip": _MAGIC + b"\x00" * 500,
        "cut": data[: len(data) - 40],
        "huge shape": _member_rewritten(data, random.Random(0)),
    }
    for name, damaged in cases.items():
        target = tmp_path / f"{name}.pmbf"
        target.write_bytes(damaged)
        code = main(["bloom", "query", str(target), str(query)])
        err = capsys.readouterr().err
        assert code == 1, (name, err)
        assert err.startswith("Error: the Bloom filter file") and "is damaged" in err, err
        assert "Traceback" not in err
        assert len(err.splitlines()) == 1 and len(err) < 300 + len(str(target)), err
        assert err.rstrip().endswith("build it again with neardup bloom build"), err


def _flip(data: bytes, at: int) -> bytes:
    flipped = bytearray(data)
    flipped[at] ^= 0xFF
    return bytes(flipped)


def test_the_library_raises_only_storage_errors_for_damaged_bytes(
    built: tuple[Path, Path, bytes],
) -> None:
    _, _, data = built
    filt = PseudoMatrixBloomFilter.from_bytes(
        BloomIndex.load(built[0]).bloom.to_bytes()
    )  # a whole file's filter round-trips
    assert len(filt) == 12
    rng = random.Random(5)
    for _ in range(100):
        try:
            PseudoMatrixBloomFilter.from_bytes(_damage(filt.to_bytes(), rng))
        except StorageError:
            pass


def test_ids_that_disagree_with_the_filter_are_damage(
    built: tuple[Path, Path, bytes], tmp_path: Path
) -> None:
    path, _, _ = built
    index = BloomIndex.load(path)
    index.ids = index.ids[:5]
    short = tmp_path / "short.pmbf"
    index.save(short)
    with pytest.raises(DamagedFileError, match="12 documents but 5 ids"):
        BloomIndex.load(short)


# ---- a build killed while it writes -----------------------------------------------------------

KILLED_WRITER = textwrap.dedent(
    """
    import os, signal, sys
    from neardup.bloom.file import BloomIndex
    from neardup.bloom.pseudo_matrix import PseudoMatrixBloomFilter
    from neardup.fingerprints.pipeline import make_spec
    import numpy as np

    filt = PseudoMatrixBloomFilter(n=300)
    for key in range(40):
        filt.add(key, np.arange(key * 100, key * 100 + 90, dtype=np.uint64))
    moment = sys.argv[2]
    real_fsync, real_replace = os.fsync, os.replace
    def killed(*args):
        os.kill(os.getpid(), signal.SIGKILL)
    if moment == "write":  # killed with the bytes written but not yet on disk or renamed
        os.fsync = killed
    else:  # killed just before the rename
        os.replace = killed
    BloomIndex(filt, [f"d{i}" for i in range(40)], make_spec("plain")).save(sys.argv[1])
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["write", "rename"])
@pytest.mark.parametrize("existing", [False, True])
def test_a_build_killed_while_writing_leaves_no_half_file(
    built: tuple[Path, Path, bytes], tmp_path: Path, moment: str, existing: bool
) -> None:
    path = tmp_path / "out.pmbf"
    if existing:
        path.write_bytes(built[2])
    child = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(path), moment])
    assert child.returncode == -signal.SIGKILL
    if existing:
        assert path.read_bytes() == built[2]  # the old file, whole
        assert len(BloomIndex.load(path).ids) == 12
    else:
        assert not path.exists()


@pytest.mark.slow
def test_sigkill_during_bloom_build_leaves_a_whole_file_or_none(tmp_path: Path) -> None:
    """The real command, killed at moments spread over its run: the output is never a file
    that does not load."""
    corpus = tmp_path / "corpus.jsonl"
    docs = {f"d{i}": text(300, seed=i) for i in range(300)}
    corpus.write_text("".join(json.dumps({"id": k, "text": v}) + "\n" for k, v in docs.items()))
    out = tmp_path / "out.pmbf"
    command = [sys.executable, "-m", "neardup.cli.main", "bloom", "build", str(corpus)]
    command += ["-o", str(out), "--preset", "plain", "--n", "2000"]
    assert subprocess.run(command, capture_output=True).returncode == 0  # warm, and timed
    whole = BloomIndex.load(out)
    out.unlink()
    rng = random.Random(3)
    for round_ in range(8):
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            proc.wait(timeout=rng.uniform(0.2, 4.0))
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        if out.exists():
            loaded = BloomIndex.load(out)  # never a DamagedFileError
            assert loaded.ids == whole.ids, round_
            assert np.array_equal(loaded.bloom.rows, whole.bloom.rows)
            out.unlink()

"""The damaged-file probe: every kind of damage gives a clean refusal and writes nothing.

Each test builds a small SQLite collection, damages it one way, then tries to write into it
(through the library and the CLI): the attempt must end in a NeardupError (exit 1 or 2 in the
CLI, one line, no traceback) and leave the file's bytes exactly as they were.
"""

from __future__ import annotations

import hashlib
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from neardup.cli.main import main
from neardup.errors import DamagedCollectionError, NeardupError, StorageError
from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec
from tests import _textgen as tg

SPEC = make_spec("plain")
N_DOCS = 60


def _build(path: Path) -> None:
    with Collection.create(path, SPEC, IndexSpec(policy="allow", threshold=0.5)) as col:
        col.add_many([(f"d{i}", tg.text(120, i), {"i": i}) for i in range(N_DOCS)], batch_size=20)
    assert not Path(str(path) + "-wal").exists()  # checkpointed into the file on close


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _sql(path: Path, statement: str, params: tuple[object, ...] = ()) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.execute(statement, params)
        conn.commit()
    finally:
        conn.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "c.db"
    _build(path)
    return path


def _refuses_writes(db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> str:
    """Try to add (library and CLI); both must refuse and leave the bytes as they were."""
    before = _digest(db)
    with pytest.raises(NeardupError) as info:
        with Collection.open(db) as col:
            col.add("new", tg.text(120, 0))  # a copy of d0: d0 is a candidate
    assert _digest(db) == before
    text = tmp_path / "new.txt"
    text.write_text(tg.text(120, 0), encoding="utf-8")
    capsys.readouterr()
    code = main(["index", "add", str(db), str(text)])
    out, err = capsys.readouterr()
    assert code in (1, 2)
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("Error: ")
    assert _digest(db) == before
    return str(info.value)


def test_missing_spec_row(db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _sql(db, "DELETE FROM meta WHERE key = 'spec'")
    message = _refuses_writes(db, capsys, tmp_path)
    assert message == f"the collection at {db} is damaged: its metadata has no 'spec' row"
    capsys.readouterr()
    assert main(["index", "stats", str(db)]) == 1
    assert capsys.readouterr().err.strip() == f"Error: {message}"


@pytest.mark.parametrize(
    ("key", "value", "detail"),
    [
        ("next_key", "12a", "the key counter is '12a', not a non-negative integer"),
        ("spec", "{not json", "its stored spec is not readable (SpecError"),
        ("index_spec", "[1, 2]", "its stored spec is not readable (ValueError: not a JSON object"),
    ],
)
def test_bad_meta_values(
    db: Path,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    key: str,
    value: str,
    detail: str,
) -> None:
    _sql(db, "UPDATE meta SET value = ? WHERE key = ?", (value, key))
    message = _refuses_writes(db, capsys, tmp_path)
    assert message.startswith(f"the collection at {db} is damaged: {detail}")


def test_odd_length_fingerprint_blob(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _sql(db, "UPDATE docs SET fp = x'0102030405' WHERE id = 'd0'")
    message = _refuses_writes(db, capsys, tmp_path)
    assert "is damaged" in message and "8-byte values" in message
    with Collection.open(db, readonly=True) as col:
        with pytest.raises(DamagedCollectionError, match="8-byte"):
            col.check(tg.text(120, 0))


def test_odd_length_samples_blob_names_the_db_in_the_cli(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _sql(db, "UPDATE docs SET samples = x'01020304050607' WHERE id = 'd3'")
    query = db.parent / "q.txt"
    query.write_text(tg.text(120, 3), encoding="utf-8")
    capsys.readouterr()
    assert main(["index", "check", str(db), str(query)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"Error: the collection at {db} is damaged: a stored array of 7 bytes")


def test_non_json_document_meta(db: Path) -> None:
    _sql(db, "UPDATE docs SET meta = '{oops' WHERE id = 'd5'")
    with Collection.open(db, readonly=True) as col:
        with pytest.raises(DamagedCollectionError, match="meta is not JSON"):
            col.get("d5")


def test_lowered_key_counter_is_detected_not_a_duplicate_id(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _sql(db, "UPDATE meta SET value = '7' WHERE key = 'next_key'")
    message = _refuses_writes(db, capsys, tmp_path)
    assert message == (
        f"the collection at {db} is damaged: the key counter 7 is not past the largest "
        f"stored key {N_DOCS}"
    )
    with Collection.open(db, readonly=True) as col:
        assert col.verify_integrity() == [f"key counter 7 is not past the largest key {N_DOCS}"]


def test_negative_size_fails_verify(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _sql(db, "UPDATE docs SET size = -5 WHERE key = 4")
    with Collection.open(db, readonly=True) as col:
        size = col.analyze(tg.text(120, 3)).size
        assert col.verify_integrity() == [f"doc 4 (d3) records size -5, its fingerprints {size}"]
    capsys.readouterr()
    assert main(["index", "verify", str(db)]) == 1
    out = capsys.readouterr().out
    assert "records size -5" in out


def _page_size(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA page_size").fetchone()[0])
    finally:
        conn.close()


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _garbage_header(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[:100] = bytes(random.Random(1).randrange(256) for _ in range(100))
    path.write_bytes(bytes(data))


def _zero_page(path: Path) -> None:
    size = _page_size(path)
    data = bytearray(path.read_bytes())
    page = len(data) // size // 2
    data[page * size : (page + 1) * size] = bytes(size)
    path.write_bytes(bytes(data))


def _random_mid_file(path: Path, length: int, seed: int) -> None:
    data = bytearray(path.read_bytes())
    start = len(data) // 2 - length // 2
    rng = random.Random(seed)
    data[start : start + length] = bytes(rng.randrange(256) for _ in range(length))
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "damage",
    [
        _truncate,
        _garbage_header,
        _zero_page,
        lambda p: _random_mid_file(p, 4096, 1),
        lambda p: _random_mid_file(p, 16384, 2),
        lambda p: _random_mid_file(p, 65536, 3),
    ],
    ids=["truncated", "garbage-header", "zeroed-page", "random-4k", "random-16k", "random-64k"],
)
def test_damaged_file_is_refused_before_anything_is_written(
    db: Path,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    damage: Callable[[Path], None],
) -> None:
    damage(db)
    message = _refuses_writes(db, capsys, tmp_path)
    assert isinstance(message, str) and message
    with pytest.raises(StorageError):
        with Collection.open(db) as col:
            col.remove("d1")

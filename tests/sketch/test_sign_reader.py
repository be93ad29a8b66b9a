"""Signing from the reader: processes read their own shares, threads and processes give the
rows one core gives, in input order."""

from __future__ import annotations

import gzip
import json
import queue
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from neardup import inputs, make_spec
from neardup.errors import DatasetError, InputError
from neardup.inputs import CorpusReader
from neardup.sketch import MinHasher, parallel
from neardup.sketch.parallel import PROCESS_MIN_BYTES, choose_executor, sign_reader
from neardup.spec import SketchSpec, Spec

WORDS = "мама мыла раму а папа читал газету и кот спал на окне весь день".split()


def text(i: int) -> str:
    return " ".join(WORDS[(i * j) % len(WORDS)] for j in range(5 + i % 11)) + f" номер {i}"


@pytest.fixture(autouse=True)
def processes_at_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """The inputs here are small: the process executor runs on them anyway (the size rule has
    tests of its own, which put the threshold back)."""
    monkeypatch.setattr(parallel, "PROCESS_MIN_BYTES", 0)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A folder of text files and datasets (one gzipped, one with blank lines)."""
    root = tmp_path / "corpus"
    (root / "texts").mkdir(parents=True)
    for i in range(7):
        (root / "texts" / f"t{i}.txt").write_text(text(100 + i), encoding="utf-8")
    rows = [json.dumps({"id": f"j{i}", "text": text(i)}, ensure_ascii=False) for i in range(23)]
    (root / "a.jsonl").write_text("\n\n".join(rows[:12]) + "\n", encoding="utf-8")
    with gzip.open(root / "b.jsonl.gz", "wt", encoding="utf-8") as out:
        out.write("\n".join(rows[12:]) + "\n")
    return root


def spec_of(preset: str, family: str = "rabin") -> Spec:
    return make_spec(preset, k=3, family=family).replace(sketch=SketchSpec(num_perm=16))


def one_core(spec: Spec, root: Path) -> tuple[list[str], list[list[int]]]:
    docs = list(CorpusReader([root]))
    values = MinHasher(spec).sign_texts([d.text for d in docs])
    return [d.id for d in docs], values.tolist()


def signed(
    spec: Spec, reader: CorpusReader, **options: Any
) -> tuple[list[str], list[list[int]], list[int]]:
    ids: list[str] = []
    rows: list[list[int]] = []
    sizes: list[int] = []
    for chunk_ids, values in sign_reader(spec, reader, **options):
        ids += chunk_ids
        rows += values.tolist()
        sizes.append(len(chunk_ids))
    return ids, rows, sizes


@pytest.mark.parametrize(
    ("preset", "family", "jobs", "executor", "block"),
    [
        ("plain", "rabin", 2, "process", 4),
        ("plain", "xxh3", 2, "process", 1),
        ("plain", "rabin", 3, "process", 5),
        ("plain", "rabin", 2, "thread", 4),
        ("ru", "rabin", 2, "process", 3),
        ("ru", "rabin", 2, "thread", 3),
    ],
)
def test_same_rows_as_one_core(
    corpus: Path, preset: str, family: str, jobs: int, executor: str, block: int
) -> None:
    spec = spec_of(preset, family)
    want_ids, want_rows = one_core(spec, corpus)
    reader = CorpusReader([corpus])
    ids, rows, _ = signed(spec, reader, jobs=jobs, executor=executor, batch_size=block)
    assert ids == want_ids
    assert rows == want_rows
    assert reader.documents == len(want_ids) == 30
    assert reader.bytes_read == reader.total_bytes


def test_processes_never_iterate_the_parents_reader(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parent holds no text: it never iterates its reader (the workers read their shares
    through ``shard``), and a worker sends back only block numbers, ids and signatures."""

    def refuse(self: CorpusReader) -> Any:
        raise AssertionError("the parent read the texts")

    spec = spec_of("plain")
    want_ids, want_rows = one_core(spec, corpus)
    monkeypatch.setattr(CorpusReader, "__iter__", refuse)
    ids, rows, sizes = signed(
        spec, CorpusReader([corpus]), jobs=2, executor="process", batch_size=4
    )
    assert (ids, rows) == (want_ids, want_rows)
    # a.jsonl is one byte slice (a block of its 12 records); the gzipped dataset's 11 records
    # and the 7 text files are numbered by position, 4 to a block
    assert sizes == [12, 4, 4, 4, 4, 2]
    # what one worker puts on its queue, a.jsonl cut into a slice per line (blank ones too)
    monkeypatch.setattr(inputs.reader, "SLICE_BYTES", 1)  # the default of CorpusReader.shard
    out: queue.Queue[tuple[Any, ...]] = queue.Queue()
    parallel._sign_share(spec.to_json(), CorpusReader([corpus]), 1, 2, 4, 10**6, out)
    messages = [out.get() for _ in range(out.qsize())]
    kinds = [m[0] for m in messages]
    assert kinds == ["block"] * 8 + ["done"]
    # a slice of 1 byte runs to the end of the line after its first byte: a.jsonl (records
    # between blank lines) is 12 slices of a record each, blocks 0-11, share 1 the odd ones;
    # then the 18 positions after it are blocks 12-16 of 4, share 1 the odd ones
    got = {index: block_ids for _kind, index, block_ids, _, _ in messages[:-1]}
    want = {i: [f"j{i}"] for i in range(1, 12, 2)}
    assert got == {**want, 13: want_ids[16:20], 15: want_ids[24:28]}
    for _kind, _index, block_ids, values, nbytes in messages[:-1]:
        assert isinstance(nbytes, int)
        rows_of = [want_rows[want_ids.index(i)] for i in block_ids]
        assert isinstance(values, np.ndarray) and values.tolist() == rows_of
    assert messages[-1][1] == 14  # documents of share 1


def test_shares_partition_the_input_and_skip_others_files(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    everything = [d.id for d in CorpusReader([corpus])]
    opened: list[str] = []
    real = inputs.read_bytes

    def spy(path: Any, **options: Any) -> bytes:
        opened.append(Path(path).name)
        return real(path, **options)

    monkeypatch.setattr(inputs.formats, "read_bytes", spy)  # how a text file is read
    shares = []
    for part in range(3):
        reader = CorpusReader([corpus])
        shares.append([(index, doc.id) for index, doc in reader.shard(part, 3, 2)])
        assert reader.bytes_read == reader.total_bytes
        assert reader.documents == len(shares[-1])
        assert all(index % 3 == part for index, _ in shares[-1])
    merged = sorted((index, everything.index(i), i) for share in shares for index, i in share)
    assert [i for _, _, i in merged] == everything
    # every text file opened once, by the share that holds it
    assert sorted(opened) == sorted(f"t{i}.txt" for i in range(7))
    with pytest.raises(InputError):
        next(CorpusReader([corpus]).shard(3, 3, 2))


def test_an_empty_block_keeps_the_order(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A text file of a folder that cannot be read leaves its block empty; the blocks after it
    still come in order, and the file is reported as skipped."""
    real = inputs.read_bytes

    def unreadable(path: Any, **options: Any) -> bytes:
        if Path(path).name == "t2.txt":
            raise inputs._Unreadable(f"cannot read {path}: Permission denied")
        return real(path, **options)

    monkeypatch.setattr(inputs.formats, "read_bytes", unreadable)  # inherited by the forked workers
    spec = spec_of("plain")
    want_ids, want_rows = one_core(spec, corpus)
    reader = CorpusReader([corpus])
    ids, rows, _ = signed(spec, reader, jobs=2, executor="process", batch_size=1)
    assert ids == want_ids and "texts/t2.txt" not in ids and len(ids) == 29
    assert rows == want_rows
    assert [s.path.rsplit("/", 1)[-1] for s in reader.skipped] == ["t2.txt"]


def test_a_workers_error_reaches_the_parent(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = [json.dumps({"id": str(i), "text": text(i)}) for i in range(9)]
    path.write_text("\n".join(good[:6] + ["{not json"] + good[6:]) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="line 7"):
        signed(spec_of("plain"), CorpusReader([path]), jobs=2, executor="process", batch_size=2)


def test_auto_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "PROCESS_MIN_BYTES", PROCESS_MIN_BYTES)
    plain, ru, xxh3 = spec_of("plain"), spec_of("ru"), spec_of("plain", "xxh3")
    routed, each = spec_of("auto"), spec_of("auto", "xxh3")
    big = PROCESS_MIN_BYTES
    assert choose_executor(plain, 10 * big, 2) == "thread"  # one nogil kernel per batch
    assert choose_executor(ru, 10 * big, 2) == "thread"  # its filters compiled: the same
    assert choose_executor(routed, 10 * big, 2) == "thread"  # one kernel call per chain
    assert choose_executor(each, big - 1, 2) == "thread"  # small: a worker's start is not won back
    assert choose_executor(each, big, 2) == "process"  # signed document by document
    assert choose_executor(xxh3, big, 2) == "process"
    assert choose_executor(each, 10 * big, 1) == "thread"


def test_processes_asked_for_a_small_input_are_threads(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_workers(*args: Any) -> Any:
        raise AssertionError("worker processes started")

    monkeypatch.setattr(parallel, "_sign_in_processes", no_workers)
    spec = spec_of("auto")
    want_ids, want_rows = one_core(spec, corpus)
    reader = CorpusReader([corpus])
    monkeypatch.setattr(parallel, "PROCESS_MIN_BYTES", reader.total_bytes + 1)
    ids, rows, _ = signed(spec, reader, jobs=2, executor="process", batch_size=4)
    assert (ids, rows) == (want_ids, want_rows)
    monkeypatch.setattr(parallel, "PROCESS_MIN_BYTES", reader.total_bytes)
    with pytest.raises(AssertionError, match="worker processes started"):
        signed(spec, CorpusReader([corpus]), jobs=2, executor="process", batch_size=4)


def test_slices_of_plain_jsonl_are_read_by_their_share_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one mechanism of ``sign`` and ``dedup``: a plain JSONL file is cut into byte slices
    and each share reads only its own (``read_slice``); processes sign them into the rows one
    core gives, in order."""
    path = tmp_path / "c.jsonl"
    rows = [json.dumps({"id": f"r{i}", "text": text(i)}, ensure_ascii=False) for i in range(40)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    # the default of jsonl_slices and of CorpusReader.shard
    monkeypatch.setattr(inputs.slices, "SLICE_BYTES", 300)
    monkeypatch.setattr(inputs.reader, "SLICE_BYTES", 300)
    pieces = list(inputs.jsonl_slices(path))
    assert pieces[0].start == 0 and pieces[-1].end == path.stat().st_size
    assert all(a.end == b.start for a, b in zip(pieces, pieces[1:], strict=False))
    assert len(pieces) > 6
    read: list[int] = []
    real = inputs.read_slice

    def spy(piece: inputs.ByteSlice, options: inputs.ReadOptions) -> Any:
        read.append(piece.start)
        return real(piece, options)

    monkeypatch.setattr(inputs.reader, "read_slice", spy)  # what CorpusReader.shard calls
    everything = [d.id for d in CorpusReader([path])]
    shares = []
    for part in range(3):
        read.clear()
        shares += list(CorpusReader([path]).shard(part, 3, 5))
        assert read == [p.start for n, p in enumerate(pieces) if n % 3 == part]
    assert [doc.id for _, doc in sorted(shares, key=lambda s: s[0])] == everything
    spec = spec_of("plain")
    want_ids, want_rows = one_core(spec, path)
    ids, got_rows, sizes = signed(spec, CorpusReader([path]), jobs=3, executor="process")
    assert (ids, got_rows) == (want_ids, want_rows)
    assert len(sizes) == len(pieces)


def test_read_slice_keeps_the_readers_rules(tmp_path: Path) -> None:
    """A slice gives the records the reader gives (a BOM, CRLF, blank lines, a null text, an
    integer id), with each record's byte span; an error names the line."""
    lines = [
        b"\xef\xbb\xbf" + json.dumps({"id": "a", "text": "x y"}).encode(),
        b'{"id": 7, "text": null, "n": 1}\r',
        b"   ",
        json.dumps({"id": "c", "text": "ё"}, ensure_ascii=False).encode(),
    ]
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    options = inputs.ReadOptions()
    whole = inputs.ByteSlice(str(path), 0, path.stat().st_size)
    records = list(inputs.read_slice(whole, options))
    assert [r.doc for r in records] == list(CorpusReader([path]))
    data = path.read_bytes()
    assert [data[r.start : r.end] for r in records] == [lines[0][3:], lines[1][:-1], lines[3]]
    path.write_bytes(b"\n".join([*lines, b'{"id": "d"}']) + b"\n")
    whole = inputs.ByteSlice(str(path), 0, path.stat().st_size)
    with pytest.raises(DatasetError, match=r"in.jsonl, line 5: no text field 'text'"):
        list(inputs.read_slice(whole, options))


def test_no_module_imports_the_readers_private_names() -> None:
    """dedup and sign read through the reader's public mechanism only."""
    import ast

    root = Path(inputs.__file__).parent.parent
    for path in [root / "sketch" / "parallel.py", *sorted((root / "corpus").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "neardup.inputs":
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, f"{path.name} imports {private} from neardup.inputs"

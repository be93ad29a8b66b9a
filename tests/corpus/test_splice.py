"""The write stage's splice (compiled, in runs, in threads) writes the same bytes as the plain
per-record loop it replaced, and the candidate stage the same pairs, whatever ``jobs``."""

from __future__ import annotations

import json
import mmap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import neardup.corpus.candidates as candidates
import neardup.corpus.job as job
import neardup.corpus.signing as signing
import neardup.corpus.splice as splice
from neardup.corpus import DedupOptions, candidate_pairs, dedup
from neardup.corpus.arrays import F64, I64
from neardup.corpus.candidates import stable_order, workspace_candidates
from neardup.corpus.options import ADDED_FIELDS
from neardup.corpus.progress import StageProgress
from neardup.corpus.signing import SignedBlock
from neardup.corpus.splice import splice_write
from neardup.corpus.workspace import Workspace
from neardup.fingerprints.pipeline import make_spec
from tests.corpus._corpus import records

PLAIN3 = make_spec("plain", k=3)


# The per-record loop the splice replaced (neardup before the compiled splice), kept here as
# the reference the new one must match byte for byte.
def _reference_tail(group_id: str, kept: bool, similarity: float, rep_id: str) -> str:
    return (
        f', "group": {json.dumps(group_id, ensure_ascii=False)}, '
        f'"kept": {"true" if kept else "false"}, '
        f'"similarity": {json.dumps(round(similarity, 6))}, '
        f'"representative": {json.dumps(rep_id, ensure_ascii=False)}}}\n'
    )


def _reference_rewritten(line: bytes, doc_id: str, tail: str, fields: tuple[str, str]) -> bytes:
    id_field, text_field = fields
    obj = json.loads(line.decode("utf-8", "replace"))
    text = obj.get(text_field)
    record: dict[str, Any] = {"id": doc_id, "text": "" if text is None else text}
    skip = (id_field, text_field, *ADDED_FIELDS)
    record.update({k: v for k, v in obj.items() if k not in skip})
    head = json.dumps(record, ensure_ascii=False)
    return (head[:-1] + tail).encode("utf-8", "backslashreplace")


def reference_splice(
    locations: list[SignedBlock],
    path: Path,
    ids: list[str],
    group: I64,
    rep: I64,
    similarity: F64,
    kept_only: bool,
    fields: tuple[str, str],
) -> None:
    maps: dict[str, mmap.mmap] = {}
    i = 0
    try:
        with open(path, "wb") as out:
            for block in locations:
                assert block.path is not None and block.starts is not None
                assert block.ends is not None and block.spliceable is not None
                if block.path not in maps:
                    with open(block.path, "rb") as fh:
                        maps[block.path] = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
                data = maps[block.path]
                for start, end, clean in zip(
                    block.starts.tolist(), block.ends.tolist(), block.spliceable.tolist()
                ):
                    r = int(rep[i])
                    kept = r == i
                    if kept or not kept_only:
                        tail = _reference_tail(
                            ids[int(group[i])], kept, float(similarity[i]), ids[r]
                        )
                        if clean:
                            out.write(
                                data[start : end - 1].rstrip()
                                + tail.encode("utf-8", "backslashreplace")
                            )
                        else:
                            out.write(_reference_rewritten(data[start:end], ids[i], tail, fields))
                    i += 1
    finally:
        for m in maps.values():
            m.close()


def awkward_lines(n: int, seed: int) -> list[bytes]:
    """JSONL lines the splice must copy exactly or re-encode exactly: ids that are not ASCII
    or need JSON escapes or hold a lone surrogate, whitespace before the closing brace, CRLF,
    blank lines, and records it cannot take (a number id, an added field's name, invalid
    UTF-8, a null text)."""
    rng = np.random.default_rng(seed)
    rows = records(n)
    odd_ids = ["ид-ё", 'q"uote', "back\\slash", "new\nline", "tab\t", "ctl\x01", "ls\u2028", "😀"]
    lines: list[bytes] = []
    for i, row in enumerate(rows):
        kind = i % 11
        row = dict(row)
        if kind < len(odd_ids):
            row["id"] = f"{odd_ids[kind]}{i}"
        if kind == 3:
            row["id"] = f"d{i}\ud800"
            row["text"] += " \udfff"
        if kind == 10:
            row["text"] += " @@@"
        # a lone surrogate can only be written escaped
        line = json.dumps(row, ensure_ascii=kind == 3 or bool(rng.integers(2)))
        if kind == 1:
            line = line[:-1] + " \t }"
        elif kind == 2:
            line += "\r"
        elif kind == 5:
            row["id"] = 1000 + i
            line = json.dumps(row)
        elif kind == 6:
            row["group"] = "old"
            line = json.dumps(row, ensure_ascii=False) + "  "
        elif kind == 9:
            line = json.dumps({**row, "text": None}, ensure_ascii=False)
        data = line.encode("utf-8").replace(b"@@@", b"caf\xff")
        lines.append(data)
        if kind == 4:
            lines.append(b"   ")
    return lines


def corpus(tmp_path: Path, n: int = 90) -> list[Path]:
    first, second = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    lines = awkward_lines(n, seed=3)
    first.write_bytes(b"\xef\xbb\xbf" + b"\n".join(lines[: n // 2]) + b"\n")
    second.write_bytes(b"\n".join(lines[n // 2 :]))  # no newline at the end
    return [first, second]


def captured_splice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """The arguments the job gives the splice for :func:`corpus`, read in many small slices."""
    seen: list[tuple[Any, ...]] = []

    def capture(*args: Any) -> None:
        seen.append(args)
        splice_write(*args)

    monkeypatch.setattr(signing, "SLICE_BYTES", 700)
    monkeypatch.setattr(job, "splice_write", capture)
    with pytest.warns(UnicodeWarning):
        dedup(corpus(tmp_path), tmp_path / "out", DedupOptions(threshold=0.8), spec=PLAIN3)
    assert len(seen) == 1
    return seen[0]


@pytest.mark.parametrize("kept_only", [False, True])
def test_the_splice_writes_the_bytes_of_the_per_record_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept_only: bool
) -> None:
    locations, _, ids, group, rep, similarity, _, fields, _, _ = captured_splice(
        tmp_path, monkeypatch
    )
    n = len(ids)
    assert n == 90 and (group != np.arange(n)).any()
    assert not all(bool(block.spliceable.all()) for block in locations)
    rng = np.random.default_rng(5)
    # besides the job's own groups: arbitrary ones, and similarities that round and print
    # in every way (exponents, zero of both signs, not a number)
    odd = np.array([0.0, -0.0, 1.0, 1 / 3, 2.5e-6, 1e-7, 0.1234565, 0.9999995, np.nan])
    cases = [
        (group, rep, similarity),
        (rng.integers(0, n, n), rng.integers(0, n, n), odd[rng.integers(0, odd.shape[0], n)]),
    ]
    monkeypatch.setattr(splice, "TASK_BYTES", 300)  # runs of a record or two
    for c, (g, r, s) in enumerate(cases):
        expected = tmp_path / f"expected{c}.jsonl"
        reference_splice(locations, expected, ids, g, r, s, kept_only, fields)
        for jobs in (1, 2, 3):
            got = tmp_path / f"got{c}_{jobs}.jsonl"
            with StageProgress(False) as bars:
                splice_write(locations, got, ids, g, r, s, kept_only, fields, bars, jobs)
            assert got.read_bytes() == expected.read_bytes(), (c, jobs)


def test_a_file_read_twice_is_spliced_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blocks that go back in their file (here: the first file's blocks again) start a new
    run: a run is one span of its file."""
    locations, _, ids, _, _, _, _, fields, _, _ = captured_splice(tmp_path, monkeypatch)
    first = [block for block in locations if block.path == locations[0].path]
    m = sum(int(block.starts.shape[0]) for block in first)
    twice, names = [*first, *first], [*ids[:m], *(f"{i}'" for i in ids[:m])]
    rows = np.arange(2 * m)
    group, rep, similarity = rows // 2 * 2, rows, np.linspace(0.5, 1, 2 * m)
    reference_splice(twice, tmp_path / "e.jsonl", names, group, rep, similarity, False, fields)
    monkeypatch.setattr(splice, "TASK_BYTES", 3000)  # runs of a few blocks
    for jobs in (1, 2):
        with StageProgress(False) as bars:
            splice_write(
                twice,
                tmp_path / "g.jsonl",
                names,
                group,
                rep,
                similarity,
                False,
                fields,
                bars,
                jobs,
            )
        assert (tmp_path / "g.jsonl").read_bytes() == (tmp_path / "e.jsonl").read_bytes()


def test_jobs_write_the_same_bytes_and_pairs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--jobs 1`` and ``--jobs 2`` give the same documents, edges and counts."""
    monkeypatch.setattr(signing, "SLICE_BYTES", 900)
    monkeypatch.setattr(splice, "TASK_BYTES", 2000)
    inputs = corpus(tmp_path)
    results = []
    for jobs in (1, 2):
        with pytest.warns(UnicodeWarning):
            results.append(
                dedup(inputs, tmp_path / f"j{jobs}", DedupOptions(threshold=0.6), jobs=jobs)
            )
    one, two = results
    assert one.groups == two.groups and one.groups < one.documents
    assert (one.candidate_pairs, one.verified_pairs) == (two.candidate_pairs, two.verified_pairs)
    for name in ("documents.jsonl", "edges.jsonl"):
        assert (tmp_path / "j1" / name).read_bytes() == (tmp_path / "j2" / name).read_bytes()


@pytest.mark.parametrize("distinct", [1 << 62, 50, 2])
def test_stable_order_is_the_stable_argsort(distinct: int) -> None:
    keys = np.random.default_rng(distinct).integers(0, distinct, 5000).astype(np.uint64)
    order, sorted_keys = stable_order(keys)
    expected = np.argsort(keys, kind="stable")
    assert np.array_equal(order, expected)
    assert np.array_equal(sorted_keys, keys[expected])
    assert stable_order(np.zeros(0, np.uint64))[0].shape == (0,)


@pytest.mark.parametrize("jobs", [1, 2, 3, 9])
def test_workspace_candidates_are_the_pairs_of_every_band(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    monkeypatch.setattr(candidates, "COLUMN_BYTES", 8 * 300 * 2)  # two bands read at once
    rng = np.random.default_rng(7)
    bands, n = 5, 300
    keys = rng.integers(0, 40, (bands, n)).astype(np.uint64)  # large buckets: capped ones too
    work = Workspace(tmp_path / "work", 4, np.dtype(np.uint64), exact=False)
    for lo in range(0, n, 64):
        size = min(64, n - lo)
        chunk = (np.zeros((size, 4), np.uint64), np.zeros(0, np.uint64), np.zeros(0, np.int64))
        work.add((*chunk, None), keys[:, lo : lo + size].T, np.zeros(size, np.int64))
    work.finish()
    with StageProgress(False) as bars:
        got = workspace_candidates(work, bands, 3, bars, jobs)
    expected = candidate_pairs(list(keys), n, 3)
    assert got[2:] == expected[2:] and got[2] > 0
    assert np.array_equal(got[0], expected[0]) and np.array_equal(got[1], expected[1])


def test_edges_are_written_as_json_dumps_writes_each_row(tmp_path: Path) -> None:
    from neardup.corpus.output import write_edges
    from neardup.corpus.verify import PairScores

    ids = ['q"ё\\', "x\ud800", "a\nb", "😀\u2028", "plain"]
    a, b = np.array([0, 1, 2, 0]), np.array([1, 2, 3, 4])
    values = np.array([1 / 3, -0.0, 2.5e-6, 1.0])
    for scores in (
        PairScores(values, values[::-1].copy(), np.array([0.1234565, 1e-7, 0.5, 0.0])),
        PairScores(np.array([np.nan, np.inf, 0.25, 0.9999995])),
    ):
        write_edges(tmp_path / "edges.jsonl", "jsonl", ids, a, b, scores)
        names = ["a", "b", "resemblance" if scores.containment_ab is not None else "estimate"]
        columns = [[ids[i] for i in a], [ids[i] for i in b], np.round(scores.resemblance, 6)]
        if scores.containment_ab is not None and scores.containment_ba is not None:
            names += ["containment_ab", "containment_ba"]
            columns += [np.round(scores.containment_ab, 6), np.round(scores.containment_ba, 6)]
        rows = [
            dict(zip(names, [c[i] if j < 2 else float(c[i]) for j, c in enumerate(columns)]))
            for i in range(a.shape[0])
        ]
        expected = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        got = (tmp_path / "edges.jsonl").read_bytes()
        assert got == expected.encode("utf-8", "backslashreplace")


def test_an_input_cut_short_before_the_write_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from neardup.errors import DatasetError

    locations, _, ids, group, rep, similarity, _, fields, _, _ = captured_splice(
        tmp_path, monkeypatch
    )
    second = Path(locations[-1].path)
    second.write_bytes(second.read_bytes()[:100])
    with StageProgress(False) as bars, pytest.raises(DatasetError, match="changed"):
        splice_write(
            locations, tmp_path / "g.jsonl", ids, group, rep, similarity, False, fields, bars
        )

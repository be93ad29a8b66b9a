"""Batch dedup on one machine: exact groups, measures and files on small written corpora."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from neardup.cli.main import main
from neardup.corpus import (
    DedupOptions,
    bucket_pairs,
    candidate_pairs,
    components,
    dedup,
    partition,
    read_groups,
    representatives,
)
from neardup.errors import DatasetError, InputError, SpecMismatchError
from neardup.fingerprints.pipeline import make_spec
from tests import _textgen

PLAIN3 = make_spec("plain", k=3)


def words(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(n)]


# 20 distinct words → 18 shingles of 3 under `plain`
A = " ".join(words("alpha", 20))
A2 = " ".join(words("alpha", 19) + ["omega"])  # last shingle differs: 17 shared of 19
B = " ".join(words("beta", 20))
B2 = B + " gammaone gammatwo"  # B plus 2 shingles: 18 shared, |B2| = 20
C = " ".join(words("delta", 20))


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_jsonl(
        tmp_path / "in.jsonl",
        [
            {"id": "a", "text": A, "year": 2001},
            {"id": "b", "text": B, "year": 2005},
            {"id": "a2", "text": A2, "year": 2010},
            {"id": "c", "text": C, "year": 1999},
            {"id": "b2", "text": B2, "year": 2003},
        ],
    )


def test_groups_measures_and_files(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = dedup([corpus], out, DedupOptions(threshold=0.8), spec=PLAIN3)
    assert (result.documents, result.groups, result.removed) == (5, 3, 2)
    assert result.verified_pairs == 2
    assert sorted(p.name for p in out.iterdir()) == [
        "documents.jsonl",
        "edges.jsonl",
        "spec.json",
        "summary.json",
    ]
    rows = {r["id"]: r for r in read_jsonl(out / "documents.jsonl")}
    assert [r["id"] for r in read_jsonl(out / "documents.jsonl")] == ["a", "b", "a2", "c", "b2"]
    assert rows["a"]["text"] == A and rows["a"]["year"] == 2001  # the record, annotated
    assert {k: (v["group"], v["kept"], v["representative"]) for k, v in rows.items()} == {
        "a": ("a", True, "a"),
        "b": ("b", True, "b"),
        "a2": ("a", False, "a"),
        "c": ("c", True, "c"),
        "b2": ("b", False, "b"),
    }
    assert rows["a2"]["similarity"] == round(17 / 19, 6)
    assert rows["b2"]["similarity"] == 0.9
    assert rows["c"]["similarity"] == 1.0
    edges = sorted(read_jsonl(out / "edges.jsonl"), key=lambda e: e["a"])
    assert edges == [
        {
            "a": "a",
            "b": "a2",
            "resemblance": round(17 / 19, 6),
            "containment_ab": round(17 / 18, 6),
            "containment_ba": round(17 / 18, 6),
        },
        {"a": "b", "b": "b2", "resemblance": 0.9, "containment_ab": 1.0, "containment_ba": 0.9},
    ]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["documents"] == 5 and summary["removed"] == 2
    assert set(summary["seconds"]) == {"sign", "candidates", "verify", "groups", "write", "total"}
    # the memory the run took is reported: this process's peak, and its largest worker's
    assert set(summary["peak_memory_mb"]) == {"main", "workers"}
    assert summary["peak_memory_mb"]["main"] > 10  # a Python process with numpy loaded
    spec = json.loads((out / "spec.json").read_text(encoding="utf-8"))
    assert spec["dedup"]["threshold"] == 0.8
    assert spec["spec"]["sketch"]["bands"] * spec["spec"]["sketch"]["rows"] <= 128


def test_threshold_splits_groups(corpus: Path, tmp_path: Path) -> None:
    # 17/19 = 0.895 < 0.9 ≤ 0.9: only b–b2 stays linked
    result = dedup([corpus], tmp_path / "out", DedupOptions(threshold=0.9), spec=PLAIN3)
    assert (result.groups, result.verified_pairs) == (4, 1)
    assert partition(read_groups(tmp_path / "out")) == {
        frozenset({"a"}),
        frozenset({"a2"}),
        frozenset({"b", "b2"}),
        frozenset({"c"}),
    }


@pytest.mark.parametrize(
    ("keep", "kept"),
    [
        ("first", {"a", "b", "c"}),
        ("longest", {"a", "b2", "c"}),  # a and a2 have the same length: the first wins
        ("max:year", {"a2", "b", "c"}),
        ("min:year", {"a", "b2", "c"}),
    ],
)
def test_keep_rules(corpus: Path, tmp_path: Path, keep: str, kept: set[str]) -> None:
    out = tmp_path / "out"
    dedup([corpus], out, DedupOptions(threshold=0.8, keep=keep), spec=PLAIN3, kept_only=True)
    rows = read_jsonl(out / "documents.jsonl")
    assert {r["id"] for r in rows} == kept
    assert all(r["kept"] and r["similarity"] == 1.0 for r in rows)
    # the group is still named by its first document
    assert {r["id"]: r["group"] for r in rows}.get("b2", "b") == "b"


def test_containment_links_a_text_inside_a_longer_one(tmp_path: Path) -> None:
    inner = " ".join(words("inner", 12))  # 10 shingles
    outer = " ".join(words("host", 30)) + " " + inner  # holds all 10 of them
    path = write_jsonl(
        tmp_path / "in.jsonl", [{"id": "o", "text": outer}, {"id": "i", "text": inner}]
    )
    by_resemblance = dedup([path], tmp_path / "r", DedupOptions(threshold=0.8), spec=PLAIN3)
    assert by_resemblance.groups == 2
    by_containment = dedup(
        [path], tmp_path / "c", DedupOptions(threshold=0.8, measure="containment"), spec=PLAIN3
    )
    assert by_containment.groups == 1
    rows = {r["id"]: r for r in read_jsonl(tmp_path / "c" / "documents.jsonl")}
    assert rows["i"]["similarity"] == 1.0 and rows["i"]["kept"] is False


def test_winnowed_candidates_find_a_paragraph_inside_a_long_text(tmp_path: Path) -> None:
    """A 12-word passage inside a 700-word text (resemblance 10/700) is below anything the LSH
    bands find; the collection's winnowing (windows of 4 shingles) makes it a candidate, and
    the exact containment (1.0) joins it. Unrelated texts stay apart."""
    inner = " ".join(words("inner", 12))  # 10 shingles
    outer = " ".join(words("host", 350)) + " " + inner + " " + " ".join(words("tail", 340))
    records = [
        {"id": "o", "text": outer},
        {"id": "x", "text": " ".join(words("other", 40))},
        {"id": "i", "text": inner},
    ]
    path = write_jsonl(tmp_path / "in.jsonl", records)
    options = DedupOptions(threshold=0.8, measure="containment")
    bands_only = dedup([path], tmp_path / "b", options, spec=PLAIN3)
    assert (bands_only.groups, bands_only.candidate_pairs) == (3, 0)
    winnowed = dedup(
        [path],
        tmp_path / "w",
        DedupOptions(threshold=0.8, measure="containment", winnow=4),
        spec=PLAIN3,
        jobs=2,
    )
    assert (winnowed.groups, winnowed.candidate_pairs, winnowed.verified_pairs) == (2, 1, 1)
    assert read_groups(tmp_path / "w") == {"o": "o", "x": "x", "i": "o"}
    edge = read_jsonl(tmp_path / "w" / "edges.jsonl")[0]
    assert (edge["a"], edge["b"], edge["containment_ab"]) == ("o", "i", round(10 / 700, 6))
    assert edge["containment_ba"] == 1.0
    with pytest.raises(InputError, match="winnowed candidates need exact verification"):
        DedupOptions(winnow=4, verify="estimate")


def test_candidates_are_verified_before_they_join(tmp_path: Path) -> None:
    # a half-edited copy is a candidate under 128 bands of 1 row, but not a near-copy at 0.9
    half = " ".join(words("alpha", 10) + words("other", 10))
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": A}, {"id": "h", "text": half}])
    result = dedup(
        [path], tmp_path / "out", DedupOptions(threshold=0.9, bands=128, rows=1), spec=PLAIN3
    )
    assert result.candidate_pairs == 1
    assert result.verified_pairs == 0
    assert result.groups == 2


def test_estimate_verification_uses_the_minhash_estimate(corpus: Path, tmp_path: Path) -> None:
    from neardup.sketch.minhash import MinHasher

    result = dedup(
        [corpus], tmp_path / "out", DedupOptions(threshold=0.8, verify="estimate"), spec=PLAIN3
    )
    rows = {r["id"]: r for r in read_jsonl(tmp_path / "out" / "documents.jsonl")}
    hasher = MinHasher(PLAIN3.replace(sketch=__import__("neardup").spec.SketchSpec()))
    sigs = hasher.sign_texts([B, B2])
    assert rows["b2"]["similarity"] == round(hasher.estimate(sigs[0], sigs[1]), 6)
    assert result.groups == 3
    edge = read_jsonl(tmp_path / "out" / "edges.jsonl")[0]
    assert set(edge) == {"a", "b", "estimate"}


@pytest.mark.parametrize("verify", ["exact", "estimate"])
def test_signatures_are_kept_only_for_the_estimate(
    corpus: Path, tmp_path: Path, verify: str
) -> None:
    # exact verification reads fingerprints: the workers send band keys, not signatures
    options = DedupOptions(threshold=0.8, verify=verify)  # type: ignore[arg-type]
    result = dedup([corpus], tmp_path / "out", options, spec=PLAIN3, keep_work=True)
    written = (tmp_path / "out" / "work" / "signatures.bin").stat().st_size
    assert result.groups == 3
    assert written == (0 if verify == "exact" else result.documents * 128 * 8)


def test_parquet_output(corpus: Path, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "out"
    dedup([corpus], out, DedupOptions(threshold=0.8), spec=PLAIN3, output_format="parquet")
    table = pq.read_table(out / "documents.parquet")
    assert table.column("id").to_pylist() == ["a", "b", "a2", "c", "b2"]
    assert table.column("kept").to_pylist() == [True, True, False, True, False]
    assert table.column("year").to_pylist() == [2001, 2005, 2010, 1999, 2003]
    assert pq.read_table(out / "edges.parquet").num_rows == 2
    assert read_groups(out)["b2"] == "b"


def test_jobs_give_the_same_groups(tmp_path: Path) -> None:
    records = []
    for i in range(30):
        base = _textgen.text(60, seed=i)
        records.append({"id": f"d{i}", "text": base})
        if i % 3 == 0:
            records.append({"id": f"d{i}v", "text": _textgen.edit(base, 0.03, seed=100 + i)})
    path = write_jsonl(tmp_path / "in.jsonl", records)
    one = dedup([path], tmp_path / "one", DedupOptions(threshold=0.6), spec=PLAIN3, batch_size=7)
    two = dedup(
        [path], tmp_path / "two", DedupOptions(threshold=0.6), spec=PLAIN3, batch_size=7, jobs=2
    )
    assert read_groups(tmp_path / "one") == read_groups(tmp_path / "two")
    # 10 near-copies at resemblance 0.71–1.0, every one linked to its source: 30 groups
    assert one.groups == two.groups == 30
    assert read_groups(tmp_path / "one")["d15v"] == "d15"


def test_raw_jsonl_slices_and_splice_match_the_general_path(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Plain JSONL is read in byte slices by the workers and written by splicing each record's
    bytes; a gzipped copy goes through the general reader. Both give the same records, also
    for the records the splice cannot take (a number id, invalid UTF-8, an added field's
    name, a null text), a BOM, CRLF, blank lines and tiny slices."""
    import gzip

    import neardup.corpus as module
    import neardup.corpus.signing as signing

    lines = [
        b"\xef\xbb\xbf" + json.dumps({"id": "a", "text": A, "year": 2001}).encode(),
        json.dumps({"text": A2, "id": "a2", "note": "ё"}, ensure_ascii=False).encode() + b"\r",
        b"",
        b"   ",
        json.dumps({"id": 7, "text": B}).encode(),
        json.dumps({"id": "b2", "text": B2, "group": "old"}).encode(),
        json.dumps({"id": "bad", "text": C + " caf"})[:-2].encode() + b'\xff"}  ',
        json.dumps({"id": "none", "text": None}).encode(),
    ]
    raw = b"\n".join(lines) + b"\n"
    plain = tmp_path / "in.jsonl"
    plain.write_bytes(raw)
    packed = tmp_path / "in.jsonl.gz"
    packed.write_bytes(gzip.compress(raw))
    assert module.raw_jsonl_files([plain], None) == [str(plain)]
    assert module.raw_jsonl_files([packed], None) is None
    monkeypatch.setattr(signing, "SLICE_BYTES", 64)  # a slice per record or two
    with pytest.warns(UnicodeWarning, match="1 invalid UTF-8 byte sequence"):
        spliced = dedup([plain], tmp_path / "s", DedupOptions(threshold=0.8), spec=PLAIN3, jobs=2)
    with pytest.warns(UnicodeWarning):
        general = dedup([packed], tmp_path / "g", DedupOptions(threshold=0.8), spec=PLAIN3)
    got = read_jsonl(tmp_path / "s" / "documents.jsonl")
    assert got == read_jsonl(tmp_path / "g" / "documents.jsonl")
    assert [r["id"] for r in got] == ["a", "a2", "7", "b2", "bad", "none"]
    assert [r["group"] for r in got] == ["a", "a", "7", "7", "bad", "none"]
    assert got[3]["group"] == "7" and got[1]["note"] == "ё"
    assert spliced.groups == general.groups == 4
    out_lines = (tmp_path / "s" / "documents.jsonl").read_bytes().splitlines()
    # a record the splice takes keeps its own bytes and order of fields
    assert out_lines[1].startswith(lines[1].rstrip()[:-1] + b', "group": "a"')
    with pytest.warns(UnicodeWarning):
        kept = dedup(
            [plain], tmp_path / "k", DedupOptions(threshold=0.8), spec=PLAIN3, kept_only=True
        )
    assert kept.removed == 2
    kept_ids = [r["id"] for r in read_jsonl(tmp_path / "k" / "documents.jsonl")]
    assert kept_ids == ["a", "7", "bad", "none"]


def test_raw_slice_errors_name_the_line(tmp_path: Path, monkeypatch: Any) -> None:
    import neardup.corpus.signing as signing

    monkeypatch.setattr(signing, "SLICE_BYTES", 32)
    rows = [json.dumps({"id": f"d{i}", "text": A}) for i in range(5)]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([*rows, "", '{"id": "x"}', "{oops"]) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"bad.jsonl, line 7: no text field 'text'"):
        dedup([bad], tmp_path / "out", spec=PLAIN3, jobs=2)
    bad.write_text("\n".join([*rows, "[1]"]) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"bad.jsonl, line 6: expected a JSON object"):
        dedup([bad], tmp_path / "out", spec=PLAIN3)
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.partial").exists()


# --- bad input and the output directory --------------------------------------------------------


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": 1, "text": A}, {"id": "1", "text": B}])
    with pytest.raises(DatasetError, match="duplicate id '1': documents 1 and 2"):
        dedup([path], tmp_path / "out", spec=PLAIN3)
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.partial").exists()


def test_missing_text_field_and_bad_record(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": "x", "body": A}])
    with pytest.raises(DatasetError, match="no text field 'text'"):
        dedup([path], tmp_path / "out", spec=PLAIN3)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "x", "text": A}) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="bad.jsonl, line 2: not valid JSON"):
        dedup([bad], tmp_path / "out", spec=PLAIN3)
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.partial").exists()


def test_existing_output_and_another_spec(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    dedup([corpus], out, DedupOptions(threshold=0.8), spec=PLAIN3)
    with pytest.raises(
        InputError, match="already exists; choose another --out or pass --overwrite"
    ):
        dedup([corpus], out, DedupOptions(threshold=0.8), spec=PLAIN3)
    again = dedup([corpus], out, DedupOptions(threshold=0.8), spec=PLAIN3, overwrite=True)
    assert again.groups == 3
    with pytest.raises(SpecMismatchError, match="holds a dedup made under spec"):
        dedup(
            [corpus], out, DedupOptions(threshold=0.8), spec=make_spec("plain", k=4), overwrite=True
        )


def test_an_interrupted_run_leaves_no_output(
    corpus: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    import neardup.corpus.job as job

    def boom(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(job, "write_edges", boom)  # after the documents file is written
    with pytest.raises(KeyboardInterrupt):
        dedup([corpus], tmp_path / "out", spec=PLAIN3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


def test_cli(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    args = ["dedup", str(corpus), "--out", str(out), "-p", "plain", "-k", "3", "-t", "0.8", "-q"]
    assert main(args) == 0
    assert "5 documents, 3 groups (2 with near-copies), 2 removed" in capsys.readouterr().out
    assert main(args) == 2
    assert "already exists" in capsys.readouterr().err
    assert main([*args, "--keep", "newest"]) == 2
    assert "unknown keep rule 'newest'" in capsys.readouterr().err


# --- the pieces ------------------------------------------------------------------------------


def test_bucket_pairs_window() -> None:
    keys = np.array([5, 5, 5, 7, 5, 9], dtype=np.uint64)
    a, b, capped, largest = bucket_pairs(keys, window=1)
    assert sorted(zip(a.tolist(), b.tolist(), strict=True)) == [(0, 1), (1, 2), (2, 4)]
    assert (capped, largest) == (1, 4)
    a, b, capped, _ = bucket_pairs(keys, window=3)
    assert sorted(zip(a.tolist(), b.tolist(), strict=True)) == [
        (0, 1),
        (0, 2),
        (0, 4),
        (1, 2),
        (1, 4),
        (2, 4),
    ]
    assert capped == 0


def test_candidate_pairs_are_distinct_over_bands() -> None:
    bands = [np.array([1, 1, 2, 3], np.uint64), np.array([4, 4, 5, 5], np.uint64)]
    a, b, _, _ = candidate_pairs(bands, 4, 50)
    assert list(zip(a.tolist(), b.tolist(), strict=True)) == [(0, 1), (2, 3)]


def test_components_and_representatives() -> None:
    group = components(6, np.array([3, 3, 1]), np.array([0, 5, 2]))
    assert group.tolist() == [0, 1, 1, 0, 4, 0]
    priority = np.array([1.0, 0.0, 0.0, 5.0, 0.0, 5.0])
    assert representatives(group, priority).tolist() == [3, 1, 1, 3, 4, 3]


def test_cli_affine_minhash_family(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--minhash-family affine: the same groups here, and the family recorded in spec.json."""
    out = tmp_path / "out"
    args = ["dedup", str(corpus), "--out", str(out), "-p", "plain", "-k", "3", "-t", "0.8", "-q"]
    assert main([*args, "--minhash-family", "affine"]) == 0
    assert "5 documents, 3 groups (2 with near-copies), 2 removed" in capsys.readouterr().out
    written = json.loads((out / "spec.json").read_text(encoding="utf-8"))
    assert written["spec"]["sketch"]["family"] == "affine"
    assert main([*args[:3], str(tmp_path / "other"), *args[4:], "--minhash-family", "md5"]) == 2

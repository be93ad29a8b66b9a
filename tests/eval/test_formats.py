"""Readers and writers of the dataset formats, and the errors they give for bad files."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest

from neardup.errors import DatasetError
from neardup.eval import formats
from neardup.eval.formats import Fragment


def _jsonl(path: Path, records: list[object]) -> Path:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    return path


def test_pairs_with_texts_keep_each_text_once(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path / "p.jsonl",
        [
            {
                "a": "один два три",
                "b": "один два четыре",
                "label": 1,
                "kind": "mixed",
                "level": 0.1,
            },
            {"a": "один два три", "b": "совсем другое", "label": 0, "score": 0.25},
            {"a": "x", "b": "y", "label": True},
        ],
    )
    data = formats.read_pairs(path)
    assert len(data) == 3
    assert data.texts == ["один два три", "один два четыре", "совсем другое", "x", "y"]
    assert data.a.tolist() == [0, 0, 3] and data.b.tolist() == [1, 2, 4]
    assert data.labels.tolist() == [1, 0, 1]
    assert data.kinds == ["mixed", "", ""]
    assert data.levels[0] == 0.1 and math.isnan(data.levels[1])
    assert data.scores[1] == 0.25 and math.isnan(data.scores[0])


def test_pairs_with_ids_resolve_in_documents_beside(tmp_path: Path) -> None:
    _jsonl(tmp_path / "documents.jsonl", [{"id": "a", "text": "alpha"}, {"id": 7, "text": "seven"}])
    path = _jsonl(
        tmp_path / "pairs.jsonl",
        [{"a_id": "a", "b_id": 7, "label": 0}, {"a_id": "a", "b": "inline", "label": 1}],
    )
    data = formats.read_pairs(path)
    assert data.texts == ["alpha", "seven", "inline"]
    assert data.ids == ["a", "7", None]
    assert data.a.tolist() == [0, 0] and data.b.tolist() == [1, 2]


def test_pairs_with_ids_from_a_given_mapping(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "pairs.jsonl", [{"a_id": "x", "b_id": "y", "label": 1}])
    data = formats.read_pairs(path, {"x": "text x", "y": "text y"})
    assert data.texts == ["text x", "text y"]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"a": "x", "b": "y", "label": 1}', '{"a": "x", "b": '], "line 2: not valid JSON"),
        (['{"a": "x", "label": 1}'], "line 1: missing field 'b'"),
        (['{"a": "x", "b": "y"}'], "line 1: missing field 'label'"),
        (['{"a": "x", "b": "y", "label": 2}'], "line 1: bad label 2"),
        (['{"a": "x", "b": "y", "label": "yes"}'], "line 1: bad label 'yes'"),
        (["", "[1, 2]"], "line 2: expected a JSON object"),
        (['{"a": 5, "b": "y", "label": 1}'], "line 1: field 'a' must be a string"),
        (
            ['{"a": "x", "b": "y", "label": 1, "score": "high"}'],
            "line 1: field 'score' must be a number",
        ),
    ],
)
def test_bad_pairs_lines_name_file_and_line(tmp_path: Path, lines: list[str], message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        formats.read_pairs(path)
    assert str(path) in str(err.value)
    assert message in str(err.value)


def test_pairs_ids_without_documents(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "pairs.jsonl", [{"a_id": "x", "b_id": "y", "label": 1}])
    with pytest.raises(DatasetError, match="no documents file was given"):
        formats.read_pairs(path)
    _jsonl(tmp_path / "documents.jsonl", [{"id": "x", "text": "t"}])
    with pytest.raises(DatasetError, match=r"line 1: b_id 'y' is not in the documents file"):
        formats.read_pairs(path)


def test_empty_and_missing_files(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="no pairs"):
        formats.read_pairs(tmp_path / "empty.jsonl")
    with pytest.raises(DatasetError, match="no such file"):
        formats.read_pairs(tmp_path / "nothing.jsonl")
    (tmp_path / "latin1.jsonl").write_bytes('{"a": "caf\xe9"}\n'.encode("latin-1"))
    with pytest.raises(DatasetError, match="not UTF-8"):
        formats.read_pairs(tmp_path / "latin1.jsonl")


MSRP = (
    "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
    '1\t702876\t702977\tAmrozi accused his brother, whom he called "the witness", of lying.\t'
    'Referring to him as only "the witness", Amrozi accused his brother of lying.\n'
    "0\t2108705\t2108831\tYucaipa owned Dominick's before selling the chain in 1998.\t"
    "Yucaipa bought Dominick's in 1995 for $693 million.\n"
)


def test_msrp_tsv_with_header(tmp_path: Path) -> None:
    path = tmp_path / "msr_paraphrase_test.txt"
    path.write_text(MSRP, encoding="utf-8")
    data = formats.read_pairs(path)
    assert data.labels.tolist() == [1, 0]
    assert data.texts[0].startswith('Amrozi accused his brother, whom he called "the witness"')
    assert data.ids[:2] == ["702876", "702977"]


def test_tsv_without_header_and_gzipped(tmp_path: Path) -> None:
    body = MSRP.split("\n", 1)[1]
    path = tmp_path / "pairs.tsv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(body)
    data = formats.read_pairs(path)
    assert data.labels.tolist() == [1, 0]


def test_tsv_wrong_columns(tmp_path: Path) -> None:
    path = tmp_path / "pairs.tsv"
    path.write_text("1\t1\t2\tone text\tanother\n0\t3\t4\tonly three\n", encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        formats.read_pairs(path)
    assert f"{path}, line 2: expected 5 tab-separated columns" in str(err.value)
    assert "got 4" in str(err.value)


def test_tsv_bad_label_and_bad_header(tmp_path: Path) -> None:
    path = tmp_path / "pairs.tsv"
    path.write_text("1\t1\t2\tone\ttwo\nmaybe\t3\t4\tthree\tfour\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"line 2: bad label 'maybe'"):
        formats.read_pairs(path)
    path.write_text("foo\tbar\n1\ta\n", encoding="utf-8")
    with pytest.raises(
        DatasetError,
        match=r"line 1: header row .* does not name the column\(s\) label, text1, text2",
    ):
        formats.read_pairs(path)


def test_csv_with_named_columns(tmp_path: Path) -> None:
    path = tmp_path / "questions.csv"
    path.write_text(
        "id,qid1,qid2,question1,question2,is_duplicate\n"
        '0,1,2,"How do I learn Python, fast?","What is the fastest way to learn Python?",1\n'
        '1,3,4,"Why is the sky blue?","How tall is Everest?",0\n',
        encoding="utf-8",
    )
    data = formats.read_pairs(path)
    assert data.labels.tolist() == [1, 0]
    assert data.texts[0] == "How do I learn Python, fast?"
    assert data.ids[0] == "1"


def test_clusters(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path / "c.jsonl",
        [
            {"id": "a", "text": "x", "cluster": "g1"},
            {"id": "b", "text": "y", "cluster": 1, "extra": True},
        ],
    )
    data = formats.read_clusters(path)
    assert data.clusters == ["g1", "1"]
    assert data.texts == ["x", "y"]
    assert data.documents[1].extra == {"extra": True}
    _jsonl(
        path, [{"id": "a", "text": "x", "cluster": "g"}, {"id": "a", "text": "y", "cluster": "g"}]
    )
    with pytest.raises(DatasetError, match="line 2: duplicate id 'a'"):
        formats.read_clusters(path)
    _jsonl(path, [{"id": "a", "text": "x"}])
    with pytest.raises(DatasetError, match="line 1: missing field 'cluster'"):
        formats.read_clusters(path)


def test_fragments_round_trip_and_bounds(tmp_path: Path) -> None:
    cases = [Fragment("s", "u", 3, 4, 10, 5, "partial", 0.2), Fragment("s", "u", 0, 1, 0, 1)]
    path = tmp_path / "fragments.jsonl"
    formats.write_jsonl(path, (c.to_dict() for c in cases))
    docs = {"s": "0123456789", "u": "abcdefghijklmnop"}
    assert formats.read_fragments(path, docs) == cases
    with pytest.raises(
        DatasetError, match=r"line 1: the suspicious span ends at 15, past the end of 'u'"
    ):
        formats.read_fragments(path, {"s": "0123456789", "u": "short"})
    _jsonl(
        path,
        [
            {
                "source_id": "s",
                "suspicious_id": "u",
                "source_offset": -1,
                "source_length": 1,
                "suspicious_offset": 0,
                "suspicious_length": 1,
            }
        ],
    )
    with pytest.raises(
        DatasetError, match="line 1: field 'source_offset' must be a non-negative integer"
    ):
        formats.read_fragments(path)


def test_written_gzip_is_byte_identical(tmp_path: Path) -> None:
    records = [{"b": 2, "a": "тест"}, {"a": "x"}]
    one = tmp_path / "one" / "f.jsonl.gz"
    two = tmp_path / "two" / "f.jsonl.gz"
    one.parent.mkdir()
    two.parent.mkdir()
    formats.write_jsonl(one, records)
    formats.write_jsonl(two, records)
    assert one.read_bytes() == two.read_bytes()
    assert [r for _, r in formats.iter_jsonl(one)] == records
    assert gzip.decompress(one.read_bytes()).decode().splitlines()[0] == '{"a": "тест", "b": 2}'


def test_documents_reader(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "d.jsonl", [{"id": "1", "text": None}, {"id": "2", "text": "t"}])
    assert formats.read_documents(path) == {"1": "", "2": "t"}

"""One folder, every command: sign, index add, matrix, collisions and eval read the same documents.

The folder holds each kind of entry the reader has a rule for: a UTF-8 text, an HTML page, a
JSONL and a CSV dataset (an integer id among them), a nested folder with a cp1251 text, a
hidden file and a file with a suffix the reader does not take.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from neardup.cli._documents import ByteSize
from neardup.errors import DatasetError
from neardup.eval import formats
from neardup.fingerprints.pipeline import default_spec, make_spec
from neardup.inputs import DEFAULT_MAX_BYTES, CorpusReader, iter_inputs
from neardup.research.collisions import DEFAULT_FAMILIES, CollisionCounter, parse_families
from neardup.score.matrix import similarity_matrix
from neardup.sketch import read_signatures
from neardup.sketch.parallel import sign_stream
from tests.cli._run import run

TEXTS = {
    "a.txt": "Лиса пробежала по первому снегу и оставила цепочку следов у старого забора.",
    "b.html": "<html><body><p>Ветер гнал по реке серые волны, и лодки стояли у причала.</p>"
    "</body></html>",
    "j1": "Библиотекарь расставил новые книги на верхней полке рядом с атласами.",
    "7": "Повар добавил в суп щепотку соли, лавровый лист и немного чёрного перца.",
    "c1": "Садовник, не торопясь, подрезал яблони, а потом полил грядки с морковью.",
    "nested/deep.txt": "Часы на башне пробили полночь, и город погрузился в глубокий сон.",
}
EXPECTED_IDS = ["a.txt", "b.html", "j1", "7", "c1", "nested/deep.txt"]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "nested").mkdir(parents=True)
    (root / "a.txt").write_text(TEXTS["a.txt"], encoding="utf-8")
    (root / "b.html").write_text(TEXTS["b.html"], encoding="utf-8")
    rows = [{"id": "j1", "text": TEXTS["j1"], "lang": "ru"}, {"id": 7, "text": TEXTS["7"]}]
    (root / "data.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    (root / "table.csv").write_text(f'id,text\nc1,"{TEXTS["c1"]}"\n', encoding="utf-8")
    (root / "nested" / "deep.txt").write_bytes(TEXTS["nested/deep.txt"].encode("cp1251"))
    (root / ".hidden.txt").write_text("Скрытый файл не читается никем.", encoding="utf-8")
    (root / "notes.xyz").write_text("Файл с чужим суффиксом пропускается.", encoding="utf-8")
    return root


def test_the_reader_itself(folder: Path) -> None:
    reader = CorpusReader([folder])
    docs = list(reader)
    assert [d.id for d in docs] == EXPECTED_IDS
    assert {d.id: d.text for d in docs} == TEXTS
    assert docs[-1].meta["encoding"] == "cp1251"
    assert [(s.path, s.reason) for s in reader.skipped] == [
        (str(folder / "notes.xyz"), "a suffix that is not read")
    ]
    assert (
        reader.bytes_read
        == reader.total_bytes
        == sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and p.suffix != ".xyz")
        - (folder / ".hidden.txt").stat().st_size
    )


def test_sign_reads_the_same_documents(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sigs"
    code, _, err = run(capsys, "sign", str(folder), "-o", str(out), "-q", "--preset", "plain")
    assert code == 0, err
    assert "skipped 1 entry (a suffix that is not read)" in err and "notes.xyz" in err
    signed = read_signatures(out)
    assert signed.ids == EXPECTED_IDS
    docs = list(iter_inputs([folder]))
    expected = np.concatenate(
        [values for _, values in sign_stream(signed.spec, [(d.id, d.text) for d in docs])]
    )
    assert np.array_equal(np.asarray(signed.values), expected)


def test_index_add_reads_the_same_documents(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "c.db")
    assert run(capsys, "index", "create", db, "--preset", "plain", "--policy", "allow")[0] == 0
    code, out, err = run(capsys, "index", "add", db, str(folder))
    assert code == 0, err
    assert out.startswith("added 6 (") and ", refused 0;" in out
    assert "skipped 1 entry (a suffix that is not read)" in err
    export = tmp_path / "export.jsonl"
    assert run(capsys, "index", "export", db, str(export))[0] == 0
    stored = [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines()]
    assert {r["id"]: r["text"] for r in stored} == TEXTS


def test_matrix_reads_the_same_documents(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("matrix", str(folder), "--json", "--preset", "plain", "-k", "2", "-m", "containment")
    code, out, err = run(capsys, *args)
    assert code == 0, err
    result = json.loads(out)
    assert result["ids"] == EXPECTED_IDS
    reference = similarity_matrix(
        [TEXTS[i] for i in EXPECTED_IDS],
        ids=EXPECTED_IDS,
        spec=default_spec("plain", k=2),
        method="containment",
    )
    assert np.allclose(result["matrix"], reference.matrix)


def test_collisions_reads_the_same_documents(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "collisions", str(folder), "--json", "--preset", "plain")
    assert code == 0, err
    report = json.loads(out)
    counter = CollisionCounter(make_spec("plain", k=5), parse_families(DEFAULT_FAMILIES))
    counter.add([TEXTS[i] for i in EXPECTED_IDS])
    expected = counter.report().to_dict()
    assert report["documents"] == 6
    assert (report["shingles"], report["distinct_shingles"]) == (
        expected["shingles"],
        expected["distinct_shingles"],
    )


def test_eval_reads_the_same_documents(folder: Path) -> None:
    documents = formats.read_documents(folder)
    assert list(documents) == EXPECTED_IDS
    assert documents == TEXTS


# --- hostile inputs at the command line: exit 2, one line naming the input --------------------


def _one_line_error(code: int, err: str) -> str:
    assert code == 2, err
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith("Error: ")
    return err.strip()


def test_compare_refuses_devices_and_oversized_texts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "t.txt"
    text.write_text(TEXTS["a.txt"], encoding="utf-8")
    err = _one_line_error(*run(capsys, "compare", "/dev/zero", str(text))[::2])
    assert err == (
        "Error: /dev/zero is not a regular file (a device, FIFO or socket); only regular "
        "files are read"
    )
    text.write_text(TEXTS["a.txt"] * 20, encoding="utf-8")
    size = text.stat().st_size
    err = _one_line_error(*run(capsys, "compare", str(text), str(text), "--max-bytes", "1K")[::2])
    assert err == f"Error: {text} ({size:,} bytes) is larger than the limit of 1,024 bytes; " + (
        "raise it with --max-bytes (max_bytes in Python)"
    )
    code, _, err = run(capsys, "compare", str(text), str(text), "--max-bytes", "lots")
    assert code == 2 and "'lots' is not a size such as 1000, 64M or 1G" in err


def test_a_binary_thesaurus_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "t.txt"
    text.write_text(TEXTS["a.txt"], encoding="utf-8")
    thesaurus = tmp_path / "th.dat"
    thesaurus.write_bytes(bytes(range(256)) * 4)
    err = _one_line_error(
        *run(capsys, "compare", str(text), str(text), "--synonyms", str(thesaurus))[::2]
    )
    assert err == (
        f"Error: {thesaurus}: not a text file (it holds NUL bytes); a thesaurus is a MyThes "
        ".dat or a .csv of synonym groups"
    )


def test_damaged_utf8_warns_and_strict_decoding_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damaged = tmp_path / "d.txt"
    damaged.write_bytes(TEXTS["a.txt"].encode() + b"\xff " + TEXTS["c1"].encode())
    code, out, err = run(capsys, "compare", str(damaged), str(damaged), "--json")
    assert code == 0 and json.loads(out)["resemblance"] == 1.0
    assert (
        err
        == (
            f"warning: {damaged}: 1 invalid UTF-8 byte sequence(s) replaced by U+FFFD "
            "(--strict-decoding refuses such input)\n"
        )
        * 2
    )
    err = _one_line_error(*run(capsys, "analyze", str(damaged), "--strict-decoding", "--json")[::2])
    assert err.startswith(f"Error: {damaged}: not valid UTF-8: 1 invalid byte sequence(s)")


def test_index_add_says_what_it_skipped_and_fails_when_nothing_was_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "c.db")
    assert run(capsys, "index", "create", db, "--preset", "plain")[0] == 0
    junk = tmp_path / "junk"
    junk.mkdir()
    for name in ("a.bin", "b.bin", "c.bin", "d.bin"):
        (junk / name).write_bytes(b"\x00\x01")
    err = _one_line_error(*run(capsys, "index", "add", db, str(junk))[::2])
    assert err == (
        f"Error: nothing could be read from {junk}: skipped 4 entries (a suffix that is not "
        f"read): {junk / 'a.bin'}, {junk / 'b.bin'}, {junk / 'c.bin'} and 1 more"
    )
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 50_000 + "\n")
    err = _one_line_error(*run(capsys, "index", "add", db, str(deep))[::2])
    assert err == f"Error: {deep}, line 1: the JSON is nested too deeply to read"
    quote = tmp_path / "q.csv"
    quote.write_text('id,text\n1,"open\n', encoding="utf-8")
    err = _one_line_error(*run(capsys, "index", "add", db, str(quote))[::2])
    assert err == (
        f"Error: {quote}, line 2: unterminated quote (the quoted field opened on this line "
        "runs to the end of the file)"
    )


def test_eval_pair_files_get_the_readers_rules(tmp_path: Path) -> None:
    quote = tmp_path / "pairs.csv"
    quote.write_text('label,text1,text2\n1,"a","b"\n0,c,"open\nnever closed\n', encoding="utf-8")
    with pytest.raises(DatasetError) as info:
        formats.read_pairs(quote)
    assert str(info.value) == (
        f"{quote}, line 3: unterminated quote (the quoted field opened here runs to the end "
        "of the file)"
    )
    deep = tmp_path / "pairs.jsonl"
    deep.write_text('{"a": "x", "b": "y", "label": 1}\n' + '{"a": ' + "[" * 100_000 + "\n")
    with pytest.raises(DatasetError, match=r"pairs\.jsonl, line 2: the JSON is nested too deeply"):
        formats.read_pairs(deep)
    with pytest.raises(DatasetError, match=r"none\.jsonl: no such file or directory"):
        formats.read_pairs(tmp_path / "none.jsonl")


@pytest.mark.parametrize(
    ("text", "value"),
    [("64M", DEFAULT_MAX_BYTES), ("1000", 1000), ("512K", 524_288), ("1GiB", 1 << 30)],
)
def test_byte_sizes(text: str, value: int) -> None:
    assert ByteSize().convert(text, None, None) == value


def test_index_add_warns_once_about_replaced_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "c.db")
    assert run(capsys, "index", "create", db, "--preset", "plain")[0] == 0
    data = tmp_path / "d.jsonl"
    data.write_bytes(b'{"id": "x", "text": "caf\xe9 au lait"}\n')
    code, out, err = run(capsys, "index", "add", db, str(data))
    assert code == 0 and out.startswith("added 1")
    assert err == (
        f"warning: {data}: 1 invalid UTF-8 byte sequence(s) replaced by U+FFFD, the first on "
        "line 1 (--strict-decoding refuses such input)\n"
    )

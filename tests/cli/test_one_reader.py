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

from neardup.cli.main import main
from neardup.collisions import DEFAULT_FAMILIES, CollisionCounter, parse_families
from neardup.eval import formats
from neardup.inputs import CorpusReader, iter_inputs
from neardup.matrix import similarity_matrix
from neardup.pipeline import make_spec
from neardup.sketch import read_signatures
from neardup.sketch.parallel import sign_stream

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


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


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
    assert out.startswith("added 6, refused 0")
    assert "skipped 1 entry (a suffix that is not read)" in err
    export = tmp_path / "export.jsonl"
    assert run(capsys, "index", "export", db, str(export))[0] == 0
    stored = [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines()]
    assert {r["id"]: r["text"] for r in stored} == TEXTS


def test_matrix_reads_the_same_documents(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "matrix", str(folder), "--json", "--preset", "plain", "-k", "2")
    assert code == 0, err
    result = json.loads(out)
    assert result["ids"] == EXPECTED_IDS
    reference = similarity_matrix(
        [TEXTS[i] for i in EXPECTED_IDS], ids=EXPECTED_IDS, spec=make_spec("plain", k=2)
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

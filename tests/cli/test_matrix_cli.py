"""`neardup matrix`: table, CSV, JSON, heat map; files and JSONL inputs; exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neardup.cli.main import main
from tests._aligntext import ESSAY, OTHER


@pytest.fixture()
def files(tmp_path: Path) -> list[str]:
    paths = []
    for name, body in (
        ("essay.txt", ESSAY),
        ("half.txt", ESSAY[: ESSAY.index("Опытный")]),
        ("other.txt", OTHER),
    ):
        path = tmp_path / name
        path.write_text(body, encoding="utf-8")
        paths.append(str(path))
    return paths


@pytest.fixture()
def jsonl(tmp_path: Path) -> str:
    path = tmp_path / "docs.jsonl"
    rows = [
        {"id": 1, "text": ESSAY},
        {"id": "half", "text": ESSAY[: ESSAY.index("Опытный")]},
        {"id": "o", "text": OTHER},
    ]
    path.write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8"
    )
    return str(path)


def test_json_rows_are_text_i_against_text_j(
    jsonl: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["matrix", jsonl, "--json", "-m", "containment", "-k", "3", "--short-below", "0"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ids"] == ["1", "half", "o"]
    m = out["matrix"]
    assert len(m) == 3 and all(len(row) == 3 for row in m)
    assert m[1][0] == 1.0  # all of the half is in the whole essay
    assert 0.3 < m[0][1] < 0.7  # about half of the essay is in the half
    assert m[0][2] == m[2][0] == 0.0
    assert out["method"] == "containment" and out["symmetric"] is False


def test_the_default_is_the_combined_score(jsonl: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["matrix", jsonl, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "combined" and out["symmetric"] is True
    # all three are short (47, 27 and 26 canonical tokens) and of like length: every pair is in
    # the model's sentence regime (written char 3-grams and word 1-grams), where the half of
    # the essay is a duplicate of the whole at 0.5 and the other text is not
    assert out["matrix"] == [
        [1.0, 0.69304, 0.145467],
        [0.69304, 1.0, 0.136049],
        [0.145467, 0.136049, 1.0],
    ]
    assert out["params"]["model_version"] == 5


@pytest.mark.parametrize("method", ["resemblance", "sorensen", "minhash", "tfidf"])
def test_symmetric_methods(method: str, jsonl: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["matrix", jsonl, "--json", "--method", method]) == 0
    m = json.loads(capsys.readouterr().out)["matrix"]
    assert all(m[i][j] == m[j][i] for i in range(3) for j in range(3))
    assert m[0][1] > m[0][2]


def test_files_table_and_csv(files: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["matrix", *files]) == 0
    table = capsys.readouterr().out
    assert "combined (symmetric)" in table and "0.6930" in table and "0.1360" in table
    assert main(["matrix", *files, "-m", "containment"]) == 0
    table = capsys.readouterr().out
    assert "containment" in table and "asymmetric" in table and "1.0000" in table
    assert main(["matrix", *files, "--csv", "-m", "tfidf", "--idf", "paper", "--binary"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "id," + ",".join(files)
    assert len(lines) == 4 and lines[1].split(",")[1] == "1.000000"


def test_plot(jsonl: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib", reason="plots need matplotlib: pip install 'neardup[plot]'")
    png = tmp_path / "heat.png"
    assert main(["matrix", jsonl, "--plot", str(png), "--json"]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert json.loads(capsys.readouterr().out)["ids"] == ["1", "half", "o"]


def test_bad_inputs_exit_2(
    tmp_path: Path, files: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["matrix", str(tmp_path / "missing.txt")]) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "text": "a"}\nnot json\n', encoding="utf-8")
    assert main(["matrix", str(bad)]) == 2
    assert main(["matrix", files[0], files[0]]) == 2  # the same id twice
    err = capsys.readouterr().err
    assert "Traceback" not in err and "appears twice" in err
    assert main(["matrix", files[0], "--csv", "--json"]) == 2

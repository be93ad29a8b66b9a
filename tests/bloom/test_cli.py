"""`neardup bloom size | build | query`: printed figures, the two stages, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neardup.cli.main import main
from tests._textgen import text


def test_size_prints_the_paper_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bloom", "size", "--n", "123000", "--p", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "m = 766,933 bits (95,872 bytes" in out
    assert "k = 4 hash functions" in out
    assert main(["bloom", "size", "--n", "123000", "--p", "0.05", "--paper", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["rows"] == 4489
    assert got["row"]["m"] == 766_933
    assert got["matrix_rows"] == 14_428
    assert round(got["bytes"] / 2**20, 1) == 410.4


@pytest.mark.parametrize(
    "args",
    [
        ["--n", "0", "--p", "0.05"],
        ["--n", "10", "--p", "1"],
        ["--n", "10", "--documents", "3"],
        ["--n", "10", "--paper", "--documents", "3"],
    ],
)
def test_size_usage_errors(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bloom", "size", *args]) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
def test_build_and_query(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus.jsonl"
    docs = {f"d{i}": text(400, seed=i) for i in range(30)}
    corpus.write_text(
        "".join(json.dumps({"id": k, "text": v}) + "\n" for k, v in docs.items()), "utf-8"
    )
    source = docs["d17"].split()
    query = tmp_path / "q.txt"
    query.write_text(" ".join(text(300, seed=999).split() + source[100:160]), "utf-8")
    out_file = tmp_path / "c.pmbf"
    args = ["bloom", "build", str(corpus), "-o", str(out_file), "--preset", "plain"]
    assert main([*args, "--n", "2000", "--p", "0.01"]) == 0
    assert "built" in capsys.readouterr().out
    assert main(["bloom", "query", str(out_file), str(query), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["shingles"] == 356  # 360 words, 5-word shingles
    assert got["matches"][0]["id"] == "d17"
    assert got["matches"][0]["shared"] == 56  # the 60 pasted words
    assert [m["id"] for m in got["matches"]] == ["d17"]
    assert main(["bloom", "query", str(out_file), str(query), "--fragments", str(corpus)]) == 0
    out = capsys.readouterr().out
    pasted = " ".join(source[100:160])
    assert "d17 #1: text " in out and pasted[:60] in out
    args_json = ["bloom", "query", str(out_file), str(query), "--json", "--fragments", str(corpus)]
    assert main(args_json) == 0
    (passage,) = json.loads(capsys.readouterr().out)["matches"][0]["passages"]
    assert passage["a_text"] == pasted
    assert passage["b_text"] == pasted
    assert main(["bloom", "query", str(out_file), str(query), "--measure", "bits"]) == 0
    assert "356 shingles; " in capsys.readouterr().out
    assert main(["bloom", "query", str(tmp_path / "none.pmbf"), str(query)]) == 2
    assert main(["bloom", "query", str(corpus), str(query)]) == 2
    assert main([*args, "-o", str(tmp_path / "x"), str(corpus)]) == 1  # every id twice

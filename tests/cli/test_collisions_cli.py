"""`neardup collisions`: the birthday table, counts on a corpus, exit codes for bad input."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli._run import run

ROW_KEYS = {"bits", "range", "likely_at", "shingles_for_probability", "paper"}
REPORT_KEYS = {
    "documents",
    "shingles",
    "distinct_shingles",
    "limit_reached",
    "spec",
    "spec_fingerprint",
    "families",
    "seconds",
}
FAMILY_KEYS = {
    "family",
    "hash",
    "bits",
    "seed",
    "distinct_shingles",
    "colliding_pairs",
    "expected_pairs",
    "z",
    "shared_values",
    "expected_shared_values",
    "lost",
    "expected_lost",
    "paper_pairs",
    "seconds",
}

SENTENCES = [
    "Белая берёза под моим окном принакрылась снегом, точно серебром.",
    "На пушистых ветках снежною каймой распустились кисти белой бахромой.",
    "И стоит берёза в сонной тишине, и горят снежинки в золотом огне.",
    "А заря, лениво обходя кругом, обсыпает ветки новым серебром.",
]


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "poems.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for i in range(40):
            text = " ".join(SENTENCES[(i + j) % 4] for j in range(i % 4 + 1))
            fh.write(json.dumps({"id": i, "text": text}, ensure_ascii=False) + "\n")
    return path


def test_without_corpus_prints_table_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "collisions")
    assert code == 0
    assert "9,291.49" in out and "65,536" in out and "69,459,424,187.99" in out
    assert out.count("agrees") == 6


def test_without_corpus_json_has_stable_keys(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "collisions", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"formula", "probabilities", "rows"}
    assert data["probabilities"] == [0.01, 0.1, 0.4]
    assert [row["bits"] for row in data["rows"]] == [32, 40, 48, 56, 64, 72]
    first = data["rows"][0]
    assert set(first) == ROW_KEYS
    assert round(first["shingles_for_probability"]["0.01"], 2) == 9291.49
    assert first["paper"]["shingles_for_probability"]["0.01"] == 9291.486835


def test_custom_widths_and_probabilities(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "collisions", "--json", "--widths", "16,128", "--probabilities", "0.5"
    )
    assert code == 0
    rows = json.loads(out)["rows"]
    assert [r["bits"] for r in rows] == [16, 128]
    assert set(rows[0]["shingles_for_probability"]) == {"0.5"}
    assert rows[0]["paper"] is None and rows[1]["range"] == 2**128


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--widths", "0"], "width"),
        (["--widths", "513"], "from 1 to 512 bits"),
        (["--widths", "32,x"], "--widths must be"),
        (["--probabilities", "1.5"], "probability must be in"),
    ],
)
def test_bad_table_options_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = run(capsys, "collisions", *args)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_corpus_json(capsys: pytest.CaptureFixture[str], corpus: Path) -> None:
    code, out, _ = run(
        capsys,
        "collisions",
        str(corpus),
        "--json",
        "--preset",
        "plain",
        "-k",
        "3",
        "--families",
        "rabin:32,crc32",
        "--families",
        "xxh3:64:5",
    )
    assert code == 0
    data = json.loads(out)
    assert set(data) == REPORT_KEYS
    assert data["documents"] == 40 and not data["limit_reached"]
    # the four sentences, joined in 4 rotations of 1 to 4 sentences: few distinct 3-shingles
    assert 0 < data["distinct_shingles"] < data["shingles"]
    assert data["spec"]["shingles"]["k"] == 3 and data["spec"]["analyzer"]["preset"] == "plain"
    assert [f["family"] for f in data["families"]] == ["rabin:32", "crc32", "xxh3:64:5"]
    for family in data["families"]:
        assert set(family) == FAMILY_KEYS
        assert family["distinct_shingles"] == data["distinct_shingles"]
        assert family["colliding_pairs"] == 0
    assert data["families"][1]["paper_pairs"] == 12320


def test_corpus_table_and_limit(
    capsys: pytest.CaptureFixture[str], corpus: Path, tmp_path: Path
) -> None:
    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "a.txt").write_text(SENTENCES[0], encoding="utf-8")
    code, out, _ = run(
        capsys,
        "collisions",
        str(corpus),
        str(texts),
        "--preset",
        "plain",
        "--limit-shingles",
        "7",
        "--families",
        "crc32,crc64",
    )
    assert code == 0
    assert "Collisions over 7 distinct shingles" in out
    assert "(limit reached)" in out and "12,320" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.jsonl"], "missing.jsonl: no such file or directory"),
        (["{corpus}", "--families", "sha1"], "unknown family 'sha1'"),
        (["{corpus}", "--families", "md5:256"], "md5 takes a width of 32 to 128 bits, got 256"),
        (["{corpus}", "--families", "md5:128:3"], "md5 is a fixed standard function"),
        (["{corpus}", "--families", "rabin:x"], "BITS and SEED must be integers"),
        (["{corpus}", "--families", "rabin:72"], "rabin takes a width of 32 to 64 bits, got 72"),
        (["{corpus}", "--families", "crc32:48"], "crc32 takes a width of 32 bits"),
        (["{corpus}", "--text-field", "body"], "no text field 'body'"),
    ],
)
def test_bad_input_exits_2_with_a_message(
    capsys: pytest.CaptureFixture[str], corpus: Path, args: list[str], message: str
) -> None:
    code, out, err = run(capsys, "collisions", *(a.format(corpus=corpus) for a in args))
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert out == ""


def test_malformed_jsonl_names_the_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "один два три четыре пять шесть"}\n{oops\n', encoding="utf-8")
    code, _, err = run(capsys, "collisions", str(path))
    assert code == 2 and "line 2: not valid JSON" in err


def test_installed_command_keeps_stdout_clean(corpus: Path) -> None:
    """Progress goes to stderr: stdout is the JSON alone."""
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "neardup.cli.main",
            "collisions",
            str(corpus),
            "--json",
            "--preset",
            "plain",
            "--families",
            "crc32",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["families"][0]["family"] == "crc32"

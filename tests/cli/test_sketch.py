"""``neardup sign`` and ``neardup params``: outputs, the seed 000 figures, plots, exit codes."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from neardup import make_spec
from neardup.cli.main import main
from neardup.sketch import MinHasher, read_signatures
from neardup.spec import SketchSpec

DOCS = [
    {
        "id": "n1",
        "text": "Правительство утвердило новый план развития транспорта в регионах страны",
    },
    {
        "id": 2,
        "text": "Правительство утвердило новый план развития транспорта "
        "в регионах страны и городах",
    },
    {"id": "n3", "text": "Футбольный клуб объявил о подписании контракта с молодым нападающим"},
]


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "docs.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for doc in DOCS:
            f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    return path


def expected(texts: list[str], **sketch: object) -> list[list[int]]:
    spec = make_spec("plain", k=3).replace(sketch=SketchSpec(**sketch))  # type: ignore[arg-type]
    return MinHasher(spec).sign_texts(texts).tolist()


def test_sign_jsonl(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = main(
        [
            "sign",
            str(corpus),
            "-o",
            str(out),
            "--preset",
            "plain",
            "-k",
            "3",
            "--num-perm",
            "64",
            "-q",
        ]
    )
    assert code == 0
    sigs = read_signatures(out)
    assert sigs.ids == ["n1", "2", "n3"]
    assert sigs.values.tolist() == expected([d["text"] for d in DOCS], num_perm=64)
    assert sigs.spec.sketch == SketchSpec(num_perm=64)


def test_sign_affine_minhash_family(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["sign", str(corpus), "-o", str(out), "-p", "plain", "-k", "3", "-N", "32", "-q"]
    assert main([*args, "--minhash-family", "affine"]) == 0
    sigs = read_signatures(out)
    assert sigs.spec.sketch == SketchSpec(num_perm=32, family="affine")
    texts = [d["text"] for d in DOCS]
    assert sigs.values.tolist() == expected(texts, num_perm=32, family="affine")
    assert sigs.values.tolist() != expected(texts, num_perm=32)


def test_sign_folder_and_files_with_two_jobs(tmp_path: Path) -> None:
    folder = tmp_path / "texts"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("первый текст про погоду и дождь в городе", encoding="utf-8")
    (folder / "sub" / "b.html").write_text(
        "<html><body><p>второй текст про погоду и снег</p></body></html>", encoding="utf-8"
    )
    (folder / "skip.bin").write_bytes(b"\x00\x01")
    single = tmp_path / "c.txt"
    single.write_text("третий текст отдельно", encoding="cp1251")
    out = tmp_path / "out"
    code = main(
        [
            "sign",
            str(folder),
            str(single),
            "-o",
            str(out),
            "--preset",
            "plain",
            "-k",
            "3",
            "--jobs",
            "2",
            "--batch-size",
            "1",
            "--value-bits",
            "32",
            "--bands",
            "16",
            "-q",
        ]
    )
    assert code == 0
    sigs = read_signatures(out)
    assert sigs.ids == ["a.txt", "sub/b.html", str(single)]
    assert sigs.values.dtype.itemsize == 4 and sigs.spec.sketch.rows == 8  # type: ignore[union-attr]
    again = tmp_path / "again"
    assert (
        main(
            [
                "sign",
                str(folder),
                str(single),
                "-o",
                str(again),
                "--preset",
                "plain",
                "-k",
                "3",
                "--value-bits",
                "32",
                "--bands",
                "16",
                "-q",
            ]
        )
        == 0
    )
    assert read_signatures(again).values.tolist() == sigs.values.tolist()


@pytest.mark.parametrize(
    "args",
    [
        ["missing.jsonl"],
        ["{corpus}", "--bands", "5"],
        ["{corpus}", "--bands", "20", "--rows", "7"],
        ["{corpus}", "--bands", "0"],
        ["{corpus}", "--num-perm", "0"],
        ["{corpus}", "--text-field", "body"],
        ["{corpus}", "--value-bits", "16"],
        ["{corpus}", "--jobs", "-1"],
        ["{corpus}", "--mega"],
    ],
)
def test_sign_bad_input_exits_2(
    corpus: Path, tmp_path: Path, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "sign",
        *[a.replace("{corpus}", str(corpus)) for a in args],
        "-o",
        str(tmp_path / "o"),
        "-q",
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Error" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists() and not (tmp_path / "o.partial").exists()


def test_sign_refuses_to_overwrite(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o"
    assert main(["sign", str(corpus), "-o", str(out), "-p", "plain", "-q"]) == 0
    assert main(["sign", str(corpus), "-o", str(out), "-p", "plain", "-q"]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["sign", str(corpus), "-o", str(out), "-p", "plain", "-q", "--force"]) == 0


def test_sign_bad_jsonl_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": 1, "text": "ok"}\n{broken\n', encoding="utf-8")
    assert main(["sign", str(path), "-o", str(tmp_path / "o"), "-q"]) == 2
    assert "bad.jsonl, line 2: not valid JSON" in capsys.readouterr().err


def test_params_json_reproduces_seed_000(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["params", "--bands", "6", "--rows", "14", "--at", "0.7", "0.5", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert list(got) == ["0.7", "0.5"]
    assert round(got["0.7"], 2) == 0.04 and 0.0003 <= got["0.5"] < 0.0004
    assert main(["params", "--bands", "14", "--rows", "6", "--at", "0.7", "--json"]) == 0
    assert round(json.loads(capsys.readouterr().out)["0.7"], 2) == 0.83
    assert (
        main(["params", "--bands", "14", "--num-perm", "84", "--at", "0.7", "--mega", "--json"])
        == 0
    )
    mega = json.loads(capsys.readouterr().out)["0.7"]
    assert 0.5 < mega < 0.83


def test_params_table_chooser_and_plots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    png, svg = tmp_path / "s.png", tmp_path / "s.svg"
    assert (
        main(
            [
                "params",
                "-b",
                "6",
                "-r",
                "14",
                "--compare",
                "14x6",
                "--at",
                "0.5",
                "0.7",
                "0.9",
                "--plot",
                str(png),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "0.0400096" in out and "0.826628" in out and "0.789569" in out
    assert png.read_bytes()[:4] == b"\x89PNG" and png.stat().st_size > 10_000
    assert (
        main(["params", "--threshold", "0.8", "--num-perm", "84", "--plot", str(svg), "--json"])
        == 0
    )
    choice = json.loads(capsys.readouterr().out)
    assert choice["bands"] * choice["rows"] <= 84 and "at" in choice
    assert b"<svg" in svg.read_bytes()[:2000] and svg.stat().st_size > 10_000


@pytest.mark.parametrize(
    "args",
    [
        ["--bands", "5"],  # 128 is not divisible by 5
        ["--bands", "0", "--rows", "3"],
        ["--bands", "x"],
        ["--at", "1.5"],
        ["--at", "abc"],
        ["0.5"],
        ["--threshold", "1"],
        ["--plot", "curve.gif"],
        ["--mega", "--bands", "1", "--rows", "4"],
        ["--compare", "6by14"],
    ],
)
def test_params_bad_input_exits_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["params", *args]) == 2
    err = capsys.readouterr().err
    assert "Error" in err and "Traceback" not in err


def test_console_script_runs() -> None:
    exe = Path(sys.executable).with_name("neardup")
    proc = subprocess.run(
        [str(exe), "params", "-b", "6", "-r", "14", "--at", "0.7", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and json.loads(proc.stdout)["0.7"] == pytest.approx(
        0.0400096, rel=1e-5
    )

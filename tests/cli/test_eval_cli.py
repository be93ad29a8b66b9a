"""``neardup eval``: its subcommands, their JSON, and exit code 2 with file and line for bad
input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from neardup.cli.main import main
from tests.eval.texts import EN, RU, THESAURUS_CSV, write_corpus


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small near-duplicates dataset generated from the test texts."""
    pytest.importorskip("pymorphy3")
    root = tmp_path_factory.mktemp("gen")
    corpus = write_corpus(root / "corpus.jsonl", RU)
    thesaurus = root / "th.csv"
    thesaurus.write_text(THESAURUS_CSV, encoding="utf-8")
    code = main(
        [
            "eval",
            "generate",
            str(corpus),
            "--out",
            str(root / "near"),
            "--docs",
            "4",
            "--min-chars",
            "200",
            "--levels",
            "0.05,0.2",
            "--kinds",
            "mixed,inflect,synonym",
            "--thesaurus",
            str(thesaurus),
        ]
    )
    assert code == 0
    return root / "near"


def test_methods_lists_names(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "eval", "methods")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()]
    assert {"resemblance", "containment", "sorensen", "tfidf", "given", "shingle-spans"} <= set(
        names
    )
    code, out, _ = _run(capsys, "eval", "methods", "--json")
    assert {row["name"] for row in json.loads(out)} >= {"resemblance", "tfidf"}


def test_generate_writes_the_files(generated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert sorted(p.name for p in generated.iterdir()) == [
        "documents.jsonl",
        "meta.json",
        "pairs.jsonl",
    ]
    meta = json.loads((generated / "meta.json").read_text(encoding="utf-8"))
    assert meta["counts"]["positives"] == 4 * 3 * 2
    assert meta["params"]["kinds"] == ["mixed", "inflect", "synonym"]


def test_generate_without_thesaurus_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pymorphy3")
    corpus = write_corpus(tmp_path / "corpus.jsonl", RU)
    code, out, err = _run(
        capsys,
        "eval",
        "generate",
        str(corpus),
        "--out",
        str(tmp_path / "o"),
        "--docs",
        "2",
        "--min-chars",
        "200",
        "--levels",
        "0.1",
        "--kinds",
        "synonym,reorder",
    )
    assert code == 0
    assert "note: no thesaurus given: skipped the kind(s) synonym" in err
    assert "2 source documents" in out


def test_pairs_json(generated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys,
        "eval",
        "pairs",
        str(generated / "pairs.jsonl"),
        "--method",
        "resemblance",
        "--preset",
        "plain",
        "-k",
        "3",
        "--json",
    )
    assert code == 0
    report = json.loads(out)
    assert {"auc", "best_f1", "best_threshold", "n"} <= report.keys()
    assert report["n"] == 24 + report["negatives"]
    assert 0.5 < report["auc"] <= 1.0
    assert set(report["by_kind"]) == {"mixed", "inflect", "synonym"}
    assert report["method"] == "resemblance" and len(report["spec_fingerprint"]) == 16
    assert "combined_version" not in report


def test_pairs_table_and_plots(
    generated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    code, out, _ = _run(
        capsys,
        "eval",
        "pairs",
        str(generated / "pairs.jsonl"),
        "-m",
        "containment",
        "--preset",
        "plain",
        "--plot-dir",
        str(tmp_path / "plots"),
        "--scores-out",
        str(tmp_path / "scores.jsonl"),
    )
    assert code == 0
    assert "best F1" in out and "ROC AUC" in out and "by kind of positive" in out
    for name in ("roc.png", "pr.png", "scores.png"):
        assert (tmp_path / "plots" / name).read_bytes()[:4] == b"\x89PNG"
    lines = (tmp_path / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 24 + sum(1 for row in map(json.loads, lines) if row["label"] == 0)


def test_pairs_given_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "scored.jsonl"
    path.write_text(
        '{"a": "x", "b": "y", "label": 1, "score": 0.9}\n'
        '{"a": "x", "b": "z", "label": 0, "score": 0.2}\n',
        encoding="utf-8",
    )
    code, out, _ = _run(capsys, "eval", "pairs", str(path), "-m", "given", "--json")
    assert code == 0 and json.loads(out)["auc"] == 1.0


def test_pairs_default_to_the_combined_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from neardup.fingerprints.pipeline import default_spec
    from neardup.score.combined import combined_score

    a, copy, other = EN[0], EN[0].replace("the", "a"), EN[3]
    path = tmp_path / "pairs.jsonl"
    rows = [{"a": a, "b": copy, "label": 1}, {"a": a, "b": other, "label": 0}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    scores = tmp_path / "scores.jsonl"
    code, out, _ = _run(capsys, "eval", "pairs", str(path), "--json", "--scores-out", str(scores))
    assert code == 0
    report = json.loads(out)
    assert report["method"] == "combined" and report["auc"] == 1.0
    assert report["combined_version"] == 5
    written = [json.loads(line)["score"] for line in scores.read_text().splitlines()]
    spec = default_spec()
    expected = [combined_score(a, copy, spec), combined_score(a, other, spec)]
    assert written == [round(v, 6) for v in expected] == [0.999821, 0.016368]


def test_pairs_msrp_tsv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "msr.txt"
    one_line = [" ".join(t.split()) for t in EN]  # a TSV row holds no line break
    rows = ["Quality\t#1 ID\t#2 ID\t#1 String\t#2 String"]
    rows += [
        f"1\t{i}\t{i + 100}\t{one_line[i]}\t{one_line[i].replace('the', 'a')}" for i in range(3)
    ]
    rows += [f"0\t{i}\t{i + 200}\t{one_line[i]}\t{one_line[i + 3]}" for i in range(3)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    code, out, _ = _run(
        capsys, "eval", "pairs", str(path), "-m", "tfidf", "--preset", "en", "--json"
    )
    assert code == 0
    report = json.loads(out)
    assert report["n"] == 6 and report["auc"] == 1.0


@pytest.mark.parametrize(
    ("content", "name", "expected"),
    [
        (
            '{"a": "x", "b": "y", "label": 1}\n{"a": "x", "b": "y", "label": 1\n',
            "p.jsonl",
            "p.jsonl, line 2: not valid JSON",
        ),
        (
            '{"a": "x", "b": "y", "label": 1}\n{"a": "x", "b": "y", "label": 3}\n',
            "p.jsonl",
            "p.jsonl, line 2: bad label 3",
        ),
        ('{"a": "x", "label": 1}\n', "p.jsonl", "p.jsonl, line 1: missing field 'b'"),
        ("1\t1\t2\tx\ty\n0\t1\tx\n", "p.tsv", "p.tsv, line 2: expected 5 tab-separated columns"),
    ],
)
def test_bad_files_exit_2_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, name: str, expected: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    code, out, err = _run(capsys, "eval", "pairs", str(path))
    assert code == 2
    assert expected in err and "Traceback" not in err and out == ""


def test_unknown_method_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"a": "x", "b": "y", "label": 1}\n', encoding="utf-8")
    code, _, err = _run(capsys, "eval", "pairs", str(path), "--method", "magic")
    assert code == 2 and "unknown method 'magic'; known:" in err
    code, _, err = _run(capsys, "eval", "clusters", str(path), "--method", "magic")
    assert code == 2 and "unknown method 'magic'" in err
    code, _, err = _run(capsys, "eval", "fragments", str(path), "--method", "magic")
    assert code == 2 and "unknown fragment method 'magic'" in err


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "eval", "pairs", str(tmp_path / "none.jsonl"))
    assert code == 2 and "none.jsonl: no such file" in err


def test_no_traceback_in_a_real_process(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"a": "x", "b": "y", "label": 1}\nnot json\n', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "neardup.cli.main", "eval", "pairs", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert f"{path}, line 2: not valid JSON" in done.stderr and "Traceback" not in done.stderr


def test_clusters(generated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys,
        "eval",
        "clusters",
        str(generated / "documents.jsonl"),
        "--preset",
        "plain",
        "-k",
        "3",
        "--threshold",
        "0.3",
        "--json",
    )
    assert code == 0
    report = json.loads(out)
    assert {"ari", "pair_precision", "pair_recall", "direct_pair_recall"} <= report.keys()
    assert report["true_groups"] >= 4


def test_clusters_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(
        '{"id": "a", "text": "x", "cluster": "1"}\n{"id": "b", "text": "y"}\n', encoding="utf-8"
    )
    code, _, err = _run(capsys, "eval", "clusters", str(path))
    assert code == 2 and "c.jsonl, line 2: missing field 'cluster'" in err


def test_fragments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pymorphy3")
    corpus = write_corpus(tmp_path / "corpus.jsonl", EN)
    out_dir = tmp_path / "partial"
    code, _, _ = _run(
        capsys,
        "eval",
        "generate",
        str(corpus),
        "--out",
        str(out_dir),
        "--lang",
        "en",
        "--task",
        "partial",
        "--docs",
        "3",
        "--min-chars",
        "200",
        "--shares",
        "0.3,0.5",
        "--obfuscation",
        "0",
    )
    assert code == 0
    code, out, _ = _run(
        capsys,
        "eval",
        "fragments",
        str(out_dir / "fragments.jsonl"),
        "--preset",
        "en",
        "-k",
        "3",
        "--pairs",
        str(out_dir / "pairs.jsonl"),
        "--json",
    )
    assert code == 0
    report = json.loads(out)
    assert report["cases"] == 6 and report["recall"] > 0.8 and report["precision"] > 0.8
    assert {"granularity", "plagdet"} <= report.keys()
    code, out, _ = _run(
        capsys,
        "eval",
        "pairs",
        str(out_dir / "pairs.jsonl"),
        "-m",
        "containment",
        "--preset",
        "en",
        "--json",
    )
    assert code == 0 and json.loads(out)["auc"] > 0.9

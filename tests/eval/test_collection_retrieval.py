"""`collection` as an eval method: its retrieval recall reported apart from the ranking AUC."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neardup.cli.main import main
from neardup.eval import formats, methods, run
from neardup.fingerprints.pipeline import make_spec

WORDS = [f"w{i}" for i in range(200)]
BASE = " ".join(WORDS[:60])
NEAR = " ".join(WORDS[:55] + ["x1", "x2", "x3", "x4", "x5"])
#: 10 shared words (6 shingles of 5): fewer than the winnowing window guarantees to find
FAINT = " ".join(WORDS[40:50] + [f"y{i}" for i in range(50)])
#: a negative that shares 35 words (31 shingles) with BASE
LOOSE = " ".join(WORDS[:35] + [f"z{i}" for i in range(25)])
OTHER = " ".join(WORDS[100:160])
ROWS = [(BASE, NEAR, 1), (BASE, FAINT, 1), (BASE, LOOSE, 0), (BASE, OTHER, 0)]
SPEC = make_spec("plain", k=5)


@pytest.fixture()
def dataset_path(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    lines = [json.dumps({"a": a, "b": b, "label": label}) for a, b, label in ROWS]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_retrieval_apart_from_ranking(dataset_path: Path) -> None:
    dataset = formats.read_pairs(dataset_path)
    report, scores = run.evaluate_pairs(dataset, methods.build("collection", SPEC))
    assert scores.round(4).tolist() == [0.8361, 0.0, 0.3827, 0.0]
    # FAINT is not retrieved and scores 0, tied with OTHER: (1 + 1 + 0 + 0.5) / 4
    assert report["auc"] == 0.625
    assert report["retrieval"] == {
        "retrieved": 2,
        "recall": 0.5,
        "negatives_retrieved": 0.5,
        "auc_retrieved": 1.0,
    }
    # a window small enough to find FAINT: every positive retrieved, the ranking as exact
    report, _ = run.evaluate_pairs(dataset, methods.build("collection", SPEC, {"window": "4"}))
    assert report["retrieval"]["recall"] == 1.0 and report["retrieval"]["auc_retrieved"] == 0.5
    exact, _ = run.evaluate_pairs(dataset, methods.build("resemblance", SPEC))
    assert report["auc"] == exact["auc"] == 0.75
    assert "retrieval" not in exact


def test_cli_reports_retrieval(dataset_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["eval", "pairs", str(dataset_path), "--method", "collection", "--preset", "plain"]
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["retrieval"]["recall"] == 0.5
    assert main(args) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "retrieval (apart from the ranking): recall 0.5000 of the positive pairs" in out
    assert "ROC AUC among them 1.0000" in out

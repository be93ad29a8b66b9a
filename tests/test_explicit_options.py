"""An option the user gives wins over a default rule: an explicit ``--unit``/``-k`` changes the
score of a short pair (the length rule would otherwise compare it on word 1-grams), in
``compare``, ``eval pairs`` and the collection alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neardup.cli.main import main
from neardup.fingerprints.pipeline import default_spec
from neardup.index import Collection, IndexSpec

A = "Кошка сидит на тёплом окне и смотрит на улицу."
B = "Кошка сидела на тёплом окне, глядя на улицу."
SETTINGS = {"default": (), "char 3": ("--unit", "char", "-k", "3"), "word 2": ("-k", "2")}


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    capsys.readouterr()
    assert main(list(args)) == 0
    out = json.loads(capsys.readouterr().out)
    assert isinstance(out, dict)
    return out


@pytest.fixture()
def files(tmp_path: Path) -> tuple[str, str]:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(A, encoding="utf-8")
    b.write_text(B, encoding="utf-8")
    return str(a), str(b)


def test_compare(files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    scores = {
        name: _json(capsys, "compare", *files, "--json", "--method", "sets", *flags)
        for name, flags in SETTINGS.items()
    }
    assert scores["default"]["shingling"] == {"unit": "word", "k": 1, "step": 1, "short_pair": True}
    assert scores["char 3"]["shingling"]["unit"] == "char"  # type: ignore[index]
    assert scores["word 2"]["shingling"]["k"] == 2  # type: ignore[index]
    resemblance = {name: s["resemblance"] for name, s in scores.items()}
    assert len(set(resemblance.values())) == 3, resemblance
    # and --short-below given beside them puts the rule back
    back = _json(capsys, "compare", *files, "--json", "-k", "2", "--short-below", "32")
    assert back["resemblance"] == resemblance["default"]


def test_eval_pairs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs = tmp_path / "pairs.jsonl"
    rows = [
        {"a": A, "b": B, "label": 1},
        {"a": A, "b": "Завтра обещают дождь и ветер.", "label": 0},
    ]
    pairs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    scores = {}
    for name, flags in SETTINGS.items():
        out = tmp_path / f"{name}.jsonl"
        args = [
            "eval",
            "pairs",
            str(pairs),
            "-m",
            "resemblance",
            "--json",
            "--scores-out",
            str(out),
        ]
        _json(capsys, *args, *flags)
        scores[name] = json.loads(out.read_text().splitlines()[0])["score"]
    assert len(set(scores.values())) == 3, scores


def test_the_collection(tmp_path: Path) -> None:
    resemblance = {}
    for name, options in {
        "default": {},
        "char 3": {"unit": "char", "k": 3},
        "word 2": {"k": 2},
    }.items():
        spec = default_spec(**options)  # type: ignore[arg-type]
        # every shingle posted (window 1): the scores, not the sampling, are what is compared
        with Collection.create(str(tmp_path / f"{name}.db"), spec, IndexSpec(window=1)) as col:
            col.add("a", A)
            [match] = col.check(B).matches
            resemblance[name] = match.resemblance
    assert len(set(resemblance.values())) == 3, resemblance

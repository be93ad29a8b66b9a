"""A copy made to fool a checker is neutralized and reported at every door: compare (library,
CLI, JSON), ``index check`` and the page say what was found, and ``--no-fold`` shows the raw
score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import neardup
from neardup.cli.main import main
from neardup.fingerprints.pipeline import default_spec
from neardup.index import Collection

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SOURCE = (EXAMPLES / "original.txt").read_text(encoding="utf-8")
LOOK_ALIKES = str.maketrans("аеорсхуАВЕКМНОРСТХ", "aeopcxyABEKMHOPCTX")
#: Every Cyrillic letter that has a Latin look-alike swapped for it.
SWAPPED = SOURCE.translate(LOOK_ALIKES)
#: A zero-width space after every letter.
ZERO_WIDTH = "".join(c + "\u200b" if c.isalpha() else c for c in SOURCE)


@pytest.mark.parametrize("copy", [SWAPPED, ZERO_WIDTH], ids=["look-alikes", "zero-width"])
def test_compare_neutralizes_and_reports(copy: str) -> None:
    assert copy != SOURCE
    result = neardup.compare(SOURCE, copy)
    # scored as an exact copy is (the calibrated score of two identical texts is just under 1)
    assert result.resemblance == 1.0 and result.combined == neardup.compare(SOURCE, SOURCE).combined
    assert result.combined is not None and result.combined > 0.999
    assert result.suspicious and result.tricks_b.suspicious and not result.tricks_a
    out = result.to_dict()["suspicious"]
    assert out["flag"] is True and out["a"]["tricks"] == []
    [trick] = out["b"]["tricks"]
    assert trick["kind"] in ("homoglyph", "invisible") and trick["words"] > 30
    # the spans point into the copy as given
    start, end = trick["spans"][0]
    assert copy[start:end].strip()


def test_the_raw_score_without_folding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(SOURCE, encoding="utf-8")
    b.write_text(SWAPPED, encoding="utf-8")
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json"]) == 0
    folded = json.loads(capsys.readouterr().out)
    assert main(["compare", str(a), str(b), "--json", "--no-fold"]) == 0
    raw = json.loads(capsys.readouterr().out)
    assert folded["resemblance"] == 1.0 and raw["resemblance"] == 0.0
    assert folded["suspicious"]["flag"] and not raw["suspicious"]["flag"]
    assert main(["compare", str(a), str(b)]) == 0
    assert "SUSPICIOUS, made to evade a checker" in " ".join(capsys.readouterr().out.split())


def test_index_check_reports(tmp_path: Path) -> None:
    with Collection.create(str(tmp_path / "c.db"), default_spec()) as col:
        col.add("source", SOURCE)
        result = col.check(SWAPPED)
    assert result.matches[0].id == "source" and result.matches[0].resemblance == 1.0
    assert result.suspicious and result.uniqueness < 0.1
    out = result.to_dict()["suspicious"]
    assert out["flag"] is True and out["tricks"][0]["kind"] == "homoglyph"
    clean = Collection.create("memory:", default_spec())
    clean.add("source", SOURCE)
    assert clean.check(SOURCE).to_dict()["suspicious"] == {"flag": False, "tricks": []}


def test_the_page_says_so(tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="the web extra is missing")
    from fastapi.testclient import TestClient

    from neardup.web.app import create_app
    from neardup.web.service import ServiceConfig

    db = str(tmp_path / "c.db")
    with Collection.create(db, default_spec()) as col:
        col.add("source", SOURCE)
    with TestClient(create_app(ServiceConfig(db=db))) as client:
        page = client.post("/check", data={"text": SWAPPED}).text
        assert 'class="suspicious" id="suspicious"' in page
        assert "Подозрительно: в тексте приёмы обхода проверки" in page
        compared = client.post("/compare", data={"text_a": SOURCE, "text_b": SWAPPED}).text
        assert 'id="suspicious-b"' in compared and 'id="suspicious-a"' not in compared

"""`neardup compare --fragments`: passages in the terminal, in JSON, and the HTML report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neardup.cli.main import main
from tests._aligntext import ESSAY, OTHER

FRAGMENT = ESSAY[ESSAY.index("Старые") : ESSAY.index("Опытный") - 1]


@pytest.fixture()
def pair(tmp_path: Path) -> tuple[str, str]:
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text(OTHER + "\n<script>window.x=1</script>\n" + FRAGMENT + "\n", encoding="utf-8")
    b.write_text(ESSAY, encoding="utf-8")
    return str(a), str(b)


def test_json_has_the_fragments(pair: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", *pair, "--json", "--fragments"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["fragments"]) == 1
    frag = out["fragments"][0]
    text_a = Path(pair[0]).read_text(encoding="utf-8")
    assert text_a[frag["a_start"] : frag["a_end"]] == frag["a_text"] == FRAGMENT.rstrip(".")
    assert ESSAY[frag["b_start"] : frag["b_end"]] == frag["b_text"]
    assert frag["similarity"] == 1.0
    summary = out["fragments_summary"]
    assert 0 < summary["borrowed"] < 1 and summary["cited"] == 0.0
    assert summary["uniqueness"] == round(1 - summary["borrowed"], 6)
    assert out["fragments_summary"]["params"]["k"] == 3
    # without --fragments the JSON stays as it was
    assert main(["compare", *pair, "--json"]) == 0
    assert "fragments" not in json.loads(capsys.readouterr().out)


def test_terminal_and_html_report(
    pair: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.html"
    assert main(["compare", *pair, "--fragments", "--html", str(report)]) == 0
    out = capsys.readouterr().out
    assert "Старые дубы" in out and "similarity" in out and "borrowed" in out
    page = report.read_text(encoding="utf-8")
    assert 'href="#b-0-1"' in page and 'id="b-0-1"' in page
    assert "<script>" not in page and "&lt;script&gt;window.x=1&lt;/script&gt;" in page


def test_alignment_options(pair: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", *pair, "--json", "--fragments", "--min-tokens", "100"]) == 0
    fragments = json.loads(capsys.readouterr().out)["fragments"]
    assert [f for f in fragments if f["kind"] == "copied"] == []  # the rewritten ones stay
    assert main(["compare", *pair, "--json", "--fragments", "--align-k", "4", "--gap", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["fragments_summary"]["params"]["gap"] == 0

"""``dedup`` counts the documents whose tricks were undone (issue 24), by kind, in its result,
``summary.json`` and the line it prints: the analyzer's kinds, and ``hidden_text`` for an
office file whose hidden text was kept out when it was read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neardup.cli.main import main
from neardup.corpus import DedupOptions, dedup
from neardup.fingerprints.pipeline import make_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SOURCE = (EXAMPLES / "original.txt").read_text(encoding="utf-8")
OTHER = (EXAMPLES / "unrelated.txt").read_text(encoding="utf-8")
SWAPPED = SOURCE.translate(str.maketrans("аеорсхуАВЕКМНОРСТХ", "aeopcxyABEKMHOPCTX"))
ZERO_WIDTH = "".join(c + "\u200b" if c.isalpha() else c for c in OTHER)


def _jsonl(path: Path) -> Path:
    records = [
        {"id": "source", "text": SOURCE},
        {"id": "swapped", "text": SWAPPED},
        {"id": "zero-width", "text": ZERO_WIDTH},
        {"id": "other", "text": OTHER},
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return path


def test_the_summary_counts_documents_with_tricks(tmp_path: Path) -> None:
    corpus = _jsonl(tmp_path / "in.jsonl")
    result = dedup([corpus], tmp_path / "out", DedupOptions(threshold=0.8))
    assert result.groups == 2  # the copies joined their sources: the tricks were undone
    assert result.tricks == {
        "documents": 2,
        "suspicious": 2,
        "kinds": {"homoglyph": 1, "invisible": 1},
    }
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["tricks"] == result.tricks
    raw = dedup(
        [corpus],
        tmp_path / "raw",
        DedupOptions(threshold=0.8),
        spec=make_spec("auto", fold_tricks=False),
    )
    assert raw.groups == 4 and raw.tricks == {"documents": 0, "suspicious": 0, "kinds": {}}


def test_hidden_text_of_office_files_is_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docx = pytest.importorskip("docx")
    from docx.shared import RGBColor

    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "source.txt").write_text(SOURCE, encoding="utf-8")
    document = docx.Document()
    paragraph = document.add_paragraph(SOURCE)
    paragraph.add_run(" " + OTHER).font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
    document.save(str(folder / "copy.docx"))
    out = tmp_path / "out"
    capsys.readouterr()
    assert main(["dedup", str(folder), "--out", str(out), "-t", "0.8", "-q"]) == 0
    printed = capsys.readouterr().out
    assert "1 groups" in printed  # the white text was kept out: the copy joined its source
    assert "tricks undone in 1 documents (1 suspicious): hidden_text 1" in printed
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["tricks"] == {"documents": 1, "suspicious": 1, "kinds": {"hidden_text": 1}}

"""The Spark engine cleans as the local engine does: the same exact copies, the same spans cut,
the same records, edges, spans file and counts."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from tests import _textgen
from tests.spark.test_spark_dedup import DATA

pytestmark = pytest.mark.spark

BOILERPLATE = [
    "Accept all cookies on this site now please",
    "Subscribe to our channel for more news",
    "Menu Home News Sport Weather Contacts",
]


def web_pages(n: int) -> list[dict[str, Any]]:
    """``n`` pages: own text of 50 words between boilerplate lines (each line on some of the
    pages), a near-copy of every fifth, an exact copy (other case) of the second, empty ones."""
    rows: list[dict[str, Any]] = []
    for i in range(n):
        lines = [line for k, line in enumerate(BOILERPLATE) if (i + k) % (k + 2)]
        body = _textgen.text(50, seed=i)
        rows.append(
            {"id": f"p{i}", "text": "\n".join([lines[0] if lines else "", body, *lines[1:]])}
        )
        if i % 5 == 0:
            rows.append({"id": f"p{i}v", "text": _textgen.edit(rows[-1]["text"], 0.03, seed=i)})
    # longer than its first (doubled spaces), yet never kept over it
    rows.append({"id": "copy", "text": rows[1]["text"].upper().replace(" ", "  ")})
    rows.append({"id": "empty", "text": ""})
    rows.append({"id": "short", "text": BOILERPLATE[0] + "\nok\n"})
    return rows


def _outputs(folder: Path) -> dict[str, Any]:
    def rows(name: str) -> list[Any]:
        # by "\n" only: str.splitlines would also cut at a U+2028 inside a text
        lines = (folder / name).read_text("utf-8").split("\n")
        return [json.loads(line) for line in lines if line]

    summary = json.loads((folder / "summary.json").read_text("utf-8"))
    return {
        "documents": rows("documents.jsonl"),
        "edges": rows("edges.jsonl"),
        "spans": rows("spans.jsonl"),
        "spec": (folder / "spec.json").read_text("utf-8"),
        "exact_duplicates": summary["exact_duplicates"],
        "counts": {k: v for k, v in summary["spans"].items() if k != "error_bound"},
    }


def _both(path: Path, tmp_path: Path, *extra: str) -> tuple[dict[str, Any], dict[str, Any]]:
    from neardup.cli.main import main

    common = ["-p", "plain", "-k", "3", "-t", "0.6", "-q", *extra]
    assert main(["dedup", str(path), "--out", str(tmp_path / "local"), *common]) == 0
    spark_out = tmp_path / "spark"
    assert main(["dedup", str(path), "--out", str(spark_out), "--engine", "spark", *common]) == 0
    return _outputs(tmp_path / "local"), _outputs(spark_out)


def test_spark_cleans_as_the_local_engine(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in web_pages(40)), "utf-8")
    clean = ["--exact", "canonical", "--level", "line", "--span-docs", "3", "--keep", "longest"]
    local, spark_out = _both(path, tmp_path, *clean)
    capsys.readouterr()
    assert spark_out == local
    assert local["exact_duplicates"] >= 1
    copy = next(r for r in local["documents"] if r["id"] == "copy")
    first = next(r for r in local["documents"] if r["id"] == "p0v")
    assert not copy["kept"] and copy["group"] == first["group"]
    assert copy["similarity"] == first["similarity"] < 1.0
    assert local["counts"]["spans_removed"] == len(local["spans"]) > 40
    assert local["counts"]["documents_dropped"] == 1
    short = next(r for r in local["documents"] if r["id"] == "short")
    assert (short["text"], short["kept"]) == ("ok\n", False)


def test_spark_refuses_approximate_counting(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from neardup.cli.main import main

    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in web_pages(6)), "utf-8")
    args = ["dedup", str(path), "--out", str(tmp_path / "o"), "--engine", "spark", "-q"]
    assert main([*args, "--level", "line", "--span-counting", "approximate"]) == 1
    err = capsys.readouterr().err
    assert "approximate counting" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


@pytest.mark.heavy
def test_spark_cleans_20000_news_documents_as_the_local_engine(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """20,000 news documents (Russian news, then Reuters) with boilerplate paragraphs on a
    share of them: the same documents, edges and spans files from both engines."""
    if not DATA.exists():
        pytest.skip(f"{DATA} is not here")
    rows: list[dict[str, Any]] = []
    for source in (DATA, DATA.parent / "reuters21578.jsonl.gz"):  # 9,277 news, then Reuters
        with gzip.open(source, "rt", encoding="utf-8") as fh:
            for line in fh:
                if len(rows) >= 20_000:
                    break
                i = len(rows)
                text = json.loads(line).get("text") or ""
                extra = [BOILERPLATE[k] for k in range(3) if i % (k + 3) == 0]
                rows.append({"id": f"n{i}", "text": "\n\n".join([text, *extra])})
    assert len(rows) == 20_000
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    local, spark_out = _both(path, tmp_path, "--exact", "raw", "--level", "paragraph")
    capsys.readouterr()
    assert spark_out == local
    assert local["counts"]["spans_removed"] >= 20_000 // 3

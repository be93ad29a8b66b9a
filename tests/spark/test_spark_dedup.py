"""The Spark engine gives the local engine's groups, kept documents and similarities."""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from neardup.corpus import DedupOptions, dedup, partition, read_groups
from neardup.errors import MissingDependencyError
from neardup.fingerprints.pipeline import make_spec
from tests import _textgen

pytestmark = pytest.mark.spark

PLAIN3 = make_spec("plain", k=3)
# ../shared/data beside the checkout, or two levels up from a worktree under /work/wt/
DATA = next(
    (
        p / "shared" / "data" / "ru_news.jsonl.gz"
        for p in Path(__file__).resolve().parents[3:5]
        if (p / "shared" / "data" / "ru_news.jsonl.gz").exists()
    ),
    Path(__file__).resolve().parents[3] / "shared" / "data" / "ru_news.jsonl.gz",
)


def small_corpus() -> list[dict[str, Any]]:
    """30 texts of 60 words, every third with a near-copy (3 % of words edited), one exact
    copy, and one text pasted inside a longer one."""
    records: list[dict[str, Any]] = []
    for i in range(30):
        base = _textgen.text(60, seed=i)
        records.append({"id": f"d{i}", "text": base})
        if i % 3 == 0:
            records.append({"id": f"d{i}v", "text": _textgen.edit(base, 0.03, seed=100 + i)})
    records.append({"id": "copy", "text": records[2]["text"]})  # d1
    records.append({"id": "long", "text": _textgen.text(200, seed=999) + " " + records[3]["text"]})
    return records


@pytest.mark.slow
def test_same_groups_as_the_local_engine(spark: Any, tmp_path: Path) -> None:
    from neardup.spark import dedup_dataframe

    records = small_corpus()
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    local = dedup(
        [path], tmp_path / "local", DedupOptions(threshold=0.6, keep="longest"), spec=PLAIN3
    )
    local_rows = {
        r["id"]: r
        for r in map(json.loads, (tmp_path / "local" / "documents.jsonl").open(encoding="utf-8"))
    }
    df = spark.createDataFrame(
        [(r["id"], r["text"], i) for i, r in enumerate(records)],
        "id string, text string, order long",
    )
    edges: list[Any] = []
    rows = dedup_dataframe(
        df, DedupOptions(threshold=0.6, keep="longest"), spec=PLAIN3, edges_out=edges
    ).collect()
    spark_rows = {r["id"]: r.asDict() for r in rows}
    assert len(spark_rows) == len(records) == 42
    assert partition({k: v["group"] for k, v in spark_rows.items()}) == partition(
        read_groups(tmp_path / "local")
    )
    for doc_id, row in spark_rows.items():
        mine = local_rows[doc_id]
        assert (row["group"], row["kept"], row["representative"]) == (
            mine["group"],
            mine["kept"],
            mine["representative"],
        ), doc_id
        assert row["similarity"] == mine["similarity"], doc_id
    # exact values: d1 and its exact copy; the 10 near-copies with their sources
    assert spark_rows["copy"]["group"] == "d1" and spark_rows["copy"]["similarity"] == 1.0
    assert spark_rows["d15v"]["group"] == "d15"
    assert local.groups == sum(r["kept"] for r in spark_rows.values()) == 31
    assert edges[0].count() == local.verified_pairs == 11


@pytest.mark.slow
def test_cli_engine_spark_kept_only(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`neardup dedup --engine spark --kept-only` keeps the local engine's documents; the CLI
    uses the test run's one session (and leaves it running)."""
    from neardup.cli.main import main

    records = small_corpus()
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    common = ["-p", "plain", "-k", "3", "-t", "0.6", "--keep", "longest", "--kept-only"]
    common += ["--format", "jsonl", "-q"]
    assert main(["dedup", str(path), "--out", str(tmp_path / "local"), *common]) == 0
    capsys.readouterr()
    out = tmp_path / "spark"
    assert main(["dedup", str(path), "--out", str(out), "--engine", "spark", *common]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["engine"], summary["documents"], summary["groups"]) == ("spark", 42, 31)
    written = [
        json.loads(line) for line in (out / "documents.jsonl").read_text("utf-8").splitlines()
    ]
    local = [
        json.loads(line)
        for line in (tmp_path / "local" / "documents.jsonl").read_text("utf-8").splitlines()
    ]
    assert len(written) == len(local) == 31 and all(r["kept"] for r in written)
    assert [r["id"] for r in written] == [r["id"] for r in local]  # input order, kept only
    assert len({"d15", "d15v", "copy", "d1"} & {r["id"] for r in written}) == 2  # one of each
    assert json.loads((out / "spec.json").read_text("utf-8"))["dedup"]["keep"] == "longest"
    assert spark.range(3).count() == 3  # the shared session still runs
    assert main(["dedup", str(path), "--out", str(out), "--engine", "spark", *common]) == 2
    assert "already exists" in capsys.readouterr().err


def test_no_java_is_one_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from neardup.spark import session

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(MissingDependencyError, match=r"^Spark cannot start: no Java found"):
        session("local[1]")


def near_copies(texts: list[tuple[str, str]], n: int, seed: int) -> list[tuple[str, str]]:
    """``n`` edited copies of random real texts: 1–20 % of the words replaced by words of the
    same text, some words dropped."""
    rng = np.random.default_rng(seed)
    out = []
    for j in range(n):
        src_id, text = texts[int(rng.integers(len(texts)))]
        words = text.split()
        if len(words) < 10:
            continue
        arr = np.array(words, dtype=object)
        rate = float(rng.uniform(0.01, 0.2))
        hit = rng.random(arr.shape[0]) < rate
        arr[hit] = rng.choice(arr, int(hit.sum()))
        keep = rng.random(arr.shape[0]) >= rate / 4
        out.append((f"copy{j}:of:{src_id}", " ".join(arr[keep].tolist())))
    return out


@pytest.mark.heavy
def test_same_groups_on_50k_news_documents(spark: Any, tmp_path: Path) -> None:
    """ru_news (9,277) and 40,723 generated near-copies: identical groups on both engines."""
    from neardup.spark import dedup_files

    if not DATA.exists():
        pytest.skip(f"{DATA} is not here")
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        real = [(str(r["id"]), r["text"]) for r in map(json.loads, fh)]
    docs = real + near_copies(real, 50_000 - len(real), seed=13)
    path = tmp_path / "news.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for doc_id, text in docs:
            fh.write(json.dumps({"id": doc_id, "text": text}, ensure_ascii=False) + "\n")
    spec = make_spec("plain")
    started = time.perf_counter()
    local = dedup([path], tmp_path / "local", DedupOptions(threshold=0.7), spec=spec, jobs=2)
    local_s = time.perf_counter() - started
    started = time.perf_counter()
    summary = dedup_files(
        [str(path)], tmp_path / "spark", DedupOptions(threshold=0.7), spec=spec, spark=spark
    )
    spark_s = time.perf_counter() - started
    print(  # the figures docs/benchmarks.md quotes (run with -s to see them)
        json.dumps(
            {
                "bytes": path.stat().st_size,
                "local_s": round(local_s, 1),
                "local": local.seconds,
                "spark_s": round(spark_s, 1),
                "spark": summary["seconds"],
                "groups": local.groups,
                "verified_pairs": local.verified_pairs,
            }
        )
    )
    import pyarrow.parquet as pq

    table = pq.read_table(tmp_path / "spark" / "documents.parquet")
    spark_groups = dict(
        zip(table.column("id").to_pylist(), table.column("group").to_pylist(), strict=True)
    )
    assert summary["documents"] == local.documents == len(docs)
    assert summary["groups"] == local.groups
    assert spark_groups == read_groups(tmp_path / "local")


@pytest.mark.slow
def test_spark_writes_the_local_engines_records(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same records from both engines: every input field and the text, the added fields,
    the same values (a number id as its decimal string, a null text as ""); the same edges."""
    from neardup.cli.main import main

    records: list[dict[str, Any]] = small_corpus()
    for i, r in enumerate(records):
        r["year"] = 1990 + i % 7
        r["tags"] = {"src": ["a", "b"][i % 2], "n": [i]}
    records[5]["id"] = 5005  # a number id
    records[6]["text"] = None  # a null text
    records[7]["group"] = "old"  # a field named like an added one
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    common = ["-p", "plain", "-k", "3", "-t", "0.6", "--keep", "max:year", "-q"]
    assert main(["dedup", str(path), "--out", str(tmp_path / "local"), *common]) == 0
    out = tmp_path / "spark"
    assert main(["dedup", str(path), "--out", str(out), "--engine", "spark", *common]) == 0
    capsys.readouterr()

    def rows(folder: Path, name: str) -> list[dict[str, Any]]:
        return [json.loads(line) for line in (folder / name).read_text("utf-8").splitlines()]

    local, spark_rows = rows(tmp_path / "local", "documents.jsonl"), rows(out, "documents.jsonl")
    assert spark_rows == local
    assert len(local) == 42 and local[5]["id"] == "5005" and local[6]["text"] == ""
    assert local[0]["tags"] == {"src": "a", "n": [0]} and local[0]["year"] == 1990
    assert local[7]["group"] != "old"
    assert sum(r["kept"] for r in local) < 42
    assert rows(out, "edges.jsonl") == rows(tmp_path / "local", "edges.jsonl")
    assert (out / "spec.json").read_bytes() == (tmp_path / "local" / "spec.json").read_bytes()


@pytest.mark.slow
def test_dedup_dataframe_carries_the_input_columns(spark: Any) -> None:
    from neardup.spark import dedup_dataframe

    records = small_corpus()[:6]
    df = spark.createDataFrame(
        [(r["id"], r["text"], i, 2000 + i) for i, r in enumerate(records)],
        "id string, text string, order long, year long",
    )
    out = dedup_dataframe(df, DedupOptions(threshold=0.6), spec=PLAIN3)
    assert out.columns == [
        "id",
        "text",
        "year",
        "group",
        "kept",
        "similarity",
        "representative",
        "order",
    ]
    got = sorted(out.collect(), key=lambda r: r["order"])
    assert [(r["id"], r["text"], r["year"]) for r in got] == [
        (r["id"], r["text"], 2000 + i) for i, r in enumerate(records)
    ]


@pytest.mark.slow
def test_a_similarity_on_a_rounding_tie_is_the_local_engines(spark: Any, tmp_path: Path) -> None:
    """Resemblance 81/128 = 0.6328125 sits exactly halfway at six decimals: the local engine
    writes Python's round (0.632812, half to even); Spark's own round (half up, 0.632813) must
    not be what the Spark engine writes."""
    from neardup.spark import dedup_dataframe

    words = _textgen.VOCAB  # distinct words: 105 and 104 three-word shingles, 81 shared
    records = [
        {"id": "a", "text": " ".join(words[:107])},
        {"id": "b", "text": " ".join(words[:83] + words[200:223])},
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    options = DedupOptions(threshold=0.6)
    dedup([path], tmp_path / "local", options, spec=PLAIN3, progress=False)
    local = [json.loads(line) for line in (tmp_path / "local" / "documents.jsonl").open()]
    assert [r["similarity"] for r in local] == [1.0, 0.632812]
    df = spark.createDataFrame([(r["id"], r["text"]) for r in records], "id string, text string")
    rows = sorted(dedup_dataframe(df, options, spec=PLAIN3).collect(), key=lambda r: r["id"])
    assert [(r["group"], r["similarity"]) for r in rows] == [("a", 1.0), ("a", 0.632812)]

"""One answer everywhere: the library, the CLI's ``--json`` and the web API give the same numbers
for the same input, with the same defaults; each text is analysed once per request."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

import neardup
from neardup.analysis.analyzer import Analyzer
from neardup.cli.main import main
from neardup.fingerprints.pipeline import default_spec
from neardup.index import Collection

pytest.importorskip("fastapi", reason="the web extra is missing: pip install 'neardup[web]'")

from fastapi.testclient import TestClient  # noqa: E402

from neardup.web.app import create_app  # noqa: E402
from neardup.web.service import ServiceConfig  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ESSAY = EXAMPLES / "essay_with_quote.txt"
PARK = EXAMPLES / "collection" / "park.txt"


def cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> object:
    capsys.readouterr()
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture()
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The README's collection, made by the CLI with its defaults."""
    path = str(tmp_path / "texts.db")
    assert main(["index", "create", path, "--policy", "group", "--threshold", "0.5"]) == 0
    assert main(["index", "add", path, str(EXAMPLES / "collection")]) == 0
    capsys.readouterr()
    return path


@pytest.fixture()
def client(db: str) -> Iterator[TestClient]:
    with TestClient(create_app(ServiceConfig(db=db)), raise_server_exceptions=False) as c:
        yield c


def test_the_cli_makes_collections_under_the_default_spec(db: str) -> None:
    with Collection.open(db, spec=default_spec()) as col:  # no spec mismatch
        assert col.spec.fingerprint() == default_spec().fingerprint()


def test_compare_is_one_answer(client: TestClient, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = ESSAY.read_text(encoding="utf-8"), PARK.read_text(encoding="utf-8")
    library = neardup.compare(a, b, fragments=True, b_id=str(PARK)).to_dict()
    cli = cli_json(capsys, "compare", str(ESSAY), str(PARK), "--json", "--fragments")
    api = client.post("/api/compare", json={"a": a, "b": b, "b_id": str(PARK), "fragments": True})
    assert api.status_code == 200
    assert library == cli == api.json()
    assert next(iter(library)) == "combined"  # the default score, first, everywhere
    # and without fragments, by default, the same three agree
    plain = neardup.compare(a, b, b_id=str(PARK)).to_dict()
    assert plain == cli_json(capsys, "compare", str(ESSAY), str(PARK), "--json")
    assert plain == client.post("/api/compare", json={"a": a, "b": b}).json()


def test_check_is_one_answer(
    db: str, client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    text = ESSAY.read_text(encoding="utf-8")
    with Collection.open(db) as col:
        library = col.check(text, fragments=True).to_dict()
    cli = cli_json(capsys, "index", "check", db, str(ESSAY), "--json", "--fragments")
    api = client.post("/api/check", json={"text": text, "fragments": True})
    assert api.status_code == 200
    answer = api.json()
    # the service keeps the check: its addresses are the only thing the API adds
    kept = {key: answer.pop(key) for key in ("check_id", "check_url", "pdf_url")}
    assert kept["check_url"] == f"/checks/{kept['check_id']}"
    assert library == cli == answer
    # one uniqueness figure, with the cited share apart: the three shares add up to one
    assert json.dumps(library).count('"uniqueness"') == 1
    assert library["uniqueness"] + library["borrowed"] + library["cited"] == pytest.approx(1)
    # sources with nothing taken are not sources
    assert all(s["borrowed"] > 0 for s in library["fragments"]["sources"])
    # without fragments the figure is the same
    bare = cli_json(capsys, "index", "check", db, str(ESSAY), "--json")
    assert isinstance(bare, dict) and "fragments" not in bare
    assert (bare["uniqueness"], bare["borrowed"], bare["cited"]) == (
        library["uniqueness"],
        library["borrowed"],
        library["cited"],
    )


def test_matrix_is_one_answer(client: TestClient, capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted((EXAMPLES / "collection").iterdir())
    cli = cli_json(capsys, "matrix", *map(str, files), "--json")
    assert isinstance(cli, dict)
    texts = [f.read_text(encoding="utf-8") for f in files]
    library = neardup.similarity_matrix(texts, ids=cli["ids"]).to_dict()
    api = client.post("/api/matrix", json={"texts": texts, "ids": cli["ids"]}).json()
    assert library == cli == api
    assert library["method"] == neardup.DEFAULTS.matrix


class _Counting:
    """Counts the analyses run per (analyzer spec, text)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.runs: Counter[tuple[object, str]] = Counter()
        original = Analyzer.canonical

        def canonical(analyzer: Analyzer, text: str) -> object:
            self.runs[(analyzer.spec, text)] += 1
            return original(analyzer, text)

        monkeypatch.setattr(Analyzer, "canonical", canonical)

    def most(self) -> int:
        return max(self.runs.values(), default=0)


def test_each_text_is_analysed_once_per_request(
    db: str, client: TestClient, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = ESSAY.read_text(encoding="utf-8"), PARK.read_text(encoding="utf-8")
    counting = _Counting(monkeypatch)
    requests = [
        lambda: neardup.compare(a, b),
        lambda: neardup.compare(a, b, fragments=True),
        lambda: cli_json(capsys, "compare", str(ESSAY), str(PARK), "--json", "--fragments"),
        lambda: cli_json(capsys, "index", "check", db, str(ESSAY), "--json", "--fragments"),
        lambda: client.post("/api/compare", json={"a": a, "b": b, "fragments": True}),
        lambda: client.post("/api/check", json={"text": a, "fragments": True}),
    ]
    for number, request in enumerate(requests):
        counting.runs.clear()
        request()
        assert counting.runs, "nothing was analysed: the counter is not where analyses run"
        most = [(n, spec.preset, text[:30]) for (spec, text), n in counting.runs.most_common(3)]  # type: ignore[attr-defined]
        assert counting.most() == 1, (number, most)


def test_dedup_is_one_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The library's dedup and ``neardup dedup`` write the same records, groups and spec."""
    corpus = tmp_path / "corpus.jsonl"
    with corpus.open("w", encoding="utf-8") as fh:
        for f in sorted((EXAMPLES / "collection").iterdir()):
            text = f.read_text(encoding="utf-8")
            fh.write(json.dumps({"id": f.stem, "text": text}, ensure_ascii=False) + "\n")
    library, cli = tmp_path / "library", tmp_path / "cli"
    neardup.dedup([corpus], library)
    assert main(["dedup", str(corpus), "-o", str(cli), "-q"]) == 0
    for name in ("documents.jsonl", "edges.jsonl", "spec.json"):
        assert (library / name).read_bytes() == (cli / name).read_bytes(), name
    records = [json.loads(line) for line in (cli / "documents.jsonl").open(encoding="utf-8")]
    assert sorted(r["id"] for r in records) == ["bakery", "park", "park_repost", "school"]
    assert all(r["text"] and "group" in r and "kept" in r for r in records)

"""One figure for a text taken from many documents, through every door: the library, the CLI's
``--json`` and its table, the API, the page and the PDF count every source found, whatever
``top`` lists; the sources counted but not listed are one row, "and N more"."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator

import pytest

from neardup.fingerprints.pipeline import default_spec
from neardup.index import Collection
from tests import _textgen as tg
from tests.cli._run import run

pytest.importorskip("fastapi", reason="the web extra is missing: pip install 'neardup[web]'")
pypdf = pytest.importorskip("pypdf", reason="the office extra is missing")
pytest.importorskip("fpdf", reason="the report extra is missing: pip install 'neardup[report]'")

from fastapi.testclient import TestClient  # noqa: E402

from neardup.web.app import create_app  # noqa: E402
from neardup.web.service import ServiceConfig  # noqa: E402

#: Thirty stored documents pasted whole, then an essay of the writer's own.
PASTED = [tg.text(120, 100 + i) for i in range(30)]
TEXT = "\n\n".join([*PASTED, tg.text(80, 999)])


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("figure") / "pasted.db")
    with Collection.create(path, default_spec()) as col:
        col.add_many([(f"pasted-{i:02d}", text) for i, text in enumerate(PASTED)])
        col.add_many([(f"other-{i:02d}", tg.text(150, 500 + i)) for i in range(10)])
    return path


@pytest.fixture(scope="module")
def text_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("text") / "essay.txt"
    path.write_text(TEXT, encoding="utf-8")
    return str(path)


@pytest.fixture()
def client(db: str) -> Iterator[TestClient]:
    with TestClient(create_app(ServiceConfig(db=db)), raise_server_exceptions=False) as c:
        yield c


def _comma(percent: float) -> str:
    return f"{percent:.1f}".replace(".", ",")


def test_the_library_the_cli_and_the_api_give_one_low_figure(
    db: str, text_file: str, client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    with Collection.open(db) as col:
        library = col.check(TEXT).to_dict()
    assert library["uniqueness"] <= 0.05 and len(library["matches"]) == 10
    assert (library["sources_counted"], library["limited"]) == (30, False)
    code, out, err = run(capsys, "index", "check", db, text_file, "--json")
    assert code == 0, err
    cli = json.loads(out)
    api = client.post("/api/check", json={"text": TEXT}).json()
    for key in ("check_id", "check_url", "pdf_url"):
        api.pop(key, None)
    assert library == cli == api
    # the list is cut, the figure is not
    _, one, _ = run(capsys, "index", "check", db, text_file, "--json", "--top", "1")
    listed_one = client.post("/api/check", json={"text": TEXT, "top": 1}).json()
    for answer in (json.loads(one), listed_one):
        assert len(answer["matches"]) == 1
        assert answer["uniqueness"] == library["uniqueness"]
        assert answer["by_kind"] == library["by_kind"]


def test_the_cli_table_says_what_the_sources_not_listed_add(
    db: str, text_file: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEARDUP_LANG", "en")
    code, out, err = run(capsys, "index", "check", db, text_file, "--top", "5")
    assert code == 0, err
    with Collection.open(db) as col:
        result = col.check(TEXT, top=5)
    assert result.alignment is not None and result.alignment.more is not None
    share = 100 * result.alignment.more.share
    assert f"uniqueness {100 * result.uniqueness:.1f} %" in out
    assert (
        f"sources counted but not listed (--top lists more): 25; {share:.1f} % of the text was "
        "found only in them" in " ".join(out.split())
    )


def test_the_page_and_the_pdf_show_the_same_figure_and_the_row_of_the_others(
    client: TestClient,
) -> None:
    answer = client.post("/api/check", json={"text": TEXT, "top": 3}).json()
    r = client.post("/check", data={"text": TEXT}, follow_redirects=False)
    assert r.status_code == 303
    page = client.get(r.headers["location"]).text
    shown = re.search(r'<span id="uniqueness">Уникальность ([\d,]+) %', page)
    assert shown is not None and shown.group(1) == _comma(100 * answer["uniqueness"])
    # the page lists the default top; the 20 others are one row, their words on grey
    assert 'id="more-sources"' in page and "и ещё 20 источников" in page
    assert 'class="more"' in page
    pdf = client.get(r.headers["location"] + "/pdf").content
    text = "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf)).pages)
    assert f"Уникальность {_comma(100 * answer['uniqueness'])} %" in text
    assert "и ещё 20 источников" in " ".join(text.split())
    english = client.get(r.headers["location"] + "/pdf?lang=en").content
    words = " ".join(
        " ".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(english)).pages).split()
    )
    assert "and 20 sources not listed, but counted in the uniqueness" in words

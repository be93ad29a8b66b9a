"""Bad input never breaks the service: a lone surrogate or a NUL character is a 422 with a
message on SQLite and on PostgreSQL, through the API and the page's forms, with no traceback
logged and the client's keep-alive connection kept; `neardup serve` never prints a password
and prints its banner only once the port answers; anonymous readers never see the
collection's location."""

from __future__ import annotations

import logging
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from neardup.fingerprints.pipeline import make_spec
from neardup.index import Collection, IndexSpec
from neardup.inputs import iter_inputs
from neardup.web.service import ServiceConfig
from tests.storage._postgres import PG_URL, drop_schemas, postgres_or_fail, unique_schema
from tests.web.conftest import EXAMPLES, TOKEN, client_for, make_collection

NEARDUP = str(Path(sys.executable).with_name("neardup"))
JSON = {"content-type": "application/json", "Authorization": f"Bearer {TOKEN}"}
#: JSON text of a lone surrogate and of a NUL character (json.dumps would escape them too).
BAD = {"surrogate": ("\\ud800", "U+D800"), "nul": ("\\u0000", "NUL")}
PASSWORD = "s3cret-pw"


def _pg_url(schema: str, password: bool = False) -> str:
    url = PG_URL.replace("postgres@", f"postgres:{PASSWORD}@") if password else PG_URL
    return f"{url}?schema={schema}"


@pytest.fixture(params=["sqlite", "postgres"])
def any_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield make_collection(tmp_path)
        return
    postgres_or_fail()
    schema = unique_schema()
    url = _pg_url(schema)
    with Collection.create(url, make_spec("ru"), IndexSpec(policy="group", threshold=0.5)) as col:
        col.add_many(iter_inputs([EXAMPLES / "collection"]))
    try:
        yield url
    finally:
        drop_schemas(schema)


def _api_requests(escape: str) -> list[tuple[str, str]]:
    s = f'"Каждый год{escape}мы выбираем тему"'
    templates = [
        ("/api/check", '{"text": BAD}'),
        ("/api/documents", '{"documents": [{"id": "bad", "text": BAD}]}'),
        ("/api/documents", '{"documents": [{"id": BAD, "text": "два слова"}]}'),
        ("/api/documents", '{"documents": [{"id": "m", "text": "два", "meta": {"t": BAD}}]}'),
        ("/api/compare", '{"a": BAD, "b": "другой текст"}'),
        ("/api/compare", '{"a": "текст", "b": "другой текст", "b_id": BAD}'),
        ("/api/matrix", '{"texts": [BAD, "другой текст"]}'),
        ("/api/remove", '{"ids": [BAD]}'),
    ]
    return [(path, body.replace("BAD", s)) for path, body in templates]


@pytest.mark.parametrize("bad", sorted(BAD))
def test_nul_and_lone_surrogates_are_422_on_both_backends(
    any_db: str, bad: str, caplog: pytest.LogCaptureFixture
) -> None:
    escape, named = BAD[bad]
    config = ServiceConfig(db=any_db, token=TOKEN)
    with caplog.at_level(logging.WARNING), client_for(config) as client:
        for path, body in _api_requests(escape):
            r = client.post(path, content=body.encode(), headers=JSON)
            assert r.status_code == 422, (path, body, r.text)
            answer = r.json()
            assert set(answer) == {"error", "message"}
            assert answer["error"] in ("InvalidTextError", "invalid_request"), answer
            if answer["error"] == "InvalidTextError":
                assert named in answer["message"] or "NUL" in answer["message"], answer
        r = client.get("/api/documents/" + ("a%00b" if bad == "nul" else "a%ED%A0%80b"))
        assert r.status_code in (404, 422), r.text
        # the page's forms (NUL only: a browser sends a lone surrogate as U+FFFD, and the
        # form parser decodes invalid UTF-8 with replacement characters)
        text = "Каждый год\x00мы выбираем тему"
        page = client.post("/check", data={"text": text})
        assert page.status_code == 422
        assert "Ошибка: В тексте недопустимый символ NUL (позиция 10)" in page.text
        assert "мы выбираем тему</textarea>" in page.text
        english = client.post(
            "/compare", data={"text_a": text, "text_b": "текст"}, headers={"accept-language": "en"}
        )
        assert english.status_code == 422
        assert "Error: The text holds a refused character NUL at position 10" in english.text
        add = client.post("/collection/add", data={"id": "p", "text": text, "token": TOKEN})
        assert add.status_code == 422 and "недопустимый символ" in add.text
        assert client.get("/api/stats").json()["documents"] == 4  # nothing was added
        ok = client.post("/api/check", json={"text": "Каждый год мы выбираем тему"})
        assert ok.status_code == 200
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []


def test_error_pages_and_redirects(client: TestClient) -> None:
    page = client.get("/no/such/page")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "Ошибка: Такой страницы нет." in page.text
    english = client.get("/no/such/page", headers={"accept-language": "en"})
    assert "Error: There is no such page." in english.text
    api = client.get("/api/no/such")
    assert api.status_code == 404 and api.json() == {"error": "not_found", "message": "Not Found"}
    for target, form in (("/check", "/"), ("/collection/add", "/collection"), ("/token", "/")):
        r = client.get(target, follow_redirects=False)
        assert (r.status_code, r.headers["location"]) == (303, form)
    # a body over the limit: the page's message, not raw JSON; JSON under /api
    big = client.post("/check", content=b"x" * 200_001, headers={"content-type": "text/plain"})
    assert big.status_code == 413 and big.headers["content-type"].startswith("text/html")
    assert "Ошибка: Запрос слишком большой: сервис принимает не больше 195,3 КиБ" in big.text
    big_api = client.post("/api/check", content=b"x" * 200_001)
    assert big_api.status_code == 413 and big_api.json()["error"] == "too_large"


def test_a_long_paste_over_one_mib_reaches_the_service(db: str) -> None:
    """python-multipart's own 1 MiB per field is the service's body limit here: a 2 MiB paste
    gets the service's size message in Russian with the text kept, not "Part exceeded…"."""
    config = ServiceConfig(db=db, max_body=4 << 20, max_text=1_000_000)
    with client_for(config) as client:
        text = "слово " * 200_000 + "конец"  # 1,200,005 characters, 2.2 MiB in UTF-8
        r = client.post("/check", files={"text": (None, text.encode())})  # as a browser sends it
        assert r.status_code == 413
        assert (
            "Ошибка: Текст слишком длинный: 1\xa0200\xa0005 символов, а сервис принимает не "
            "больше 1\xa0000\xa0000 символов." in r.text
        )
        assert "слово конец</textarea>" in r.text
        assert "Part exceeded" not in r.text and "Field exceeded" not in r.text
        limits = r.text.split('id="limits">')[1].split("</p>")[0]
        assert limits == (
            "Не больше 1\xa0000\xa0000 символов в тексте; запрос (текст и файлы вместе) — до 4 МиБ."
        )


def test_the_location_is_for_token_holders_only(client: TestClient, db: str) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert "location" not in client.get("/api/stats").json()
    assert client.get("/api/stats", headers=auth).json()["location"] == db
    for r in (
        client.get("/api/documents/none"),
        client.get("/doc/none"),
        client.get("/collection"),
    ):
        assert db not in r.text and Path(db).name not in r.text
    assert db in client.get("/api/documents/none", headers=auth).text


def test_collection_page_lists_pages_and_searches(tmp_path: Path) -> None:
    db = str(tmp_path / "many.db")
    with Collection.create(db, make_spec("ru"), IndexSpec(policy="allow")) as col:
        for i in range(1, 121):
            text = f"Документ номер {i}: " + " ".join(f"слово{i}x{j}" for j in range(30))
            meta = {"title": f"Заметка {i}"} if i % 2 else {}
            col.add(f"doc-{i:03d}", text, meta=meta)
    with client_for(ServiceConfig(db=db)) as client:
        first = client.get("/collection")
        assert '<b id="doc-count">120</b> документов' in first.text
        assert "Найдено: 120 документов · Страница 1 из 3" in first.text
        assert first.text.count('<tr><td><a href="/doc/doc-') == 50
        assert 'href="/doc/doc-001"' in first.text and 'href="/doc/doc-051"' not in first.text
        third = client.get("/collection?page=3")
        assert third.text.count('<tr><td><a href="/doc/doc-') == 20
        assert 'id="next"' not in third.text and 'href="/collection?page=2"' in third.text
        found = client.get("/collection", params={"q": "заметка 11"})  # titles, any case
        assert "Найдено: 6 документов" in found.text  # 11, 111, 113, 115, 117, 119
        assert "<td>Заметка 113</td>" in found.text
        by_id = client.get("/collection", params={"q": "DOC-10"})
        assert "Найдено: 10 документов" in by_id.text  # doc-100 … doc-109
        one = client.get("/collection", params={"q": "doc-001"})
        assert "Найдено: 1 документ<" in one.text
        group = client.get("/collection", params={"group": 5})
        assert "<h1>Коллекция: группа 5</h1>" in group.text and "Найдено: 1 документ<" in group.text
        assert client.get("/collection", params={"page": 0}).status_code == 422


def test_counts_take_their_plural_forms(client: TestClient, park: str) -> None:
    doc = client.get("/doc/park.txt").text
    shingles = client.get("/api/documents/park.txt").json()["shingles"]
    from neardup.web.i18n import plural

    assert f"<p>группа 2 · {plural(shingles, 'shingle', 'ru')}</p>" in doc
    assert [plural(n, "shingle", "ru") for n in (1, 23, 25)] == [
        "1 шингл",
        "23 шингла",
        "25 шинглов",
    ]
    assert [plural(n, "passage", "en") for n in (1, 2)] == ["1 passage", "2 passages"]
    page = client.get("/collection").text
    assert '<b id="doc-count">4</b> документа' in page
    assert "группа 2</a> (2 документа)" in page


# --- a real server -------------------------------------------------------------------------


@contextmanager
def served(db: str, *args: str) -> Iterator[tuple[str, list[str]]]:
    """``neardup serve DB`` on a free port: its base URL once the banner is printed, and its
    standard error lines (read to the end when the server stops)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, NEARDUP_TOKEN=TOKEN)
    cmd = [NEARDUP, "serve", db, "--port", str(port), *args]
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    seen: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            seen.put(line)
        seen.put("")

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        while True:
            line = seen.get(timeout=300)
            assert line, "neardup serve stopped: " + "".join(lines)
            if line.startswith("serving "):
                break
        yield f"http://127.0.0.1:{port}", lines
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        reader.join(timeout=30)


@pytest.mark.slow
def test_keep_alive_survives_bad_input_and_the_banner_waits_for_the_port(
    any_db: str, essay: str
) -> None:
    served_db = any_db
    if any_db.startswith("postgresql://"):
        served_db = any_db.replace("postgres@", f"postgres:{PASSWORD}@")
    with served(served_db, "--log-level", "info") as (base, lines):
        # the banner is printed only once the port answers: no retry needed here
        assert httpx.get(base + "/api/stats", timeout=30).json()["documents"] == 4
        with httpx.Client(base_url=base, timeout=60) as client:
            addresses = []
            for escape in ("\\ud800", "\\u0000"):
                body = '{"documents": [{"id": "s", "text": "abBADcd"}]}'.replace("BAD", escape)
                bad = client.post("/api/documents", content=body.encode(), headers=JSON)
                assert bad.status_code == 422, bad.text
                addresses.append(bad.extensions["network_stream"].get_extra_info("client_addr"))
                good = client.post("/api/check", json={"text": essay})
                assert good.status_code == 200
                addresses.append(good.extensions["network_stream"].get_extra_info("client_addr"))
            assert len(set(addresses)) == 1, addresses  # one connection throughout
        log = "".join(lines)
    assert "Traceback" not in log and "Exception" not in log, log
    assert lines[0].startswith("serving ") or any(x.startswith("serving ") for x in lines)
    assert PASSWORD not in log, log
    if any_db.startswith("postgresql://"):
        assert "postgres:***@127.0.0.1" in log


def test_serve_never_prints_a_password(capsys: pytest.CaptureFixture[str]) -> None:
    from neardup.cli.main import main

    url = f"postgresql://someone:{PASSWORD}@127.0.0.1:1/nowhere?schema=none"
    assert main(["serve", url]) != 0
    err = capsys.readouterr().err
    assert "Error:" in err and PASSWORD not in err


def test_a_refusal_says_why_in_the_page_language(tmp_path: Path, park: str) -> None:
    db = str(tmp_path / "limited.db")
    Collection.create(db, make_spec("ru"), IndexSpec(min_length=100)).close()
    with client_for(ServiceConfig(db=db, token=TOKEN)) as client:
        form = {"id": "short", "text": "Коротко.", "token": TOKEN}
        r = client.post("/collection/add", data=form)
        assert (
            "Документ short не добавлен (слишком короткий: в тексте 8 символов, коллекция "
            "принимает тексты не меньше 100 символов)." in r.text
        )
        assert db not in r.text
        r = client.post("/collection/add", data={**form, "id": "p", "text": park})
        assert "Документ p добавлен (новый текст)." in r.text
        wrong = client.post("/collection/add", data={**form, "token": "nope"})
        assert wrong.status_code == 401 and "Ошибка: Неверный токен." in wrong.text
        assert 'value="short"' in wrong.text and "Коротко.</textarea>" in wrong.text
        xls = client.post(
            "/check", files={"file": ("x.xls", b"\xd0\xcf")}, headers={"accept-language": "en"}
        )
        assert xls.status_code == 415
        assert "Error: Files of type &#39;.xls&#39; are not read; upload one of .txt" in xls.text
        # the API's JSON stays English
        api = client.post("/api/check/file", files={"file": ("x.xls", b"\xd0\xcf")})
        assert api.json()["message"].startswith("cannot read a file of type '.xls'")


def test_hide_location_leaves_ids_alone() -> None:
    from starlette.requests import Request

    from neardup.web.app import create_app
    from neardup.web.http_errors import hide_location

    app = create_app(ServiceConfig(db="demo.db", token=TOKEN))
    anonymous = Request({"type": "http", "app": app, "headers": []})
    holder = Request(
        {"type": "http", "app": app, "headers": [(b"authorization", f"Bearer {TOKEN}".encode())]}
    )
    said = "no document 'demo.db' in the collection demo.db"
    assert hide_location(anonymous, said) == "no document 'demo.db' in the collection"
    assert hide_location(holder, said) == said
    damaged = "the collection at demo.db is damaged: a posting without its document"
    assert hide_location(anonymous, damaged) == (
        "the collection is damaged: a posting without its document"
    )

"""Kept checks through the API and the page: ids, history, removal, read policy, retention,
excluded sources, titles and links, and the PDF report."""

from __future__ import annotations

import io
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from neardup.storage.checks import KeptCheck
from neardup.web.service import ServiceConfig
from tests.web._kept import TITLES, copied_text, make_titled_collection
from tests.web.conftest import TOKEN, client_for, form_token

pypdf = pytest.importorskip("pypdf", reason="the office extra is missing")


@pytest.fixture()
def titled(tmp_path: Path) -> str:
    return make_titled_collection(tmp_path)


@pytest.fixture()
def kc(titled: str) -> Iterator[TestClient]:
    with client_for(ServiceConfig(db=titled, token=TOKEN)) as c:
        yield c


def _pdf_text(data: bytes) -> str:
    return "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages)


def test_api_check_is_kept_listed_read_and_removed(kc: TestClient, titled: str) -> None:
    body = kc.post("/api/check", json={"text": copied_text(), "fragments": True}).json()
    check_id = body["check_id"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", check_id)
    assert body["check_url"] == f"/checks/{check_id}"
    kept = kc.get(f"/api/checks/{check_id}").json()
    assert kept["text"] == copied_text()
    assert kept["result"]["uniqueness"] == body["uniqueness"]
    assert [m["id"] for m in kept["result"]["matches"]] == [m["id"] for m in body["matches"]]
    info = kept["result"]["source_info"]
    assert info["school.txt"] == {
        "title": TITLES["school.txt"][0],
        "url": "https://example.org/news/school",
    }
    assert [c["id"] for c in kc.get("/api/checks").json()["checks"]] == [check_id]
    # another client without the cookie: may read by id (reads are open), lists nothing of
    # it, may not remove it
    with client_for(ServiceConfig(db=titled, token=TOKEN)) as other:
        assert other.get(f"/api/checks/{check_id}").status_code == 200
        assert other.get("/api/checks").json() == {"checks": []}
        assert other.delete(f"/api/checks/{check_id}").status_code == 403
        # the token holder sees and may remove every check
        auth = {"Authorization": f"Bearer {TOKEN}"}
        assert [c["id"] for c in other.get("/api/checks", headers=auth).json()["checks"]] == [
            check_id
        ]
    assert kc.delete(f"/api/checks/{check_id}").json() == {"removed": True}
    assert kc.get(f"/api/checks/{check_id}").status_code == 404
    assert kc.get("/api/checks/not%20an%20id").status_code in (400, 404)


def test_pdf_report_holds_the_figure_and_the_sources(kc: TestClient) -> None:
    body = kc.post("/api/check", json={"text": copied_text()}).json()
    r = kc.get(body["pdf_url"])
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/pdf"
    assert r.content.startswith(b"%PDF")
    text = _pdf_text(r.content)
    figure = f"Уникальность {_comma(body['uniqueness_percent'])} %"  # the decimal comma
    assert figure in text
    assert TITLES["school.txt"][0] in text and TITLES["bakery.txt"][0] in text
    assert "https://example.org/news/school" in text
    assert "районные новости" in text  # the collection's name, not its path
    assert "/tmp" not in text and str(Path.cwd()) not in text
    english = _pdf_text(kc.get(body["pdf_url"] + "?lang=en").content)
    assert f"Uniqueness {body['uniqueness_percent']:.1f} %" in english


def test_exclude_a_source_changes_the_figure(kc: TestClient) -> None:
    full = kc.post("/api/check", json={"text": copied_text()}).json()
    less = kc.post("/api/check", json={"text": copied_text(), "exclude": ["school.txt"]}).json()
    assert "school.txt" in [m["id"] for m in full["matches"]]
    assert "school.txt" not in [m["id"] for m in less["matches"]]
    assert less["uniqueness"] > full["uniqueness"] + 0.2
    assert less["exclude"] == ["school.txt"]
    none = kc.post(
        "/api/check", json={"text": copied_text(), "exclude": ["school.txt", "bakery.txt"]}
    ).json()
    assert none["uniqueness"] == 1.0
    # the page: "exclude this source" checks the kept text again, kept as a new check
    r = kc.post("/check", data={"text": copied_text()}, follow_redirects=False)
    first = r.headers["location"]
    again = kc.post(f"{first}/exclude", data={"exclude": "school.txt"}, follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"] != first
    page = kc.get(again.headers["location"]).text
    shown = re.search(r'<span id="uniqueness">Уникальность ([\d,]+) %', page)
    assert shown is not None and shown.group(1) == _comma(100 * less["uniqueness"])
    assert 'id="excluded"' in page and "school.txt" in page
    back = kc.post(f"{again.headers['location']}/exclude", data={"include": "school.txt"}).text
    assert f"Уникальность {_comma(100 * full['uniqueness'])} %" in back


def test_page_check_redirects_to_its_own_page(kc: TestClient, titled: str) -> None:
    r = kc.post("/check", data={"text": copied_text()}, follow_redirects=False)
    assert r.status_code == 303
    where = r.headers["location"]
    assert re.fullmatch(r"/checks/[A-Za-z0-9_-]{22}", where)
    assert "neardup_owner=" in r.headers["set-cookie"]
    page = kc.get(where).text
    # titles shown as the sources' names, http(s) URLs as links, a javascript: URL never
    assert TITLES["school.txt"][0] in page
    assert 'href="https://example.org/news/school" rel="noopener noreferrer nofollow"' in page
    assert "javascript:" not in page
    assert f'href="{where}/pdf"' in page
    history = kc.get("/checks").text
    assert f'href="{where}"' in history
    with client_for(ServiceConfig(db=titled, token=TOKEN)) as other:
        refused = other.post(f"{where}/delete")
        assert refused.status_code == 403
        assert "Эту проверку сделали в другом браузере" in refused.text
    # the owner cookie alone does not remove it (a same-site page could send it): the form
    # token of the browser's own page must come with it
    assert kc.post(f"{where}/delete", follow_redirects=False).status_code == 403
    assert kc.get(where).status_code == 200
    removed = kc.post(
        f"{where}/delete", data={"csrf": form_token(kc, where)}, follow_redirects=False
    )
    assert removed.status_code == 303
    gone = kc.get(where)
    assert gone.status_code == 404 and "Такой проверки нет" in gone.text


def test_reads_with_a_token_guard_kept_checks(titled: str) -> None:
    config = ServiceConfig(db=titled, token=TOKEN, reads="token")
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with client_for(config) as c:
        check_id = c.post("/api/check", json={"text": copied_text()}, headers=auth).json()[
            "check_id"
        ]
        assert c.get(f"/api/checks/{check_id}").status_code == 401
        assert c.get(f"/api/checks/{check_id}/pdf").status_code == 401
        assert c.get(f"/checks/{check_id}").status_code == 401  # the token form
        assert c.get(f"/api/checks/{check_id}", headers=auth).status_code == 200


def test_keeping_none_and_retention(titled: str) -> None:
    with client_for(ServiceConfig(db=titled, token=TOKEN, keep_checks_days=0)) as c:
        body = c.post("/api/check", json={"text": copied_text()}).json()
        assert "check_id" not in body
        r = c.post("/check", data={"text": copied_text()}, follow_redirects=False)
        assert r.status_code == 200 and 'id="uniqueness"' in r.text
        assert 'id="kept"' not in r.text
        assert "--keep-checks-days 0" in c.get("/checks").text
    with client_for(ServiceConfig(db=titled, token=TOKEN, keep_checks_days=2)) as c:
        service = c.app.state.service  # type: ignore[attr-defined]
        old = KeptCheck("old-check", time.time() - 3 * 86400, "", "", "s", "t", {})
        service.checks.keep(old)
        assert c.get("/api/checks/old-check").status_code == 404  # past the retention
        c.post("/api/check", json={"text": copied_text()})
        assert service.checks.get("old-check") is None  # removed by the next keep


def test_retention_reaches_the_workers() -> None:
    for days in (0, 7):
        config = ServiceConfig(db="x.db", keep_checks_days=days)
        assert ServiceConfig.from_env(config.to_env()).keep_checks_days == days
    with pytest.raises(ValueError, match="keep_checks_days"):
        ServiceConfig(db="x.db", keep_checks_days=-1)


def test_a_read_only_collection_still_checks(titled: str) -> None:
    import os
    import stat

    os.chmod(titled, stat.S_IRUSR | stat.S_IRGRP)
    try:
        with client_for(ServiceConfig(db=titled)) as c:
            body = c.post("/api/check", json={"text": copied_text()}).json()
            assert body["uniqueness"] < 0.2 and "check_id" not in body
            r = c.post("/check", data={"text": copied_text()}, follow_redirects=False)
            assert r.status_code == 200 and 'id="uniqueness"' in r.text
    finally:
        os.chmod(titled, stat.S_IRUSR | stat.S_IWUSR)


def test_file_check_is_kept_with_its_name_and_exclude(kc: TestClient) -> None:
    data = copied_text().encode("utf-8")
    r = kc.post(
        "/api/check/file",
        files={"file": ("заметка.txt", data)},
        data={"exclude": ["school.txt", "bakery.txt"]},
    )
    body = r.json()
    assert r.status_code == 200 and body["matches"] == [] and body["uniqueness"] == 1.0
    kept = kc.get(f"/api/checks/{body['check_id']}").json()
    assert kept["name"] == "заметка.txt" and kept["result"]["exclude"] == [
        "bakery.txt",
        "school.txt",
    ]
    listed = kc.get("/api/checks").json()["checks"][0]
    assert listed["name"] == "заметка.txt" and listed["uniqueness"] == 1.0


def _comma(percent: float) -> str:
    """A percentage as the Russian page and report write it: one decimal, a comma."""
    return f"{percent:.1f}".replace(".", ",")


# --- kept checks and the service's other promises (#25): bad characters, the page's language --


def test_exclude_with_a_refused_character_is_a_422(kc: TestClient) -> None:
    """An exclude list is a text the service takes: a NUL or a lone surrogate is refused (422),
    on the API in English, on the page in its language with the text kept."""
    r = kc.post("/api/check", json={"text": copied_text(), "exclude": ["school.txt", "a\x00b"]})
    assert r.status_code == 422
    assert r.json() == {
        "error": "InvalidTextError",
        "message": "exclude[1] holds a NUL character at position 1; texts must be valid "
        "Unicode without NUL characters or lone surrogates",
    }
    surrogate = b'{"text": "\xd0\x94\xd0\xb0", "exclude": ["\\ud800"]}'
    r = kc.post("/api/check", content=surrogate, headers={"content-type": "application/json"})
    assert r.status_code == 422 and "lone surrogate (U+D800)" in r.json()["message"]
    page = kc.post("/check", data={"text": "Мой текст", "exclude": "a\x00b"})
    assert page.status_code == 422
    assert "В тексте недопустимый символ NUL (позиция 1)" in page.text
    assert ">Мой текст</textarea>" in page.text
    assert kc.get("/api/checks", headers={"Authorization": f"Bearer {TOKEN}"}).json() == {
        "checks": []
    }  # nothing was kept


def test_kept_page_numbers_and_reasons_in_the_page_language(tmp_path: Path) -> None:
    """The kept check's page: decimals with the language's separator (passages' labels too),
    a refusal's reason and its counts in the page's words, the history's figures."""
    from neardup.fingerprints.pipeline import make_spec
    from neardup.index import Collection, IndexSpec

    db = str(tmp_path / "long.db")
    with Collection.create(db, make_spec("ru"), IndexSpec(policy="allow", min_length=200)):
        pass
    short = "Короткая заметка о погоде в нашем районе на эту неделю."  # 55 characters
    with client_for(ServiceConfig(db=db, token=TOKEN)) as c:
        ru = c.post("/check", data={"text": short})
        assert ru.status_code == 200 and len(ru.history) == 1  # followed the 303
        decision = re.search(r'id="decision">(.*?)</span>', ru.text)
        assert decision is not None
        assert decision.group(1) == (
            "при добавлении был бы отклонён: слишком короткий: в тексте 55 символов, "
            "коллекция принимает тексты не меньше 200 символов"
        )
        assert "Уникальность 100,0 %" in ru.text
        en = c.get(str(ru.url) + "?lang=en")
        decision = re.search(r'id="decision">(.*?)</span>', en.text)
        assert decision is not None
        assert decision.group(1) == (
            "would be refused: too short: the text has 55 characters; the collection admits "
            "texts of at least 200 characters"
        )
        history = c.get("/checks", headers={"Authorization": f"Bearer {TOKEN}"})
        assert "<td>100.0 %</td>" in history.text  # the cookie says English now
        history = c.get("/checks?lang=ru", headers={"Authorization": f"Bearer {TOKEN}"})
        assert "<td>100,0 %</td>" in history.text


def test_kept_passages_labels_in_the_page_language(kc: TestClient) -> None:
    first = kc.post("/check", data={"text": copied_text()})
    labels = re.findall(r'title="([^"]*#1: [^"]*)"', first.text)
    assert "Кабинет робототехники в сельской школе #1: 1,000" in labels
    english = kc.get(str(first.url) + "?lang=en")
    labels = re.findall(r'title="([^"]*#1: [^"]*)"', english.text)
    assert "Кабинет робототехники в сельской школе #1: 1.000" in labels


def test_an_id_with_a_slash_is_refused_not_sent_elsewhere(kc: TestClient) -> None:
    """Each kept-check route answers only what its schema declares: no 405 or redirect for
    an id holding a slash; the report's address is read only (405, its methods listed)."""
    auth = {"Authorization": f"Bearer {TOKEN}"}
    refused = kc.delete("/api/checks/abc/pdf", headers=auth)
    assert refused.status_code == 405 and refused.headers["allow"] == "GET, HEAD, OPTIONS"
    assert kc.delete("/api/checks/abc/def", headers=auth).status_code == 400
    assert kc.get("/api/checks/abc/def", headers=auth).status_code == 400
    assert kc.get("/api/checks/abc/", headers=auth, follow_redirects=False).status_code == 400
    assert kc.get("/api/checks/abc/pdf", headers=auth).status_code == 404

"""Kept checks within their quotas: a browser's count and bytes, all checks' count and bytes
(the oldest removed first, never the check just made; its page then says it is gone), and a
rate limit per client for checks without the token."""

from __future__ import annotations

from pathlib import Path

from neardup.web.limits import WINDOW, RateLimit
from neardup.web.service import ServiceConfig
from tests.web._kept import copied_text, make_titled_collection
from tests.web.conftest import TOKEN, client_for

AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _page_check(client, text: str) -> str:  # type: ignore[no-untyped-def]
    r = client.post("/check", data={"text": text}, follow_redirects=False)
    assert r.status_code == 303, r.text[:300]
    return str(r.headers["location"])


def test_a_browser_keeps_its_newest_checks(tmp_path: Path) -> None:
    db = make_titled_collection(tmp_path)
    config = ServiceConfig(db=db, token=TOKEN, owner_checks_max=2, check_rate=0)
    with client_for(config) as c, client_for(config) as other:
        theirs = _page_check(other, copied_text())
        made = [_page_check(c, copied_text() + f"\n\nЗаметка {i}.") for i in range(3)]
        # the oldest of this browser's is gone, and its page says why; the other browser's
        # check is not this browser's quota
        gone = c.get(made[0])
        assert gone.status_code == 404
        assert "место для хранения проверок ограничено" in gone.text
        assert c.get(made[1]).status_code == 200 and c.get(made[2]).status_code == 200
        assert other.get(theirs).status_code == 200
        history = [x["id"] for x in c.get("/api/checks").json()["checks"]]
        assert history == [made[2].rsplit("/", 1)[1], made[1].rsplit("/", 1)[1]]
        answer = c.get(f"/api{made[0]}")
        assert answer.status_code == 404 and "to make room" in answer.json()["message"]
        # a link that never was a check is not "gone"
        assert "ссылка неверна" in c.get("/checks/AAAAAAAAAAAAAAAAAAAAAA").text


def test_bytes_quotas_remove_the_oldest_first(tmp_path: Path) -> None:
    db = make_titled_collection(tmp_path)
    one = ServiceConfig(db=db, token=TOKEN, owner_checks_bytes=1, check_rate=0)
    with client_for(one) as c:
        first = _page_check(c, copied_text())
        second = _page_check(c, copied_text() + "\n\nЕщё.")
        # the newest is kept even past the room it has; the older ones make way
        assert c.get(first).status_code == 404 and c.get(second).status_code == 200
    total = ServiceConfig(db=db, token=TOKEN, keep_checks_max=2, check_rate=0)
    with client_for(total) as a, client_for(total) as b, client_for(total) as d:
        made = [_page_check(x, copied_text() + f"\n\n{i}") for i, x in enumerate((a, b, d))]
        assert a.get(made[0]).status_code == 404  # another browser's check made it go
        assert b.get(made[1]).status_code == 200 and d.get(made[2]).status_code == 200
        assert len(a.get("/api/checks", headers=AUTH).json()["checks"]) == 2


def test_checks_without_the_token_are_rate_limited(tmp_path: Path) -> None:
    db = make_titled_collection(tmp_path)
    with client_for(ServiceConfig(db=db, token=TOKEN, check_rate=2)) as c:
        text = {"text": copied_text()}
        assert [c.post("/api/check", json=text).status_code for _ in range(2)] == [200, 200]
        refused = c.post("/api/check", json=text)
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        assert refused.json()["error"] == "too_many_requests"
        page = c.post("/check", data=text)
        assert page.status_code == 429 and "Слишком много проверок подряд" in page.text
        # a token holder is not limited
        assert c.post("/api/check", json=text, headers=AUTH).status_code == 200


def test_the_rate_window_slides() -> None:
    now = [1000.0]
    limit = RateLimit(2, clock=lambda: now[0])
    assert limit.take("a") is None and limit.take("a") is None
    assert limit.take("a") == WINDOW
    assert limit.take("b") is None  # each client its own
    now[0] += WINDOW - 10
    assert limit.take("a") == 10.0
    now[0] += 10
    assert limit.take("a") is None
    assert RateLimit(0).take("a") is None  # 0: no limit

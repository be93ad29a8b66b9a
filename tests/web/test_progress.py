"""The stages of a check sent from the page: told as they happen, step k of n, by a ticket the
page's script sends; tickets of the wrong form ignored, the table bounded."""

from __future__ import annotations

import json
import re
from html import unescape

from fastapi.testclient import TestClient

from neardup.web import progress as progress_module
from neardup.web.progress import MAX_TICKETS, STAGES, TICKET, Progress
from neardup.web.service import Service

TICKET_A = "0123456789abcdef0123456789abcdef"


def test_stages_step_by_step() -> None:
    table = Progress()
    assert table.of(TICKET_A) == {"stage": "", "step": 0, "steps": len(STAGES)}
    for step, stage in enumerate(STAGES, 1):
        table.reach(TICKET_A, stage)
        assert table.of(TICKET_A) == {"stage": stage, "step": step, "steps": 5}


def test_a_ticket_of_the_wrong_form_is_ignored_and_the_table_is_bounded() -> None:
    table = Progress()
    for wrong in ("", "short", "x" * 65, "../../etc/passwd/aaaaaaaa", "билет" * 5):
        table.reach(wrong, "reading")
        assert table.of(wrong)["step"] == 0
    tickets = [f"{n:032x}" for n in range(MAX_TICKETS + 10)]
    assert all(TICKET.fullmatch(t) for t in tickets)
    for ticket in tickets:
        table.reach(ticket, "reading")
    assert table.of(tickets[0])["step"] == 0  # the oldest forgotten
    assert table.of(tickets[-1])["step"] == 1


def test_the_service_tells_each_stage_in_order(client: TestClient, essay: str) -> None:
    service: Service = client.app.state.service  # type: ignore[attr-defined]
    said: list[str] = []
    service.check(essay, fragments=True, on_stage=said.append)
    assert said == ["analysing", "looking_up", "aligning"]


def test_the_page_check_reports_its_stages(client: TestClient, essay: str) -> None:
    ticket = "fedcba9876543210fedcba9876543210"
    assert client.get(f"/progress/{ticket}").json() == {"stage": "", "step": 0, "steps": 5}
    r = client.post("/check", data={"text": essay, "progress": ticket})
    assert r.status_code == 200
    assert client.get(f"/progress/{ticket}").json() == {
        "stage": "keeping",
        "step": 5,
        "steps": 5,
    }
    assert progress_module.PROGRESS.of(ticket)["step"] == 5
    # the page names the stages in its language for the script
    page = client.get("/").text
    stages = re.search(r'data-stages="([^"]+)"', page)
    assert stages is not None
    assert json.loads(unescape(stages.group(1))) == {
        "reading": "чтение файла",
        "analysing": "разбор текста",
        "looking_up": "поиск источников",
        "aligning": "сопоставление фрагментов",
        "keeping": "сохранение проверки",
    }
    assert (
        'data-processing-share="Проверка, этап {step} из {steps} (пройдено {share} %): {stage}"'
        in page
    )

"""The page as a teacher reads it (no browser): a legend of the marks, the sources table led by
the share taken from each source and its passages with the measures behind "подробнее", every
word of the Russian page in Russian, history rows with their own removal and a machine-readable
date, excluded sources by title, the refusal of a file too large said of the file."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from neardup.index import Collection, describe_spec
from neardup.web.service import ServiceConfig
from tests.web._kept import TITLES, copied_text, make_titled_collection
from tests.web.conftest import TOKEN, client_for, form_token

STATIC = Path(__file__).resolve().parents[2] / "src" / "neardup" / "web" / "static"


@pytest.fixture()
def titled(tmp_path: Path) -> str:
    return make_titled_collection(tmp_path)


@pytest.fixture()
def kc(titled: str) -> Iterator[TestClient]:
    with client_for(ServiceConfig(db=titled, token=TOKEN)) as c:
        yield c


def _text(html: str) -> str:
    """What a reader sees of a piece of HTML: tags dropped, entities read, spaces folded."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _checked(kc: TestClient) -> str:
    r = kc.post("/check", data={"text": copied_text()})
    assert r.status_code == 200 and len(r.history) == 1  # followed the redirect to the kept page
    return r.text


def test_the_legend_says_what_each_mark_means(kc: TestClient) -> None:
    html = _checked(kc)
    legend = re.search(r'<section class="legend" id="legend".*?</section>', html, re.DOTALL)
    assert legend is not None
    said = _text(legend.group())
    assert said.startswith("Как читать выделения")
    for words in (
        "заимствовано: цвет источника, из которого взят фрагмент",
        "цитата (серый фон, курсив)",
        "пересказ (штриховка, пунктир снизу)",
        "изменённые слова (точки снизу)",
    ):
        assert words in said
    # each sample is drawn with the classes the texts use
    assert re.search(r'<span class="sample frag rew" style="background:#[0-9a-f]{6}">', html)
    assert re.search(r'<span class="sample frag chg" style="background:#[0-9a-f]{6}">', html)
    assert '<span class="sample frag cite" style="background:#c9d3dd">' in html


def test_the_sources_table_leads_with_the_share_and_hides_the_measures(kc: TestClient) -> None:
    html = _checked(kc)
    table = re.search(r'<table id="sources">.*?</table>', html, re.DOTALL)
    assert table is not None
    heads = [_text(h) for h in re.findall(r"<th>(.*?)</th>", table.group())]
    assert heads == ["Источник", "Доля текста из источника", "Фрагментов", ""]
    assert "сходство" not in _text(table.group()).lower()
    # the measures and the admission decision are behind "подробнее", a <details> (no script)
    details = re.search(
        r'<details id="details"><summary>(.*?)</summary>(.*?)</details>', html, re.DOTALL
    )
    assert details is not None and details.group(1) == "подробнее"
    inside = details.group(2)
    assert 'id="measures"' in inside and 'id="decision"' in inside
    assert [_text(h) for h in re.findall(r"<th>(.*?)</th>", inside)] == [
        "Источник",
        "сходство",
        "текст в документе",
        "документ в тексте",
    ]
    assert "Меры по шинглам — последовательностям из 5 слов подряд" in _text(inside)
    assert "при добавлении был бы" not in html.split('<details id="details">')[0]
    # each listed source's share, with the Russian decimal comma
    shares = re.findall(r'<td class="share">([\d,]+) %</td>', table.group())
    assert len(shares) == 2 and all("," in s for s in shares)


def test_the_russian_page_has_no_english_names(kc: TestClient, titled: str) -> None:
    page = kc.get("/collection").text
    with Collection.open(titled) as col:
        spec = col.spec
    line = re.search(r'<span id="spec-line">(.*?)</span>', page)
    assert line is not None and unescape(line.group(1)) == describe_spec(spec, "ru")
    assert line.group(1).startswith("пресет ru, шинглы из слов по k=5 с шагом 1")
    policy = re.search(r'<span id="policy-line">(.*?)</span>', page)
    assert policy is not None and policy.group(1) == "принимать все, сходство (Жаккар)"
    options = re.findall(r'<option value="(\w+)" >([^<]+)</option>', page)
    assert dict(options) == {
        "reject": "отклонять дубликаты",
        "group": "группировать дубликаты",
        "allow": "принимать все",
    }
    matrix = kc.get("/matrix").text
    methods = dict(re.findall(r'<option value="(\w+)" (?:selected)?>([^<]+)</option>', matrix))
    assert methods["containment"] == "вхождение (доля шинглов строки)"
    assert methods["tfidf"] == "косинус TF-IDF по словам"
    built = kc.post(
        "/matrix",
        data={"texts": "первый текст о парке\n---\nвторой текст о школе", "method": "containment"},
    ).text
    hint = re.search(r'<p class="hint" id="matrix-method">(.*?)</p>', built)
    assert hint is not None
    assert (
        unescape(hint.group(1))
        == "вхождение (доля шинглов строки) — строка i, столбец j = |Si∩Sj| / |Si|"
    )
    # the script says nothing in English of its own: its words come from the page
    script = (STATIC / "app.js").read_text(encoding="utf-8")
    assert "network error" not in script
    assert 'data-network-error="Нет связи с сервисом' in kc.get("/").text


def test_history_rows_have_their_own_removal_and_a_date_for_the_reader(kc: TestClient) -> None:
    first = kc.post("/check", data={"text": copied_text()}, follow_redirects=False)
    second = kc.post("/check", data={"text": "Совсем другой текст " * 5}, follow_redirects=False)
    ids = [r.headers["location"].rsplit("/", 1)[1] for r in (first, second)]
    history = kc.get("/checks").text
    for check_id in ids:
        row = re.search(rf'<tr data-check="{check_id}">.*?</tr>', history, re.DOTALL)
        assert row is not None
        assert f'action="/checks/{check_id}/delete"' in row.group()
        stamp = re.search(r'<time class="local" datetime="([^"]+)">([^<]+)</time>', row.group())
        assert stamp is not None
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", stamp.group(1))
        assert stamp.group(2).endswith(" UTC")  # the fallback before the script formats it
    removed = kc.post(
        f"/checks/{ids[0]}/delete", data={"csrf": form_token(kc, "/checks")}, follow_redirects=False
    )
    assert removed.status_code == 303 and removed.headers["location"] == "/checks"
    history = kc.get("/checks").text
    assert f'data-check="{ids[0]}"' not in history and f'data-check="{ids[1]}"' in history
    # the kept page's date is a <time> too
    page = kc.get(f"/checks/{ids[1]}").text
    assert re.search(r'Проверка сохранена <time class="local" datetime="[^"]+">', page)


def test_excluded_sources_are_shown_by_title(kc: TestClient) -> None:
    first = kc.post("/check", data={"text": copied_text()}, follow_redirects=False)
    where = first.headers["location"]
    again = kc.post(f"{where}/exclude", data={"exclude": "school.txt"}, follow_redirects=False)
    page = kc.get(again.headers["location"]).text
    excluded = re.search(r'<p id="excluded">(.*?)</p>', page, re.DOTALL)
    assert excluded is not None
    shown = re.findall(r'<span class="excluded" data-source-id="([^"]+)">([^<]+)</span>', page)
    assert shown == [("school.txt", TITLES["school.txt"][0])]
    assert '<input type="hidden" name="include" value="school.txt">' in excluded.group(1)


def test_a_file_too_large_is_refused_as_a_file(kc: TestClient) -> None:
    page = kc.get("/").text
    said = re.search(r'data-too-large-file="([^"]+)"', page)
    assert said is not None
    assert unescape(said.group(1)) == (
        "Файл слишком большой: сервис принимает не больше 20 МиБ за один запрос. "
        "Выберите файл поменьше или разделите текст на части."
    )
    assert "Текст остался" not in said.group(1)
    script = (STATIC / "app.js").read_text(encoding="utf-8")
    # refused when the file is chosen, before anything is sent
    assert 'input.addEventListener("change"' in script and "dataset.tooLargeFile" in script


def test_the_compare_page_has_the_legend_and_draws_the_quotation_as_cited(
    client: TestClient, essay: str, park: str
) -> None:
    html = client.post("/compare", data={"text_a": essay, "text_b": park}).text
    assert 'id="legend"' in html and "цитата (серый фон, курсив)" in html
    # the essay quotes park.txt with its reference: its passage is drawn as cited
    cited = re.findall(r'<a class="frag[^"]* cite" href="#b-0-\d+"[^>]*title="цитата; ', html)
    assert len(cited) >= 1

"""The page without a browser: forms, languages, escaping, tokens, limits."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from neardup.web.app import CSP
from tests.web._files import docx_bytes
from tests.web.conftest import TOKEN

SCRIPT = "<script>window.__pwned = 1</script>"


def count(client: TestClient) -> int:
    return int(client.get("/api/stats").json()["documents"])


def test_language_by_header_switch_and_cookie(client: TestClient) -> None:
    ru = client.get("/")
    assert ru.status_code == 200
    assert '<html lang="ru">' in ru.text and "Проверить" in ru.text
    assert ru.headers["content-security-policy"] == CSP
    en = client.get("/", headers={"Accept-Language": "en-GB,en;q=0.9,ru;q=0.5"})
    assert '<html lang="en">' in en.text and ">Check</button>" in en.text
    both = client.get("/", headers={"Accept-Language": "de, ru;q=0.4, en;q=0.8"})
    assert '<html lang="en">' in both.text
    switched = client.get("/compare?lang=en")
    assert switched.cookies.get("lang") == "en"
    assert '<html lang="en">' in client.get("/collection").text  # the cookie stays
    assert '<html lang="ru">' in client.get("/collection?lang=ru").text


def test_check_page_shows_both_figures_sources_and_passages(client: TestClient, essay: str) -> None:
    r = client.post("/check", data={"text": SCRIPT + "\n" + essay})
    assert r.status_code == 200
    html = r.text
    assert SCRIPT not in html and "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in html
    unique = re.search(r'<span id="uniqueness">Уникальность ([\d,]+) %</span>', html)
    # the essay's one shared paragraph is quoted: its words are cited, not borrowed; the
    # script's words are new words
    assert unique is not None and unique.group(1) == "76,3"  # the Russian decimal comma
    assert "заимствовано 0,0 %, цитируется 23,7 %" in html
    assert "Уникальность по шинглам" not in html  # one figure
    sources = re.findall(
        r'class="swatch source-link" href="#source-(\d)" data-source="\d" '
        r'style="background:#[0-9a-f]{6}">([^<]+)</a>',
        html,
    )
    assert sources == [("0", "park_repost.txt"), ("1", "park.txt")]
    # both sources hold the quoted passage: one piece in the text, marked as from two sources
    assert html.count('<a class="frag') == 3
    # the quoted passage is cited: drawn in the citation's colour and italics, as the PDF does
    assert html.count('<a class="frag multi cite"') == 1
    assert 'href="#b-0-1"' in html and 'id="b-0-1"' in html and 'href="#a-0-1"' in html
    plain = client.post("/check", data={"text": essay}).text
    assert '<span id="uniqueness">Уникальность 75,2 %</span>' in plain


def test_check_page_upload_and_errors(client: TestClient, essay: str) -> None:
    data = docx_bytes(essay.split("\n"))
    r = client.post("/check", files={"file": ("сочинение.docx", data)})
    assert r.status_code == 200
    assert "Проверяемый текст: сочинение.docx" in r.text
    assert '<span id="uniqueness">Уникальность 75,2 %</span>' in r.text
    empty = client.post("/check", data={"text": "  "})
    assert empty.status_code == 400 and "Ошибка: Дайте текст или файл." in empty.text
    bad = client.post("/check", files={"file": ("x.pdf", b"%PDF-1.4 broken")})
    assert bad.status_code == 400
    assert "Ошибка: Файл .pdf не читается: он повреждён или на самом деле другого типа." in bad.text
    wrong = client.post("/check", files={"file": ("x.xls", b"...")})
    assert wrong.status_code == 415
    assert "Ошибка: Файлы типа «.xls» не читаются; можно загрузить .txt" in wrong.text
    big = client.post("/check", data={"text": "a " * 30_000})
    assert big.status_code == 413
    assert (
        "Ошибка: Текст слишком длинный: 60\xa0000 символов, а сервис принимает не больше "
        "50\xa0000 символов." in big.text
    )
    assert big.text.count("a a a") > 1000  # the text is kept in the field
    english = client.post("/check?lang=en", data={"text": "a " * 30_000})
    assert (
        "Error: The text is too long: 60,000 characters; this service takes at most "
        "50,000 characters." in english.text
    )


def test_compare_page(client: TestClient, essay: str, park: str) -> None:
    r = client.post("/compare?lang=en", data={"text_a": essay, "text_b": park + SCRIPT})
    assert r.status_code == 200
    summary = r.text.split('id="compare-summary">')[1].split("</p>")[0]
    assert summary == (
        "Uniqueness of text A against B: 75.2 % (borrowed 0.0 %, cited 24.8 %); 34.6 % of text "
        "B is used in A. Combined score 0.610 (0.5 and above: probably a copy); resemblance "
        "(Jaccard of shingles) 0.147, A in B 0.219, B in A 0.311."
    )
    assert SCRIPT not in r.text
    assert r.text.count('<a class="frag') == 2


def test_a_made_up_reference_is_said_not_found_on_the_pages(
    client: TestClient, essay: str, park: str
) -> None:
    # the essay's quoted paragraph with a made-up "[7]" and no reference list: borrowed
    fake = essay.replace("проектировании» [1].", "проектировании» [7].").split("\n\n[1]")[0]
    checked = client.post("/check", data={"text": fake}).text
    assert checked.count('<span class="noref">ссылка не найдена</span>') == 1
    assert "цитируется 0,0 %" in checked
    compared = client.post("/compare?lang=en", data={"text_a": fake, "text_b": park}).text
    assert compared.count('<span class="noref">reference not found</span>') == 1
    assert "cited 0.0 %" in compared
    # the shipped essay's "[1]" is in its list: no note
    assert "noref" not in client.post("/check", data={"text": essay}).text.split("</style>")[-1]


def test_collection_pages_add_and_remove(client: TestClient, park: str) -> None:
    page = client.get("/collection")
    assert '<b id="doc-count">4</b>' in page.text
    assert (
        '<a href="/doc/park.txt"><b>park.txt</b></a> ← <a href="/doc/park_repost.txt">' in page.text
    )
    form = {"id": "evil<b>.txt", "text": SCRIPT + " Новый текст про зиму и снег.", "token": "x"}
    denied = client.post("/collection/add", data=form)
    assert denied.status_code == 401 and "Ошибка: Неверный токен." in denied.text
    # what the user typed is kept
    assert 'value="evil&lt;b&gt;.txt"' in denied.text
    assert "Новый текст про зиму и снег.</textarea>" in denied.text
    assert count(client) == 4
    form["token"] = TOKEN
    added = client.post("/collection/add", data=form)
    assert added.status_code == 200
    assert "Документ evil&lt;b&gt;.txt добавлен (новый текст)." in added.text
    assert count(client) == 5
    doc = client.get("/doc/evil%3Cb%3E.txt")
    assert doc.status_code == 200
    assert "&lt;script&gt;window.__pwned" in doc.text and SCRIPT not in doc.text
    dup = client.post(
        "/collection/add", data={"id": "p2", "text": park, "token": TOKEN, "policy": "reject"}
    )
    assert "Документ p2 не добавлен (дубликат)." in dup.text
    assert client.post("/doc-remove", data={"id": "evil<b>.txt"}).status_code == 401
    removed = client.post("/doc-remove", data={"id": "evil<b>.txt", "token": TOKEN})
    assert removed.status_code == 200 and '<b id="doc-count">4</b>' in removed.text
    assert client.get("/doc/nothing").status_code == 404


def test_matrix_page(client: TestClient, essay: str, park: str) -> None:
    r = client.post(
        "/matrix", data={"texts": f"{essay}\n---\n{park}\n---\n{SCRIPT}", "method": "containment"}
    )
    assert r.status_code == 200
    cells = re.findall(
        r"<td style=\"background:hsl\(8, 80%, \d+%\);color:#[0-9a-f]{3}\" "
        r"title=\"[^\"]*\">([\d,]+)</td>",
        r.text,
    )
    assert len(cells) == 9
    assert cells[0] == "1,00" and cells[4] == "1,00"
    assert SCRIPT not in r.text
    many = client.post("/matrix", data={"texts": "\n---\n".join(["текст"] * 21)})
    assert many.status_code == 413

"""Tests for neardup.analysis.html: visible text, offset maps, main content."""

from __future__ import annotations

import html as std_html
import re
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.analysis.html import html_to_text, looks_like_html
from neardup.analysis.offsets import OffsetMap
from neardup.errors import MissingDependencyError


def _check_map(html: str, text: str, omap: OffsetMap) -> None:
    """Every output character maps to itself, to an entity decoding to it, or (a separator
    newline) to a tag."""
    assert len(omap) == len(text)
    assert (omap.ends > omap.starts).all()
    assert (np.diff(omap.starts) >= 0).all()
    assert omap.ends.max(initial=0) <= len(html)
    for i, ch in enumerate(text):
        src = html[omap.starts[i] : omap.ends[i]]
        if src == ch:
            continue
        if src.startswith("&"):
            assert ch in std_html.unescape(src), (i, ch, src)
        else:
            assert ch == "\n" and src.startswith("<") and src.endswith(">"), (i, ch, src)


def _words(text: str) -> list[str]:
    return text.split()


# --------------------------------------------------------------------------- basics


def test_tags_script_style_comments_dropped() -> None:
    html = (
        "<!DOCTYPE html><html><head><title>Заголовок</title><meta charset=utf-8>"
        "<style>p { color: red }</style><script>var s = '<p>не текст</p>';</script></head>"
        "<body><!-- комментарий --><p class='a'>Первый <span>абзац</span></p>"
        "<noscript>включите скрипты</noscript><template><p>шаблон</p></template>"
        "<script type='text/javascript'>if (a < b) { x(); }</script>"
        "<div>второй</div></body></html>"
    )
    text, omap = html_to_text(html)
    assert _words(text) == ["Первый", "абзац", "второй"]
    _check_map(html, text, omap)


def test_entities_decoded_and_mapped_to_entity_span() -> None:
    html = "a&amp;b&nbsp;c &#1055;&#x41F;&#X440; &lt;tag&gt; &copy 2024 &unknown; &"
    text, omap = html_to_text(html)
    assert text == "a&b\xa0c ППр <tag> © 2024 &unknown; &"
    _check_map(html, text, omap)
    i = text.index("&")
    assert html[omap.starts[i] : omap.ends[i]] == "&amp;"
    i = text.index("\xa0")
    assert html[omap.starts[i] : omap.ends[i]] == "&nbsp;"
    for k, ref in zip(
        range(text.index("П"), text.index("П") + 3), ["&#1055;", "&#x41F;", "&#X440;"]
    ):
        assert html[omap.starts[k] : omap.ends[k]] == ref
    i = text.index("©")
    assert html[omap.starts[i] : omap.ends[i]] == "&copy"


def test_block_elements_separate_words() -> None:
    html = "<p>один</p><p>два</p><div>три</div>четыре<br>пять<li>шесть</li><td>семь</td>"
    text, omap = html_to_text(html)
    assert _words(text) == ["один", "два", "три", "четыре", "пять", "шесть", "семь"]
    assert "\n\n" not in text  # consecutive separators collapse
    assert not text.startswith("\n")
    _check_map(html, text, omap)
    # The separator maps to the span of a tag, never a zero-width span.
    i = text.index("\n")
    assert html[omap.starts[i] : omap.ends[i]] in ("</p>", "<p>")


def test_inline_elements_do_not_split_words() -> None:
    html = "<p>при<b>мер</b> и <a href='/x'>ссыл</a><em>ка</em></p>"
    text, omap = html_to_text(html)
    assert _words(text) == ["пример", "и", "ссылка"]
    a = text.index("пример")
    for k in range(6):
        assert html[omap.starts[a + k] : omap.ends[a + k]] == "пример"[k]
    assert omap.starts[a] == html.index("при")
    assert omap.starts[a + 3] == html.index("мер")
    # The whole word spans the source from its first to its last letter (tags included).
    assert html[omap.starts[a] : omap.ends[a + 5]] == "при<b>мер"


def test_word_without_entities_maps_to_its_source_text() -> None:
    html = "<div><h1>Заголовок</h1>\n  <p>Текст   с  пробелами</p></div>"
    text, omap = html_to_text(html)
    for m in re.finditer(r"\S+", text):
        a, b = m.start(), m.end()
        assert html[omap.starts[a] : omap.ends[b - 1]] == m.group()


def test_broken_html_is_tolerated() -> None:
    html = (
        "<div><p>незакрытый <b>жирный <i>курсив</div>"
        "a < b && c > d <3 <p>после &#; и &#xZZ; текст <span>ещё</span>"
        "<p>хвост <a href='x"
    )
    text, omap = html_to_text(html)
    words = _words(text)
    assert words[:4] == ["незакрытый", "жирный", "курсив", "a"]
    assert "ещё" in words and "<span>" not in text  # markup after "&#;" is still parsed
    assert "после" in words and "текст" in words
    _check_map(html, text, omap)


def test_unclosed_head_ends_at_body_content() -> None:
    html = "<html><head><title>Т</title><meta name=x>Видимый <p>текст"
    text, _ = html_to_text(html)
    assert _words(text) == ["Видимый", "текст"]


def test_empty_and_plain_text() -> None:
    text, omap = html_to_text("")
    assert text == "" and len(omap) == 0
    text, omap = html_to_text("просто текст")
    assert text == "просто текст"
    assert omap.starts.tolist() == list(range(len(text)))


# --------------------------------------------------------------------------- property

_ENTITIES = ["&amp;", "&lt;", "&gt;", "&quot;", "&nbsp;", "&#1055;", "&#x44F;", "&copy;", "&mdash;"]
_INLINE = [
    "<b>",
    "</b>",
    "<i>",
    "</i>",
    '<span class="x">',
    "</span>",
    '<a href="/p?a=1&amp;b=2">',
    "</a>",
]
_BLOCK = ["<p>", "</p>", "<div>", "</div>", "<br>", "<br/>", "<li>", "<h2>", "</h2>", "<tr>"]
_TOKENS = st.one_of(
    st.text(
        st.sampled_from("абвгдеёжзийклмнопрстуфхцчшщъыьэюяABCxyz0123456789.,"),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from([" ", "  ", "\n", "\t "]),
    st.sampled_from(_ENTITIES),
    st.sampled_from(_INLINE),
    st.sampled_from(_BLOCK),
    st.just("<!-- c -->"),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TOKENS, max_size=40))
def test_offsets_property(tokens: list[str]) -> None:
    html = "".join(tokens)
    text, omap = html_to_text(html)
    _check_map(html, text, omap)
    # The text is the tokens with markup removed and block tags turned into whitespace.
    expected = "".join(
        " " if t in _BLOCK else "" if t.startswith("<") else std_html.unescape(t) for t in tokens
    )
    assert re.sub(r"\s+", " ", text).strip() == re.sub(r"\s+", " ", expected).strip()


# --------------------------------------------------------------------------- main content

ARTICLE = [
    "Вечером мы долго гуляли по старой набережной и говорили о том, как быстро меняется наш "
    "город. Новые дома вырастают там, где раньше стояли деревянные сараи, а у воды теперь "
    "шумно и светло до самой ночи.",
    "Возле моста уличный музыкант играл на&nbsp;скрипке, и&nbsp;вокруг него собралась "
    "небольшая толпа. Дети кормили уток, пожилая пара сидела на скамейке и молча смотрела на "
    "реку, по которой медленно шёл прогулочный катер.",
    "Мы зашли в маленькое кафе с видом на воду, заказали горячий <b>чай с</b> <i>лимоном</i> "
    "и пирог с вишней. Хозяйка рассказала, что кафе открыто уже двадцать лет и пережило три "
    "ремонта набережной и одно наводнение.",
    "Когда стемнело, на другом берегу зажглись фонари, и их отражения задрожали в чёрной "
    "воде. Домой мы возвращались пешком, не торопясь, и обсуждали, куда пойдём в следующие "
    "выходные.",
]

PAGE = (
    "<!DOCTYPE html>\n<html lang='ru'>\n<head><meta charset='utf-8'>"
    "<title>Прогулка по набережной — Городской вестник</title></head>\n<body>\n"
    "<header><div class='logo'>Городской вестник</div>\n<nav class='menu'><ul>\n"
    "<li><a href='/'>Главная</a></li><li><a href='/news'>Новости</a></li>\n"
    "<li><a href='/culture'>Культура</a></li><li><a href='/contacts'>Контакты</a></li>"
    "</ul></nav></header>\n<main><article>\n<h1>Прогулка по набережной</h1>\n"
    + "\n".join(f"<p>{p}</p>" for p in ARTICLE)
    + "\n</article></main>\n<aside><h3>Читайте также</h3><ul>"
    "<li><a href='/a'>Новый мост откроют осенью</a></li></ul></aside>\n"
    "<footer><p>© 2024 Городской вестник. Все права защищены.</p>"
    "<p><a href='/ads'>Реклама на сайте</a> | <a href='/privacy'>Политика "
    "конфиденциальности</a></p></footer>\n</body></html>"
)


def test_main_content_keeps_article_drops_boilerplate() -> None:
    pytest.importorskip("trafilatura")
    text, omap = html_to_text(PAGE, main_content=True)
    _check_map(PAGE, text, omap)
    for needle in [
        "гуляли по старой набережной",
        "играл на\xa0скрипке",
        "чай с лимоном",
        "в следующие выходные",
    ]:
        assert needle in text
    for junk in ["Главная", "Контакты", "Читайте также", "Все права защищены", "Реклама"]:
        assert junk not in text
    full, _ = html_to_text(PAGE)
    assert "Главная" in full and len(text) < len(full)


def test_main_content_falls_back_to_whole_text(monkeypatch: pytest.MonkeyPatch) -> None:
    trafilatura = pytest.importorskip("trafilatura")
    full = html_to_text(PAGE)
    monkeypatch.setattr(trafilatura, "extract", lambda *a, **k: None)
    text, omap = html_to_text(PAGE, main_content=True)
    assert text == full[0]
    monkeypatch.setattr(trafilatura, "extract", lambda *a, **k: "совсем другой текст")
    text, omap = html_to_text(PAGE, main_content=True)
    assert text == full[0]


def test_main_content_joins_regions_with_mapped_separator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trafilatura = pytest.importorskip("trafilatura")
    html = "<p>меню</p><p>первый абзац</p><p>реклама</p><ul><li>пункт</li></ul>"
    monkeypatch.setattr(trafilatura, "extract", lambda *a, **k: "первый абзац\n- пункт")
    text, omap = html_to_text(html, main_content=True)
    assert text == "первый абзац\nпункт"
    _check_map(html, text, omap)
    i = text.index("\n")
    assert "реклама" in html[omap.starts[i] : omap.ends[i]]


def test_main_content_missing_dependency(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "trafilatura", None)
    with pytest.raises(MissingDependencyError, match="html"):
        html_to_text("<p>x</p>", main_content=True)


# --------------------------------------------------------------------------- looks_like_html


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<!DOCTYPE html><html><body>x</body></html>", True),
        ("  \n<html lang='ru'>", True),
        ("\ufeff<!doctype HTML>", True),
        ("<div><p>Абзац</p><br></div>", True),
        ("Текст <b>с</b> одним тегом", False),
        ("a < b and c > d", False),
        ("Просто обычный текст без разметки.", False),
        ("", False),
    ],
)
def test_looks_like_html(text: str, expected: bool) -> None:
    assert looks_like_html(text) is expected


# --------------------------------------------------------------------------- size
# (its speed is a benchmark's business: benchmarks/analyzer_speed.py; a timed test flakes on a
# shared machine)


def test_a_100kb_page_converts_whole() -> None:
    para = "<p>Слово <b>жирное</b> и <a href='#'>ссылка</a> &amp; ещё&nbsp;текст &#1055;.</p>\n"
    copies = 100_000 // len(para)
    html = "<html><body>" + para * copies + "</body></html>"
    text, _ = html_to_text(html)
    assert text.count("Слово жирное и ссылка & ещё\u00a0текст П.") == copies

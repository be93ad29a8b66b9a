"""Rendering matched fragments: JSON, terminal, and the self-contained HTML report."""

from __future__ import annotations

import html
import itertools
import json
import re
from html.parser import HTMLParser

import pytest
from rich.console import Console

from neardup.fingerprints.pipeline import make_spec
from neardup.passages.align import Aligner, Alignment
from neardup.report.fragments import print_terminal, render_html, to_json, write_html
from tests._aligntext import text, words

HOSTILE = (
    '<script>window.__pwned = 1</script> <img src=x onerror="alert(1)"> '
    '[bold]markup[/bold] & "quotes"'
)


def _alignment(*, hostile: bool = False, overlapping: bool = False) -> Alignment:
    aligner = Aligner(make_spec("plain"))
    src = text(200, seed=21)
    body = src.split()
    query = " ".join(
        words(30, seed=22) + body[40:90] + words(20, seed=23) + body[120:150] + words(10, seed=24)
    )
    source_text = src
    if hostile:
        query = HOSTILE + "\n" + query + "\n" + HOSTILE
        source_text = HOSTILE + " " + src
    sources = [('src "<one>"' if hostile else "one", source_text)]
    if overlapping:
        sources.append(("two", " ".join(body[60:140])))
    return aligner.align(query, sources)


class _Collector(HTMLParser):
    """Ids, hrefs, tags and the text inside each <pre> of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []
        self.hrefs: list[str] = []
        self.tags: list[str] = []
        self.pres: list[str] = []
        self._in_pre = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        values = dict(attrs)
        if values.get("id"):
            self.ids.append(values["id"] or "")
        if tag == "a" and values.get("href"):
            self.hrefs.append(values["href"] or "")
        if tag == "pre":
            self._in_pre = True
            self.pres.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self._in_pre = False

    def handle_data(self, data: str) -> None:
        if self._in_pre:
            self.pres[-1] += data


def _parse(page: str) -> _Collector:
    collector = _Collector()
    collector.feed(page)
    return collector


def test_json_has_every_passage_and_the_shares() -> None:
    result = _alignment()
    data = json.loads(to_json(result, with_text=True))
    assert data["borrowed"] == pytest.approx(result.borrowed, abs=1e-6)
    assert data["uniqueness"] == pytest.approx(1 - result.borrowed, abs=1e-6)
    passages = data["sources"][0]["passages"]
    assert len(passages) == 2
    for p in passages:
        assert data["text"][p["a_start"] : p["a_end"]] == p["a_text"]
        assert set(p) >= {
            "a_start",
            "a_end",
            "b_start",
            "b_end",
            "similarity",
            "tokens_a",
            "a_text",
            "b_text",
        }


def test_html_shows_every_character_once_and_links_resolve() -> None:
    result = _alignment(overlapping=True)
    page = render_html(result, title="test")
    parsed = _parse(page)
    assert parsed.pres[0] == result.text  # the query, all of it, nothing twice
    assert parsed.pres[1:] == [s.text for s in result.sources]
    ids = set(parsed.ids)
    internal = [h for h in parsed.hrefs if h.startswith("#")]
    assert internal and all(h[1:] in ids for h in internal)
    assert [h for h in parsed.hrefs if not h.startswith("#")] == []  # nothing points outside
    for si, match in enumerate(result.sources):
        for p in match.passages:
            assert f"a-{si}-{p.number}" in ids and f"b-{si}-{p.number}" in ids
            # the query's passage links to its counterpart in the source, and back
            assert re.search(rf'href="#b-{si}-{p.number}"', page)
            assert re.search(rf'href="#a-{si}-{p.number}"', page)
    assert 'class="frag multi"' in page  # two sources cover the same words of the query


def test_html_escapes_everything_and_has_no_script_or_external_resource() -> None:
    result = _alignment(hostile=True)
    page = render_html(result, title='<title> & "t"', query_title="<b>q</b>")
    assert "<script" not in page.lower()
    assert "<img" not in page  # the <img …> of the text is text, not a tag
    assert html.escape("<script>window.__pwned = 1</script>", quote=False) in page
    assert "&lt;b&gt;q&lt;/b&gt;" in page and "&lt;title&gt; &amp; &quot;t&quot;" in page
    assert 'src "&lt;one&gt;"' in page or "src &quot;&lt;one&gt;&quot;" in page
    parsed = _parse(page)
    assert set(parsed.tags) <= {
        "html",
        "head",
        "meta",
        "title",
        "style",
        "body",
        "header",
        "h1",
        "p",
        "b",
        "span",
        "table",
        "thead",
        "tr",
        "th",
        "tbody",
        "td",
        "a",
        "main",
        "section",
        "h2",
        "pre",
        "div",
    }
    assert parsed.pres[0] == result.text
    assert not re.search(r"(src|href)=\"(https?:)?//", page)
    assert "Content-Security-Policy" in page


def test_write_html(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "r.html"
    write_html(_alignment(), path)
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_terminal_prints_texts_as_text_with_passages_coloured() -> None:
    result = _alignment(hostile=True)
    console = Console(record=True, width=100, color_system="truecolor", force_terminal=True)
    print_terminal(result, console, query_title="[red]query[/red]")
    plain = console.export_text(clear=False)
    assert "[bold]markup[/bold]" in plain  # never taken as rich markup
    assert "[red]query[/red]" in plain
    assert "borrowed" in plain and "uniqueness" in plain
    styled = console.export_text(styles=True)
    assert "\x1b[" in styled  # passages carry a colour
    first = result.passages[0].a_text.split()[0]
    assert first in plain


def test_no_passages_renders_too() -> None:
    aligner = Aligner(make_spec("plain"))
    result = aligner.pair(text(50, seed=1), text(50, seed=2))
    page = render_html(result)
    assert "0 passages" in page and "<pre" in page
    console = Console(record=True, width=80)
    print_terminal(result, console)
    assert "borrowed 0.0 %" in console.export_text()


def test_long_texts_are_printed_a_piece_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    import neardup.report.fragments as report

    result = _alignment(hostile=True)
    wide = Console(record=True, width=10_000, color_system="truecolor", force_terminal=True)
    print_terminal(result, wide)
    monkeypatch.setattr(report, "PANEL_CHARS", 50)
    monkeypatch.setattr(report, "_PIECE_CHARS", 37)
    console = Console(record=True, width=10_000, color_system="truecolor", force_terminal=True)
    print_terminal(result, console, query_title="[red]query[/red]")
    plain = console.export_text(clear=False)
    # no panel border; each text whole and in order, its words as given
    assert "│" not in plain.split("source")[0] and "[red]query[/red]" in plain
    assert " ".join(result.text.split()) in " ".join(plain.split())
    assert " ".join(result.sources[0].text.split()) in " ".join(plain.split())
    # the same characters carry the same styles as in the panel
    styled = console.export_text(styles=True)
    for p in result.passages:
        assert p.a_text.split()[0] in plain
    assert styled.count("\x1b[") >= wide.export_text(styles=True).count("\x1b[") // 2
    cuts = report._piece_cuts(result.text, 37)
    assert cuts[0] == 0 and cuts[-1] == len(result.text)
    assert all(0 < b - a <= 37 for a, b in itertools.pairwise(cuts))
    assert all(result.text[c - 1] in " \n" for c in cuts[1:-1])

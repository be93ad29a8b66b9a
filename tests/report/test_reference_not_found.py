"""A made-up reference does not make a copy cited: the passage is borrowed and every report says
"reference not found" beside it — the terminal, the HTML report, the JSON, the page and the PDF,
in Russian and English.

``FAKE`` is the example essay's silently copied paragraph (three sentences of
``examples/collection/park.txt``) with a made-up ``[7]`` after each sentence and no reference
list; ``LISTED`` is the same essay with a list of seven entries at the end, where ``[7]`` is found.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from neardup.cli.main import main
from neardup.passages.align import Aligner, Alignment, apply_citations
from neardup.report.check_record import cited_spans
from neardup.report.check_record import reference_notes as record_notes
from neardup.report.fragments import print_terminal, reference_notes, render_html, with_notes

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PARK = (EXAMPLES / "collection" / "park.txt").read_text(encoding="utf-8")
SHIPPED = (EXAMPLES / "essay_with_quote.txt").read_text(encoding="utf-8")
ESSAY = (
    SHIPPED.replace(" и приведу из неё целый абзац: «", ". ")
    .replace("проектировании» [1].", "проектировании.")
    .replace("\n\n[1] Набережную в городском парке обновили // городская газета.\n", "\n")
)
_ENDS = ("на зиму", "колясками", "проектировании")
FAKE = ESSAY
for _end in _ENDS:
    FAKE = FAKE.replace(f"{_end}.", f"{_end} [7].", 1)
#: Where each "[7]" ends: where the notes go.
MARKER_ENDS = [FAKE.index(f"{end} [7]") + len(f"{end} [7]") for end in _ENDS]
LISTED = (
    FAKE.rstrip()
    + "\n\nЛитература\n\n"
    + "".join(f"{i}. Автор{i} А. А. Книга {i}. — М., {2010 + i}.\n" for i in range(1, 8))
)

SOURCE_EN = (
    "The city council approved the new riverside park on Monday. Work on the embankment will "
    "begin in spring and last about two years. Residents asked for gentle slopes to the water "
    "so that parents with prams can walk down easily."
)
FAKE_EN = (
    "Every year our class writes an essay about the town. This time I chose the river. "
    "Residents asked for gentle slopes to the water so that parents with prams can walk down "
    "easily (Brown, 2024).\n"
)
LISTED_EN = FAKE_EN + "\nReferences\nBrown K. Riverside park approved. The Town Gazette, 2024.\n"


def _cite(text: str, source: str = PARK, source_id: str = "park") -> Alignment:
    aligner = Aligner()
    query = aligner.prepare(text)
    return apply_citations(aligner.pair(query, source, source_id=source_id), query)


def test_made_up_references_leave_the_copy_borrowed() -> None:
    result = _cite(FAKE)
    assert [c.status.value for c in result.citations] == ["unresolved"] * 3
    # the three "[7]" add three number tokens, two of them inside the copied passage
    assert (result.tokens, result.borrowed, result.cited) == (101, 29 / 101, 0.0)
    assert [p.citation for p in result.passages] == ["unresolved"]
    assert reference_notes(result) == MARKER_ENDS
    # found in the text's own list, the same references make the copy cited
    listed = _cite(LISTED)
    assert [c.status.value for c in listed.citations] == ["cited"] * 3
    assert (listed.borrowed, listed.cited) == (0.0, 29 / listed.tokens)
    assert [p.citation for p in listed.passages] == ["cited"] and reference_notes(listed) == []


def test_made_up_author_year_reference_in_english() -> None:
    result = _cite(FAKE_EN, SOURCE_EN, "gazette")
    assert (result.borrowed, result.cited) == (9 / result.tokens, 0.0)
    assert [p.citation for p in result.passages] == ["unresolved"]
    end = FAKE_EN.index("(Brown, 2024)") + len("(Brown, 2024)")
    assert reference_notes(result) == [end]
    listed = _cite(LISTED_EN, SOURCE_EN, "gazette")
    assert (listed.borrowed, listed.cited) == (0.0, 9 / listed.tokens)
    assert [p.citation for p in listed.passages] == ["cited"]


def test_the_json_says_it() -> None:
    out = _cite(FAKE).to_dict()
    assert [c["status"] for c in out["citations"]] == ["unresolved"] * 3
    assert [p["citation"] for p in out["sources"][0]["passages"]] == ["unresolved"]


@pytest.mark.parametrize(
    ("lang", "words"), [("ru", "ссылка не найдена"), ("en", "reference not found")]
)
def test_the_terminal_says_it_after_each_reference(lang: str, words: str) -> None:
    console = Console(record=True, width=400, color_system=None)
    print_terminal(_cite(FAKE), console, show_sources=False, lang=lang)
    shown = console.export_text()
    assert shown.count(f"[7] ← {words}") == 3
    assert f"на зиму [7] ← {words}. По его словам" in shown
    console = Console(record=True, width=400, color_system=None)
    print_terminal(_cite(LISTED), console, show_sources=False, lang=lang)
    assert words not in console.export_text()


def test_notes_move_the_spans_after_them() -> None:
    shown, spans = with_notes("abcdef", [(0, 3, "x"), (3, 6, "y"), (1, 5, "z")], [3], "!")
    assert shown == "abc!def"
    assert spans == [(0, 3, "x"), (4, 7, "y"), (1, 6, "z"), (3, 4, "bold red")]
    assert with_notes("abc", [(0, 1, "x")], [], "!") == ("abc", [(0, 1, "x")])


@pytest.mark.parametrize(
    ("lang", "words"), [("ru", "ссылка не найдена"), ("en", "reference not found")]
)
def test_the_html_report_says_it(lang: str, words: str) -> None:
    page = render_html(_cite(FAKE), lang=lang)
    note = f'<span class="noref">{words}</span>'
    assert page.count(note) == 4  # after each reference, and in the legend
    assert f"[7]</a>{note}." in page or f"[7]{note}." in page
    assert ".noref{" in page
    assert (
        "noref"
        not in render_html(_cite(LISTED), lang=lang).split("<style>")[1].split("</style>")[1]
    )


def _record(result: Alignment) -> dict[str, Any]:
    """A kept check's record as :func:`neardup.report.check_record.check_record` makes it."""
    fragments = result.to_dict(with_text=True)
    for key in ("uniqueness", "borrowed", "cited", "tokens", "text"):
        fragments.pop(key, None)
    return {
        "uniqueness": result.uniqueness,
        "borrowed": result.borrowed,
        "cited": result.cited,
        "words": result.tokens,
        "matches": [{"id": "park"}],
        "fragments": fragments,
    }


def test_a_kept_record_gives_the_same_notes_and_old_records_count_every_citation() -> None:
    result = _cite(FAKE)
    assert record_notes(_record(result)) == reference_notes(result) == MARKER_ENDS
    assert cited_spans(_record(result)) == []
    old = {"fragments": {"citations": [{"start": 1, "end": 5, "kind": "quote"}], "sources": []}}
    assert cited_spans(old) == [(1, 5)] and record_notes(old) == []


@pytest.mark.parametrize(
    ("lang", "words"), [("ru", "ссылка не найдена"), ("en", "reference not found")]
)
def test_the_page_says_it(lang: str, words: str) -> None:
    pytest.importorskip("jinja2", reason="the web extra is missing")
    from neardup.web.kept_view import kept_view
    from neardup.web.render import aligned_view

    result = _cite(FAKE)
    note = f'<span class="noref">{words}</span>'
    assert aligned_view(result, lang).query_html.count(note) == 3
    assert kept_view(FAKE, _record(result), lang).query_html.count(note) == 3
    assert note not in kept_view(LISTED, _record(_cite(LISTED)), lang).query_html
    css = (Path(__file__).resolve().parents[2] / "src/neardup/web/static/app.css").read_text()
    from neardup.report.fragments import NOTE_CSS

    assert NOTE_CSS in css


@pytest.mark.parametrize(
    ("lang", "words"), [("ru", "ссылка не найдена"), ("en", "reference not found")]
)
def test_the_pdf_says_it(lang: str, words: str) -> None:
    pytest.importorskip("fpdf", reason="the report extra is missing")
    pypdf = pytest.importorskip("pypdf", reason="the office extra is missing")
    from neardup.report.pdf import check_pdf

    def shown(text: str, result: Alignment) -> str:
        data = check_pdf(text, _record(result), lang=lang)
        return "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages)

    # three notes in the text and one in the legend
    assert shown(FAKE, _cite(FAKE)).count(words) == 4
    assert words not in shown(LISTED, _cite(LISTED))


def _flat(printed: str) -> str:
    """The terminal's output as one line: panel borders and wrapping taken out."""
    return " ".join(printed.replace("│", " ").split())


@pytest.fixture()
def fake_file(tmp_path: Path) -> str:
    path = tmp_path / "fake.txt"
    path.write_text(FAKE, encoding="utf-8")
    return str(path)


def test_compare_fragments_says_it(
    fake_file: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    park = str(EXAMPLES / "collection" / "park.txt")
    assert main(["compare", fake_file, park, "--fragments", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["fragments_summary"]["cited"] == 0.0
    assert out["fragments_summary"]["borrowed"] == round(29 / 101, 6)
    assert [p["citation"] for p in out["fragments"]] == ["unresolved"]
    monkeypatch.setenv("COLUMNS", "300")
    monkeypatch.setenv("NEARDUP_LANG", "en")
    assert main(["compare", fake_file, park, "--fragments"]) == 0
    assert _flat(capsys.readouterr().out).count("[7] ← reference not found") == 3
    pytest.importorskip("babel", reason="Russian needs babel")
    monkeypatch.setenv("NEARDUP_LANG", "ru")
    assert main(["compare", fake_file, park, "--fragments"]) == 0
    assert _flat(capsys.readouterr().out).count("[7] ← ссылка не найдена") == 3


def test_index_check_fragments_says_it(
    fake_file: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = str(tmp_path / "c.db")
    assert main(["index", "create", db, "--policy", "group", "--threshold", "0.5"]) == 0
    assert main(["index", "add", db, str(EXAMPLES / "collection")]) == 0
    capsys.readouterr()
    assert main(["index", "check", db, fake_file, "--fragments", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["cited"] == 0.0 and result["borrowed"] > 0.25
    assert [c["status"] for c in result["fragments"]["citations"]] == ["unresolved"] * 3
    citations = {p["citation"] for s in result["fragments"]["sources"] for p in s["passages"]}
    assert citations == {"unresolved"}
    monkeypatch.setenv("COLUMNS", "300")
    monkeypatch.setenv("NEARDUP_LANG", "en")
    html = tmp_path / "r.html"
    assert main(["index", "check", db, fake_file, "--fragments", "--html", str(html)]) == 0
    assert _flat(capsys.readouterr().out).count("[7] ← reference not found") == 3
    assert html.read_text(encoding="utf-8").count('<span class="noref">reference not found') == 4


STORY_EN = (
    "The old ferryman looked at the river for a long time. "
    '"We will cross the wide river tomorrow morning, before the heavy autumn rains flood the '
    'valley and wash away the old wooden bridge," he said, and went home. '
    "Nobody in the village believed him that evening."
)


def test_an_english_quote_inside_a_copied_paragraph_is_borrowed_unless_attributed() -> None:
    copied = _cite(f"My essay is about rivers.\n\n{STORY_EN}\n", STORY_EN, "story")
    assert [c.status.value for c in copied.citations] == ["unattributed"]
    assert (copied.borrowed, copied.cited) == (copied.sources[0].borrowed, 0.0)
    assert [p.citation for p in copied.passages] == [None] and reference_notes(copied) == []
    quote = STORY_EN.split('"')[1]
    attributed = f'My essay is about rivers. As the story puts it, "{quote}" That is all.\n'
    result = _cite(attributed, STORY_EN, "story")
    assert [c.status.value for c in result.citations] == ["cited"]
    assert result.borrowed == 0.0 and result.cited == result.sources[0].borrowed > 0.3

"""Citations in the uniqueness report: quoted and referenced passages counted apart (issue #16),
and only when they say whose words they are: a quote with an attribution, a reference that
resolves to the text's own reference list.

The example essay quotes a paragraph of ``examples/collection/park.txt`` in «…» with a reference
``[1]`` and its list. Most tests start from the essay with its quotation marks and reference taken
out (``ESSAY``: the paragraph copied silently, as the essay was before) and mark the paragraph
themselves, to check what each kind of mark does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from neardup.cli.main import main
from neardup.errors import ConfigurationError
from neardup.passages.align import Aligner, Alignment, apply_citations
from neardup.passages.citations import Citation, CitationKind, CitationStatus
from neardup.report.fragments import (
    CITATION_COLOUR,
    print_terminal,
    reference_notes,
    render_html,
    summary_line,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SHIPPED = (EXAMPLES / "essay_with_quote.txt").read_text(encoding="utf-8")
#: The shipped essay with the quotation marks and the reference taken out.
ESSAY = (
    SHIPPED.replace(" и приведу из неё целый абзац: «", ". ")
    .replace("проектировании» [1].", "проектировании.")
    .replace("\n\n[1] Набережную в городском парке обновили // городская газета.\n", "\n")
)
PARK = (EXAMPLES / "collection" / "park.txt").read_text(encoding="utf-8")
START = ESSAY.index("Руководитель")
END = ESSAY.index("проектировании.") + len("проектировании.")
#: The essay with the copied paragraph in «…», and nothing saying whose words they are.
QUOTED = ESSAY[:START] + "«" + ESSAY[START:END] + "»" + ESSAY[END:]
#: The lead-in that attributes the quotation (two more words: 86 in all).
LEAD_IN = "Автор заметки пишет: "
#: The essay with the copied paragraph quoted after an attribution.
ATTRIBUTED = ESSAY[:START] + LEAD_IN + "«" + ESSAY[START:END] + "»" + ESSAY[END:]
A_START = START + len(LEAD_IN)
A_END = END + len(LEAD_IN) + 2


def _cite(text: str) -> Alignment:
    aligner = Aligner()
    query = aligner.prepare(text)
    return apply_citations(aligner.pair(query, PARK, source_id="park"), query)


def test_the_shipped_essay_shows_its_quote_as_citation() -> None:
    assert "«" not in ESSAY and "[1]" not in ESSAY and ESSAY != SHIPPED
    result = _cite(SHIPPED)
    # «…» [1]: one quote (its reference merged into it); the reference list's "[1] …" at the
    # end cites nothing, so the essay's own last sentence is no citation (issue #23)
    assert [c.kind for c in result.citations] == [CitationKind.QUOTE]
    last = SHIPPED.index("Я с ней согласна")
    assert all(c.end <= last for c in result.citations)
    assert result.borrowed == 0.0 and result.cited == result.sources[0].borrowed > 0.2
    # the one figure: words found in no source; the cited words are counted apart
    assert result.uniqueness == pytest.approx(1.0 - result.cited)


def test_the_example_essay_marks_no_quote() -> None:
    # the paragraph is copied without «…» or a reference: it stays borrowing
    result = _cite(ESSAY)
    assert result.citations == ()
    assert (result.tokens, result.borrowed, result.cited, result.quoted) == (98, 27 / 98, 0, 0)
    assert result.uniqueness == 1 - 27 / 98


def test_an_attributed_quote_is_citation_not_borrowing() -> None:
    result = _cite(ATTRIBUTED)
    assert result.citations == (Citation(A_START, A_END, CitationKind.QUOTE),)
    assert (result.tokens, result.borrowed, result.cited, result.quoted) == (
        101,
        0.0,
        27 / 101,
        27 / 101,
    )
    assert result.uniqueness == pytest.approx(74 / 101)
    # the source's own share of the query is unchanged
    assert result.sources[0].borrowed == 27 / 101
    assert [p.citation for p in result.passages] == ["cited"]
    assert result.to_dict()["citations"] == [
        {"start": A_START, "end": A_END, "kind": "quote", "status": "cited"}
    ]
    assert summary_line(result) == (
        "uniqueness 73.3 %: borrowed 0.0 %, cited 26.7 % (1 passage from 1 source; "
        "101 words counted)"
    )


def test_a_quote_inside_a_copied_unattributed_paragraph_is_borrowed() -> None:
    # «…» alone says the words are someone's, not whose: the paste stays borrowing
    result = _cite(QUOTED)
    assert result.citations == (
        Citation(START, END + 2, CitationKind.QUOTE, CitationStatus.UNATTRIBUTED),
    )
    assert (result.borrowed, result.cited, result.quoted) == (27 / 98, 0.0, 27 / 98)
    assert result.uniqueness == pytest.approx(71 / 98)
    assert [p.citation for p in result.passages] == [None]
    assert reference_notes(result) == []  # no reference, so none to find
    assert summary_line(result).startswith("uniqueness 72.4 %: borrowed 27.6 %, cited 0.0 % (")


def test_a_quote_of_part_of_a_passage() -> None:
    middle = ESSAY.index("на зиму.") + len("на зиму.")
    text = ESSAY[:START] + LEAD_IN + "«" + ESSAY[START:middle] + "»" + ESSAY[middle:]
    result = _cite(text)
    assert result.citations == (Citation(A_START, middle + len(LEAD_IN) + 2, CitationKind.QUOTE),)
    assert (result.borrowed, result.cited, result.quoted) == (15 / 101, 12 / 101, 12 / 101)
    assert [p.citation for p in result.passages] == ["cited"]


def test_a_referenced_sentence_with_no_reference_list_is_borrowed() -> None:
    # "[1]" and no list to find it in: the sentence is borrowed, its reference not found
    text = ESSAY[:END] + " [1]" + ESSAY[END:]
    result = _cite(text)
    last = ESSAY.index("Эти предложения")
    assert result.citations == (
        Citation(last, END + 4, CitationKind.REFERENCE, CitationStatus.UNRESOLVED),
    )
    # "[1]" adds a number token, inside the citation but in no passage
    assert result.tokens == 99
    assert (result.borrowed, result.cited, result.quoted) == (27 / 99, 0.0, 4 / 99)
    assert [p.citation for p in result.passages] == ["unresolved"]
    assert reference_notes(result) == [END + 4]


def test_without_citations_nothing_changes() -> None:
    aligner = Aligner()
    alignment = aligner.pair(QUOTED, PARK)
    assert alignment.citations is None and alignment.cited == 0.0
    assert alignment.to_dict()["citations_counted"] is False
    assert alignment.to_dict()["cited"] == 0.0 and "citations" not in alignment.to_dict()
    assert summary_line(alignment).startswith("uniqueness 72.4 %: borrowed 27.6 % (")
    with pytest.raises(ConfigurationError, match="own prepared query"):
        apply_citations(alignment, aligner.prepare(ESSAY))


def test_html_and_terminal_show_citations_apart() -> None:
    page = render_html(_cite(ATTRIBUTED))
    assert page.count(f"background:{CITATION_COLOUR}") == 2  # the passage and the legend
    assert 'class="frag cite"' in page and 'title="citation; park #1' in page
    summary = 'Uniqueness <b>73.3 %</b>: borrowed <b>0.0 %</b>, cited <b id="cited">26.7 %</b>'
    assert summary in page
    assert 'class="noref"' not in page
    plain = render_html(_cite(ESSAY))
    assert "frag cite" not in plain and 'cited <b id="cited">0.0 %</b>' in plain
    assert 'id="cited"' not in render_html(Aligner().pair(ESSAY, PARK, source_id="park"))
    # an unattributed quote is drawn in its source's colour, not the citation's
    assert "frag cite" not in render_html(_cite(QUOTED))
    console = Console(record=True, width=200, color_system="truecolor")
    print_terminal(_cite(ATTRIBUTED), console, show_sources=False)
    styled = console.export_text(styles=True)
    assert "uniqueness 73.3 %: borrowed 0.0 %, cited 26.7 %" in styled
    # the quote in italics, the cited passage black on grey (colour 249), not the source's
    assert "\x1b[3m«\x1b[0m\x1b[3;30;48;5;249mРуководитель" in styled


@pytest.fixture()
def quoted_file(tmp_path: Path) -> str:
    path = tmp_path / "essay.txt"
    path.write_text(ATTRIBUTED, encoding="utf-8")
    return str(path)


def test_compare_counts_citations_by_default(
    quoted_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    park = str(EXAMPLES / "collection" / "park.txt")
    assert main(["compare", quoted_file, park, "--fragments", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    summary = out["fragments_summary"]
    assert summary["borrowed"] == 0.0
    assert summary["cited"] == summary["quoted"] == round(27 / 101, 6)
    assert summary["uniqueness"] == round(74 / 101, 6)
    assert summary["citations"] == [
        {"start": A_START, "end": A_END, "kind": "quote", "status": "cited"}
    ]
    assert [p["citation"] for p in out["fragments"]] == ["cited"]
    assert main(["compare", quoted_file, park, "--fragments", "--json", "--no-citations"]) == 0
    out = json.loads(capsys.readouterr().out)
    summary = out["fragments_summary"]
    assert summary["borrowed"] == round(27 / 101, 6) and summary["cited"] == 0.0
    assert summary["uniqueness"] == round(74 / 101, 6)
    assert [p["citation"] for p in out["fragments"]] == [None]


def test_index_check_counts_citations_by_default(
    quoted_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "c.db")
    assert main(["index", "create", db, "--policy", "group", "--threshold", "0.5"]) == 0
    assert main(["index", "add", db, str(EXAMPLES / "collection")]) == 0
    capsys.readouterr()
    assert main(["index", "check", db, quoted_file, "--fragments", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["borrowed"], result["cited"]) == (0.0, round(27 / 101, 6))
    assert result["uniqueness"] == round(74 / 101, 6)
    assert main(["index", "check", db, quoted_file, "--fragments", "--json", "--no-citations"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["borrowed"] == round(27 / 101, 6) and result["cited"] == 0.0
    assert main(["index", "check", db, quoted_file, "--fragments"]) == 0
    assert "cited 26.7 %" in capsys.readouterr().out


#: A reference-list entry after a blank line, as the shipped essay ends.
REFERENCE_LIST = "\n\n[1] Набережную в городском парке обновили // городская газета.\n"


def test_a_reference_list_does_not_cite_the_copied_paragraph_before_it() -> None:
    # issue #23: the copied paragraph ends the essay, a blank line and "[1] …" follow
    text = ESSAY[:END] + REFERENCE_LIST
    result = _cite(text)
    assert result.citations == ()
    assert (result.tokens, result.borrowed, result.cited) == (75, 27 / 75, 0.0)
    assert result.uniqueness == pytest.approx(48 / 75)


def test_the_copied_sentence_with_its_own_marker_is_cited_the_rest_borrowed() -> None:
    marked = END - 1  # "… при проектировании [1]." — the marker inside the last sentence
    text = ESSAY[:marked] + " [1]." + REFERENCE_LIST
    result = _cite(text)
    last = ESSAY.index("Эти предложения")
    assert result.citations == (Citation(last, marked + 4, CitationKind.REFERENCE),)
    assert (result.tokens, result.borrowed, result.cited) == (76, 24 / 76, 3 / 76)


SOURCE_EN = (
    "The city council approved the new riverside park on Monday. Work on the embankment will "
    "begin in spring and last about two years. Residents asked for gentle slopes to the water "
    "so that parents with prams can walk down easily."
)
ESSAY_EN = (
    "Every year our class writes an essay about the town. This time I chose the river. "
    "Residents asked for gentle slopes to the water so that parents with prams can walk down "
    "easily.\n\n[1] Riverside park approved. The Town Gazette, 2024.\n"
)


def test_a_reference_list_does_not_cite_an_english_copied_sentence() -> None:
    aligner = Aligner()
    query = aligner.prepare(ESSAY_EN)
    result = apply_citations(aligner.pair(query, SOURCE_EN, source_id="gazette"), query)
    assert result.citations == ()
    assert (result.tokens, result.borrowed, result.cited) == (25, 9 / 25, 0.0)
    # the same sentence with its own marker is cited
    marked = ESSAY_EN.replace("walk down easily.\n", "walk down easily [1].\n")
    query = aligner.prepare(marked)
    result = apply_citations(aligner.pair(query, SOURCE_EN, source_id="gazette"), query)
    start = marked.index("Residents")
    end = marked.index("[1]") + 3
    assert result.citations == (Citation(start, end, CitationKind.REFERENCE),)
    assert (result.tokens, result.borrowed, result.cited) == (26, 0.0, 9 / 26)

"""Citations in the uniqueness report: quoted and referenced passages counted apart (issue #16).

The example essay quotes a paragraph of ``examples/collection/park.txt`` in «…» with a reference
``[1]``. Most tests start from the essay with its quotation marks and reference taken out
(``ESSAY``: the paragraph copied silently, as the essay was before) and mark the paragraph
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
from neardup.passages.citations import Citation, CitationKind
from neardup.report.fragments import CITATION_COLOUR, print_terminal, render_html, summary_line

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
#: The essay with the copied paragraph in «…».
QUOTED = ESSAY[:START] + "«" + ESSAY[START:END] + "»" + ESSAY[END:]


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


def test_a_quoted_paragraph_is_citation_not_borrowing() -> None:
    result = _cite(QUOTED)
    assert result.citations == (Citation(START, END + 2, CitationKind.QUOTE),)
    assert (result.borrowed, result.cited, result.quoted) == (0.0, 27 / 98, 27 / 98)
    assert result.uniqueness == pytest.approx(71 / 98)
    # the source's own share of the query is unchanged
    assert result.sources[0].borrowed == 27 / 98
    assert result.to_dict()["citations"] == [{"start": START, "end": END + 2, "kind": "quote"}]
    assert summary_line(result) == (
        "uniqueness 72.4 %: borrowed 0.0 %, cited 27.6 % (1 passage from 1 source; "
        "98 words counted)"
    )


def test_a_quote_of_part_of_a_passage() -> None:
    middle = ESSAY.index("на зиму.") + len("на зиму.")
    text = ESSAY[:START] + "«" + ESSAY[START:middle] + "»" + ESSAY[middle:]
    result = _cite(text)
    assert result.citations == (Citation(START, middle + 2, CitationKind.QUOTE),)
    assert (result.borrowed, result.cited, result.quoted) == (15 / 98, 12 / 98, 12 / 98)


def test_a_referenced_sentence() -> None:
    text = ESSAY[:END] + " [1]" + ESSAY[END:]
    result = _cite(text)
    last = ESSAY.index("Эти предложения")
    assert result.citations == (Citation(last, END + 4, CitationKind.REFERENCE),)
    # "[1]" adds a number token, inside the citation but in no passage
    assert result.tokens == 99
    assert (result.borrowed, result.cited, result.quoted) == (24 / 99, 3 / 99, 4 / 99)


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
    page = render_html(_cite(QUOTED))
    assert page.count(f"background:{CITATION_COLOUR}") == 2  # the passage and the legend
    assert 'class="frag cite"' in page and 'title="citation; park #1' in page
    summary = 'Uniqueness <b>72.4 %</b>: borrowed <b>0.0 %</b>, cited <b id="cited">27.6 %</b>'
    assert summary in page
    plain = render_html(_cite(ESSAY))
    assert "frag cite" not in plain and 'cited <b id="cited">0.0 %</b>' in plain
    assert 'id="cited"' not in render_html(Aligner().pair(ESSAY, PARK, source_id="park"))
    console = Console(record=True, width=200, color_system="truecolor")
    print_terminal(_cite(QUOTED), console, show_sources=False)
    styled = console.export_text(styles=True)
    assert "uniqueness 72.4 %: borrowed 0.0 %, cited 27.6 %" in styled
    # the quote in italics, the cited passage black on grey (colour 249), not the source's
    assert "\x1b[3m«\x1b[0m\x1b[3;30;48;5;249mРуководитель" in styled


@pytest.fixture()
def quoted_file(tmp_path: Path) -> str:
    path = tmp_path / "essay.txt"
    path.write_text(QUOTED, encoding="utf-8")
    return str(path)


def test_compare_counts_citations_by_default(
    quoted_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    park = str(EXAMPLES / "collection" / "park.txt")
    assert main(["compare", quoted_file, park, "--fragments", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["fragments_summary"]
    assert summary["borrowed"] == 0.0
    assert summary["cited"] == summary["quoted"] == round(27 / 98, 6)
    assert summary["uniqueness"] == round(71 / 98, 6)
    assert summary["citations"] == [{"start": START, "end": END + 2, "kind": "quote"}]
    assert main(["compare", quoted_file, park, "--fragments", "--json", "--no-citations"]) == 0
    summary = json.loads(capsys.readouterr().out)["fragments_summary"]
    assert summary["borrowed"] == round(27 / 98, 6) and summary["cited"] == 0.0
    assert summary["uniqueness"] == round(71 / 98, 6)


def test_index_check_counts_citations_by_default(
    quoted_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "c.db")
    assert main(["index", "create", db, "--policy", "group", "--threshold", "0.5"]) == 0
    assert main(["index", "add", db, str(EXAMPLES / "collection")]) == 0
    capsys.readouterr()
    assert main(["index", "check", db, quoted_file, "--fragments", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["borrowed"], result["cited"]) == (0.0, round(27 / 98, 6))
    assert result["uniqueness"] == round(71 / 98, 6)
    assert main(["index", "check", db, quoted_file, "--fragments", "--json", "--no-citations"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["borrowed"] == round(27 / 98, 6) and result["cited"] == 0.0
    assert main(["index", "check", db, quoted_file, "--fragments"]) == 0
    assert "cited 27.6 %" in capsys.readouterr().out


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

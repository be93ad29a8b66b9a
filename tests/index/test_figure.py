"""The figure of a check counts every source found: ``top`` limits the list, never the figure;
the work limit is reported when it is reached; a short text has one basis however it is checked;
the words are counted by kind, and the kinds add up to the figure."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import neardup
from neardup.fingerprints.pipeline import default_spec
from neardup.index import Collection, IndexSpec, checking
from neardup.passages.counting import KINDS
from tests import _textgen as tg

#: Thirty stored documents pasted whole into one text, with a short essay of its own after.
PASTED = [tg.text(120, 100 + i) for i in range(30)]
ESSAY = tg.text(80, 999)
QUERY = "\n\n".join([*PASTED, ESSAY])


def _collection(index_spec: IndexSpec | None = None, spec: object = None) -> Collection:
    col = Collection.create("memory:", spec or default_spec(), index_spec)  # type: ignore[arg-type]
    pasted = [(f"pasted-{i:02d}", text) for i, text in enumerate(PASTED)]
    others = [(f"other-{i:02d}", tg.text(150, 500 + i)) for i in range(10)]
    col.add_many(pasted + others)
    return col


@pytest.fixture(scope="module")
def col() -> Iterator[Collection]:
    with _collection() as collection:
        yield collection


def test_a_text_of_30_stored_documents_is_found_taken_whatever_top(col: Collection) -> None:
    figures = set()
    for top in (1, 10, 50, None):
        result = col.check(QUERY, top=top)
        assert result.uniqueness <= 0.05, top
        assert (result.sources_counted, result.sources_uncounted, result.limited) == (30, 0, False)
        figures.add((result.uniqueness, result.borrowed, result.cited, result.words))
    assert len(figures) == 1  # one figure, whatever the list shows
    by_default = col.check(QUERY)
    assert len(by_default.matches) == 10  # the list is cut at the default top
    # the essay's own words are what is left unique
    essay_words = len(col.checker.pipeline.analyze(ESSAY).canonical)
    assert by_default.word_counts.unique_words == essay_words


def test_the_sources_not_listed_are_counted_and_located(col: Collection) -> None:
    result = col.check(QUERY, top=10, fragments=True)
    alignment = result.alignment
    assert alignment is not None and alignment.more is not None
    assert [s.id for s in alignment.sources] == [m.id for m in result.matches]
    more = alignment.more
    assert (more.sources, more.passages) == (20, 20)
    # the words of the listed sources and those found only in the others make the figure
    listed = {t for s in alignment.sources for a, b in s.token_ranges() for t in range(a, b)}
    assert len(listed) + more.words == result.word_counts.borrowed_words
    assert more.share == more.words / result.words
    # the spans of those words are the documents pasted but not listed
    unlisted = {m.id for m in col.check(QUERY, top=None).matches} - {m.id for m in result.matches}
    texts = {f"pasted-{i:02d}": text for i, text in enumerate(PASTED)}
    assert len(unlisted) == 20
    for doc_id, text in texts.items():
        at = QUERY.index(text)
        inside = any(a <= at and at + len(text) <= b for a, b in more.spans)
        assert inside == (doc_id in unlisted), doc_id
    out = result.to_dict()
    assert len(out["fragments"]["sources"]) == 10
    assert out["fragments"]["more_sources"]["sources"] == 20
    # every source listed: nothing more
    everything = col.check(QUERY, top=50, fragments=True)
    assert everything.alignment is not None and everything.alignment.more is None
    assert "more_sources" not in everything.to_dict()["fragments"]


def test_the_reports_draw_the_sources_not_listed_apart(col: Collection) -> None:
    from rich.console import Console

    from neardup.report.fragments import MORE_COLOUR, print_terminal, render_html

    result = col.check(QUERY, top=4, fragments=True)
    assert result.alignment is not None and result.alignment.more is not None
    page = render_html(result.alignment)
    assert page.count('<a class="frag"') == 2 * 4  # the four listed, in the text and their own
    neutral = page.count(f'<span class="more" style="background:{MORE_COLOUR}"')
    assert neutral == len(result.alignment.more.spans) + 1  # and the legend's sample
    assert 'id="more-sources">sources counted but not listed (--top lists more): 26;' in page
    console = Console(record=True, width=200)
    print_terminal(result.alignment, console, show_sources=False)
    assert "sources counted but not listed (--top lists more): 26;" in console.export_text()


def test_the_work_limit_is_reported(col: Collection, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checking, "COUNTED_SOURCES_MAX", 12)
    result = col.check(QUERY)
    assert (result.sources_counted, result.sources_uncounted, result.limited) == (12, 18, True)
    assert result.to_dict()["limited"] is True
    assert result.uniqueness == pytest.approx(1 - 12 * 120 / 3680, abs=0.02)
    # the sources listed are always aligned, past the limit
    assert col.check(QUERY, top=20).sources_counted == 20
    # and the characters' bound: five documents' texts
    monkeypatch.setattr(checking, "COUNTED_SOURCES_MAX", 200)
    monkeypatch.setattr(checking, "COUNTED_CHARACTERS_MAX", 5 * max(map(len, PASTED)))
    by_characters = col.check(QUERY, top=1)
    assert by_characters.sources_counted == 5 and by_characters.limited


def test_candidates_past_the_collections_cap_are_reported(col: Collection) -> None:
    from neardup.report.check_record import check_record, limit_notes

    with _collection(IndexSpec(max_candidates=8, sentence_bands=0)) as capped:
        result = capped.check(QUERY)
        assert (result.candidates, result.candidates_capped, result.limited) == (8, True, True)
        assert result.sources_counted == 8 and result.sources_uncounted == 0
        notes = limit_notes(check_record(result), "en")
        assert notes == [
            "The candidates reached the number the collection compares in one check (8): "
            "more of its documents may share passages with the text."
        ]
    assert not col.check(QUERY).candidates_capped  # 40 stored, under the default 100


def test_a_collection_without_texts_counts_every_source_too() -> None:
    index_spec = IndexSpec(store_text=False)
    with _collection(index_spec, default_spec().fixed()) as bare:
        one, all_of_them = bare.check(QUERY, top=1), bare.check(QUERY, top=50)
        assert one.basis == all_of_them.basis == "shingles"
        assert one.uniqueness == all_of_them.uniqueness <= 0.05
        assert one.sources_counted == 30 and len(one.matches) == 1


#: A short text taken whole from a stored one (7 words, fewer than a passage's minimum of 8).
STORED = (
    "Каждый год в городском парке у реки проводят большой летний праздник для всех жителей города."
)
SHORT = "Каждый год в городском парке у реки проводят большой летний праздник."


@pytest.mark.parametrize(
    ("short", "expected"),
    [
        (SHORT, 0.0),  # taken whole: one passage, as long as the text
        ("В городском парке проводят праздник.", 1.0),  # its words, but not in a row
        ("Парке у реки!", 0.0),  # fewer words than a shingle, in a row in the stored text
    ],
)
def test_a_short_text_has_one_figure_compared_or_checked(short: str, expected: float) -> None:
    compared = neardup.compare(short, STORED, fragments=True)
    assert compared.alignment is not None
    with Collection.create("memory:", default_spec(), IndexSpec(policy="allow")) as one:
        one.add("stored", STORED)
        checked = one.check(short)
    assert checked.basis == "passages"
    assert checked.uniqueness == compared.alignment.uniqueness == expected


def _sums(summary: dict[str, object], runs: list[dict[str, object]]) -> None:
    words = summary["words"] if "words" in summary else summary["tokens"]
    by_kind = summary["by_kind"]
    assert isinstance(by_kind, dict) and list(by_kind) == list(KINDS)
    borrowed, cited, unique = (
        summary["borrowed_words"],
        summary["cited_words"],
        summary["unique_words"],
    )
    assert borrowed + cited + unique == words  # type: ignore[operator]
    assert by_kind["copied"] + by_kind["rewritten"] == borrowed
    assert by_kind["cited"] == cited
    assert summary["borrowed"] == round(borrowed / words, 6)  # type: ignore[operator]
    assert summary["cited"] == round(cited / words, 6)  # type: ignore[operator]
    assert summary["uniqueness"] == round(unique / words, 6)  # type: ignore[operator]
    for kind in KINDS:  # the runs locate every word counted
        assert sum(r["words"] for r in runs if r["kind"] == kind) == by_kind[kind]  # type: ignore[misc]


def test_the_words_by_kind_add_up_to_the_figure() -> None:
    from tests.passages.test_rewrites_marked import COPIED, QUERY, RU_SOURCE

    also = (
        "Жители соседних улиц попросили добавить урны у остановки, починить фонтан в сквере "
        "и высадить вдоль дороги липы вместо срубленных прошлой осенью тополей."
    )
    text = f"{QUERY} Как писал глава управы Иванов: «{COPIED}» {also}"  # an attributed quote
    with Collection.create("memory:", default_spec(), IndexSpec(policy="allow")) as one:
        one.add("source", f"{RU_SOURCE} {COPIED} {also}")
        result = one.check(text, fragments=True)
    out = result.to_dict()
    kinds = out["by_kind"]
    assert kinds["copied"] > 0 and kinds["rewritten"] > 0 and kinds["cited"] > 0
    fragments = out["fragments"]
    _sums(out, fragments["counted"])
    passages = fragments["sources"][0]["passages"] + fragments["sources"][0]["rewritten"]
    assert {p["kind"] for p in passages} == {"copied", "rewritten"}
    for run in fragments["counted"]:  # each run lies in a passage and is the text's words
        assert any(p["a_start"] <= run["start"] < run["end"] <= p["a_end"] for p in passages)
    # compare counts the same words, in the same code
    compared = neardup.compare(text, f"{RU_SOURCE} {COPIED} {also}", fragments=True).to_dict()
    summary = compared["fragments_summary"]
    _sums(summary, summary["counted"])
    assert summary["by_kind"] == kinds
    assert {p["kind"] for p in compared["fragments"]} == {"copied", "rewritten"}
    starts = [p["a_start"] for p in compared["fragments"]]
    assert starts == sorted(starts)  # in the text's order

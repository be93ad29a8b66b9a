"""Rewritten passages reach every door: compare, ``index check``, the JSON and the page mark them
as rewritten and count them in the uniqueness figure; ``--no-rewrites`` leaves them out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import neardup
from neardup.cli.main import main
from neardup.fingerprints.pipeline import default_spec
from neardup.index import Collection, IndexSpec
from neardup.report.fragments import render_html
from tests.passages.test_rewrites import RU_AFTER, RU_BEFORE, RU_REWRITE, RU_SAME_TOPIC, RU_SOURCE

QUERY = RU_BEFORE + RU_REWRITE + RU_AFTER
#: A paragraph copied word for word: what brings the source in as a candidate of the index
#: (which finds sources by shared shingles; the rewrite alone shares none).
COPIED = (
    "Отдельно городские власти пообещали до конца года заменить освещение во всех дворах "
    "района, поставить новые скамейки вдоль главной аллеи и открыть ещё одну детскую "
    "площадку рядом со школой, где сейчас пустырь и старые гаражи."
)


def test_compare_marks_a_rewrite_and_counts_it() -> None:
    result = neardup.compare(QUERY, RU_SOURCE, fragments=True)
    assert result.alignment is not None
    rewritten = result.alignment.rewritten
    assert rewritten and not result.alignment.passages  # nothing copied word for word
    passage = rewritten[0]
    assert QUERY[passage.a_start : passage.a_end] == passage.a_text
    assert RU_REWRITE.split(".")[0] in passage.a_text
    assert result.alignment.borrowed > 0.3
    out = result.to_dict()
    assert out["fragments_summary"]["uniqueness"] == round(result.alignment.uniqueness, 6)
    without = neardup.compare(QUERY, RU_SOURCE, fragments=True, rewrites=False)
    assert without.alignment is not None and without.alignment.uniqueness == 1.0
    same_topic = neardup.compare(RU_SAME_TOPIC, RU_SOURCE, fragments=True)
    assert same_topic.alignment is not None and same_topic.alignment.rewritten == []


def test_the_report_draws_it_apart() -> None:
    result = neardup.compare(QUERY, RU_SOURCE, fragments=True, b_id="source")
    assert result.alignment is not None
    page = render_html(result.alignment)
    assert 'class="frag rew"' in page and "rewritten: source #1" in page


def test_index_check_counts_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "c.db")
    with Collection.create(db, default_spec(), IndexSpec(policy="allow")) as col:
        col.add("source", RU_SOURCE + " " + COPIED)
        col.add("other", RU_SAME_TOPIC)
    query = tmp_path / "q.txt"
    query.write_text(QUERY + " " + COPIED, encoding="utf-8")
    capsys.readouterr()
    assert main(["index", "check", db, str(query), "--json", "--fragments"]) == 0
    out = json.loads(capsys.readouterr().out)
    sources = {s["id"]: s for s in out["fragments"]["sources"]}
    assert sources["source"]["rewritten"] and sources["source"]["passages"]
    assert main(["index", "check", db, str(query), "--json", "--no-rewrites"]) == 0
    copied_only = json.loads(capsys.readouterr().out)
    # the rewritten paragraph is borrowed too: the figure falls by its words
    assert out["borrowed"] > copied_only["borrowed"] + 0.3
    assert out["uniqueness"] < copied_only["uniqueness"] - 0.3

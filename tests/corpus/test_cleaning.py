"""Corpus cleaning: exact copies and repeated lines, paragraphs and sentences, from the library
(:func:`neardup.corpus.cleaning.clean_texts`) and in the dedup job (``--exact``, ``--level``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from neardup.corpus import DedupOptions, dedup
from neardup.corpus.cleaning import CleanOptions, clean_texts
from neardup.corpus.spans import CountMinCounter, ExactCounter, span_bounds
from neardup.errors import InputError, WrongTypeError
from tests import _textgen
from tests.corpus._corpus import read_jsonl, write

BANNER = "Accept all cookies on this site now please\n"
FOOTER = "Subscribe to our channel for more news\n"


def pages(n: int = 12) -> list[str]:
    """``n`` pages of their own text between a banner and a footer every page repeats."""
    return [f"{BANNER}{_textgen.text(40, seed=i)}\n\n{FOOTER}" for i in range(n)]


def test_span_bounds_cover_the_text_at_every_level() -> None:
    text = "one two\nthree\n\n\nfour. Five six! seven"
    for level in ("line", "paragraph", "sentence"):
        starts, ends = span_bounds(text, level)
        assert starts[0] == 0 and ends[-1] == len(text)
        assert (starts[1:] == ends[:-1]).all()
    assert [text[a:b] for a, b in zip(*span_bounds(text, "paragraph"), strict=True)] == [
        "one two\nthree\n\n\n",
        "four. Five six! seven",
    ]
    assert [text[a:b] for a, b in zip(*span_bounds(text, "line"), strict=True)] == [
        "one two\n",
        "three\n",
        "\n",
        "\n",
        "four. Five six! seven",
    ]


def test_repeated_lines_are_cut_and_the_rest_is_the_original() -> None:
    texts = pages()
    result = clean_texts(texts, CleanOptions(level="line", span_docs=5))
    assert result.spans_removed == 24 and result.documents_dropped == 0
    for original, cleaned in zip(texts, result.texts, strict=True):
        assert cleaned.kept and cleaned.text == original[len(BANNER) : -len(FOOTER)]
        assert cleaned.removed == [(0, len(BANNER)), (len(original) - len(FOOTER), len(original))]
    assert result.chars_removed == 12 * (len(BANNER) + len(FOOTER))


def test_canonical_keys_see_through_case_spacing_and_homoglyphs() -> None:
    texts = pages(6)
    # Cyrillic "с" for Latin "c": the analyzer's trick folding undoes it
    texts[0] = texts[0].replace(BANNER, "A\u0441\u0441EPT  all cookies on this site now, please!\n")
    result = clean_texts(texts, CleanOptions(level="line", span_docs=5))
    assert result.texts[0].removed[0] == (0, texts[0].index("\n") + 1)
    assert result.spans_removed == 12


def test_a_span_in_as_many_documents_as_allowed_stays() -> None:
    result = clean_texts(pages(5), CleanOptions(level="line", span_docs=5))
    assert result.spans_removed == 0
    assert [t.text for t in result.texts] == pages(5)


def test_a_document_left_with_too_little_is_dropped() -> None:
    texts = [*pages(8), f"{BANNER}ok fine\n"]
    result = clean_texts(texts, CleanOptions(level="line", span_docs=5, span_min_tokens=5))
    last = result.texts[-1]
    assert (last.kept, last.dropped, last.text) == (False, True, "ok fine\n")
    assert result.documents_dropped == 1 and result.kept_texts == [t.text for t in result.texts[:8]]


def test_exact_copies_by_canonical_or_raw_text() -> None:
    texts = ["The cat sat on the mat today.", "the CAT sat on the  mat today!", "", "", "x y"]
    canonical = clean_texts(texts, CleanOptions(exact="canonical"))
    assert [t.duplicate_of for t in canonical.texts] == [None, 0, None, None, None]
    assert canonical.exact_duplicates == 1
    raw = clean_texts([*texts, texts[4]], CleanOptions(exact="raw"))
    assert [t.duplicate_of for t in raw.texts] == [None, None, None, None, None, 4]


def test_hostile_inputs_give_results() -> None:
    huge = "word " * 200_000 + "\n"
    texts = ["", "\ud800 lone surrogate line\n", huge, huge, huge, "same line\n" * 50]
    result = clean_texts(texts, CleanOptions(exact="raw", level="line", span_docs=2))
    assert [t.duplicate_of for t in result.texts] == [None, None, None, 2, 2, None]
    assert result.texts[0].text == "" and result.texts[1].text == texts[1]
    # one line repeated in one document counts once: it is in 1 document, not 50
    assert result.texts[5].text == texts[5]
    one_line = clean_texts(["same line\n"] * 4, CleanOptions(level="line", span_docs=2))
    assert [t.dropped for t in one_line.texts] == [True] * 4
    assert {t.text for t in one_line.texts} == {""}


def test_wrong_arguments_are_neardup_errors() -> None:
    with pytest.raises(WrongTypeError):
        clean_texts("one text")
    with pytest.raises(WrongTypeError):
        clean_texts(["a", 3])  # type: ignore[list-item]
    with pytest.raises(InputError):
        CleanOptions(level="word")  # type: ignore[arg-type]
    with pytest.raises(InputError):
        CleanOptions(span_docs=0)


def test_exact_counting_spills_to_disk_and_counts_the_same(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    docs = [
        np.unique(rng.integers(0, 40, 12).astype(np.uint64) << np.uint64(58)) for _ in range(30)
    ]
    docs = [np.unique(d + np.uint64(7)) for d in docs]
    memory = ExactCounter(tmp_path / "a", 1 << 20)
    spilled = ExactCounter(tmp_path / "b", 16)
    for keys in docs:
        memory.add(keys)
        spilled.add(keys)
    memory.finish(3)
    spilled.finish(3)
    assert spilled.spilled and not memory.spilled
    assert (memory.repeated_keys == spilled.repeated_keys).all()
    assert (memory.repeated_counts == spilled.repeated_counts).all()
    values, counts = np.unique(np.concatenate(docs), return_counts=True)
    assert memory.repeated_keys.tolist() == values[counts > 3].tolist()
    assert (memory.counts(values) == np.where(counts > 3, counts, 0)).all()


def test_count_min_never_counts_under_and_states_its_bound() -> None:
    rng = np.random.default_rng(7)
    sketch = CountMinCounter(1 << 10, 4)
    docs = [
        np.unique(rng.integers(0, 1 << 62, 50, dtype=np.int64).astype(np.uint64)) for _ in range(40)
    ]
    docs = [np.concatenate([d, np.array([11, 12], np.uint64)]) for d in docs]
    for keys in docs:
        sketch.add(keys)
    values, counts = np.unique(np.concatenate(docs), return_counts=True)
    estimate = sketch.counts(values)
    assert (estimate >= counts).all()
    bound = sketch.error_bound()
    assert bound["max_overcount"] == int(np.ceil(np.e / 1024 * sketch.total))
    assert (estimate - counts <= bound["max_overcount"]).mean() >= 1 - bound["delta"]
    both = sketch.counts(np.array([11, 12], np.uint64))
    assert (both >= 40).all() and (both <= 40 + bound["max_overcount"]).all()


def test_the_job_cleans_exact_copies_and_repeated_lines(tmp_path: Path) -> None:
    texts = pages()
    rows = [{"id": f"p{i}", "text": t} for i, t in enumerate(texts)]
    rows.append({"id": "copy", "text": texts[3].upper()})
    rows.append({"id": "empty", "text": ""})
    rows.append({"id": "short", "text": f"{BANNER}so\n"})
    path = write(tmp_path / "in.jsonl", rows)
    clean = CleanOptions(exact="canonical", level="line", span_docs=5)
    result = dedup(path, tmp_path / "out", clean=clean, jobs=1)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text("utf-8"))
    assert summary["exact_duplicates"] == 1 == result.cleaning["exact_duplicates"]
    spans = summary["spans"]
    assert (spans["spans_removed"], spans["documents_cut"], spans["documents_dropped"]) == (
        25,
        13,
        1,
    )
    assert spans["documents_counted"] == 14 and spans["repeated_keys"] == 2
    out = {r["id"]: r for r in read_jsonl(tmp_path / "out" / "documents.jsonl")}
    assert out["copy"]["group"] == "p3" and not out["copy"]["kept"]
    assert out["p0"]["text"] == texts[0][len(BANNER) : -len(FOOTER)] and out["p0"]["kept"]
    assert (out["short"]["text"], out["short"]["kept"]) == ("so\n", False)
    assert out["empty"]["kept"] and out["empty"]["spans_removed"] == 0
    cut = read_jsonl(tmp_path / "out" / "spans.jsonl")
    assert len(cut) == 25 and cut[0] == {
        "id": "p0",
        "start": 0,
        "end": len(BANNER),
        "documents": 13,
        "text": BANNER,
    }
    record = json.loads((tmp_path / "out" / "spec.json").read_text("utf-8"))
    assert record["clean"] == clean.to_dict()


def test_without_cleaning_the_output_keeps_its_fields(tmp_path: Path) -> None:
    path = write(
        tmp_path / "in.jsonl", [{"id": f"p{i}", "text": t} for i, t in enumerate(pages(4))]
    )
    dedup(path, tmp_path / "out", jobs=1)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text("utf-8"))
    assert "exact_duplicates" not in summary and "spans" not in summary
    assert "clean" not in json.loads((tmp_path / "out" / "spec.json").read_text("utf-8"))
    assert "spans_removed" not in read_jsonl(tmp_path / "out" / "documents.jsonl")[0]
    with pytest.raises(Exception, match="options"):
        dedup(path, tmp_path / "out", clean=CleanOptions(level="line"), overwrite=True, jobs=1)


def test_an_exact_copy_is_never_kept_over_its_first(tmp_path: Path) -> None:
    texts = pages(3)
    near = _textgen.edit(texts[0], 0.05, seed=3)
    rows = [
        {"id": "a", "text": texts[0]},
        {"id": "near", "text": near + " longer"},
        {"id": "b", "text": near},
        {"id": "copy", "text": near.upper().replace(" ", "   ")},
    ]
    path = write(tmp_path / "in.jsonl", rows)
    options = DedupOptions(threshold=0.5, keep="longest")
    dedup(path, tmp_path / "out", options, clean=CleanOptions(exact="canonical"), jobs=1)
    out = {r["id"]: r for r in read_jsonl(tmp_path / "out" / "documents.jsonl")}
    assert not out["copy"]["kept"] and out["copy"]["group"] == out["b"]["group"]
    assert out["copy"]["similarity"] == out["b"]["similarity"]
    kept = [r["id"] for r in out.values() if r["kept"]]
    assert "copy" not in kept

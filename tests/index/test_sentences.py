"""Sentence candidates (``IndexSpec.sentence_bands``): a single sentence copied, edited or
reworded into an otherwise original text finds the stored document it came from, and the
second stage marks it; adds decide as before; a collection stored before the setting keeps
its postings and its answers."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from neardup._kernels.sentences import band_keys
from neardup.errors import SpecMismatchError
from neardup.fingerprints.pipeline import default_spec
from neardup.index import Collection, IndexSpec
from neardup.index.candidates import SentenceSource
from neardup.index.results import CheckResult
from neardup.index.sentences import (
    ALIGNED,
    MIN_TERMS,
    SentenceKeys,
    band_seeds,
    sentence_starts,
)
from neardup.passages.rewrites import split_sentences
from neardup.storage import Storage
from neardup.storage.memory import MemoryStorage
from tests import _aligntext as at
from tests import _textgen as tg
from tests.index._sentence_texts import PARAGRAPHS, TEXTS, with_sentence
from tests.storage._postgres import PG_URL, postgres_or_fail, unique_schema

SPEC = default_spec()


def items(lang: str) -> list[tuple[str, str]]:
    """The language's four reports and twenty texts of invented words."""
    sources = TEXTS[lang][0]
    return [(f"{lang}{i}", t) for i, t in enumerate(sources)] + [
        (f"filler{i}", tg.text(200, i)) for i in range(20)
    ]


def collection(where: str | Storage = "memory:", **changes: object) -> Collection:
    return Collection.create(where, SPEC, IndexSpec(policy="allow").replace(**changes))


def marked(result: CheckResult, source: str, span: tuple[int, int]) -> int:
    """Characters of ``span`` that passages (copied or rewritten) of ``source`` cover."""
    assert result.alignment is not None
    every = [*result.alignment.passages, *result.alignment.rewritten]
    return sum(
        max(0, min(span[1], p.a_end) - max(span[0], p.a_start)) for p in every if p.source == source
    )


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("kind", ["copy", "edit", "rewrite"])
def test_a_sentence_put_into_an_original_text_is_found_and_marked(lang: str, kind: str) -> None:
    _, host, copy, edit, reworded = TEXTS[lang]
    sentence = {"copy": copy, "edit": edit, "rewrite": reworded}[kind]
    query, start, end = with_sentence(host, sentence)
    col = collection()
    col.add_many(items(lang))
    assert col.check(host).matches == ()  # the host alone: original
    result = col.check(query, fragments=True)
    assert [m.id for m in result.matches] == [f"{lang}2"]
    assert marked(result, f"{lang}2", (start, end)) >= 0.8 * (end - start)
    # one passage, of the kind the change leaves: copied for a copy or one word changed
    assert result.alignment is not None
    copied, rewritten = result.alignment.passages, result.alignment.rewritten
    assert (len(copied), len(rewritten)) == ((0, 1) if kind == "rewrite" else (1, 0))
    assert 0.0 < result.uniqueness < 1.0
    # the reworded sentence shares no 5-shingle with its source: exact verification alone
    # never names it, the second stage does
    if kind == "rewrite":
        assert result.matches[0].shared == 0 and result.matches[0].resemblance == 0.0


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_paragraph_reworded_by_hand_is_marked_as_compare_marks_it(lang: str) -> None:
    """Three sentences of a stored report reworded (no 5-shingle shared with it): ``check``
    marks the same rewritten passage as ``compare --fragments`` of the pair."""
    sources, host, _, _, _ = TEXTS[lang]
    paragraph = PARAGRAPHS[lang]
    query, start, end = with_sentence(host, paragraph)
    col = collection()
    col.add_many(items(lang))
    assert col.pipeline.compare(query, sources[1]).shared == 0
    result = col.check(query, fragments=True)
    assert [m.id for m in result.matches] == [f"{lang}1"]
    assert result.alignment is not None and result.alignment.passages == []
    pair = col.aligner.pair(query, sources[1], source_id=f"{lang}1")
    assert [p.to_dict() for p in result.alignment.rewritten] == [
        p.to_dict() for p in pair.rewritten
    ]
    assert marked(result, f"{lang}1", (start, end)) >= 0.8 * (end - start)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_without_sentence_keys_a_reworded_sentence_is_not_found(lang: str) -> None:
    _, host, _, _, reworded = TEXTS[lang]
    col = collection(sentence_bands=0)
    col.add_many(items(lang))
    assert [s.name for s in col.sources] == ["winnow"]
    assert col.check(with_sentence(host, reworded)[0]).matches == ()


def test_a_sentence_candidate_the_second_stage_does_not_mark_is_not_reported() -> None:
    """A stored text holding the query's sentence with its words in another order (every key
    shared, no 5-shingle) is aligned; a sentence of 5 terms is too short for a passage (the
    second stage's 8 words), so nothing is marked and it is not reported."""
    _, host, _, _, _ = TEXTS["en"]
    col = collection()
    later = tg.text(60, 2).capitalize()
    stored = f"{tg.text(60, 1)}. Hourly sensors measure pressure and humidity. {later}."
    col.add_many([("short", stored)])
    query = with_sentence(host, "Sensors measure humidity and pressure hourly.")[0]
    found = col.look_up(col.analyze(query), top=10, policy=None)
    assert found.matches == () and [m.id for m, _ in found.to_align] == ["short"]
    result = col.checker.report(col.pipeline.analyze(query), found)
    assert result.matches == () and result.alignment is not None
    assert [s.id for s in result.alignment.sources] == []


def test_a_check_aligns_at_most_a_few_sentence_candidates_strongest_first() -> None:
    """Seven stored texts hold the query's sentence with its words shuffled (no 5-shingle in
    common): the five strongest are aligned, and the first of them is reported — the others
    mark the same words, which adds nothing."""
    _, host, copy, _, _ = TEXTS["ru"]
    rng = np.random.default_rng(5)
    words = copy.rstrip(".").split()
    shuffled = [" ".join(rng.permutation(words).tolist()) + "." for _ in range(7)]
    col = collection()
    col.add_many(
        [(f"v{i}", f"{at.text(40, 100 + i)}. {v.capitalize()}") for i, v in enumerate(shuffled)]
    )
    query = with_sentence(host, copy)[0]
    item = col.analyze(query)
    found = col.look_up(item, top=10, policy=None)
    assert found.matches == ()  # none shares a 5-shingle
    proposals = dict(col.finder.stored([item], col.storage).by_source)["sentences"]
    assert proposals.evidence is not None
    assert list(proposals.evidence) == sorted(proposals.evidence, reverse=True)
    ids = {d.key: d.id for d in col.storage.docs(proposals.other.tolist(), meta=False)}
    strongest = [ids[k] for k in proposals.other.tolist()][:ALIGNED]
    assert ALIGNED == 5 and len(ids) == 7
    assert [m.id for m, _ in found.to_align] == strongest
    result = col.check(query)
    assert [m.id for m in result.matches] == strongest[:1] and result.matches[0].shared == 0
    assert result.alignment is not None
    assert [s.id for s in result.alignment.found] == strongest[:1]


@pytest.mark.parametrize("bands", [6, 0])
def test_a_copied_sentence_below_the_matches_shown_is_still_marked(bands: int) -> None:
    """The host's own near copies fill ``top``; the document the copied sentence came from
    ranks below them (a sentence is a small share of either text): it is counted in the figure
    (a source not listed) and listed when ``top`` reaches it."""
    _, host, copy, _, _ = TEXTS["ru"]
    col = collection(sentence_bands=bands)
    col.add_many(
        items("ru")
        + [(f"host{i}", host.replace("пяти", word)) for i, word in enumerate(("шести", "семи"))]
    )
    query, start, end = with_sentence(host, copy)
    result = col.check(query, top=2)
    ids = [m.id for m in result.matches]
    assert ids[:2] == ["host0", "host1"] or ids[:2] == ["host1", "host0"]
    # past ``top`` the source is not listed, but its passage counts in the figure
    assert ids[2:] == []
    assert result.alignment is not None and result.alignment.more is not None
    counted = sum(max(0, min(b, end) - max(a, start)) for a, b in result.alignment.more.spans)
    assert counted >= 0.8 * (end - start)
    assert [m.id for m in col.check(query, top=3).matches][2:] == ["ru2"]


def test_adds_decide_as_without_sentence_keys() -> None:
    """Adds do not ask the sentence source: the same items give the same decisions."""
    _, host, copy, edit, reworded = TEXTS["en"]
    texts = items("en") + [
        ("copy", with_sentence(host, copy)[0]),
        ("edit", with_sentence(host, edit)[0]),
        ("near", tg.edit(tg.text(200, 3), 0.05, 9)),
    ]
    decisions = []
    for bands in (6, 0):
        col = Collection.create("memory:", SPEC, IndexSpec(policy="group", sentence_bands=bands))
        decisions.append([(d.id, d.reason, d.group, d.matches) for d in col.add_many(texts)])
    assert decisions[0] == decisions[1]
    assert ("near", "grouped") in {(d[0], d[1]) for d in decisions[0]}


def _as_before(path: Path) -> None:
    """The stored index spec as written before sentence keys existed (no such field)."""
    conn = sqlite3.connect(path)
    with conn:
        (raw,) = conn.execute("SELECT value FROM meta WHERE key = 'index_spec'").fetchone()
        stored = json.loads(raw)
        del stored["sentence_bands"]
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'index_spec'",
            (json.dumps(stored, sort_keys=True),),
        )
    conn.close()


def test_an_old_collection_keeps_its_postings_and_its_answers(tmp_path: Path) -> None:
    _, host, copy, edit, reworded = TEXTS["ru"]
    path = tmp_path / "old.db"
    queries = [with_sentence(host, s)[0] for s in (copy, edit, reworded)]
    with collection(str(path), sentence_bands=0) as col:
        col.add_many(items("ru"))
        postings = col.storage.all_postings()
        answers = [col.check(q, fragments=True).to_dict() for q in queries]
    _as_before(path)
    with Collection.open(str(path)) as col:
        assert col.index_spec.sentence_bands == 0
        assert [s.name for s in col.sources] == ["winnow"]
        assert col.stats()["index_spec"]["sentence_bands"] == 0
        again = col.storage.all_postings()
        assert all(np.array_equal(a, b) for a, b in zip(postings, again, strict=True))
        assert [col.check(q, fragments=True).to_dict() for q in queries] == answers
        assert col.analyze(queries[0]).sentence_keys is None
        assert col.verify_integrity() == []
    # today's defaults post sentence keys: opening it with them says what differs
    with pytest.raises(SpecMismatchError, match="sentence_bands: stored 0, given 12"):
        Collection.open(str(path), index_spec=IndexSpec(policy="allow"))
    with collection() as new:
        new.add_many(items("ru"))
        assert new.storage.counts()["postings"] > postings[0].shape[0]


def test_a_collection_without_texts_keeps_no_sentence_keys() -> None:
    with collection(store_text=False) as col:
        assert col.index_spec.sentence_bands == 0
        assert "sentences" not in [s.name for s in col.sources]


def test_the_sentence_source_serves_checks_only() -> None:
    col = collection()
    (sentences,) = [s for s in col.sources if s.name == "sentences"]
    assert isinstance(sentences, SentenceSource) and sentences.checks_only
    batch = [col.analyze(t) for _, t in items("en")[:3]]
    assert len(sentences.in_batch(batch)) == 0
    assert [name for name, _ in col.finder.stored(batch, col.storage, adding=True).by_source] == [
        "winnow"
    ]


# --- the keys ----------------------------------------------------------------------------


def test_band_seeds_and_keys_are_pinned() -> None:
    """The keys are part of every stored collection: these values must never change."""
    assert band_seeds(3).tolist() == PINNED_SEEDS
    terms = np.array([11, 22, 33, 44, 55, 66, 77, 22], dtype=np.uint64)
    keys, kept = band_keys(
        terms,
        np.array([0, 3, 7], dtype=np.int64),
        np.array([3, 7, 8], dtype=np.int64),
        band_seeds(3),
        3,
    )
    assert kept.tolist() == [0, 1]  # the third sentence holds one term
    assert keys.tolist() == PINNED_KEYS


PINNED_SEEDS = [416005690774955163, 3416980090760717829, 11037489602454159710]
PINNED_KEYS = [
    [16674688107605079143, 10412304041481101368, 17201803274900602064],
    [6540759389279543766, 2821138811459459947, 9668334873823036267],
]


def test_the_keys_of_a_sentence_ignore_order_repeats_and_grammar() -> None:
    keys = SentenceKeys(6)
    terms = np.arange(1, 9, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    seeds = band_seeds(6)
    one = band_keys(terms, np.array([0]), np.array([8]), seeds, MIN_TERMS)[0]
    shuffled = band_keys(terms[::-1].copy(), np.array([0]), np.array([8]), seeds, MIN_TERMS)[0]
    twice = np.concatenate((terms, terms[:3]))
    repeated = band_keys(twice, np.array([0]), np.array([11]), seeds, MIN_TERMS)[0]
    assert np.array_equal(one, shuffled) and np.array_equal(one, repeated)
    assert band_keys(terms[:3], np.array([0]), np.array([3]), seeds, MIN_TERMS)[0].shape == (0, 6)
    # a sentence and its inflected, reordered form: the same lemmas, the same keys
    pipeline = collection().pipeline
    sentences = [
        "Новые датчики передают точные измерения давления на школьный сайт.",
        "Точные измерения давления на школьный сайт передают новые датчики.",
        "Новым датчикам передавали точное измерение давления на школьные сайты.",
    ]
    found = [keys.of(a.text, a.canonical) for a in map(pipeline.analyze, sentences)]
    assert found[0].shape == (1, 6)
    assert all(np.array_equal(found[0], other) for other in found[1:])


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_row_per_sentence_in_text_order(lang: str) -> None:
    """One row per sentence with enough terms; on plain prose the sentences are the second
    stage's."""
    text = " ".join(TEXTS[lang][0])
    analysis = collection().pipeline.analyze(text)
    keys = SentenceKeys(6).of(analysis.text, analysis.canonical)
    split = split_sentences(analysis.text, analysis.canonical)
    family = SentenceKeys(6).family
    canonical = analysis.canonical
    terms = family.spans(canonical.buf, canonical.byte_starts, canonical.byte_ends)
    want, _ = band_keys(terms, split.token_first, split.token_end, band_seeds(6), MIN_TERMS)
    assert keys.shape == (20, 6) and np.array_equal(keys, want)


def test_where_sentences_end_for_the_keys_is_pinned() -> None:
    """The cut is part of every stored key: full stops before a capital or a digit, a line
    break unless a small letter goes on, block tags; an initial is cut too (the second stage
    keeps it), the same way in the stored text and the query."""
    text = (
        "Первое предложение. Второе? «Третье» — да! 4 пункта…\n"
        "перенос строки, а не новое.\nНовая строка.<p>Абзац</p>"
        "Как писал А. С. Пушкин, так и было. e.g. small. End"
    )
    starts = sentence_starts(text)
    pieces = [text[a:b] for a, b in zip(starts.tolist(), [*starts.tolist()[1:], len(text)])]
    assert pieces == [
        "Первое предложение.",
        " Второе?",
        " «Третье» — да!",
        " 4 пункта…\nперенос строки, а не новое.",
        "\n",
        "Новая строка.<p>",
        "Абзац</p>",
        "Как писал А.",
        " С.",
        " Пушкин, так и было. e.g. small.",
        " End",
    ]


# --- every backend -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["memory", "sqlite", "postgres"])
def test_every_backend_finds_the_edited_sentence_and_checks_its_keys(
    kind: str, tmp_path: Path
) -> None:
    """The keys go through each backend's postings (tiers, caps, deletion) like samples."""
    _, host, _, edit, _ = TEXTS["ru"]
    target: str | Storage = MemoryStorage()
    if kind == "sqlite":
        target = str(tmp_path / "c.db")
    elif kind == "postgres":
        postgres_or_fail()
        target = f"{PG_URL}?schema={unique_schema()}"
    col = Collection.create(target, SPEC, IndexSpec(policy="allow"))
    try:
        col.add_many(items("ru"))
        assert [m.id for m in col.check(with_sentence(host, edit)[0]).matches] == ["ru2"]
        assert col.verify_integrity() == []
        col.remove("ru2")
        assert col.check(with_sentence(host, edit)[0]).matches == ()
        assert col.verify_integrity() == []
        if kind != "memory":
            with Collection.open(str(target)) as again:
                assert again.index_spec.sentence_bands == 12
    finally:
        if kind == "postgres":
            col.storage.drop()  # type: ignore[attr-defined]
        col.close()


def test_a_damaged_sentence_key_is_reported() -> None:
    """The keys are among a document's samples, not its fingerprints: the integrity check
    re-analyses the stored text and finds one that is not what the text posts."""
    storage = MemoryStorage()
    col = collection(storage)
    col.add_many(items("en")[:4])
    assert col.verify_integrity() == []
    key = col.get("en2").key
    doc = storage._state.docs[key]
    keys = col.analyze(TEXTS["en"][0][2]).sentence_keys
    assert keys is not None and np.all(np.isin(keys, doc.samples))
    dropped = np.setdiff1d(doc.samples, keys[:1].reshape(-1))
    storage._state.docs[key] = replace(doc, samples=dropped)
    assert any("nor what its stored text posts" in p for p in col.verify_integrity())


def test_index_create_takes_the_bands(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from tests.cli._run import run

    for given, stored in (([], 12), (["--sentence-bands", "0"], 0), (["--sentence-bands", "3"], 3)):
        db = str(tmp_path / f"c{stored}.db")
        assert run(capsys, "index", "create", db, *given)[0] == 0
        info = json.loads(run(capsys, "index", "stats", db, "--json")[1])
        assert info["index_spec"]["sentence_bands"] == stored
    code, _, err = run(
        capsys, "index", "create", str(tmp_path / "bad.db"), "--sentence-bands", "65"
    )
    assert code == 2 and "--sentence-bands" in err

"""The generator: edits at the rates asked, truthful offsets, determinism for a seed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from neardup.errors import ConfigurationError
from neardup.eval import formats
from neardup.eval import generate as gen
from tests.eval.texts import EN, RU, THESAURUS_CSV, THESAURUS_DAT, write_corpus

pytest.importorskip("pymorphy3")


@pytest.fixture(scope="module")
def ru() -> gen.Language:
    return gen.Language("ru", gen.parse_synonyms(THESAURUS_CSV, fmt="csv"))


@pytest.fixture(scope="module")
def vocabulary() -> list[str]:
    return [w.lower() for t in RU for w in gen.WORD_RE.findall(t) if w.isalpha()]


def _words(text: str) -> list[str]:
    return gen.WORD_RE.findall(text)


def test_parse_kind() -> None:
    assert gen.parse_kind("mixed") == ("substitute", "insert", "delete")
    assert gen.parse_kind("inflect+synonym") == ("inflect", "synonym")
    assert gen.parse_kind("mixed+delete+reorder") == ("substitute", "insert", "delete", "reorder")
    with pytest.raises(ConfigurationError, match="unknown edit 'shuffle'"):
        gen.parse_kind("shuffle")


@pytest.mark.parametrize("rate", [0.1, 0.2, 0.4])
def test_substitute_insert_delete_counts(
    rate: float, ru: gen.Language, vocabulary: list[str]
) -> None:
    text = RU[1]
    n = len(_words(text))
    want = round(rate * n)
    out, log = gen.edit_words(text, {"substitute": rate}, np.random.default_rng(1), ru, vocabulary)
    before, after = _words(text), _words(out)
    assert len(after) == n
    changed = sum(a.lower() != b.lower() for a, b in zip(before, after))
    assert changed == want == log.counts["substitute"]
    out, log = gen.edit_words(text, {"delete": rate}, np.random.default_rng(1), ru, vocabulary)
    assert len(_words(out)) == n - want and log.rate("delete") == pytest.approx(want / n)
    out, log = gen.edit_words(text, {"insert": rate}, np.random.default_rng(1), ru, vocabulary)
    assert len(_words(out)) == n + want
    assert abs(log.rate("insert") - rate) <= 0.5 / n


def test_deletion_keeps_paragraphs_and_spacing(ru: gen.Language, vocabulary: list[str]) -> None:
    text = "Один два.\n\nТри четыре пять, шесть семь."
    for seed in range(20):
        out, _ = gen.edit_words(text, {"delete": 0.5}, np.random.default_rng(seed), ru, vocabulary)
        assert "  " not in out and " ," not in out and " ." not in out
        assert out.count("\n\n") == 1 or not out.split("\n\n")[0].strip(".")


def test_inflections_are_other_forms_of_the_same_lemma(
    ru: gen.Language, vocabulary: list[str]
) -> None:
    import pymorphy3

    morph = pymorphy3.MorphAnalyzer(lang="ru")
    text = RU[0]
    out, log = gen.edit_words(text, {"inflect": 0.3}, np.random.default_rng(2), ru, vocabulary)
    before, after = _words(text), _words(out)
    assert len(before) == len(after)
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(changed) == log.counts["inflect"] == round(0.3 * len(before))
    for a, b in changed:
        lemmas_a = {p.normal_form for p in morph.parse(a.lower())}
        lemmas_b = {p.normal_form for p in morph.parse(b.lower())}
        assert lemmas_a & lemmas_b, (a, b)
        assert a[0].isupper() == b[0].isupper()


def test_synonym_swaps_come_from_the_thesaurus(ru: gen.Language, vocabulary: list[str]) -> None:
    groups = [row.split(",") for row in THESAURUS_CSV.split()]
    allowed = {w.replace("ё", "е") for g in groups for w in g}
    import pymorphy3

    morph = pymorphy3.MorphAnalyzer(lang="ru")
    swaps = 0
    for seed, text in enumerate(RU):
        out, log = gen.edit_words(
            text, {"synonym": 0.5}, np.random.default_rng(seed), ru, vocabulary
        )
        for a, b in zip(_words(text), _words(out)):
            if a != b:
                swaps += 1
                assert morph.parse(b.lower())[0].normal_form.replace("ё", "е") in allowed, (a, b)
                assert morph.parse(a.lower())[0].normal_form.replace("ё", "е") in allowed, (a, b)
        assert log.counts.get("synonym", 0) == sum(
            a != b for a, b in zip(_words(text), _words(out))
        )
    assert swaps >= 6


def test_english_inflection_rules() -> None:
    en = gen.Language("en")
    rng = np.random.default_rng(0)
    assert en.inflect("cities", rng) == "city"
    assert en.inflect("Walking", rng) == "Walked"
    assert en.inflect("played", rng) == "playing"
    assert en.inflect("maps", rng) == "map"
    assert en.inflect("map", rng) is None  # too short to touch
    assert en.inflect("market", rng) == "markets"
    assert en.synonym("market", rng) is None  # no thesaurus


def test_reorder_moves_the_asked_share_of_sentences() -> None:
    text = " ".join(f"Предложение номер {i}." for i in range(20))
    out, log = gen.reorder_sentences(text, 0.3, np.random.default_rng(4))
    before = [text[a:b] for a, b in gen.sentence_spans(text)]
    after = [out[a:b] for a, b in gen.sentence_spans(out)]
    assert sorted(before) == sorted(after)
    moved = sum(a != b for a, b in zip(before, after))
    assert moved == 6 == log.counts["reorder"] and log.rate("reorder") == pytest.approx(0.3)


def test_boilerplate_surrounds_the_text() -> None:
    text = RU[2]
    out, log = gen.add_boilerplate(text, 0.5, np.random.default_rng(0), "ru")
    assert text in out
    added = len(_words(out)) - len(_words(text))
    assert added == log.counts["boilerplate"]
    assert abs(added / len(_words(text)) - 0.5) < 0.15
    head, _, tail = out.partition(text)
    assert head.strip() and tail.strip()


@pytest.mark.parametrize("share", [0.05, 0.2, 0.5])
def test_fragment_offsets_point_at_the_pasted_text(share: float) -> None:
    rng = np.random.default_rng(11)
    source, host = RU[3], EN[4]
    offset, length = gen.take_fragment(source, share, rng)
    piece = source[offset : offset + length]
    assert abs(length - share * len(source)) <= max(len(w) for w in _words(source)) + 1
    assert gen.WORD_RE.match(piece) and piece == piece.strip()
    text, at = gen.paste(host, piece, rng)
    assert text[at : at + length] == piece
    assert text.replace(piece, "", 1).split() == host.split()


def _small_config(tmp_path: Path, **changes: object) -> gen.GenerateConfig:
    corpus = write_corpus(tmp_path / "corpus.jsonl", RU)
    thesaurus = tmp_path / "th.csv"
    thesaurus.write_text(THESAURUS_CSV, encoding="utf-8")
    params: dict[str, object] = {
        "corpus": str(corpus),
        "lang": "ru",
        "docs": 3,
        "min_chars": 200,
        "max_chars": 5000,
        "thesaurus": str(thesaurus),
        "levels": (0.1, 0.3),
        "kinds": ("mixed", "inflect+synonym", "reorder", "boilerplate"),
    }
    params.update(changes)
    return gen.GenerateConfig(**params)  # type: ignore[arg-type]


def _write(config: gen.GenerateConfig, out: Path) -> dict[str, bytes]:
    written = gen.write_dataset(gen.generate(config), out)
    return {name: path.read_bytes() for name, path in written.items()}


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path: Path) -> None:
    config = _small_config(tmp_path)
    one = _write(config, tmp_path / "one")
    two = _write(config, tmp_path / "two")
    assert one == two
    other = _write(_small_config(tmp_path, seed=1), tmp_path / "three")
    assert other["pairs"] != one["pairs"] and other["documents"] != one["documents"]


def test_near_dataset_truth(tmp_path: Path) -> None:
    config = _small_config(tmp_path)
    dataset = gen.generate(config)
    out = tmp_path / "near"
    gen.write_dataset(dataset, out)
    pairs = formats.read_pairs(out / "pairs.jsonl")
    positives = [p for p in dataset.pairs if p["label"] == 1]
    assert len(positives) == 3 * 4 * 2
    docs = formats.read_documents(out / "documents.jsonl")
    for p in positives:
        edits = p["edits"]
        if p["kind"] == "mixed":
            for edit in ("substitute", "insert", "delete"):
                assert abs(edits[edit] / edits["words"] - p["level"] / 3) <= 0.5 / edits["words"]
            got = len(_words(docs[p["b_id"]]))
            assert got == edits["words"] + edits["insert"] - edits["delete"]
        if p["kind"] == "inflect+synonym":
            assert edits.get("inflect", 0) + edits.get("synonym", 0) > 0
            assert abs(edits["inflect"] / edits["words"] - p["level"] / 2) <= 0.5 / edits["words"]
    negatives = {p["kind"] for p in dataset.pairs if p["label"] == 0}
    assert {"random", "same_source", "same_boilerplate"} <= negatives
    assert len(pairs) == len(dataset.pairs)
    clusters = formats.read_clusters(out / "documents.jsonl")
    by_id = {d.id: d.cluster for d in clusters.documents}
    for p in positives:
        assert by_id[p["a_id"]] == by_id[p["b_id"]]
    meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    assert meta["params"]["seed"] == 0 and meta["skipped"] == []
    assert meta["achieved_rates"]["mixed"]["0.1"]["delete"] == pytest.approx(0.1 / 3, abs=0.01)


def test_synonym_kinds_are_skipped_without_a_thesaurus(tmp_path: Path) -> None:
    config = _small_config(
        tmp_path, thesaurus=None, kinds=("synonym", "inflect"), levels=(0.1,), docs=2
    )
    dataset = gen.generate(config)
    assert {p["kind"] for p in dataset.pairs if p["label"] == 1} == {"inflect"}
    assert dataset.meta["skipped"] == ["no thesaurus given: skipped the kind(s) synonym"]


def test_partial_copies_truth(tmp_path: Path) -> None:
    config = _small_config(tmp_path, task="partial", shares=(0.05, 0.3), obfuscation=(0.0, 0.2))
    dataset = gen.generate(config)
    out = tmp_path / "partial"
    gen.write_dataset(dataset, out)
    docs = formats.read_documents(out / "documents.jsonl")
    corpus = formats.read_documents(config.corpus)
    cases = formats.read_fragments(out / "fragments.jsonl", docs)
    assert len(cases) == 3 * 2 * 2
    for case in cases:
        source = docs[case.source_id][case.source_offset : case.source_offset + case.source_length]
        pasted = docs[case.suspicious_id][
            case.suspicious_offset : case.suspicious_offset + case.suspicious_length
        ]
        assert abs(case.source_length / len(docs[case.source_id]) - case.level) < 0.06
        if case.kind == "partial":
            assert pasted == source
        else:
            n = len(_words(source))
            assert case.kind == "partial-edited"
            assert (pasted != source) == (round(0.2 / 3 * n) > 0)
            assert pasted[:1].strip() and pasted[-1:].strip()
            assert abs(len(_words(pasted)) - n) <= round(0.2 / 3 * n)
        host = next(d["host"] for d in dataset.documents if d["id"] == case.suspicious_id)
        suspicious = docs[case.suspicious_id]
        rest = (
            suspicious[: case.suspicious_offset]
            + suspicious[case.suspicious_offset + case.suspicious_length :]
        )
        assert rest.split() == corpus[host].split()
    assert {p["kind"] for p in dataset.pairs if p["label"] == 0}


def test_load_mythes_skips_antonyms(tmp_path: Path) -> None:
    path = tmp_path / "th_ru.dat"
    path.write_bytes(("\ufeff" + THESAURUS_DAT).encode("utf-8"))
    table = gen.load_synonyms(path)
    assert table["большой"] == ("крупный", "огромный")
    assert table["город"] == ("град",)  # the two-word item is dropped
    assert "маленький" not in table["большой"]
    csv_path = tmp_path / "th.csv"
    csv_path.write_text(THESAURUS_CSV, encoding="utf-8")
    table = gen.load_synonyms(csv_path)
    assert table["крупный"] == ("большой", "огромный")
    assert table["ученый"] == ("исследователь",)


def test_bad_config() -> None:
    with pytest.raises(ConfigurationError, match="levels, shares"):
        gen.GenerateConfig(corpus="x", levels=(1.5,))
    with pytest.raises(ConfigurationError, match="unknown negative kind"):
        gen.GenerateConfig(corpus="x", negatives=("nope",))

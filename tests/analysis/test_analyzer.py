"""The analysis chain: presets, token filters, spans into the original input, edge cases."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup import Pipeline, make_spec
from neardup.analysis.analyzer import Analyzer
from neardup.analysis.presets import preset
from neardup.errors import ConfigurationError
from neardup.spec import AnalyzerSpec, ChainSpec, Component

SEED_004_A = "Преподаватель дает студенту материал"
SEED_004_B = "Преподаватели дают студентам материалы"


def terms(name: str, text: str, **options: object) -> list[str]:
    return Analyzer(preset(name, **options)).canonical(text).terms  # type: ignore[arg-type]


def test_word_forms_are_one_under_ru_and_differ_under_plain() -> None:
    ru = Pipeline(make_spec("ru", k=3))
    plain = Pipeline(make_spec("plain", k=3))
    assert ru.compare(SEED_004_A, SEED_004_B).resemblance == 1.0
    assert (
        ru.fingerprints(SEED_004_A).values.tolist() == ru.fingerprints(SEED_004_B).values.tolist()
    )
    assert plain.compare(SEED_004_A, SEED_004_B).resemblance == 0.0


def test_ru_drops_stop_words_and_function_words_and_lemmatizes() -> None:
    got = terms("ru", "Он прочитал, что мы непременно найдём в этой красивой библиотеке ёлки")
    assert got == ["прочитать", "непременно", "найти", "красивый", "библиотека", "елка"]
    assert "красивый" not in terms("ru", "красивую библиотеку", adjectives=True)


def test_ru_stems_instead_of_lemmas() -> None:
    assert terms("ru", "красивые библиотеки", stem=True) == ["красив", "библиотек"]


def test_en_preset_stems_and_drops_stop_words() -> None:
    assert terms("en", "The teachers are reading the materials") == ["teacher", "read", "materi"]


def test_auto_routes_by_dominant_script() -> None:
    analyzer = Analyzer(preset("auto"))
    assert analyzer.canonical("Студенты читают книги, a few English words").language == "ru"
    assert analyzer.canonical("Students read books, и немного русских").language == "en"
    assert analyzer.canonical("Студенты читают книги").terms == ["студент", "читать", "книга"]


def test_plain_keeps_every_word_lowercased() -> None:
    assert terms("plain", "Он И Она, ЁЖ") == ["он", "и", "она", "ёж"]


def test_normalization_choices() -> None:
    # NFKC folds compatibility characters; hyphenated words and decimal numbers stay one token;
    # stress marks go (ru); a lone hyphen or dash separates.
    assert terms("plain", "ﬁle № 5") == ["file", "no", "5"]
    assert terms("plain", "северо-западный ветер — 3,14 и 2.5 COVID-19") == [
        "северо-западный",
        "ветер",
        "3,14",
        "и",
        "2.5",
        "covid-19",
    ]
    assert terms("ru", "мо́локо") == ["молоко"]
    assert terms("plain", "Год 2024", numbers=False) == ["год"]
    assert terms("plain", "don't stop") == ["don't", "stop"]


def test_user_stop_words() -> None:
    assert terms("plain", "раз два три", stop_words=("два",)) == ["раз", "три"]
    assert terms("ru", "кот шептал песня", stop_words=("Шептал",)) == ["кот", "песня"]


def test_synonyms_from_csv_and_mythes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    csv_file = tmp_path / "groups.csv"
    csv_file.write_text("большой,огромный,крупный\nдом,здание\n", encoding="utf-8")
    assert terms("ru", "огромное здание", synonyms=str(csv_file)) == ["большой", "дом"]
    mythes = tmp_path / "th_test.dat"
    mythes.write_text(
        "UTF-8\nдом|1\n(сущ.)|здание|строение\nбольшой|2\n(прил.)|огромный|крупный\n"
        "(прил.)|взрослый\n",
        encoding="utf-8",
    )
    assert terms("ru", "огромное строение взрослый", synonyms=str(mythes)) == [
        "большой",
        "дом",
        "большой",
    ]
    labelled = tmp_path / "th_labels.dat"
    labelled.write_text(
        "UTF-8\nдобрый|3\n(синоним)|хороший\n(антоним)|злой\n(связанный термин)|доброта\n",
        encoding="utf-8",
    )
    assert terms("ru", "хороший злой", synonyms=str(labelled)) == ["добрый", "злой"]
    koi = tmp_path / "th_koi.dat"
    koi.write_bytes("KOI8-R\nдом|1\n(сущ.)|здание\n".encode("koi8-r"))
    assert terms("ru", "здание", synonyms=str(koi)) == ["дом"]


def test_spans_point_at_the_original_words() -> None:
    text = "  Ёлка\u00a0стоит… у «Дома» ﬁ\tконец "
    canonical = Analyzer(preset("ru")).canonical(text)
    originals = [text[a:b] for a, b in zip(canonical.starts.tolist(), canonical.ends.tolist())]
    assert originals == ["Ёлка", "стоит", "Дома", "ﬁ", "конец"]


@settings(max_examples=150, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("абвгдеёжАБВЁabcXYZ019 -.,\u00a0…ﬁİ\u0301<>&;")), max_size=80
    )
)
def test_plain_spans_hold_the_token_text(text: str) -> None:
    # without ``fold``, whose tokens are the look-alikes' letters (tests/analysis/test_evasion.py)
    canonical = Analyzer(preset("plain", html="never", fold_tricks=False)).canonical(text)
    for term, a, b in zip(canonical.terms, canonical.starts.tolist(), canonical.ends.tolist()):
        assert 0 <= a < b <= len(text)
        assert unicodedata.normalize("NFKC", text[a:b]).lower() == term


def test_empty_texts_have_no_shingles() -> None:
    pipeline = Pipeline(make_spec("ru"))
    for text in ("", "   ", "…!?"):
        assert len(pipeline.fingerprints(text)) == 0
        assert pipeline.compare(text, "какой-то обычный текст").resemblance == 0.0


def test_stop_word_only_texts_keep_their_words() -> None:
    pipeline = Pipeline(make_spec("ru"))
    assert pipeline.canonical("и в на он она").terms == ["и", "в", "на", "он", "она"]
    assert len(pipeline.fingerprints("и в на он она")) == 1
    # under the spec of the time before (the long list, no rule), they have none
    legacy = Pipeline(make_spec("ru", stop_list="stop-words"))
    assert legacy.canonical("и в на он она").terms == []
    assert len(legacy.fingerprints("и в на он она")) == 0


def test_short_text_forms_one_shingle() -> None:
    pipeline = Pipeline(make_spec("plain", k=5))
    assert len(pipeline.shingles("два слова")) == 1
    assert pipeline.compare("два слова", "два слова").resemblance == 1.0


def test_steps_and_char_shingles() -> None:
    text = "один два три четыре пять шесть семь"
    assert len(Pipeline(make_spec("plain", k=3, step=1)).shingles(text)) == 5
    assert len(Pipeline(make_spec("plain", k=3, step=3)).shingles(text)) == 2
    chars = Pipeline(make_spec("plain", unit="char", k=4)).shingles("Ёж  ест!")
    assert len(chars) == len("ёж ест") - 4 + 1
    assert [("Ёж  ест!")[a:b] for a, b in zip(chars.starts, chars.ends)] == [
        "Ёж  ест",
        "Ёж  ест",
        "ест",
    ]


def test_unknown_components_are_refused() -> None:
    bad = AnalyzerSpec("x", (("*", ChainSpec(token_filters=(Component.of("nope"),))),))
    with pytest.raises(ConfigurationError, match="unknown token filter 'nope'"):
        Analyzer(bad)
    bad = AnalyzerSpec("x", (("*", ChainSpec(token_filters=(Component.of("lemma", x=1),))),))
    with pytest.raises(ConfigurationError, match="takes no parameter x"):
        Analyzer(bad)
    with pytest.raises(ConfigurationError, match="unknown preset"):
        preset("fr")


def test_words_pymorphy_cannot_parse_are_kept_as_they_are() -> None:
    # pymorphy3 raises on characters without a Unicode name (Tangut); the word stays itself
    assert terms("ru", "слово \U00017000\U00017001 тексты") == [
        "слово",
        "\U00017000\U00017001",
        "текст",
    ]

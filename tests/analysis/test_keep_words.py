"""Lemmas without dropping words: --keep-stop-words and --keep-function-words (issue #16)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from neardup import Pipeline, make_spec
from neardup.cli.main import cli
from neardup.errors import ConfigurationError

TEXT = "Мы пошли в лес, и он не вернулся из него."


def _terms(text: str, **options: Any) -> list[str]:
    return Pipeline(make_spec("ru", **options)).canonical(text).terms


def _filters(preset: str, language: str = "*", **options: Any) -> list[dict[str, Any]]:
    chain = make_spec(preset, **options).analyzer.chain(language)
    return [c.to_dict() for c in chain.token_filters]


def test_default_ru_chain() -> None:
    assert _filters("ru") == [
        {"name": "stop", "language": "ru", "list": "function-1", "words": []},
        {"name": "pos", "drop": ["PREP", "CONJ", "PRCL", "INTJ", "NPRO"]},
        {"name": "lemma"},
    ]
    # the chain of the time before the named lists, exactly
    assert _filters("ru", stop_list="stop-words") == [
        {"name": "stop", "language": "ru", "words": []},
        {"name": "pos", "drop": ["PREP", "CONJ", "PRCL", "INTJ", "NPRO"]},
        {"name": "lemma"},
    ]
    assert make_spec("ru", keep_stop_words=False, keep_function_words=False) == make_spec("ru")
    # the spec before the fold filter (issue 24), and the spec with it
    assert make_spec("plain", k=3, html="never", fold_tricks=False).fingerprint() == (
        "5d106f85b595378b"
    )
    assert make_spec("plain", k=3, html="never").fingerprint() == "98985e9a94cc605b"


def test_each_filter_switches_alone() -> None:
    text = "Кстати, ах, увы, был сосед."
    assert _terms(text) == ["сосед"]
    # "был" (the copula) is a stop word, not a function part of speech; the interjections are
    assert _terms(text, keep_stop_words=True) == ["быть", "сосед"]
    assert _terms(text, keep_function_words=True) == ["кстати", "ах", "увы", "сосед"]
    assert _terms(text, keep_stop_words=True, keep_function_words=True) == [
        "кстати", "ах", "увы", "быть", "сосед",
    ]  # fmt: skip
    # "мы", "в", "и", "он", "из" are stop words AND function words: either filter drops them;
    # "не" is a particle (dropped by part of speech) but not a stop word (negation stays)
    assert _terms(TEXT) == ["послать", "лес", "вернуться"]
    assert _terms(TEXT, keep_stop_words=True) == ["послать", "лес", "вернуться"]
    assert _terms(TEXT, keep_function_words=True) == ["послать", "лес", "не", "вернуться"]
    assert _terms(TEXT, keep_stop_words=True, keep_function_words=True) == [
        "мы", "послать", "в", "лес", "и", "он", "не", "вернуться", "из", "он",
    ]  # fmt: skip


def test_chains_and_fingerprints() -> None:
    assert _filters("ru", keep_stop_words=True) == [
        {"name": "pos", "drop": ["PREP", "CONJ", "PRCL", "INTJ", "NPRO"]},
        {"name": "lemma"},
    ]
    assert _filters("ru", keep_function_words=True) == [
        {"name": "stop", "language": "ru", "list": "function-1", "words": []},
        {"name": "lemma"},
    ]
    # extra stop words are still dropped; adjectives still go with --adjectives
    assert _filters(
        "ru", keep_stop_words=True, keep_function_words=True, stop_words=("лес",), adjectives=True
    ) == [
        {"name": "stop", "language": "ru", "words": ["лес"], "builtin": False},
        {"name": "pos", "drop": ["ADJF", "ADJS"]},
        {"name": "lemma"},
    ]
    assert _filters("en", keep_stop_words=True) == [{"name": "stem", "language": "en"}]
    assert _filters("auto", "en", keep_stop_words=True) == [{"name": "stem", "language": "en"}]
    prints = {
        make_spec("ru").fingerprint(),
        make_spec("ru", keep_stop_words=True).fingerprint(),
        make_spec("ru", keep_function_words=True).fingerprint(),
        make_spec("ru", keep_stop_words=True, keep_function_words=True).fingerprint(),
    }
    assert len(prints) == 4


def test_english_keeps_its_stop_words() -> None:
    text = "We went to the woods"
    assert Pipeline(make_spec("en")).canonical(text).terms == ["went", "wood"]
    kept = Pipeline(make_spec("en", keep_stop_words=True)).canonical(text).terms
    assert kept == ["we", "went", "to", "the", "wood"]


def test_refuses_a_non_boolean() -> None:
    with pytest.raises(ConfigurationError, match="keep_stop_words"):
        make_spec("ru", keep_stop_words="yes")


def test_cli_flags_reach_the_spec(tmp_path: Any) -> None:
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text(TEXT, encoding="utf-8")
    b.write_text("Мы пошли в лес, и она не вернулась из него.", encoding="utf-8")
    runner = CliRunner()
    ru = ["-p", "ru", "--short-below", "0"]  # the ru chain alone, k=1 for every length
    base = json.loads(
        runner.invoke(cli, ["compare", str(a), str(b), "-k", "1", "--json", *ru]).output
    )
    both = runner.invoke(
        cli,
        ["compare", str(a), str(b), "-k", "1", "--json", *ru, "--keep-stop-words",
         "--keep-function-words"],
    )  # fmt: skip
    assert both.exit_code == 0, both.output
    kept = json.loads(both.output)
    assert base["spec_fingerprint"] == make_spec("ru", k=1).fingerprint()
    assert kept["spec_fingerprint"] == (
        make_spec("ru", k=1, keep_stop_words=True, keep_function_words=True).fingerprint()
    )
    assert kept["spec"]["analyzer"]["chains"]["*"]["token_filters"] == [{"name": "lemma"}]
    # ru drops "он"/"она" as pronouns: identical; kept, they differ
    assert base["resemblance"] == 1.0
    # A: 9 distinct lemmas ("он" twice); B adds "она": 9 shared of 10
    assert kept["resemblance"] == pytest.approx(9 / 10)

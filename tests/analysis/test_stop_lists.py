"""The function-word stop lists (``function-1``) and a text that keeps its words when its
chain would drop them all (``keep_if_all_dropped``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from neardup import Pipeline, make_spec
from neardup.analysis import chunked, stop_lists
from neardup.analysis.analyzer import Analyzer
from neardup.analysis.resources import canonical_word, stop_words
from neardup.errors import ConfigurationError, SpecError
from neardup.fingerprints.batch import BatchShingler
from neardup.fingerprints.pipeline import default_spec
from neardup.sketch.minhash import MinHasher
from neardup.spec import AnalyzerSpec, ChainSpec, SketchSpec, Spec

NEWS_EN = "I don't know whether that means two years or four years."
NEWS_RU = "Он сказал, что это было в 2010 году"
ONLY_STOP_EN = "As it is, and so it was."
ONLY_STOP_RU = "И он, и она, и они."


def _terms(text: str, spec: Spec | None = None) -> list[str]:
    return Analyzer((spec or default_spec()).analyzer).canonical(text).terms


def test_a_news_sentence_keeps_its_content_words() -> None:
    assert _terms(NEWS_EN) == ["don't", "know", "mean", "two", "year", "four", "year"]
    assert _terms(NEWS_RU) == ["сказать", "2010", "год"]
    # the ``stop-words`` package's list (the spec before) left the first with nothing
    legacy = make_spec("auto", stop_list="stop-words")
    assert _terms(NEWS_EN, legacy) == []
    assert _terms(NEWS_RU, legacy) == ["2010"]


def test_the_lists_hold_function_words_only() -> None:
    content = {
        "en": "one two three four ten hundred thousand million billion first second half "
        "percent said say says new year years state states many much more most few all some "
        "time people man day not no never nor neither don't isn't",
        "ru": "один одна два две три четыре десять сто тысяча миллион первый второй половина "
        "процент сказал сказать говорит новый год года году лет время человек люди день "
        "государство много больше все весь не ни нет никогда",
    }
    for language, words in content.items():
        listed = stop_words(language, "function-1")
        assert not listed & set(words.split()), language
        assert not any(re.search(r"\d", w) for w in listed)
        assert all(w == canonical_word(w) for w in listed)
    en, ru = stop_words("en", "function-1"), stop_words("ru", "function-1")
    assert {"the", "a", "of", "and", "is", "was", "he", "they", "it's", "it\u2019s"} <= en
    assert {"и", "в", "на", "что", "он", "его", "было", "будет", "этот", "которые"} <= ru
    # short lists, not the long general-purpose ones
    assert len(en) < 300 and len(ru) < 300
    assert len(stop_words("en")) > 1000


@pytest.mark.parametrize(
    "text,expected",
    [
        (ONLY_STOP_EN, ["as", "it", "is", "and", "so", "it", "was"]),
        (ONLY_STOP_RU, ["и", "он", "и", "она", "и", "они"]),
        ("Он и она", ["он", "и", "она"]),
    ],
)
def test_a_text_of_stop_words_only_keeps_them(text: str, expected: list[str]) -> None:
    spec = default_spec()
    assert _terms(text, spec) == expected
    assert Analyzer(spec.analyzer, compile_filters=False).canonical(text).terms == expected
    # the words keep their spans in the source
    got = Analyzer(spec.analyzer).canonical(text)
    assert [text[a:b].lower() for a, b in zip(got.starts, got.ends)] == [
        w.lower() for w in re.findall(r"\w+", text)
    ]
    # under the old spec: nothing
    assert _terms(text, make_spec("auto", stop_list="stop-words")) == []


def test_texts_with_no_words_stay_empty() -> None:
    for text in ("", "  \n", "…!? — ,"):
        assert _terms(text) == []


def test_the_rule_is_the_whole_texts() -> None:
    # one content word anywhere: only the stop words go
    assert _terms("as it is, and so it was: rain") == ["rain"]
    # a long text cut into pieces decides on the whole, not piece by piece
    analyzer = Analyzer(default_spec().analyzer)
    pieces_stop = "and so it is. " * 40
    with_word = pieces_stop + "rain " + pieces_stop
    whole = chunked.canonical(analyzer, with_word, size=100)
    assert whole is not None and whole.terms == ["rain"]
    only = chunked.canonical(analyzer, pieces_stop * 2, size=100)
    assert only is not None
    assert only.terms == ["and", "so", "it", "is"] * 80
    assert only.terms == analyzer.canonical(pieces_stop * 2).terms


def test_batch_paths_give_the_per_document_result() -> None:
    texts = [
        ONLY_STOP_EN,
        "a long text about rain and snow in the mountains of the north, " * 3,
        ONLY_STOP_RU,
        NEWS_RU,
        NEWS_EN,
        "",
        "and the",
    ]
    spec = default_spec().replace(shingles=default_spec().shingles.fixed())
    pipeline = Pipeline(spec)
    shingler = BatchShingler.of(pipeline)
    assert shingler is not None
    batch = shingler.shingle(texts)
    for d, text in enumerate(texts):
        mine = batch[d]
        if mine is not None:
            assert mine.tokens == len(pipeline.canonical(text))
            assert np.array_equal(np.unique(mine.hashes), pipeline.fingerprints(text).values)
    assert batch[0] is None and batch[2] is None  # left to the per-document path
    signing = spec.replace(sketch=SketchSpec(num_perm=16))
    hasher = MinHasher(signing)
    assert hasher.signs_in_batches
    signed = hasher.sign_texts(texts)
    each = hasher.pipeline
    for d, text in enumerate(texts):
        assert np.array_equal(signed[d], hasher.sign(each.fingerprints(text))), d
    # a text of stop words only has shingles, so not the signature of an empty set
    assert not np.array_equal(signed[0], hasher.sign(each.fingerprints("")))


def test_an_old_spec_reads_back_with_its_old_list() -> None:
    old = make_spec("auto", stop_list="stop-words")
    data = json.loads(old.to_json())
    chains = data["analyzer"]["chains"]
    # the JSON of the time before: no list named, no rule
    assert chains["en"]["token_filters"][0] == {"language": "en", "name": "stop", "words": []}
    assert "keep_if_all_dropped" not in chains["en"] and "keep_if_all_dropped" not in chains["ru"]
    back = Spec.from_json(json.dumps(data))
    assert back == old and back.fingerprint() == old.fingerprint()
    assert _terms(NEWS_EN, back) == []
    assert _terms("said the state", back) == []
    # the new default names its list and its rule, so its fingerprint differs
    new = default_spec()
    assert (
        new.fingerprint() != make_spec("auto", stop_list="stop-words", short_below=32).fingerprint()
    )
    new_chains = json.loads(new.to_json())["analyzer"]["chains"]
    assert new_chains["en"]["keep_if_all_dropped"] is True
    assert new_chains["ru"]["token_filters"][0]["list"] == "function-1"
    assert Spec.from_json(new.to_json()) == new
    assert _terms("said the state", Spec.from_json(new.to_json())) == ["said", "state"]


def test_the_rule_and_the_list_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="stop_list"):
        make_spec("en", stop_list="function-9")
    chain = json.loads(default_spec().to_json())["analyzer"]["chains"]["en"]
    chain["token_filters"][0]["list"] = "function-9"
    with pytest.raises(ConfigurationError, match="unknown stop list 'function-9'"):
        Analyzer(AnalyzerSpec("en", (("*", ChainSpec.from_dict(chain)),)))
    chain["keep_if_all_dropped"] = "yes"
    with pytest.raises(SpecError, match="keep_if_all_dropped"):
        ChainSpec.from_dict(chain)
    assert stop_lists.DEFAULT_LIST in stop_lists.LISTS


def test_presets_without_dropping_filters_have_no_rule() -> None:
    # keeping every word leaves nothing to drop: the chain (and fingerprint) has no rule
    spec = make_spec("ru", keep_stop_words=True, keep_function_words=True)
    assert not spec.analyzer.chain("*").keep_if_all_dropped
    assert not make_spec("plain").analyzer.chain("*").keep_if_all_dropped
    # plain with extra stop words drops words: it has the rule
    plain = make_spec("plain", stop_words=["foo"])
    assert plain.analyzer.chain("*").keep_if_all_dropped
    assert Pipeline(plain).canonical("foo foo").terms == ["foo", "foo"]
    assert Pipeline(plain).canonical("foo bar").terms == ["bar"]


def test_a_collection_made_under_the_old_lists_keeps_them(tmp_path: Path) -> None:
    from neardup.errors import SpecMismatchError
    from neardup.index import Collection

    old = make_spec("auto", stop_list="stop-words", short_below=32)
    db = str(tmp_path / "old.db")
    with Collection.create(db, old) as col:
        col.add("news", "The state said the new budget grew by two million this year.")
    with Collection.open(db) as col:
        assert col.spec == old and col.spec.fingerprint() == old.fingerprint()
        short = col.analyze(NEWS_EN).short
        assert short is not None and short.tokens == 0  # the long list drops every word
    with pytest.raises(SpecMismatchError):
        Collection.open(db, spec=default_spec())

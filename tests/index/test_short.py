"""The length-adaptive rule in the collection (neardup.index.short), beyond the conformance
suite (tests/storage/test_conformance.py runs the same rule on every backend)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import neardup
from neardup.errors import ConfigurationError, SpecMismatchError
from neardup.fingerprints.pipeline import Pipeline, default_spec
from neardup.fingerprints.shingles import word_shingle_starts
from neardup.index import Collection, IndexSpec, describe_spec
from neardup.index.short import CACHED_FORMS, TAG, ShortRule, fewest_tokens
from neardup.spec import ShingleSpec
from neardup.storage.memory import MemoryStorage
from tests import _textgen as tg
from tests.storage.test_conformance import SHORT_RU, SHORT_RU_EDITED


@pytest.mark.parametrize(
    ("shingles", "size", "expected"),
    [
        (ShingleSpec(), 0, 0),
        (ShingleSpec(), 1, 0),  # one shingle: a text of 1 to 5 tokens (or a repeated one)
        (ShingleSpec(), 2, 6),
        (ShingleSpec(), 28, 32),
        (ShingleSpec(k=5, step=5), 3, 15),
        (ShingleSpec(unit="char", k=4), 500, 0),  # char n-grams bound no word count
    ],
)
def test_fewest_tokens(shingles: ShingleSpec, size: int, expected: int) -> None:
    assert fewest_tokens(shingles, size) == expected


def test_fewest_tokens_is_a_lower_bound() -> None:
    sizes = np.arange(0, 80, dtype=np.int64)
    for shingles in (ShingleSpec(), ShingleSpec(k=3, step=2), ShingleSpec(k=1)):
        adaptive = replace(shingles, short_below=32)
        rule = ShortRule(Pipeline(default_spec().replace(shingles=adaptive)), 8)
        # the array form the collection applies is the same bound
        expected = [fewest_tokens(shingles, int(n)) < 32 for n in sizes]
        assert rule.may_be_short(sizes).tolist() == expected
        assert 0 < sum(expected) < len(expected)
        for tokens in range(0, 60):
            positions = word_shingle_starts(tokens, shingles.k, shingles.step).shape[0]
            assert fewest_tokens(shingles, positions) <= tokens
            # and it is tight whenever the text is longer than one shingle
            if tokens > shingles.k and (tokens - shingles.k) % shingles.step == 0:
                assert fewest_tokens(shingles, positions) == tokens


def test_a_short_text_is_scored_on_its_words_and_counted_on_its_passages() -> None:
    with Collection.create("memory:", default_spec(), IndexSpec(policy="allow")) as col:
        col.add("ru", SHORT_RU)
        result = col.check(SHORT_RU_EDITED)
        # 9 lemmas ("поэтому" is a function word), 7 of them in the stored sentence's 9
        assert result.shingles == 9
        assert [m.shingles for m in result.matches] == [9]
        # counted on its passages, as compare counts it: the sentence is a rewrite of the
        # stored one, all of its 9 words
        compared = neardup.compare(SHORT_RU_EDITED, SHORT_RU, fragments=True)
        assert compared.alignment is not None
        assert (result.uniqueness, result.basis) == (compared.alignment.uniqueness, "passages")
        assert result.uniqueness == 0.0
        assert result.to_dict()["by_kind"] == {"copied": 0, "rewritten": 9, "cited": 0}
        assert describe_spec(col.spec) == (
            "preset auto, word shingles k=5 step=1 (word 1-grams for pairs below 32 tokens), "
            "rabin 64 bit"
        )
        col.remove("ru")
        assert col.check(SHORT_RU_EDITED).matches == ()


def test_without_the_rule_a_short_pair_stays_on_5_shingles() -> None:
    """What every collection did before the rule, and what one stored then still does."""
    spec = default_spec()
    before = IndexSpec(policy="allow", sentence_bands=0)
    with Collection.create("memory:", spec.fixed(), before) as col:
        col.add("ru", SHORT_RU)
        # the two sentences share no 5-shingle: nothing found, nothing to score
        assert col.check(SHORT_RU_EDITED).matches == ()
    with Collection.create("memory:", spec.fixed(), IndexSpec(policy="allow")) as col:
        col.add("ru", SHORT_RU)
        # with sentence keys the edited sentence meets its source and the second stage marks
        # it; the pair is still measured on 5-shingles (none shared)
        (match,) = col.check(SHORT_RU_EDITED).matches
        assert match.id == "ru" and match.shared == 0 and match.resemblance == 0.0
        assert Pipeline(spec.fixed()).compare(SHORT_RU_EDITED, SHORT_RU).shared == 0
        assert neardup.compare(SHORT_RU_EDITED, SHORT_RU).resemblance == 7 / 11


def test_an_old_collection_opens_as_it_was_and_refuses_the_rule() -> None:
    storage = MemoryStorage()
    Collection.create(storage, default_spec().fixed())  # how it was stored before the rule
    with Collection.open(storage) as col:
        assert col.short is None and not col.spec.shingles.adaptive
    with pytest.raises(SpecMismatchError, match="built under spec"):
        Collection.open(storage, spec=default_spec())


def test_a_collection_without_texts_drops_the_rule_and_says_so() -> None:
    spec = default_spec()
    with Collection.create("memory:", spec, IndexSpec(store_text=False)) as col:
        assert col.spec.shingles == spec.shingles.fixed()
        assert "1-grams" not in describe_spec(col.spec)
    with pytest.raises(ConfigurationError, match="keeps its texts"):
        Collection(MemoryStorage(), spec, IndexSpec(store_text=False))


def test_an_analysis_without_the_short_form_is_refused() -> None:
    with Collection.create("memory:", default_spec().fixed()) as plain:
        analyzed = plain.analyze(SHORT_RU)
    with Collection.create("memory:", default_spec()) as col:
        with pytest.raises(ConfigurationError, match="short form"):
            col.check(analyzed)


def test_what_short_and_long_texts_post_and_look_up() -> None:
    words_only = IndexSpec(short_window=8, sentence_bands=0)  # the sentence keys: below
    with Collection.create("memory:", default_spec(), words_only) as col:
        short = col.analyze(SHORT_RU)
        assert short.short is not None and short.short.tokens == 9
        words = short.short.fingerprints.values
        winnowed = np.intersect1d(short.samples, short.values)
        # posts its words tagged; looks them up tagged (short texts) and as they are (long)
        assert np.array_equal(short.samples, np.union1d(winnowed, words ^ TAG))
        assert np.array_equal(short.lookups, np.union1d(short.samples, words))
        long = col.analyze(tg.text(300, 5))
        # the generated words are content words: en drops none of the 300
        assert long.short is not None and long.short.tokens == 300
        minima = np.setdiff1d(long.samples, long.values)
        assert minima.shape[0] > 0 and np.all(np.isin(minima, long.short.fingerprints.values))
        winnowed = np.intersect1d(long.samples, long.values)
        # posts its word minima; looks them up tagged only: it meets short texts, never long
        assert np.array_equal(long.lookups, np.union1d(winnowed, minima ^ TAG))
        assert not np.any(np.isin(long.lookups, long.samples[np.isin(long.samples, minima)]))
    with Collection.create(
        "memory:", default_spec(), IndexSpec(short_window=0, sentence_bands=0)
    ) as off:
        long = off.analyze(tg.text(300, 5))
        assert np.array_equal(long.samples, long.lookups)
        assert np.all(np.isin(long.samples, long.values))
    with Collection.create("memory:", default_spec(), IndexSpec(short_window=8)) as keyed:
        # a long text also posts its sentence keys, which only the sentence source looks up;
        # a short one has none (its words find where it came from)
        long, plain = keyed.analyze(tg.text(300, 5)), col.analyze(tg.text(300, 5))
        assert long.sentence_keys is not None and long.sentence_keys.shape[1] == 12
        keys = long.sentence_keys.reshape(-1)
        assert np.array_equal(long.samples, np.union1d(plain.samples, keys))
        assert np.array_equal(long.lookups, plain.lookups)
        assert keyed.analyze(SHORT_RU).sentence_keys is None


def test_a_long_text_finds_the_sentence_it_holds() -> None:
    """A stored sentence is found by a long text it was taken into (edited): the text's word
    minima, tagged, meet the sentence's tagged words."""
    edited = "В Москве вчера прошёл сильный дождь, и на дорогах образовались огромные пробки."
    article = f"{tg.text(150, 71)} {edited} {tg.text(150, 72)}"
    spec = default_spec("ru")  # `auto` would take the mostly Latin article for English
    with Collection.create("memory:", spec, IndexSpec(policy="allow")) as col:
        col.add("sentence", SHORT_RU)
        (match,) = col.check(article).matches
        compared = neardup.compare(article, SHORT_RU, spec=spec)
        assert match.id == "sentence"
        assert match.containment_doc_in_query == compared.containment_ba == 1.0
        assert match.resemblance == compared.resemblance
    with Collection.create("memory:", spec, IndexSpec(short_window=0)) as off:
        off.add("sentence", SHORT_RU)
        assert off.check(article).matches == ()


def test_damaged_word_samples_are_found() -> None:
    storage = MemoryStorage()
    with Collection.create(storage, default_spec()) as col:
        col.add_many([("long", tg.text(300, 5)), ("ru", SHORT_RU)])
        assert col.verify_integrity() == []
        key = col.get("long").key
        doc = storage._state.docs[key]
        storage._state.docs[key] = replace(doc, samples=np.append(doc.samples, np.uint64(12345)))
        assert any("samples not among its fingerprints" in p for p in col.verify_integrity())


def test_short_forms_are_remembered_up_to_a_bound() -> None:
    assert CACHED_FORMS == 4096
    with Collection.create("memory:", default_spec(), IndexSpec(policy="allow")) as col:
        col.add_many([(str(i), f"{SHORT_RU} {i}") for i in range(3)])
        assert col.short is not None
        col.check(SHORT_RU_EDITED)
        assert len(col.short._cache) == 3


def test_multiset_short_pairs_score_as_compare() -> None:
    spec = default_spec(multiset=True)
    repeated = f"{SHORT_RU} Дождь, дождь и снова дождь."
    with Collection.create("memory:", spec, IndexSpec(policy="allow", threshold=0.3)) as col:
        first, second = col.add_many([("a", repeated), ("b", SHORT_RU_EDITED)])
        match = {m.id: m for m in col.check(SHORT_RU_EDITED).matches}["a"]
        compared = neardup.compare(SHORT_RU_EDITED, repeated, spec=spec)
        assert (match.resemblance, match.shared, match.shingles) == (
            compared.resemblance,
            compared.shared,
            compared.shingles_b,
        )
        # 9 lemmas, "дождь" thrice more and "снова" ("и" dropped)
        assert compared.shingles_b == 13
        # the in-batch pair was decided on the same numbers
        assert second.matches[0].resemblance == compared.resemblance

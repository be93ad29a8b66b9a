"""Token filters run by kernels give exactly what the filters give on lists of terms."""

from __future__ import annotations

import pickle
import random
import threading

import numpy as np
import pytest

from neardup.analysis import compiled, presets
from neardup.analysis.analyzer import Analyzer, Canonical
from neardup.analysis.compiled import CompiledFilters, static_plan
from tests._tokens import word_spans

_SYLLABLES = [c + v for c in "бвгдзклмнпрстх" for v in "аеиоуыя"]
_COMMON = (
    "в на и не что он она мы они я ты это этот тот такой мой свой весь все всё ещё уже "
    "был была были быть будет может кто-то что-нибудь по-русски из-за ну ой ах же ли бы "
    "стол стола столу столом книги книгу книгой читал читала читают прочитанный красивая "
    "красивую красивые Москва Москве Петров Петрова ёлка ёлки Ёжик ежика северо-западный "
    "COVID-19 3.14 2024 XIV don't news today iPhone"
)


def russian_text(seed: int, words: int) -> str:
    """A seeded draw of dictionary forms, common words, names, numbers and made-up words."""
    rng = random.Random(seed)
    forms = _dictionary_sample()
    common = _COMMON.split()
    out = []
    for _ in range(words):
        r = rng.random()
        if r < 0.45:
            word = rng.choice(forms)
        elif r < 0.8:
            word = rng.choice(common)
        elif r < 0.9:
            word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randrange(1, 5)))
        else:
            word = str(rng.randrange(0, 100_000))
        if rng.random() < 0.1:
            word = word.capitalize()
        out.append(word + rng.choice(["", "", "", ",", ".", " —"]))
    return " ".join(out)


_SAMPLE: list[str] = []


def _dictionary_sample() -> list[str]:
    """3,000 forms of the dictionary under a few prefixes (all of it takes seconds to list)."""
    if not _SAMPLE:
        from neardup.analysis import resources

        words = resources.morph().analyzer.dictionary.words
        forms = sorted(
            {
                w.replace("ё", "е")
                for p in ("пере", "со", "вы", "кр", "нов", "ё")
                for w in words.keys(p)
            }
        )
        _SAMPLE.extend(random.Random(5).sample(forms, 3000))
    return _SAMPLE


def same(a: Canonical, b: Canonical) -> None:
    assert a.terms == b.terms
    assert a.buf.tobytes() == b.buf.tobytes()
    assert a.byte_starts.tolist() == b.byte_starts.tolist()
    assert a.byte_ends.tolist() == b.byte_ends.tolist()
    assert a.starts.tolist() == b.starts.tolist()
    assert a.ends.tolist() == b.ends.tolist()
    assert a.language == b.language


OPTIONS = [
    ("ru", {}),
    ("ru", {"adjectives": True}),
    ("ru", {"keep_stop_words": True}),
    ("ru", {"keep_function_words": True}),
    ("ru", {"stem": True}),
    ("ru", {"stop_words": ("стол", "Ёлка"), "numbers": False}),
    ("en", {}),
    ("auto", {}),
]


@pytest.mark.parametrize(("name", "options"), OPTIONS)
def test_compiled_filters_give_the_filters_output(name: str, options: dict[str, object]) -> None:
    spec = presets.preset(name, **options)  # type: ignore[arg-type]
    fast, reference = Analyzer(spec), Analyzer(spec, compile_filters=False)
    texts = [russian_text(seed, 300) for seed in range(12)] + [
        "",
        "   ",
        "The quick brown foxes were jumping over lazy dogs",
        "<p>Он <b>прочитал</b> книгу</p>",
        "мо́локо ΣΟΦΙΑ straße",
    ]
    for _ in range(2):  # the second pass finds the unknown forms learned in the first
        for text in texts:
            same(fast.canonical(text), reference.canonical(text))


def test_ru_preset_uses_the_dictionary_table_and_learns_the_rest() -> None:
    spec = presets.preset("ru")
    chain = Analyzer(spec)._chains["*"]
    assert chain.compiled is not None and static_plan(chain.spec)
    filters = chain.compiled
    assert filters.learned().count == 0
    filters.apply(*_tokens("читали зубарикове зубарикове 2024 iphone"))
    # known forms come from the table; the unknown one was resolved once, and "2024" and
    # "iphone" (ASCII letters and digits) are their own terms by the kernel's rule
    assert filters.learned().count == 1
    assert filters.learned().offsets[:2].tolist() == [0, 18]
    got = Analyzer(spec).canonical("Мы читали красивые книги о Зубарикове в 2024 году")
    # "мы", "о", "в" are function words; "году" is a content word
    assert got.terms == ["читать", "красивый", "книга", "зубариков", "2024", "год"]
    assert not static_plan(presets.preset("ru", stem=True).chains[0][1])
    assert not static_plan(presets.preset("en").chains[0][1])


def test_analyzers_of_one_chain_share_its_decisions_over_the_table() -> None:
    first = Analyzer(presets.preset("ru"))._chains["*"].compiled
    second = Analyzer(presets.preset("ru"))._chains["*"].compiled
    other = Analyzer(presets.preset("ru", stop_words=("кот",)))._chains["*"].compiled
    assert first is not None and second is not None and other is not None
    assert first is not second and first.static() is second.static()
    assert other.static() is not first.static()
    assert other.static().records is first.static().records  # one dictionary table


def _tokens(text: str) -> tuple[np.ndarray, ...]:
    buf, s, e = word_spans(text.split(" "))
    return buf, s, e, s, e


def test_learned_forms_are_shared_by_threads_and_dropped_when_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = presets.preset("en")
    filters = Analyzer(spec)._chains["*"].compiled
    assert filters is not None
    buf, bs, be, s, e = _tokens("the running dogs barked")
    out = filters.apply(buf, bs, be, s, e)
    assert out[0].tobytes() == b"run dog bark"
    assert out[3].tolist() == [4, 12, 17] and filters.learned().count == 4
    seen: list[int] = []
    thread = threading.Thread(target=lambda: seen.append(filters.learned().count))
    thread.start()
    thread.join()
    assert seen == [4]  # one table for every thread
    monkeypatch.setattr(compiled, "MAX_LEARNED", 5)
    # 4 + 2 new > 5: the table starts over with the two, and "the", which it lost, is learned
    # again into a private table for this text (which never starts over, so the text ends)
    out = filters.apply(*_tokens("cats the jumped"))
    assert out[0].tobytes() == b"cat jump" and filters.learned().count == 2
    assert filters.table_for_round(filters.learned(), 1) is filters.learned()
    private = filters.table_for_round(filters.learned(), 2)
    assert private is not filters.learned() and not private.capped


def test_compiled_filters_pickle_without_their_tables() -> None:
    spec = presets.preset("ru")
    filters = Analyzer(spec)._chains["*"].compiled
    assert isinstance(filters, CompiledFilters)
    filters.apply(*_tokens("зубарикове"))
    copy = pickle.loads(pickle.dumps(filters))
    assert copy.learned().count == 0
    assert copy.apply(*_tokens("столы зубарикове"))[0].tobytes() == "стол зубариков".encode()

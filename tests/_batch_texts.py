"""Texts for the tests of the batch analysis path (``neardup.fingerprints.batch`` and
``Collection.analyze_many``): seeded Russian and English word draws, near-duplicates of them,
and hand-written edge cases, each with whether the batch kernel should take it.

The word lists are written here for the tests (common words and invented ones); nothing is
copied from a corpus.
"""

from __future__ import annotations

import random

from tests import _textgen as tg

#: Russian words in several forms: nouns, verbs, adjectives, function words the ``ru`` chain
#: drops, ё, hyphens and numbers.
RU_WORDS = [
    "город",
    "города",
    "городе",
    "погода",
    "погоду",
    "дождь",
    "дожди",
    "читали",
    "читает",
    "книга",
    "книги",
    "книгу",
    "красивые",
    "красивая",
    "новый",
    "новое",
    "река",
    "реки",
    "мост",
    "мосты",
    "строили",
    "строит",
    "зелёная",
    "Ёлка",
    "ёжик",
    "всё",
    "ещё",
    "северо-западный",
    "кто-то",
    "2024",
    "3,14",
    "году",
    "в",
    "и",
    "на",
    "но",
    "он",
    "они",
    "что",
    "быстро",
    "сказал",
    "вечером",
    "школа",
    "учитель",
    "ученики",
    "Москва",
    "Петербурга",
]

#: Forms no dictionary holds (invented): the compiled filters learn them between two kernel
#: calls of a batch.
INVENTED_RU = ["бармаглотовы", "хливкие", "шорьки", "пырялись", "нарвале", "зелюки", "мюмзики"]

#: English words: stems, stop words, hyphens, numbers.
EN_WORDS = [
    "the",
    "a",
    "of",
    "and",
    "river",
    "rivers",
    "bridge",
    "bridges",
    "building",
    "built",
    "reading",
    "readers",
    "quickly",
    "weather",
    "rainy",
    "teacher",
    "teaching",
    "school",
    "schools",
    "well-known",
    "state-of-the-art",
    "1.5",
    "2024",
    "Cats",
    "DOGS",
    "running",
    "runs",
    "happily",
]

#: Edge cases the batch kernel takes: ``(name, text)``.
TAKEN = [
    ("empty", ""),
    ("blank", "  \n\t  "),
    ("punctuation", "... — !!! ?"),
    ("one word", "город"),
    ("one english word", "bridges"),
    ("fewer than k", "новый мост"),
    ("exactly five nouns", "кошка собака корова лошадь овца"),
    ("exactly five english", "cats dogs cows horses sheep"),
    ("six nouns", "кошка собака корова лошадь овца коза"),
    ("stop words only", "и в на но он что"),
    ("yo", "Ёлка ёжик всё ещё зелёная, ЁЖ и Ёж"),
    ("hyphens", "северо-западный ветер кто-то well-known state-of-the-art -- a-"),
    ("numbers", "В 2024 году 3,14 и 1.5 №7 100500 раз, 12-й этаж"),
    ("ligatures", "ﬁnal ﬂow oﬃce ﬁle"),
    ("fullwidth and fractions", "ＡＢＣ ½ ２０２４ word"),
    ("mixed scripts", "Москва river мост bridge город school"),
    ("less-than, not html", "a < b and c > d but x <y is not a tag"),
    ("newlines", "первая строка\nвторая строка\r\nтретья\tстрока"),
    ("astral letters and emoji", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 буквы и 😀 между словами"),
    ("a NUL character", "текст\x00с нулём внутри"),
]

#: Edge cases it leaves to the per-document path under every preset: ``(name, text)``.
LEFT = [
    # late markup of one-letter elements: the fold filter's scan takes ``p x p p y p …`` for
    # possible letter spacing, so the whole text goes the per-document way (the same result)
    ("late markup", "слово " * 420 + "<html><body><p>x</p><p>y</p><p>z</p></body></html>"),
    ("html page", "<html><body><p>Текст страницы</p><p>ещё один абзац</p></body></html>"),
    ("html tags", "<div>три</div> <p>тега</p> <span>подряд</span> и текст"),
    ("dotted capital I", "İstanbul ve Ankara şehirleri"),
    ("capital sigma", "ΣΟΦΟΣ και λόγος"),
    ("combining accent", "мо́локо e\u0301te"),
    ("lone surrogate", "\ud800 одинокий суррогат в тексте"),
]

#: Bytes: always the per-document path (decoded there).
BYTES = ("bytes", "текст в байтах из нескольких слов".encode())


def russian(count: int, seed: int, *, most: int = 60, invented: bool = False) -> list[str]:
    """``count`` seeded draws of 0 to ``most`` words of :data:`RU_WORDS` (and
    :data:`INVENTED_RU`)."""
    rng = random.Random(seed)
    pool = RU_WORDS + (INVENTED_RU if invented else [])
    return [" ".join(rng.choice(pool) for _ in range(rng.randrange(0, most))) for _ in range(count)]


def english(count: int, seed: int, *, most: int = 60) -> list[str]:
    """``count`` seeded draws of :data:`EN_WORDS` and the synthetic vocabulary's words."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        n = rng.randrange(0, most)
        words = tg.words(n, seed * 1000 + i) if n else []
        out.append(" ".join(w if rng.random() < 0.6 else rng.choice(EN_WORDS) for w in words))
    return out


def with_near_duplicates(count: int, seed: int, *, russian_share: float = 0.5) -> list[str]:
    """``count`` texts, about a third of them edits (1–10 % of words changed) or exact copies
    of earlier ones, some under 32 words (the length-adaptive rule's short texts)."""
    rng = random.Random(seed)
    out: list[str] = []
    for i in range(count):
        if out and rng.random() < 0.35:
            source = rng.choice(out)
            rate = rng.choice([0.0, 0.01, 0.03, 0.1])
            out.append(tg.edit(source, rate, seed * 1000 + i) if rate else source)
            continue
        n = rng.choice([8, 20, 60, 120, 200])
        if rng.random() < russian_share:
            draw = random.Random(seed * 1000 + i)
            out.append(" ".join(draw.choice(RU_WORDS) for _ in range(n)))
        else:
            out.append(tg.text(n, seed * 1000 + i))
    return out

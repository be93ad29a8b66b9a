"""Texts for the alignment, report and matrix tests, made here (no corpus text is copied).

Words are Cyrillic syllable strings drawn with a seeded generator, so two texts share a word
sequence only where a test puts it; ``ESSAY`` is a short Russian text written for these tests.
"""

from __future__ import annotations

import numpy as np

_SYLLABLES = [c + v for c in "бвгдзклмнпрстх" for v in "аеиоу"]


def _vocabulary(size: int = 3000, seed: int = 11) -> list[str]:
    rng = np.random.default_rng(seed)
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < size:
        w = "".join(
            _SYLLABLES[int(i)] for i in rng.integers(0, len(_SYLLABLES), int(rng.integers(2, 5)))
        )
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


VOCAB = _vocabulary()


def words(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [VOCAB[int(i)] for i in rng.integers(0, len(VOCAB), n)]


def text(n: int, seed: int) -> str:
    return " ".join(words(n, seed))


ESSAY = (
    "Осенний лес встречает путника тишиной и запахом прелых листьев. Старые дубы стоят вдоль "
    "узкой тропы, а под ними растут крепкие белые грибы. Грибники приходят сюда рано утром, "
    "пока туман ещё лежит в низинах и роса блестит на траве. Опытный лесник рассказывает, что "
    "лучшие места знают только местные жители, которые десятилетиями собирают грибы в одних и "
    "тех же оврагах. Вечером над рекой поднимается холодный ветер, и птицы улетают на юг."
)
OTHER = (
    "Городская библиотека открыла новый читальный зал для студентов и школьников. Посетители "
    "могут заниматься там до позднего вечера, пользоваться компьютерами и заказывать редкие "
    "книги из хранилища. Директор библиотеки надеется, что зал станет любимым местом молодёжи."
)

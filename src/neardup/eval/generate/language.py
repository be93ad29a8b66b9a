"""Thesaurus and morphology: synonyms from MyThes or CSV, and a language's inflections."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from neardup.analysis.resources import mythes_meanings
from neardup.errors import ConfigurationError, InputError, require

_SKIP_RELATIONS = ("антоним", "antonym", "связанный", "related")


def _plain(word: str) -> str:
    return word.lower().replace("ё", "е").strip()


def load_synonyms(path: str | Path) -> dict[str, tuple[str, ...]]:
    """``word → synonyms`` (single words, lowercase) from a MyThes ``.dat`` or a ``.csv``."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read thesaurus {path}: {exc.strerror or exc}") from None
    return parse_synonyms(
        raw, fmt="csv" if p.name.lower().endswith(".csv") else "mythes", name=str(path)
    )


def parse_synonyms(
    raw: bytes | str, *, fmt: str, name: str = "thesaurus"
) -> dict[str, tuple[str, ...]]:
    """Synonyms from the content of a MyThes file (``fmt="mythes"``) or a CSV of groups.

    MyThes: a first line naming the encoding, then ``word|n`` and ``n`` lines
    ``(label)|syn|syn…``; lines labelled as antonyms or related terms are skipped, and so are
    items marked ``(antonym)``; annotations in parentheses are dropped. CSV: every word of a
    row is a synonym of the others. Multi-word items are skipped (the edits swap one word).
    """
    if fmt == "csv":
        entries = _csv_synonyms(raw)
    elif fmt == "mythes":
        entries = _mythes_synonyms(raw, name)
    else:
        raise ConfigurationError(f"thesaurus format must be csv or mythes, got {fmt!r}")
    table: dict[str, list[str]] = {}
    for head, items in entries:
        _add_synonyms(table, head, items)
    return {k: tuple(v) for k, v in table.items() if v}


def _add_synonyms(table: dict[str, list[str]], head: str, items: Iterable[str]) -> None:
    head = _plain(head)
    if not head or " " in head:
        return
    bucket = table.setdefault(head, [])
    for item in items:
        word = _plain(re.sub(r"\(.*?\)", "", item))
        if word and " " not in word and word != head and word not in bucket:
            bucket.append(word)


def _csv_synonyms(raw: bytes | str) -> Iterator[tuple[str, list[str]]]:
    """``(head, items)`` for every word of every row of a CSV of synonym groups."""
    import csv
    import io

    text = raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw.lstrip("\ufeff")
    for row in csv.reader(io.StringIO(text)):
        words = [w for w in row if w.strip()]
        if not words or words[0].startswith("#"):
            continue
        for w in words:
            yield w, words


def _mythes_synonyms(raw: bytes | str, name: str) -> Iterator[tuple[str, list[str]]]:
    """``(head, items)`` for every meaning line of a MyThes file (relations, antonyms skipped)."""
    data = raw if isinstance(raw, bytes) else raw.encode("utf-8")
    for head, label, items in mythes_meanings(data, name):
        if any(s in label.lower() for s in _SKIP_RELATIONS):
            continue
        yield head, [t for t in items if "antonym" not in t and "антоним" not in t]


def _match_case(original: str, new: str) -> str:
    if len(original) > 1 and original.isupper():
        return new.upper()
    if original[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


_RU_CONTENT = frozenset({"NOUN", "ADJF", "ADJS", "VERB", "INFN", "ADVB"})
_RU_INFLECT = frozenset({"NOUN", "ADJF", "VERB"})
_RU_LEMMA_POS = {
    "VERB": "INFN",
    "INFN": "INFN",
    "ADJS": "ADJF",
    "ADJF": "ADJF",
    "NOUN": "NOUN",
    "ADVB": "ADVB",
}


class Language:
    """Inflection and synonym lookup for one language (``ru`` with pymorphy3, ``en`` by rule)."""

    def __init__(self, lang: str, synonyms: Mapping[str, tuple[str, ...]] | None = None) -> None:
        if lang not in ("ru", "en"):
            raise ConfigurationError(f"language must be ru or en, got {lang!r}")
        self.lang = lang
        self.synonyms = synonyms
        self._parses: dict[str, Any] = {}
        self._morph: Any = None
        if lang == "ru":
            pymorphy3: Any = require("pymorphy3", "ru")
            self._morph = pymorphy3.MorphAnalyzer(lang="ru")

    def _parse(self, word: str) -> Any:
        found = self._parses.get(word)
        if found is None:
            found = self._morph.parse(word)
            self._parses[word] = found
        return found

    def inflect(self, word: str, rng: np.random.Generator) -> str | None:
        """Another form of ``word``'s lexeme, or None when it has none."""
        lower = word.lower()
        if not lower.replace("-", "").isalpha():
            return None
        if self.lang == "en":
            form = _english_inflection(lower)
            return _match_case(word, form) if form and form != lower else None
        parse = self._parse(lower)[0]
        if parse.tag.POS not in _RU_INFLECT:
            return None
        plain = _plain(lower)
        forms = sorted(
            {f.word for f in parse.lexeme if f.tag.POS == parse.tag.POS and _plain(f.word) != plain}
        )
        if not forms:
            return None
        return _match_case(word, forms[int(rng.integers(len(forms)))])

    def synonym(self, word: str, rng: np.random.Generator) -> str | None:
        """A synonym of ``word`` in the same grammatical form, or None."""
        if not self.synonyms:
            return None
        lower = word.lower()
        if not lower.replace("-", "").isalpha():
            return None
        if self.lang == "en":
            candidates = self.synonyms.get(_plain(lower), ())
            if not candidates:
                return None
            return _match_case(word, candidates[int(rng.integers(len(candidates)))])
        parse = self._parse(lower)[0]
        pos = parse.tag.POS
        if pos not in _RU_CONTENT:
            return None
        candidates = self.synonyms.get(_plain(parse.normal_form), ())
        if not candidates:
            return None
        wanted = {
            g
            for g in (
                parse.tag.case,
                parse.tag.number,
                parse.tag.tense,
                parse.tag.person,
                parse.tag.mood,
            )
            if g
        }
        if pos in ("ADJF", "ADJS", "VERB") and parse.tag.gender and parse.tag.number != "plur":
            wanted.add(parse.tag.gender)
        if pos in ("VERB", "ADJS"):
            wanted.add(pos)
        lemma_pos = _RU_LEMMA_POS[pos]
        for c in rng.permutation(len(candidates)).tolist():
            options = [p for p in self._parse(candidates[c]) if p.tag.POS == lemma_pos]
            if not options:
                continue
            form = (
                options[0] if pos in ("INFN", "ADVB") or not wanted else options[0].inflect(wanted)
            )
            if form is None or form.tag.POS != pos or _plain(form.word) == _plain(lower):
                continue
            return _match_case(word, form.word)
        return None


def _english_inflection(word: str) -> str | None:
    if len(word) < 4:
        return None
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("ing") and len(word) > 5:
        return word[:-3] + "ed"
    if word.endswith("ed") and len(word) > 4:
        return word[:-2] + "ing"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    if word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"

"""Language resources: stop-word lists, the morphological analyzer, stemmers, thesauri.

Each is loaded once per process and cached; lemmas are cached per word form, since real text
is Zipfian and a few thousand forms make most of it.
"""

from __future__ import annotations

import csv
import hashlib
import os
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from neardup.errors import ConfigurationError, InputError, require

STOP_LANGUAGES = {"ru": "russian", "en": "english"}

#: The packages whose version changes each token filter's output (their versions go into
#: every spec fingerprint; the registry's component types read this table).
TOKEN_FILTER_PACKAGES: dict[str, tuple[str, ...]] = {
    "stop": ("stop-words",),
    "pos": ("pymorphy3-dicts-ru",),
    "lemma": ("pymorphy3-dicts-ru",),
    "stem": ("PyStemmer",),
}


def canonical_word(word: str) -> str:
    """The form words are compared in: NFKC, lowercase, ё → е."""
    return unicodedata.normalize("NFKC", word).lower().replace("ё", "е")


@lru_cache(maxsize=64)
def package_version(name: str) -> str | None:
    """The installed version of ``name`` (read once per process: every spec fingerprint asks)."""
    from importlib import metadata  # ~70 ms to import: not on `neardup --version`'s path

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


@lru_cache(maxsize=8)
def stop_words(language: str, name: str | None = None) -> frozenset[str]:
    """The stop list ``name`` for ``ru`` or ``en``: one of neardup's own lists
    (:mod:`neardup.analysis.stop_lists`, e.g. ``function-1``: function words only), or with
    ``None`` the general-purpose list of the ``stop-words`` package (what specs made before the
    lists had names use)."""
    if language not in STOP_LANGUAGES:
        raise ConfigurationError(f"no stop-word list for language {language!r}; expected ru or en")
    if name is not None:
        from neardup.analysis.stop_lists import LISTS

        if name not in LISTS:
            raise ConfigurationError(
                f"unknown stop list {name!r:.80}; expected one of {', '.join(sorted(LISTS))}"
            )
        return frozenset(canonical_word(w) for w in LISTS[name][language])
    module: Any = require("stop_words", "ru")
    words = module.get_stop_words(STOP_LANGUAGES[language])
    return frozenset(canonical_word(w) for w in words)


def filter_packages(name: str, params: dict[str, Any]) -> tuple[str, ...]:
    """The packages whose version changes the output of token filter ``name`` with
    ``params``: :data:`TOKEN_FILTER_PACKAGES`, except that a ``stop`` filter with a named list
    (neardup's own, fixed by its name) reads no package."""
    if name == "stop" and params.get("list") is not None:
        return ()
    return TOKEN_FILTER_PACKAGES.get(name, ())


@dataclass
class MorphCache:
    """pymorphy3's most probable parse of each word form: (normal form, POS tag, grammemes)."""

    analyzer: Any
    max_size: int = 500_000
    entries: dict[str, tuple[str, str, frozenset[str]]] = field(default_factory=dict)
    hits: int = 0
    misses: int = 0

    def lookup_many(self, words: list[str]) -> list[tuple[str, str, frozenset[str]]]:
        entries = self.entries
        # hits in one C-level pass; then only the misses, found with list.index (also C)
        out: list[Any] = list(map(entries.get, words))
        misses = 0
        i = -1
        while True:
            try:
                i = out.index(None, i + 1)
            except ValueError:
                break
            word = words[i]
            entry = entries.get(word)  # an earlier miss of this call may have added it
            if entry is None:
                misses += 1
                entry = self._parse(word)
                if len(entries) >= self.max_size:
                    entries.clear()
                entries[word] = entry
            out[i] = entry
        self.misses += misses
        self.hits += len(words) - misses
        return out

    def _parse(self, word: str) -> tuple[str, str, frozenset[str]]:
        return parse_facts(self.analyzer, word)

    @property
    def hit_rate(self) -> float:
        total = self.hits + self.misses
        return self.hits / total if total else 0.0


def parse_facts(analyzer: Any, word: str) -> tuple[str, str, frozenset[str]]:
    """What the ``pos`` and ``lemma`` filters read of ``word``: pymorphy3's most probable parse
    (``parse(word)[0]``, the rule for an ambiguous form), as (lemma, POS tag, grammemes)."""
    try:
        parse = analyzer.parse(word)[0]
    except ValueError:
        # pymorphy3 looks up Unicode names to tell scripts apart and fails on characters
        # that have none (e.g. Tangut): such a word is its own lemma, of no known POS.
        return word, "", frozenset()
    tag = parse.tag
    return canonical_word(parse.normal_form), str(tag.POS or ""), frozenset(tag.grammemes)


@lru_cache(maxsize=1)
def morph() -> MorphCache:
    pymorphy3: Any = require("pymorphy3", "ru")
    return MorphCache(pymorphy3.MorphAnalyzer(lang="ru"))


@lru_cache(maxsize=1)
def dictionary_meta() -> dict[str, Any]:
    """The ``meta.json`` of the dictionary :func:`morph` loads (its versions and revisions),
    read alone: loading the whole dictionary costs ~50 ms that a text whose forms are all in
    the compiled table never needs."""
    pymorphy3: Any = require("pymorphy3", "ru")
    from pymorphy3.opencorpora_dict.storage import load_meta

    path = pymorphy3.MorphAnalyzer.choose_dictionary_path(None, "ru")
    return dict(load_meta(os.path.join(path, "meta.json")))


@lru_cache(maxsize=8)
def stemmer(language: str) -> Any:
    import Stemmer

    name = STOP_LANGUAGES.get(language, language)
    try:
        return Stemmer.Stemmer(name)
    except KeyError:
        raise ConfigurationError(f"no Snowball stemmer for language {language!r}") from None


def file_digest(path: str | os.PathLike[str]) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL or a lone surrogate in the path
        raise InputError(f"cannot read {path!r}: {exc}") from None


@lru_cache(maxsize=8)
def thesaurus(path: str, digest: str) -> dict[str, str]:
    """Word → representative of its synonym group, from a MyThes ``.dat`` file or a CSV.

    MyThes (the format of Debian's ``mythes-ru``): a first line naming the encoding, then
    entries ``word|n`` followed by ``n`` lines ``(label)|syn|syn…``. Each meaning line with its
    headword is a group whose representative is the headword; lines labelled as antonyms or
    related terms are skipped. CSV: each row is a group, its
    first word the representative. A word in several groups maps to the representative of the
    first group it appears in, so chains of polysemous words are never merged transitively.
    """
    if file_digest(path) != digest:
        raise InputError(f"the thesaurus {path} changed since the spec was made")
    groups = _mythes_groups(path) if not path.lower().endswith(".csv") else _csv_groups(path)
    mapping: dict[str, str] = {}
    for group in groups:
        if not group:
            continue
        head = group[0]
        for word in group:
            mapping.setdefault(word, head)
    return mapping


def _csv_groups(path: str) -> list[list[str]]:
    with open(path, encoding="utf-8-sig", newline="") as fh:
        return [
            [canonical_word(w) for w in row if w.strip()]
            for row in csv.reader(fh)
            if row and not row[0].startswith("#")
        ]


#: MyThes meaning lines with these labels list words that are NOT interchangeable with the
#: headword (mythes-ru: "(антоним)", "(связанный термин)"; English thesauri: "(antonym)",
#: "(related term)"); making them one word would merge opposites.
_NOT_SYNONYMS = ("антоним", "antonym", "связанный термин", "related term")


def mythes_meanings(data: bytes, name: str) -> Iterator[tuple[str, str, list[str]]]:
    """``(head word, label, items)`` for every meaning line of a MyThes ``.dat`` file, whose
    first line names its encoding; the callers choose which labels (antonyms, related terms)
    to skip."""
    first, _, rest = data.partition(b"\n")
    encoding = first.decode("ascii", "ignore").strip() or "utf-8"
    try:
        lines = rest.decode({"KOI8-R": "koi8-r"}.get(encoding.upper(), encoding)).splitlines()
    except (LookupError, UnicodeDecodeError) as exc:
        raise InputError(f"{name}: cannot decode the thesaurus as {encoding!r}: {exc}") from None
    i = 0
    while i < len(lines):
        head, _, count = lines[i].partition("|")
        i += 1
        if not count.strip().isdigit():
            continue
        for line in lines[i : i + int(count)]:
            label, *items = line.split("|")
            yield head, label, items
        i += int(count)


def _mythes_groups(path: str) -> list[list[str]]:
    groups: list[list[str]] = []
    for head, label, items in mythes_meanings(Path(path).read_bytes(), path):
        if any(marker in label.lower() for marker in _NOT_SYNONYMS):
            continue
        synonyms = [canonical_word(s.strip()) for s in items]
        # MyThes annotates some synonyms, e.g. "слово (разг.)": keep the word alone
        synonyms = [s.split(" (")[0].strip() for s in synonyms if s.strip()]
        groups.append([canonical_word(head.strip()), *synonyms])
    return groups

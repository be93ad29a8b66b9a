"""Token filters: a list of terms in, a list of terms out, with the mask of what was kept.

Each filter is a module-level function taking the terms first and its parameters after, so a
configured filter is a ``functools.partial`` that pickles (Spark ships analyzers to workers).
A filter returns ``(terms, keep)``; ``keep`` is a boolean array over its input, or ``None``
when it dropped nothing.
"""

from __future__ import annotations

from itertools import compress

import numpy as np
import numpy.typing as npt

from neardup.analysis import resources

FilterResult = tuple[list[str], npt.NDArray[np.bool_] | None]

#: The parts of speech the ``pos`` filter drops by default (pymorphy3 tags): prepositions,
#: conjunctions, particles, interjections and pronouns. Adjectives (ADJF, ADJS) are optional.
DEFAULT_DROP_POS = ("PREP", "CONJ", "PRCL", "INTJ", "NPRO")


def _keep(terms: list[str], keep: list[bool]) -> FilterResult:
    if all(keep):
        return terms, None
    return list(compress(terms, keep)), np.fromiter(keep, dtype=np.bool_, count=len(keep))


def stop(
    terms: list[str],
    *,
    language: str,
    words: tuple[str, ...] = (),
    builtin: bool = True,
    list: str | None = None,  # the spec names the parameter so: the stop list
) -> FilterResult:
    """Drop stop words: the built-in list for ``language`` (unless ``builtin`` is false) plus
    the user's ``words``. ``list`` names the built-in list (:func:`resources.stop_words`:
    ``function-1``, or ``None`` for the ``stop-words`` package's)."""
    vocabulary = stop_vocabulary(language=language, words=words, builtin=builtin, list=list)
    return _keep(terms, [t not in vocabulary for t in terms])


def stop_vocabulary(
    *,
    language: str,
    words: tuple[str, ...] = (),
    builtin: bool = True,
    list: str | None = None,  # the spec names the parameter so: the stop list
) -> frozenset[str]:
    """The words the ``stop`` filter drops, in canonical form."""
    vocabulary = resources.stop_words(language, list) if builtin else frozenset()
    if words:
        vocabulary = vocabulary | {resources.canonical_word(w) for w in words}
    return vocabulary


def pos(terms: list[str], *, drop: tuple[str, ...] = DEFAULT_DROP_POS) -> FilterResult:
    """Drop Russian words whose most probable part of speech is in ``drop``.

    With ``NPRO`` (pronoun-nouns) dropped, pronominal adjectives (``мой``, ``такой``, tagged
    ``Apro``) go too, since they are pronouns in the school grammar the papers follow.
    """
    dropped = frozenset(drop)
    pronouns = "NPRO" in dropped
    parses = resources.morph().lookup_many(terms)
    keep = [not (p in dropped or (pronouns and "Apro" in grammemes)) for _, p, grammemes in parses]
    return _keep(terms, keep)


def lemma(terms: list[str]) -> FilterResult:
    """Replace each Russian word by its normal form (pymorphy3's most probable parse)."""
    return [entry[0] for entry in resources.morph().lookup_many(terms)], None


def stem(terms: list[str], *, language: str) -> FilterResult:
    """Snowball stems (PyStemmer), in one call for the whole list."""
    return list(resources.stemmer(language).stemWords(terms)), None


def synonyms(terms: list[str], *, path: str, digest: str) -> FilterResult:
    """Replace each word of a synonym group by the group's representative."""
    mapping = resources.thesaurus(path, digest)
    return [mapping.get(t, t) for t in terms], None


def min_length(terms: list[str], *, chars: int) -> FilterResult:
    """Drop terms shorter than ``chars`` characters."""
    return _keep(terms, [len(t) >= chars for t in terms])

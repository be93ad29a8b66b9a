"""Ready-made analyzers.

``plain``  NFKC and lowercase words, nothing dropped or changed: fast, language-agnostic.
``ru``     + ё→е, Russian stop words, function parts of speech dropped (prepositions,
           conjunctions, particles, interjections, pronouns), lemmas (pymorphy3).
``en``     + English stop words, Snowball stems.
``auto``   ``ru`` for documents whose letters are mostly Cyrillic, ``en`` otherwise.

The stop words are function words only (``stop_list``, default ``function-1``:
:mod:`neardup.analysis.stop_lists`): articles, prepositions, conjunctions, auxiliary verbs and
copulas, pronouns, particles; numbers, quantities and content words (``said``, ``year``,
``сказал``, ``год``) stay. A text whose every word a chain drops keeps its words (the chain's
``keep_if_all_dropped``): "as it is" is not an empty text. ``stop_list="stop-words"``
gives the chains made before the lists had names, exactly (the ``stop-words`` package's long
general-purpose lists, and a text of stop words only left with no tokens), so their spec and
fingerprint are those of that time.

Every preset starts with the ``html`` char filter in ``auto`` mode: input that looks like an
HTML page is reduced to its visible text (offsets still point into the HTML); other input
passes unchanged. Options: ``html`` ("auto", "always", "never"), ``main_content`` (keep only
the main content of a web page), ``adjectives`` (also drop adjectives, ru), ``stop_words``
(extra stop words), ``synonyms`` (a thesaurus file: MyThes ``.dat`` or ``.csv`` of groups),
``stem`` (ru: Snowball stems instead of lemmas), ``numbers`` (keep number tokens, default yes),
``keep_stop_words`` (ru, en: keep the built-in stop words; extra ``stop_words`` still go) and
``keep_function_words`` (ru: keep prepositions, conjunctions, particles, interjections and
pronouns; with ``adjectives`` only adjectives are dropped). Both default to off; keeping words
only removes a filter from the chain.

``fold_tricks`` (default on, hidden-text evasion): the ``fold`` char filter after ``nfkc`` undoes
the tricks that get a copy past a uniqueness checker — look-alike letters of another script,
invisible characters, letter spacing, characters stuffed into words
(:mod:`neardup.analysis.evasion`). It changes the spec (a new fingerprint) but not the fingerprints
of a text without tricks; off, the chain is the one before it existed (the raw score, and the old
spec's fingerprint).
"""

from __future__ import annotations

import os
from typing import Any

from neardup._constraints import Boolean, OneOf, check
from neardup.analysis import resources, stop_lists
from neardup.analysis.token_filters import DEFAULT_DROP_POS
from neardup.errors import ConfigurationError
from neardup.spec import AnalyzerSpec, ChainSpec, Component

PRESETS = ("plain", "ru", "en", "auto")
#: How the ``html`` char filter treats input.
HTML_MODES = OneOf(("auto", "always", "never"))
#: The stop list the ``stop_list`` option names for the chains made before lists had names.
LEGACY_STOP_LIST = "stop-words"
STOP_LISTS = OneOf((*stop_lists.LISTS, LEGACY_STOP_LIST))


def _char_filters(
    html: str, main_content: bool, yo: bool, fold: bool = True
) -> tuple[Component, ...]:
    if html not in ("auto", "always", "never"):
        raise ConfigurationError(f"html must be auto, always or never, got {html!r}")
    chain = [Component.of("html", mode=html, main_content=main_content)] if html != "never" else []
    chain += [Component.of("nfkc")]
    # after nfkc (fullwidth and mathematical letters are plain by then), before lowercase
    # (a digit used as a letter looks like a capital: 0 → О)
    chain += [Component.of("fold")] if fold else []
    chain += [Component.of("lowercase")]
    if yo:
        chain += [Component.of("strip_marks"), Component.of("yo")]
    return tuple(chain)


def _tail(stop_words: tuple[str, ...], synonyms: str | None) -> list[Component]:
    tail = []
    if synonyms:
        path = os.path.abspath(synonyms)
        tail.append(Component.of("synonyms", path=path, digest=resources.file_digest(path)))
    return tail


def _stop(language: str, words: tuple[str, ...], keep: bool, stop_list: str) -> list[Component]:
    """The stop-word filter: the built-in list and the extra words, or (``keep``) the extra
    words only, or nothing."""
    if not keep:
        if stop_list == LEGACY_STOP_LIST:
            return [Component.of("stop", language=language, words=words)]
        return [Component.of("stop", language=language, words=words, list=stop_list)]
    if words:
        return [Component.of("stop", language=language, words=words, builtin=False)]
    return []


def _chain(
    char_filters: tuple[Component, ...],
    tokenizer: Component,
    filters: list[Component],
    stop_list: str,
) -> ChainSpec:
    """The chain; one that drops words keeps a text's words when it would drop them all,
    unless it is a chain of the time before (``stop_list`` ``stop-words``)."""
    drops = any(c.name in ("stop", "pos") for c in filters)
    keep = drops and stop_list != LEGACY_STOP_LIST
    return ChainSpec(char_filters, tokenizer, tuple(filters), keep_if_all_dropped=keep)


def _ru(
    html: str,
    main_content: bool,
    adjectives: bool,
    stop_words: tuple[str, ...],
    synonyms: str | None,
    stem: bool,
    numbers: bool,
    keep_stop_words: bool = False,
    keep_function_words: bool = False,
    fold: bool = True,
    stop_list: str = stop_lists.DEFAULT_LIST,
) -> ChainSpec:
    drop: tuple[str, ...] = () if keep_function_words else DEFAULT_DROP_POS
    drop += ("ADJF", "ADJS") if adjectives else ()
    filters = [
        *_stop("ru", stop_words, keep_stop_words, stop_list),
        *([Component.of("pos", drop=drop)] if drop else []),
        Component.of("stem", language="ru") if stem else Component.of("lemma"),
        *_tail(stop_words, synonyms),
    ]
    return _chain(
        _char_filters(html, main_content, yo=True, fold=fold),
        Component.of("words", hyphens=True, numbers=numbers),
        filters,
        stop_list,
    )


def _en(
    html: str,
    main_content: bool,
    stop_words: tuple[str, ...],
    synonyms: str | None,
    numbers: bool,
    keep_stop_words: bool = False,
    fold: bool = True,
    stop_list: str = stop_lists.DEFAULT_LIST,
) -> ChainSpec:
    filters = [
        *_stop("en", stop_words, keep_stop_words, stop_list),
        Component.of("stem", language="en"),
        *_tail(stop_words, synonyms),
    ]
    return _chain(
        _char_filters(html, main_content, yo=False, fold=fold),
        Component.of("words", hyphens=True, numbers=numbers),
        filters,
        stop_list,
    )


def preset(
    name: str,
    *,
    html: str = "auto",
    main_content: bool = False,
    adjectives: bool = False,
    stop_words: tuple[str, ...] | list[str] = (),
    synonyms: str | None = None,
    stem: bool = False,
    numbers: bool = True,
    keep_stop_words: bool = False,
    keep_function_words: bool = False,
    fold_tricks: bool = True,
    stop_list: str = stop_lists.DEFAULT_LIST,
) -> AnalyzerSpec:
    """The analyzer spec of a preset with its options."""
    if not isinstance(name, str) or name not in PRESETS:
        raise ConfigurationError(
            f"unknown preset {name!r:.80}; expected one of {', '.join(PRESETS)}"
        )
    check("html", html, HTML_MODES, ConfigurationError)
    check("stop_list", stop_list, STOP_LISTS, ConfigurationError)
    for option, value in (
        ("main_content", main_content),
        ("adjectives", adjectives),
        ("stem", stem),
        ("numbers", numbers),
        ("keep_stop_words", keep_stop_words),
        ("keep_function_words", keep_function_words),
        ("fold_tricks", fold_tricks),
    ):
        check(option, value, Boolean(), ConfigurationError)
    if isinstance(stop_words, str) or not isinstance(stop_words, tuple | list):
        raise ConfigurationError(f"stop_words must be a list of words, got {stop_words!r}")
    if not all(isinstance(w, str) for w in stop_words):
        raise ConfigurationError("stop_words must hold strings only")
    if synonyms is not None and not isinstance(synonyms, str):
        raise ConfigurationError(f"synonyms must be a file path or None, got {synonyms!r}")
    words = tuple(stop_words)
    if name == "plain":
        tail = _tail(words, synonyms)
        if words:
            tail = [Component.of("stop", language="ru", words=words, builtin=False), *tail]
        chain = _chain(
            _char_filters(html, main_content, yo=False, fold=fold_tricks),
            Component.of("words", hyphens=True, numbers=numbers),
            tail,
            stop_list,
        )
        return AnalyzerSpec("plain", (("*", chain),))
    keep = (keep_stop_words, keep_function_words, fold_tricks, stop_list)
    en_keep = (keep_stop_words, fold_tricks, stop_list)
    if name == "ru":
        return AnalyzerSpec(
            "ru",
            (("*", _ru(html, main_content, adjectives, words, synonyms, stem, numbers, *keep)),),
        )
    if name == "en":
        return AnalyzerSpec(
            "en", (("*", _en(html, main_content, words, synonyms, numbers, *en_keep)),)
        )
    if name == "auto":
        return AnalyzerSpec(
            "auto",
            (
                ("ru", _ru(html, main_content, adjectives, words, synonyms, stem, numbers, *keep)),
                ("en", _en(html, main_content, words, synonyms, numbers, *en_keep)),
            ),
        )
    raise ConfigurationError(f"unknown preset {name!r}; expected one of {', '.join(PRESETS)}")


def preset_options() -> dict[str, Any]:
    return {
        "html": "auto",
        "main_content": False,
        "adjectives": False,
        "stop_words": (),
        "synonyms": None,
        "stem": False,
        "numbers": True,
        "keep_stop_words": False,
        "keep_function_words": False,
        "fold_tricks": True,
        "stop_list": stop_lists.DEFAULT_LIST,
    }

"""Named analysis components: what each name builds, which parameters it takes, and which
resource versions its output depends on.

Unknown names and unknown parameters are refused with the list of what is accepted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from neardup.analysis import char_filters, evasion, resources, stop_lists, token_filters
from neardup.errors import ConfigurationError
from neardup.spec import AnalyzerSpec, ChainSpec, Component


@dataclass(frozen=True)
class ComponentType:
    function: Callable[..., Any]
    params: frozenset[str]
    required: frozenset[str] = frozenset()
    #: packages whose version changes this component's output
    packages: tuple[str, ...] = ()
    #: a token filter that drops words (a chain with ``keep_if_all_dropped`` leaves it out for
    #: a text it would leave with none)
    drops: bool = False
    #: checks the component's parameter values (raises :class:`ConfigurationError`)
    check: Callable[[Component], None] | None = None


def _check_stop(component: Component) -> None:
    name = component.param("list")
    if name is not None and name not in stop_lists.LISTS:
        raise ConfigurationError(
            f"unknown stop list {name!r:.80}; expected one of {', '.join(sorted(stop_lists.LISTS))}"
        )


CHAR_FILTERS: dict[str, ComponentType] = {
    "html": ComponentType(char_filters.html, frozenset({"mode", "main_content"}), packages=()),
    "nfkc": ComponentType(char_filters.nfkc, frozenset()),
    "lowercase": ComponentType(char_filters.lowercase, frozenset()),
    "yo": ComponentType(char_filters.yo_to_ye, frozenset()),
    "strip_marks": ComponentType(char_filters.strip_marks, frozenset()),
    # the tricks to evade a uniqueness checker undone (evasion tricks: homoglyphs, invisible
    # characters, letter spacing, stuffing), by the UTS #39 confusables of this package
    "fold": ComponentType(evasion.fold, frozenset(), packages=("confusable-homoglyphs",)),
}
TOKENIZERS: dict[str, ComponentType] = {
    "words": ComponentType(lambda: None, frozenset({"hyphens", "numbers"})),
}
TOKEN_FILTERS: dict[str, ComponentType] = {
    "stop": ComponentType(
        token_filters.stop,
        frozenset({"language", "words", "builtin", "list"}),
        frozenset({"language"}),
        packages=resources.TOKEN_FILTER_PACKAGES["stop"],
        drops=True,
        check=_check_stop,
    ),
    "pos": ComponentType(
        token_filters.pos,
        frozenset({"drop"}),
        packages=resources.TOKEN_FILTER_PACKAGES["pos"],
        drops=True,
    ),
    "lemma": ComponentType(
        token_filters.lemma, frozenset(), packages=resources.TOKEN_FILTER_PACKAGES["lemma"]
    ),
    "stem": ComponentType(
        token_filters.stem,
        frozenset({"language"}),
        frozenset({"language"}),
        packages=resources.TOKEN_FILTER_PACKAGES["stem"],
    ),
    "synonyms": ComponentType(
        token_filters.synonyms, frozenset({"path", "digest"}), frozenset({"path", "digest"})
    ),
    "min_length": ComponentType(
        token_filters.min_length, frozenset({"chars"}), frozenset({"chars"}), drops=True
    ),
}
KINDS = {"char filter": CHAR_FILTERS, "tokenizer": TOKENIZERS, "token filter": TOKEN_FILTERS}


def _lookup(kind: str, component: Component) -> ComponentType:
    table = KINDS[kind]
    try:
        ctype = table[component.name]
    except KeyError:
        raise ConfigurationError(
            f"unknown {kind} {component.name!r}; expected one of {', '.join(sorted(table))}"
        ) from None
    given = {k for k, _ in component.params}
    unknown = given - ctype.params
    if unknown:
        accepted = ", ".join(sorted(ctype.params)) or "none"
        raise ConfigurationError(
            f"{kind} {component.name!r} takes no parameter {', '.join(sorted(unknown))}; "
            f"it accepts: {accepted}"
        )
    missing = ctype.required - given
    if missing:
        raise ConfigurationError(f"{kind} {component.name!r} needs {', '.join(sorted(missing))}")
    if ctype.check is not None:
        ctype.check(component)
    return ctype


def build(kind: str, component: Component) -> Callable[..., Any]:
    """The configured function of a component (a picklable ``functools.partial``)."""
    ctype = _lookup(kind, component)
    params = {k: v for k, v in component.params}
    return partial(ctype.function, **params)


def validate(spec: AnalyzerSpec) -> None:
    for _, chain in spec.chains:
        for c in chain.char_filters:
            _lookup("char filter", c)
        _lookup("tokenizer", chain.tokenizer)
        for c in chain.token_filters:
            _lookup("token filter", c)


def keeping_words(chain: ChainSpec) -> ChainSpec:
    """What a chain with ``keep_if_all_dropped`` makes of a text its filters would leave with
    no word: the same chain without the filters that drop words (``stop``, ``pos``,
    ``min_length``), so the text keeps every word, lemmatized or stemmed as the others are."""
    kept = tuple(c for c in chain.token_filters if not _lookup("token filter", c).drops)
    return ChainSpec(chain.char_filters, chain.tokenizer, kept)


def resource_versions(spec: AnalyzerSpec) -> dict[str, str | None]:
    """Versions of the packages whose data the analyzer's output depends on
    (:meth:`~neardup.spec.AnalyzerSpec.resource_versions`)."""
    return spec.resource_versions()

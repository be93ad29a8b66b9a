"""Options shared by the commands that build a spec, and helpers to read inputs."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import click

from neardup.analysis.presets import PRESETS
from neardup.cli._types import field_default, field_type
from neardup.defaults import DEFAULTS
from neardup.errors import InputError
from neardup.fingerprints.pipeline import DEFAULT_PRESET, make_spec
from neardup.inputs import check_thesaurus, read_text_input
from neardup.spec import FAMILY_WIDTHS, FingerprintSpec, ShingleSpec, Spec

F = TypeVar("F", bound=Callable[..., Any])


def jobs_option(detail: str) -> Callable[[F], F]:
    """``--jobs``/``-j``, with the one meaning it has in every command: how many workers the
    command may keep busy, 0 for one per CPU; its default is the table's
    (:data:`neardup.defaults.DEFAULTS`). ``detail`` says what the workers are here."""
    from neardup.cli._types import MAX_JOBS

    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(0, MAX_JOBS),
        default=DEFAULTS.jobs,
        show_default=True,
        help=f"How many workers this command may keep busy; 0: one per CPU. {detail}",
    )


def spec_options(func: F) -> F:
    """Add the flags that make a :class:`Spec` (preset, shingles, fingerprints)."""
    options = [
        click.option(
            "--preset",
            "-p",
            type=click.Choice(PRESETS),
            default=DEFAULT_PRESET,
            show_default=True,
            help="Canonicalization: auto (ru or en per text by its script), ru (lemmas, stop "
            "words, function words dropped), en (stems, stop words), plain (lowercase words).",
        ),
        click.option(
            "-k",
            "k",
            type=field_type(ShingleSpec, "k"),
            default=DEFAULTS.k,
            show_default=True,
            help="Shingle length: words per shingle (characters with --unit char).",
        ),
        click.option(
            "--step",
            type=field_type(ShingleSpec, "step"),
            default=field_default(ShingleSpec, "step"),
            show_default=True,
            help="Take a shingle every STEP tokens: 1 overlapping, k end to end.",
        ),
        click.option(
            "--short-below",
            "short_below",
            type=field_type(ShingleSpec, "short_below"),
            default=DEFAULTS.short_below,
            show_default=True,
            help="Compare a pair on word 1-grams when its shorter text has fewer canonical "
            "tokens than this (word shingles cannot work on a sentence); 0: never. An explicit "
            "-k or --unit turns this rule off unless --short-below is given too.",
        ),
        click.option(
            "--unit",
            type=click.Choice(["word", "char"]),
            default=DEFAULTS.unit,
            show_default=True,
            help="Shingles of words or of characters of the canonical text.",
        ),
        click.option(
            "--hash",
            "family",
            type=click.Choice(sorted(FAMILY_WIDTHS)),
            default="rabin",
            show_default=True,
            help="Fingerprint hash family.",
        ),
        click.option(
            "--bits",
            type=field_type(FingerprintSpec, "bits"),
            default=None,
            help="Fingerprint width in bits (rabin, crc64, xxh3: 32–64; crc32: 32). "
            "Default: 64, or 32 for crc32.",
        ),
        click.option(
            "--seed",
            type=field_type(FingerprintSpec, "seed"),
            default=field_default(FingerprintSpec, "seed"),
            show_default=True,
            help="Seed of the hash family (rabin, xxh3).",
        ),
        click.option(
            "--multiset", is_flag=True, help="Count repeated shingles (multiset measures)."
        ),
        click.option(
            "--html-mode",
            "html_mode",
            type=click.Choice(["auto", "always", "never"]),
            default="auto",
            show_default=True,
            help="Strip HTML: when the input looks like HTML, always, or never.",
        ),
        click.option(
            "--main-content",
            is_flag=True,
            help="For web pages, keep only the main content (needs neardup[html]).",
        ),
        click.option("--adjectives", is_flag=True, help="ru: drop adjectives too."),
        click.option(
            "--stop-words",
            "stop_words_file",
            type=click.Path(dir_okay=False),
            default=None,
            help="A file of extra stop words, one per line.",
        ),
        click.option(
            "--synonyms",
            type=click.Path(dir_okay=False),
            default=None,
            help="A thesaurus (MyThes .dat, or .csv of groups): synonyms become one word.",
        ),
        click.option("--stem", is_flag=True, help="ru: Snowball stems instead of lemmas."),
        click.option("--no-numbers", is_flag=True, help="Drop tokens that have no letter."),
        click.option(
            "--keep-stop-words",
            is_flag=True,
            help="ru, en: keep the built-in stop words (lemmas or stems of every word); "
            "the words of --stop-words are still dropped.",
        ),
        click.option(
            "--keep-function-words",
            is_flag=True,
            help="ru: keep prepositions, conjunctions, particles, interjections and pronouns.",
        ),
        click.option(
            "--no-fold",
            is_flag=True,
            help="Do not undo look-alike letters, invisible characters, letter spacing and "
            "stuffed characters (the raw score; the spec before they were undone).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _given(name: str) -> bool:
    """Whether the user gave the option ``name`` on the command line (or in the environment),
    rather than taking its default."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return False
    source = ctx.get_parameter_source(name)
    return source is not None and source not in (
        click.core.ParameterSource.DEFAULT,
        click.core.ParameterSource.DEFAULT_MAP,
    )


def spec_from_options(options: dict[str, Any]) -> Spec:
    """Pop the spec flags out of a command's keyword arguments and build the spec."""
    stop_words: list[str] = []
    path = options.pop("stop_words_file")
    if path:
        stop_words = [w.strip() for w in read_text_input(path).text.splitlines() if w.strip()]
    synonyms = options.pop("synonyms")
    if synonyms and not os.path.isfile(synonyms):
        raise InputError(f"no such thesaurus file: {synonyms}")
    if synonyms:
        check_thesaurus(synonyms)
    family = options.pop("family")
    bits = options.pop("bits")
    short_below = options.pop("short_below")
    if not _given("short_below") and (_given("k") or _given("unit")):
        short_below = 0  # an option the user gives wins over the default length rule
    return make_spec(
        options.pop("preset"),
        k=options.pop("k"),
        step=options.pop("step"),
        unit=options.pop("unit"),
        short_below=short_below,
        family=family,
        bits=bits,
        seed=options.pop("seed"),
        multiset=options.pop("multiset"),
        html=options.pop("html_mode"),
        main_content=options.pop("main_content"),
        adjectives=options.pop("adjectives"),
        stop_words=tuple(stop_words),
        synonyms=synonyms,
        stem=options.pop("stem"),
        numbers=not options.pop("no_numbers"),
        keep_stop_words=options.pop("keep_stop_words"),
        keep_function_words=options.pop("keep_function_words"),
        fold_tricks=not options.pop("no_fold"),
    )

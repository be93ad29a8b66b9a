"""The one pipeline: text → canonical tokens → shingles → fingerprints.

Every entry point (library, CLI, web service, benchmarks, Spark) builds a :class:`Pipeline`
from a :class:`~neardup.spec.Spec` and calls it; none re-implements a stage.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from neardup._arguments import checked, public
from neardup.analysis.analyzed import AnalyzedText
from neardup.analysis.analyzer import Analyzer, Canonical
from neardup.analysis.decode import decode, read_text
from neardup.analysis.presets import preset
from neardup.defaults import DEFAULTS
from neardup.errors import InputError, WrongTypeError
from neardup.fingerprints.hashing import HashFamily
from neardup.fingerprints.shingles import Shingles, shingle
from neardup.fingerprints.similarity import Fingerprints, Measures, compare
from neardup.spec import FingerprintSpec, ShingleSpec, Spec, default_bits

TextLike = str | bytes
#: A text, or a text already analysed for this request (:class:`AnalyzedText`).
Analyzable = str | bytes | AnalyzedText


#: The preset of the defaults: Russian or English chain chosen per document by its script.
DEFAULT_PRESET = DEFAULTS.preset


@checked
def make_spec(
    preset_name: str = DEFAULT_PRESET,
    *,
    k: int = DEFAULTS.k,
    step: int = 1,
    unit: str = DEFAULTS.unit,
    short_below: int = 0,
    family: str = "rabin",
    bits: int | None = None,
    seed: int = 0,
    multiset: bool = False,
    **preset_options: Any,
) -> Spec:
    """A spec from a preset name and the usual options (the CLI's flags).

    ``bits`` defaults to the family's widest width (:func:`~neardup.spec.default_bits`: 64, and
    32 for ``crc32``). ``short_below`` turns on the length-adaptive rule (word 1-grams for pairs
    whose shorter text has fewer canonical tokens; :class:`~neardup.spec.ShingleSpec`); it is
    off here so that an explicit spec stays what it was — :func:`default_spec` turns it on."""
    if bits is None:
        bits = default_bits(family)
    return Spec(
        analyzer=preset(preset_name, **preset_options),
        shingles=ShingleSpec(unit=unit, k=k, step=step, short_below=short_below),  # type: ignore[arg-type]
        fingerprint_family=FingerprintSpec(family=family, bits=bits, seed=seed, multiset=multiset),
    )


@checked
def default_spec(preset_name: str = DEFAULT_PRESET, **options: Any) -> Spec:
    """The spec of the defaults (the CLI's, the library's and the service's; :mod:`neardup.
    defaults`): ``auto`` language per document, word 5-shingles, and word 1-grams for pairs
    whose shorter text has fewer than ``DEFAULTS.short_below`` canonical tokens. An explicit
    ``unit`` or ``k`` turns that rule off unless ``short_below`` is given too: an option the
    caller gives wins over a default rule."""
    explicit = ("unit" in options and options["unit"] != DEFAULTS.unit) or (
        "k" in options and options["k"] != DEFAULTS.k
    )
    options.setdefault("short_below", 0 if explicit else DEFAULTS.short_below)
    return make_spec(preset_name, **options)


def as_text(value: Analyzable) -> str:
    """A str as it is; bytes decoded with charset detection; an analysed text's text."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return decode(value).text
    if isinstance(value, AnalyzedText):
        return value.text
    raise InputError(
        f"a text must be str or bytes, got {type(value).__name__}"
        + ("; decode it to str or bytes first" if isinstance(value, bytearray | memoryview) else "")
    )


@public
class Pipeline:
    """Canonical tokens, shingles and fingerprints of texts under one spec."""

    def __init__(self, spec: Spec) -> None:
        if not isinstance(spec, Spec):
            raise WrongTypeError(f"a Pipeline takes a Spec, got {type(spec).__name__}")
        self.spec = spec
        self.analyzer = Analyzer(spec.analyzer)
        self.family = HashFamily(spec.fingerprint_family)
        self.spec_fingerprint = spec.fingerprint()
        # the shingling of short pairs, when the spec is length-adaptive
        self._short_spec = spec.fixed(short=True) if spec.shingles.adaptive else None
        self._short_fingerprint = self._short_spec.fingerprint() if self._short_spec else ""

    def analyze(self, text: Analyzable) -> AnalyzedText:
        """``text`` analysed once, for every stage of a request to take: an
        :class:`AnalyzedText` made under this pipeline's analyzer passes through as it is, and
        one made under another analyzer keeps this pipeline's analysis of its text."""
        if isinstance(text, AnalyzedText):
            if text.analyzer == self.spec.analyzer:
                return text
            # another stage's analyzer (the combined score's plain words): once per text too
            return text.derived(("analysis", self.spec.analyzer), lambda: self._analyze(text.text))
        return self._analyze(as_text(text))

    def _analyze(self, decoded: str) -> AnalyzedText:
        return AnalyzedText(decoded, self.analyzer.canonical(decoded), self.spec.analyzer)

    def canonical(self, text: Analyzable) -> Canonical:
        return self.analyze(text).canonical

    def shingles(self, text: Analyzable) -> Shingles:
        """Shingles in text order with their spans in the (decoded) input."""
        return shingle(self.canonical(text), self.spec.shingles, self.family)

    def fingerprints(self, text: Analyzable) -> Fingerprints:
        """The sorted distinct fingerprints (with counts under a multiset spec)."""
        return Fingerprints.from_hashes(
            self.shingles(text).hashes,
            multiset=self.spec.fingerprint_family.multiset,
            spec_fingerprint=self.spec_fingerprint,
        )

    def fingerprints_many(self, texts: Iterable[TextLike]) -> Iterator[Fingerprints]:
        """Fingerprints of each text, streamed."""
        for text in texts:
            yield self.fingerprints(text)

    def fingerprints_of(self, canonical: Canonical, *, short: bool = False) -> Fingerprints:
        """The fingerprints of an analyzed text, under the shingling of long pairs or (``short``,
        with a length-adaptive spec) of short pairs."""
        multiset = self.spec.fingerprint_family.multiset
        if short and self._short_spec is not None:
            hashes = shingle(canonical, self._short_spec.shingles, self.family).hashes
            return Fingerprints.from_hashes(
                hashes, multiset=multiset, spec_fingerprint=self._short_fingerprint
            )
        return Fingerprints.from_hashes(
            shingle(canonical, self.spec.shingles, self.family).hashes,
            multiset=multiset,
            spec_fingerprint=self.spec_fingerprint,
        )

    def variants(self, text: Analyzable) -> tuple[int, Fingerprints, Fingerprints | None]:
        """A text's canonical token count, its fingerprints for long pairs, and for short pairs
        (``None`` unless the spec is length-adaptive): what pairwise entry points need to apply
        :meth:`~neardup.spec.ShingleSpec.short_pairs` per pair."""
        canonical = self.canonical(text)
        short = self.fingerprints_of(canonical, short=True) if self._short_spec else None
        return len(canonical), self.fingerprints_of(canonical), short

    def compare(self, a: Analyzable, b: Analyzable) -> Measures:
        """The measures of a pair, under the short shingling when the spec's length-adaptive
        rule says so."""
        return self.compare_shingled(a, b)[0]

    def compare_shingled(self, a: Analyzable, b: Analyzable) -> tuple[Measures, ShingleSpec]:
        """:meth:`compare`, and the shingling the pair was compared on (the short one when
        the length-adaptive rule applied)."""
        ca, cb = self.canonical(a), self.canonical(b)
        short = self.spec.shingles.short_pairs(len(ca), len(cb))
        measures = compare(
            self.fingerprints_of(ca, short=short), self.fingerprints_of(cb, short=short)
        )
        return measures, self.spec.shingles.fixed(short=short)

    def fingerprints_of_file(self, path: str | os.PathLike[str]) -> Fingerprints:
        return self.fingerprints(read_text(path).text)

"""The one pipeline: text → canonical tokens → shingles → fingerprints.

Every entry point (library, CLI, web service, benchmarks, Spark) builds a :class:`Pipeline`
from a :class:`~neardup.spec.Spec` and calls it; none re-implements a stage.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from neardup.analysis.analyzer import Analyzer, Canonical
from neardup.analysis.decode import decode, read_text
from neardup.analysis.presets import preset
from neardup.fingerprint import HashFamily
from neardup.shingles import Shingles, shingle
from neardup.similarity import Fingerprints, Measures, compare
from neardup.spec import FingerprintSpec, ShingleSpec, Spec, default_bits

TextLike = str | bytes


def make_spec(
    preset_name: str = "ru",
    *,
    k: int = 5,
    step: int = 1,
    unit: str = "word",
    family: str = "rabin",
    bits: int | None = None,
    seed: int = 0,
    multiset: bool = False,
    **preset_options: Any,
) -> Spec:
    """A spec from a preset name and the usual options (the CLI's flags).

    ``bits`` defaults to the family's widest width (:func:`~neardup.spec.default_bits`: 64, and
    32 for ``crc32``)."""
    if bits is None:
        bits = default_bits(family)
    return Spec(
        analyzer=preset(preset_name, **preset_options),
        shingles=ShingleSpec(unit=unit, k=k, step=step),  # type: ignore[arg-type]
        fingerprint_family=FingerprintSpec(family=family, bits=bits, seed=seed, multiset=multiset),
    )


def as_text(value: TextLike) -> str:
    """A str as it is; bytes decoded with charset detection."""
    if isinstance(value, bytes):
        return decode(value).text
    if isinstance(value, str):
        return value
    raise TypeError(f"expected str or bytes, got {type(value).__name__}")


class Pipeline:
    """Canonical tokens, shingles and fingerprints of texts under one spec."""

    def __init__(self, spec: Spec) -> None:
        if not isinstance(spec, Spec):
            raise TypeError(f"a Pipeline takes a Spec, got {type(spec).__name__}")
        self.spec = spec
        self.analyzer = Analyzer(spec.analyzer)
        self.family = HashFamily(spec.fingerprint_family)
        self.spec_fingerprint = spec.fingerprint()

    def canonical(self, text: TextLike) -> Canonical:
        return self.analyzer.canonical(as_text(text))

    def shingles(self, text: TextLike) -> Shingles:
        """Shingles in text order with their spans in the (decoded) input."""
        return shingle(self.canonical(text), self.spec.shingles, self.family)

    def fingerprints(self, text: TextLike) -> Fingerprints:
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

    def compare(self, a: TextLike, b: TextLike) -> Measures:
        return compare(self.fingerprints(a), self.fingerprints(b))

    def fingerprints_of_file(self, path: str | os.PathLike[str]) -> Fingerprints:
        return self.fingerprints(read_text(path).text)

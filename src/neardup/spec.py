"""Frozen specs: everything that changes results, in one object with a stable fingerprint.

A :class:`Spec` holds the analyzer chain, the shingling and the fingerprint family. It
serializes to plain JSON (``to_dict``/``from_dict``) and its :meth:`Spec.fingerprint` is a
SHA-256 over that JSON together with :data:`ALGORITHM_VERSION` and the versions of the language
resources the chain uses, so fingerprints made under different specs — or by a release whose
algorithms changed — are never compared by mistake.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from neardup._arguments import public_methods
from neardup._constraints import (
    Boolean,
    Integer,
    OneOf,
    Real,
    check_fields,
    from_mapping,
    param,
    refuse_unknown,
)
from neardup.analysis.resources import filter_packages, package_version
from neardup.defaults import DEFAULTS, SHORT_BELOW
from neardup.errors import ConfigurationError, SpecError, SpecMismatchError, WrongTypeError

#: Bumped whenever a change in neardup itself changes tokens or fingerprints.
ALGORITHM_VERSION = 1

ParamValue = str | int | float | bool | None | tuple[Any, ...]

#: The longest shingle (words, or characters with unit "char") and the largest step.
MAX_SHINGLE_LENGTH = 1024
#: The largest seed of a hash family or a sketch: seeds are 64-bit.
MAX_SEED = 2**64 - 1


def _refuse_unknown(data: Any, known: tuple[str, ...], what: str) -> None:
    if not isinstance(data, dict):
        raise SpecError(f"{what} must be an object, got {data!r}")
    refuse_unknown(data, known, what)


def _freeze(value: Any) -> ParamValue:
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ConfigurationError(
                f"component parameters must be valid Unicode text, got {value!r}"
            ) from None
        return value
    if isinstance(value, int | float | bool) or value is None:
        return value
    raise ConfigurationError(
        f"component parameters must be plain values, got {type(value).__name__}"
    )


def _thaw(value: ParamValue) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


@public_methods
@dataclass(frozen=True)
class Component:
    """A named analysis component and its parameters (sorted, frozen)."""

    name: str
    params: tuple[tuple[str, ParamValue], ...] = ()

    @classmethod
    def of(cls, name: str, **params: Any) -> Component:
        return cls(name, tuple(sorted((k, _freeze(v)) for k, v in params.items())))

    def param(self, key: str, default: Any = None) -> Any:
        return dict(self.params).get(key, default)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        out.update({k: _thaw(v) for k, v in self.params})
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Component:
        if not isinstance(data, dict):
            raise SpecError(f"a component must be an object, got {data!r}")
        data = dict(data)
        name = data.pop("name", None)
        if not isinstance(name, str):
            raise SpecError(f"a component needs a 'name' string: {data!r}")
        if not all(isinstance(key, str) for key in data):
            raise SpecError(f"component {name!r} has a parameter name that is not a string")
        return cls.of(name, **data)


@dataclass(frozen=True)
class ChainSpec:
    """Char filters → exactly one tokenizer → token filters (Lucene's analysis chain).

    ``keep_if_all_dropped``: a text whose every word the token filters would drop (a text of
    stop words only: "as it is") keeps its words instead of having none — it goes
    through the chain without the filters that drop words (``stop``, ``pos``,
    ``min_length``), its words lemmatized or stemmed as the others are. Written only when on,
    so a chain made before it existed keeps its JSON and its fingerprint.
    """

    char_filters: tuple[Component, ...] = ()
    tokenizer: Component = field(default_factory=lambda: Component.of("words"))
    token_filters: tuple[Component, ...] = ()
    keep_if_all_dropped: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.keep_if_all_dropped, bool):
            raise SpecError(
                f"keep_if_all_dropped must be true or false, got {self.keep_if_all_dropped!r:.80}"
            )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "char_filters": [c.to_dict() for c in self.char_filters],
            "tokenizer": self.tokenizer.to_dict(),
            "token_filters": [c.to_dict() for c in self.token_filters],
        }
        if self.keep_if_all_dropped:
            out["keep_if_all_dropped"] = True
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChainSpec:
        _refuse_unknown(
            data,
            ("char_filters", "tokenizer", "token_filters", "keep_if_all_dropped"),
            "analysis chain",
        )
        return cls(
            char_filters=tuple(Component.from_dict(c) for c in data.get("char_filters", [])),
            tokenizer=Component.from_dict(data.get("tokenizer", {"name": "words"})),
            token_filters=tuple(Component.from_dict(c) for c in data.get("token_filters", [])),
            keep_if_all_dropped=data.get("keep_if_all_dropped", False),
        )


#: The languages whose chains come first in an :class:`AnalyzerSpec`, in this order.
_FIRST_CHAINS = ("*", "ru", "en")


def _chain_rank(language: str) -> tuple[int, str]:
    if language in _FIRST_CHAINS:
        return _FIRST_CHAINS.index(language), ""
    return len(_FIRST_CHAINS), language


@public_methods
@dataclass(frozen=True)
class AnalyzerSpec:
    """One chain, or a chain per language chosen by each document's dominant script.

    ``chains`` maps a language (``"ru"``, ``"en"``) or ``"*"`` (any text) to its chain. With
    several chains, a document goes through the chain of its dominant script (Cyrillic → ru,
    otherwise en).
    """

    preset: str
    chains: tuple[tuple[str, ChainSpec], ...]

    def __post_init__(self) -> None:
        # One order, whatever order the chains were given or read in: the first chain decides
        # a text's language (its char filters count the letters) and takes the languages no
        # chain names, while the JSON (and so a stored spec) has its keys sorted ("en" before
        # "ru"). The catch-all first, then ru, en (the ``auto`` preset's order), then the rest.
        chains = self.chains
        if not isinstance(chains, tuple | list) or not all(
            isinstance(c, tuple | list) and len(c) == 2 and isinstance(c[0], str) for c in chains
        ):
            raise WrongTypeError(
                f"AnalyzerSpec(chains=...) takes (language, ChainSpec) pairs, got {chains!r:.60}"
            )
        ordered = tuple(sorted(chains, key=lambda item: _chain_rank(item[0])))
        object.__setattr__(self, "chains", ordered)

    def chain(self, language: str) -> ChainSpec:
        table = dict(self.chains)
        return table.get(language) or table.get("*") or next(iter(table.values()))

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(lang for lang, _ in self.chains)

    def to_dict(self) -> dict[str, Any]:
        return {"preset": self.preset, "chains": {lang: c.to_dict() for lang, c in self.chains}}

    def resource_versions(self) -> dict[str, str | None]:
        """Versions of the packages whose data the analyzer's output depends on."""
        names: set[str] = set()
        for _, chain in self.chains:
            for c in chain.token_filters:
                names.update(filter_packages(c.name, dict(c.params)))
        return {name: package_version(name) for name in sorted(names)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AnalyzerSpec:
        _refuse_unknown(data, ("preset", "chains"), "analyzer spec")
        chains = data.get("chains")
        if not isinstance(chains, dict) or not chains:
            raise SpecError("an analyzer spec needs a non-empty 'chains' object")
        return cls(
            preset=str(data.get("preset", "custom")),
            chains=tuple((lang, ChainSpec.from_dict(c)) for lang, c in chains.items()),
        )


#: The length-adaptive rule of the defaults (issue #16): a pair whose shorter text has fewer
#: than this many canonical tokens is compared on word 1-grams instead of the spec's shingles.
#: Chosen from two measurements (docs/quality.md, "The length-adaptive rule"): below about 30
#: canonical tokens word 5-shingles lose 0.03–0.4 AUC to word 1-grams
#: (``benchmarks/quality_lengths.py``); above, word 1-grams start losing to them on hard
#: negatives (the same story from another outlet; a sweep over 0/16/24/32/48/64 on
#: the *training* half of benchmarks/quality_sets.py, where the paste set's resemblance falls
#: from 0.950 at 24 to 0.937 at 48–64). It lives in the one table of defaults.
DEFAULT_SHORT_BELOW = SHORT_BELOW


@public_methods
@dataclass(frozen=True)
class ShingleSpec:
    """Word shingles of ``k`` tokens taken every ``step`` tokens, or char n-grams of ``k``.

    Length-adaptive (``short_below`` > 0): a *pair* whose shorter text has fewer than
    ``short_below`` canonical tokens is shingled by ``short_unit``/``short_k`` (step 1) on both
    sides — word shingles cannot work on a 10-word sentence. The rule is per pair, not per
    text, so a short text and a long one are always compared on one kind of shingle. A single
    text's fingerprints (signatures, stored collections) use ``unit``/``k``/``step``. The short
    fields are written only when the rule is on, so a spec without it keeps its fingerprint.
    """

    unit: Literal["word", "char"] = param("word", OneOf(("word", "char")))
    k: int = param(5, Integer(1, MAX_SHINGLE_LENGTH))
    step: int = param(1, Integer(1, MAX_SHINGLE_LENGTH))
    short_below: int = param(0, Integer(0, 1 << 30), label="short_below (0: off)")
    short_unit: Literal["word", "char"] = param("word", OneOf(("word", "char")))
    short_k: int = param(1, Integer(1, MAX_SHINGLE_LENGTH))

    def __post_init__(self) -> None:
        check_fields(self, "shingle")

    @property
    def adaptive(self) -> bool:
        return self.short_below > 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"unit": self.unit, "k": self.k, "step": self.step}
        if self.adaptive:
            out.update(
                short_below=self.short_below, short_unit=self.short_unit, short_k=self.short_k
            )
        return out

    def short_pairs(self, tokens_a: Any, tokens_b: Any) -> Any:
        """Whether pairs with these canonical token counts take the short shingles: the one
        rule every entry point applies (scalars give a bool, arrays a boolean array)."""
        import numpy as np  # here: importing neardup stays light (tests/test_public_api.py)

        counts = []
        for tokens in (tokens_a, tokens_b):
            array = np.asarray(tokens) if not isinstance(tokens, bool) else np.asarray(0.5)
            if array.dtype.kind not in "iu" or (array.size and int(array.min()) < 0):
                raise WrongTypeError(
                    f"token counts must be whole numbers ≥ 0 or arrays of them, got {tokens!r:.60}"
                )
            counts.append(array)
        try:
            np.broadcast_shapes(counts[0].shape, counts[1].shape)
        except ValueError:
            raise WrongTypeError(
                f"token counts of shapes {counts[0].shape} and {counts[1].shape} do not pair"
            ) from None
        shorter = np.minimum(counts[0], counts[1])
        result = (shorter < self.short_below) & self.adaptive
        return bool(result) if np.ndim(result) == 0 else result

    def fixed(self, short: bool = False) -> ShingleSpec:
        """The plain (not adaptive) shingling of a long pair, or of a short one."""
        if short and self.adaptive:
            return ShingleSpec(unit=self.short_unit, k=self.short_k, step=1)
        return ShingleSpec(unit=self.unit, k=self.k, step=self.step)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ShingleSpec:
        return from_mapping(cls, data, "shingle spec")


#: Hash families and the widths they allow (inclusive).
FAMILY_WIDTHS: dict[str, tuple[int, int]] = {
    "rabin": (32, 64),
    "crc32": (32, 32),
    "crc64": (32, 64),
    "xxh3": (32, 64),
}
#: Families that take a seed; the CRCs are fixed standard functions.
SEEDED_FAMILIES = frozenset({"rabin", "xxh3"})


def default_bits(family: str) -> int:
    """The width a family gets when none is given: its widest (64, and 32 for crc32)."""
    if family not in FAMILY_WIDTHS:
        raise SpecError(
            f"unknown hash family {family!r}; expected one of {', '.join(FAMILY_WIDTHS)}"
        )
    return FAMILY_WIDTHS[family][1]


@dataclass(frozen=True)
class FingerprintSpec:
    """A named, seeded hash family with a width in bits.

    ``rabin``: Rabin–Karp modulo the largest prime below ``2^bits``, base drawn from the seed.
    ``crc32``: CRC-32 (as zlib). ``crc64``: CRC-64/XZ, low ``bits`` kept. ``xxh3``: XXH3-64 with
    the seed, low ``bits`` kept. ``multiset`` keeps repeated shingles with their counts.
    """

    family: str = param("rabin", OneOf(tuple(FAMILY_WIDTHS)))
    bits: int = param(64, Integer(32, 64))
    seed: int = param(0, Integer(0, MAX_SEED))
    multiset: bool = param(False, Boolean())

    def __post_init__(self) -> None:
        # said the old way: "unknown hash family" (a list or a dict is no family either)
        if not isinstance(self.family, str) or self.family not in FAMILY_WIDTHS:
            raise SpecError(
                f"unknown hash family {self.family!r}; expected one of {', '.join(FAMILY_WIDTHS)}"
            )
        low, high = FAMILY_WIDTHS[self.family]
        bits = self.bits
        if isinstance(bits, int) and not isinstance(bits, bool) and not low <= bits <= high:
            allowed = f"{low}" if low == high else f"{low} to {high}"
            raise SpecError(f"{self.family} takes a width of {allowed} bits, got {bits!r}")
        check_fields(self, "fingerprint")
        if self.seed and self.family not in SEEDED_FAMILIES:
            raise SpecError(f"{self.family} is a fixed standard function and takes no seed")

    def to_dict(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "bits": self.bits,
            "seed": self.seed,
            "multiset": self.multiset,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FingerprintSpec:
        return from_mapping(cls, data, "fingerprint spec")


@dataclass(frozen=True)
class SketchSpec:
    """How fingerprint sets are summarized into small sketches (see neardup.sketch).

    ``method``: ``"minhash"`` (``num_perm`` = N functions, min per function), ``"bottom_k"``
    (the ``num_perm`` = k smallest remixed fingerprints) or ``"mod_m"`` (the fingerprints whose
    remixed value is divisible by ``modulus``). ``seed`` derives every function. MinHash values
    are ``value_bits`` wide: 64, or 32 (the top half of the 64-bit value: half the storage).
    ``bands`` × ``rows`` groups the first ``bands·rows`` minhashes into supershingles / LSH
    band keys (M groups of L); give one of them and the other becomes ``num_perm`` divided by
    it, which must then divide evenly. ``mega`` adds megashingles (pairs of supershingles).
    ``family``: the MinHash functions — ``"splitmix"`` (the default: ``splitmix64(x ^ s_i)``,
    bijections of the 64-bit integers) or ``"affine"`` (the classic ``(a_i·x + b_i) mod p``,
    ``p = 2^61 - 1``, ``a_i``/``b_i`` drawn from the seed; see docs/sketches.md) or ``"oph1"``
    (one permutation hashing with optimal densification, version 1: one hash per element
    whatever ``num_perm``; :func:`neardup._kernels.minhash.densify`). The default
    is left out of :meth:`to_dict`, so specs (and their fingerprints) made before the field
    existed are unchanged.
    """

    #: Sketch methods (class constants, not fields).
    METHODS = ("minhash", "bottom_k", "mod_m")
    #: MinHash function families; the first is the default.
    FAMILIES = ("splitmix", "affine", "oph1")
    #: The most functions (or the largest k) a sketch may ask for.
    MAX_NUM_PERM = 1 << 16

    method: str = param("minhash", OneOf(METHODS))
    num_perm: int = param(128, Integer(1, MAX_NUM_PERM))
    seed: int = param(0, Integer(0, MAX_SEED))
    value_bits: int = param(64, OneOf((32, 64)))
    bands: int = param(0, Integer(0, MAX_NUM_PERM))
    rows: int = param(0, Integer(0, MAX_NUM_PERM))
    mega: bool = param(False, Boolean())
    modulus: int = param(0, Integer(0, 2**63))
    family: str = param("splitmix", OneOf(FAMILIES), label="MinHash family")

    def __post_init__(self) -> None:
        check_fields(self, "sketch")
        if self.family != "splitmix" and self.method != "minhash":
            raise SpecError(f"a MinHash family is for method 'minhash', not {self.method}")
        if self.method == "mod_m" and self.modulus < 1:
            raise SpecError("a mod_m sketch needs a modulus m >= 1")
        if self.method != "mod_m" and self.modulus:
            raise SpecError(f"modulus is for mod_m sketches only, not {self.method}")
        if (self.bands or self.rows) and self.method != "minhash":
            raise SpecError("bands and rows (supershingles, LSH) need method 'minhash'")
        if self.bands and not self.rows:
            if self.num_perm % self.bands:
                raise SpecError(
                    f"num_perm {self.num_perm} is not divisible by {self.bands} bands; "
                    "give --rows too, or a num_perm that is a multiple of the bands"
                )
            object.__setattr__(self, "rows", self.num_perm // self.bands)
        elif self.rows and not self.bands:
            if self.num_perm % self.rows:
                raise SpecError(
                    f"num_perm {self.num_perm} is not divisible by {self.rows} rows; "
                    "give --bands too, or a num_perm that is a multiple of the rows"
                )
            object.__setattr__(self, "bands", self.num_perm // self.rows)
        if self.bands * self.rows > self.num_perm:
            raise SpecError(
                f"{self.bands} bands × {self.rows} rows need {self.bands * self.rows} minhashes, "
                f"but num_perm is {self.num_perm}"
            )
        if self.mega and self.bands < 2:
            raise SpecError("megashingles pair supershingles: they need at least 2 bands")

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        if out["family"] == "splitmix":  # the default before the field existed: same JSON
            del out["family"]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SketchSpec:
        return from_mapping(cls, data, "sketch spec")


@public_methods
@dataclass(frozen=True)
class Spec:
    """Analyzer + shingles + fingerprints (+ an optional sketch): what results depend on."""

    analyzer: AnalyzerSpec
    shingles: ShingleSpec = field(default_factory=ShingleSpec)
    fingerprint_family: FingerprintSpec = field(default_factory=FingerprintSpec)
    sketch: SketchSpec | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "analyzer": self.analyzer.to_dict(),
            "shingles": self.shingles.to_dict(),
            "fingerprints": self.fingerprint_family.to_dict(),
        }
        if self.sketch is not None:
            out["sketch"] = self.sketch.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Spec:
        _refuse_unknown(data, ("analyzer", "shingles", "fingerprints", "sketch"), "spec")
        try:
            return cls(
                analyzer=AnalyzerSpec.from_dict(data["analyzer"]),
                shingles=ShingleSpec.from_dict(data.get("shingles", {})),
                fingerprint_family=FingerprintSpec.from_dict(data.get("fingerprints", {})),
                sketch=SketchSpec.from_dict(data["sketch"]) if data.get("sketch") else None,
            )
        except KeyError as exc:
            raise SpecError(f"a spec needs the key {exc.args[0]!r}") from None
        except (TypeError, AttributeError) as exc:
            raise SpecError(f"malformed spec: {exc}") from None

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Spec:
        try:
            return cls.from_dict(json.loads(text))
        except (json.JSONDecodeError, UnicodeDecodeError, TypeError, RecursionError) as exc:
            raise SpecError(f"a spec must be JSON: {exc}") from None

    def fingerprint(self) -> str:
        """A stable 16-hex-digit digest of everything that changes fingerprints."""
        payload = {
            "algorithm_version": ALGORITHM_VERSION,
            "spec": self.to_dict(),
            "resources": self.analyzer.resource_versions(),
        }
        canonical = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]

    def replace(self, **changes: Any) -> Spec:
        return replace(self, **changes)

    def fixed(self, short: bool = False) -> Spec:
        """This spec with its shingling made plain: that of long pairs, or of short ones."""
        return replace(self, shingles=self.shingles.fixed(short))

    def check_same(self, other: Spec | str, what: str = "data") -> None:
        """Raise :class:`SpecMismatchError` unless ``other`` (a spec or fingerprint) matches."""
        theirs = other if isinstance(other, str) else other.fingerprint()
        if theirs != self.fingerprint():
            raise SpecMismatchError(
                f"{what} was made under spec {theirs}, but this one is {self.fingerprint()}; "
                "fingerprints made under different specs cannot be compared"
            )


#: How an index decides on a new text, and how it finds candidates (see neardup.index).
INDEX_POLICIES = ("reject", "group", "allow")
INDEX_MEASURES = ("resemblance", "containment")
CANDIDATE_METHODS = ("winnow", "pmbf", "both")
#: What a text looks up in the postings: its own samples (collections made before lookup by
#: shingles) or every one of its shingles (the default since).
CANDIDATE_LOOKUPS = ("samples", "shingles")
#: Upper bounds of the index settings: far above any useful value, low enough to stay sane.
MAX_GROUP_CAP = 1_000_000
MAX_WINDOW = 4096
MAX_CANDIDATES = 1_000_000
MAX_POSTINGS_PER_SAMPLE = 1_000_000_000
#: The longest text length limit (characters) a collection may set.
MAX_TEXT_LENGTH = 2**40
MAX_PMBF_N = 100_000_000
#: The most sentence band keys a sentence may post.
MAX_SENTENCE_BANDS = 64
#: The band keys a sentence posts in a new collection: at 100,000 documents a check reports
#: the source of 0.85 (ru) and 0.87 (en) of the reworded sentences ``compare`` marks with 12,
#: of 0.70 and 0.62 with 6, for 67 postings a document more (docs/collection-check.md,
#: "Sentences").
DEFAULT_SENTENCE_BANDS = 12


@public_methods
@dataclass(frozen=True)
class IndexSpec:
    """The settings of a collection (neardup.index): decision policy and candidate generation.

    ``policy``: ``reject`` refuses a text whose ``measure`` reaches ``threshold`` against any
    member; ``group`` admits it into the duplicate group of its near-duplicates unless that
    group (merged with any others it bridges) would exceed ``group_cap`` members; ``allow``
    admits it and records the links. ``measure``: ``resemblance`` (Jaccard) or ``containment``
    (the larger of the two containments, so partial copies count either way).
    ``candidates``: ``winnow`` — an inverted index over the minimum of each window of ``window``
    consecutive shingle fingerprints (after a fixed remix), which guarantees that any shared run
    of at least ``window`` shingles shares a posting. At most ``max_candidates`` candidates (those
    sharing the most postings) are verified exactly per query. A sample posted by more than
    ``max_postings_per_sample`` documents (boilerplate: a script, a signature, a news agency's
    footer) brings only its newest that many as candidates; near-duplicates share many rarer
    samples, and a text with more copies than that still finds the newest of them (0: no limit).
    ``store_text`` keeps each text. ``min_length`` / ``max_length`` (characters of the decoded
    text, 0: no limit) admit only texts in that range, as the document store of the shingle-method
    paper does (2,000 to 6,000 characters, so that resemblance alone suffices): ``add`` refuses a
    text outside it with the reason ``too_short`` or ``too_long`` and ``check`` reports it.
    ``pmbf`` — the pseudo-matrix Bloom filter paper's pseudo-matrix Bloom filter (neardup.bloom):
    rows of ``pmbf_n`` shingles at false-positive rate ``pmbf_p``, a query's candidates are the
    documents of its ``pmbf_max_rows`` best rows whose count of member shingles stands out from the
    background (0: every such row); ``both`` — the union of the two (docs/bloom.md).
    ``short_window`` (under a length-adaptive spec, with postings): a long text also posts the
    minimum of every window of this many consecutive short shingles (word 1-grams), so that a
    short text — which looks up all its own — finds the document it was taken from; a short
    text posts all of them (0: long texts post none; docs/collection.md, "Short texts").
    ``lookup``: what a text looks up in the postings — ``shingles`` (every shingle of it: any
    run of ``window`` shingles shared with a stored text meets one of its samples, wherever the
    run lies in the text) or ``samples`` (its own winnowed samples: both sides must choose the
    same value, as collections made before this setting did; they read back with it).
    ``sentence_bands``: every sentence of a stored text (4 distinct terms or more) also posts
    this many min-hash band keys of its set of terms, and a checked text looks its sentences'
    keys up, so a single sentence copied, edited or reworded finds the document it came from
    and the second stage marks it (:mod:`neardup.index.sentences`; 0: none, as collections
    made before this setting, which read back with it). A collection that keeps no texts
    keeps no sentence keys: there is nothing to align them against.
    """

    policy: str = param("reject", OneOf(INDEX_POLICIES))
    measure: str = param("resemblance", OneOf(INDEX_MEASURES))
    threshold: float = param(DEFAULTS.threshold, Real(0.0, 1.0, low_open=True))
    group_cap: int = param(10, Integer(1, MAX_GROUP_CAP))
    candidates: str = param("winnow", OneOf(CANDIDATE_METHODS), label="candidate method")
    window: int = param(DEFAULTS.window, Integer(1, MAX_WINDOW))
    max_candidates: int = param(100, Integer(1, MAX_CANDIDATES))
    max_postings_per_sample: int = param(
        200, Integer(0, MAX_POSTINGS_PER_SAMPLE), label="max_postings_per_sample (0: no limit)"
    )
    store_text: bool = param(True, Boolean())
    min_length: int = param(0, Integer(0, MAX_TEXT_LENGTH), label="min_length (0: no limit)")
    max_length: int = param(0, Integer(0, MAX_TEXT_LENGTH), label="max_length (0: no limit)")
    pmbf_n: int = param(1000, Integer(16, MAX_PMBF_N), label="pmbf_n (shingles a row)")
    pmbf_p: float = param(0.001, Real(0.0, 0.5, low_open=True, high_open=True))
    pmbf_max_rows: int = param(50, Integer(0, MAX_CANDIDATES), label="pmbf_max_rows (0: all)")
    short_window: int = param(8, Integer(0, MAX_WINDOW), label="short_window (0: off)")
    lookup: str = param(DEFAULTS.lookup, OneOf(CANDIDATE_LOOKUPS), label="lookup")
    sentence_bands: int = param(
        DEFAULT_SENTENCE_BANDS, Integer(0, MAX_SENTENCE_BANDS), label="sentence_bands (0: off)"
    )

    def __post_init__(self) -> None:
        check_fields(self, "index")
        object.__setattr__(self, "pmbf_p", float(self.pmbf_p))
        object.__setattr__(self, "threshold", float(self.threshold))
        if self.max_length and self.min_length > self.max_length:
            raise SpecError(
                f"min_length {self.min_length} is above max_length {self.max_length}: "
                "no text could be admitted"
            )

    def length_refusal(self, length: int) -> str | None:
        """``"too_short"`` or ``"too_long"`` for a text of ``length`` characters outside the
        admitted range, ``None`` inside it."""
        if length < self.min_length:
            return "too_short"
        if self.max_length and length > self.max_length:
            return "too_long"
        return None

    def length_range(self) -> str:
        """The admitted range in words: "2000 to 6000 characters", "at least 2000 …"."""
        low, high = self.min_length, self.max_length
        if low and high:
            return f"{low} to {high} characters"
        if high:
            return f"at most {high} characters"
        if low:
            return f"at least {low} characters"
        return "any length"

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IndexSpec:
        return from_mapping(cls, data, "index spec")

    def replace(self, **changes: Any) -> IndexSpec:
        return replace(self, **changes)

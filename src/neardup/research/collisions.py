"""Fingerprint collisions: the birthday bound, and collisions counted on a real corpus.

Two shingles that differ but get the same fingerprint make two texts look more alike than they
are. The shingle-method paper ("Выбор размера сигнатуры") chooses the fingerprint width in two
steps, and this module redoes both:

* :func:`birthday_table` — the birthday-bound estimate (the paper's Table 2): for a hash of
  ``bits`` bits, a collision is likely once the number of distinct shingles reaches
  ``sqrt(2^bits)``, and its probability reaches ``P`` at ``sqrt(2 * 2^bits * ln(1/(1-P)))``.
* :class:`CollisionCounter` — the experiment (the paper's Table 3): hash every DISTINCT
  shingle of a corpus with several families and widths and count the pairs that share a
  value, beside the ``n(n-1)/2^(bits+1)`` pairs the birthday bound expects.

Distinct shingles are told apart by their text, never by one of the hashes under test: each
shingle gets a 128-bit identity, XXH3-64 and Rabin–Karp 64 of its canonical bytes under seeds
of their own (two unrelated constructions; the Rabin–Karp half has a proven bound: two different
strings of at most ``L`` bytes share its value for at most ``L`` of the ~2^64 bases). Two
different shingles share an identity with probability about 2^-64 · 2^-64 / (their length),
so among the ~5·10^13 pairs of ten million shingles the expected number of identity collisions
is below 10^-24: the identity is the text, for this purpose.

Everything per shingle runs in numba kernels, a chunk of documents at a time: the canonical
buffers of a chunk are concatenated and each family hashes them in one call.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._kernels import collisions as kernels
from neardup._kernels.md5 import md5_spans
from neardup.errors import InputError, SpecError
from neardup.fingerprints.hashing import (
    WIDE_FAMILY_WIDTHS,
    HashFamily,
    WideFamilySpec,
    WideHashFamily,
    expected_collisions,
    shingles_for_probability,
    splitmix64,
)
from neardup.fingerprints.pipeline import Pipeline
from neardup.fingerprints.shingles import char_shingle_spans, word_shingle_starts
from neardup.inputs import CorpusReader
from neardup.spec import FAMILY_WIDTHS, FingerprintSpec, Spec, default_bits

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

#: Hash widths of the paper's Table 2.
WIDTHS: tuple[int, ...] = (32, 40, 48, 56, 64, 72)
#: Collision probabilities of the paper's Table 2.
PROBABILITIES: tuple[float, ...] = (0.01, 0.1, 0.4)

#: The shingle-method paper, Table 2, as printed: bits → (Ns ≥ √Nr, Ns at P = 0.01, 0.1, 0.4).
PAPER_TABLE_2: dict[int, tuple[float, float, float, float]] = {
    32: (65536, 9291.486835, 30083.8817, 66241.66888),
    40: (1048576, 148663.7894, 481342.1072, 1059866.702),
    48: (16777216, 2378620.63, 7701473.715, 16957867.23),
    56: (268435456, 38057930.08, 123223579.4, 271325875.7),
    64: (4294967296, 608926881.2, 1971577271, 4341214012),
    72: (68719476736, 9742830100, 31545236336, 69459424188),
}
#: The shingle-method paper, Table 3: collisions counted on 10,376,876 shingles, by family as we
#: name it.
PAPER_TABLE_3: dict[str, int] = {
    "rabin:32": 13089,
    "crc32": 12320,
    "rabin:48": 0,
    "rabin:56": 0,
    "rabin:64": 0,
    "crc64": 0,
}
#: The number of shingles of the paper's experiment (some of them repeated).
PAPER_SHINGLES = 10_376_876

#: The families and widths counted by default: the shingle-method paper's Table 3, and MD5 at 32, 64
#: and 128 bits for the web-articles compilation's "32, 64 or 128 bits".
DEFAULT_FAMILIES: tuple[str, ...] = (
    "rabin:32",
    "rabin:48",
    "rabin:56",
    "rabin:64",
    "crc32",
    "crc64",
    "xxh3:32",
    "xxh3:64",
    "md5:32",
    "md5:64",
    "md5",
)

#: A family to count: a pipeline family (at most 64 bits) or a wide one (MD5, up to 128).
CountedFamily = FingerprintSpec | WideFamilySpec

#: Seeds of the two halves of the shingle identity (fixed: results must not depend on a run).
IDENTITY_XXH3_SEED = splitmix64(0x6E65617264757001)
IDENTITY_RABIN_SEED = splitmix64(0x6E65617264757002)

#: Documents are analyzed and hashed in chunks of about this many characters.
CHUNK_CHARS = 4_000_000


# --- the birthday bound (Table 2) -----------------------------------------------------------


@dataclass(frozen=True)
class BoundRow:
    """One width of the birthday-bound table."""

    bits: int
    #: ``sqrt(2^bits)``: the rough rule "a collision is likely from here on".
    likely_at: float
    #: collision probability → number of distinct shingles that reaches it.
    shingles: dict[float, float]

    def to_dict(self) -> dict[str, Any]:
        paper = PAPER_TABLE_2.get(self.bits)
        out: dict[str, Any] = {
            "bits": self.bits,
            "range": 1 << self.bits,
            "likely_at": self.likely_at,
            "shingles_for_probability": {_pkey(p): v for p, v in self.shingles.items()},
            "paper": None,
        }
        if paper is not None:
            out["paper"] = {
                "likely_at": paper[0],
                "shingles_for_probability": {
                    _pkey(p): v for p, v in zip(PROBABILITIES, paper[1:]) if p in self.shingles
                },
            }
        return out


def _pkey(probability: float) -> str:
    return repr(float(probability))


def birthday_table(
    widths: Sequence[int] = WIDTHS, probabilities: Sequence[float] = PROBABILITIES
) -> list[BoundRow]:
    """The birthday-bound table (the shingle-method paper, Table 2) for the given widths and
    probabilities."""
    rows = []
    for bits in widths:
        if not isinstance(bits, int) or not 1 <= bits <= 512:
            raise InputError(f"a hash width must be an integer from 1 to 512 bits, got {bits!r}")
        try:
            shingles = {float(p): shingles_for_probability(float(p), bits) for p in probabilities}
        except ValueError as exc:
            raise InputError(str(exc)) from None
        rows.append(BoundRow(bits, math.sqrt(2.0**bits), shingles))
    return rows


# --- expectations for a counted corpus --------------------------------------------------------


def expected_shared_values(distinct: float, bits: int) -> float:
    """Expected number of hash values taken by two or more of ``distinct`` uniform values:
    ``M * P(Poisson(n/M) >= 2)`` with ``M = 2^bits``."""
    m = 2.0**bits
    lam = distinct / m
    if lam < 1e-3:  # the series, free of the cancellation in 1 - e^-λ(1 + λ)
        tail = lam * lam / 2 - lam**3 / 3 + lam**4 / 8 - lam**5 / 30 + lam**6 / 144
    else:
        tail = -math.expm1(-lam) - lam * math.exp(-lam)
    return m * tail


def expected_lost(distinct: float, bits: int) -> float:
    """Expected ``distinct - (number of distinct hash values)``: ``n - M(1 - e^(-n/M))``."""
    m = 2.0**bits
    lam = distinct / m
    if lam < 1e-3:
        tail = lam * lam / 2 - lam**3 / 6 + lam**4 / 24 - lam**5 / 120 + lam**6 / 720
    else:
        tail = lam + math.expm1(-lam)
    return m * tail


# --- families --------------------------------------------------------------------------------


def parse_family(text: str) -> CountedFamily:
    """``FAMILY[:BITS[:SEED]]`` (``rabin:32``, ``crc64``, ``xxh3:64:7``, ``md5``) as a spec.

    Without BITS: 32 for crc32, 128 for md5, 64 for the others; without SEED: 0.
    """
    parts = text.strip().split(":")
    name = parts[0].strip().lower()
    if not name or len(parts) > 3:
        raise InputError(
            f"bad family {text!r}: expected FAMILY[:BITS[:SEED]], e.g. rabin:32 or crc64"
        )
    wide = name in WIDE_FAMILY_WIDTHS
    if name not in FAMILY_WIDTHS and not wide:
        raise InputError(
            f"bad family {text!r}: unknown family {name!r}; expected one of "
            f"{', '.join([*FAMILY_WIDTHS, *WIDE_FAMILY_WIDTHS])}"
        )
    try:
        if len(parts) > 1:
            bits = int(parts[1])
        else:
            bits = WIDE_FAMILY_WIDTHS[name][1] if wide else default_bits(name)
        seed = int(parts[2]) if len(parts) > 2 else 0
    except ValueError:
        raise InputError(f"bad family {text!r}: BITS and SEED must be integers") from None
    try:
        if wide:
            return WideFamilySpec(family=name, bits=bits, seed=seed)
        return FingerprintSpec(family=name, bits=bits, seed=seed)
    except SpecError as exc:
        raise SpecError(f"bad family {text!r}: {exc}") from None


def family_label(spec: CountedFamily) -> str:
    """The short name of a family: ``crc32``, ``crc64`` (64 bit), ``rabin:48``, ``xxh3:64:7``,
    ``md5`` (128 bit), ``md5:64``."""
    if isinstance(spec, WideFamilySpec):
        widest = WIDE_FAMILY_WIDTHS[spec.family][1]
        return spec.family if spec.bits == widest else f"{spec.family}:{spec.bits}"
    if spec.family in ("crc32", "crc64") and spec.bits == FAMILY_WIDTHS[spec.family][1]:
        label = spec.family
    else:
        label = f"{spec.family}:{spec.bits}"
    return f"{label}:{spec.seed}" if spec.seed else label


def parse_families(texts: Iterable[str]) -> list[CountedFamily]:
    """Several family strings (each may itself be comma-separated), duplicates dropped."""
    specs: list[CountedFamily] = []
    for text in texts:
        for item in text.split(","):
            if item.strip():
                spec = parse_family(item)
                if spec not in specs:
                    specs.append(spec)
    if not specs:
        raise InputError("no hash family given")
    return specs


# --- reading a corpus ------------------------------------------------------------------------


def corpus_files(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The files of a corpus as :mod:`neardup.inputs` lists them (folders by its rules)."""
    return [source.path for source in CorpusReader(paths, id_field=None).sources]


def iter_corpus(
    files: Sequence[str | os.PathLike[str]],
    *,
    text_field: str = "text",
    progress: Callable[[int], None] | None = None,
    **read_options: Any,
) -> Iterator[str]:
    """The texts of a corpus, read by :class:`neardup.inputs.CorpusReader` (records need no
    id here). ``progress`` gets the on-disk bytes consumed since its last call."""
    reader = CorpusReader(files, id_field=None, text_field=text_field, **read_options)
    reported = 0
    for doc in reader:
        yield doc.text
        if progress is not None and reader.bytes_read > reported:
            progress(reader.bytes_read - reported)
            reported = reader.bytes_read
    if progress is not None and reader.bytes_read > reported:
        progress(reader.bytes_read - reported)


# --- shingle spans of a chunk of documents ---------------------------------------------------


@dataclass
class ShingleChunk:
    """The canonical buffers of several documents, concatenated, and their shingles.

    Word shingles of documents with at least ``k`` tokens are given by their first tokens
    (``first_tokens`` into ``byte_starts``/``byte_ends``), so that Rabin–Karp rolls; the one
    shingle of a shorter document, and char shingles, are given as byte spans.
    """

    buf: npt.NDArray[np.uint8]
    byte_starts: I64
    byte_ends: I64
    first_tokens: I64
    span_starts: I64
    span_ends: I64
    documents: int

    def __len__(self) -> int:
        return int(self.first_tokens.shape[0] + self.span_starts.shape[0])

    @classmethod
    def of(cls, pipeline: Pipeline, texts: Sequence[str]) -> ShingleChunk:
        shingles = pipeline.spec.shingles
        k, step = shingles.k, shingles.step
        bufs: list[npt.NDArray[np.uint8]] = []
        byte_starts: list[I64] = []
        byte_ends: list[I64] = []
        firsts: list[I64] = []
        span_starts: list[I64] = []
        span_ends: list[I64] = []
        offset = 0
        n_tokens = 0
        for text in texts:
            canonical = pipeline.canonical(text)
            n = len(canonical)
            if n == 0:
                continue
            if shingles.unit == "word":
                byte_starts.append(canonical.byte_starts + offset)
                byte_ends.append(canonical.byte_ends + offset)
                if n >= k:
                    firsts.append(word_shingle_starts(n, k, step) + n_tokens)
                else:
                    span_starts.append(canonical.byte_starts[:1] + offset)
                    span_ends.append(canonical.byte_ends[n - 1 :] + offset)
                n_tokens += n
            else:
                starts, ends, _, _ = char_shingle_spans(canonical.buf, k, step)
                span_starts.append(starts + offset)
                span_ends.append(ends + offset)
            bufs.append(canonical.buf)
            offset += canonical.buf.shape[0]

        def cat(parts: list[I64]) -> I64:
            return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

        buf = np.concatenate(bufs) if bufs else np.zeros(0, dtype=np.uint8)
        return cls(
            buf,
            cat(byte_starts),
            cat(byte_ends),
            cat(firsts),
            cat(span_starts),
            cat(span_ends),
            len(texts),
        )

    def hashes(self, family: HashFamily, k: int) -> U64:
        """Every shingle's fingerprint under ``family``: rolled word shingles, then spans."""
        parts = []
        if self.first_tokens.shape[0]:
            parts.append(
                family.word_shingles(
                    self.buf, self.byte_starts, self.byte_ends, self.first_tokens, k
                )
            )
        if self.span_starts.shape[0]:
            parts.append(family.spans(self.buf, self.span_starts, self.span_ends))
        if not parts:
            return np.zeros(0, dtype=np.uint64)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def byte_spans(self, k: int) -> tuple[I64, I64]:
        """Every shingle's byte span in :attr:`buf`, in the order of :meth:`hashes`."""
        last = np.minimum(self.first_tokens + k, self.byte_starts.shape[0]) - 1
        starts = np.concatenate([self.byte_starts[self.first_tokens], self.span_starts])
        ends = np.concatenate([self.byte_ends[last], self.span_ends])
        return starts, ends


# --- counting --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FamilyCount:
    """Collisions of one family over the distinct shingles, beside the birthday bound."""

    spec: CountedFamily
    distinct: int
    #: pairs of distinct shingles with the same value (sum of r(r-1)/2 over runs of r)
    pairs: int
    #: values that two or more distinct shingles share
    shared_values: int
    #: distinct shingles minus distinct values (what a set of fingerprints loses)
    lost: int
    seconds: float

    @property
    def label(self) -> str:
        return family_label(self.spec)

    @property
    def expected_pairs(self) -> float:
        return expected_collisions(self.distinct, self.spec.bits)

    @property
    def z(self) -> float:
        """``(pairs - expected) / sqrt(expected)``: standard deviations of a Poisson count."""
        expected = self.expected_pairs
        if expected <= 0:
            return 0.0 if self.pairs == 0 else math.inf
        return (self.pairs - expected) / math.sqrt(expected)

    def to_dict(self) -> dict[str, Any]:
        return {
            "family": self.label,
            "hash": self.spec.family,
            "bits": self.spec.bits,
            "seed": self.spec.seed,
            "distinct_shingles": self.distinct,
            "colliding_pairs": self.pairs,
            "expected_pairs": self.expected_pairs,
            "z": self.z,
            "shared_values": self.shared_values,
            "expected_shared_values": expected_shared_values(self.distinct, self.spec.bits),
            "lost": self.lost,
            "expected_lost": expected_lost(self.distinct, self.spec.bits),
            "paper_pairs": PAPER_TABLE_3.get(self.label),
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class CollisionReport:
    """What :class:`CollisionCounter` found."""

    spec: Spec
    documents: int
    shingles: int
    distinct: int
    limit_reached: bool
    families: list[FamilyCount]
    seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "shingles": self.shingles,
            "distinct_shingles": self.distinct,
            "limit_reached": self.limit_reached,
            "spec": self.spec.to_dict(),
            "spec_fingerprint": self.spec.fingerprint(),
            "families": [f.to_dict() for f in self.families],
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
        }


class CollisionCounter:
    """Streams documents, keeps each distinct shingle once, and counts collisions per family.

    ``spec`` gives the analyzer and the shingles (its own fingerprint family is not used);
    ``families`` the hash families and widths to count; ``limit`` stops at that many distinct
    shingles (the first ones in reading order).
    """

    def __init__(
        self, spec: Spec, families: Sequence[CountedFamily], *, limit: int | None = None
    ) -> None:
        if limit is not None and limit <= 0:
            raise InputError(f"the shingle limit must be positive, got {limit}")
        if not families:
            raise InputError("no hash family given")
        self.spec = spec
        self.families = list(families)
        self.limit = limit
        self.pipeline = Pipeline(spec)
        self._hashers = [
            WideHashFamily(f) if isinstance(f, WideFamilySpec) else HashFamily(f)
            for f in self.families
        ]
        self._identity = (
            HashFamily(FingerprintSpec("xxh3", 64, seed=IDENTITY_XXH3_SEED)),
            HashFamily(FingerprintSpec("rabin", 64, seed=IDENTITY_RABIN_SEED)),
        )
        self._values: list[list[npt.NDArray[Any]]] = [[] for _ in self.families]
        capacity = 1 << 16
        self._table_hi = np.zeros(capacity, dtype=np.uint64)
        self._table_lo = np.zeros(capacity, dtype=np.uint64)
        self._used = np.zeros(capacity, dtype=np.bool_)
        self.documents = 0
        self.shingles = 0
        self.distinct = 0
        self.seconds = {"analysis": 0.0, "hashing": 0.0, "dedup": 0.0, "counting": 0.0}

    @property
    def full(self) -> bool:
        return self.limit is not None and self.distinct >= self.limit

    def _reserve(self, extra: int) -> None:
        capacity = self._table_hi.shape[0]
        if (self.distinct + extra) * 10 <= capacity * 7:
            return
        while (self.distinct + extra) * 10 > capacity * 7:
            capacity *= 2
        self._table_hi, self._table_lo, self._used = kernels.rehash(
            self._table_hi, self._table_lo, self._used, capacity
        )

    def add(self, texts: Sequence[str]) -> None:
        """Analyze, shingle and hash a chunk of documents; keep its new distinct shingles."""
        if self.full or not texts:
            return
        t0 = time.perf_counter()
        chunk = ShingleChunk.of(self.pipeline, texts)
        t1 = time.perf_counter()
        k = self.spec.shingles.k
        hi = chunk.hashes(self._identity[0], k)
        lo = chunk.hashes(self._identity[1], k)
        t2 = time.perf_counter()
        self._reserve(hi.shape[0])
        room = self.limit - self.distinct if self.limit is not None else hi.shape[0] + 1
        new, added = kernels.insert_new(self._table_hi, self._table_lo, self._used, hi, lo, room)
        t3 = time.perf_counter()
        if added:
            index = np.flatnonzero(new)
            digests: tuple[U64, U64] | None = None
            for values, hasher in zip(self._values, self._hashers):
                if isinstance(hasher, WideHashFamily):
                    # one MD5 per NEW distinct shingle, shared by every width
                    if digests is None:
                        starts, ends = chunk.byte_spans(k)
                        digests = md5_spans(chunk.buf, starts[index], ends[index])
                    hi, lo = hasher.truncate(*digests)
                    kept = np.stack([hi, lo]) if hasher.bits > 64 else lo
                else:
                    kept = chunk.hashes(hasher, k)[index]
                values.append(kept.astype(np.uint32) if hasher.bits <= 32 else kept)
        t4 = time.perf_counter()
        self.documents += len(texts)
        self.shingles += len(chunk)
        self.distinct += added
        self.seconds["analysis"] += t1 - t0
        self.seconds["hashing"] += (t2 - t1) + (t4 - t3)
        self.seconds["dedup"] += t3 - t2

    def add_all(
        self,
        texts: Iterable[str],
        *,
        chunk_chars: int = CHUNK_CHARS,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        """:meth:`add` every text, a chunk of about ``chunk_chars`` characters at a time,
        until the limit; ``progress`` gets the number of distinct shingles after each chunk."""
        batch: list[str] = []
        size = 0
        for text in texts:
            batch.append(text)
            size += len(text)
            if size >= chunk_chars:
                self.add(batch)
                batch, size = [], 0
                if progress is not None:
                    progress(self.distinct)
                if self.full:
                    return
        if batch:
            self.add(batch)
            if progress is not None:
                progress(self.distinct)

    def report(self) -> CollisionReport:
        """Sort each family's values of the distinct shingles and count equal neighbours."""
        counts = []
        for spec, parts in zip(self.families, self._values):
            t0 = time.perf_counter()
            if spec.bits > 64:  # (2, n): hi and lo halves, sorted together
                both = np.concatenate(parts, axis=1) if parts else np.zeros((2, 0), np.uint64)
                order = np.argsort(both[0])
                pairs, shared, lost = kernels.equal_runs_wide(both[0][order], both[1][order])
                size = both.shape[1]
            else:
                dtype = np.uint32 if spec.bits <= 32 else np.uint64
                values: Any = np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
                values.sort()
                pairs, shared, lost = kernels.equal_runs(values)
                size = values.shape[0]
            seconds = time.perf_counter() - t0
            self.seconds["counting"] += seconds
            counts.append(FamilyCount(spec, int(size), int(pairs), int(shared), int(lost), seconds))
        return CollisionReport(
            self.spec,
            self.documents,
            self.shingles,
            self.distinct,
            self.full,
            counts,
            dict(self.seconds),
        )


def count_collisions(
    texts: Iterable[str],
    spec: Spec,
    families: Sequence[CountedFamily] | Sequence[str],
    *,
    limit: int | None = None,
    chunk_chars: int = CHUNK_CHARS,
) -> CollisionReport:
    """Collisions of each family over the distinct shingles of ``texts`` (see the module)."""
    specs = [parse_family(f) if isinstance(f, str) else f for f in families]
    counter = CollisionCounter(spec, specs, limit=limit)
    counter.add_all(texts, chunk_chars=chunk_chars)
    return counter.report()

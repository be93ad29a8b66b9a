"""One analysis chain run over a text: char filters, tokenizer and token filters give the
canonical token stream (:class:`Canonical`), and the plan by which the batch kernels run the
chain over many texts (:class:`BatchPlan`).

The result keeps, for every token, its half-open character span in the ORIGINAL input, through
every char filter's offset map. When no token filter is configured the tokens are never made
into Python strings: the canonical UTF-8 stream is built straight from code points.

Fast path: when a chain's char filters are only ``nfkc``, ``lowercase``, ``yo`` and
``strip_marks`` (after an ``html`` filter in ``auto`` mode that finds no HTML), the chain is a
per-character map for almost every document, and one kernel
(:func:`neardup._kernels.text.fused_words`) runs the filters, the tokenizer and the encoder over
the code points with one lookup table. A document with any character the table marks (see
:func:`neardup.analysis.char_filters.fused_table`) takes the general path, so the output is
the same either way; the tests and ``benchmarks/identity_check.py`` compare the two.

A chain with ``keep_if_all_dropped`` whose token filters leave a text with words no term
gives it the terms of :attr:`Chain.keeping` instead (the chain without the filters that drop
words). Every path meets that rule here: the batch kernels send such a text to this path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._kernels import text as text_kernels
from neardup.analysis import char_filters, evasion, registry
from neardup.analysis.compiled import CompiledFilters
from neardup.analysis.offsets import OffsetMap, compose
from neardup.analysis.tricks import NONE, Tricks
from neardup.spec import ChainSpec

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Canonical:
    """A document's canonical token stream, ready for shingling.

    ``buf`` holds the canonical terms in UTF-8 joined by single spaces; token ``t`` is
    ``buf[byte_starts[t]:byte_ends[t]]`` and came from ``source[starts[t]:ends[t]]``.
    ``tricks``: what the ``fold`` char filter found and undid (spans in the source; empty for
    a clean text or a chain without the filter).
    """

    buf: npt.NDArray[np.uint8]
    byte_starts: IntArray
    byte_ends: IntArray
    starts: IntArray
    ends: IntArray
    language: str
    tricks: Tricks = NONE

    def __len__(self) -> int:
        return int(self.byte_starts.shape[0])

    @property
    def terms(self) -> list[str]:
        data = self.buf.tobytes()
        return [
            data[a:b].decode("utf-8")
            for a, b in zip(self.byte_starts.tolist(), self.byte_ends.tolist(), strict=True)
        ]

    @property
    def text(self) -> str:
        """The canonical text: terms joined by single spaces."""
        return self.buf.tobytes().decode("utf-8")


class Chain:
    """One chain of an analyzer spec, built: its char filters, tokenizer settings and token
    filters (compiled into tables when they can be), and the fused kernel's table."""

    def __init__(self, spec: ChainSpec, compile_filters: bool = True) -> None:
        self.spec = spec
        self._compile_filters = compile_filters
        self._keeping: Chain | None = None
        self.char_filters: list[Callable[[str], tuple[str, OffsetMap | None]]] = [
            registry.build("char filter", c) for c in spec.char_filters
        ]
        registry.build("tokenizer", spec.tokenizer)
        self.join_hyphens = bool(spec.tokenizer.param("hyphens", True))
        self.keep_numbers = bool(spec.tokenizer.param("numbers", True))
        self.token_filters: list[Callable[[list[str]], Any]] = [
            registry.build("token filter", c) for c in spec.token_filters
        ]
        self.compiled = (
            CompiledFilters(spec, self.token_filters)
            if compile_filters and self.token_filters
            else None
        )
        self._fast_filters = _fusable(spec)
        self.folds = any(c.name == "fold" for c in spec.char_filters)
        self._fast_table: char_filters.FusedTable | None = None
        self._html_check = (
            bool(spec.char_filters)
            and spec.char_filters[0].name == "html"
            and (spec.char_filters[0].param("mode", "auto") == "auto")
        )

    def fast_scan(self, text: str, count_letters: bool = False) -> Scan | None:
        """The fused kernel's tokens of ``text``, or ``None`` when it must take the general
        path (a chain that cannot be fused, HTML, or a character the table marks). With
        ``count_letters``, the scan also counts what :func:`dominant_language` counts."""
        if self._fast_filters is None:
            return None
        if self._html_check and char_filters.might_be_html(text):
            return None
        tables = self.fused_tables()
        if tables is None:
            return None
        table, exp_offsets = tables
        cps = text_kernels.code_points(text)
        if self.folds and evasion.might_have_tricks(cps):
            return None
        ok, buf, byte_starts, byte_ends, starts, ends, cyrillic, latin = text_kernels.fused_words(
            cps,
            table,
            char_filters.FAST_DOMAIN,
            exp_offsets,
            self.join_hyphens,
            self.keep_numbers,
            count_letters,
        )
        if not ok:
            return None
        return Scan(buf, byte_starts, byte_ends, starts, ends, cyrillic, latin)

    def fused_tables(self) -> char_filters.FusedTable | None:
        """The fused kernel's lookup table of this chain (built once), or ``None`` when the
        chain cannot be fused."""
        if self._fast_filters is None:
            return None
        tables = self._fast_table
        if tables is None:
            tables = self._fast_table = char_filters.fused_table(self._fast_filters)
            if tables is None:
                self._fast_filters = None
        return tables

    def batch_plan(self, language: str) -> BatchPlan | None:
        """The :class:`BatchPlan` of this chain, or ``None`` (token filters not compiled, or no
        fusion)."""
        if self.token_filters and self.compiled is None:
            return None
        tables = self.fused_tables()
        if tables is None:
            return None
        table, exp_offsets = tables
        return BatchPlan(
            html_check=self._html_check,
            table=table,
            domain=char_filters.FAST_DOMAIN,
            exp_offsets=exp_offsets,
            join_hyphens=self.join_hyphens,
            keep_numbers=self.keep_numbers,
            language=language,
            compiled=self.compiled,
            folds=self.folds,
        )

    @property
    def keeping(self) -> Chain | None:
        """What this chain makes of a text it would leave with no term although the text has
        words (``keep_if_all_dropped``): the chain without its filters that drop words; or
        ``None`` when the chain has no such rule."""
        if not self.spec.keep_if_all_dropped:
            return None
        keeping = self._keeping
        if keeping is None:
            keeping = self._keeping = Chain(
                registry.keeping_words(self.spec), self._compile_filters
            )
        return keeping

    def finish(self, scan: Scan, language: str, whole: bool = True) -> Canonical:
        """The canonical stream of a :meth:`fast_scan`, through the token filters. ``whole``:
        the scan is the whole text, so ``keep_if_all_dropped`` applies (a piece of a long text
        leaves it to the whole, :mod:`neardup.analysis.chunked`)."""
        if not self.token_filters:
            return Canonical(
                scan.buf, scan.byte_starts, scan.byte_ends, scan.starts, scan.ends, language
            )
        if self.compiled is not None:
            out = Canonical(
                *self.compiled.apply(
                    scan.buf, scan.byte_starts, scan.byte_ends, scan.starts, scan.ends
                ),
                language,
            )
        else:
            terms = scan.buf.tobytes().decode("utf-8").split(" ") if scan.starts.shape[0] else []
            out = self._filter_terms(terms, scan.starts, scan.ends, language)
        keeping = self.keeping if whole and not len(out) and scan.starts.shape[0] else None
        return keeping.finish(scan, language) if keeping is not None else out

    def filter_chars(self, text: str) -> tuple[str, OffsetMap | None]:
        offsets: OffsetMap | None = None
        for char_filter in self.char_filters:
            text, step = char_filter(text)
            evasion.locate(offsets)  # what ``fold`` found, into the original's coordinates
            offsets = compose(offsets, step)
        return text, offsets

    def canonical(
        self, text: str, offsets: OffsetMap | None, language: str, whole: bool = True
    ) -> Canonical:
        """The canonical stream of ``text`` (filtered by the char filters; ``offsets`` map it
        to the source). ``whole``: as in :meth:`finish`."""
        out = self._canonical(text, offsets, language)
        keeping = self.keeping if whole and not len(out) else None
        return keeping._canonical(text, offsets, language) if keeping is not None else out

    def _canonical(self, text: str, offsets: OffsetMap | None, language: str) -> Canonical:
        cps = text_kernels.code_points(text)
        tok_starts, tok_ends = text_kernels.tokenize_words(
            cps, text_kernels.char_classes(), self.join_hyphens, self.keep_numbers
        )
        if offsets is None:
            orig_starts, orig_ends = tok_starts, tok_ends
        else:
            orig_starts, orig_ends = offsets.spans(tok_starts, tok_ends)
        if not self.token_filters:
            buf, byte_starts, byte_ends = text_kernels.encode_tokens(cps, tok_starts, tok_ends)
            return Canonical(buf, byte_starts, byte_ends, orig_starts, orig_ends, language)
        if self.compiled is not None:
            buf, byte_starts, byte_ends = text_kernels.encode_tokens(cps, tok_starts, tok_ends)
            return Canonical(
                *self.compiled.apply(buf, byte_starts, byte_ends, orig_starts, orig_ends),
                language,
            )
        # the tokens as str: joined by spaces in one kernel call, then split (C speed, not a
        # Python slice per token); a token never holds a space, so the split is exact
        if tok_starts.shape[0]:
            joined, _, _ = text_kernels.encode_tokens(cps, tok_starts, tok_ends)
            terms = joined.tobytes().decode("utf-8").split(" ")
        else:
            terms = []
        return self._filter_terms(terms, orig_starts, orig_ends, language)

    def _filter_terms(
        self, terms: list[str], orig_starts: IntArray, orig_ends: IntArray, language: str
    ) -> Canonical:
        for token_filter in self.token_filters:
            terms, keep = token_filter(terms)
            if keep is not None:
                orig_starts = orig_starts[keep]
                orig_ends = orig_ends[keep]
        return canonical_of_terms(terms, orig_starts, orig_ends, language)


@dataclass(frozen=True)
class BatchPlan:
    """What a batch kernel needs to run an analyzer's whole chain (char filters, tokenizer,
    UTF-8 encoder) over the code points of many documents in one call: the fused path of
    :func:`~neardup._kernels.text.fused_words`, for an analyzer of one chain whose char filters
    can all be fused and whose token filters, if any, are ``compiled`` into tables (the
    ``plain``-like presets, and ``ru``).

    ``table``, ``domain`` and ``exp_offsets`` are the fused lookup table
    (:func:`~neardup.analysis.char_filters.fused_table`); a document the kernel reports as not
    done (a character the table marks) goes through :meth:`Analyzer.canonical` instead, and so
    does one for which :meth:`takes` is false (bytes, or text that might be HTML when the chain
    starts with an ``html`` filter in ``auto`` mode). Either way the tokens are the same.
    """

    html_check: bool
    table: npt.NDArray[np.uint64]
    domain: int
    exp_offsets: IntArray
    join_hyphens: bool
    keep_numbers: bool
    language: str
    compiled: CompiledFilters | None = None
    #: the chain has the ``fold`` filter: a text its scan flags takes the per-document path
    folds: bool = False

    def takes(self, text: object) -> bool:
        """Whether the batch kernel may try ``text`` (a str that is not HTML to strip)."""
        return isinstance(text, str) and not (self.html_check and char_filters.might_be_html(text))

    def kernel_args(self) -> tuple[Any, ...]:
        """The fused analyzer's arguments of the batch kernels, after ``todo``."""
        return (self.table, self.domain, self.exp_offsets, self.join_hyphens, self.keep_numbers)

    def code_points(
        self, texts: Sequence[object]
    ) -> tuple[npt.NDArray[np.uint32], IntArray, npt.NDArray[np.bool_]]:
        """What a batch kernel reads of ``texts``: their code points joined, each one's start
        (``n + 1`` offsets), and which ones it may try (:meth:`takes`; the others are left
        empty)."""
        n = len(texts)
        todo = np.empty(n, dtype=np.bool_)
        parts: list[str] = []
        for d, text in enumerate(texts):
            ok = self.takes(text)
            todo[d] = ok
            parts.append(text if ok else "")  # type: ignore[arg-type]
        lengths = np.fromiter(map(len, parts), dtype=np.int64, count=n)
        doc_offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lengths, out=doc_offsets[1:])
        cps = text_kernels.str_code_points("".join(parts))
        if self.folds:
            todo &= ~evasion.tricks_batch(cps, doc_offsets, todo)
        return cps, doc_offsets, todo


def route_batch(
    plans: Sequence[tuple[str, BatchPlan]], texts: Sequence[object]
) -> tuple[npt.NDArray[np.uint32], IntArray, list[tuple[BatchPlan, npt.NDArray[np.bool_]]]]:
    """What the batch kernels read of ``texts`` (their code points joined, and ``n + 1``
    offsets), and which texts each chain's plan takes: under one chain, every text its plan
    :meth:`~BatchPlan.takes`; under a chain per language (``auto``), each text goes to the
    chain :meth:`Analyzer.canonical` would choose, by the Cyrillic and Latin letters of its
    text filtered by the first chain (counted in one nogil call for the batch), or to none
    (the per-document path) when the first chain's fused kernel cannot take it."""
    first = plans[0][1]
    cps, doc_offsets, todo = first.code_points(texts)
    if len(plans) == 1:
        return cps, doc_offsets, [(first, todo)]
    from neardup._kernels.sign_batch import letter_counts_batch

    counted, cyrillic, latin = letter_counts_batch(cps, doc_offsets, todo, *first.kernel_args())
    # each text's chain: the one named for its language, else the first
    names = [language for language, _ in plans]
    chosen = np.where(
        cyrillic > latin,
        names.index("ru") if "ru" in names else 0,
        names.index("en") if "en" in names else 0,
    )
    groups = []
    for i, (_, plan) in enumerate(plans):
        mine = counted & (chosen == i)
        if plan.html_check != first.html_check:
            mine &= np.fromiter(map(plan.takes, texts), dtype=np.bool_, count=len(texts))
        if mine.any():
            groups.append((plan, mine))
    return cps, doc_offsets, groups


@dataclass(frozen=True)
class Scan:
    """What :func:`~neardup._kernels.text.fused_words` made of a text."""

    buf: npt.NDArray[np.uint8]
    byte_starts: IntArray
    byte_ends: IntArray
    starts: IntArray
    ends: IntArray
    cyrillic: int
    latin: int

    @property
    def language(self) -> str:
        """:func:`dominant_language` of the filtered text."""
        return "ru" if self.cyrillic > self.latin else "en"


def _fusable(spec: ChainSpec) -> tuple[str, ...] | None:
    """The char filter names the fused kernel runs for this chain, or ``None`` if it cannot:
    an optional leading ``html`` filter (``auto`` mode is checked per text, ``never`` does
    nothing, ``always`` cannot be fused), then only :data:`~char_filters.FAST_FILTERS`."""
    filters = list(spec.char_filters)
    if spec.tokenizer.name != "words":
        return None
    if filters and filters[0].name == "html":
        if filters[0].param("mode", "auto") not in ("auto", "never"):
            return None
        filters = filters[1:]
    names = tuple(c.name for c in filters)
    if any(name not in char_filters.FAST_FILTERS for name in names):
        return None
    if any(c.params for c in filters):
        return None
    return names


def canonical_of_terms(
    terms: list[str], starts: IntArray, ends: IntArray, language: str
) -> Canonical:
    """A canonical stream of ``terms`` (their spans ``starts``/``ends`` in the source)."""
    # Filters may leave an empty term (a lemma never is, but a thesaurus could map to ""): drop it.
    if terms and not all(terms):
        keep = np.fromiter((bool(t) for t in terms), dtype=np.bool_, count=len(terms))
        terms = [t for t in terms if t]
        starts, ends = starts[keep], ends[keep]
    joined = " ".join(terms)
    cps = text_kernels.code_points(joined)
    lengths = np.fromiter(map(len, terms), dtype=np.int64, count=len(terms))
    tok_starts = np.zeros(len(terms), dtype=np.int64)
    if len(terms) > 1:
        tok_starts[1:] = np.cumsum(lengths[:-1] + 1)
    buf, byte_starts, byte_ends = text_kernels.encode_tokens(cps, tok_starts, tok_starts + lengths)
    return Canonical(buf, byte_starts, byte_ends, starts, ends, language)


def dominant_language(text: str) -> str:
    """``ru`` when Cyrillic letters outnumber Latin ones, otherwise ``en``."""
    cyrillic, latin = letter_counts(text)
    return "ru" if cyrillic > latin else "en"


def letter_counts(text: str) -> tuple[int, int]:
    """Cyrillic and Latin letters of ``text``: what :func:`dominant_language` compares."""
    return code_point_letter_counts(text_kernels.code_points(text))


def code_point_letter_counts(cps: npt.NDArray[np.uint32]) -> tuple[int, int]:
    """:func:`letter_counts` of a text's code points (Cyrillic-block and ASCII letters)."""
    cyrillic = np.count_nonzero((cps >= 0x400) & (cps < 0x530))
    folded = cps | np.uint32(0x20)
    latin = np.count_nonzero((folded >= 0x61) & (folded <= 0x7A))
    return int(cyrillic), int(latin)

"""A long text analyzed a piece at a time, with the same result as in one go.

The analyzer's working memory is a large multiple of the text: code points as uint32, offset
maps as two int64 arrays per character for each char filter that moves characters, token spans
before filtering, and the terms as Python strings for the token filters (~100 bytes a word).
For one huge text (a whole book in one line) that is tens of times its size. Here a text longer
than :data:`CHUNK_CHARS` characters is cut into pieces at places where nothing of the chain
reaches across, each piece is analyzed alone, and the pieces' canonical streams are joined
with their spans shifted: the working memory is that of one piece, the result that of the
whole text, identical (``tests/analysis/test_chunked.py`` and ``benchmarks/identity_check.py``
compare).

Why a cut changes nothing. A cut goes just after an ASCII white-space character and before a
character that NFKC never composes with what precedes it (:func:`char_filters.nfkc_boundary`):

* the tokenizer: a token never holds white space, and the joiners (hyphen, apostrophe,
  decimal mark) need a word character on both sides;
* ``nfkc``: a normalization boundary lies before such a character, so the NFKC of the text is
  the NFKC of its pieces, and no run of the filter crosses the cut; when the filter would
  normalize a whole text word by word (a composition across its runs, rare scripts), it says
  so (:class:`char_filters.WholeTextNeeded`) and the text is analyzed in one go instead;
* ``lowercase``: the one context-dependent mapping, final sigma, looks past case-ignorable
  characters only, and white space is not one; ``yo`` and ``strip_marks`` map characters or
  runs of marks, and a mark is not white space;
* token filters (stop words, parts of speech, lemmas, stems, synonyms, length) look at one
  token at a time; the one rule over the whole text, a chain's ``keep_if_all_dropped`` (a text
  its filters leave with no term keeps its words), is applied to the joined pieces;
* ``html``: a text that looks like HTML is never cut (the filter reads the whole page); for
  any other text the filter passes it unchanged, so the pieces skip it;
* ``auto`` (a chain per language): the letters are counted over every piece first, as the
  whole-text decision counts them, and the pieces then go through the chosen chain.

A chain with any other component is not cut.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

import numpy as np

from neardup.analysis import char_filters
from neardup.analysis.chain import Canonical, Chain, letter_counts
from neardup.analysis.offsets import OffsetMap, compose

#: Texts longer than this many characters are analyzed a piece of about this size at a time.
CHUNK_CHARS = 1 << 18
#: The char filters a cut cannot change (``html`` is handled apart).
_LOCAL_FILTERS = frozenset({"nfkc", "lowercase", "yo", "strip_marks"})
_WHITE = (" ", "\n", "\t", "\r")

CharFilter = Callable[[str], tuple[str, OffsetMap | None]]


class Chains(Protocol):
    """What a long text's analysis reads of an :class:`~neardup.analysis.analyzer.Analyzer`
    (the analyzer imports this module, so this module names no analyzer)."""

    @property
    def chains(self) -> Mapping[str, Chain]:
        """The chains by language, the first deciding the language when there are several."""
        ...

    @property
    def routed(self) -> bool:
        """Whether each text goes to the chain of its language."""
        ...


def cut_points(text: str, size: int) -> list[int] | None:
    """Offsets ``0 = c_0 < c_1 < … < c_m = len(text)`` of pieces of about ``size`` characters,
    each cut after white space and before a character with a normalization boundary before
    it; ``None`` when the text cannot be cut (no such place in some stretch of ``size``)."""
    n = len(text)
    cuts = [0]
    pos = 0
    while n - pos > size:
        cut = _cut_before(text, pos + size, pos + 1)
        if cut is None:
            return None
        cuts.append(cut)
        pos = cut
    cuts.append(n)
    return cuts


def _cut_before(text: str, end: int, low: int) -> int | None:
    """The last cut place ``p`` with ``low <= p <= end``."""
    hi = end
    while hi > low:
        i = max(text.rfind(w, low - 1, hi) for w in _WHITE)
        if i < 0:
            return None
        p = i + 1
        if p <= end and p < len(text) and char_filters.nfkc_boundary(text[p]):
            return p
        hi = i
    return None


def _filters_of(chain: Chain) -> list[CharFilter] | None:
    """The chain's char filters to run on a piece, or ``None`` if the chain cannot be cut."""
    spec = chain.spec
    if spec.tokenizer.name != "words":
        return None
    components = list(spec.char_filters)
    filters = list(chain.char_filters)
    if components and components[0].name == "html":
        if components[0].param("mode", "auto") not in ("auto", "never"):
            return None
        components, filters = components[1:], filters[1:]
    # ``fold`` changes nothing in a text its scan passes, checked whole by canonical()
    kept = [(c, f) for c, f in zip(components, filters, strict=True) if c.name != "fold"]
    components, filters = [c for c, _ in kept], [f for _, f in kept]
    if any(c.name not in _LOCAL_FILTERS for c in components):
        return None
    return filters


def _looks_like_html(chain: Chain, text: str) -> bool:
    components = chain.spec.char_filters
    return (
        bool(components)
        and components[0].name == "html"
        and components[0].param("mode", "auto") == "auto"
        and char_filters.might_be_html(text)
    )


def _filter(filters: list[CharFilter], text: str) -> tuple[str, OffsetMap | None]:
    offsets: OffsetMap | None = None
    for char_filter in filters:
        text, step = char_filter(text)
        offsets = compose(offsets, step)
    return text, offsets


def _piece(chain: Chain, filters: list[CharFilter], text: str, language: str) -> Canonical:
    """What :meth:`Analyzer.canonical` makes of ``text`` with this chain (html skipped), but
    for ``keep_if_all_dropped``, which the whole text decides."""
    scan = chain.fast_scan(text)
    if scan is not None:
        return chain.finish(scan, language, whole=False)
    filtered, offsets = _filter(filters, text)
    return chain.canonical(filtered, offsets, language, whole=False)


def _letters(chain: Chain, filters: list[CharFilter], text: str) -> tuple[int, int]:
    """Cyrillic and Latin letters of the chain's filtered ``text`` (what decides the language)."""
    scan = chain.fast_scan(text, count_letters=True)
    if scan is not None:
        return scan.cyrillic, scan.latin
    return letter_counts(_filter(filters, text)[0])


def canonical(analyzer: Chains, text: str, size: int | None = None) -> Canonical | None:
    """:meth:`Analyzer.canonical` of ``text`` a piece at a time, or ``None`` when the text is
    short, looks like HTML, or its chain cannot be cut (the caller then analyzes it whole)."""
    size = CHUNK_CHARS if size is None else size
    if len(text) <= size:
        return None
    chains = analyzer.chains
    first_lang, first = next(iter(chains.items()))
    first_filters = _filters_of(first)
    if first_filters is None or _looks_like_html(first, text):
        return None
    cuts = cut_points(text, size)
    if cuts is None:
        return None
    if any(chain.folds for chain in chains.values()):
        from neardup.analysis.evasion import might_have_tricks_in

        if might_have_tricks_in(text, cuts):
            return None  # something to fold: analysed whole
    token = char_filters.PIECEWISE.set(True)
    try:
        chain, filters, lang = first, first_filters, first_lang
        if analyzer.routed:
            cyrillic = latin = 0
            for a, b in zip(cuts[:-1], cuts[1:], strict=True):
                c, lat = _letters(first, first_filters, text[a:b])
                cyrillic += c
                latin += lat
            language = "ru" if cyrillic > latin else "en"
            chain = chains.get(language, first)
            lang = language if language in chains else first_lang
            chain_filters = _filters_of(chain)
            if chain_filters is None or _looks_like_html(chain, text):
                return None
            filters = chain_filters
        parts = [
            _piece(chain, filters, text[a:b], lang)
            for a, b in zip(cuts[:-1], cuts[1:], strict=True)
        ]
        keeping = chain.keeping
        if keeping is not None and not any(len(p) for p in parts):
            # every word dropped: the whole text keeps its words (none left: no words at all)
            parts = [
                _piece(keeping, filters, text[a:b], lang)
                for a, b in zip(cuts[:-1], cuts[1:], strict=True)
            ]
    except char_filters.WholeTextNeeded:
        return None
    finally:
        char_filters.PIECEWISE.reset(token)
    return _join(parts, cuts[:-1], lang)


def _join(parts: list[Canonical], offsets: list[int], language: str) -> Canonical:
    """One canonical stream of the pieces' streams: buffers joined by a space, spans shifted."""
    n_tokens = sum(len(p) for p in parts)
    full = [p for p in parts if len(p)]
    n_bytes = sum(int(p.buf.shape[0]) for p in full) + max(len(full) - 1, 0)
    buf = np.full(n_bytes, ord(" "), dtype=np.uint8)
    byte_starts = np.empty(n_tokens, dtype=np.int64)
    byte_ends = np.empty(n_tokens, dtype=np.int64)
    starts = np.empty(n_tokens, dtype=np.int64)
    ends = np.empty(n_tokens, dtype=np.int64)
    at_byte = at_token = 0
    parts.reverse()  # popped in text order, so each piece is freed once copied
    for shift in offsets:
        part = parts.pop()
        n = len(part)
        if not n:
            continue
        size = int(part.buf.shape[0])
        buf[at_byte : at_byte + size] = part.buf
        sl = slice(at_token, at_token + n)
        np.add(part.byte_starts, at_byte, out=byte_starts[sl])
        np.add(part.byte_ends, at_byte, out=byte_ends[sl])
        np.add(part.starts, shift, out=starts[sl])
        np.add(part.ends, shift, out=ends[sl])
        at_byte += size + 1
        at_token += n
    return Canonical(buf, byte_starts, byte_ends, starts, ends, language)

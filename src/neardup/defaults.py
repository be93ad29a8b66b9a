"""The one table of defaults and bounds the library, the CLI and the web API share.

A default that one entry point sets apart from the others gives one text several answers, so
the defaults a user meets in more than one entry point (the analyzer, the shingles, the scores,
the similarity threshold, the matches reported and their bound, the second stage) live here,
once, with the reason for each; the library's signatures, the CLI's options and the API's
fields take them from :data:`DEFAULTS` (and :data:`TOP_MAX`), and ``tests/test_defaults.py``
walks those three and checks each default and bound against this module. Settings of one
entry point only (the service's limits, a spec's own fields and their bounds in
:mod:`neardup.spec`) stay where they are used.

This module imports nothing heavy: the CLI reads it at start-up.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

#: Texts whose shorter side has fewer canonical tokens than this are compared on word 1-grams
#: (5-word shingles cannot tell a sentence from a rewrite of it); ``spec.DEFAULT_SHORT_BELOW``.
SHORT_BELOW = 32

#: The most matches a check lists (``top``): ``index check --top``, the API's ``top`` and
#: ``Collection.check(top=...)`` take 1 to this many. It bounds the list only: the figure
#: counts every source found, up to the work limit below.
TOP_MAX = 100
#: The largest offset or stored integer a request may name: a signed 64-bit integer, the most
#: SQLite and PostgreSQL take (beyond it a request is a 422, not a store's overflow).
OFFSET_MAX = 2**63 - 1

#: The work limit of a check's figure: the uniqueness, borrowed and cited shares count the
#: passages of every source the candidates find, strongest first, until this many sources or
#: this many characters of their stored texts have been aligned (the sources listed, ``top``,
#: are always aligned). A text pasted together from many documents gets its figure from all of
#: them, not from the few a report lists; the limit only keeps one check's cost bounded (a
#: source costs its analysis and alignment, about a millisecond of CPU per thousand characters
#: of news: ``benchmarks/check_counted.py``, so the characters' bound is about two seconds),
#: and a check that reaches it says so (``CheckResult.limited``). 200 sources of ordinary
#: length (essays, articles: 2,000 to 10,000 characters) fit under the characters' bound; a
#: text taken from more sources than that is far past any teacher's doubt. The candidates a
#: collection verifies (``IndexSpec.max_candidates``, 100 unless it was created with more)
#: bound the sources found before this does; a check that reaches them says so too.
COUNTED_SOURCES_MAX = 200
COUNTED_CHARACTERS_MAX = 2_000_000


@dataclass(frozen=True)
class Defaults:
    """Every default an entry point applies (see each field)."""

    #: The analyzer: ``ru`` (lemmas) or ``en`` (stems) per text by its script.
    preset: str = "auto"
    #: Shingles: words, ``k`` per shingle, and the length rule :data:`SHORT_BELOW` (0: off).
    #: An explicit ``--unit``/``-k`` turns the rule off unless ``--short-below`` is given too:
    #: an option the user gives wins over a default rule.
    unit: str = "word"
    k: int = 5
    short_below: int = SHORT_BELOW
    #: How two texts are scored (``compare``, ``eval``): ``combined`` (the calibrated score of
    #: :mod:`neardup.score.combined`, first) or ``sets`` (the shingle-set measures only).
    score: str = "combined"
    #: How a matrix of texts is scored (``matrix``, ``similarity_matrix``, ``/api/matrix``).
    matrix: str = "combined"
    #: Whether the copied passages are listed (``compare``, ``index check``, the API): off, as
    #: they make the answer long; the page asks for them.
    fragments: bool = False
    #: Quoted and referenced passages count as cited, apart from borrowed.
    citations: bool = True
    #: The second stage also finds passages whose sentences were reworded (synonyms, another
    #: word order, changed grammar; :mod:`neardup.passages.rewrites`) and counts them as borrowed.
    rewrites: bool = True
    #: Matches listed by ``index check`` (and the sources whose passages a report shows); at
    #: most :data:`TOP_MAX`. The figure counts every source found, listed or not
    #: (:data:`COUNTED_SOURCES_MAX`).
    top: int = 10
    #: The similarity above which two texts are near-duplicates: a collection's
    #: (``IndexSpec.threshold``), an :class:`~neardup.lsh.LSHIndex`'s, ``dedup``'s and
    #: ``neardup params``'. 0.7 is the shingle method's example of supershingles tuned for
    #: similarity 0.7 (14 groups of 6).
    threshold: float = 0.7
    #: Workers a command may keep busy: 0 means one per CPU, 1 only the caller's
    #: (``sketch.parallel.workers_for`` reads it; every ``--jobs`` and ``jobs=`` means it).
    jobs: int = 0
    #: The second stage (:mod:`neardup.passages.align`): words per alignment shingle, unmatched
    #: words allowed inside one passage, the fewest matched words a passage must have, and how often
    #: a shingle may repeat in a source and still make seeds. Chosen on the generated partial
    #: copies of ``benchmarks/quality_fragments.py`` (docs/fragments.md).
    align_k: int = 3
    gap: int = 8
    min_tokens: int = 8
    max_occurrences: int = 50
    #: A collection's candidates (``IndexSpec``): each stored text posts the minimum
    #: of every window of ``window`` consecutive shingles (winnowing), and a text checked or
    #: added looks up every one of its shingles (``lookup="shingles"``) — so any run of
    #: ``window`` shared shingles (``window + k - 1`` = 15 words: a 5 % paste of a 300-word
    #: text) is certain to meet a posted sample, and shorter or edited runs often do. Chosen on
    #: 5 % and 10 % pastes (docs/benchmarks.md, "Partial copies"). Collections created before
    #: keep what they stored: window 24, their samples looked up (``lookup="samples"``).
    window: int = 11
    lookup: str = "shingles"
    #: Corpus cleaning (``dedup --level``, :func:`neardup.clean_texts`): a line, paragraph or
    #: sentence whose canonical tokens occur in more than ``span_docs`` documents is
    #: boilerplate and cut out of every one of them; a document left with fewer than
    #: ``span_min_tokens`` tokens after a cut is dropped. Exact counting holds at most
    #: ``span_memory_mb`` MB of span keys in memory and spills the rest to disk.
    span_docs: int = 10
    span_min_tokens: int = 5
    span_memory_mb: int = 256

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: The defaults in force.
DEFAULTS = Defaults()

"""Rewritten passages: sentences of a query text reworded from a source, found and marked.

The verbatim second stage (:mod:`neardup.passages.align`) chains equal word shingles, so it finds
copies
and lightly edited copies; a paragraph rewritten by hand (synonyms, another word order, changed
grammar, words dropped or added) shares almost no 3-word shingle with its source and nothing is
marked. Here both texts are cut into sentences and compared sentence by sentence on their
*terms* — the canonical tokens of the spec's analyzer: lemmas under the ``ru`` and ``auto``
presets, with stop words and function words dropped — so inflection, word order and most
grammar changes cost nothing and a synonym costs one term.

The algorithm (hot loops in :mod:`neardup._kernels.rewrites`):

1. Sentences: the ORIGINAL text is cut after ``.``, ``!``, ``?`` or ``…`` followed by white
   space and a capital letter or digit (not after an initial or a common abbreviation), at a
   line break unless the next line goes on with a small letter (hard-wrapped text), and at
   block-level HTML tags. The canonical tokens (whose spans point into
   the original input) fall into the sentences they start in.
2. Scores: each sentence is the set of its distinct terms, weighed by a pair-local IDF — the
   document frequency counted over the sentences of both texts, ``ln((1 + N) / (1 + df)) + 1``
   (scikit-learn's smooth formula), so a term repeated all over the two texts (the topic)
   weighs little and the rare ones that carry a sentence's facts weigh most. The score of two
   sentences is the cosine of their weight vectors.
3. Matching: pairs scoring at least ``threshold`` are matched one to one, best first. Then an
   unmatched query sentence next to a matched one may take a free source sentence within
   ``window`` sentences of its neighbour's partner when their pair scores at least
   ``extend_threshold`` (half the threshold: a heavily reworded sentence inside or at the edge
   of a rewritten passage), repeatedly. Sentences with fewer
   than ``min_sentence_tokens`` terms are never matched (a dateline or a caption matches
   anything that repeats its two words), and query sentences mostly inside ``skip_a_spans``
   (the verbatim passages found already) are left out, as are source sentences mostly inside
   ``skip_b_spans``. Embed, credit and date lines (``— Name (@handle) May 5, 2020``,
   ``Фото: …``, a byline, a dateline) are never matched: two stories share them but for a date.
4. Passages: consecutive matched query sentences whose partners lie within ``window``
   sentences of each other in the source form one passage (sentences may be reordered inside
   it); a passage is kept when it holds at least ``min_tokens`` canonical tokens of the query
   and its pairs stand out from their rivals: a pair's *margin* is its score less the best
   score either sentence reaches with another sentence of the other text, and the pairs' mean
   margin must reach ``min_margin`` (plus ``SINGLE_EXTRA_MARGIN`` for a passage of one pair).
   Two stories about one event restate its facts in several sentences, so a sentence sharing
   them has several near partners; a sentence reworded from another has one.

The threshold decides "this sentence is a rewrite of that one"; it was chosen on human-labelled
sentence paraphrases (``benchmarks/quality_rewrites.py --calibrate``; docs/quality.md, section
"Rewritten passages", has the
figures). Everything is deterministic: equal inputs give equal passages.
"""

from neardup.passages.rewrites.finder import (
    CONSTRAINTS,
    DEFAULT_MIN_MARGIN,
    DEFAULT_MIN_SENTENCE_TOKENS,
    DEFAULT_MIN_TOKENS,
    DEFAULT_THRESHOLD,
    DEFAULT_WINDOW,
    EXTEND_SHARE,
    KIND,
    SINGLE_EXTRA_MARGIN,
    SKIP_SHARE,
    RewriteFinder,
    RewrittenPassage,
    find_rewrites,
    find_rewrites_many,
)
from neardup.passages.rewrites.scores import sentence_scores, similarity_matrix
from neardup.passages.rewrites.sentences import (
    Sentences,
    boilerplate,
    sentence_bounds,
    sentence_spans,
    split_sentences,
)

__all__ = [
    "CONSTRAINTS",
    "DEFAULT_MIN_MARGIN",
    "DEFAULT_MIN_SENTENCE_TOKENS",
    "DEFAULT_MIN_TOKENS",
    "DEFAULT_THRESHOLD",
    "DEFAULT_WINDOW",
    "EXTEND_SHARE",
    "KIND",
    "SINGLE_EXTRA_MARGIN",
    "SKIP_SHARE",
    "RewriteFinder",
    "RewrittenPassage",
    "Sentences",
    "boilerplate",
    "find_rewrites",
    "find_rewrites_many",
    "sentence_bounds",
    "sentence_scores",
    "sentence_spans",
    "similarity_matrix",
    "split_sentences",
]

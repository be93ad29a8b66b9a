"""Labelled near-duplicates and partial copies generated from real text, with their truth.

Why generate: the corpora we have (../shared/data) hold near-duplicates nobody labelled; to
measure recall by kind and strength of edit we make the duplicates ourselves, from real
documents, with known edits at known rates, and keep the ground truth. Seeds 001 and 003
evaluate this way (inserted passages of 5–50 % of a source; rewrites with synonyms).

Edits (a *kind* is one edit or several joined by ``+``; ``mixed`` = substitute+insert+delete):

``substitute`` / ``insert`` / ``delete``
    that share of the source's words replaced by, preceded by, or removed — replacements and
    insertions are words drawn from the sampled documents (so, by frequency);
``inflect``     another form of the same lexeme (pymorphy3 for Russian; for English a few
                regular endings: -s, -ies, -ed/-ing);
``synonym``     a synonym from a thesaurus (MyThes ``.dat`` as in Debian's mythes-ru, or CSV
                groups), inflected like the word it replaces; skipped without a thesaurus;
``reorder``     that share of the sentences moved (rotated among their positions);
``boilerplate`` web-page furniture (menus, cookie notices, footers;
                :mod:`neardup.eval.templates`) around the text, that many words per word of
                text.

Word edits of one kind share its level equally (``inflect+synonym`` at 0.2: 10 % of the words
inflected, 10 % swapped); ``reorder`` and ``boilerplate`` take the whole level. Every edit
touches a different word. Positive pairs are (source, variant); negatives are real document
pairs: ``random``, ``same_source`` (same outlet), ``same_topic`` (same Reuters topics),
``rare_words`` (the document sharing most rare words with the source) and ``same_boilerplate``
(two stories in one site's furniture). Negatives sharing any sequence of 8 words (lowercase)
are skipped: the corpora contain unlabelled real reuse, which would be mislabelled.

Partial copies: a passage of 5–50 % of a source (word-aligned) pasted at a sentence boundary
of another document (the host), verbatim or lightly edited; the truth records both spans.

Determinism: every random choice comes from a numpy Generator seeded from ``seed`` and the
item's identity (crc32 of its kind, its indices), so equal parameters give equal bytes and a
new kind does not change the others.
"""

from __future__ import annotations

from neardup.eval.generate.corpus import CorpusDoc, read_corpus
from neardup.eval.generate.corpus import _ngrams as _ngrams
from neardup.eval.generate.edits import (
    EditLog,
    add_boilerplate,
    apply_kind,
    boilerplate_lines,
    edit_words,
    paste,
    reorder_sentences,
    sentence_spans,
    take_fragment,
    word_spans,
)
from neardup.eval.generate.generator import (
    GenerateConfig,
    GeneratedDataset,
    generate,
    level_name,
    planned_steps,
    write_dataset,
)
from neardup.eval.generate.kinds import (
    ALIASES,
    DEFAULT_KINDS,
    DEFAULT_LEVELS,
    EDITS,
    GENERATOR_VERSION,
    NEGATIVE_KINDS,
    NGRAM_FILTER,
    SENTENCE_SEP_RE,
    TEXT_EDITS,
    WORD_EDITS,
    WORD_RE,
    Progress,
    parse_kind,
)
from neardup.eval.generate.language import Language, load_synonyms, parse_synonyms
from neardup.eval.templates import SKINS

__all__ = [
    "ALIASES",
    "CorpusDoc",
    "DEFAULT_KINDS",
    "DEFAULT_LEVELS",
    "EDITS",
    "EditLog",
    "GENERATOR_VERSION",
    "GenerateConfig",
    "GeneratedDataset",
    "Language",
    "NEGATIVE_KINDS",
    "NGRAM_FILTER",
    "Progress",
    "SENTENCE_SEP_RE",
    "SKINS",
    "TEXT_EDITS",
    "WORD_EDITS",
    "WORD_RE",
    "add_boilerplate",
    "apply_kind",
    "boilerplate_lines",
    "edit_words",
    "generate",
    "level_name",
    "load_synonyms",
    "parse_kind",
    "parse_synonyms",
    "paste",
    "planned_steps",
    "read_corpus",
    "reorder_sentences",
    "sentence_spans",
    "take_fragment",
    "word_spans",
    "write_dataset",
]

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
``boilerplate`` web-page furniture (menus, cookie notices, footers; :mod:`.templates`) around
                the text, that many words per word of text.

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

import hashlib
import math
import re
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from neardup.analysis.resources import mythes_meanings
from neardup.errors import ConfigurationError, InputError, require
from neardup.eval.formats import Fragment, write_jsonl
from neardup.eval.templates import SKINS
from neardup.inputs import CorpusReader

#: Bumped when the same parameters would generate different data.
GENERATOR_VERSION = 1

WORD_RE = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
# a sentence ends at . ! ? … (optionally followed by a closing quote or bracket) and whitespace,
# or at a line break
SENTENCE_SEP_RE = re.compile(r"(?:(?<=[.!?…])|(?<=[.!?…][\"»”)\]]))\s+|\n\s*")

WORD_EDITS = ("substitute", "insert", "delete", "inflect", "synonym")
TEXT_EDITS = ("reorder", "boilerplate")
EDITS = WORD_EDITS + TEXT_EDITS
ALIASES = {"mixed": ("substitute", "insert", "delete")}

DEFAULT_KINDS = ("mixed", "reorder", "inflect", "synonym", "inflect+synonym", "boilerplate")
DEFAULT_LEVELS = (0.05, 0.1, 0.2, 0.3, 0.5)
NEGATIVE_KINDS = ("random", "same_source", "same_topic", "rare_words", "same_boilerplate")
NGRAM_FILTER = 8

Progress = Callable[[int], None] | None


def parse_kind(kind: str) -> tuple[str, ...]:
    """The base edits of a kind such as ``mixed`` or ``inflect+synonym``."""
    parts: list[str] = []
    for part in kind.split("+"):
        part = part.strip()
        expanded = ALIASES.get(part, (part,))
        for edit in expanded:
            if edit not in EDITS:
                known = ", ".join((*EDITS, *ALIASES))
                raise ConfigurationError(f"unknown edit {part!r} in kind {kind!r}; known: {known}")
            if edit not in parts:
                parts.append(edit)
    if not parts:
        raise ConfigurationError(f"empty edit kind {kind!r}")
    return tuple(parts)


# ---------------------------------------------------------------------------------------------
# thesaurus and morphology


_SKIP_RELATIONS = ("антоним", "antonym", "связанный", "related")


def _plain(word: str) -> str:
    return word.lower().replace("ё", "е").strip()


def load_synonyms(path: str | Path) -> dict[str, tuple[str, ...]]:
    """``word → synonyms`` (single words, lowercase) from a MyThes ``.dat`` or a ``.csv``."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read thesaurus {path}: {exc.strerror or exc}") from None
    return parse_synonyms(
        raw, fmt="csv" if p.name.lower().endswith(".csv") else "mythes", name=str(path)
    )


def parse_synonyms(
    raw: bytes | str, *, fmt: str, name: str = "thesaurus"
) -> dict[str, tuple[str, ...]]:
    """Synonyms from the content of a MyThes file (``fmt="mythes"``) or a CSV of groups.

    MyThes: a first line naming the encoding, then ``word|n`` and ``n`` lines
    ``(label)|syn|syn…``; lines labelled as antonyms or related terms are skipped, and so are
    items marked ``(antonym)``; annotations in parentheses are dropped. CSV: every word of a
    row is a synonym of the others. Multi-word items are skipped (the edits swap one word).
    """
    if fmt == "csv":
        entries = _csv_synonyms(raw)
    elif fmt == "mythes":
        entries = _mythes_synonyms(raw, name)
    else:
        raise ConfigurationError(f"thesaurus format must be csv or mythes, got {fmt!r}")
    table: dict[str, list[str]] = {}
    for head, items in entries:
        _add_synonyms(table, head, items)
    return {k: tuple(v) for k, v in table.items() if v}


def _add_synonyms(table: dict[str, list[str]], head: str, items: Iterable[str]) -> None:
    head = _plain(head)
    if not head or " " in head:
        return
    bucket = table.setdefault(head, [])
    for item in items:
        word = _plain(re.sub(r"\(.*?\)", "", item))
        if word and " " not in word and word != head and word not in bucket:
            bucket.append(word)


def _csv_synonyms(raw: bytes | str) -> Iterator[tuple[str, list[str]]]:
    """``(head, items)`` for every word of every row of a CSV of synonym groups."""
    import csv
    import io

    text = raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw.lstrip("\ufeff")
    for row in csv.reader(io.StringIO(text)):
        words = [w for w in row if w.strip()]
        if not words or words[0].startswith("#"):
            continue
        for w in words:
            yield w, words


def _mythes_synonyms(raw: bytes | str, name: str) -> Iterator[tuple[str, list[str]]]:
    """``(head, items)`` for every meaning line of a MyThes file (relations, antonyms skipped)."""
    data = raw if isinstance(raw, bytes) else raw.encode("utf-8")
    for head, label, items in mythes_meanings(data, name):
        if any(s in label.lower() for s in _SKIP_RELATIONS):
            continue
        yield head, [t for t in items if "antonym" not in t and "антоним" not in t]


def _match_case(original: str, new: str) -> str:
    if len(original) > 1 and original.isupper():
        return new.upper()
    if original[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


_RU_CONTENT = frozenset({"NOUN", "ADJF", "ADJS", "VERB", "INFN", "ADVB"})
_RU_INFLECT = frozenset({"NOUN", "ADJF", "VERB"})
_RU_LEMMA_POS = {
    "VERB": "INFN",
    "INFN": "INFN",
    "ADJS": "ADJF",
    "ADJF": "ADJF",
    "NOUN": "NOUN",
    "ADVB": "ADVB",
}


class Language:
    """Inflection and synonym lookup for one language (``ru`` with pymorphy3, ``en`` by rule)."""

    def __init__(self, lang: str, synonyms: Mapping[str, tuple[str, ...]] | None = None) -> None:
        if lang not in ("ru", "en"):
            raise ConfigurationError(f"language must be ru or en, got {lang!r}")
        self.lang = lang
        self.synonyms = synonyms
        self._parses: dict[str, Any] = {}
        self._morph: Any = None
        if lang == "ru":
            pymorphy3: Any = require("pymorphy3", "ru")
            self._morph = pymorphy3.MorphAnalyzer(lang="ru")

    def _parse(self, word: str) -> Any:
        found = self._parses.get(word)
        if found is None:
            found = self._morph.parse(word)
            self._parses[word] = found
        return found

    def inflect(self, word: str, rng: np.random.Generator) -> str | None:
        """Another form of ``word``'s lexeme, or None when it has none."""
        lower = word.lower()
        if not lower.replace("-", "").isalpha():
            return None
        if self.lang == "en":
            form = _english_inflection(lower)
            return _match_case(word, form) if form and form != lower else None
        parse = self._parse(lower)[0]
        if parse.tag.POS not in _RU_INFLECT:
            return None
        plain = _plain(lower)
        forms = sorted(
            {f.word for f in parse.lexeme if f.tag.POS == parse.tag.POS and _plain(f.word) != plain}
        )
        if not forms:
            return None
        return _match_case(word, forms[int(rng.integers(len(forms)))])

    def synonym(self, word: str, rng: np.random.Generator) -> str | None:
        """A synonym of ``word`` in the same grammatical form, or None."""
        if not self.synonyms:
            return None
        lower = word.lower()
        if not lower.replace("-", "").isalpha():
            return None
        if self.lang == "en":
            candidates = self.synonyms.get(_plain(lower), ())
            if not candidates:
                return None
            return _match_case(word, candidates[int(rng.integers(len(candidates)))])
        parse = self._parse(lower)[0]
        pos = parse.tag.POS
        if pos not in _RU_CONTENT:
            return None
        candidates = self.synonyms.get(_plain(parse.normal_form), ())
        if not candidates:
            return None
        wanted = {
            g
            for g in (
                parse.tag.case,
                parse.tag.number,
                parse.tag.tense,
                parse.tag.person,
                parse.tag.mood,
            )
            if g
        }
        if pos in ("ADJF", "ADJS", "VERB") and parse.tag.gender and parse.tag.number != "plur":
            wanted.add(parse.tag.gender)
        if pos in ("VERB", "ADJS"):
            wanted.add(pos)
        lemma_pos = _RU_LEMMA_POS[pos]
        for c in rng.permutation(len(candidates)).tolist():
            options = [p for p in self._parse(candidates[c]) if p.tag.POS == lemma_pos]
            if not options:
                continue
            form = (
                options[0] if pos in ("INFN", "ADVB") or not wanted else options[0].inflect(wanted)
            )
            if form is None or form.tag.POS != pos or _plain(form.word) == _plain(lower):
                continue
            return _match_case(word, form.word)
        return None


def _english_inflection(word: str) -> str | None:
    if len(word) < 4:
        return None
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("ing") and len(word) > 5:
        return word[:-3] + "ed"
    if word.endswith("ed") and len(word) > 4:
        return word[:-2] + "ing"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    if word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"


# ---------------------------------------------------------------------------------------------
# edits of one text


@dataclass
class EditLog:
    """What was done to a text: counts per edit, and the sizes the rates refer to."""

    words: int = 0
    sentences: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, edit: str, n: int) -> None:
        if n:
            self.counts[edit] = self.counts.get(edit, 0) + n

    def rate(self, edit: str) -> float:
        """The share of words (sentences for ``reorder``) the edit touched."""
        n = self.counts.get(edit, 0)
        base = self.sentences if edit == "reorder" else self.words
        return n / base if base else 0.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"words": self.words}
        if self.sentences:
            out["sentences"] = self.sentences
        out.update(sorted(self.counts.items()))
        return out


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the words the edits work on."""
    return [m.span() for m in WORD_RE.finditer(text)]


def _draw(vocabulary: Sequence[str], rng: np.random.Generator, avoid: str) -> str:
    for _ in range(16):
        word = vocabulary[int(rng.integers(len(vocabulary)))]
        if word != avoid:
            return word
    return word


def edit_words(
    text: str,
    rates: Mapping[str, float],
    rng: np.random.Generator,
    language: Language,
    vocabulary: Sequence[str],
    log: EditLog | None = None,
) -> tuple[str, EditLog]:
    """Apply word edits at the given rates (shares of the words of ``text``).

    Counts are ``round(rate · words)``; inflections and synonyms go first (not every word has
    one, and the log says how many were found), then substitutions and deletions among the
    words not yet touched; insertions go before randomly chosen words (or at the end).
    """
    log = log or EditLog()
    spans = word_spans(text)
    n = len(spans)
    log.words = log.words or n
    if n == 0:
        return text, log
    _check_word_edits(rates)
    words = [text[a:b] for a, b in spans]
    seps = _separators(text, spans)
    counts = {e: round(rates.get(e, 0.0) * n) for e in WORD_EDITS}
    new: list[str | None] = list(words)
    taken = np.zeros(n, dtype=np.bool_)
    order = rng.permutation(n).tolist()
    for edit in ("synonym", "inflect"):
        done = _replace_words(edit, counts[edit], order, words, new, taken, language, rng)
        log.add(edit, done)
    free = [i for i in order if not taken[i]]
    n_sub = min(counts["substitute"], len(free))
    for i in free[:n_sub]:
        new[i] = _match_case(words[i], _draw(vocabulary, rng, words[i].lower()))
    log.add("substitute", n_sub)
    n_del = min(counts["delete"], len(free) - n_sub)
    for i in free[n_sub : n_sub + n_del]:
        new[i] = None
    log.add("delete", n_del)
    inserted: dict[int, list[str]] = {}
    if counts["insert"]:
        positions = rng.integers(0, n + 1, size=counts["insert"]).tolist()
        for p in positions:
            inserted.setdefault(p, []).append(_draw(vocabulary, rng, ""))
        log.add("insert", counts["insert"])
    return _join_words(seps, new, inserted), log


def _check_word_edits(rates: Mapping[str, float]) -> None:
    for edit in rates:
        if edit not in WORD_EDITS:
            raise ConfigurationError(
                f"{edit!r} is not a word edit; expected one of {', '.join(WORD_EDITS)}"
            )


def _separators(text: str, spans: Sequence[tuple[int, int]]) -> list[str]:
    """The text before the first word, between every two words and after the last one."""
    n = len(spans)
    return (
        [text[: spans[0][0]]]
        + [text[spans[i][1] : spans[i + 1][0]] for i in range(n - 1)]
        + [text[spans[-1][1] :]]
    )


def _replace_words(
    edit: str,
    need: int,
    order: Sequence[int],
    words: Sequence[str],
    new: list[str | None],
    taken: np.ndarray,
    language: Language,
    rng: np.random.Generator,
) -> int:
    """Replace up to ``need`` untaken words, in ``order``, by a synonym or an inflection (as
    ``edit`` says); the words replaced are marked taken. Returns how many were."""
    done = 0
    for i in order:
        if done >= need:
            break
        if taken[i]:
            continue
        replacement = (
            language.synonym(words[i], rng)
            if edit == "synonym"
            else language.inflect(words[i], rng)
        )
        if replacement is None:
            continue
        new[i] = replacement
        taken[i] = True
        done += 1
    return done


def _join_words(
    seps: Sequence[str], new: Sequence[str | None], inserted: Mapping[int, list[str]]
) -> str:
    """The edited text: words (``None`` for a deleted one) between their separators, the
    inserted words before the word of their position (``len(new)``: at the end)."""
    n = len(new)
    out = [seps[0]]
    for i in range(n):
        pieces = [*inserted.get(i, ()), *([new[i]] if new[i] is not None else [])]
        if pieces:
            out.append(" ".join(pieces))
            out.append(seps[i + 1])
            continue
        # a deleted word: its two separators become one, so that neither words nor paragraphs
        # run together and no space is left before punctuation
        out[-1] = _merge_separators(out[-1], seps[i + 1], first=len(out) == 1, last=i == n - 1)
    if n in inserted:
        tail = out.pop()
        out.append(" " + " ".join(inserted[n]))
        out.append(tail)
    return "".join(out)


def _merge_separators(previous: str, following: str, *, first: bool, last: bool) -> str:
    if first:
        return previous + following.lstrip()
    if not previous.strip() and not following.strip():
        return following if "\n" in following or "\n" not in previous else previous
    if not previous.strip():
        return following
    if not following.strip():
        return previous.rstrip() + following if last else previous
    # punctuation on both sides: a sentence end or a line break wins, else the later one
    if "\n" in previous or any(c in previous for c in ".!?…"):
        return previous
    return following


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences (the text between sentence separators)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in SENTENCE_SEP_RE.finditer(text):
        if m.start() > start:
            spans.append((start, m.start()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def reorder_sentences(
    text: str, rate: float, rng: np.random.Generator, log: EditLog | None = None
) -> tuple[str, EditLog]:
    """Move ``round(rate · sentences)`` sentences (at least two, when any): they are rotated
    among their own positions, so each one lands where another stood."""
    log = log or EditLog()
    spans = sentence_spans(text)
    m = len(spans)
    log.sentences = m
    c = round(rate * m)
    if c == 1:
        c = 2
    if m < 2 or c < 2:
        return text, log
    chosen = np.sort(rng.choice(m, size=min(c, m), replace=False)).tolist()
    moved = {chosen[t]: chosen[(t + 1) % len(chosen)] for t in range(len(chosen))}
    out = []
    cursor = 0
    for k, (a, b) in enumerate(spans):
        out.append(text[cursor:a])
        src = spans[moved.get(k, k)]
        out.append(text[src[0] : src[1]])
        cursor = b
    out.append(text[cursor:])
    log.add("reorder", len(chosen))
    return "".join(out), log


def boilerplate_lines(
    lang: str, n_words: int, skin: int, start: int
) -> tuple[list[str], list[str]]:
    """Header and footer lines of ``skin`` adding about ``n_words`` words (40 % above the text)."""
    site = SKINS[lang][skin % len(SKINS[lang])]
    header: list[str] = []
    footer: list[str] = []
    budget_head = round(0.4 * n_words)
    got = 0
    k = start
    while got < budget_head:
        line = site["header"][k % len(site["header"])]
        header.append(line)
        got += len(WORD_RE.findall(line))
        k += 1
    k = start
    while got < n_words:
        line = site["footer"][k % len(site["footer"])]
        footer.append(line)
        got += len(WORD_RE.findall(line))
        k += 1
    return header, footer


def add_boilerplate(
    text: str,
    rate: float,
    rng: np.random.Generator,
    lang: str,
    log: EditLog | None = None,
    skin: tuple[int, int] | None = None,
) -> tuple[str, EditLog]:
    """Wrap ``text`` in a site's menus and footers: ``rate`` words of boilerplate per word of
    text. ``skin`` (site, first line) fixes the site; by default it is drawn."""
    log = log or EditLog()
    n = len(word_spans(text))
    log.words = log.words or n
    target = round(rate * n)
    if target <= 0:
        return text, log
    if skin is None:
        skin = (int(rng.integers(len(SKINS[lang]))), int(rng.integers(16)))
    header, footer = boilerplate_lines(lang, target, *skin)
    added = sum(len(WORD_RE.findall(line)) for line in (*header, *footer))
    pieces = ["\n".join(header)] if header else []
    pieces.append(text)
    if footer:
        pieces.append("\n".join(footer))
    log.add("boilerplate", added)
    return "\n\n".join(pieces), log


def apply_kind(
    text: str,
    kind: str,
    level: float,
    rng: np.random.Generator,
    language: Language,
    vocabulary: Sequence[str],
) -> tuple[str, EditLog]:
    """The variant of ``text`` for one kind at one level, and the log of what was done."""
    edits = parse_kind(kind)
    word_edits = [e for e in edits if e in WORD_EDITS]
    log = EditLog(words=len(word_spans(text)))
    if word_edits:
        share = level / len(word_edits)
        text, log = edit_words(text, {e: share for e in word_edits}, rng, language, vocabulary, log)
    if "reorder" in edits:
        text, log = reorder_sentences(text, level, rng, log)
    if "boilerplate" in edits:
        text, log = add_boilerplate(text, level, rng, language.lang, log)
    return text, log


# ---------------------------------------------------------------------------------------------
# partial copies


def take_fragment(text: str, share: float, rng: np.random.Generator) -> tuple[int, int]:
    """``(offset, length)``: a word-aligned passage of about ``share`` of ``text``'s characters."""
    spans = word_spans(text)
    if not spans:
        raise InputError("cannot take a fragment of a text without words")
    starts = np.asarray([a for a, _ in spans], dtype=np.int64)
    ends = np.asarray([b for _, b in spans], dtype=np.int64)
    target = max(1, round(share * len(text)))
    fits = np.flatnonzero(ends[-1] - starts >= target)
    first = int(fits[int(rng.integers(fits.size))]) if fits.size else 0
    last = int(np.searchsorted(ends, starts[first] + target, side="left"))
    last = min(last, ends.shape[0] - 1)
    return int(starts[first]), int(ends[last] - starts[first])


def paste(host: str, piece: str, rng: np.random.Generator) -> tuple[str, int]:
    """Insert ``piece`` at a sentence boundary of ``host``; returns the text and its offset."""
    boundaries = [a for a, _ in sentence_spans(host)] + [len(host)]
    at = boundaries[int(rng.integers(len(boundaries)))]
    if at >= len(host):
        head = host.rstrip()
        sep = " " if head else ""
        return head + sep + piece + host[len(head) :], len(head) + len(sep)
    return host[:at] + piece + " " + host[at:], at


# ---------------------------------------------------------------------------------------------
# the corpus


@dataclass(frozen=True)
class CorpusDoc:
    """A document of the source corpus with what the negatives are chosen by."""

    index: int
    id: str
    text: str
    source: str = ""
    topics: tuple[str, ...] = ()


def _script_share(text: str, lang: str) -> float:
    letters = [c for c in text[:5000] if c.isalpha()]
    if not letters:
        return 0.0
    if lang == "ru":
        good = sum(1 for c in letters if "\u0400" <= c <= "\u04ff")
    else:
        good = sum(1 for c in letters if c.isascii())
    return good / len(letters)


def read_corpus(
    path: str | Path, lang: str, min_chars: int, max_chars: int
) -> tuple[list[CorpusDoc], int]:
    """Documents usable as sources: in the length range, mostly in ``lang``'s script, and not
    one of a group of exact duplicates (by text with whitespace collapsed). Returns them in
    corpus order and the number of documents read."""
    records: list[tuple[str, str, str, tuple[str, ...]]] = []
    for doc in CorpusReader([path]):  # the one reader: a JSONL, a CSV, a folder of texts…
        topics = doc.meta.get("topics") or ()
        records.append(
            (
                doc.id,
                doc.text,
                str(doc.meta.get("source") or ""),
                tuple(str(t) for t in topics) if isinstance(topics, list) else (),
            )
        )
    seen: dict[str, int] = {}
    for _, text, _, _ in records:
        key = " ".join(text.split())
        seen[key] = seen.get(key, 0) + 1
    docs: list[CorpusDoc] = []
    for doc_id, text, source, topics in records:
        if not (min_chars <= len(text) <= max_chars) or seen[" ".join(text.split())] > 1:
            continue
        if _script_share(text, lang) < 0.8:
            continue
        docs.append(CorpusDoc(len(docs), doc_id, text, source, topics))
    return docs, len(records)


def _ngrams(text: str, n: int = NGRAM_FILTER) -> set[str]:
    words = [w.lower() for w in WORD_RE.findall(text)]
    return {" ".join(words[i : i + n]) for i in range(len(words) - n + 1)}


class _Reuse:
    """Whether two documents share a run of 8 words (then they are never a negative)."""

    def __init__(self) -> None:
        self._cache: dict[str, set[str]] = {}

    def grams(self, doc: CorpusDoc) -> set[str]:
        found = self._cache.get(doc.id)
        if found is None:
            found = _ngrams(doc.text)
            self._cache[doc.id] = found
        return found

    def shared(self, a: CorpusDoc, b: CorpusDoc) -> bool:
        return not self.grams(a).isdisjoint(self.grams(b))


def _rare_word_matrix(docs: Sequence[CorpusDoc]) -> Any:
    """Binary documents × rare words (document frequency 2 … max(2, 1 %)), words ≥ 4 letters."""
    sparse: Any = require("scipy.sparse", "eval")
    token_sets = [
        sorted({w.lower() for w in WORD_RE.findall(d.text) if len(w) >= 4 and w.isalpha()})
        for d in docs
    ]
    df: dict[str, int] = {}
    for tokens in token_sets:
        for t in tokens:
            df[t] = df.get(t, 0) + 1
    limit = max(2, int(0.01 * len(docs)))
    columns = {t: k for k, t in enumerate(sorted(t for t, c in df.items() if 2 <= c <= limit))}
    rows, cols = [], []
    for r, tokens in enumerate(token_sets):
        for t in tokens:
            c = columns.get(t)
            if c is not None:
                rows.append(r)
                cols.append(c)
    data = np.ones(len(rows), dtype=np.int32)
    return sparse.csr_matrix((data, (rows, cols)), shape=(len(docs), max(1, len(columns))))


# ---------------------------------------------------------------------------------------------
# the generator


@dataclass(frozen=True)
class GenerateConfig:
    """Everything a generated dataset depends on (recorded in its ``meta.json``)."""

    corpus: str
    lang: str = "ru"
    task: str = "near"  # or "partial"
    docs: int = 100
    kinds: tuple[str, ...] = DEFAULT_KINDS
    levels: tuple[float, ...] = DEFAULT_LEVELS
    negatives: tuple[str, ...] = NEGATIVE_KINDS
    shares: tuple[float, ...] = DEFAULT_LEVELS
    obfuscation: tuple[float, ...] = (0.0, 0.1)
    min_chars: int = 2000
    max_chars: int = 6000
    thesaurus: str | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.task not in ("near", "partial"):
            raise ConfigurationError(f"task must be near or partial, got {self.task!r}")
        if self.lang not in ("ru", "en"):
            raise ConfigurationError(f"language must be ru or en, got {self.lang!r}")
        if self.docs <= 0:
            raise ConfigurationError(f"docs must be positive, got {self.docs}")
        for kind in self.kinds:
            parse_kind(kind)
        for value in (*self.levels, *self.shares, *self.obfuscation):
            if not 0.0 <= value <= 1.0:
                raise ConfigurationError(
                    f"levels, shares and obfuscation rates must be in [0, 1], got {value}"
                )
        for neg in self.negatives:
            if neg not in NEGATIVE_KINDS:
                raise ConfigurationError(
                    f"unknown negative kind {neg!r}; known: {', '.join(NEGATIVE_KINDS)}"
                )
        if not 0 <= self.seed < 2**63:
            raise ConfigurationError(f"seed must be in [0, 2^63), got {self.seed}")

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for key, value in out.items():
            if isinstance(value, tuple):
                out[key] = list(value)
        return out


@dataclass
class GeneratedDataset:
    """The generated records, ready to be written (see :func:`write_dataset`)."""

    meta: dict[str, Any]
    documents: list[dict[str, Any]]
    pairs: list[dict[str, Any]]
    fragments: list[Fragment]


def _file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _rng(seed: int, *parts: int | str) -> np.random.Generator:
    key = [seed] + [zlib.crc32(p.encode("utf-8")) if isinstance(p, str) else int(p) for p in parts]
    return np.random.default_rng(key)


def _level_key(level: float) -> int:
    return round(level * 1_000_000)


def _fmt_level(level: float) -> str:
    return f"{level:g}"


class _Generator:
    def __init__(self, config: GenerateConfig, progress: Progress) -> None:
        self.config = config
        self.progress = progress
        self.skipped: list[str] = []
        synonyms = None
        if config.thesaurus:
            synonyms = load_synonyms(config.thesaurus)
        self.language = Language(config.lang, synonyms)
        self.pool, self.read = read_corpus(
            config.corpus, config.lang, config.min_chars, config.max_chars
        )
        if len(self.pool) < 2:
            raise InputError(
                f"{config.corpus}: only {len(self.pool)} usable document(s) between "
                f"{config.min_chars} and {config.max_chars} characters in {config.lang} script "
                "(exact duplicates excluded)"
            )
        n = min(config.docs, len(self.pool) if config.task == "near" else len(self.pool) // 2)
        rng = _rng(config.seed, "sources")
        self.sources = [
            self.pool[i]
            for i in np.sort(rng.choice(len(self.pool), size=n, replace=False)).tolist()
        ]
        self.vocabulary = [
            w.lower() for d in self.sources for w in WORD_RE.findall(d.text) if w.isalpha()
        ]
        self.reuse = _Reuse()
        self.documents: dict[str, dict[str, Any]] = {}
        self.pairs: list[dict[str, Any]] = []
        self.fragments: list[Fragment] = []
        self._rare: Any = None

    def tick(self) -> None:
        if self.progress is not None:
            self.progress(1)

    def add_document(self, doc_id: str, text: str, cluster: str, kind: str, **extra: Any) -> None:
        if doc_id in self.documents:
            return
        record = {"id": doc_id, "text": text, "cluster": cluster, "kind": kind}
        record.update({k: v for k, v in extra.items() if v is not None})
        self.documents[doc_id] = record

    def add_corpus_doc(self, doc: CorpusDoc) -> None:
        self.add_document(doc.id, doc.text, doc.id, "corpus")

    # negatives --------------------------------------------------------------------------

    def _partners(self, doc: CorpusDoc, kind: str, rng: np.random.Generator) -> Iterable[CorpusDoc]:
        pool = self.pool
        if kind in ("random", "same_boilerplate"):
            return (pool[i] for i in rng.permutation(len(pool)).tolist())
        if kind == "same_source":
            if not doc.source:
                return ()
            return (
                pool[i] for i in rng.permutation(len(pool)).tolist() if pool[i].source == doc.source
            )
        if kind == "same_topic":
            if not doc.topics:
                return ()
            return (
                pool[i] for i in rng.permutation(len(pool)).tolist() if pool[i].topics == doc.topics
            )
        if kind == "rare_words":
            if self._rare is None:
                self._rare = _rare_word_matrix(pool)
            shared = np.asarray((self._rare[doc.index] @ self._rare.T).todense()).ravel()
            shared[doc.index] = 0
            order = np.lexsort((np.arange(len(pool)), -shared))
            return (pool[i] for i in order[:200].tolist() if shared[i] > 0)
        raise ConfigurationError(f"unknown negative kind {kind!r}")  # pragma: no cover

    def negative(
        self,
        doc: CorpusDoc,
        kind: str,
        exclude: Sequence[CorpusDoc] = (),
        limit: int = 400,
        salt: int = 0,
    ) -> CorpusDoc | None:
        rng = _rng(self.config.seed, "negative", kind, doc.index, salt)
        avoid = {doc.id, *(d.id for d in exclude)}
        for tried, partner in enumerate(self._partners(doc, kind, rng)):
            if tried >= limit:
                break
            if partner.id in avoid:
                continue
            if any(self.reuse.shared(partner, other) for other in (doc, *exclude)):
                continue
            return partner
        return None

    def add_negatives(
        self, doc: CorpusDoc, target_id: str, exclude: Sequence[CorpusDoc] = ()
    ) -> None:
        for kind in self.config.negatives:
            if kind == "same_boilerplate":
                continue
            partner = self.negative(doc, kind, exclude)
            if partner is None:
                continue
            self.add_corpus_doc(partner)
            self.pairs.append({"a_id": partner.id, "b_id": target_id, "label": 0, "kind": kind})

    # tasks ------------------------------------------------------------------------------

    def near(self) -> None:
        config = self.config
        kinds = list(config.kinds)
        if self.language.synonyms is None and any("synonym" in parse_kind(k) for k in kinds):
            dropped = [k for k in kinds if "synonym" in parse_kind(k)]
            kinds = [k for k in kinds if k not in dropped]
            self.skipped.append(f"no thesaurus given: skipped the kind(s) {', '.join(dropped)}")
        for doc in self.sources:
            self.add_corpus_doc(doc)
            for kind in kinds:
                for level in config.levels:
                    rng = _rng(config.seed, "variant", kind, doc.index, _level_key(level))
                    text, log = apply_kind(
                        doc.text, kind, level, rng, self.language, self.vocabulary
                    )
                    vid = f"{doc.id}~{kind}~{_fmt_level(level)}"
                    self.add_document(
                        vid,
                        text,
                        doc.id,
                        "variant",
                        origin=doc.id,
                        level=level,
                        edit=kind,
                        edits=log.to_dict(),
                    )
                    self.pairs.append(
                        {
                            "a_id": doc.id,
                            "b_id": vid,
                            "label": 1,
                            "kind": kind,
                            "level": level,
                            "edits": log.to_dict(),
                        }
                    )
                    self.tick()
            self.add_negatives(doc, doc.id)
            if "same_boilerplate" in config.negatives:
                self._boilerplate_negative(doc)
            self.tick()

    def _boilerplate_negative(self, doc: CorpusDoc) -> None:
        partner = self.negative(doc, "same_boilerplate")
        if partner is None:
            return
        rng = _rng(self.config.seed, "same_boilerplate", doc.index)
        skin = (int(rng.integers(len(SKINS[self.config.lang]))), int(rng.integers(16)))
        level = 0.2
        ids = []
        for d in (doc, partner):
            self.add_corpus_doc(d)
            text, log = add_boilerplate(d.text, level, rng, self.config.lang, skin=skin)
            vid = f"{d.id}~boilerplate-site{skin[0]}~{_fmt_level(level)}"
            self.add_document(
                vid,
                text,
                d.id,
                "variant",
                origin=d.id,
                level=level,
                edit="boilerplate",
                edits=log.to_dict(),
            )
            ids.append(vid)
        self.pairs.append(
            {"a_id": ids[0], "b_id": ids[1], "label": 0, "kind": "same_boilerplate", "level": level}
        )

    def partial(self) -> None:
        config = self.config
        for doc in self.sources:
            self.add_corpus_doc(doc)
            for share in config.shares:
                for obfuscation in config.obfuscation:
                    key = (doc.index, _level_key(share), _level_key(obfuscation))
                    rng = _rng(config.seed, "partial", *key)
                    host = self.negative(doc, "random", salt=1 + key[1] + key[2])
                    if host is None:
                        continue
                    offset, length = take_fragment(doc.text, share, rng)
                    piece = doc.text[offset : offset + length]
                    log = EditLog(words=len(word_spans(piece)))
                    if obfuscation > 0:
                        third = obfuscation / 3
                        piece, log = edit_words(
                            piece,
                            {"substitute": third, "insert": third, "delete": third},
                            rng,
                            self.language,
                            self.vocabulary,
                            log,
                        )
                    text, at = paste(host.text, piece, rng)
                    kind = "partial" if obfuscation == 0 else "partial-edited"
                    sid = f"{doc.id}~in~{host.id}~{_fmt_level(share)}~{_fmt_level(obfuscation)}"
                    self.add_document(
                        sid,
                        text,
                        sid,
                        "suspicious",
                        origin=doc.id,
                        host=host.id,
                        level=share,
                        obfuscation=obfuscation,
                    )
                    self.fragments.append(
                        Fragment(doc.id, sid, offset, length, at, len(piece), kind, share)
                    )
                    self.pairs.append(
                        {
                            "a_id": doc.id,
                            "b_id": sid,
                            "label": 1,
                            "kind": kind,
                            "level": share,
                            "obfuscation": obfuscation,
                            "edits": log.to_dict(),
                        }
                    )
                    self.tick()
            # negatives: other documents against one of this source's suspicious documents
            last = next((f for f in reversed(self.fragments) if f.source_id == doc.id), None)
            if last is not None:
                host_id = self.documents[last.suspicious_id]["host"]
                host = next(d for d in self.pool if d.id == host_id)
                self.add_negatives(doc, last.suspicious_id, exclude=(host,))
            self.tick()

    def run(self) -> GeneratedDataset:
        if self.config.task == "near":
            self.near()
        else:
            self.partial()
        documents = list(self.documents.values())
        counts: dict[str, Any] = {
            "documents": len(documents),
            "pairs": len(self.pairs),
            "positives": sum(p["label"] for p in self.pairs),
            "negatives": sum(1 - p["label"] for p in self.pairs),
            "pairs_by_kind": _count_by(p["kind"] for p in self.pairs),
            "sources": len(self.sources),
            "usable_corpus_documents": len(self.pool),
            "corpus_documents": self.read,
        }
        if self.config.task == "partial":
            counts["fragments"] = len(self.fragments)
        meta: dict[str, Any] = {
            "generator": "neardup.eval.generate",
            "generator_version": GENERATOR_VERSION,
            "params": self.config.to_dict(),
            "corpus_sha256": _file_sha256(self.config.corpus),
            "thesaurus_sha256": _file_sha256(self.config.thesaurus)
            if self.config.thesaurus
            else None,
            "skipped": self.skipped,
            "counts": counts,
            "files": {
                "documents": "documents.jsonl",
                "pairs": "pairs.jsonl",
                **({"fragments": "fragments.jsonl"} if self.config.task == "partial" else {}),
            },
        }
        edits = [p["edits"] for p in self.pairs if p["label"] == 1 and "edits" in p]
        if edits:
            meta["achieved_rates"] = _achieved(self.pairs)
        return GeneratedDataset(meta, documents, self.pairs, self.fragments)


def _count_by(values: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return dict(sorted(out.items()))


def _achieved(pairs: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """Mean achieved share per kind, level and edit: what the edits actually did."""
    sums: dict[tuple[str, str, str], list[float]] = {}
    for p in pairs:
        if p["label"] != 1 or "edits" not in p:
            continue
        edits = p["edits"]
        for edit, n in edits.items():
            if edit in ("words", "sentences"):
                continue
            base = edits.get("sentences") if edit == "reorder" else edits.get("words")
            if base:
                sums.setdefault((p["kind"], _fmt_level(p["level"]), edit), []).append(n / base)
    out: dict[str, dict[str, dict[str, float]]] = {}
    for (kind, level, edit), values in sorted(sums.items()):
        out.setdefault(kind, {}).setdefault(level, {})[edit] = round(float(np.mean(values)), 4)
    return out


def generate(config: GenerateConfig, progress: Progress = None) -> GeneratedDataset:
    """Generate the dataset ``config`` describes (deterministic for its seed)."""
    return _Generator(config, progress).run()


def planned_steps(config: GenerateConfig) -> int:
    """How many progress ticks :func:`generate` makes (for a progress bar)."""
    per_source = (
        len(config.kinds) * len(config.levels)
        if config.task == "near"
        else len(config.shares) * len(config.obfuscation)
    )
    return config.docs * (per_source + 1)


def write_dataset(dataset: GeneratedDataset, out: str | Path) -> dict[str, Path]:
    """Write ``documents.jsonl``, ``pairs.jsonl``, ``fragments.jsonl`` (partial copies) and
    ``meta.json`` into the directory ``out``."""
    import json

    directory = Path(out)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create {out}: {exc.strerror or exc}") from None
    written = {"documents": directory / "documents.jsonl", "pairs": directory / "pairs.jsonl"}
    write_jsonl(written["documents"], dataset.documents)
    write_jsonl(written["pairs"], dataset.pairs)
    if dataset.meta["params"]["task"] == "partial":
        written["fragments"] = directory / "fragments.jsonl"
        write_jsonl(written["fragments"], (f.to_dict() for f in dataset.fragments))
    written["meta"] = directory / "meta.json"
    written["meta"].write_text(
        json.dumps(dataset.meta, ensure_ascii=False, sort_keys=True, indent=2) + "\n",
        encoding="utf-8",
    )
    return written


def level_name(level: float) -> str:
    """How levels are written in ids and reports (``0.05``, ``0.3``)."""
    return _fmt_level(level) if not math.isnan(level) else "-"

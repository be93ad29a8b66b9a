"""Edits of one text (word edits, reordered sentences, boilerplate) and partial copies
(a fragment of one text pasted into another)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from neardup.errors import ConfigurationError, InputError
from neardup.eval.generate.kinds import SENTENCE_SEP_RE, WORD_EDITS, WORD_RE, parse_kind
from neardup.eval.generate.language import Language, _match_case
from neardup.eval.templates import SKINS


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

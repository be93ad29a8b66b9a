"""Evasion benchmark (issue 24): copies made with the tricks that beat a uniqueness checker,
compared with their sources by default, and the false alarms of the ``fold`` filter on real text.

``copies`` (the default): 500 documents of ``../shared/data/ru_news.jsonl.gz`` and 500 of
``reuters21578.jsonl.gz`` (every k-th document with at least 80 words, so the sample spans the
corpus), each copied with each trick:

* ``homoglyph_all``: every letter that has a look-alike in the other script swapped for it
  (Russian а е о р с х у А В Е К М Н О Р С Т Х → Latin; English the other way);
* ``homoglyph_third``: the same in one word of three;
* ``zero_width``: a zero-width space after every letter;
* ``soft_hyphen``: a soft hyphen after every other letter;
* ``letter_spacing``: every third sentence letter-spaced (a space between letters, three
  between words);
* ``stuffing``: a private-use character in the middle of one word of three (of those that
  are letters only, four or more);
* ``docx_hidden``: the document written as a .docx (python-docx, a paragraph per line), a
  sentence of the next document of the sample put after each of its sentences in a run the
  reader does not see — hidden (``w:vanish``), white, 1 pt in turn;
* ``pdf_hidden``: the document written as a PDF (fpdf2, DejaVu Sans 11 pt), after each
  paragraph as many sentences of the next document as it has, each drawn invisible (render
  mode 3), white or 1 pt in turn, and one more off the page.

and (issue 35, :func:`issue_35_tricks`; docs/tricks.md lists them) ``rare_look_alikes``,
``combining_accent``, ``rtl_reversed``, ``greek_look_alikes``, ``spacing_30`` and ten invented:
``digit_look_alikes``, ``word_joiner``, ``tag_characters``, ``ligatures``, ``fullwidth``,
``math_letters``, ``superscript_letters``, ``foreign_digits``, ``html_entities``,
``nbsp_between_words``, ``invisible_separator``. The ``figure`` column is the copy's
uniqueness (the share of its shingles not in the source; 0 for the clean copy).

The office copies are read by the reader (:func:`neardup.inputs.text_from_bytes`, what every
command reads them with) and compared with the source with their hidden text reported
(``hidden_b``); their clean copy is the same file without the hidden text (whose extracted
text differs from the source by the file's line breaks), and |Δ| is against its score. Their
"without folding" reads all the text (``visible_only=False``) under the spec without the
filter. The real documents are read from ``../shared/data`` (or ``$NEARDUP_DATA``) and the
files made in memory.

Each copy is compared with its source by :func:`neardup.compare` (the default spec) and with
the spec without the filter (``fold_tricks=False``: the raw score). The clean copy (the text
itself) scores 1.0; the table gives per trick the mean and the worst ``|score - 1|`` of the
resemblance with the filter, the mean resemblance without it, and the share of copies the
analyzer flags as suspicious (``Canonical.tricks.suspicious``).

``--false-alarms``: every document of ru_news, Reuters and 20 Newsgroups as it is, analysed by
the default spec's analyzer; the share flagged suspicious (must stay at most 0.1 %), the share
with anything folded, and each flagged document with its tricks and their text.

``--identity``: every document of the three corpora, fingerprinted with and without the
filter: the documents whose fingerprints differ, and whether each of them has a trick found
(a clean text's fingerprints must not change).

    .venv/bin/python benchmarks/evasion.py                     # the copies table
    .venv/bin/python benchmarks/evasion.py --false-alarms
    .venv/bin/python benchmarks/evasion.py --false-alarms --limit 5000   # a quick check
    .venv/bin/python benchmarks/evasion.py --identity
    .venv/bin/python benchmarks/evasion.py --docs 50           # a quick check
    .venv/bin/python benchmarks/evasion.py --tricks docx_hidden,pdf_hidden --worst 5
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("NEARDUP_DATA", ROOT.parent / "shared" / "data"))
CORPORA = {"ru_news": "ru_news.jsonl.gz", "reuters": "reuters21578.jsonl.gz"}
ALL_CORPORA = {**CORPORA, "20newsgroups": "20newsgroups.jsonl.gz"}

_RU_LOOK_ALIKES = "аеорсхуАВЕКМНОРСТХ"
_EN_LOOK_ALIKES = "aeopcxyABEKMHOPCTX"
TO_LATIN = str.maketrans(_RU_LOOK_ALIKES, _EN_LOOK_ALIKES)
TO_CYRILLIC = str.maketrans(_EN_LOOK_ALIKES, _RU_LOOK_ALIKES)
_LETTER = re.compile(r"[^\W\d_]")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
PRIVATE_USE = "\ue000"


def documents(name: str) -> Iterator[tuple[str, str]]:
    with gzip.open(DATA / ALL_CORPORA[name], "rt", encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            text = record.get("text") or ""
            yield str(record.get("id")), text


def sample(name: str, count: int) -> list[tuple[str, str]]:
    docs = [(i, t) for i, t in documents(name) if len(t.split()) >= 80]
    step = max(1, len(docs) // count)
    return docs[::step][:count]


# --- the tricks -----------------------------------------------------------------------------


def _every_third_word(text: str, change: Callable[[str], str]) -> str:
    words = text.split(" ")
    return " ".join(change(w) if i % 3 == 1 else w for i, w in enumerate(words))


def _spaced(sentence: str) -> str:
    return "   ".join(" ".join(word) for word in sentence.split())


def make_tricks(language: str) -> dict[str, Callable[[str], str]]:
    swap = TO_LATIN if language == "ru" else TO_CYRILLIC

    def stuff(word: str) -> str:
        middle = len(word) // 2
        return (
            word[:middle] + PRIVATE_USE + word[middle:]
            if len(word) >= 4 and word.isalpha()
            else word
        )

    def soft_hyphens(text: str) -> str:
        out, letters = [], 0
        for ch in text:
            out.append(ch)
            if _LETTER.match(ch):
                letters += 1
                if letters % 2 == 0:
                    out.append("\u00ad")
        return "".join(out)

    return {
        **issue_35_tricks(language),
        "homoglyph_all": lambda t: t.translate(swap),
        "homoglyph_third": lambda t: _every_third_word(t, lambda w: w.translate(swap)),
        "zero_width": lambda t: _LETTER.sub(lambda m: m.group() + "\u200b", t),
        "soft_hyphen": soft_hyphens,
        "letter_spacing": lambda t: " ".join(
            _spaced(s) if i % 3 == 1 else s for i, s in enumerate(_SENTENCE.split(t))
        ),
        "stuffing": lambda t: _every_third_word(t, stuff),
    }


# --- issue 35: the tricks a new user tried, and ten more (docs/tricks.md) ---------------------

#: Rarer look-alikes of the basic letters: Cyrillic ѕ і ј һ ԁ and Armenian օ ո ս զ for Latin
#: s i j h d o n u q; for Russian, Latin and Greek letters (Greek χ ρ ο for х р о).
_RARE_FOR_EN = str.maketrans("sijhdonuq", "ѕіјһԁօոսզ")
_GREEK_FOR_EN = str.maketrans("oypvxABEHIKMNOPTXYZ", "ογρνχΑΒΕΗΙΚΜΝΟΡΤΧΥΖ")
_GREEK_FOR_RU = str.maketrans("хороАВЕКМНОРТХ", "χορoΑΒΕΚΜΗΟΡΤΧ")
_DIGITS_FOR = {
    "ru": str.maketrans("оОзЗбЧ", "003364"),
    "en": str.maketrans("oOlIsSBg", "00115589"),
}

_FULLWIDTH = {c: chr(ord(c) + 0xFEE0) for c in map(chr, range(0x21, 0x7F))}
_MATH_BOLD = {
    **{chr(0x41 + i): chr(0x1D400 + i) for i in range(26)},
    **{chr(0x61 + i): chr(0x1D41A + i) for i in range(26)},
}
_SUPERSCRIPT = str.maketrans("abdegikmnoptu", "ᵃᵇᵈᵉᵍⁱᵏᵐⁿᵒᵖᵗᵘ")
_FOREIGN_DIGITS = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


def _between_letters(mark: str) -> Callable[[str], str]:
    return lambda word: mark.join(word) if word.isalpha() else word


def _middle(insert: str) -> Callable[[str], str]:
    def change(word: str) -> str:
        m = len(word) // 2
        return word[:m] + insert + word[m:] if len(word) >= 4 and word.isalpha() else word

    return change


def _every_word(text: str, change: Callable[[str], str], share: float = 1.0) -> str:
    """``change`` applied to a ``share`` of the words, spread evenly."""
    words = text.split(" ")
    step = 1 / share
    return " ".join(
        change(w) if int(i / step) != int((i + 1) / step) else w for i, w in enumerate(words)
    )


def _html_entities(text: str) -> str:
    body = "".join(f"&#{ord(c)};" if c.isalpha() and i % 3 == 0 else c for i, c in enumerate(text))
    return f"<!doctype html><html><body><p>{body}</p></body></html>"


def _reversed(word: str) -> str:
    # a word with a line break in it would be shown reversed across the lines: left as is
    return "\u202e" + word[::-1] + "\u202c" if len(word) > 1 and word.isprintable() else word


def issue_35_tricks(language: str) -> dict[str, Callable[[str], str]]:
    """The five tricks of issue 35 and the ten invented ones (docs/tricks.md)."""
    rare = _RARE_FOR_EN if language == "en" else TO_LATIN
    greek = _GREEK_FOR_EN if language == "en" else _GREEK_FOR_RU
    letter_spaced = _between_letters(" ")
    return {
        # listed in the issue
        "rare_look_alikes": lambda t: _every_word(t, lambda w: w.translate(rare), 0.5),
        "combining_accent": lambda t: _every_word(t, _middle("\u0301")),
        "rtl_reversed": lambda t: _every_word(t, _reversed, 0.3),
        "greek_look_alikes": lambda t: _every_word(t, lambda w: w.translate(greek), 0.5),
        "spacing_30": lambda t: _every_word(t, letter_spaced, 0.3),
        # invented
        "digit_look_alikes": lambda t: _every_word(
            t, lambda w: w.translate(_DIGITS_FOR[language]), 0.3
        ),
        "word_joiner": lambda t: _every_word(t, _between_letters("\u2060"), 0.5),
        "tag_characters": lambda t: _every_word(t, _middle("\U000e0041\U000e0042")),
        "ligatures": lambda t: (
            t.replace("fi", "\ufb01").replace("fl", "\ufb02").replace("ff", "\ufb00")
        ),
        "fullwidth": lambda t: _every_word(
            t, lambda w: "".join(_FULLWIDTH.get(c, c) for c in w), 0.3
        ),
        "math_letters": lambda t: _every_word(
            t, lambda w: "".join(_MATH_BOLD.get(c, c) for c in w), 0.3
        ),
        "superscript_letters": lambda t: _every_word(t, lambda w: w.translate(_SUPERSCRIPT), 0.3),
        "foreign_digits": lambda t: t.translate(_FOREIGN_DIGITS),
        "html_entities": _html_entities,
        "nbsp_between_words": lambda t: t.replace(" ", "\u00a0"),
        "invisible_separator": lambda t: _every_word(t, _middle("\u2063"), 0.5),
    }


# --- the office copies: hidden text ---------------------------------------------------------

FONTS = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/dejavu/DejaVuSans.ttf"),
)


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text.strip()) if s.strip()]


#: What XML (a .docx) cannot hold: control characters (a few documents have them).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in _NOT_XML.sub(" ", text).split("\n") if p.strip()]


def docx_copy(text: str, stuffing: list[str] | None) -> bytes:
    """``text`` as a .docx, a paragraph per line; with ``stuffing``, a sentence of it after
    each sentence of the text, hidden, white or 1 pt in turn."""
    import io

    import docx
    from docx.shared import Pt, RGBColor

    document = docx.Document()
    hidden = 0
    for paragraph_text in _paragraphs(text):
        paragraph = document.add_paragraph()
        for sentence in _sentences(paragraph_text):
            paragraph.add_run(sentence + " ")
            if stuffing:
                run = paragraph.add_run(stuffing[hidden % len(stuffing)] + " ")
                if hidden % 3 == 0:
                    run.font.hidden = True
                elif hidden % 3 == 1:
                    run.font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
                else:
                    run.font.size = Pt(1)
                hidden += 1
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def pdf_copy(text: str, stuffing: list[str] | None) -> bytes:
    """``text`` as a PDF, a paragraph a cell; with ``stuffing``, after each paragraph as many
    of its sentences as the paragraph has, invisible, white or 1 pt in turn, and one more off
    the page."""
    import fpdf
    from fpdf.enums import TextMode

    font = next(f for f in FONTS if f.is_file())
    pdf = fpdf.FPDF()
    pdf.add_page()
    pdf.add_font("dejavu", fname=str(font))
    pdf.set_font("dejavu", size=11)
    hidden = 0
    for paragraph in _paragraphs(text):
        pdf.multi_cell(0, 6, paragraph, new_x="LMARGIN", new_y="NEXT")
        for _ in _sentences(paragraph) if stuffing else ():
            assert stuffing is not None
            line = stuffing[hidden % len(stuffing)]
            if hidden % 3 == 0:
                with pdf.local_context(text_mode=TextMode.INVISIBLE):
                    pdf.multi_cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
            elif hidden % 3 == 1:
                with pdf.local_context(text_color=(255, 255, 255)):
                    pdf.multi_cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
            else:
                pdf.set_font_size(1)
                pdf.multi_cell(0, 1, line, new_x="LMARGIN", new_y="NEXT")
                pdf.set_font_size(11)
            hidden += 1
    if stuffing:
        pdf.text(-500, -500, stuffing[hidden % len(stuffing)])
    return bytes(pdf.output())


OFFICE = {"docx_hidden": ("copy.docx", docx_copy), "pdf_hidden": ("copy.pdf", pdf_copy)}


def _token_diff(spec: object, source: str, copy: str) -> str:
    """The canonical tokens of one text and not the other (at most eight of each way)."""
    from collections import Counter

    from neardup.fingerprints.pipeline import Pipeline

    pipeline = Pipeline(spec)  # type: ignore[arg-type]
    a = Counter(pipeline.canonical(source).terms)
    b = Counter(pipeline.canonical(copy).terms)
    only_a = [t for t in a if t not in b][:8]
    only_b = [t for t in b if t not in a][:8]
    return f"source only {only_a}; copy only {only_b}"


def run_copies(count: int, only: set[str] | None, worst: int) -> None:
    from neardup import compare
    from neardup.fingerprints.pipeline import Pipeline, default_spec
    from neardup.inputs import ReadOptions, hidden_in, text_from_bytes

    folded_spec, raw_spec = default_spec(), default_spec(fold_tricks=False)
    analyzer = Pipeline(folded_spec).analyzer
    everything = ReadOptions(visible_only=False)
    print(
        "| corpus | trick | copies | mean \\|Δ\\| | worst \\|Δ\\| | within 0.02 | flagged "
        "| resemblance | without folding | figure: mean, worst |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in CORPORA:
        language = "ru" if name == "ru_news" else "en"
        docs = sample(name, count)
        tricks: dict[str, Callable[[str], str] | None] = {**make_tricks(language)}
        tricks.update(dict.fromkeys(OFFICE))
        for trick, make in tricks.items():
            if only is not None and trick not in only:
                continue
            deltas, raws, scores, figures, flagged = [], [], [], [], 0
            cases: list[tuple[float, str, str, str]] = []
            started = time.process_time()
            for number, (doc_id, text) in enumerate(docs):
                if make is not None:
                    copy, clean = make(text), 1.0
                    result = compare(text, copy, spec=folded_spec)
                    score = result.resemblance
                    figures.append(1 - result.shared / max(result.shingles_b, 1))
                    raws.append(compare(text, copy, spec=raw_spec).resemblance)
                    flagged += analyzer.canonical(copy).tricks.suspicious
                else:
                    file_name, write = OFFICE[trick]
                    following = docs[(number + 1) % len(docs)][1]
                    stuffing = [
                        " ".join(_NOT_XML.sub(" ", s).split()) for s in _sentences(following)
                    ]
                    plain = text_from_bytes(write(text, None), file_name).text
                    clean = compare(text, plain, spec=folded_spec).resemblance
                    data = write(text, stuffing)
                    read = text_from_bytes(data, file_name)
                    copy = read.text
                    result = compare(text, copy, spec=folded_spec, hidden_b=hidden_in(read))
                    score = result.resemblance
                    figures.append(1 - result.shared / max(result.shingles_b, 1))
                    flagged += result.tricks_b.suspicious
                    raw_text = text_from_bytes(data, file_name, everything).text
                    raws.append(compare(text, raw_text, spec=raw_spec).resemblance)
                scores.append(score)
                deltas.append(abs(score - clean))
                cases.append((abs(score - clean), doc_id, text, copy))
            n = len(docs)
            within = sum(d <= 0.02 for d in deltas)
            print(
                f"| {name} | {trick} | {n} | {statistics.fmean(deltas):.4f} | "
                f"{max(deltas):.4f} | {within / n:.1%} | {flagged / n:.1%} | "
                f"{statistics.fmean(scores):.3f} | {statistics.fmean(raws):.3f} | "
                f"{statistics.fmean(figures):.1%}, {max(figures):.1%} |",
                flush=True,
            )
            print(f"    ({time.process_time() - started:.0f} s CPU)", file=sys.stderr)
            for delta, doc_id, text, copy in sorted(cases, reverse=True)[:worst]:
                if delta > 0.02:
                    diff = _token_diff(folded_spec, text, copy)
                    print(f"    worst {delta:.4f} {name} {doc_id}: {diff}", file=sys.stderr)


def run_false_alarms(show: int, limit: int | None = None) -> None:
    from neardup.analysis.tricks import SUSPICIOUS_AT
    from neardup.fingerprints.pipeline import Pipeline, default_spec

    analyzer = Pipeline(default_spec()).analyzer
    print(
        "| corpus | documents | anything folded | homoglyph | invisible | letter spacing "
        "| stuffing | flagged suspicious | share flagged |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    listed: list[str] = []
    nearest: list[tuple[float, str]] = []
    for name in ALL_CORPORA:
        total = folded = flagged = 0
        kinds = dict.fromkeys(("homoglyph", "invisible", "letter_spacing", "stuffing"), 0)
        for doc_id, text in documents(name):
            if limit is not None and total >= limit:
                break
            total += 1
            tricks = analyzer.canonical(text).tricks
            folded += bool(tricks)
            for trick in tricks.found:
                kinds[trick.kind] += 1
                least, share = SUSPICIOUS_AT[trick.kind]
                amount = trick.chars if trick.kind == "letter_spacing" else trick.words
                closeness = min(amount / least, trick.share / share)
                excerpt = repr(text[max(0, trick.spans[0][0] - 20) : trick.spans[0][1] + 20])
                nearest.append(
                    (
                        closeness,
                        f"{name} {doc_id}: {trick.kind}, {amount} of {least}, share "
                        f"{trick.share:.1%} of {share:.0%}: {excerpt}",
                    )
                )
            if tricks.suspicious:
                flagged += 1
                for trick in tricks.found:
                    if not trick.suspicious:
                        continue
                    excerpts = [repr(text[max(0, a - 20) : b + 20]) for a, b in trick.spans[:3]]
                    listed.append(
                        f"{name} {doc_id}: {trick.kind}, {trick.chars} chars, {trick.words} "
                        f"words ({trick.share:.1%}): " + " ".join(excerpts)
                    )
        print(
            f"| {name} | {total} | {folded} ({folded / total:.1%}) | "
            + " | ".join(str(v) for v in kinds.values())
            + f" | {flagged} | {flagged / total:.3%} |",
            flush=True,
        )
    print("\nflagged documents:" if listed else "\nno document flagged")
    for line in listed:
        print("  " + line)
    print("\nthe unflagged documents nearest to a threshold (1.0 = at it):")
    for closeness, line in sorted(nearest, reverse=True)[:show]:
        print(f"  {closeness:.2f} {line}")


def run_identity() -> None:
    import numpy as np

    from neardup.fingerprints.pipeline import Pipeline, default_spec

    folded, raw = Pipeline(default_spec()), Pipeline(default_spec(fold_tricks=False))
    print("| corpus | documents | fingerprints differ | of those, with a trick found |")
    print("|---|---:|---:|---:|")
    for name in ALL_CORPORA:
        total = differ = with_trick = 0
        for _, text in documents(name):
            total += 1
            a = folded.fingerprints(text).values
            b = raw.fingerprints(text).values
            if not np.array_equal(a, b):
                differ += 1
                with_trick += bool(folded.analyzer.canonical(text).tricks)
        print(f"| {name} | {total} | {differ} | {with_trick} |", flush=True)


def main() -> None:
    import logging

    logging.getLogger("fpdf").setLevel(logging.ERROR)  # glyphs DejaVu lacks (emoji) are left out
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--docs", type=int, default=500, help="documents per corpus (copies)")
    parser.add_argument("--false-alarms", action="store_true")
    parser.add_argument("--identity", action="store_true")
    parser.add_argument("--limit", type=int, help="false alarms: documents per corpus")
    parser.add_argument("--tricks", help="copies: only these tricks (comma-separated)")
    parser.add_argument(
        "--worst", type=int, default=0, help="copies: the worst N of each trick, token diffs"
    )
    parser.add_argument(
        "--show", type=int, default=12, help="excerpts per flagged trick, and documents nearest"
    )
    args = parser.parse_args()
    if not DATA.is_dir():
        sys.exit(f"no data directory {DATA}")
    if args.false_alarms:
        run_false_alarms(args.show, args.limit)
    elif args.identity:
        run_identity()
    else:
        only = set(args.tricks.split(",")) if args.tricks else None
        run_copies(args.docs, only, args.worst)


if __name__ == "__main__":
    main()

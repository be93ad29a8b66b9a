"""Which PDF text extractor keeps Russian text best: pypdf against pdfminer.six and pypdfium2
on PDFs made from real texts by more than one writer.

Texts: the first ``--docs`` news items of ``ru_news.jsonl.gz`` that hold a «…» quotation, and
as many passages of ``ruslit.jsonl.gz`` with one, each cut to ``--chars`` characters at a
paragraph's end. Writers: fpdf2 (the project's report writer, DejaVu Sans), Chromium's
print-to-PDF (Skia) of the same text as HTML, LibreOffice's ``--convert-to pdf`` of the text
file, and reportlab, each where it is installed. Extractors: pypdf's ``extract_text`` page by
page, ``neardup`` (``neardup.inputs.office.extract_text``: pypdf, the pages joined as lines),
pdfminer.six and pypdfium2. For each
writer and extractor it prints, averaged over the texts:

* ``chars``: the share of the text's characters other than white space that come back (as a
  multiset: a letter lost or changed counts);
* ``quotes``: the share of its « and » that come back;
* ``order``: difflib's ratio of the word sequences (1.0: every word, in reading order);
* ``exact``: the share of texts whose words all come back in order;
* ``quotes found``: the share of texts in which neardup finds as many «…» quotations as in
  the plain text (a quotation cut at a page's end is lost);
* ``ms``: milliseconds per text.

Run (the extractors not installed are skipped and named)::

    PYTHONPATH=src .venv/bin/python benchmarks/pdf_extraction.py --docs 8 --chars 3000
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from html import escape
from pathlib import Path

DATA = Path(os.environ.get("NEARDUP_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _cut(text: str, chars: int) -> str:
    """``text`` cut to about ``chars`` characters at a paragraph's (else a sentence's) end."""
    if len(text) <= chars:
        return text.strip()
    at = text.rfind("\n", chars // 2, chars)
    if at < 0:
        at = text.rfind(". ", chars // 2, chars) + 1
    return text[: at if at > 0 else chars].strip()


def texts(docs: int, chars: int) -> Iterator[tuple[str, str]]:
    """Real texts with a «…» quotation: news items, then passages of literature."""
    for name, count in (("ru_news.jsonl.gz", docs), ("ruslit.jsonl.gz", docs // 2)):
        found = 0
        with gzip.open(DATA / name, "rt", encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                text = record.get("text") or ""
                start = text.find("«")
                if start < 0 or len(text) < chars // 2:
                    continue
                begin = max(text.rfind("\n", 0, start), 0)  # the quotation's paragraph
                yield f"{name.split('.')[0]}:{record['id']}", _cut(text[begin:], chars)
                found += 1
                if found == count:
                    break


# --- writers --------------------------------------------------------------------------------


def fpdf2_writer(text: str) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_font("body", "", FONT)
    pdf.set_font("body", size=11)
    pdf.add_page()
    for paragraph in text.split("\n"):
        pdf.multi_cell(0, 6, paragraph.strip() or " ", new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def chromium_writer(text: str) -> bytes:
    browser = shutil.which("chromium")
    if browser is None:
        raise RuntimeError("no chromium")
    with tempfile.TemporaryDirectory() as folder:
        page, out = Path(folder, "t.html"), Path(folder, "t.pdf")
        body = "".join(f"<p>{escape(p)}</p>" for p in text.split("\n") if p.strip())
        page.write_text(
            f'<!DOCTYPE html><html lang="ru"><meta charset="utf-8"><body style="font:12pt '
            f'DejaVu Sans,sans-serif">{body}</body></html>',
            encoding="utf-8",
        )
        subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
             f"--print-to-pdf={out}", page.as_uri()],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        return out.read_bytes()


def libreoffice_writer(text: str) -> bytes:
    office = shutil.which("soffice") or shutil.which("libreoffice")
    if office is None:
        raise RuntimeError("no libreoffice")
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder, "t.txt")
        source.write_text(text, encoding="utf-8")
        subprocess.run(
            [office, "--headless", f"-env:UserInstallation=file://{folder}/profile",
             "--convert-to", "pdf", "--outdir", folder, str(source)],
            check=True, capture_output=True, timeout=180,
        )  # fmt: skip
        return Path(folder, "t.pdf").read_bytes()


def reportlab_writer(text: str) -> bytes:
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    pdfmetrics.registerFont(TTFont("DejaVu", FONT))
    style = getSampleStyleSheet()["Normal"]
    style.fontName = "DejaVu"
    out = io.BytesIO()
    story = [Paragraph(escape(p), style) for p in text.split("\n") if p.strip()]
    SimpleDocTemplate(out).build(story)
    return out.getvalue()


# --- extractors -----------------------------------------------------------------------------


def pypdf_extract(data: bytes) -> str:
    import pypdf

    return "\n".join(p.extract_text() or "" for p in pypdf.PdfReader(io.BytesIO(data)).pages)


def neardup_extract(data: bytes) -> str:
    from neardup.inputs.office import extract_text

    return extract_text(data, ".pdf")


def pdfminer_extract(data: bytes) -> str:
    from pdfminer.high_level import extract_text

    return str(extract_text(io.BytesIO(data)))


def pypdfium2_extract(data: bytes) -> str:
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    try:
        return "\n".join(page.get_textpage().get_text_bounded() for page in document)
    finally:
        document.close()


# --- measures -------------------------------------------------------------------------------

_WORD = re.compile(r"\w+|[«»„“”\"—–-]")


def _quotes_found(text: str) -> int:
    from neardup.passages.citations import CitationKind, find_citations

    return sum(c.kind == CitationKind.QUOTE for c in find_citations(text))


def measures(original: str, extracted: str) -> tuple[float, float, float, bool, bool]:
    want = Counter(c for c in original if not c.isspace())
    got = Counter(c for c in extracted if not c.isspace())
    chars = sum((want & got).values()) / max(1, sum(want.values()))
    quotes_want = original.count("«") + original.count("»")
    quotes_got = min(extracted.count("«"), original.count("«")) + min(
        extracted.count("»"), original.count("»")
    )
    quotes = quotes_got / quotes_want if quotes_want else 1.0
    a, b = _WORD.findall(original), _WORD.findall(extracted)
    order = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
    return chars, quotes, order, a == b, _quotes_found(original) == _quotes_found(extracted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=8)
    parser.add_argument("--chars", type=int, default=3000)
    args = parser.parse_args()
    writers: dict[str, Callable[[str], bytes]] = {
        "fpdf2": fpdf2_writer,
        "chromium": chromium_writer,
        "libreoffice": libreoffice_writer,
        "reportlab": reportlab_writer,
    }
    extractors: dict[str, Callable[[bytes], str]] = {
        "pypdf": pypdf_extract,
        "neardup": neardup_extract,
        "pdfminer.six": pdfminer_extract,
        "pypdfium2": pypdfium2_extract,
    }
    chosen = list(texts(args.docs, args.chars))
    print(f"{len(chosen)} texts, {sum(len(t) for _, t in chosen):,} characters; "
          f"{os.cpu_count()} cores")  # fmt: skip
    print(f"{'writer':<11} {'extractor':<13} {'chars':>7} {'quotes':>7} {'order':>7} "
          f"{'exact':>6} {'quotes found':>12} {'ms':>7}")  # fmt: skip
    for writer_name, writer in writers.items():
        try:
            pdfs = [writer(text) for _, text in chosen]
        except (ImportError, RuntimeError, OSError, subprocess.SubprocessError) as exc:
            print(f"{writer_name:<10} skipped: {type(exc).__name__}: {exc}")
            continue
        for name, extract in extractors.items():
            rows, spent = [], 0.0
            try:
                for (_, text), data in zip(chosen, pdfs, strict=True):
                    start = time.perf_counter()
                    out = extract(data)
                    spent += time.perf_counter() - start
                    rows.append(measures(text, out))
            except ImportError as exc:
                print(f"{writer_name:<10} {name:<13} not installed ({exc.name})")
                continue
            n = len(rows)
            mean = [sum(r[i] for r in rows) / n for i in range(3)]
            exact = sum(r[3] for r in rows) / n
            cites = sum(r[4] for r in rows) / n
            ms = 1000 * spent / n
            print(f"{writer_name:<11} {name:<13} {mean[0]:>7.4f} {mean[1]:>7.4f} "
                  f"{mean[2]:>7.4f} {exact:>6.2f} {cites:>12.2f} {ms:>7.1f}")  # fmt: skip


if __name__ == "__main__":
    main()

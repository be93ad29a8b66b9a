""".odt and RTF files made in the tests from texts written here, and the two .doc files checked
in beside them (``data/``, made from :func:`rtf_bytes`'s RTF by LibreOffice; see
``data/README.md``).

Run as ``python -m tests.inputs._office_files`` where ``soffice`` is installed to make the .doc
files again.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

DATA = Path(__file__).resolve().parent / "data"

#: A text written for these tests: Russian paragraphs, then English ones.
RU = [
    "Весной на окраине посёлка открыли новую библиотеку с читальным залом у окна.",
    "Библиотекарь Анна Петровна по субботам читает детям сказки и рассказы о животных.",
    "Старшеклассники помогают ей расставлять книги по полкам и чинить потрёпанные переплёты.",
    "Зимой в зале тепло, пахнет чаем, и на подоконнике цветёт упрямая фиалка.",
]
EN = [
    "The new library on the edge of the village opened in spring with a reading room.",
    "On Saturdays the librarian reads fairy tales and stories about animals to children.",
]
PARAGRAPHS = RU + EN
#: The paragraphs of ``small.doc``.
SMALL = [RU[0], RU[3], EN[0]]
#: Text hidden in the files: a sentence the reader does not see.
HIDDEN = "Этот текст спрятан от читателя и не должен попасть в сравнение."
#: Its characters but white space, and its words.
HIDDEN_CHARS = sum(1 for c in HIDDEN if not c.isspace())
HIDDEN_WORDS = len(HIDDEN.split())

#: The .doc files (Word 97 format, LibreOffice's "MS Word 97" filter): ``hidden.doc`` holds
#: :func:`doc_paragraphs` with :data:`HIDDEN` after the second paragraph, hidden; ``small.doc``
#: is :data:`SMALL` alone, its main stream under 4 KiB (antiword refuses it; catdoc reads).
HIDDEN_DOC = DATA / "hidden.doc"
SMALL_DOC = DATA / "small.doc"
#: ``table.doc``: :func:`table_html` (a heading, paragraphs, a table) through LibreOffice's HTML
#: import; its text is :func:`table_lines`.
TABLE_DOC = DATA / "table.doc"


def doc_paragraphs() -> list[str]:
    """The paragraphs of ``hidden.doc``: enough text for a main stream over 4 KiB."""
    return [f"{number}. {text}" for number in range(1, 5) for text in PARAGRAPHS]


def table_html() -> str:
    paragraphs = "".join(f"<p>{number}. {text}</p>" for number, text in enumerate(RU * 3))
    rows = "".join(f"<tr><td>{ru}</td><td>{en}</td></tr>" for ru, en in zip(RU, EN * 2))
    return (
        f'<html><head><meta charset="utf-8"></head><body><h1>{EN[0]}</h1>{paragraphs}'
        f"<table>{rows}</table><p>{RU[0]}</p></body></html>"
    )


def table_lines() -> list[str]:
    """The text of ``table.doc``: a line a heading or paragraph, a row's cells joined by tabs."""
    return [
        EN[0],
        *(f"{number}. {text}" for number, text in enumerate(RU * 3)),
        *(f"{ru}\t{en}" for ru, en in zip(RU, EN * 2)),
        RU[0],
    ]


# ---- RTF ----------------------------------------------------------------------------------------


def rtf_escaped(text: str, *, codepage: str | None = None) -> str:
    """``text`` for an RTF body: ``\\uN?`` for every character past ASCII (as Word writes), or
    ``\\'hh`` in ``codepage``."""
    out = []
    for char in text:
        if char in "\\{}":
            out.append("\\" + char)
        elif ord(char) < 128:
            out.append(char)
        elif codepage is not None:
            out.append("".join(f"\\'{b:02x}" for b in char.encode(codepage)))
        else:  # UTF-16 code units, signed, as Word writes them (a surrogate pair past U+FFFF)
            units = char.encode("utf-16-le")
            for i in range(0, len(units), 2):
                code = int.from_bytes(units[i : i + 2], "little")
                out.append(f"\\u{code - 65536 if code > 32767 else code}?")
    return "".join(out)


def rtf_bytes(
    paragraphs: list[str],
    *,
    hidden: dict[int, str] | None = None,
    codepage: str | None = None,
    header: str = "\\ansi\\ansicpg1251\\deff0",
) -> bytes:
    """A Word-like RTF file of ``paragraphs`` (a font table, a colour table, a style sheet and
    an info group before them); ``hidden``: text after paragraph N's text, in ``\\v``."""
    hidden = hidden or {}
    body = []
    for number, text in enumerate(paragraphs):
        line = f"\\pard\\plain\\f0\\fs24 {rtf_escaped(text, codepage=codepage)}"
        if number in hidden:
            line += f" {{\\v {rtf_escaped(hidden[number], codepage=codepage)}}}"
        body.append(line + "\\par")
    return (
        f"{{\\rtf1{header}"
        "{\\fonttbl{\\f0\\froman\\fcharset204\\fprq2 Times New Roman;}"
        "{\\f1\\fswiss\\fcharset0 Arial;}}\n"
        "{\\colortbl;\\red0\\green0\\blue0;\\red255\\green255\\blue255;}\n"
        "{\\stylesheet{\\s0 Normal;}{\\s1 heading 1;}}\n"
        "{\\info{\\title \\u1058?\\u1077?\\u1089?\\u1090?}{\\author Test}}\n"
        + "\n".join(body)
        + "\n}"
    ).encode("ascii")


# ---- .odt ---------------------------------------------------------------------------------------

_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
    'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"'
)
_MANIFEST = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" '
    'manifest:version="1.3">'
    '<manifest:file-entry manifest:full-path="/" '
    'manifest:media-type="application/vnd.oasis.opendocument.text"/>'
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
    '<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>'
    "</manifest:manifest>"
)


def odt_paragraphs(paragraphs: list[str]) -> str:
    return "".join(f'<text:p text:style-name="P1">{escape(p)}</text:p>' for p in paragraphs)


def odt_bytes(
    body: str,
    *,
    automatic: str = "",
    styles: str = "",
    manifest: str = _MANIFEST,
    extra: dict[str, bytes] | None = None,
    body_tag: str = "office:text",
) -> bytes:
    """An .odt package (``mimetype`` first, stored) whose ``office:text`` is ``body``, with
    ``automatic`` styles in content.xml and ``styles`` in styles.xml."""
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content {_NS} '
        f'office:version="1.3"><office:automatic-styles>{automatic}</office:automatic-styles>'
        f"<office:body><{body_tag}>{body}</{body_tag}></office:body>"
        "</office:document-content>"
    )
    style_part = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-styles {_NS} '
        f'office:version="1.3"><office:styles>{styles}</office:styles></office:document-styles>'
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        package.writestr(zipfile.ZipInfo("mimetype"), b"application/vnd.oasis.opendocument.text")
        package.writestr("content.xml", content.encode("utf-8"), zipfile.ZIP_DEFLATED)
        package.writestr("styles.xml", style_part.encode("utf-8"), zipfile.ZIP_DEFLATED)
        package.writestr("META-INF/manifest.xml", manifest.encode("utf-8"), zipfile.ZIP_DEFLATED)
        for name, data in (extra or {}).items():
            package.writestr(name, data, zipfile.ZIP_DEFLATED)
    return out.getvalue()


# ---- making the .doc files ----------------------------------------------------------------------


def make_docs(folder: Path = DATA) -> None:
    """Write ``hidden.doc`` and ``small.doc`` with LibreOffice (``soffice``)."""
    soffice = shutil.which("soffice")
    if soffice is None:
        sys.exit("soffice is not installed (Debian: libreoffice-writer-nogui)")
    sources = {
        "hidden": rtf_bytes(doc_paragraphs(), hidden={1: HIDDEN}),
        "small": rtf_bytes(SMALL),
    }
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        for name, data in sources.items():
            rtf = Path(work) / f"{name}.rtf"
            rtf.write_bytes(data)
            subprocess.run(
                [soffice, "--headless", "--convert-to", "doc:MS Word 97", "--outdir", work, rtf],
                check=True,
                capture_output=True,
            )
            shutil.copyfile(Path(work) / f"{name}.doc", folder / f"{name}.doc")
        html = Path(work) / "table.html"
        html.write_text(table_html(), encoding="utf-8")
        subprocess.run(
            [
                soffice,
                "--headless",
                "--infilter=HTML (StarWriter)",
                "--convert-to",
                "doc:MS Word 97",
                "--outdir",
                work,
                html,
            ],
            check=True,
            capture_output=True,
        )
        shutil.copyfile(Path(work) / "table.doc", folder / "table.doc")


if __name__ == "__main__":
    make_docs()

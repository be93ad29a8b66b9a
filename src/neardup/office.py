"""Text out of office documents: ``.docx`` (python-docx) and ``.pdf`` (pypdf).

``extract_text(data, suffix)`` is the one way neardup turns such a file into text; the CLI's
file reading and the web service's uploads both call it, so the offsets of matched passages
refer to the same extracted text everywhere. Both libraries come with ``neardup[office]``
(also in ``[web]`` and ``[all]``).

* ``.docx``: the body's paragraphs and table cells in document order, one paragraph a line
  (a table row's cells joined by tabs); headers, footers, comments and footnotes are left out.
* ``.pdf``: the text layer of every page (pypdf's reading order), pages separated by a blank
  line. A scanned PDF without a text layer gives an empty string — there is no OCR.

A file that is not what its suffix says, or is damaged, or is encrypted, raises
:class:`~neardup.errors.InputError` naming the format and what went wrong.
"""

from __future__ import annotations

import io
import os
import zipfile
from typing import Any

from neardup.errors import InputError, require

#: Suffixes (lower case) read by :func:`extract_text`.
OFFICE_SUFFIXES = (".docx", ".pdf")


def is_office(name: str | os.PathLike[str]) -> bool:
    """Whether a file name ends in a suffix :func:`extract_text` reads."""
    return os.fspath(name).lower().endswith(OFFICE_SUFFIXES)


def _docx_blocks(document: Any) -> list[str]:
    """Paragraphs and tables of the body in document order."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    out: list[str] = []
    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            out.append(block.text)
        elif isinstance(block, Table):
            for row in block.rows:
                out.append("\t".join(cell.text for cell in row.cells))
    return out


def _docx(data: bytes) -> str:
    docx = require("docx", "office")
    try:
        document = docx.Document(io.BytesIO(data))  # type: ignore[attr-defined]
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        raise InputError(f"not a readable .docx file ({type(exc).__name__}: {exc})") from None
    except Exception as exc:  # python-docx raises its own PackageNotFoundError and lxml errors
        raise InputError(f"not a readable .docx file ({type(exc).__name__}: {exc})") from None
    return "\n".join(_docx_blocks(document))


def _pdf(data: bytes) -> str:
    pypdf = require("pypdf", "office")
    errors = pypdf.errors  # type: ignore[attr-defined]
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)  # type: ignore[attr-defined]
        if reader.is_encrypted:
            raise InputError("the .pdf file is encrypted; neardup reads only unencrypted PDFs")
        pages = [page.extract_text() or "" for page in reader.pages]
    except InputError:
        raise
    except (errors.PyPdfError, ValueError, KeyError, TypeError, OSError, AttributeError) as exc:
        raise InputError(f"not a readable .pdf file ({type(exc).__name__}: {exc})") from None
    except Exception as exc:  # pypdf on damaged input can fail in many ways
        raise InputError(f"not a readable .pdf file ({type(exc).__name__}: {exc})") from None
    return "\n\n".join(p.strip("\n") for p in pages)


def extract_text(data: bytes, suffix: str) -> str:
    """The text of a ``.docx`` or ``.pdf`` file given as bytes; ``suffix`` says which.

    Raises :class:`~neardup.errors.InputError` for another suffix or an unreadable file, and
    :class:`~neardup.errors.MissingDependencyError` when ``neardup[office]`` is not installed.
    """
    kind = suffix.lower() if suffix.startswith(".") else "." + suffix.lower()
    if kind == ".docx":
        if not data.startswith(b"PK"):
            raise InputError("not a readable .docx file (it is not a ZIP package)")
        return _docx(data)
    if kind == ".pdf":
        if b"%PDF-" not in data[:1024]:
            raise InputError("not a readable .pdf file (no %PDF- header)")
        return _pdf(data)
    raise InputError(
        f"cannot extract text from {suffix!r} files; expected one of {', '.join(OFFICE_SUFFIXES)}"
    )


def read_file(path: str | os.PathLike[str]) -> str:
    """The text of a ``.docx`` or ``.pdf`` file on disk, read by :mod:`neardup.inputs` (a
    regular file within the size limit; a refusal names the file)."""
    from neardup.inputs import read_text_input

    return read_text_input(path).text

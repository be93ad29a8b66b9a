"""Text out of a Word 97–2003 file (``.doc``), by Debian's ``antiword`` run as a separate
process (``catdoc`` for the smallest files, which antiword refuses).

antiword writes the document as DocBook XML (``antiword -x db``), which is read here with lxml
(no entity resolved, no DTD loaded): a ``para`` or a heading a line, a table row's cells joined
by tabs, as a ``.docx``. Its XML output honours Word's hidden-text attribute: without ``-s`` it
leaves hidden text out, with ``-s`` it keeps it. :func:`text` reads with ``-s``;
:func:`visible` reads both ways and counts what the first has more of (characters but white
space, words) as ``hidden``.

antiword cannot read a file whose main stream is under 4 KiB (it says "the text stream of this
file is too small to handle"; Word itself never writes one, other programs do): such a file
is read by ``catdoc -w`` (one paragraph a line), which does not tell hidden text, so there all
of the text is read and nothing is reported hidden.

Bounds (:class:`~neardup.inputs.office_base.OfficeLimits`): the file's bytes (a compound file
stores its streams as they are, so its bytes bound what it holds); the program's output
(``max_chars`` characters, its XML at most :data:`XML_PER_CHAR` bytes a character) read as it
comes and the program killed past it; the time left of ``max_seconds``, past which the
program is killed; its address space (:data:`MEMORY`); then the XML's elements
(``max_elements``), its paragraphs and the characters given. The program reads the file from
a temporary file, never from its name, and is given no shell.

A missing program is a :class:`~neardup.errors.MissingDependencyError` (code
``missing_tool``) naming the Debian package to install.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from typing import Any

from neardup.errors import MissingDependencyError, require
from neardup.inputs.office_base import (
    Budget,
    Dropped,
    Extraction,
    safe_parser,
    scan_xml,
    unreadable,
)

NOT_DOC = "it is not a Word 97-2003 compound file"

#: The signature every compound (OLE2) file starts with.
_COMPOUND = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
#: Bytes of antiword's XML allowed per character of ``max_chars`` (markup around short runs).
XML_PER_CHAR = 8
#: The address space the program may take (bytes).
MEMORY = 1024 * 1024 * 1024
#: What antiword says of a main stream under 4 KiB.
_TOO_SMALL = b"too small to handle"
#: How much of the program's complaint is quoted.
_SAID = 300


def looks_right(data: bytes) -> bool:
    return data.startswith(_COMPOUND)


def _program(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        raise MissingDependencyError(
            f"reading .doc files needs the program {tool}, which is not installed; install "
            f"Debian's package: apt-get install {tool}",
            code="missing_tool",
            params={"tool": tool, "package": tool, "kind": ".doc"},
        )
    return found


def _limit_memory(pid: int) -> None:
    """Cap the program's address space (Linux; elsewhere the time and output bounds hold).
    It is set on the running child, not in a ``preexec_fn``, which is unsafe in a threaded
    process such as the web service; the child has only started reading by then."""
    try:
        import resource

        resource.prlimit(pid, resource.RLIMIT_AS, (MEMORY, MEMORY))
    except (ImportError, AttributeError, OSError, ValueError):
        pass


def _run(argv: list[str], data: bytes, budget: Budget) -> tuple[bytes, bytes, int]:
    """The program's output, its complaint (the start of stderr) and its exit code; refused
    past the output or time bound."""
    cap = XML_PER_CHAR * budget.limits.max_chars
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": tempfile.gettempdir(),
        "LC_ALL": "C.UTF-8",
    }
    with tempfile.TemporaryFile() as source, tempfile.TemporaryFile() as errors:
        source.write(data)
        source.seek(0)
        budget.tick()
        process = subprocess.Popen(
            argv, stdin=source, stdout=subprocess.PIPE, stderr=errors, env=env, close_fds=True
        )
        _limit_memory(process.pid)
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            process.kill()

        timer = threading.Timer(budget.left(), expire)
        timer.daemon = True
        timer.start()
        out = io.BytesIO()
        over = False
        try:
            assert process.stdout is not None
            while chunk := process.stdout.read(64 * 1024):
                if out.tell() + len(chunk) > cap:
                    over = True
                    process.kill()
                    break
                out.write(chunk)
        finally:
            timer.cancel()
            if process.stdout is not None:
                process.stdout.close()
            code = process.wait()
        if over:
            raise budget.refuse(
                "gives more text than the limit", "max_chars", budget.limits.max_chars
            )
        if expired.is_set():
            raise budget.too_slow()
        errors.seek(0)
        said = errors.read(_SAID)
    return out.getvalue(), said, code


def _complaint(tool: str, said: bytes, code: int) -> str:
    words = " ".join(said.decode("utf-8", "replace").split())
    return f"{tool}: {words}" if words else f"{tool} exited with {code}"


def _inline(element: Any) -> str:
    """An element's text, its footnotes left out (their tails kept)."""
    pieces = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str) and child.tag != "footnote":
            pieces.append(_inline(child))
        pieces.append(child.tail or "")
    return "".join(pieces)


def _blocks(element: Any, budget: Budget) -> Iterator[str]:
    """DocBook's blocks in order: a ``para`` or a ``title`` a line, a table ``row`` a line of
    its cells joined by tabs. The book's own title and ``bookinfo`` are the file's properties,
    not its text."""
    for child in element:
        tag = child.tag
        if not isinstance(tag, str) or tag in ("bookinfo", "footnote"):
            continue
        if tag == "title" and element.tag == "book":
            continue
        if tag == "row":
            cells = (_inline(entry).strip() for entry in child if entry.tag == "entry")
            yield "\t".join(cells)
        elif tag in ("para", "title", "simpara") and child.find(".//row") is None:
            said = _inline(child).strip()
            if said or tag != "title":
                budget.spend(len(said) + 1)
                yield said
        else:
            yield from _blocks(child, budget)


def _antiword(data: bytes, budget: Budget, hidden_too: bool) -> str | None:
    """The text antiword gives (with ``hidden_too``, Word's hidden text as well), or None when
    antiword refuses a main stream under 4 KiB."""
    from lxml import etree

    argv = [_program("antiword"), "-x", "db", *(["-s"] if hidden_too else []), "-"]
    out, said, code = _run(argv, data, budget)
    if code != 0 or not out.strip():
        if _TOO_SMALL in said:
            return None
        raise unreadable(".doc", _complaint("antiword", said, code))
    counts = [0, 0]
    try:
        scan_xml(io.BytesIO(out), budget, counts, ("para", "row"))
        root = etree.fromstring(out, safe_parser())
    except etree.XMLSyntaxError as exc:
        raise unreadable(".doc", f"antiword's output: {exc}") from None
    try:
        return "\n".join(_blocks(root, budget))
    except RecursionError:  # lxml caps the nesting; this is the last guard
        raise unreadable(".doc", "antiword's output nests too deeply") from None


def _catdoc(data: bytes, budget: Budget) -> str:
    out, said, code = _run([_program("catdoc"), "-d", "utf-8", "-w"], data, budget)
    if code != 0:
        raise unreadable(".doc", _complaint("catdoc", said, code))
    lines = out.decode("utf-8", "replace").replace("\r", "").splitlines()
    budget.count("paragraphs", len(lines), "max_paragraphs")
    budget.spend(sum(len(line) + 1 for line in lines))
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def text(data: bytes, budget: Budget) -> str:
    """All the text of a .doc file, hidden or not."""
    require("lxml", "office")
    found = _antiword(data, budget, hidden_too=True)
    return _catdoc(data, budget) if found is None else found


def visible(data: bytes, budget: Budget) -> Extraction:
    """What a reader sees of a .doc file, and its hidden text counted (see the module's text)."""
    require("lxml", "office")
    seen = _antiword(data, budget, hidden_too=False)
    if seen is None:
        return Extraction(_catdoc(data, budget))
    budget.chars = 0  # the second reading is of the same text: max_chars bounds each
    everything = _antiword(data, budget, hidden_too=True) or ""
    chars = _solid(everything) - _solid(seen)
    words = max(0, len(everything.split()) - len(seen.split()))
    return Extraction(seen, (Dropped("hidden", chars, words),) if chars > 0 else ())


def _solid(text: str) -> int:
    return sum(1 for c in text if not c.isspace())

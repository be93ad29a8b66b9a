"""The formats by suffix: how each kind of file becomes documents."""

from __future__ import annotations

import csv
import importlib
import os
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neardup.analysis.tricks import NONE, Tricks, hidden_text
from neardup.errors import DatasetError, InputError, brief, require
from neardup.inputs.documents import Advance, InputDoc, PathLike, ReadOptions
from neardup.inputs.files import _stat_regular, _too_large, decode_bytes, read_bytes
from neardup.inputs.records import _record, _utf8_lines, iter_json_objects

#: Reads one file: its path, the id a one-document file gets, the options, and a callback
#: told how many on-disk bytes were consumed (in total, exactly the file's size).
FileReader = Callable[[Path, str, ReadOptions, Advance], Iterator[InputDoc]]


@dataclass(frozen=True)
class Format:
    """A way to read a file: ``records`` formats carry their own ids, others are one text."""

    name: str
    read: FileReader
    records: bool = False
    #: For a format whose text is extracted from the file's bytes: ``extract(data, suffix)``.
    extract: Callable[[bytes, str], str] | None = None
    #: And what a reader sees of it: ``visible(data, suffix)``, the text and the text hidden
    #: in the file as a ``hidden_text`` trick (read so under ``ReadOptions.visible_only``).
    visible: Callable[[bytes, str], tuple[str, Tricks]] | None = None

    def extracted(self, data: bytes, suffix: str, options: ReadOptions) -> tuple[str, Tricks]:
        """The text of an extracted format's file and what was hidden in it (nothing
        without ``visible_only``)."""
        if options.visible_only and self.visible is not None:
            return self.visible(data, suffix)
        assert self.extract is not None
        return self.extract(data, suffix), NONE


def _read_text(
    path: Path, doc_id: str, options: ReadOptions, advance: Advance
) -> Iterator[InputDoc]:
    data = read_bytes(path, max_bytes=options.max_bytes)
    decoded = decode_bytes(data, str(path), options)
    advance(len(data))
    meta: dict[str, Any] = {"path": path.as_posix(), "encoding": decoded.encoding}
    if decoded.replaced:
        meta["replaced"] = decoded.replaced
    yield InputDoc(doc_id, decoded.text, meta)


def _read_jsonl(path: Path, _: str, options: ReadOptions, advance: Advance) -> Iterator[InputDoc]:
    for number, obj in iter_json_objects(path, options, advance):
        yield _record(obj, f"{path}, line {number}", options)


def _read_csv(path: Path, _: str, options: ReadOptions, advance: Advance) -> Iterator[InputDoc]:
    """Rows of a CSV file with a header row; quotes are strict, so an unterminated quote or a
    stray character after a closing quote is an error naming the line."""
    csv.field_size_limit(min(options.max_bytes, 2**31 - 1))
    lines = _utf8_lines(path, options, advance)
    reader = csv.reader((line for _, line in lines), strict=True)
    with closing(lines):
        yield from _csv_rows(path, reader, options)


def _columns(row: list[str]) -> str:
    """A header's columns for an error line: the first few, each short (a file that is not a
    table has one "column": its whole first line)."""
    shown = ", ".join(repr(brief(name, 30)) for name in row[:8])
    return shown + (f" and {len(row) - 8} more" if len(row) > 8 else "")


def _csv_rows(path: Path, reader: Any, options: ReadOptions) -> Iterator[InputDoc]:
    header: list[str] | None = None
    start = 1  # the line a row starts on (a quoted field may span lines)
    try:
        for row in reader:
            if not row:
                start = reader.line_num + 1
                continue
            if header is None:
                header = row
                missing = [f for f in (options.id_field, options.text_field) if f and f not in row]
                if missing:
                    raise DatasetError(
                        f"{path}: the header has no column {brief(missing[0], 40)!r} "
                        f"(columns: {_columns(row)}); choose with --id-field/--text-field"
                    )
            elif len(row) != len(header):
                more = "more" if len(row) > len(header) else "fewer"
                raise DatasetError(
                    f"{path}, line {start}: {len(row)} fields, {more} than the header's "
                    f"{len(header)}"
                )
            else:
                yield _record(dict(zip(header, row, strict=True)), f"{path}, line {start}", options)
            start = reader.line_num + 1
    except csv.Error as exc:
        if "unexpected end of data" in str(exc):
            raise DatasetError(
                f"{path}, line {start}: unterminated quote (the quoted field opened on this "
                "line runs to the end of the file)"
            ) from None
        if "field larger than field limit" in str(exc):
            raise _too_large(f"{path}, line {start}: a field", options.max_bytes) from None
        raise DatasetError(f"{path}, line {reader.line_num}: malformed CSV ({exc})") from None


def _read_parquet(path: Path, _: str, options: ReadOptions, advance: Advance) -> Iterator[InputDoc]:
    pq = require("pyarrow.parquet", "parquet")
    import pyarrow as pa

    info = _stat_regular(path)
    try:
        file = pq.ParquetFile(path)  # type: ignore[attr-defined]
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise DatasetError(
            f"{path}: not a readable Parquet file ({exc})",
            code="unreadable_file",
            params={"kind": "Parquet"},
        ) from None
    names = file.schema_arrow.names
    missing = [f for f in (options.id_field, options.text_field) if f and f not in names]
    if missing:
        raise DatasetError(
            f"{path}: no column {missing[0]!r} (columns: {', '.join(names)}); "
            "choose with --id-field/--text-field"
        )
    row = 0
    for batch in file.iter_batches(batch_size=1024):
        for obj in batch.to_pylist():
            row += 1
            text = obj.get(options.text_field)
            if isinstance(text, str) and len(text) > options.max_bytes:
                raise _too_large(f"{path}, row {row}: the text", options.max_bytes)
            yield _record(obj, f"{path}, row {row}", options)
    advance(info.st_size)


#: The key of an extracted document's ``meta`` that holds what was hidden in its file (the
#: ``hidden_text`` trick's characters by how they were hidden, and its words).
HIDDEN_META = "hidden_text"


def extracted_format(
    name: str,
    extract: Callable[[bytes, str], str],
    visible: Callable[[bytes, str], tuple[str, Tricks]] | None = None,
) -> Format:
    """A one-text format whose text ``extract(data, suffix)`` pulls out of the file's bytes
    (``.docx``, ``.pdf``, ``.odt``, ``.rtf``, ``.doc``): the file is size-checked and read
    like a text file. With ``visible``, the text a reader sees, what was hidden in
    ``meta["hidden_text"]``."""
    fmt: Format

    def read(path: Path, doc_id: str, options: ReadOptions, advance: Advance) -> Iterator[InputDoc]:
        data = read_bytes(path, max_bytes=options.max_bytes)
        suffix = _matching_suffix(path.name) or path.suffix.lower()
        text, hidden = _extracted(fmt, data, suffix, path, options)
        advance(len(data))
        meta: dict[str, Any] = {"path": path.as_posix(), "format": name}
        trick = hidden.get("hidden_text")
        if trick is not None:
            meta[HIDDEN_META] = {"chars": dict(trick.by), "words": trick.words}
        yield InputDoc(doc_id, text, meta)

    fmt = Format(name, read, extract=extract, visible=visible)
    return fmt


def hidden_of(doc: InputDoc) -> Tricks:
    """What was hidden in a document's file (its ``meta["hidden_text"]``), as a ``hidden_text``
    trick; :data:`~neardup.analysis.tricks.NONE` for any other document."""
    found = doc.meta.get(HIDDEN_META) if isinstance(doc.meta, dict) else None
    if not isinstance(found, dict) or not isinstance(found.get("chars"), dict):
        return NONE
    chars = found["chars"]
    words = int(found.get("words", 0))
    dropped = [(str(k), int(v), words if i == 0 else 0) for i, (k, v) in enumerate(chars.items())]
    return hidden_text(dropped, sum(1 for c in doc.text if not c.isspace()))


def _extracted(
    fmt: Format, data: bytes, suffix: str, path: PathLike, options: ReadOptions
) -> tuple[str, Tricks]:
    """``fmt.extracted(data, suffix, options)``, its refusal naming the file."""
    try:
        return fmt.extracted(data, suffix, options)
    except InputError as exc:
        raise exc.reworded(f"{path}: {exc}") from None


def office_text(data: bytes, suffix: str) -> str:
    """All the text of an office file (``.docx``, ``.pdf``, ``.odt``, ``.rtf``, ``.doc``) by
    :func:`neardup.inputs.office.extract_text`."""
    office = importlib.import_module("neardup.inputs.office")
    text: str = office.extract_text(data, suffix)
    return text


def office_visible(data: bytes, suffix: str) -> tuple[str, Tricks]:
    """What a reader sees of an office file and what is hidden in it, by
    :func:`neardup.inputs.office.extract`."""
    office = importlib.import_module("neardup.inputs.office")
    extraction = office.extract(data, suffix)
    return extraction.text, extraction.tricks


TEXT = Format("text", _read_text)
JSONL = Format("jsonl", _read_jsonl, records=True)
CSV = Format("csv", _read_csv, records=True)
PARQUET = Format("parquet", _read_parquet, records=True)
DOCX = extracted_format("docx", office_text, office_visible)
PDF = extracted_format("pdf", office_text, office_visible)
ODT = extracted_format("odt", office_text, office_visible)
RTF = extracted_format("rtf", office_text, office_visible)
DOC = extracted_format("doc", office_text, office_visible)

#: Suffix → format: the files read in folders, and how a named file is read. A new format is
#: one line here, e.g. ``".docx": extracted_format("docx", office_text),``.
SUFFIXES: dict[str, Format] = {
    ".txt": TEXT,
    ".text": TEXT,
    ".md": TEXT,
    ".htm": TEXT,
    ".html": TEXT,
    ".jsonl": JSONL,
    ".jsonl.gz": JSONL,
    ".ndjson": JSONL,
    ".ndjson.gz": JSONL,
    ".csv": CSV,
    ".csv.gz": CSV,
    ".parquet": PARQUET,
    ".docx": DOCX,
    ".pdf": PDF,
    ".odt": ODT,
    ".rtf": RTF,
    ".doc": DOC,
}

#: Formats a command may force with ``--format`` (``fmt``), by name.
FORMATS: dict[str, Format] = {f.name: f for f in (TEXT, JSONL, CSV, PARQUET)}

#: Suffixes read as datasets (records with their own ids); any other file is one text.
DATASET_SUFFIXES = tuple(s for s, f in SUFFIXES.items() if f.records)


def _matching_suffix(name: str) -> str | None:
    lower = name.lower()
    matches = [s for s in SUFFIXES if lower.endswith(s)]
    return max(matches, key=len) if matches else None


def format_for(path: PathLike) -> Format | None:
    """The format of a file by its name (the longest matching suffix), or None."""
    suffix = _matching_suffix(os.path.basename(os.fspath(path)))
    return SUFFIXES[suffix] if suffix is not None else None


def dataset_format(path: PathLike) -> str | None:
    """``jsonl``, ``csv`` or ``parquet`` by the file name, or None for a text file."""
    found = format_for(path)
    return found.name if found is not None and found.records else None

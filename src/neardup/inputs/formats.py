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

from neardup.errors import DatasetError, InputError, require
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
                        f"{path}: the header has no column {missing[0]!r} (columns: "
                        f"{', '.join(row)}); choose with --id-field/--text-field"
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
        raise DatasetError(f"{path}: not a readable Parquet file ({exc})") from None
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


def extracted_format(name: str, extract: Callable[[bytes, str], str]) -> Format:
    """A one-text format whose text ``extract(data, suffix)`` pulls out of the file's bytes
    (``.docx``, ``.pdf``): the file is size-checked and read like a text file."""

    def read(path: Path, doc_id: str, options: ReadOptions, advance: Advance) -> Iterator[InputDoc]:
        data = read_bytes(path, max_bytes=options.max_bytes)
        suffix = _matching_suffix(path.name) or path.suffix.lower()
        text = _extracted(extract, data, suffix, path)
        advance(len(data))
        yield InputDoc(doc_id, text, {"path": path.as_posix(), "format": name})

    return Format(name, read, extract=extract)


def _extracted(
    extract: Callable[[bytes, str], str], data: bytes, suffix: str, path: PathLike
) -> str:
    """``extract(data, suffix)``, its refusal naming the file."""
    try:
        return extract(data, suffix)
    except InputError as exc:
        raise type(exc)(f"{path}: {exc}") from None


def office_text(data: bytes, suffix: str) -> str:
    """The text of a ``.docx``/``.pdf`` file by :func:`neardup.office.extract_text`."""
    office = importlib.import_module("neardup.office")
    text: str = office.extract_text(data, suffix)
    return text


TEXT = Format("text", _read_text)
JSONL = Format("jsonl", _read_jsonl, records=True)
CSV = Format("csv", _read_csv, records=True)
PARQUET = Format("parquet", _read_parquet, records=True)
DOCX = extracted_format("docx", office_text)
PDF = extracted_format("pdf", office_text)

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

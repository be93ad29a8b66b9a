"""Reading inputs into ``(id, text, meta)`` streams: text files, folders, JSONL(.gz), CSV, Parquet.

Every reader streams (one document in memory at a time, Parquet one record batch), and every
failure names the file — and the line or row — and what was expected there, as a
:class:`~neardup.errors.DatasetError` (or :class:`~neardup.errors.InputError` for a path that
is not there).

Ids: a text file given by itself is identified by its path as given; a file found in a folder
by its path relative to that folder (``/`` separators). Records of a dataset take the id from
``id_field`` (numbers become strings) and the text from ``text_field``; their other fields go
to ``meta``. Text files are decoded with charset detection (UTF-8, cp1251, koi8-r…); their
``meta`` has ``path`` and ``encoding``.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

from neardup.errors import DatasetError, DecodeError, InputError, require

#: Suffixes read as datasets; any other file is one text.
DATASET_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz", ".csv", ".csv.gz", ".parquet")


class InputDoc(NamedTuple):
    """One document read from an input."""

    id: str
    text: str
    meta: dict[str, Any]


def dataset_format(path: str | os.PathLike[str]) -> str | None:
    """``jsonl``, ``csv`` or ``parquet`` by the file name, or None for a text file."""
    name = os.fspath(path).lower()
    if name.endswith((".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz")):
        return "jsonl"
    if name.endswith((".csv", ".csv.gz")):
        return "csv"
    if name.endswith(".parquet"):
        return "parquet"
    return None


def _open_text(path: Path) -> IO[str]:
    try:
        if path.name.lower().endswith(".gz"):
            return gzip.open(path, "rt", encoding="utf-8", newline="")
        return open(path, encoding="utf-8", newline="")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def _as_id(value: Any, where: str, id_field: str) -> str:
    if isinstance(value, bool) or value is None or not isinstance(value, str | int):
        raise DatasetError(
            f"{where}: the id field {id_field!r} must be a string or an integer, got {value!r}"
        )
    text = str(value)
    if not text:
        raise DatasetError(f"{where}: the id field {id_field!r} is empty")
    return text


def _record(obj: Any, where: str, id_field: str, text_field: str) -> InputDoc:
    if not isinstance(obj, dict):
        raise DatasetError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    if id_field not in obj:
        raise DatasetError(
            f"{where}: no id field {id_field!r} (fields: {', '.join(sorted(obj)) or 'none'}); "
            "choose one with --id-field"
        )
    if text_field not in obj:
        raise DatasetError(
            f"{where}: no text field {text_field!r} (fields: "
            f"{', '.join(sorted(obj)) or 'none'}); choose one with --text-field"
        )
    text = obj[text_field]
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise DatasetError(
            f"{where}: the text field {text_field!r} must be a string, got {type(text).__name__}"
        )
    meta = {k: v for k, v in obj.items() if k not in (id_field, text_field)}
    return InputDoc(_as_id(obj[id_field], where, id_field), text, meta)


def read_jsonl(
    path: str | os.PathLike[str], *, id_field: str = "id", text_field: str = "text"
) -> Iterator[InputDoc]:
    """Records of a JSON Lines file (gzipped when the name ends in ``.gz``); blank lines skipped."""
    p = Path(path)
    with _open_text(p) as fh:
        lineno = 0
        try:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DatasetError(
                        f"{p}, line {lineno}: not valid JSON ({exc.msg} at column {exc.colno})"
                    ) from None
                yield _record(obj, f"{p}, line {lineno}", id_field, text_field)
        except (UnicodeDecodeError, gzip.BadGzipFile, EOFError, OSError) as exc:
            raise DatasetError(f"{p}, after line {lineno}: cannot read the file ({exc})") from None


def read_csv(
    path: str | os.PathLike[str], *, id_field: str = "id", text_field: str = "text"
) -> Iterator[InputDoc]:
    """Rows of a CSV file with a header row (gzipped when the name ends in ``.gz``)."""
    p = Path(path)
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    with _open_text(p) as fh:
        row_no = 1
        try:
            reader = csv.DictReader(fh)
            if reader.fieldnames is None:
                return
            missing = [f for f in (id_field, text_field) if f not in reader.fieldnames]
            if missing:
                raise DatasetError(
                    f"{p}: the header has no column {missing[0]!r} (columns: "
                    f"{', '.join(reader.fieldnames)}); choose with --id-field/--text-field"
                )
            for row_no, row in enumerate(reader, 2):  # noqa: B007 - named in the error below
                if None in row:
                    raise DatasetError(
                        f"{p}, line {reader.line_num}: more fields than the header has"
                    )
                yield _record(dict(row), f"{p}, line {reader.line_num}", id_field, text_field)
        except csv.Error as exc:
            raise DatasetError(f"{p}, row {row_no}: malformed CSV ({exc})") from None
        except (UnicodeDecodeError, gzip.BadGzipFile, EOFError, OSError) as exc:
            raise DatasetError(f"{p}: cannot read the file ({exc})") from None


def read_parquet(
    path: str | os.PathLike[str], *, id_field: str = "id", text_field: str = "text"
) -> Iterator[InputDoc]:
    """Rows of a Parquet file, one record batch at a time (needs ``neardup[parquet]``)."""
    pq = require("pyarrow.parquet", "parquet")
    p = Path(path)
    import pyarrow as pa  # type: ignore[import-untyped]

    try:
        file = pq.ParquetFile(p)  # type: ignore[attr-defined]
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise DatasetError(f"{p}: not a readable Parquet file ({exc})") from None
    names = file.schema_arrow.names
    missing = [f for f in (id_field, text_field) if f not in names]
    if missing:
        raise DatasetError(
            f"{p}: no column {missing[0]!r} (columns: {', '.join(names)}); "
            "choose with --id-field/--text-field"
        )
    row = 0
    for batch in file.iter_batches(batch_size=1024):
        for obj in batch.to_pylist():
            row += 1
            yield _record(obj, f"{p}, row {row}", id_field, text_field)


def read_text_file(path: str | os.PathLike[str], doc_id: str | None = None) -> InputDoc:
    """One text file as a document (charset detected)."""
    from neardup.analysis.decode import read_text

    p = Path(path)
    # .docx/.pdf (neardup.office): a dispatch to move into the reader's suffix table
    from neardup import office

    if office.is_office(p):
        kind = p.suffix.lower().lstrip(".")
        return InputDoc(
            doc_id if doc_id is not None else p.as_posix(),
            office.read_file(p),
            {"path": p.as_posix(), "format": kind},
        )
    try:
        decoded = read_text(p)
    except DecodeError as exc:
        raise DecodeError(f"{p}: {exc}") from None
    except OSError as exc:
        raise InputError(f"cannot read {p}: {exc.strerror or exc}") from None
    return InputDoc(
        doc_id if doc_id is not None else p.as_posix(),
        decoded.text,
        {"path": p.as_posix(), "encoding": decoded.encoding},
    )


def _walk(folder: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith("."):
                yield Path(root) / name


def _read_dataset(path: Path, fmt: str, id_field: str, text_field: str) -> Iterator[InputDoc]:
    if fmt == "jsonl":
        return read_jsonl(path, id_field=id_field, text_field=text_field)
    if fmt == "csv":
        return read_csv(path, id_field=id_field, text_field=text_field)
    return read_parquet(path, id_field=id_field, text_field=text_field)


def iter_inputs(
    paths: Iterable[str | os.PathLike[str]],
    *,
    id_field: str = "id",
    text_field: str = "text",
    fmt: str | None = None,
) -> Iterator[InputDoc]:
    """Every document of the given files and folders, in order (folders sorted, recursive).

    ``fmt`` (``text``, ``jsonl``, ``csv``, ``parquet``) forces how files are read; by default
    it follows each file's name.
    """
    if fmt not in (None, "text", "jsonl", "csv", "parquet"):
        raise InputError(f"unknown input format {fmt!r}; expected text, jsonl, csv or parquet")
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise InputError(f"no such file or folder: {path}")
        if path.is_dir():
            for file in _walk(path):
                kind = fmt or dataset_format(file) or "text"
                if kind == "text":
                    yield read_text_file(file, file.relative_to(path).as_posix())
                else:
                    yield from _read_dataset(file, kind, id_field, text_field)
            continue
        kind = fmt or dataset_format(path) or "text"
        if kind == "text":
            yield read_text_file(path)
        else:
            yield from _read_dataset(path, kind, id_field, text_field)


def count_inputs(
    paths: Iterable[str | os.PathLike[str]],
    *,
    id_field: str = "id",
    text_field: str = "text",
    fmt: str | None = None,
) -> list[str]:
    """The ids of every document the paths hold, without decoding text files (a pre-flight pass)."""
    ids: list[str] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise InputError(f"no such file or folder: {path}")
        files = (
            [(f, f.relative_to(path).as_posix()) for f in _walk(path)]
            if path.is_dir()
            else [(path, path.as_posix())]
        )
        for file, doc_id in files:
            kind = fmt or dataset_format(file) or "text"
            if kind == "text":
                ids.append(doc_id)
            else:
                ids.extend(d.id for d in _read_dataset(file, kind, id_field, text_field))
    return ids

"""Byte slices of plain JSON Lines: the share of a dataset a worker process reads itself."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from neardup.errors import DatasetError, InputError
from neardup.inputs.documents import InputDoc, PathLike, ReadOptions
from neardup.inputs.files import _stat_regular, _too_large, _Unreadable
from neardup.inputs.formats import FORMATS, JSONL, format_for
from neardup.inputs.records import _record, decode_line, parse_json_object

#: Bytes of a plain JSON Lines file in one :class:`ByteSlice` (about 1,000 news articles).
SLICE_BYTES = 4 << 20


@dataclass(frozen=True)
class ByteSlice:
    """Bytes ``[start, end)`` of a plain (not gzipped) JSON Lines file, ending after a newline
    or at the end of the file: a piece of a dataset a worker process reads by itself
    (:func:`read_slice`), so no process reads the whole file through."""

    path: str
    start: int
    end: int


class SlicedRecord(NamedTuple):
    """A record of a :class:`ByteSlice`: the document, its JSON object, where its line lies
    in the file (``end`` before the line's trailing whitespace) and how many U+FFFD its
    invalid UTF-8 became."""

    doc: InputDoc
    obj: dict[str, Any]
    start: int
    end: int
    replaced: int


def is_plain_jsonl(path: PathLike, fmt: str | None = None) -> bool:
    """Whether a file (read as ``fmt``, else by its name) is JSON Lines that is not gzipped:
    the files :func:`jsonl_slices` cuts."""
    name = os.path.basename(os.fspath(path)).lower()
    found = FORMATS.get(fmt) if fmt is not None else format_for(name)
    return found is JSONL and not name.endswith(".gz")


def jsonl_slices(path: PathLike, size: int | None = None) -> Iterator[ByteSlice]:
    """The file cut into :class:`ByteSlice` of about ``size`` bytes (default
    :data:`SLICE_BYTES`), each ending after a newline (or at the end of the file)."""
    size = size or SLICE_BYTES
    if size < 1:
        raise InputError(f"a slice must hold at least 1 byte, got {size}")
    total = _stat_regular(Path(path)).st_size
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise _Unreadable(f"cannot read {path}: {exc.strerror or exc}") from None
    with fh:
        start = 0
        while start < total:
            end = total
            if start + size < total:
                fh.seek(start + size)
                fh.readline()
                end = min(fh.tell(), total)
            yield ByteSlice(os.fspath(path), start, end)
            start = end


def _line_number(path: str, offset: int) -> int:
    """The 1-based line number of the byte ``offset`` of a file (only for error messages)."""
    count = 0
    with open(path, "rb") as fh:
        left = offset
        while left > 0:
            data = fh.read(min(left, 1 << 24))
            if not data:
                break
            count += data.count(b"\n")
            left -= len(data)
    return count + 1


def read_slice(piece: ByteSlice, options: ReadOptions) -> Iterator[SlicedRecord]:
    """The records of a slice, each line decoded, parsed and checked by the rules of
    :func:`iter_json_objects` (size, decoding, the record's fields); an error names the line.
    Replaced bytes are counted in each :class:`SlicedRecord`, not warned about (the caller
    sums the slices of a file). Needs an ``id_field``: a record without one is named by its
    line number, which a slice does not know without counting."""
    if options.id_field is None:
        raise InputError("a slice of a JSON Lines file is read with an id field")
    path = piece.path
    try:
        with open(path, "rb") as fh:
            fh.seek(piece.start)
            data = fh.read(piece.end - piece.start)
    except OSError as exc:
        raise _Unreadable(f"cannot read {path}: {exc.strerror or exc}") from None
    pos = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        stop = len(data) if nl < 0 else nl
        line, line_start = data[pos:stop], piece.start + pos
        pos = stop + 1
        if len(line) > options.max_bytes:
            raise _too_large(f"{path}, line {_line_number(path, line_start)}", options.max_bytes)
        if line_start == 0 and line.startswith(b"\xef\xbb\xbf"):
            line, line_start = line[3:], line_start + 3
        body = line.rstrip()
        text, replaced = decode_line(
            body,
            options.strict_decoding,
            lambda: f"{path}, line {_line_number(path, line_start)}",  # noqa: B023 (called at once)
        )
        if not text.strip():
            continue
        try:
            obj = parse_json_object(text, path)
            doc = _record(obj, path, options)
        except DatasetError:  # again, now with the line number in the message
            where = f"{path}, line {_line_number(path, line_start)}"
            _record(parse_json_object(text, where), where, options)
            raise AssertionError("unreachable: the record failed once") from None
        yield SlicedRecord(doc, obj, line_start, line_start + len(body), replaced)

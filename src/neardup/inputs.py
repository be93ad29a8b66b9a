"""The one corpus reader: files and folders into documents ``(id, text, meta)``.

Every command, the library and the coming service read corpora here and nowhere else, so a
folder gives the same documents whoever reads it. The rules:

* **Formats by suffix** (:data:`SUFFIXES`, case-insensitive, the longest suffix wins): texts
  ``.txt``, ``.text``, ``.md``, ``.htm``, ``.html``; datasets ``.jsonl``, ``.ndjson``,
  ``.csv`` (each also ``.gz``) and ``.parquet``. A new format is one entry in that table
  (:func:`extracted_format` turns a ``bytes → text`` extractor into one).
* **Folders** are read recursively in sorted order (a folder's files, then its subfolders).
  Names starting with ``.`` (hidden files and folders) are passed over silently; files whose
  suffix is not in the table, files that are not regular (FIFOs, devices, sockets) and
  entries that cannot be opened are skipped and listed in :attr:`CorpusReader.skipped`
  (the CLI prints the count and the first few). Nothing read and something skipped is an
  :class:`~neardup.errors.InputError`.
* **A file named by itself** is read by its suffix, and as a text when the suffix is not in
  the table (the user chose it). It must be a regular file: devices and FIFOs are refused
  (standard input is read only where a command accepts ``-``).
* **Ids.** A text file in a folder is identified by its path relative to that folder (``/``
  separators), a text file named by itself by its path as given. A dataset record takes its
  id from ``id_field``: a non-empty string, or an integer written in decimal; ``true``,
  ``null``, fractions, lists and objects are refused with the file and line named
  (:func:`document_id`, the same rule for JSONL, CSV and Parquet). With ``id_field=None``
  records need no id and are named ``FILE:LINE`` (for readers that only want texts).
* **Texts.** ``text_field`` holds a string; ``null`` is the empty text; any other value, or a
  missing field, is an error naming the file and line. The record's other fields go to
  ``meta``; a text file's ``meta`` has ``path`` and ``encoding``.
* **Decoding.** Text files: charset detection (UTF-8, UTF-16/32, cp1251, koi8-r…, see
  :mod:`neardup.analysis.decode`). Datasets: UTF-8 (a leading BOM is dropped). In both, a
  few invalid UTF-8 sequences in otherwise valid UTF-8 are each replaced by U+FFFD and
  counted in a warning (``meta["replaced"]`` for a text file); ``strict_decoding=True``
  refuses the file instead, with a :class:`~neardup.errors.DecodeError` naming it.
* **Size.** ``max_bytes`` (default :data:`DEFAULT_MAX_BYTES`, 64 MiB) bounds one text file,
  one dataset line (a CSV field, a Parquet text): a larger one is refused with an
  :class:`~neardup.errors.InputTooLargeError` naming it, before it is read into memory.

Every failure names the file, and the line or row, and says what was expected there.
Progress: :class:`CorpusReader` counts on-disk bytes (compressed bytes for ``.gz``) in
``bytes_read`` against ``total_bytes``, for progress bars.
"""

from __future__ import annotations

import csv
import gzip
import importlib
import io
import json
import os
import stat
import sys
import warnings
import zlib
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple, cast

from neardup.analysis.decode import Decoded, decode
from neardup.errors import DatasetError, DecodeError, InputError, InputTooLargeError, require

#: The default limit of one text, file or dataset line, in bytes (64 MiB).
DEFAULT_MAX_BYTES = 64 * 1024 * 1024

#: How many skipped paths a summary names before it says "and N more".
SKIPPED_SHOWN = 3

PathLike = str | os.PathLike[str]
Advance = Callable[[int], None]


class InputDoc(NamedTuple):
    """One document read from an input."""

    id: str
    text: str
    meta: dict[str, Any]


@dataclass(frozen=True)
class Skipped:
    """A folder entry the reader passed over, and why."""

    path: str
    reason: str


@dataclass(frozen=True)
class ReadOptions:
    """How records are read: their fields, the size limit and the decoding policy."""

    id_field: str | None = "id"
    text_field: str = "text"
    max_bytes: int = DEFAULT_MAX_BYTES
    strict_decoding: bool = False
    #: Called with each warning (replaced bytes); None sends them to :mod:`warnings`.
    on_warning: Callable[[str], None] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.max_bytes, bool) or not isinstance(self.max_bytes, int):
            raise InputError(f"max_bytes must be an integer, got {self.max_bytes!r}")
        if self.max_bytes < 1:
            raise InputError(f"max_bytes must be at least 1, got {self.max_bytes}")
        for name in ("id_field", "text_field"):
            value = getattr(self, name)
            if value is None and name == "id_field":
                continue
            if not isinstance(value, str) or not value:
                raise InputError(f"{name} must be a non-empty string, got {value!r}")

    def warn(self, message: str) -> None:
        if self.on_warning is not None:
            self.on_warning(message)
        else:
            warnings.warn(message, UnicodeWarning, stacklevel=3)


class _Unreadable(InputError):
    """A file that cannot be opened (skipped inside a folder, an error when named)."""


# --- bytes and decoding ----------------------------------------------------------------------


def _stat_regular(path: Path) -> os.stat_result:
    try:
        info = path.stat()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file or directory") from None
    except OSError as exc:
        raise _Unreadable(f"cannot read {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path} is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(
            f"{path} is not a regular file (a device, FIFO or socket); only regular files are read"
        )
    return info


def _too_large(what: str, max_bytes: int) -> InputTooLargeError:
    return InputTooLargeError(
        f"{what} is larger than the limit of {max_bytes:,} bytes; raise it with --max-bytes "
        "(max_bytes in Python)"
    )


def read_bytes(path: PathLike, *, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (checked before reading)."""
    p = Path(path)
    info = _stat_regular(p)
    if info.st_size > max_bytes:
        raise _too_large(f"{p} ({info.st_size:,} bytes)", max_bytes)
    try:
        with open(p, "rb") as fh:
            data = fh.read(max_bytes + 1)  # the file may have grown since stat
    except OSError as exc:
        raise _Unreadable(f"cannot read {p}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise _too_large(str(p), max_bytes)
    return data


def decode_bytes(data: bytes, name: str, options: ReadOptions | None = None) -> Decoded:
    """Decode a text's bytes under the policy of ``options``; errors and warnings name it."""
    options = options or ReadOptions()
    try:
        decoded = decode(data, strict=options.strict_decoding)
    except DecodeError as exc:
        raise DecodeError(f"{name}: {exc}") from None
    if decoded.replaced:
        options.warn(
            f"{name}: {decoded.replaced} invalid UTF-8 byte sequence(s) replaced by U+FFFD "
            "(--strict-decoding refuses such input)"
        )
    return decoded


def read_text_input(
    source: PathLike,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    strict_decoding: bool = False,
    on_warning: Callable[[str], None] | None = None,
    stdin: BinaryIO | None = None,
) -> Decoded:
    """One text: a regular file, or standard input for ``-`` (``stdin``, by default the
    process's), at most ``max_bytes``, decoded with charset detection."""
    options = ReadOptions(
        max_bytes=max_bytes, strict_decoding=strict_decoding, on_warning=on_warning
    )
    if os.fspath(source) == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        data = stream.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise _too_large("standard input", max_bytes)
        return decode_bytes(data, "standard input", options)
    return text_from_bytes(read_bytes(source, max_bytes=max_bytes), str(source), options)


def text_from_bytes(data: bytes, name: str, options: ReadOptions | None = None) -> Decoded:
    """One text from its bytes, read as the suffix table says for ``name``: a ``.docx`` or
    ``.pdf`` extracted, anything else decoded under the policy of ``options``."""
    found = format_for(name)
    if found is not None and found.extract is not None:
        suffix = _matching_suffix(Path(name).name) or Path(name).suffix.lower()
        return Decoded(_extracted(found.extract, data, suffix, name), found.name)
    return decode_bytes(data, name, options)


def check_thesaurus(path: PathLike, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
    """Refuse a thesaurus (``--synonyms``) that is not a text file, before a parser meets its
    bytes: NUL bytes anywhere, or a ``.csv`` that is not UTF-8."""
    data = read_bytes(path, max_bytes=max_bytes)
    if b"\x00" in data:
        raise InputError(
            f"{path}: not a text file (it holds NUL bytes); a thesaurus is a MyThes .dat or a "
            ".csv of synonym groups"
        )
    if os.fspath(path).lower().endswith(".csv"):
        try:
            data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise DecodeError(
                f"{path}: a .csv thesaurus must be UTF-8 ({exc.reason} at byte {exc.start})"
            ) from None


# --- lines of UTF-8 files (JSONL, CSV) -------------------------------------------------------


_READ_BUFFER = 1 << 20


def _open_binary(path: Path) -> tuple[BinaryIO, BinaryIO]:
    """The raw file (for progress in on-disk bytes) and the stream to read (gunzipped)."""
    _stat_regular(path)
    try:
        # lines are taken from a 1 MB buffer (not 8 KB): a dataset's lines are long, and each
        # refill lets the GIL go, which a thread reading while others analyze waits to get back
        raw = open(path, "rb", buffering=_READ_BUFFER)  # noqa: SIM115 - the caller closes it
    except OSError as exc:
        raise _Unreadable(f"cannot read {path}: {exc.strerror or exc}") from None
    if path.name.lower().endswith(".gz"):
        # so are the gunzipped ones: GzipFile's own refills its 8 KB buffer in Python and lets
        # the GIL go for each piece it inflates (``neardup sign --jobs`` reads in the main
        # thread while the others sign)
        gunzipped = gzip.GzipFile(fileobj=raw, mode="rb")
        return raw, cast(BinaryIO, io.BufferedReader(gunzipped, buffer_size=_READ_BUFFER))
    return raw, raw


def decode_line(line: bytes, strict: bool, where: Callable[[], str]) -> tuple[str, int]:
    """One line of a JSONL file as text, and how many U+FFFD its invalid UTF-8 became (0 for a
    clean line); with ``strict`` invalid UTF-8 is a :class:`DecodeError` at ``where()`` (asked
    only then, so a caller may compute the line number lazily)."""
    try:
        return line.decode("utf-8"), 0
    except UnicodeDecodeError as exc:
        if strict:
            raise DecodeError(
                f"{where()}: not UTF-8 text ({exc.reason} at byte {exc.start} of the line); "
                "without --strict-decoding invalid bytes are replaced by U+FFFD"
            ) from None
        text = line.decode("utf-8", "replace")
        return text, text.count("\ufffd") - line.count(b"\xef\xbf\xbd")


def _utf8_lines(
    path: Path, options: ReadOptions, advance: Advance
) -> Generator[tuple[int, str], None, None]:
    """``(line number, line)`` of a UTF-8 file (gunzipped for ``.gz``), each at most
    ``max_bytes``, decoded under the replacement policy."""
    raw, stream = _open_binary(path)
    size = os.fstat(raw.fileno()).st_size
    reported = 0
    replaced = 0
    first_damaged = 0
    number = 0
    try:
        while True:
            try:
                line = stream.readline(options.max_bytes + 1)
            except (OSError, EOFError, zlib.error) as exc:  # a truncated or corrupt .gz
                raise DatasetError(f"{path}, after line {number}: cannot read ({exc})") from None
            if not line:
                break
            number += 1
            if len(line) > options.max_bytes and not line.endswith(b"\n"):
                raise _too_large(f"{path}, line {number}", options.max_bytes)
            if number == 1 and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
            text, gained = decode_line(
                line,
                options.strict_decoding,
                lambda: f"{path}, line {number}",  # noqa: B023 (called at once)
            )
            if gained:
                replaced += gained
                first_damaged = first_damaged or number
            position = raw.tell()
            if position > reported:
                advance(position - reported)
                reported = position
            yield number, text
    finally:
        raw.close()
    if size > reported:
        advance(size - reported)
    if replaced:
        options.warn(
            f"{path}: {replaced} invalid UTF-8 byte sequence(s) replaced by U+FFFD, the "
            f"first on line {first_damaged} (--strict-decoding refuses such input)"
        )


def iter_lines(
    path: PathLike, options: ReadOptions | None = None, advance: Advance | None = None
) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a UTF-8 text file (gunzipped for ``.gz``): the line, size
    and decoding rules every dataset is read with, for readers with a schema of their own."""
    return _utf8_lines(Path(path), options or ReadOptions(), advance or _ignore)


def parse_json_object(line: str, where: str) -> dict[str, Any]:
    """One JSON object, or a :class:`DatasetError` that says ``where`` and what is wrong."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise DatasetError(f"{where}: the JSON is nested too deeply to read") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise DatasetError(f"{where}: not valid JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise DatasetError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    return obj


def iter_json_objects(
    path: PathLike, options: ReadOptions | None = None, advance: Advance | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of a JSON Lines file (``.gz`` too):
    the line reading, decoding and size rules of every dataset, for any record schema."""
    p = Path(path)
    for number, line in _utf8_lines(p, options or ReadOptions(), advance or _ignore):
        if line.strip():
            yield number, parse_json_object(line, f"{p}, line {number}")


def _ignore(_: int) -> None:
    pass


def _ignore_warning(_: str) -> None:
    pass


# --- records ---------------------------------------------------------------------------------


def document_id(value: Any, where: str, id_field: str) -> str:
    """The one id rule: a non-empty string, or an integer (as decimal); anything else refused."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        shown = json.dumps(value, default=repr)[:40] if value is not None else "null"
        raise DatasetError(
            f"{where}: the id field {id_field!r} must be a string or an integer, got {shown}"
        )
    text = str(value)
    if not text:
        raise DatasetError(f"{where}: the id field {id_field!r} is empty")
    return text


def _record(obj: dict[str, Any], where: str, options: ReadOptions) -> InputDoc:
    id_field, text_field = options.id_field, options.text_field
    if id_field is not None and id_field not in obj:
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
    if id_field is None:
        return InputDoc(where, text, {k: v for k, v in obj.items() if k != text_field})
    meta = {k: v for k, v in obj.items() if k not in (id_field, text_field)}
    return InputDoc(document_id(obj[id_field], where, id_field), text, meta)


# --- byte slices of plain JSON Lines: the share a worker process reads itself ----------------

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


# --- the formats -----------------------------------------------------------------------------

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


# --- files, folders and the reader -----------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """A file the reader will read: its path, the id of a one-text file, its format."""

    path: Path
    doc_id: str
    format: Format
    size: int
    in_folder: bool


def _walk(folder: Path, forced: Format | None, skipped: list[Skipped]) -> Iterator[Source]:
    def unreadable_folder(exc: OSError) -> None:
        skipped.append(Skipped(str(exc.filename or folder), exc.strerror or str(exc)))

    for root, dirs, files in os.walk(folder, onerror=unreadable_folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.startswith("."):
                continue
            path = Path(root) / name
            fmt = format_for(path)
            if fmt is None:
                skipped.append(Skipped(str(path), "a suffix that is not read"))
                continue
            try:
                info = path.stat()
            except OSError as exc:
                skipped.append(Skipped(str(path), exc.strerror or str(exc)))
                continue
            if not stat.S_ISREG(info.st_mode):
                skipped.append(Skipped(str(path), "not a regular file"))
                continue
            if not os.access(path, os.R_OK):
                skipped.append(Skipped(str(path), "permission denied"))
                continue
            doc_id = path.relative_to(folder).as_posix()
            yield Source(path, doc_id, forced or fmt, info.st_size, True)


def describe_skipped(skipped: Iterable[Skipped], shown: int = SKIPPED_SHOWN) -> list[str]:
    """One line per reason: ``skipped 2 entries (permission denied): a/x.txt, a/y.txt``."""
    by_reason: dict[str, list[str]] = {}
    for entry in skipped:
        by_reason.setdefault(entry.reason, []).append(entry.path)
    lines = []
    for reason, paths in by_reason.items():
        more = f" and {len(paths) - shown} more" if len(paths) > shown else ""
        noun = "entry" if len(paths) == 1 else "entries"
        lines.append(f"skipped {len(paths)} {noun} ({reason}): {', '.join(paths[:shown])}{more}")
    return lines


class CorpusReader:
    """Every document of the given files and folders, in order (see the module docstring).

    Folders are listed when the reader is made, so ``total_bytes`` and ``skipped`` are known
    before the first document; iterating reads the files, advancing ``bytes_read`` and
    ``documents``. Iterate once.
    """

    def __init__(
        self,
        paths: Iterable[PathLike],
        *,
        id_field: str | None = "id",
        text_field: str = "text",
        fmt: str | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        strict_decoding: bool = False,
        on_warning: Callable[[str], None] | None = None,
    ) -> None:
        if fmt is not None and fmt not in FORMATS:
            raise InputError(f"unknown input format {fmt!r}; expected {', '.join(FORMATS)}")
        self.options = ReadOptions(id_field, text_field, max_bytes, strict_decoding, on_warning)
        forced = FORMATS[fmt] if fmt is not None else None
        self.paths = [Path(p) for p in paths]
        self.skipped: list[Skipped] = []
        self.sources: list[Source] = []
        for path in self.paths:
            if path.is_dir():
                self.sources.extend(_walk(path, forced, self.skipped))
                continue
            info = _stat_regular(path)
            fmt_of = forced or format_for(path) or TEXT
            self.sources.append(Source(path, path.as_posix(), fmt_of, info.st_size, False))
        self.total_bytes = sum(s.size for s in self.sources)
        self.bytes_read = 0
        self.documents = 0

    def _advance(self, nbytes: int) -> None:
        self.bytes_read += nbytes

    def __iter__(self) -> Iterator[InputDoc]:
        for source in self.sources:
            try:
                for doc in source.format.read(
                    source.path, source.doc_id, self.options, self._advance
                ):
                    self.documents += 1
                    yield doc
            except _Unreadable as exc:
                if not source.in_folder:
                    raise
                self._skip(source, exc)
        self._nothing_read_check()

    def shard(
        self, part: int, parts: int, block: int, slice_bytes: int | None = None
    ) -> Iterator[tuple[int, InputDoc]]:
        """The documents of this reader's share ``part`` of ``parts``, each with its block:
        the input is cut into blocks numbered in reading order, and the share ``part`` holds
        the blocks ``b`` with ``b % parts == part``. A plain JSON Lines file
        (:func:`is_plain_jsonl`) is cut into :class:`ByteSlice` of ``slice_bytes`` (default
        :data:`SLICE_BYTES`), a block
        each, that the share reads by itself (:func:`read_slice`, the mechanism dedup's
        workers use too); other documents are numbered by position (a text file is one,
        however it reads; a record is one) and block ``b`` holds ``block`` positions in a
        row. Workers that each read their share of the same input together read every
        document once, in blocks the caller puts back in order. A text file of another share
        is not opened; a gzipped or CSV dataset is read through by every share (its records
        are counted to know their positions). ``documents``, ``bytes_read`` and ``skipped``
        count this share's reading."""
        if not 0 <= part < parts or block < 1:
            raise InputError(f"no share {part} of {parts} in blocks of {block}")
        slice_bytes = slice_bytes or SLICE_BYTES
        index, filled = 0, 0  # the block being filled, and how many positions it holds

        def position() -> int:
            nonlocal index, filled
            if filled == block:
                index, filled = index + 1, 0
            filled += 1
            return index

        for source in self.sources:
            try:
                if self.options.id_field is not None and is_plain_jsonl(
                    source.path, source.format.name
                ):
                    if filled:
                        index, filled = index + 1, 0
                    index = yield from self._read_slices(source, part, parts, index, slice_bytes)
                else:
                    yield from self._read_positions(source, part, parts, position)
            except _Unreadable as exc:
                if not source.in_folder:
                    raise
                self._skip(source, exc)

    def _read_positions(
        self, source: Source, part: int, parts: int, position: Callable[[], int]
    ) -> Iterator[tuple[int, InputDoc]]:
        """The documents of a file in this share, each numbered by ``position()``."""
        if not source.format.records:
            where = position()
            if where % parts != part:
                self._advance(source.size)
                return
        for doc in source.format.read(source.path, source.doc_id, self.options, self._advance):
            if source.format.records:
                where = position()
                if where % parts != part:
                    continue
            self.documents += 1
            yield where, doc

    def _read_slices(
        self, source: Source, part: int, parts: int, first: int, slice_bytes: int
    ) -> Generator[tuple[int, InputDoc], None, int]:
        """The slices of a plain JSON Lines file in this share, numbered from ``first``;
        returns the number after the file's last slice."""
        replaced = 0
        number = first
        for number, piece in enumerate(jsonl_slices(source.path, slice_bytes), first):
            if number % parts == part:
                for record in read_slice(piece, self.options):
                    replaced += record.replaced
                    self.documents += 1
                    yield number, record.doc
            self._advance(piece.end - piece.start)
        if replaced:
            self.options.warn(
                f"{source.path}: invalid UTF-8 byte sequence(s) replaced by U+FFFD "
                "(--strict-decoding refuses such input)"
            )
        return number + 1 if source.size else first

    def absorb(self, documents: int, bytes_read: int, skipped: Iterable[Skipped]) -> None:
        """Count what the shares read in other processes as read by this reader (then the
        same check as iterating it: nothing at all read is an error)."""
        self.documents += documents
        self.bytes_read = max(self.bytes_read, bytes_read)
        for entry in skipped:
            if entry not in self.skipped:
                self.skipped.append(entry)
        self._nothing_read_check()

    def _skip(self, source: Source, exc: _Unreadable) -> None:
        """A file of a folder that could not be opened: noted once (``ids`` and iterating
        may both meet it)."""
        entry = Skipped(str(source.path), str(exc).rsplit(": ", 1)[-1])
        if entry not in self.skipped:
            self.skipped.append(entry)

    def _nothing_read_check(self) -> None:
        if self.documents == 0 and self.skipped:
            details = "; ".join(describe_skipped(self.skipped))
            raise InputError(
                f"nothing could be read from {', '.join(map(str, self.paths))}: {details}"
            )

    def ids(self) -> list[str]:
        """The ids of every document, without decoding text files (a pre-flight pass)."""
        ids: list[str] = []
        quiet = replace(self.options, on_warning=_ignore_warning)  # iterating warns, once
        for source in self.sources:
            if not source.format.records:
                ids.append(source.doc_id)
                continue
            try:
                ids.extend(d.id for d in source.format.read(source.path, "", quiet, _ignore))
            except _Unreadable as exc:
                if not source.in_folder:
                    raise
                self._skip(source, exc)
        if not ids:
            self._nothing_read_check()
        return ids


def iter_inputs(paths: Iterable[PathLike], **options: Any) -> Iterator[InputDoc]:
    """Every document of the given files and folders (:class:`CorpusReader`'s keywords)."""
    return iter(CorpusReader(paths, **options))


def count_inputs(paths: Iterable[PathLike], **options: Any) -> list[str]:
    """The ids of every document the paths hold, without decoding text files."""
    return CorpusReader(paths, **options).ids()


def read_text_file(path: PathLike, doc_id: str | None = None, **options: Any) -> InputDoc:
    """One text file as a document (charset detected)."""
    p = Path(path)
    reader = CorpusReader([p], fmt="text", **options)
    doc = next(iter(reader))
    return doc if doc_id is None else doc._replace(id=doc_id)


def read_jsonl(path: PathLike, **options: Any) -> Iterator[InputDoc]:
    """Records of a JSON Lines file (gzipped when the name ends in ``.gz``)."""
    return iter(CorpusReader([path], fmt="jsonl", **options))


def read_csv(path: PathLike, **options: Any) -> Iterator[InputDoc]:
    """Rows of a CSV file with a header row (gzipped when the name ends in ``.gz``)."""
    return iter(CorpusReader([path], fmt="csv", **options))


def read_parquet(path: PathLike, **options: Any) -> Iterator[InputDoc]:
    """Rows of a Parquet file, one record batch at a time (needs ``neardup[parquet]``)."""
    return iter(CorpusReader([path], fmt="parquet", **options))

"""Lines of UTF-8 dataset files (JSONL, CSV) and the records on them: ids, texts, meta."""

from __future__ import annotations

import gzip
import io
import json
import os
import zlib
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any, BinaryIO, cast

from neardup.errors import DatasetError, DecodeError
from neardup.inputs.documents import Advance, InputDoc, PathLike, ReadOptions
from neardup.inputs.files import _stat_regular, _too_large, _Unreadable

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

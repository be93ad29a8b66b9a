"""Files and folders into documents: the walk of folders and :class:`CorpusReader`."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from neardup.errors import InputError
from neardup.inputs.documents import (
    DEFAULT_MAX_BYTES,
    SKIPPED_SHOWN,
    InputDoc,
    PathLike,
    ReadOptions,
    Skipped,
)
from neardup.inputs.files import _stat_regular, _Unreadable
from neardup.inputs.formats import FORMATS, TEXT, Format, format_for
from neardup.inputs.records import _ignore, _ignore_warning
from neardup.inputs.slices import SLICE_BYTES, is_plain_jsonl, jsonl_slices, read_slice


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
        visible_only: bool = True,
    ) -> None:
        if fmt is not None and fmt not in FORMATS:
            raise InputError(f"unknown input format {fmt!r}; expected {', '.join(FORMATS)}")
        self.options = ReadOptions(
            id_field, text_field, max_bytes, strict_decoding, visible_only, on_warning
        )
        forced = FORMATS[fmt] if fmt is not None else None
        self.paths = [Path(p) for p in paths]
        self.skipped: list[Skipped] = []
        self.sources: list[Source] = []
        for path in self.paths:
            try:
                folder = path.is_dir()
            except OSError as exc:  # a folder on the way this user may not search
                raise InputError(
                    f"cannot read {path}: {exc.strerror or exc}; check that you may read its "
                    "folder",
                    code="path_denied",
                    params={"path": str(path), "reason": exc.strerror or str(exc), "verb": "read"},
                ) from None
            if folder:
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

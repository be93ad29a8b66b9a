"""Reading documents for batch commands: JSON Lines, folders of .txt/.html files, text files.

Every input yields ``(id, text)`` pairs in a stable order and counts the bytes it has read, so
a progress bar can follow a gzipped JSONL file without decompressing it twice.

* ``*.jsonl``, ``*.ndjson``, ``*.jsonl.gz``, ``*.ndjson.gz``: one JSON object a line; the text
  and the id come from ``text_field`` and ``id_field`` (an id may be a number; a line without
  the text field is an error naming the file and line).
* a directory: every ``*.txt``, ``*.text``, ``*.htm``, ``*.html`` under it, sorted by path; the
  id is the path relative to the directory (``/``-separated).
* any other file: one text (charset detected); the id is the path as given.
"""

from __future__ import annotations

import gzip
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from neardup.analysis.decode import read_text
from neardup.errors import DatasetError, InputError

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")
TEXT_SUFFIXES = (".txt", ".text", ".htm", ".html")


class DocumentReader:
    """Iterate ``(id, text)`` over several inputs; ``bytes_read`` and ``total_bytes`` measure
    progress in on-disk bytes (compressed bytes for .gz)."""

    def __init__(
        self, inputs: list[str], *, text_field: str = "text", id_field: str = "id"
    ) -> None:
        if not inputs:
            raise InputError("no input given")
        self.text_field = text_field
        self.id_field = id_field
        self.sources: list[tuple[str, Path]] = []
        self._dirs: dict[Path, Path] = {}
        for name in inputs:
            path = Path(name)
            if not path.exists():
                raise InputError(f"no such file or directory: {name}")
            if path.is_dir():
                files = sorted(
                    p
                    for p in path.rglob("*")
                    if p.is_file() and p.name.lower().endswith(TEXT_SUFFIXES)
                )
                if not files:
                    raise InputError(f"{name}: no .txt or .html files in this directory")
                self.sources.extend(("file-in-dir", p) for p in files)
                self._dirs.update((p, path) for p in files)
            elif name.lower().endswith(JSONL_SUFFIXES):
                self.sources.append(("jsonl", path))
            else:
                self.sources.append(("file", path))
        self.total_bytes = sum(os.path.getsize(p) for _, p in self.sources)
        self.bytes_read = 0
        self.documents = 0

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for kind, path in self.sources:
            if kind == "jsonl":
                yield from self._jsonl(path)
                continue
            text = read_text(path).text
            if kind == "file-in-dir":
                doc_id = path.relative_to(self._dirs[path]).as_posix()
            else:
                doc_id = str(path)
            self.bytes_read += os.path.getsize(path)
            self.documents += 1
            yield doc_id, text

    def _jsonl(self, path: Path) -> Iterator[tuple[str, str]]:
        raw = open(path, "rb")  # noqa: SIM115 - closed below
        start = self.bytes_read
        try:
            stream: IO[bytes] = (
                gzip.GzipFile(fileobj=raw) if path.name.lower().endswith(".gz") else raw
            )
            lines = io.TextIOWrapper(stream, encoding="utf-8", errors="strict")
            number = 0
            while True:
                try:
                    line = lines.readline()
                except (UnicodeDecodeError, OSError, EOFError) as exc:
                    raise DatasetError(f"{path}:{number + 1}: cannot read ({exc})") from None
                if not line:
                    break
                number += 1
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DatasetError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
                if not isinstance(record, dict):
                    raise DatasetError(f"{path}:{number}: expected a JSON object")
                text = record.get(self.text_field)
                if not isinstance(text, str):
                    raise DatasetError(f"{path}:{number}: no string field {self.text_field!r}")
                doc_id = record.get(self.id_field)
                if doc_id is None or isinstance(doc_id, dict | list):
                    raise DatasetError(
                        f"{path}:{number}: no id field {self.id_field!r} (a string or number)"
                    )
                self.bytes_read = start + raw.tell()
                self.documents += 1
                yield str(doc_id), text
        finally:
            raw.close()
        self.bytes_read = start + os.path.getsize(path)

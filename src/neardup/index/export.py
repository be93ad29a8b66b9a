"""Writing every stored document to JSONL or CSV (optionally gzipped, or to standard output),
in admission order as the reader gives them (:meth:`~neardup.index.reading.Reader.iter_documents`).
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import sys
from typing import IO

from neardup.errors import InputError
from neardup.index.reading import Reader


class Exporter:
    """``export``, over the collection's reader."""

    def __init__(self, reader: Reader) -> None:
        self.reader = reader
        self.storage = reader.storage

    def export(self, out: str | os.PathLike[str] | IO[str], *, fmt: str | None = None) -> int:
        """Write every document (id, key, group, representative, shingles, meta, text): JSONL/CSV.

        ``fmt`` is ``jsonl`` or ``csv``; by default it follows the file name (``.csv``, else
        JSONL; ``.gz`` compresses). ``-`` writes JSONL to standard output. Returns the count.
        """
        name = os.fspath(out) if isinstance(out, str | os.PathLike) else ""
        if isinstance(out, str | os.PathLike) and not name:
            raise InputError("export needs a file name (or - for standard output), got ''")
        if fmt is None:
            fmt = "csv" if name.endswith((".csv", ".csv.gz")) else "jsonl"
        if fmt not in ("jsonl", "csv"):
            raise InputError(f"export format must be jsonl or csv, got {fmt!r}")
        if not name:
            return self._export_to(out, fmt)  # type: ignore[arg-type]
        if name == "-":
            return self._export_to(sys.stdout, fmt)
        tmp = name + ".part"
        try:
            if name.endswith(".gz"):
                with gzip.open(tmp, "wt", encoding="utf-8", newline="") as fh:
                    n = self._export_to(fh, fmt)
            else:
                with open(tmp, "w", encoding="utf-8", newline="") as fh:
                    n = self._export_to(fh, fmt)
            os.replace(tmp, name)
        except OSError as exc:
            raise InputError(f"cannot write {name}: {exc.strerror or exc}") from None
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return n

    def _export_to(self, fh: IO[str], fmt: str) -> int:
        n = 0
        writer = None
        if fmt == "csv":
            writer = csv.writer(fh)
            writer.writerow(["id", "key", "group", "representative", "shingles", "meta", "text"])
        with self.storage.snapshot():
            for doc, rep in self.reader.iter_documents():
                if writer is not None:
                    writer.writerow(
                        [
                            doc.id,
                            doc.key,
                            doc.group,
                            rep,
                            doc.shingles,
                            json.dumps(doc.meta, ensure_ascii=False),
                            doc.text or "",
                        ]
                    )
                else:
                    fh.write(
                        json.dumps(
                            {
                                "id": doc.id,
                                "key": doc.key,
                                "group": doc.group,
                                "representative": rep,
                                "shingles": doc.shingles,
                                "meta": doc.meta,
                                "text": doc.text,
                            },
                            ensure_ascii=False,
                        )
                    )
                    fh.write("\n")
                n += 1
        return n

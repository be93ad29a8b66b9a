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

from neardup.inputs.documents import (
    DEFAULT_MAX_BYTES,
    SKIPPED_SHOWN,
    Advance,
    InputDoc,
    PathLike,
    ReadOptions,
    Skipped,
)
from neardup.inputs.files import _Unreadable as _Unreadable
from neardup.inputs.files import decode_bytes, read_bytes
from neardup.inputs.formats import (
    CSV,
    DATASET_SUFFIXES,
    DOC,
    DOCX,
    FORMATS,
    HIDDEN_META,
    JSONL,
    ODT,
    PARQUET,
    PDF,
    RTF,
    SUFFIXES,
    TEXT,
    FileReader,
    Format,
    dataset_format,
    extracted_format,
    format_for,
    hidden_of,
    office_text,
    office_visible,
)
from neardup.inputs.reader import (
    CorpusReader,
    Source,
    count_inputs,
    describe_skipped,
    iter_inputs,
    read_csv,
    read_jsonl,
    read_parquet,
    read_text_file,
)
from neardup.inputs.records import (
    decode_line,
    document_id,
    iter_json_objects,
    iter_lines,
    parse_json_object,
)
from neardup.inputs.slices import (
    SLICE_BYTES,
    ByteSlice,
    SlicedRecord,
    is_plain_jsonl,
    jsonl_slices,
    read_slice,
)
from neardup.inputs.texts import (
    Extracted,
    check_thesaurus,
    hidden_in,
    read_text_input,
    text_from_bytes,
)

__all__ = [
    "Advance",
    "ByteSlice",
    "CSV",
    "CorpusReader",
    "DATASET_SUFFIXES",
    "DEFAULT_MAX_BYTES",
    "DOC",
    "DOCX",
    "Extracted",
    "FORMATS",
    "FileReader",
    "HIDDEN_META",
    "Format",
    "InputDoc",
    "JSONL",
    "ODT",
    "PARQUET",
    "PDF",
    "PathLike",
    "RTF",
    "ReadOptions",
    "SKIPPED_SHOWN",
    "SLICE_BYTES",
    "SUFFIXES",
    "Skipped",
    "SlicedRecord",
    "Source",
    "TEXT",
    "check_thesaurus",
    "count_inputs",
    "dataset_format",
    "decode_bytes",
    "decode_line",
    "describe_skipped",
    "document_id",
    "extracted_format",
    "format_for",
    "hidden_in",
    "hidden_of",
    "is_plain_jsonl",
    "iter_inputs",
    "iter_json_objects",
    "iter_lines",
    "jsonl_slices",
    "office_text",
    "office_visible",
    "parse_json_object",
    "read_bytes",
    "read_csv",
    "read_jsonl",
    "read_parquet",
    "read_slice",
    "read_text_file",
    "read_text_input",
    "text_from_bytes",
]

"""Labelled datasets on disk: readers and writers for pairs, clusters and fragment truth.

Why a module of its own: every evaluation (ours, the benchmarks against other tools, the
generator's output) goes through the same few formats, and a malformed line must be reported
the same way everywhere — as a :class:`~neardup.errors.DatasetError` naming the file and the
line, never a traceback. The formats are described in ``docs/datasets.md``:

* **pairs** (JSONL): ``label`` 0/1 (or −1/0/1 with a :class:`LabelMap`) and either the texts
  ``a``, ``b`` or the ids ``a_id``, ``b_id`` of documents in a documents file (``id``,
  ``text``); optional ``score``, ``kind``, ``level``. Also TSV/CSV in the paraphrase-corpus
  layout (``quality, id1, id2, string1, string2``, MSRP-style, header row optional; or any
  header naming those columns).
* **clusters** (JSONL): ``id``, ``text``, ``cluster``.
* **documents**: any corpus :mod:`neardup.inputs` reads (a JSONL of ``id``, ``text``, a CSV,
  a folder of texts…), with its rules for ids and texts.
* **fragments** (JSONL truth): ``source_id``, ``suspicious_id``, ``source_offset``,
  ``source_length``, ``suspicious_offset``, ``suspicious_length`` (characters).

Files are opened, decoded and split into lines by :mod:`neardup.inputs` (the one reader),
strictly: labels and character offsets refer to the exact text, so invalid UTF-8 is refused
rather than replaced. Every reader accepts ``.gz``. Pairs keep their texts once each: many
pairs share a document (a source against its variants), and scoring methods work per
distinct text.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import numpy.typing as npt

from neardup import inputs
from neardup.errors import ConfigurationError, DatasetError, InputError

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

PathLike = str | os.PathLike[str]

#: The file that ``a_id``/``b_id`` and fragment ids resolve in when no documents file is given.
DEFAULT_DOCUMENTS = "documents.jsonl"


# ---------------------------------------------------------------------------------------------
# datasets in memory


@dataclass(frozen=True)
class LabelledText:
    """A text of a dataset with its id, and its cluster label in a clusters dataset (not to be
    confused with :class:`neardup.index.Document`, a document stored in a collection)."""

    id: str
    text: str
    cluster: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class PairDataset:
    """Labelled pairs over a list of distinct texts: pair ``p`` is ``texts[a[p]]``, ``texts[b[p]]``.

    ``scores`` holds scores given in the file (NaN where absent), ``levels`` edit levels (NaN
    where absent), ``kinds`` the kind of each pair (``""`` where absent).
    """

    path: str
    texts: list[str]
    a: I64
    b: I64
    labels: npt.NDArray[np.int8]
    scores: F64
    kinds: list[str]
    levels: F64
    ids: list[str | None] = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.labels.shape[0])


@dataclass
class ClusterDataset:
    """Documents with their true cluster labels."""

    path: str
    documents: list[LabelledText]

    @property
    def texts(self) -> list[str]:
        return [d.text for d in self.documents]

    @property
    def clusters(self) -> list[str]:
        return [d.cluster or d.id for d in self.documents]


@dataclass(frozen=True)
class Fragment:
    """A passage of ``source_id`` reused in ``suspicious_id``: character offsets and lengths."""

    source_id: str
    suspicious_id: str
    source_offset: int
    source_length: int
    suspicious_offset: int
    suspicious_length: int
    kind: str = ""
    level: float = math.nan

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "source_id": self.source_id,
            "suspicious_id": self.suspicious_id,
            "source_offset": self.source_offset,
            "source_length": self.source_length,
            "suspicious_offset": self.suspicious_offset,
            "suspicious_length": self.suspicious_length,
        }
        if self.kind:
            out["kind"] = self.kind
        if not math.isnan(self.level):
            out["level"] = self.level
        return out


# ---------------------------------------------------------------------------------------------
# low-level line reading


def open_text(path: PathLike, mode: str = "wt") -> TextIO:
    """Open a UTF-8 text file for writing, gzip-compressed when its name ends in ``.gz``
    (reading goes through :mod:`neardup.inputs`)."""
    p = Path(path)
    try:
        if p.name.endswith(".gz"):
            if "w" in mode:  # mtime 0: equal data gives equal bytes
                raw = gzip.GzipFile(filename=p, mode="wb", mtime=0)
                return io.TextIOWrapper(raw, encoding="utf-8", newline="")
            return gzip.open(p, mode, encoding="utf-8", newline="")  # type: ignore[return-value]
        return open(p, mode, encoding="utf-8", newline="")  # type: ignore[return-value]
    except FileNotFoundError:
        raise DatasetError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise DatasetError(f"{path}: is a directory, expected a file") from None
    except OSError as exc:
        raise DatasetError(f"{path}: cannot open: {exc.strerror or exc}") from None


def _fail(path: PathLike, line: int, message: str) -> DatasetError:
    return DatasetError(f"{path}, line {line}: {message}")


#: Labelled datasets are read strictly: a replaced byte would shift every character offset.
_STRICT = inputs.ReadOptions(strict_decoding=True)


@contextmanager
def _as_dataset_errors() -> Iterator[None]:
    """Every failure to read a labelled dataset is a :class:`DatasetError` (a missing file
    too), as the evaluation commands promise."""
    try:
        yield
    except DatasetError:
        raise
    except InputError as exc:
        raise DatasetError(str(exc)) from None


def iter_jsonl(path: PathLike) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line; a line that is not a JSON object is an
    error naming the file and line."""
    with _as_dataset_errors():
        yield from inputs.iter_json_objects(path, _STRICT)


def _string(path: PathLike, line: int, record: Mapping[str, Any], key: str) -> str:
    if key not in record:
        raise _fail(path, line, f"missing field {key!r}")
    value = record[key]
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _fail(path, line, f"field {key!r} must be a string, got {json.dumps(value)[:40]}")
    return str(value)


def _text(path: PathLike, line: int, record: Mapping[str, Any], key: str) -> str:
    if key not in record:
        raise _fail(path, line, f"missing field {key!r}")
    value = record[key]
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _fail(
            path, line, f"field {key!r} must be a string (a text), got {type(value).__name__}"
        )
    return value


#: The label values a pairs dataset may hold: 0/1, or −1/0/1 with a :class:`LabelMap`.
LABEL_VALUES = (-1, 0, 1)


@dataclass(frozen=True)
class LabelMap:
    """Which label values are negatives (0: not a duplicate) and which positives (1).

    The default is 0 → 0 and 1 → 1, and −1 is refused. Three-way labels (−1/0/1, as paraphrase
    corpora give them: not / loosely / exactly a paraphrase) need a choice: name the
    negatives (every other value is positive) or the positives (every other value is negative),
    or both (then a value in neither is refused).
    """

    negative: frozenset[int] = frozenset({0})
    positive: frozenset[int] = frozenset({1})

    @classmethod
    def of(cls, negative: Iterable[int] = (), positive: Iterable[int] = ()) -> LabelMap:
        neg, pos = frozenset(negative), frozenset(positive)
        for value in neg | pos:
            if isinstance(value, bool) or value not in LABEL_VALUES:
                raise ConfigurationError(f"a label is -1, 0 or 1, got {value!r}")
        if neg & pos:
            shown = ", ".join(str(v) for v in sorted(neg & pos))
            raise ConfigurationError(f"label {shown} cannot be both negative and positive")
        if not neg and not pos:
            return cls()
        if not pos:
            pos = frozenset(LABEL_VALUES) - neg
        elif not neg:
            neg = frozenset(LABEL_VALUES) - pos
        if not neg or not pos:
            raise ConfigurationError("the labels need at least one negative and one positive value")
        return cls(neg, pos)

    def describe(self) -> str:
        def values(group: frozenset[int]) -> str:
            return "/".join(str(v) for v in sorted(group))

        return f"negative {values(self.negative)}, positive {values(self.positive)}"


DEFAULT_LABELS = LabelMap()


def _label(path: PathLike, line: int, value: Any, labels: LabelMap = DEFAULT_LABELS) -> int:
    raw: int | None = None
    if isinstance(value, bool):
        raw = int(value)
    elif isinstance(value, int | float) and value in LABEL_VALUES:
        raw = int(value)
    elif isinstance(value, str) and value.strip() in ("-1", "0", "1"):
        raw = int(value.strip())
    if raw is not None and raw in labels.negative:
        return 0
    if raw is not None and raw in labels.positive:
        return 1
    shown = repr(value) if isinstance(value, str) else json.dumps(value)[:40]
    if labels == DEFAULT_LABELS:
        hint = " (for -1/0/1 labels, say which are negative: --negative-label -1)" if raw else ""
        raise _fail(path, line, f"bad label {shown}: expected 0 or 1{hint}")
    raise _fail(path, line, f"bad label {shown}: expected {labels.describe()}")


def _number(path: PathLike, line: int, record: Mapping[str, Any], key: str) -> float:
    value = record.get(key)
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(path, line, f"field {key!r} must be a number, got {json.dumps(value)[:40]}")
    return float(value)


def _count(path: PathLike, line: int, record: Mapping[str, Any], key: str) -> int:
    if key not in record:
        raise _fail(path, line, f"missing field {key!r}")
    value = record[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fail(
            path,
            line,
            f"field {key!r} must be a non-negative integer, got {json.dumps(value)[:40]}",
        )
    return value


# ---------------------------------------------------------------------------------------------
# documents and clusters


def read_documents(path: PathLike) -> dict[str, str]:
    """``id → text`` of a corpus as :mod:`neardup.inputs` reads it: a JSONL file of ``id``,
    ``text`` (other fields ignored), a CSV, a folder of texts and datasets…"""
    out: dict[str, str] = {}
    with _as_dataset_errors():
        for doc in inputs.CorpusReader([path], strict_decoding=True):
            if doc.id in out:
                raise DatasetError(f"{path}: duplicate id {doc.id!r}")
            out[doc.id] = doc.text
    return out


def read_clusters(path: PathLike) -> ClusterDataset:
    """A clusters dataset: JSONL of ``id``, ``text``, ``cluster``."""
    documents: list[LabelledText] = []
    seen: set[str] = set()
    for line, record in iter_jsonl(path):
        doc_id = _string(path, line, record, "id")
        if doc_id in seen:
            raise _fail(path, line, f"duplicate id {doc_id!r}")
        seen.add(doc_id)
        text = _text(path, line, record, "text")
        cluster = _string(path, line, record, "cluster")
        extra = {k: v for k, v in record.items() if k not in ("id", "text", "cluster")}
        documents.append(LabelledText(doc_id, text, cluster, extra))
    if not documents:
        raise DatasetError(f"{path}: no documents")
    return ClusterDataset(str(path), documents)


def write_jsonl(path: PathLike, records: Iterable[Mapping[str, Any]]) -> int:
    """Write records one a line (keys sorted, UTF-8 as is) so equal data gives equal bytes."""
    n = 0
    with open_text(path, "wt") as fh:
        for record in records:
            fh.write(dumps_line(record))
            n += 1
    return n


# ---------------------------------------------------------------------------------------------
# pairs


class _TextTable:
    """Distinct texts with an index each: by id when there is one, else by content."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.ids: list[str | None] = []
        self._by_key: dict[tuple[bool, str], int] = {}

    def index(self, text: str, doc_id: str | None) -> int:
        key = (True, doc_id) if doc_id is not None else (False, text)
        found = self._by_key.get(key)
        if found is None:
            found = len(self.texts)
            self._by_key[key] = found
            self.texts.append(text)
            self.ids.append(doc_id)
        return found


def _documents_for(path: PathLike, docs: PathLike | Mapping[str, str] | None) -> Mapping[str, str]:
    if isinstance(docs, Mapping):
        return docs
    if docs is None:
        sibling = Path(path).parent / DEFAULT_DOCUMENTS
        if not sibling.is_file():
            raise DatasetError(
                f"{path} refers to documents by id (a_id, b_id) but no documents file was given "
                f"and there is no {DEFAULT_DOCUMENTS} beside it"
            )
        docs = sibling
    return read_documents(docs)


def read_pairs(
    path: PathLike,
    docs: PathLike | Mapping[str, str] | None = None,
    *,
    labels: LabelMap = DEFAULT_LABELS,
) -> PairDataset:
    """Labelled pairs from JSONL, or from TSV/CSV (``.tsv``, ``.txt``, ``.csv``, optionally
    ``.gz``) in the paraphrase-corpus layout. ``docs`` resolves ``a_id``/``b_id``: a documents
    file, a mapping, or by default ``documents.jsonl`` beside ``path``. ``labels`` maps the
    file's label values (0/1, or −1/0/1) to negatives and positives."""
    if not isinstance(labels, LabelMap):
        raise ConfigurationError(f"labels must be a LabelMap, got {type(labels).__name__}")
    name = Path(path).name.lower().removesuffix(".gz")
    if name.endswith((".tsv", ".txt", ".csv")):
        return _read_delimited(
            path, delimiter="," if name.endswith(".csv") else "\t", label_map=labels
        )
    return _read_pairs_jsonl(path, docs, labels)


def _read_pairs_jsonl(
    path: PathLike,
    docs: PathLike | Mapping[str, str] | None,
    label_map: LabelMap = DEFAULT_LABELS,
) -> PairDataset:
    table = _TextTable()
    a: list[int] = []
    b: list[int] = []
    labels: list[int] = []
    scores: list[float] = []
    kinds: list[str] = []
    levels: list[float] = []
    documents: Mapping[str, str] | None = None
    for line, record in iter_jsonl(path):
        ends = []
        for side in ("a", "b"):
            id_key = f"{side}_id"
            if side in record:
                doc_id = _string(path, line, record, id_key) if id_key in record else None
                ends.append(table.index(_text(path, line, record, side), doc_id))
            elif id_key in record:
                doc_id = _string(path, line, record, id_key)
                if documents is None:
                    documents = _documents_for(path, docs)
                if doc_id not in documents:
                    raise _fail(path, line, f"{id_key} {doc_id!r} is not in the documents file")
                ends.append(table.index(documents[doc_id], doc_id))
            else:
                raise _fail(
                    path, line, f"missing field {side!r} (a text) or {id_key!r} (a document id)"
                )
        if "label" not in record:
            raise _fail(path, line, "missing field 'label'")
        labels.append(_label(path, line, record["label"], label_map))
        a.append(ends[0])
        b.append(ends[1])
        scores.append(_number(path, line, record, "score"))
        levels.append(_number(path, line, record, "level"))
        kind = record.get("kind")
        kinds.append("" if kind is None else str(kind))
    if not labels:
        raise DatasetError(f"{path}: no pairs")
    return PairDataset(
        path=str(path),
        texts=table.texts,
        a=np.asarray(a, dtype=np.int64),
        b=np.asarray(b, dtype=np.int64),
        labels=np.asarray(labels, dtype=np.int8),
        scores=np.asarray(scores, dtype=np.float64),
        kinds=kinds,
        levels=np.asarray(levels, dtype=np.float64),
        ids=table.ids,
    )


#: Header names (lowercase, spaces and '#' dropped) of the delimited layout's columns.
_HEADER_NAMES = {
    "label": ("quality", "label", "is_duplicate", "isduplicate", "paraphrase", "gold_label"),
    "id1": ("1id", "id1", "qid1", "sid1", "ida"),
    "id2": ("2id", "id2", "qid2", "sid2", "idb"),
    "text1": ("1string", "string1", "sentence1", "question1", "text1", "texta", "a"),
    "text2": ("2string", "string2", "sentence2", "question2", "text2", "textb", "b"),
}
_POSITIONAL = ("label", "id1", "id2", "text1", "text2")


def _header_columns(row: Sequence[str]) -> dict[str, int]:
    names = [c.strip().lower().replace("#", "").replace(" ", "").replace("_", "") for c in row]
    found: dict[str, int] = {}
    for column, aliases in _HEADER_NAMES.items():
        for alias in aliases:
            alias = alias.replace("_", "")
            if alias in names:
                found[column] = names.index(alias)
                break
    return found


def _read_delimited(
    path: PathLike, *, delimiter: str, label_map: LabelMap = DEFAULT_LABELS
) -> PairDataset:
    table = _TextTable()
    a: list[int] = []
    b: list[int] = []
    labels: list[int] = []
    layout = "tab-separated" if delimiter == "\t" else "comma-separated"
    lines = (line for _, line in inputs.iter_lines(path, _STRICT))
    csv.field_size_limit(min(_STRICT.max_bytes, 2**31 - 1))  # the limit inputs' CSV reader uses
    with _as_dataset_errors(), closing(lines):
        # MSRP's strings hold unbalanced quotes: TSV is read without quoting, CSV with it
        if delimiter == "\t":
            reader = csv.reader(lines, delimiter=delimiter, quoting=csv.QUOTE_NONE)
        else:
            reader = csv.reader(lines, delimiter=delimiter, quoting=csv.QUOTE_MINIMAL, strict=True)
        columns: dict[str, int] | None = None
        width = 0
        number = 0  # the last line of the previous row, until a row is read
        try:
            for row in reader:
                number = reader.line_num
                if not row or not any(c.strip() for c in row):
                    continue
                if columns is None:
                    first = row[0].strip().lstrip("\ufeff")
                    if first not in ("-1", "0", "1"):
                        columns = _header_columns([first, *row[1:]])
                        missing = [c for c in ("label", "text1", "text2") if c not in columns]
                        if missing:
                            raise _fail(
                                path,
                                number,
                                (
                                    f"header row {row!r} does not name the column(s) "
                                    f"{', '.join(missing)}; "
                                    "expected the layout quality, id1, id2, string1, string2"
                                ),
                            )
                        width = len(row)
                        continue
                    columns = {name: i for i, name in enumerate(_POSITIONAL)}
                    width = len(_POSITIONAL)
                if len(row) != width:
                    raise _fail(
                        path,
                        number,
                        (
                            f"expected {width} {layout} columns "
                            "(quality, id1, id2, string1, string2), "
                            f"got {len(row)}"
                        ),
                    )
                assert columns is not None
                label = _label(path, number, row[columns["label"]], label_map)
                ids = [row[columns[c]].strip() if c in columns else None for c in ("id1", "id2")]
                a.append(table.index(row[columns["text1"]], ids[0] or None))
                b.append(table.index(row[columns["text2"]], ids[1] or None))
                labels.append(label)
        except csv.Error as exc:
            if "unexpected end of data" in str(exc):
                raise _fail(
                    path,
                    number + 1,
                    "unterminated quote (the quoted field opened here runs to the end of the file)",
                ) from None
            raise _fail(path, reader.line_num, f"malformed {layout} line: {exc}") from None
    if not labels:
        raise DatasetError(f"{path}: no pairs")
    n = len(labels)
    return PairDataset(
        path=str(path),
        texts=table.texts,
        a=np.asarray(a, dtype=np.int64),
        b=np.asarray(b, dtype=np.int64),
        labels=np.asarray(labels, dtype=np.int8),
        scores=np.full(n, np.nan),
        kinds=[""] * n,
        levels=np.full(n, np.nan),
        ids=table.ids,
    )


# ---------------------------------------------------------------------------------------------
# fragments


def read_fragments(path: PathLike, docs: Mapping[str, str] | None = None) -> list[Fragment]:
    """Fragment truth (or detections) from JSONL. With ``docs``, ids must exist and the spans
    must lie inside the texts."""
    out: list[Fragment] = []
    for line, record in iter_jsonl(path):
        fragment = Fragment(
            source_id=_string(path, line, record, "source_id"),
            suspicious_id=_string(path, line, record, "suspicious_id"),
            source_offset=_count(path, line, record, "source_offset"),
            source_length=_count(path, line, record, "source_length"),
            suspicious_offset=_count(path, line, record, "suspicious_offset"),
            suspicious_length=_count(path, line, record, "suspicious_length"),
            kind=str(record.get("kind") or ""),
            level=_number(path, line, record, "level"),
        )
        if docs is not None:
            for role in ("source", "suspicious"):
                doc_id = getattr(fragment, f"{role}_id")
                if doc_id not in docs:
                    raise _fail(path, line, f"{role}_id {doc_id!r} is not in the documents file")
                end = getattr(fragment, f"{role}_offset") + getattr(fragment, f"{role}_length")
                if end > len(docs[doc_id]):
                    raise _fail(
                        path,
                        line,
                        (
                            f"the {role} span ends at {end}, past the end of {doc_id!r} "
                            f"({len(docs[doc_id])} characters)"
                        ),
                    )
        out.append(fragment)
    return out


def documents_beside(path: PathLike, docs: PathLike | None) -> dict[str, str]:
    """The documents file given, or ``documents.jsonl`` beside ``path``."""
    if docs is not None:
        return read_documents(docs)
    sibling = Path(path).parent / DEFAULT_DOCUMENTS
    if not sibling.is_file():
        raise DatasetError(f"{path}: no documents file given and no {DEFAULT_DOCUMENTS} beside it")
    return read_documents(sibling)


def dumps_line(record: Mapping[str, Any]) -> str:
    """One JSONL line as :func:`write_jsonl` writes it (for streaming writers)."""
    return json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"

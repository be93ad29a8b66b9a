"""Stage 5, writing: every record with its group (spliced into its own bytes for plain JSONL,
re-encoded otherwise), the edge list; and reading a finished output's groups back."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from itertools import islice
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

import numpy as np

from neardup._arguments import checked
from neardup.corpus.arrays import F64, I64
from neardup.corpus.options import SUMMARY_FILE
from neardup.corpus.progress import StageProgress
from neardup.corpus.splice import ENCODING_ERRORS
from neardup.corpus.verify import PairScores
from neardup.errors import DatasetError


class RecordWriter:
    """Records to a JSONL or Parquet file, in batches."""

    def __init__(self, path: Path, fmt: str) -> None:
        self.path = path
        self.fmt = fmt
        self.batch: list[dict[str, Any]] = []
        self._writer: Any = None
        self._schema: Any = None
        self._fh: Any = None
        if fmt == "jsonl":
            # closed in close()
            self._fh = open(path, "w", encoding="utf-8", errors=ENCODING_ERRORS)  # noqa: SIM115

    def write(self, record: dict[str, Any]) -> None:
        if self._fh is not None:
            self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            return
        self.batch.append(record)
        if len(self.batch) >= 4096:
            self._flush()

    def _flush(self) -> None:
        if not self.batch:
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            table = pa.Table.from_pylist(self.batch, schema=self._schema)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise DatasetError(
                f"records of different shapes cannot share one Parquet file ({exc}); "
                "write JSONL instead"
            ) from None
        except UnicodeEncodeError:
            raise DatasetError(
                "a record holds a lone surrogate (an escape such as \\ud800 in the JSON "
                "input), which Parquet's UTF-8 strings cannot hold; write JSONL (--format "
                "jsonl), which keeps it escaped"
            ) from None
        if self._writer is None:
            self._schema = table.schema
            self._writer = pq.ParquetWriter(self.path, self._schema)
        self._writer.write_table(table)
        self.batch = []

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            return
        if self._writer is None and not self.batch:
            import pyarrow as pa
            import pyarrow.parquet as pq

            pq.write_table(pa.table({"id": pa.array([], pa.string())}), self.path)
            return
        self._flush()
        self._writer.close()


def write_records(
    docs: Iterable[tuple[str, str, dict[str, Any]]],
    path: Path,
    fmt: str,
    ids: list[str],
    group: I64,
    rep: I64,
    similarity: F64,
    kept_only: bool,
    progress: StageProgress,
    rewrite: Callable[[int, str], tuple[str, dict[str, Any], bool]] | None = None,
) -> None:
    """Every record read again with the added fields; ``rewrite(i, text)``, when given, gives
    a kept document's text after cleaning, the fields it adds and whether the cleaning drops
    it (a dropped document is written with ``kept`` false, or left out with ``kept_only``)."""
    writer = RecordWriter(path, fmt)
    task = progress.task("write", len(ids))
    try:
        for i, (doc_id, text, meta) in enumerate(docs):
            if i >= len(ids) or ids[i] != doc_id:
                raise DatasetError(
                    f"the input changed while it was being deduplicated (document {i + 1} "
                    f"is {doc_id!r} now)"
                )
            kept = bool(rep[i] == i)
            extra: dict[str, Any] = {}
            if rewrite is not None:
                if kept:
                    text, extra, dropped = rewrite(i, text)
                    kept = not dropped
                else:
                    extra = {"spans_removed": 0}
            if kept_only and not kept:
                progress.advance(task)
                continue
            record = {"id": doc_id, "text": text, **meta}
            record["group"] = ids[int(group[i])]
            record["kept"] = kept
            record["similarity"] = round(float(similarity[i]), 6)
            record["representative"] = ids[int(rep[i])]
            record.update(extra)
            writer.write(record)
            progress.advance(task)
    finally:
        writer.close()


def write_edges(path: Path, fmt: str, ids: list[str], a: I64, b: I64, scores: PairScores) -> None:
    columns: dict[str, Any] = {
        "a": [ids[i] for i in a.tolist()],
        "b": [ids[i] for i in b.tolist()],
        "resemblance" if scores.containment_ab is not None else "estimate": np.round(
            scores.resemblance, 6
        ).tolist(),
    }
    if scores.containment_ab is not None and scores.containment_ba is not None:
        columns["containment_ab"] = np.round(scores.containment_ab, 6).tolist()
        columns["containment_ba"] = np.round(scores.containment_ba, 6).tolist()
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table(columns), path)
        return
    # each row as json.dumps(dict) writes it: the values' JSON texts made a column at a time,
    # a row one formatting
    template = "{" + ", ".join(f'"{name}": %s' for name in columns) + "}\n"
    texts = [
        list(map(encode_basestring, values)) if name in ("a", "b") else _json_floats(values)
        for name, values in columns.items()
    ]
    rows = zip(*texts, strict=True)
    with open(path, "w", encoding="utf-8", errors=ENCODING_ERRORS) as fh:
        while block := list(islice(rows, 1 << 16)):
            fh.write("".join(template % row for row in block))


def _json_floats(values: list[float]) -> list[str]:
    """json's text of each float: ``float.__repr__`` when finite, as json's encoder writes it."""
    if np.isfinite(values).all():
        return list(map(float.__repr__, values))
    return [json.dumps(v) for v in values]


@checked
def read_groups(out: str | os.PathLike[str]) -> dict[str, str]:
    """``{id: group}`` of a dedup output directory (JSONL or Parquet); a folder that is not
    one, or a damaged one, is a DatasetError naming it."""
    try:
        return _read_groups(Path(out))
    except OSError as exc:
        raise DatasetError(
            f"{out}: cannot read a dedup output there ({exc.strerror or exc}); give the folder "
            "neardup dedup wrote (--out)"
        ) from None
    except (ValueError, KeyError, TypeError) as exc:  # JSON that is not what dedup wrote
        raise DatasetError(
            f"{out}: not a whole dedup output ({type(exc).__name__}: {exc})"
        ) from None


def _read_groups(root: Path) -> dict[str, str]:
    meta = json.loads((root / SUMMARY_FILE).read_text(encoding="utf-8"))
    path = root / meta["files"]["documents"]
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path, columns=["id", "group"])
        return dict(zip(table["id"].to_pylist(), table["group"].to_pylist(), strict=True))
    out_map: dict[str, str] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            out_map[str(rec["id"])] = str(rec["group"])
    return out_map


def partition(groups: dict[str, str]) -> set[frozenset[str]]:
    """Groups as a set of member sets (to compare runs whatever their labels)."""
    members: dict[str, set[str]] = {}
    for doc_id, g in groups.items():
        members.setdefault(g, set()).add(doc_id)
    return {frozenset(m) for m in members.values()}

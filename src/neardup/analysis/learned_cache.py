"""The forms a chain learned through pymorphy3's predictor, kept on disk so that a new process
does not predict them again.

A form the dictionary table does not hold (a name, a new word, a typo) costs about 50 µs in
pymorphy3's predictor the first time a process meets it, which makes a fresh process several
times slower than one that has met the corpus's forms before. The predictor is deterministic,
so what it gave is kept beside the dictionary table, under :func:`learned_root`
(``$NEARDUP_LEARNED_DIR``, else ``cache_dir() / "learned"``) ``/ <key>``, where the key is
the dictionary table's key (:func:`neardup.analysis.morph_table.dictionary_key`: dictionary,
pymorphy3 and table versions), neardup's :data:`~neardup.spec.ALGORITHM_VERSION`,
:data:`LEARNED_VERSION` and a digest of the chain's spec — two chains (other stop words,
other parts of speech dropped) never read each other's forms.

Concurrent processes (``--jobs``, test workers) never write the same file: each process writes
the forms it learned (not those it loaded) to its own file, ``<pid>-<random>.bin``, as a whole
under a temporary name then renamed, every ``SAVE_EVERY`` new forms, when the chain is let go
and at exit (a ``multiprocessing`` worker, which ends without ``atexit``, when it ends).
Loading reads every file of the key and merges them (a form in two files has the same result in
both); a damaged or foreign file is skipped and removed. When a key holds more than
:data:`MAX_FILES` files, the loading process writes their union to one file and removes the
files it merged. The forms kept per key are capped at :data:`MAX_DISK_FORMS`: a process that
finds the cap reached writes nothing more. A folder that cannot be read or written leaves the
cache in memory only: nothing fails.

File layout: :data:`_MAGIC`, a little-endian ``uint64`` count ``n`` and byte size ``m``, a
``uint32`` CRC-32 of what follows, then ``h1`` and ``h2`` (``n`` ``uint64`` each), the
``n + 1`` offsets (``int64``) and the ``m`` bytes of the results (UTF-8; empty when dropped).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import struct
import tempfile
import uuid
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

log = logging.getLogger(__name__)

#: The version of this file format and of what is kept: a change makes a new folder.
LEARNED_VERSION = 1
#: The most forms kept on disk per key (about 40 bytes each: 32 MB at the cap).
MAX_DISK_FORMS = 800_000
#: More files than this in a key's folder are merged into one by the next process that loads.
MAX_FILES = 8
_MAGIC = b"NDLEARN\x01"
_HEADER = struct.Struct("<8sQQI")

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class LearnedForms:
    """Forms hashed ``(h1, h2)`` and their results: form ``i``'s is
    ``data[offsets[i]:offsets[i + 1]]``."""

    h1: U64
    h2: U64
    offsets: I64
    data: U8

    def __len__(self) -> int:
        return int(self.h1.shape[0])

    @staticmethod
    def empty() -> LearnedForms:
        return LearnedForms(
            np.zeros(0, dtype=np.uint64),
            np.zeros(0, dtype=np.uint64),
            np.zeros(1, dtype=np.int64),
            np.zeros(0, dtype=np.uint8),
        )

    @staticmethod
    def of(h1: U64, h2: U64, outputs: list[bytes]) -> LearnedForms:
        lengths = np.fromiter(map(len, outputs), dtype=np.int64, count=len(outputs))
        offsets = np.zeros(len(outputs) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        data = np.frombuffer(b"".join(outputs), dtype=np.uint8).copy()
        return LearnedForms(
            np.ascontiguousarray(h1, dtype=np.uint64),
            np.ascontiguousarray(h2, dtype=np.uint64),
            offsets,
            data,
        )

    def outputs(self) -> list[bytes]:
        raw = self.data.tobytes()
        bounds = self.offsets.tolist()
        return [raw[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def merge(parts: list[LearnedForms], limit: int = MAX_DISK_FORMS) -> LearnedForms:
    """The union of ``parts``, each form once (its first occurrence), at most ``limit``."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return LearnedForms.empty()
    if len(parts) == 1 and len(parts[0]) <= limit and _distinct(parts[0]):
        return parts[0]  # the common load: one file, written by this function
    h1 = np.concatenate([p.h1 for p in parts])
    h2 = np.concatenate([p.h2 for p in parts])
    outputs = [o for p in parts for o in p.outputs()]
    keys = np.empty(h1.shape[0], dtype=[("h1", np.uint64), ("h2", np.uint64)])
    keys["h1"], keys["h2"] = h1, h2
    _, first = np.unique(keys, return_index=True)
    first = np.sort(first)[:limit]
    return LearnedForms.of(h1[first], h2[first], [outputs[i] for i in first.tolist()])


def _distinct(forms: LearnedForms) -> bool:
    """Whether no two forms share ``h1`` (then none share ``(h1, h2)``): one sort of
    ``uint64``, several times cheaper than :func:`merge`'s ``np.unique`` of the pairs."""
    ordered = np.sort(forms.h1)
    return bool(np.all(ordered[1:] != ordered[:-1]))


def encode(forms: LearnedForms) -> bytes:
    body = b"".join(
        [
            forms.h1.astype("<u8").tobytes(),
            forms.h2.astype("<u8").tobytes(),
            forms.offsets.astype("<i8").tobytes(),
            forms.data.tobytes(),
        ]
    )
    header = _HEADER.pack(_MAGIC, len(forms), int(forms.data.shape[0]), zlib.crc32(body))
    return header + body


def decode(raw: bytes) -> LearnedForms | None:
    """The forms of a file's bytes, or ``None`` when they are not a whole file of this format."""
    if len(raw) < _HEADER.size:
        return None
    magic, count, size, crc = _HEADER.unpack_from(raw)
    body = raw[_HEADER.size :]
    if magic != _MAGIC or len(body) != 24 * count + 8 + size or zlib.crc32(body) != crc:
        return None
    h1 = np.frombuffer(body, dtype="<u8", count=count).astype(np.uint64)
    h2 = np.frombuffer(body, dtype="<u8", count=count, offset=8 * count).astype(np.uint64)
    offsets = np.frombuffer(body, dtype="<i8", count=count + 1, offset=16 * count)
    offsets = offsets.astype(np.int64)
    if offsets[0] != 0 or offsets[-1] != size or np.any(np.diff(offsets) < 0):
        return None
    data = np.frombuffer(body, dtype=np.uint8, offset=24 * count + 8).copy()
    return LearnedForms(h1, h2, offsets, data)


def learned_root() -> Path | None:
    """The folder of the learned forms' folders: ``$NEARDUP_LEARNED_DIR``, else ``learned``
    in :func:`neardup._table_cache.cache_dir` (``None``: the disk cache is off)."""
    explicit = os.environ.get("NEARDUP_LEARNED_DIR")
    if explicit:
        return Path(explicit)
    from neardup._table_cache import cache_dir

    root = cache_dir()
    return None if root is None else root / "learned"


def chain_key(table_key: str, spec_dict: dict[str, object]) -> str:
    """The folder name for a chain: the dictionary table's key, the versions and the spec."""
    from neardup.spec import ALGORITHM_VERSION

    digest = hashlib.sha256(
        json.dumps(spec_dict, sort_keys=True, separators=(",", ":")).encode("utf-8")
    ).hexdigest()[:16]
    return f"{table_key}-a{ALGORITHM_VERSION}-l{LEARNED_VERSION}-{digest}"


class LearnedStore:
    """One key's folder of learned forms, as seen by one process (see the module)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.own = folder / f"{os.getpid()}-{uuid.uuid4().hex[:12]}.bin"
        self.loaded = 0

    def load(self) -> LearnedForms:
        """Every whole file of the folder, merged; damaged files are removed, and many files
        are merged into one."""
        try:
            paths = sorted(p for p in self.folder.glob("*.bin") if p != self.own)
        except OSError:
            return LearnedForms.empty()
        parts: list[LearnedForms] = []
        read: list[Path] = []
        for path in paths:
            try:
                raw = path.read_bytes()
            except OSError:
                continue
            forms = decode(raw)
            if forms is None:
                log.warning("ignoring a damaged file of learned forms: %s", path)
                _unlink(path)
                continue
            parts.append(forms)
            read.append(path)
        merged = merge(parts)
        self.loaded = len(merged)
        if len(read) > MAX_FILES and _write(self.folder, f"merged-{uuid.uuid4().hex[:12]}", merged):
            for path in read:
                _unlink(path)
        return merged

    def save(self, forms: LearnedForms) -> bool:
        """Write ``forms`` (what this process learned) as this process's file, replacing what
        it wrote before, within the cap; ``False`` when the folder cannot be written."""
        room = MAX_DISK_FORMS - self.loaded
        if room <= 0 or not len(forms):
            return True
        if len(forms) > room:
            forms = merge([forms], room)
        return _write(self.folder, self.own.stem, forms)


def _write(folder: Path, stem: str, forms: LearnedForms) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{stem}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(encode(forms))
            os.replace(tmp, folder / f"{stem}.bin")
        except BaseException:
            _unlink(Path(tmp))
            raise
    except OSError as exc:
        log.warning("cannot keep learned forms in %s: %s", folder, exc)
        return False
    return True


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass

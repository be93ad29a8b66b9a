"""A pseudo-matrix filter over a corpus in one file (``neardup bloom build`` / ``query``).

The file is the filter's :meth:`~PseudoMatrixBloomFilter.to_bytes` arrays plus two more:
``ids`` (the documents' ids, JSON, key ``i`` is ``ids[i]``) and ``spec`` (the spec's JSON), so
a query is analysed exactly as the corpus was.

The file is written to a temporary name beside it and renamed into place, so a process killed
while writing leaves the old file (or none), never half of one. A file that is truncated or
damaged in any way is refused with :class:`~neardup.errors.DamagedFileError` naming it,
whatever part of it broke (the zip container, an array's header, the JSON, the filter's
arrays disagreeing with each other).
"""

from __future__ import annotations

import io
import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from neardup.bloom.pseudo_matrix import _MAGIC, DAMAGE, PseudoMatrixBloomFilter
from neardup.errors import DamagedFileError, InputError, StorageError, brief
from neardup.spec import Spec


@dataclass
class BloomIndex:
    """A filter, the ids of its keys and the spec its fingerprints were made under."""

    bloom: PseudoMatrixBloomFilter
    ids: list[str]
    spec: Spec

    def save(self, path: str | os.PathLike[str]) -> int:
        """Write the file; returns its size in bytes."""
        arrays: dict[str, Any] = dict(self.bloom.to_arrays())
        arrays["ids"] = np.frombuffer(json.dumps(self.ids).encode(), dtype=np.uint8)
        arrays["spec"] = np.frombuffer(self.spec.to_json().encode(), dtype=np.uint8)
        buf = io.BytesIO()
        buf.write(_MAGIC)
        np.savez(buf, **arrays)
        data = buf.getvalue()
        _write_atomically(Path(path), data)
        return len(data)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> BloomIndex:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            raise InputError(f"no such filter file: {path}") from None
        except OSError as exc:
            raise StorageError(f"cannot read {path}: {exc.strerror}") from None
        if not data.startswith(_MAGIC):
            raise InputError(f"{path} is not a neardup Bloom filter file")
        try:
            return cls._from_data(data[len(_MAGIC) :])
        except DAMAGE as exc:
            reason = brief(str(exc) or type(exc).__name__)
            raise DamagedFileError(
                f"the Bloom filter file {path} is damaged ({reason}); build it again with "
                "neardup bloom build"
            ) from None

    @classmethod
    def _from_data(cls, data: bytes) -> BloomIndex:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}
        ids = json.loads(bytes(arrays.pop("ids")).decode())
        spec = Spec.from_json(bytes(arrays.pop("spec")).decode())
        bloom = PseudoMatrixBloomFilter.from_arrays(arrays)
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise ValueError("the ids are not a list of strings")
        if any(not 0 <= key < len(ids) for key in bloom.keys()):
            raise ValueError(f"{len(bloom)} documents but {len(ids)} ids")
        return cls(bloom, ids, spec)


def _write_atomically(path: Path, data: bytes) -> None:
    """``data`` at ``path`` by a temporary file in the same folder, synced and renamed: a kill
    at any moment leaves the old file or the new one whole, and a failure writes nothing."""
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        # os.open, not mkstemp: the file gets the mode the umask gives, as open() would
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise StorageError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if path.is_dir():
            raise IsADirectoryError(21, "Is a directory")
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise StorageError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise

"""A pseudo-matrix filter over a corpus in one file (``neardup bloom build`` / ``query``).

The file is the filter's :meth:`~PseudoMatrixBloomFilter.to_bytes` arrays plus two more:
``ids`` (the documents' ids, JSON, key ``i`` is ``ids[i]``) and ``spec`` (the spec's JSON), so
a query is analysed exactly as the corpus was.
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from neardup.bloom.pseudo_matrix import _MAGIC, PseudoMatrixBloomFilter
from neardup.errors import InputError, StorageError
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
        try:
            with open(path, "wb") as fh:
                fh.write(data)
        except OSError as exc:
            raise StorageError(f"cannot write {path}: {exc.strerror}") from None
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
            with np.load(io.BytesIO(data[len(_MAGIC) :]), allow_pickle=False) as npz:
                arrays = {name: npz[name] for name in npz.files}
            ids = json.loads(bytes(arrays.pop("ids")).decode())
            spec = Spec.from_json(bytes(arrays.pop("spec")).decode())
        except (ValueError, OSError, KeyError) as exc:
            raise StorageError(f"{path} is damaged: {exc}") from None
        return cls(PseudoMatrixBloomFilter.from_arrays(arrays), ids, spec)

"""The signature file format: a directory that can be read next year, and its streaming writer.

::

    OUT/
      spec.json        {"format": "neardup.signatures", "format_version": 1, "count": n,
                        "num_perm": N, "value_bits": 64, "dtype": "<u8",
                        "spec": {…the full Spec, sketch included…},
                        "spec_fingerprint": "16 hex digits", "created_by": "neardup 0.1.0"}
      signatures.npy   a NumPy .npy array (format 1.0), shape (n, N), little-endian uint64
                       (or uint32 under value_bits 32), C order: row i is document i
      ids.json         a JSON array of n strings: the id of row i

Rows are in input order. The writer streams: rows go to ``signatures.npy`` as they come (its
header is rewritten with the final row count at the end; the header has a fixed size), ids to
``ids.json``; the whole directory is built under ``OUT.partial`` and renamed when complete, so a
half-written result never looks finished. The reader refuses a file of a newer
``format_version`` and, given a spec, a file made under another one (SpecMismatchError).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from tokenize import TokenError
from types import TracebackType
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup._version import __version__
from neardup.errors import DatasetError, InputError, SpecError, SpecMismatchError
from neardup.spec import Spec

FORMAT_NAME = "neardup.signatures"
FORMAT_VERSION = 1
SPEC_FILE = "spec.json"
VALUES_FILE = "signatures.npy"
IDS_FILE = "ids.json"
_HEADER_BYTES = 128  # magic (6) + version (2) + length (2) + the padded dict


def _npy_header(dtype: np.dtype[Any], rows: int, cols: int) -> bytes:
    body = f"{{'descr': '{dtype.str}', 'fortran_order': False, 'shape': ({rows}, {cols}), }}"
    room = _HEADER_BYTES - 10
    if len(body) + 1 > room:
        raise ValueError("npy header does not fit")
    padded = body + " " * (room - len(body) - 1) + "\n"
    return b"\x93NUMPY\x01\x00" + len(padded).to_bytes(2, "little") + padded.encode("latin1")


@dataclass(frozen=True)
class Signatures:
    """Signatures read from (or about to be written to) a signature directory."""

    values: npt.NDArray[np.uint64] | npt.NDArray[np.uint32]
    ids: list[str]
    spec: Spec
    spec_fingerprint: str

    def __len__(self) -> int:
        return int(self.values.shape[0])

    @property
    def num_perm(self) -> int:
        return int(self.values.shape[1])

    def check_same(self, other: Signatures | Spec | str, what: str = "signatures") -> None:
        """Raise SpecMismatchError unless ``other`` was made under the same spec."""
        theirs = (
            other.spec_fingerprint
            if isinstance(other, Signatures)
            else other
            if isinstance(other, str)
            else other.fingerprint()
        )
        if theirs != self.spec_fingerprint:
            raise SpecMismatchError(
                f"{what} made under spec {theirs} cannot be compared with signatures made under "
                f"spec {self.spec_fingerprint}"
            )

    def estimate(self, i: int, other: Signatures, j: int) -> float:
        """Estimated resemblance of row ``i`` here and row ``j`` of ``other`` (same spec only)."""
        from neardup.sketch.minhash import estimate

        self.check_same(other)
        return estimate(self.values[i], other.values[j])


class SignatureWriter:
    """Streams rows into a signature directory; use as a context manager.

    ``overwrite``: replace an existing ``path``; otherwise an existing non-empty path is an
    InputError.
    """

    def __init__(
        self, path: str | os.PathLike[str], spec: Spec, *, overwrite: bool = False
    ) -> None:
        if spec.sketch is None or spec.sketch.method != "minhash":
            raise SpecError(
                "signature files hold MinHash signatures: the spec needs a minhash sketch"
            )
        self.path = Path(path)
        self.spec = spec
        self.num_perm = spec.sketch.num_perm
        self.dtype = np.dtype("<u8" if spec.sketch.value_bits == 64 else "<u4")
        self.count = 0
        self.overwrite = overwrite
        self._tmp = self.path.with_name(self.path.name + ".partial")
        try:
            self._start()
        except OSError as exc:  # a folder this user may not write or search, a full disk
            raise InputError(
                f"cannot write {self.path}: {exc.strerror or exc}; check that you may write "
                "its folder, or choose another output",
                code="path_denied",
                params={
                    "path": str(self.path),
                    "reason": exc.strerror or str(exc),
                    "verb": "write",
                },
            ) from None
        self._closed = False

    def _start(self) -> None:
        if (
            self.path.exists()
            and not self.overwrite
            and (not self.path.is_dir() or any(self.path.iterdir()))
        ):
            raise InputError(f"{self.path} already exists; choose another output or pass --force")
        if self._tmp.exists():
            shutil.rmtree(self._tmp)
        self._tmp.mkdir(parents=True)
        self._values = open(self._tmp / VALUES_FILE, "wb")  # noqa: SIM115 - closed in close()
        self._values.write(_npy_header(self.dtype, 0, self.num_perm))
        self._ids = open(self._tmp / IDS_FILE, "w", encoding="utf-8")  # noqa: SIM115
        self._ids.write("[")

    def write(self, ids: list[str], values: npt.NDArray[Any]) -> None:
        """Append rows: ``values`` is ``(len(ids), N)`` of this spec's dtype."""
        arr = np.asarray(values)
        if arr.ndim != 2 or arr.shape != (len(ids), self.num_perm):
            raise ValueError(f"expected a ({len(ids)}, {self.num_perm}) array, got {arr.shape}")
        if arr.dtype.kind != "u" or arr.dtype.itemsize != self.dtype.itemsize:
            raise SpecMismatchError(
                f"rows of dtype {arr.dtype} do not fit a {self.dtype} signature file"
            )
        self._values.write(np.ascontiguousarray(arr, dtype=self.dtype).tobytes())
        for doc_id in ids:
            if self.count:
                self._ids.write(",\n")
            self._ids.write(json.dumps(str(doc_id), ensure_ascii=False))
            self.count += 1

    def close(self) -> Path:
        """Finish the files and move the directory into place."""
        if self._closed:
            return self.path
        self._ids.write("]\n")
        self._ids.close()
        self._values.seek(0)
        self._values.write(_npy_header(self.dtype, self.count, self.num_perm))
        self._values.close()
        meta = {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "count": self.count,
            "num_perm": self.num_perm,
            "value_bits": self.spec.sketch.value_bits if self.spec.sketch else 64,
            "dtype": self.dtype.str,
            "spec": self.spec.to_dict(),
            "spec_fingerprint": self.spec.fingerprint(),
            "created_by": f"neardup {__version__}",
        }
        (self._tmp / SPEC_FILE).write_text(
            json.dumps(meta, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        if self.path.exists():
            shutil.rmtree(self.path) if self.path.is_dir() else self.path.unlink()
        os.replace(self._tmp, self.path)
        self._closed = True
        return self.path

    def abort(self) -> None:
        """Drop what was written."""
        if self._closed:
            return
        self._values.close()
        self._ids.close()
        shutil.rmtree(self._tmp, ignore_errors=True)
        self._closed = True

    def __enter__(self) -> SignatureWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def write_signatures(
    path: str | os.PathLike[str],
    ids: list[str],
    values: npt.NDArray[Any],
    spec: Spec,
    *,
    overwrite: bool = False,
) -> Path:
    """Write a whole signature directory at once."""
    with SignatureWriter(path, spec, overwrite=overwrite) as writer:
        writer.write(ids, values)
    return writer.path


def read_signatures(
    path: str | os.PathLike[str], *, spec: Spec | str | None = None, mmap: bool = True
) -> Signatures:
    """Read a signature directory; ``spec`` (a Spec or its fingerprint) must match if given.

    Raises DatasetError for a missing, malformed or newer-format directory, and
    SpecMismatchError when ``spec`` is given and differs.
    """
    root = Path(path)
    meta_path = root / SPEC_FILE
    meta = _read_meta(root)
    try:
        stored_spec = Spec.from_dict(meta["spec"])
        stored_fp = str(meta["spec_fingerprint"])
        count = int(meta["count"])
        num_perm = int(meta["num_perm"])
    except KeyError as exc:
        raise DatasetError(f"{meta_path}: missing key {exc.args[0]!r}") from None
    except (ValueError, TypeError) as exc:  # a count or num_perm that is not a number
        raise DatasetError(f"{meta_path}: damaged ({exc})") from None
    if spec is not None:
        theirs = spec if isinstance(spec, str) else spec.fingerprint()
        if theirs != stored_fp:
            raise SpecMismatchError(
                f"{root} holds signatures made under spec {stored_fp}, not the requested {theirs}; "
                "signatures made under different specs cannot be compared"
            )
    try:
        values = np.load(root / VALUES_FILE, mmap_mode="r" if mmap else None, allow_pickle=False)
    except (OSError, ValueError, SyntaxError, TokenError, MemoryError, EOFError) as exc:
        # a damaged header: numpy parses it as a Python literal (SyntaxError, TokenError)
        raise DatasetError(f"{root / VALUES_FILE}: not a readable .npy array ({exc})") from None
    if values.shape != (count, num_perm) or values.dtype.str != meta.get("dtype"):
        raise DatasetError(
            f"{root}: signatures.npy is {values.shape} {values.dtype.str}, spec.json says "
            f"({count}, {num_perm}) {meta.get('dtype')}"
        )
    return Signatures(values, _read_ids(root, count), stored_spec, stored_fp)


def _read_meta(root: Path) -> dict[str, Any]:
    """The checked content of ``spec.json`` of a signature directory."""
    meta_path = root / SPEC_FILE
    if not meta_path.is_file():
        raise DatasetError(f"{root} is not a signature directory: no {SPEC_FILE}")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{meta_path}: not readable JSON ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise DatasetError(f"{meta_path}: not a {FORMAT_NAME} file")
    version = meta.get("format_version")
    if not isinstance(version, int) or version < 1:
        raise DatasetError(f"{meta_path}: bad format_version {version!r}")
    if version > FORMAT_VERSION:
        raise DatasetError(
            f"{root} has signature format version {version}, newer than this neardup reads "
            f"({FORMAT_VERSION}); upgrade neardup "
            f"({meta.get('created_by', 'a newer release')} made it)"
        )
    return meta


def _read_ids(root: Path, count: int) -> list[str]:
    try:
        ids = json.loads((root / IDS_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{root / IDS_FILE}: not readable JSON ({exc})") from None
    if not isinstance(ids, list) or len(ids) != count:
        raise DatasetError(f"{root / IDS_FILE}: expected a list of {count} ids")
    return [str(i) for i in ids]

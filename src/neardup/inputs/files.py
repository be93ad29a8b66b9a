"""One file's bytes, refused unless it is a regular file within the size limit, and their
decoding under the reading options."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from neardup.analysis.decode import Decoded, decode
from neardup.errors import DecodeError, InputError, InputTooLargeError
from neardup.inputs.documents import DEFAULT_MAX_BYTES, PathLike, ReadOptions


class _Unreadable(InputError):
    """A file that cannot be opened (skipped inside a folder, an error when named)."""


# --- bytes and decoding ----------------------------------------------------------------------


def _stat_regular(path: Path) -> os.stat_result:
    try:
        info = path.stat()
    except FileNotFoundError:
        raise InputError(
            f"{path}: no such file or directory", code="no_such_file", params={"path": str(path)}
        ) from None
    except OSError as exc:
        raise _Unreadable(f"cannot read {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path} is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(
            f"{path} is not a regular file (a device, FIFO or socket); only regular files are read"
        )
    return info


def _too_large(what: str, max_bytes: int) -> InputTooLargeError:
    return InputTooLargeError(
        f"{what} is larger than the limit of {max_bytes:,} bytes; raise it with --max-bytes "
        "(max_bytes in Python)"
    )


def read_bytes(path: PathLike, *, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (checked before reading)."""
    p = Path(path)
    info = _stat_regular(p)
    if info.st_size > max_bytes:
        raise _too_large(f"{p} ({info.st_size:,} bytes)", max_bytes)
    try:
        with open(p, "rb") as fh:
            data = fh.read(max_bytes + 1)  # the file may have grown since stat
    except OSError as exc:
        raise _Unreadable(f"cannot read {p}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise _too_large(str(p), max_bytes)
    return data


def decode_bytes(data: bytes, name: str, options: ReadOptions | None = None) -> Decoded:
    """Decode a text's bytes under the policy of ``options``; errors and warnings name it."""
    options = options or ReadOptions()
    try:
        decoded = decode(data, strict=options.strict_decoding)
    except DecodeError as exc:
        raise DecodeError(f"{name}: {exc}") from None
    if decoded.replaced:
        options.warn(
            f"{name}: {decoded.replaced} invalid UTF-8 byte sequence(s) replaced by U+FFFD "
            "(--strict-decoding refuses such input)"
        )
    return decoded

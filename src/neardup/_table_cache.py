"""Tables built from Python's Unicode database, kept on disk between processes.

The analyzer's per-code-point tables (tokenizer classes, the NFKC and mark tables, the fused
fast path's table) take about a second to build by asking :mod:`unicodedata` about every code
point. They depend only on the Unicode version Python ships and on the code that builds them,
so the first process builds them and every later one loads them in milliseconds.

A table's file is named by its key: :data:`unicodedata.unidata_version`, ``sys.maxunicode``,
:data:`FORMAT_VERSION`, the table's name and arguments, and a hash of the source files of the
modules that build it (any change to them makes a new key). The file carries a SHA-256 of its
contents; a file that is short, damaged or of another format is ignored and rebuilt. Writes go
to a temporary file renamed into place, so a reader never sees half a file, and processes
building the same table at once each write a whole one. Files of the same table under other
keys are removed when a new one is written.

Where: ``$NEARDUP_CACHE_DIR`` if set (an empty value turns the disk cache off), else
``$XDG_CACHE_HOME/neardup``, else ``~/.cache/neardup``; a directory that cannot be written only
means the tables are built in memory, as before.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import sys
import tempfile
import unicodedata
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import numpy as np

#: Raised when the file layout changes, so files of the old layout are never read.
FORMAT_VERSION = 1
_MAGIC = b"NDTABLE1"
_DIGEST = 32  # SHA-256

Result = TypeVar("Result")


def cache_dir() -> Path | None:
    """The directory of neardup's on-disk caches, or ``None`` when turned off."""
    configured = os.environ.get("NEARDUP_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "neardup"


@functools.lru_cache(maxsize=32)
def _source_digest(paths: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        try:
            digest.update(Path(path).read_bytes())
        except OSError:  # no source (a frozen build): the package's version stands for it
            from neardup._version import __version__

            digest.update(f"{path}:{__version__}".encode())
    return digest.hexdigest()


def table_key(name: str, args: tuple[Any, ...], sources: tuple[ModuleType, ...]) -> str:
    """The key of a table: what its contents depend on, hashed."""
    paths = tuple(str(getattr(module, "__file__", module.__name__)) for module in sources)
    parts = [
        str(FORMAT_VERSION),
        name,
        repr(args),
        unicodedata.unidata_version,
        str(sys.maxunicode),
        _source_digest(paths),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


def table_path(name: str, args: tuple[Any, ...], sources: tuple[ModuleType, ...]) -> Path | None:
    """Where the table ``name(*args)`` is kept, or ``None`` with the disk cache off."""
    root = cache_dir()
    if root is None:
        return None
    key = table_key(name, args, sources)
    of_args = hashlib.sha256(repr(args).encode()).hexdigest()[:8]
    return root / "unicode" / f"{name}-{of_args}-{unicodedata.unidata_version}-{key}.bin"


def _encode(value: Any) -> bytes:
    arrays = list(value) if isinstance(value, tuple) else [value]
    payload = io.BytesIO()
    payload.write(bytes([1 if isinstance(value, tuple) else 0, len(arrays)]))
    for array in arrays:
        np.save(payload, np.ascontiguousarray(array), allow_pickle=False)
    body = payload.getvalue()
    return _MAGIC + hashlib.sha256(body).digest() + body


def _decode(data: bytes) -> Any:
    """The value in ``data``; ``ValueError`` for anything but a whole, intact file."""
    head = len(_MAGIC) + _DIGEST
    if len(data) < head + 2 or not data.startswith(_MAGIC):
        raise ValueError("not a table file")
    body = data[head:]
    if hashlib.sha256(body).digest() != data[len(_MAGIC) : head]:
        raise ValueError("checksum mismatch")
    stream = io.BytesIO(body)
    is_tuple, count = stream.read(2)
    arrays = [np.load(stream, allow_pickle=False) for _ in range(count)]
    if stream.read(1):
        raise ValueError("trailing bytes")
    return tuple(arrays) if is_tuple else arrays[0]


def load(path: Path) -> Any | None:
    """The table kept at ``path``, or ``None`` when there is none or it is damaged."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        return _decode(data)
    except (ValueError, OSError, EOFError):
        return None


def store(path: Path, value: Any) -> bool:
    """Write ``value`` at ``path`` atomically and remove the same table's files of other keys;
    ``False`` when the directory cannot be written (the cache is then just not kept)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(_encode(value))
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        name, of_args = path.name.split("-")[:2]
        for stale in path.parent.glob(f"{name}-{of_args}-*.bin"):
            if stale != path:
                stale.unlink(missing_ok=True)
    except OSError:
        return False
    return True


def disk_cached(
    name: str, *sources: ModuleType
) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """Keep what ``build(*args)`` returns (an array or a tuple of arrays; ``None`` is not
    kept) on disk under ``name``, keyed as the module says; ``sources`` are the modules whose
    code decides the contents (the decorated function's own module is always one). The
    wrapper's ``path(*args)`` says where a table is kept."""

    def wrap(build: Callable[..., Result]) -> Callable[..., Result]:
        modules = (sys.modules[build.__module__], *sources)

        @functools.wraps(build)
        def cached(*args: Any) -> Result:
            path = table_path(name, args, modules)
            if path is not None:
                found = load(path)
                if found is not None:
                    return found  # type: ignore[no-any-return,unused-ignore]
            value = build(*args)
            if path is not None and value is not None:
                store(path, value)
            return value

        cached.path = lambda *args: table_path(name, args, modules)  # type: ignore[attr-defined]
        return cached

    return wrap

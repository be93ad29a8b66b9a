"""The numba kernels, and where their compiled code is kept.

Every kernel is ``@njit(cache=True)``: numba keeps its machine code beside the source (the
package's ``__pycache__``) so a later process loads it instead of compiling. An install the
user cannot write (system-wide, a container image run as another user) has no such folder, and
numba then refuses to define the kernel at all ("cannot cache function …: no locator
available") unless its own user-wide folder happens to be writable. This package's import runs
before any kernel module's, so it decides first, taking the first that can be written:

* the package folder: nothing changes;
* ``NUMBA_CACHE_DIR`` when the user set it: numba's own choice, left alone;
* neardup's own cache folder (:func:`neardup._table_cache.cache_dir`, the one of the Unicode
  tables: ``$XDG_CACHE_HOME/neardup`` or ``~/.cache/neardup``), under ``numba/``;
* the system's temporary folder, under ``neardup-<uid>/numba`` (made private to the user; a
  folder of that name that another user owns or can write is never used: compiled code is run);
* else a kernel is compiled in memory for this process.

Once per cache folder (a note file is left in it) and once per job (not again in the processes
it starts), one line on stderr says where the kernels are kept, or that they are compiled in
memory; both are words of the ru/en catalog.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

#: Set in the environment once the line is printed: processes started later (workers of
#: ``--jobs``) inherit it and stay silent.
_WARNED = "NEARDUP_KERNEL_CACHE_WARNED"
_KERNELS = __name__
#: Left in a fallback cache folder once its place has been said, so it is said only once.
NOTE = "NEARDUP-KERNELS.txt"


def writable(folder: Path) -> bool:
    """Whether files can be created in ``folder`` (made if missing), tested as numba does:
    by creating one."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def user_kernel_cache() -> Path | None:
    """The kernels' folder in neardup's user cache, or ``None`` when the cache is off."""
    from neardup._table_cache import cache_dir

    root = cache_dir()
    return None if root is None else root / "numba"


def temp_kernel_cache() -> Path:
    """The kernels' folder in the system's temporary folder, one per user."""
    # TMPDIR when it is set (a user who points it elsewhere means it), else the system default
    base = os.environ.get("TMPDIR") or tempfile.gettempdir()
    return Path(base) / f"neardup-{os.getuid()}" / "numba"


def private_to_user(folder: Path) -> bool:
    """Whether ``folder`` and its parent (made mode 0700 if missing) belong to this user and
    no one else can write them: a shared temporary folder lets anyone make a folder of our
    name first, and a kernel cache holds machine code that is run."""
    try:
        folder.parent.mkdir(mode=0o700, exist_ok=True)
        folder.mkdir(mode=0o700, exist_ok=True)
        for part in (folder.parent, folder):
            info = part.lstat()
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
                return False
            if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                return False
    except OSError:
        return False
    return True


def _compile_in_memory_when_uncacheable() -> None:
    """Make numba's ``enable_caching`` leave a kernel of this package uncached (compiled in
    memory, each process anew) when numba finds no folder to cache it in, instead of raising;
    other packages' functions are left to numba."""
    from numba.core import dispatcher

    original = dispatcher.Dispatcher.enable_caching
    if getattr(original, "neardup_guard", False):
        return

    def enable_caching(self: Any) -> None:
        try:
            original(self)
        except RuntimeError as exc:
            if not str(getattr(self.py_func, "__module__", "")).startswith(_KERNELS):
                raise
            if "no locator available" not in str(exc):
                raise
            _say_once("kernel_cache_memory", folders=_fallback_folders())

    enable_caching.neardup_guard = True  # type: ignore[attr-defined]
    dispatcher.Dispatcher.enable_caching = enable_caching  # type: ignore[method-assign]


def _fallback_folders() -> str:
    folders = [user_kernel_cache(), temp_kernel_cache()]
    return ", ".join(str(folder) for folder in folders if folder is not None)


def _say_once(key: str, **values: Any) -> None:
    """One line on stderr in the CLI's language, unless this job has said one already."""
    if os.environ.get(_WARNED):
        return
    os.environ[_WARNED] = "1"
    # imported here: only a process that has something to say pays for the catalog
    from neardup.messages import say
    from neardup.messages.chosen import terminal_language

    sys.stderr.write(say("common", key, terminal_language(), **values) + "\n")


def _say_where(folder: Path) -> None:
    """Say once per folder where the kernels are kept (the note file marks it said)."""
    note = folder / NOTE
    if note.exists():
        return
    _say_once("kernel_cache_at", folder=str(folder))
    try:
        note.write_text(
            "neardup keeps its compiled kernels (numba's cache) here because the folder it is\n"
            "installed in cannot be written. Removing this folder is safe: they are compiled\n"
            "again on the next run.\n",
            encoding="utf-8",
        )
    except OSError:
        pass


def _use_folder(folder: Path) -> None:
    # numba reads its configuration from the environment again before every compilation
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    config = sys.modules.get("numba.core.config")
    if config is not None:
        config.CACHE_DIR = str(folder)  # type: ignore[attr-defined]
    _say_where(folder)


def place_cache() -> str:
    """Decide where the kernels' compiled code goes (see the module's text); returns which:
    ``"package"``, ``"configured"`` (``NUMBA_CACHE_DIR``), ``"user"``, ``"temp"`` or
    ``"memory"``."""
    if writable(Path(__file__).parent / "__pycache__"):
        return "package"
    _compile_in_memory_when_uncacheable()
    if os.environ.get("NUMBA_CACHE_DIR"):
        return "configured"
    folder = user_kernel_cache()
    if folder is None:  # NEARDUP_CACHE_DIR="": the user turned neardup's disk caches off
        return "memory"
    if writable(folder):
        _use_folder(folder)
        return "user"
    folder = temp_kernel_cache()
    if private_to_user(folder) and writable(folder):
        _use_folder(folder)
        return "temp"
    return "memory"


CACHE_PLACE = place_cache()

"""The numba kernels, and where their compiled code is kept.

Every kernel is ``@njit(cache=True)``: numba keeps its machine code beside the source (the
package's ``__pycache__``) so a later process loads it instead of compiling. An install the
user cannot write (system-wide, a container image run as another user) has no such folder, and
numba then refuses to define the kernel at all ("cannot cache function …: no locator
available") unless its own user-wide folder happens to be writable. This package's import runs
before any kernel module's, so it decides first:

* the package folder writable: nothing changes;
* else, unless the user set ``NUMBA_CACHE_DIR``: the kernels' cache goes to neardup's own cache
  folder (:func:`neardup._table_cache.cache_dir`, the one of the Unicode tables), under
  ``numba/``;
* and whatever remains unwritable, a kernel numba can find no cache folder for is compiled in
  memory for this process (one line on stderr says so, once, and not again in the processes
  it starts).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

#: Set in the environment once the in-memory line is printed: processes started later (workers
#: of ``--jobs``) inherit it and stay silent.
_WARNED = "NEARDUP_KERNEL_CACHE_WARNED"
_KERNELS = __name__


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
            _say_in_memory()

    enable_caching.neardup_guard = True  # type: ignore[attr-defined]
    dispatcher.Dispatcher.enable_caching = enable_caching  # type: ignore[method-assign]


def _say_in_memory() -> None:
    if os.environ.get(_WARNED):
        return
    os.environ[_WARNED] = "1"
    where = user_kernel_cache()
    sys.stderr.write(
        "neardup: no writable cache folder for compiled kernels (the package folder"
        + (f" and {where}" if where is not None else "")
        + " cannot be written); kernels are compiled in memory for this run\n"
    )


def place_cache() -> str:
    """Decide where the kernels' compiled code goes (see the module's text); returns which:
    ``"package"``, ``"configured"`` (``NUMBA_CACHE_DIR``), ``"user"`` or ``"memory"``."""
    if writable(Path(__file__).parent / "__pycache__"):
        return "package"
    _compile_in_memory_when_uncacheable()
    if os.environ.get("NUMBA_CACHE_DIR"):
        return "configured"
    folder = user_kernel_cache()
    if folder is None or not writable(folder):
        return "memory"
    # numba reads its configuration from the environment again before every compilation
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    config = sys.modules.get("numba.core.config")
    if config is not None:
        config.CACHE_DIR = str(folder)  # type: ignore[attr-defined]
    return "user"


CACHE_PLACE = place_cache()

"""What the ``neardup`` process skips of numba's start-up.

A one-shot command (``neardup compare`` of two short texts: the start-up target is under 0.5 s)
runs kernels that are already compiled (``cache=True``), and numba's start-up does work for
its compiler that such a process never uses:

* ``import numba`` imports SciPy (~15 ms) only to check its version;
* the first kernel loaded from the cache refreshes numba's typing and target registries:
  it imports and installs every implementation numba has (~0.1 s of CPU), which only the
  compiler reads; loaded machine code needs only the runtime's (NRT's) C functions;
* numba's array library (``numba.np.arraymath``), when it loads (for a compilation), imports
  SciPy's BLAS (~0.2 s) to learn whether ``np.dot`` may use it; no kernel uses ``np.dot``.

:func:`install` puts :class:`NumbaStartup` first on ``sys.meta_path``; it changes these
while numba's modules load: SciPy is answered "absent" while ``numba``'s own ``__init__``
runs and SciPy's BLAS while ``numba.np.arraymath`` runs (both import normally before and
after), and ``Cache.load_overload`` initialises the runtime instead of refreshing the
registries. A kernel that must be compiled (a cache miss, a new signature) is unaffected:
numba's compiler refreshes the registries itself before it starts. Only the ``neardup``
command installs it; a library user's process is left alone.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

#: Module → the module answered "absent" while it loads (when not imported before).
HIDDEN_WHILE_LOADING: dict[str, str] = {
    "numba": "scipy",
    "numba.np.arraymath": "scipy.linalg.cython_blas",
}


def light_cache_loads(caching: ModuleType) -> None:
    """Make ``caching.Cache.load_overload`` (numba's load of a cached kernel) skip the
    registries' refresh. Left alone when numba's cache no longer has the private methods the
    replacement calls (another numba version): the start-up is then slower, not wrong."""
    cache = getattr(caching, "Cache", None)
    if not all(
        hasattr(cache, name)
        for name in ("load_overload", "_load_overload", "_guard_against_spurious_io_errors")
    ):
        return

    def load_overload(self: Any, sig: Any, target_context: Any) -> Any:
        # imported at the first load, not above: light_cache_loads runs while numba loads
        from numba.core.runtime import rtsys

        # what the loaded code needs of target_context.refresh(): the runtime's symbols
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    cache.load_overload = load_overload  # type: ignore[union-attr]


#: Module → what is done to it once it has loaded.
AFTER_LOADING: dict[str, Callable[[ModuleType], None]] = {
    "numba.core.caching": light_cache_loads,
}


class NumbaStartup(importlib.abc.MetaPathFinder):
    """Wraps the loading of the modules named in :data:`HIDDEN_WHILE_LOADING` and
    :data:`AFTER_LOADING`; every other import passes by. Leaves ``sys.meta_path`` once it has
    seen them all."""

    def __init__(self) -> None:
        self.pending = set(HIDDEN_WHILE_LOADING) | set(AFTER_LOADING)

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name not in self.pending:
            return None
        self.pending.discard(name)
        if not self.pending and self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module
        hidden = HIDDEN_WHILE_LOADING.get(name)
        after = AFTER_LOADING.get(name)

        def exec_module(module: ModuleType) -> None:
            blocked = hidden is not None and hidden not in sys.modules
            if blocked:
                sys.modules[hidden] = None  # type: ignore[assignment,index]
            try:
                run(module)
            finally:
                if blocked and sys.modules.get(hidden, ModuleType("absent")) is None:  # type: ignore[arg-type]
                    del sys.modules[hidden]  # type: ignore[arg-type]
            if after is not None:
                after(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install() -> None:
    """Put :class:`NumbaStartup` first on ``sys.meta_path`` (once). A module of its table
    that is already loaded is past changing, except numba's cache, which is changed now."""
    if any(isinstance(finder, NumbaStartup) for finder in sys.meta_path):
        return
    finder = NumbaStartup()
    finder.pending -= set(sys.modules)
    caching = sys.modules.get("numba.core.caching")
    if caching is not None:
        light_cache_loads(caching)
    if finder.pending:
        sys.meta_path.insert(0, finder)

"""The ``neardup`` process's shortcuts through numba's start-up (cli/_numba_startup.py), each
checked in a fresh interpreter, where numba has not loaded yet."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run(code: str, env: dict[str, str] | None = None) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return out.stdout.strip().splitlines()


def test_cached_kernels_load_without_the_registries_and_compiling_still_works() -> None:
    # numba.np.arraymath is imported only by the target registries' refresh
    lines = run(
        "import sys; from neardup.cli import _numba_startup; _numba_startup.install(); "
        "import numpy as np, numba; from neardup._kernels import setops; "
        "a = np.array([1, 2, 3, 5], dtype=np.uint64); b = np.array([2, 3, 4], dtype=np.uint64); "
        "print(setops.intersection_size(a, b), 'numba.np.arraymath' in sys.modules, "
        "'scipy' in sys.modules); "
        "print(numba.njit(lambda x: x * 2 + 1)(20), 'numba.np.arraymath' in sys.modules)"
    )
    assert lines == ["2 False False", "41 True"]


def test_scipy_imports_normally_once_numba_has_loaded() -> None:
    lines = run(
        "import sys; from neardup.cli import _numba_startup; _numba_startup.install(); "
        "import numba; print('scipy' in sys.modules, sys.modules.get('scipy', 'absent')); "
        "import scipy; print(scipy.__name__)"
    )
    assert lines == ["False absent", "scipy"]


def test_without_the_finder_numba_loads_as_usual() -> None:
    lines = run(
        "import sys, numpy as np; from neardup._kernels import setops; "
        "a = np.array([1, 2], dtype=np.uint64); print(setops.intersection_size(a, a), "
        "'numba.np.arraymath' in sys.modules, 'scipy' in sys.modules)"
    )
    assert lines == ["2 True True"]


def test_installing_after_numba_loaded_changes_its_cache_loads() -> None:
    lines = run(
        "import numba.core.caching as c; before = c.Cache.load_overload; "
        "from neardup.cli import _numba_startup; _numba_startup.install(); "
        "print(before is c.Cache.load_overload, c.Cache.load_overload.__module__)"
    )
    assert lines == ["False neardup.cli._numba_startup"]


KERNEL = """
import numpy as np
from numba import njit


@njit(cache=True)
def running_sums(values):
    out = np.empty(values.shape[0], dtype=np.int64)
    total = 0
    for i in range(values.shape[0]):
        total += values[i]
        out[i] = total
    return out
"""


def test_a_kernel_compiled_and_cached_under_the_finder_loads_lightly_in_the_next_process(
    tmp_path: Path,
) -> None:
    """The first process compiles (a cache miss: the compiler refreshes the registries itself)
    and saves; the second loads the saved kernel without them; both give the same sums."""
    (tmp_path / "sums_kernel.py").write_text(KERNEL, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    code = (
        "import sys; from neardup.cli import _numba_startup; _numba_startup.install(); "
        "import numpy as np, sums_kernel; "
        "print(sums_kernel.running_sums(np.array([3, 1, 4, 1, 5])).tolist(), "
        "'numba.np.arraymath' in sys.modules, "
        "sum(sums_kernel.running_sums._cache_hits.values()))"
    )
    assert run(code, env) == ["[3, 4, 8, 9, 14] True 0"]
    assert run(code, env) == ["[3, 4, 8, 9, 14] False 1"]

"""The ``neardup`` process's shortcuts through numba's start-up (cli/_numba_startup.py), each
checked in a fresh interpreter, where numba has not loaded yet. ``numba.np.arraymath`` is
imported only by the refresh of numba's registries (and so by a compilation)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

INSTALL = "import sys; from neardup.cli import _numba_startup; _numba_startup.install(); "

FRESH_INTERPRETER = {
    # a cached kernel loads without the registries; a new function calling it still compiles
    "cached-then-compiled": (
        INSTALL + "import numpy as np, numba; from neardup._kernels import setops; "
        "a = np.array([1, 2, 3, 5], dtype=np.uint64); b = np.array([2, 3, 4], dtype=np.uint64); "
        "print(setops.intersection_size(a, b), 'numba.np.arraymath' in sys.modules, "
        "'scipy' in sys.modules); "
        "twice = numba.njit(lambda x, y: 2 * setops.intersection_size(x, y) + 1); "
        "print(twice(a, b), 'numba.np.arraymath' in sys.modules)",
        ["2 False False", "5 True"],
    ),
    # SciPy is hidden from numba's own __init__ only
    "scipy-after-numba": (
        INSTALL
        + "import numba; print('scipy' in sys.modules, sys.modules.get('scipy', 'absent')); "
        "import scipy; print(scipy.__name__)",
        ["False absent", "scipy"],
    ),
    # without the finder (a library user's process) numba does what it always does
    "without-the-finder": (
        "import sys, numpy as np; from neardup._kernels import setops; "
        "a = np.array([1, 2], dtype=np.uint64); print(setops.intersection_size(a, a), "
        "'numba.np.arraymath' in sys.modules, 'scipy' in sys.modules)",
        ["2 True True"],
    ),
    # numba already loaded: its cache loads are changed at once
    "installed-after-numba": (
        "import numba.core.caching as c; before = c.Cache.load_overload; " + INSTALL + "print("
        "before is c.Cache.load_overload, c.Cache.load_overload.__module__)",
        ["False neardup.cli._numba_startup"],
    ),
}


def run(code: str, env: dict[str, str] | None = None) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return out.stdout.strip().splitlines()


@pytest.mark.parametrize("case", sorted(FRESH_INTERPRETER))
def test_in_a_fresh_interpreter(case: str) -> None:
    code, expected = FRESH_INTERPRETER[case]
    assert run(code) == expected


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
    code = INSTALL + (
        "import numpy as np, sums_kernel; "
        "print(sums_kernel.running_sums(np.array([3, 1, 4, 1, 5])).tolist(), "
        "'numba.np.arraymath' in sys.modules, "
        "sum(sums_kernel.running_sums._cache_hits.values()))"
    )
    assert run(code, env) == ["[3, 4, 8, 9, 14] True 0"]
    assert run(code, env) == ["[3, 4, 8, 9, 14] False 1"]

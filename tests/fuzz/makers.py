"""The cases of the commands added since the first round (issue 27), and the seeded sequence
of every case.

``dedup``, ``bloom size/build/query`` (damaged ``.pmbf`` files among them), ``serve``'s
arguments (the worker replaces ``uvicorn.run``, so no server starts), ``params`` and ``matrix``
with ``--plot``, and the library: ``@library API KIND`` calls ``API`` with a value of ``KIND``
that is not a string, ``@signatures SEED DIR`` damages a signature directory and reads it back,
``@damaged-pmbf SEED DIR`` damages a filter file and queries it with ``bloom query``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.fuzz.harness import (
    HOSTILE_FLOATS,
    HOSTILE_INTS,
    HOSTILE_STRINGS,
    _analyze,
    _compare,
    _index,
    _matrix,
    _sign,
    _some_file,
    _spec_options,
)

#: The library's entry points that take a text, and the values that are not strings.
LIBRARY_APIS = ("compare", "pipeline", "collection_add", "collection_check", "aligner")
NON_STRINGS = ("int", "float", "none", "bytes", "bytearray", "memoryview", "list")

_PLOT_NAMES = ["heat.png", "heat.svg", "heat.pdf", "heat.xyz", "heat", "missing/heat.png"]


def _plot_path(rng: random.Random, folder: Path, names: list[str]) -> str:
    choice = rng.randrange(4)
    if choice == 0:
        return str(folder / rng.choice(names))
    if choice == 1:  # under a path that is a file
        blocker = folder / "a-file"
        blocker.parent.mkdir(parents=True, exist_ok=True)
        blocker.write_text("x")
        return str(blocker / rng.choice(names))
    if choice == 2:
        return rng.choice(["/", str(folder), "/proc/version/x.png", "/nonexistent/x.svg"])
    return str(folder / f"{rng.choice(HOSTILE_STRINGS)}.png").replace("\x00", "")


def _matrix_plot(rng: random.Random, folder: Path) -> list[str]:
    return [*_matrix(rng, folder), "--plot", _plot_path(rng, folder, _PLOT_NAMES)]


def _params(rng: random.Random, folder: Path) -> list[str]:
    argv = ["params"]
    if rng.random() < 0.6:
        argv += ["--bands", rng.choice([*HOSTILE_INTS, "6", "20"])]
    if rng.random() < 0.6:
        argv += ["--rows", rng.choice([*HOSTILE_INTS, "5", "14"])]
    if rng.random() < 0.3:
        argv += ["-N", rng.choice([*HOSTILE_INTS, "128", "256"])]
    if rng.random() < 0.3:
        argv += ["-t", rng.choice(HOSTILE_FLOATS)]
    if rng.random() < 0.3:
        argv += ["--at", *rng.sample(["0.5", "0.9", "1.5", "-1", "x", "nan"], 2)]
    if rng.random() < 0.2:
        argv.append("--mega")
    if rng.random() < 0.2:
        argv.append("--exact")
    if rng.random() < 0.2:
        argv += ["--compare", rng.choice(["14x6", "0x0", "x", "99999999x99999999", "3x"])]
    if rng.random() < 0.3:
        argv += ["--plot", _plot_path(rng, folder, ["s.png", "s.svg", "s.pdf", "s"])]
    if rng.random() < 0.3:
        argv.append("--json")
    return argv


def _dedup(rng: random.Random, folder: Path) -> list[str]:
    inputs = [_some_file(rng, folder, f"d{i}") for i in range(rng.randrange(1, 3))]
    out = rng.choice([str(folder / "out"), str(folder / "out"), "/", "/proc/out"])
    argv = ["dedup", *inputs, "--out", out, *_spec_options(rng, folder)]
    if rng.random() < 0.5:
        argv.append("--overwrite")
    if rng.random() < 0.3:
        argv += ["-t", rng.choice(HOSTILE_FLOATS)]
    if rng.random() < 0.2:
        argv += ["--num-perm", rng.choice(["16", "64", "128", "0", "-1", "x", "1e9"])]
    if rng.random() < 0.2:
        argv += ["--bands", rng.choice(HOSTILE_INTS)]
    if rng.random() < 0.2:
        argv += ["--keep", rng.choice(["first", "longest", "x", ""])]
    if rng.random() < 0.2:
        argv += ["--format", rng.choice(["jsonl", "parquet", "csv"])]
    if rng.random() < 0.2:
        argv += ["--jobs", rng.choice(["0", "1", "2", "-1"])]
    if rng.random() < 0.1:
        argv.append("--kept-only")
    return argv


def _bloom_size(rng: random.Random) -> list[str]:
    argv = ["bloom", "size", "--n", rng.choice([*HOSTILE_INTS, "1000"])]
    if rng.random() < 0.5:
        argv += ["--p", rng.choice(HOSTILE_FLOATS)]
    if rng.random() < 0.3:
        argv += ["--documents", rng.choice(HOSTILE_INTS)]
    return argv


def _bloom_build(rng: random.Random, folder: Path, filter_file: str) -> list[str]:
    argv = ["bloom", "build", _some_file(rng, folder, "b"), "-o", filter_file]
    argv += _spec_options(rng, folder)
    for name, values in (
        ("--n", [*HOSTILE_INTS, "500"]),
        ("--p", HOSTILE_FLOATS),
        ("--bloom-seed", HOSTILE_INTS),
        ("--placement", ["split", "whole", "x"]),
    ):
        if rng.random() < 0.3:
            argv += [name, rng.choice(values)]
    return argv


def _bloom(rng: random.Random, folder: Path) -> list[str]:
    step = rng.randrange(4)
    if step == 0:
        return _bloom_size(rng)
    filter_file = str(folder.parent / "filter.pmbf")
    if step == 1 or not Path(filter_file).exists():
        return _bloom_build(rng, folder, filter_file)
    if step == 2:
        return ["@damaged-pmbf", str(rng.randrange(2**32)), str(folder)]
    argv = ["bloom", "query", filter_file, _some_file(rng, folder, "q")]
    if rng.random() < 0.3:
        argv += ["--threshold", rng.choice(HOSTILE_FLOATS)]
    if rng.random() < 0.3:
        argv += ["--max-rows", rng.choice(HOSTILE_INTS)]
    if rng.random() < 0.3:
        argv += ["--fragments", _some_file(rng, folder, "corpus")]
    if rng.random() < 0.3:
        argv.append("--json")
    return argv


def _serve(rng: random.Random, folder: Path) -> list[str]:
    db = rng.choice([str(folder.parent / "index.db"), str(folder / "none.db"), "memory:", ""])
    argv = ["serve", db]
    options = {
        "--port": [*HOSTILE_INTS, "0", "65536", "8000"],
        "--workers": HOSTILE_INTS,
        "--max-body": HOSTILE_FLOATS,
        "--max-text": HOSTILE_INTS,
        "--max-matrix": HOSTILE_INTS,
        "--reads": ["open", "token", "x"],
        "--token": HOSTILE_STRINGS,
        "--host": ["127.0.0.1", "::1", "", "999.1.1.1", "[/b]"],
        "--log-level": ["info", "x"],
    }
    for name in rng.sample(sorted(options), rng.randrange(0, 4)):
        argv += [name, rng.choice(options[name])]
    return argv


def _library(rng: random.Random, folder: Path) -> list[str]:
    return ["@library", rng.choice(LIBRARY_APIS), rng.choice(NON_STRINGS)]


def _signatures(rng: random.Random, folder: Path) -> list[str]:
    return ["@signatures", str(rng.randrange(2**32)), str(folder)]


MAKERS: dict[str, Callable[[random.Random, Path], list[str]]] = {
    "compare": _compare,
    "analyze": _analyze,
    "matrix": _matrix,
    "matrix --plot": _matrix_plot,
    "sign": _sign,
    "index": _index,
    "dedup": _dedup,
    "bloom": _bloom,
    "serve": _serve,
    "params": _params,
    "@library": _library,
    "@signatures": _signatures,
}


def cases(seed: int, count: int, folder: Path, *, lanes: int = 1) -> Iterator[list[str]]:
    """COUNT cases made from SEED; case ``i`` writes its files under ``FOLDER/lane{i % lanes}``
    (each lane has its own collection and filter file, so cases run side by side in ``lanes``
    workers never share one)."""
    rng = random.Random(seed)
    names = sorted(MAKERS)
    for i in range(count):
        case_folder = folder / f"lane{i % lanes}" / f"case{i % 50}"
        yield MAKERS[names[i % len(names)]](rng, case_folder)

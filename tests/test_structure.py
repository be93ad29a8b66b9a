"""The shape of the source tree: no import cycles between neardup's modules, no arrow from the
core up to an entry point (the CLI, the web service), and no module grown past ~800 lines.

Imports are read with :mod:`ast`, not by importing, and every import statement counts wherever
it is written: at module level, in ``try``/``if``/``with`` blocks, class bodies, and inside
functions too (an import deferred into a function is still an arrow between two modules; hiding
it in a function does not break a cycle). Only imports under ``if TYPE_CHECKING:`` are left
out (they never run). The package root's lazy loading through ``importlib.import_module`` is
not an import statement and is not read. ``from neardup.x import y`` is an
import of ``neardup.x.y`` when ``y`` is a submodule, else of ``neardup.x``; a package's
``__init__.py`` is the package.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "neardup"
#: Compiled numba kernels: flat loops over arrays, long by design (see docs/architecture.md).
KERNELS = PACKAGE / "_kernels"
MAX_LINES = 800
#: The entry points: the command line and the HTTP service. Spark's driver is an entry point
#: too, and may use the CLI's helpers.
ENTRY_POINTS = ("neardup.cli", "neardup.web")
MAY_IMPORT_ENTRY_POINTS = ("neardup.cli", "neardup.web", "neardup.spark")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


MODULES = {module_name(path): path for path in source_files()}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def counted_statements(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement among ``body`` and the statements nested in it (functions,
    classes, loops, ``try``, ``with``, ``match``), except those under ``if TYPE_CHECKING:``."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from counted_statements(node.orelse)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    yield from counted_statements([child])
                elif isinstance(child, ast.ExceptHandler | ast.match_case):
                    yield from counted_statements(child.body)


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imported_modules(name: str, path: Path) -> set[str]:
    """The neardup modules ``name`` imports, at import time or when one of its functions runs."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in counted_statements(tree.body):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:  # relative: from its package, one level up per extra dot
            package = _package_of(name, path).split(".")
            anchor = ".".join(package[: len(package) - node.level + 1])
            base = f"{anchor}.{base}" if base else anchor
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            found.add(submodule if submodule in MODULES else base)
    return {m for m in found if m in MODULES and m != name}


def import_graph() -> dict[str, set[str]]:
    return {name: imported_modules(name, path) for name, path in MODULES.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm), each
    sorted; a module importing itself is not counted (``imported_modules`` drops it)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def shortest_cycle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One shortest cycle through the first module of a strongly connected component, as
    the path of imports that closes it (first module repeated at the end)."""
    start, members = component[0], set(component)
    paths = {start: [start]}
    queue = [start]
    for node in queue:
        for nxt in sorted(graph[node] & members):
            if nxt == start:
                return [*paths[node], start]
            if nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                queue.append(nxt)
    raise AssertionError(f"{component} is not a cycle")


def within(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def test_imports_are_read_as_the_rules_say(tmp_path: Path) -> None:
    """What counts as an import: submodules, relative imports, ``try`` blocks, and imports
    inside functions, methods, loops and ``with`` blocks; not imports under
    ``if TYPE_CHECKING:``, or of other packages."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from typing import TYPE_CHECKING\n"
        "import numpy\n"
        "import neardup.spec\n"
        "from neardup.inputs import CorpusReader\n"
        "from neardup.storage import memory\n"
        "from . import base\n"
        "from .sqlite import SQLiteStorage\n"
        "from .. import errors\n"
        "if TYPE_CHECKING:\n"
        "    from neardup.index import collection\n"
        "else:\n"
        "    from neardup.report import fragments\n"
        "try:\n"
        "    from neardup.score import matrix\n"
        "except ImportError:\n"
        "    pass\n"
        "def later() -> None:\n"
        "    from neardup.passages import align\n"
        "    if TYPE_CHECKING:\n"
        "        from neardup.eval import run\n"
        "class Holder:\n"
        "    async def method(self) -> None:\n"
        "        for _ in range(2):\n"
        "            with open('x') as f:\n"
        "                import neardup.bloom.pseudo_matrix\n"
        "        try:\n"
        "            pass\n"
        "        except ImportError:\n"
        "            from neardup.sketch import minhash\n",
        encoding="utf-8",
    )
    assert imported_modules("neardup.storage.probe", probe) == {
        "neardup.spec",
        "neardup.inputs",
        "neardup.storage.memory",
        "neardup.storage.base",
        "neardup.storage.sqlite",
        "neardup.errors",
        "neardup.report.fragments",
        "neardup.score.matrix",
        "neardup.passages.align",
        "neardup.bloom.pseudo_matrix",
        "neardup.sketch.minhash",
    }
    toy = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": {"e"}}
    assert cycles(toy) == [["a", "b", "c"], ["e", "f"]]
    toy["b"].add("a")
    assert cycles(toy)[0] == ["a", "b", "c"] and shortest_cycle(toy, ["a", "b", "c"]) == [
        "a",
        "b",
        "a",
    ]
    assert cycles({"a": {"b"}, "b": set()}) == []
    toy = {
        "neardup.report.fragments": {"neardup.cli.main", "neardup.spec"},
        "neardup.cli.main": {"neardup.web.app"},
        "neardup.spark.job": {"neardup.cli._options"},
        "neardup.web.app": {"neardup.cli.main"},
        "neardup.clippy": {"neardup.website"},
    }
    assert upward_imports(toy) == [("neardup.report.fragments", "neardup.cli.main")]


def upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """``(importer, imported)`` for every import of an entry point by a core module."""
    return sorted(
        (importer, imported)
        for importer, targets in graph.items()
        if not within(importer, MAY_IMPORT_ENTRY_POINTS)
        for imported in targets
        if within(imported, ENTRY_POINTS)
    )


def test_no_import_cycles() -> None:
    graph = import_graph()
    found = cycles(graph)
    assert not found, "import cycles: " + "; ".join(
        f"{' → '.join(shortest_cycle(graph, c))} (modules of the cycle: {', '.join(c)})"
        for c in found
    )


def test_the_core_does_not_import_an_entry_point() -> None:
    found = upward_imports(import_graph())
    assert not found, "the core imports an entry point: " + ", ".join(
        f"{a} → {b}" for a, b in found
    )


def test_nothing_imports_the_package_root() -> None:
    """``neardup/__init__.py`` imports the public surface; a module that imports it back (say
    for ``__version__``, which lives in :mod:`neardup._version`) is one step from a cycle."""
    graph = import_graph()
    assert sorted(m for m, targets in graph.items() if "neardup" in targets) == []


@pytest.mark.parametrize(
    "path",
    [p for p in source_files() if KERNELS not in p.parents],
    ids=lambda p: str(p.relative_to(SRC)),
)
def test_no_module_over_the_line_limit(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(SRC)} has {lines} lines (limit {MAX_LINES})"

"""Print the map of neardup's packages and their imports as a Mermaid ``flowchart`` block.

    python scripts/package_map.py           # print the block
    python scripts/package_map.py --write   # put it into docs/architecture.md between the markers

Imports are read with :mod:`ast`, without importing anything: every ``import`` and ``from …
import`` of a module counts (module level, in functions, in ``try`` blocks, in class bodies)
except those under ``if TYPE_CHECKING:``. Each module is collapsed to its package
``neardup.X`` (a top-level module such as ``neardup/spec.py`` is its own node ``neardup.spec``;
``neardup/__init__.py`` is the node ``neardup``), and an arrow ``A --> B`` says some module of
``A`` imports some module of ``B``. ``tests/test_package_map.py`` checks the doc holds what this
script prints now.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src"
PACKAGE = SRC / "neardup"
DOC = REPO / "docs" / "architecture.md"
BEGIN = "<!-- package-map: begin (python scripts/package_map.py --write) -->"
END = "<!-- package-map: end -->"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = frozenset(_module_name(path) for path in PACKAGE.rglob("*.py"))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under ``node``, leaving out the bodies of ``if TYPE_CHECKING:``."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
        return
    if isinstance(node, ast.If) and _is_type_checking(node.test):
        for child in node.orelse:
            yield from _imports(child)
        return
    for child in ast.iter_child_nodes(node):
        yield from _imports(child)


def imported_names(name: str, path: Path) -> set[str]:
    """The absolute names of everything ``name`` (at ``path``) imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _imports(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            parts = package.split(".")
            anchor = ".".join(parts[: len(parts) - node.level + 1])
            base = f"{anchor}.{base}" if base else anchor
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            # "from neardup import compare" imports the root; "from neardup import spec", a module
            found.add(submodule if submodule in MODULES else base)
    return found


def package_of(name: str) -> str | None:
    """``neardup.X`` for a name inside neardup (``neardup`` for the root), else None."""
    parts = name.split(".")
    if parts[0] != "neardup":
        return None
    return ".".join(parts[:2])


def package_graph() -> dict[str, set[str]]:
    """Each package → the packages its modules import (itself left out)."""
    nodes = {package_of(_module_name(p)) or "" for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {node: set() for node in nodes}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        source = package_of(name) or ""
        for imported in imported_names(name, path):
            target = package_of(imported)
            if target is not None and target in graph and target != source:
                graph[source].add(target)
    return graph


def _node_id(package: str) -> str:
    return "root" if package == "neardup" else package.removeprefix("neardup.").strip("_")


def mermaid() -> str:
    """The Mermaid block (fence included) of the package graph, in a fixed order."""
    graph = package_graph()
    lines = ["```mermaid", "flowchart LR"]
    for package in sorted(graph):
        lines.append(f'  {_node_id(package)}["{package}"]')
    for package in sorted(graph):
        for target in sorted(graph[package]):
            lines.append(f"  {_node_id(package)} --> {_node_id(target)}")
    lines.append("```")
    return "\n".join(lines)


def doc_block(text: str) -> str:
    """What ``text`` holds between the markers (stripped)."""
    start = text.index(BEGIN) + len(BEGIN)
    return text[start : text.index(END, start)].strip("\n")


def write(doc: Path = DOC) -> bool:
    """Put the current block into ``doc``; True when it changed."""
    text = doc.read_text(encoding="utf-8")
    start = text.index(BEGIN) + len(BEGIN)
    end = text.index(END, start)
    updated = text[:start] + "\n" + mermaid() + "\n" + text[end:]
    if updated == text:
        return False
    doc.write_text(updated, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help=f"update {DOC.relative_to(REPO)}")
    args = parser.parse_args(argv)
    if args.write:
        changed = write()
        print(f"{DOC.relative_to(REPO)}: {'updated' if changed else 'already current'}")
    else:
        print(mermaid())
    return 0


if __name__ == "__main__":
    sys.exit(main())

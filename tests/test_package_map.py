"""docs/architecture.md holds the package map that ``scripts/package_map.py`` prints now (run
``python scripts/package_map.py --write`` after changing imports), and the script reads imports
as it says."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "package_map", REPO / "scripts" / "package_map.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("package_map", module)
    spec.loader.exec_module(module)
    return module


package_map = _script()


def test_the_doc_holds_the_current_map() -> None:
    shown = package_map.doc_block(package_map.DOC.read_text(encoding="utf-8"))
    assert shown == package_map.mermaid(), (
        "docs/architecture.md's package map is stale: python scripts/package_map.py --write"
    )


def test_every_package_is_a_node_and_type_checking_imports_are_left_out(tmp_path: Path) -> None:
    graph = package_map.package_graph()
    packages = {
        p.name for p in (REPO / "src" / "neardup").iterdir() if (p / "__init__.py").is_file()
    }
    assert {f"neardup.{name}" for name in packages} <= set(graph)
    assert "neardup" in graph and "neardup.cli" not in graph["neardup.index"]
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from typing import TYPE_CHECKING\n"
        "import neardup.spec\n"
        "from .. import errors\n"
        "if TYPE_CHECKING:\n"
        "    from neardup.web import app\n"
        "else:\n"
        "    from neardup.report import fragments\n"
        "def later() -> None:\n"
        "    from neardup.passages import align\n",
        encoding="utf-8",
    )
    names = package_map.imported_names("neardup.storage.probe", probe)
    found = {package_map.package_of(n) for n in names} - {None}
    assert found == {"neardup.spec", "neardup.errors", "neardup.report", "neardup.passages"}


def test_write_puts_the_block_between_the_markers(tmp_path: Path) -> None:
    doc = tmp_path / "map.md"
    doc.write_text(f"# map\n\n{package_map.BEGIN}\nold\n{package_map.END}\n", encoding="utf-8")
    assert package_map.write(doc)
    assert package_map.doc_block(doc.read_text(encoding="utf-8")) == package_map.mermaid()
    assert not package_map.write(doc)

"""The package's layers import one way: no two sub-packages (or top modules) import each other, directly or
around a loop, and rich (the terminal UI) is used by the CLI alone."""

from __future__ import annotations

import graphlib
import re
from collections import defaultdict
from pathlib import Path

import bookrag_neo4j

ROOT = Path(bookrag_neo4j.__file__).parent
_RELATIVE = re.compile(r"^\s*from (\.+)([\w.]*) import", re.MULTILINE)


def package_imports() -> dict[str, set[str]]:
    """Which top-level parts of the package each part imports (relative imports, at any place in a module)."""
    edges: dict[str, set[str]] = defaultdict(set)
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT)
        part = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        for dots, module in _RELATIVE.findall(path.read_text(encoding="utf-8")):
            base = list(rel.parts[:-1])[: len(rel.parts) - len(dots)]
            target = [*base, *(p for p in module.split(".") if p)]
            if target and target[0] != part:
                edges[part].add(target[0])
    return edges


def test_the_layers_form_no_import_cycle() -> None:
    edges = package_imports()
    graphlib.TopologicalSorter(edges).prepare()  # raises CycleError naming the loop
    assert "index" not in edges["kg"] and "retrieval" in edges["ops"] and "ops" not in edges["retrieval"]


def test_rich_is_only_in_the_cli() -> None:
    users = {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.py")
             if re.search(r"^\s*(from|import) rich\b", p.read_text(encoding="utf-8"), re.MULTILINE)}
    assert users and all(u.startswith("cli/") for u in users), users

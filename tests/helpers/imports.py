"""What the package's parts and modules import (relative imports, at any place in a module), read from the source:
the layering test's graph, and what a traced question's calls are held against (:mod:`tests.helpers.walk`)."""

from __future__ import annotations

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


_NAMES = re.compile(r"^\s*from (\.+)([\w.]*) import (\([^)]*\)|[\w, ]+)", re.MULTILINE)


def module_imports() -> dict[str, set[str]]:
    """Which modules of the package each module imports (``from .x import y`` names module ``x``, or ``x.y``
    when that is a module); a package's ``__init__`` re-exports and is left out."""
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts) for p in ROOT.rglob("*.py")}
    edges: dict[str, set[str]] = defaultdict(set)
    for path in ROOT.rglob("*.py"):
        if path.name == "__init__.py":
            continue
        rel = path.relative_to(ROOT)
        me = ".".join(rel.with_suffix("").parts)
        for dots, module, names in _NAMES.findall(path.read_text(encoding="utf-8")):
            base = ".".join([*rel.parts[:-1][: len(rel.parts) - len(dots)], *(p for p in module.split(".") if p)])
            for target in [base, *(f"{base}.{n}" for n in re.split(r"[\s,()]+", names) if n)]:
                if target in modules and target != me:
                    edges[me].add(target)
    return edges

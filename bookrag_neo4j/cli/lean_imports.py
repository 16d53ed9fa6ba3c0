"""Optional imports that a ``bookrag`` process never uses, kept out of it: the CLI's process is its own.

    install(torch_for_spacy=False)              # every command
    install(pandas_for_neo4j=False)             # the question commands

thinc (spaCy's ML layer) imports PyTorch for its wrappers, though the packaged ``en_core_web_sm`` runs on thinc's NumPy
ops; the Neo4j driver imports pandas and pyarrow to accept them as parameters, which this package never sends. Both cost
every command CPU and memory (docs/eval/native-query/cold-notes.md). :func:`install` adds an import hook under which
``thinc.compat`` and ``neo4j._optional_deps`` run as if the dependency were missing, unless it is already imported; the
dependency stays importable (the embedder's PyTorch, GDS's pandas). Only the ``bookrag`` command installs it: a library
must not change what an application's own imports see.
"""

from __future__ import annotations

import _imp
import importlib.abc
import importlib.machinery
import logging
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

log = logging.getLogger(__name__)

# the module that imports optional dependencies -> the dependencies it should not see
SPACY_WITHOUT_TORCH = ("thinc.compat", ("torch",))
NEO4J_WITHOUT_PANDAS = ("neo4j._optional_deps", ("pandas", "pyarrow"))


class _HidingLoader(importlib.abc.Loader):
    """Runs a module with ``hidden`` absent from ``sys.modules``'s point of view (``import x`` raises ImportError),
    holding the import lock so that no other thread's import of them fails meanwhile."""

    def __init__(self, loader: importlib.abc.Loader, hidden: Sequence[str]) -> None:
        self.loader = loader
        self.hidden = hidden

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        _imp.acquire_lock()
        try:
            blocked = [name for name in self.hidden if name not in sys.modules]
            for name in blocked:
                sys.modules[name] = None  # type: ignore[assignment]  # the documented way to make an import fail
            try:
                self.loader.exec_module(module)
            finally:
                for name in blocked:
                    if sys.modules.get(name, 0) is None:
                        del sys.modules[name]
        finally:
            _imp.release_lock()
        log.debug("imported %s without %s", module.__name__, ", ".join(blocked) or "hiding anything")


class _Finder(importlib.abc.MetaPathFinder):
    """Finds ``target`` as the path finder does, with a loader that hides ``hidden`` while it runs."""

    def __init__(self, target: str, hidden: Sequence[str]) -> None:
        self.target = target
        self.hidden = tuple(hidden)

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> Any:
        if fullname != self.target or all(name in sys.modules for name in self.hidden):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _HidingLoader(spec.loader, self.hidden)
        return spec


def install(*, torch_for_spacy: bool = True, pandas_for_neo4j: bool = True) -> None:
    """Keep PyTorch out of spaCy (``torch_for_spacy=False``) and pandas out of the Neo4j driver
    (``pandas_for_neo4j=False``) in this process; each hook once."""
    wanted = [rule for rule, keep in ((SPACY_WITHOUT_TORCH, torch_for_spacy), (NEO4J_WITHOUT_PANDAS, pandas_for_neo4j))
              if not keep]
    present = {f.target for f in sys.meta_path if isinstance(f, _Finder)}
    for target, hidden in wanted:
        if target not in present and target not in sys.modules:
            sys.meta_path.insert(0, _Finder(target, hidden))

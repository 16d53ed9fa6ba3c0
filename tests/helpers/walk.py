"""The rooms a question walks through: every call from one part of the package into another (``retrieval`` ->
``db``) while a block of code runs, and which of them go against the import graph (into a part the caller does not
import: a callback handed down, or a climb back), each with its first call."""

from __future__ import annotations

import sys
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .imports import package_imports

PACKAGE = "bookrag_neo4j"


def room(filename: str) -> str | None:
    """The part of the package a code object lives in (a sub-package, or a top module), None outside it."""
    parts = Path(filename).parts
    if PACKAGE not in parts:
        return None
    rest = parts[parts.index(PACKAGE) + 1:]
    return rest[0] if len(rest) > 1 else Path(rest[0]).stem


@dataclass
class Walk:
    """The room-to-room calls seen, with the first call of each edge (``caller -> callee`` qualified names)."""

    edges: Counter[tuple[str, str]] = field(default_factory=Counter)
    first: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def rooms(self) -> list[str]:
        return sorted({r for edge in self.edges for r in edge})

    def against_imports(self) -> dict[tuple[str, str], str]:
        """The edges into a part the caller does not import, with their first call."""
        imports = package_imports()
        return {e: self.first[e] for e in self.edges if e[1] not in imports.get(e[0], set())}

    def lines(self, title: str) -> list[str]:
        against = self.against_imports()
        return [f"{title}: {len(self.rooms)} rooms: {', '.join(self.rooms)}",
                f"{len(self.edges)} room-to-room call edges, {sum(self.edges.values())} calls; against the import "
                f"graph: {len(against)} edges",
                *(f"  {a} -> {b}: {n} calls" + (f", against the imports: {against[(a, b)]}" if (a, b) in against else "")
                  for (a, b), n in sorted(self.edges.items()))]


@contextmanager
def traced() -> Iterator[Walk]:
    """Trace the calls of the block (this thread and threads it starts) into a :class:`Walk`."""
    walk = Walk()

    def profile(frame, event, arg):  # noqa: ANN001
        if event != "call" or frame.f_back is None:
            return
        callee, caller = room(frame.f_code.co_filename), room(frame.f_back.f_code.co_filename)
        if callee and caller and callee != caller:
            walk.edges[(caller, callee)] += 1
            walk.first.setdefault((caller, callee), f"{frame.f_back.f_code.co_qualname} -> {frame.f_code.co_qualname}")

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        yield walk
    finally:
        sys.setprofile(None)
        threading.setprofile(None)

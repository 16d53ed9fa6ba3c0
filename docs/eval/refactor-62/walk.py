"""The rooms one question walks through: every call from one part of the package into another (``retrieval`` ->
``db``), traced while a warm question runs LLM-free, and those that go against the import graph (into a part the
caller does not import: a callback handed down, or a climb back), each with its first call.

    python docs/eval/refactor-62/walk.py PEPSICO_2021_10K.pdf "What was PepsiCo's net revenue in 2021?"
"""

import asyncio
import sys
import threading
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "unit"))
from test_layering import package_imports  # noqa: E402

from bookrag_neo4j import BookRAG  # noqa: E402

PACKAGE = "bookrag_neo4j"


def room(filename: str) -> str | None:
    """The part of the package a code object lives in (a sub-package, or a top module), None outside it."""
    parts = Path(filename).parts
    if PACKAGE not in parts:
        return None
    rest = parts[parts.index(PACKAGE) + 1:]
    return rest[0] if len(rest) > 1 else Path(rest[0]).stem


def main(doc: str, question: str) -> None:
    rag = BookRAG.from_env(use_llm=False)
    edges: Counter[tuple[str, str]] = Counter()
    seen: dict[tuple[str, str], str] = {}

    def profile(frame, event, arg):  # noqa: ANN001
        if event != "call":
            return
        callee = room(frame.f_code.co_filename)
        caller = room(frame.f_back.f_code.co_filename) if frame.f_back else None
        if callee and caller and callee != caller:
            edges[(caller, callee)] += 1
            seen.setdefault((caller, callee), f"{frame.f_back.f_code.co_qualname} -> {frame.f_code.co_qualname}")

    async def ask() -> None:
        await rag.aretrieve(question, doc=doc)  # warm: models loaded, the document's copies read
        sys.setprofile(profile)
        threading.setprofile(profile)
        try:
            await rag.aretrieve(question, doc=doc)
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
        await rag.aclose()

    asyncio.run(ask())
    imports = package_imports()
    rooms = sorted({r for edge in edges for r in edge})
    against = {e: n for e, n in edges.items() if e[1] not in imports.get(e[0], set())}
    print(f"{len(rooms)} rooms: {', '.join(rooms)}")
    print(f"{len(edges)} room-to-room call edges, {sum(edges.values())} calls; against the import graph: "
          f"{len(against)} edges")
    for (a, b), n in sorted(edges.items()):
        print(f"  {a} -> {b}: {n} calls" + (f", against the imports: {seen[(a, b)]}" if (a, b) in against else ""))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

"""The rooms one question walks through (:mod:`tests.helpers.walk`): every call from one part of the package into
another, traced while a question runs LLM-free, first cold (the process reads the document's copies: texts,
postings, the entity graph) then warm, and those that go against the import graph, each with its first call.

    python docs/eval/refactor-62/walk.py PEPSICO_2021_10K.pdf "What was PepsiCo's net revenue in 2021?" [METHOD]
"""

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from bookrag_neo4j import BookRAG  # noqa: E402
from tests.helpers.walk import traced  # noqa: E402


async def main(doc: str, question: str, method: str = "bookrag") -> None:
    rag = BookRAG.from_env(use_llm=False)
    for title in ("cold", "warm"):
        with traced() as walk:
            await rag.aretrieve(question, doc=doc, method=method)
        print("\n".join(walk.lines(f"{method}, {title}")))
    await rag.aclose()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))

"""The models' CPU on one indexed PDF, each alone on the idle machine: spaCy over the extractor's passages (one core),
MiniLM over the content blocks and over the distinct entity names spaCy finds (torch on every core).

    .venv/bin/python docs/eval/ingest-19/model-costs.py ../shared/benchmarks/financebench/pdfs/AMAZON_2017_10K.pdf

The document must be indexed (its tree is read from the default instance); `cpu-account.py` does that.
"""
import asyncio
import sys
import time
from pathlib import Path

from bookrag_neo4j.cli.common import library
from bookrag_neo4j.keys import file_key
from bookrag_neo4j.kg.extract import load_tree_nodes, passages
from bookrag_neo4j.kg.offline_extract import SpacyExtractor, load_spacy


def timed(label: str, work) -> object:  # noqa: ANN001
    cpu, wall = time.process_time(), time.perf_counter()
    out = work()
    print(f"{label}: {time.perf_counter() - wall:.1f} s wall, {time.process_time() - cpu:.1f} CPU-s")
    return out


async def main(path: Path) -> None:
    rag = library()
    nodes = await load_tree_nodes(await rag.aclient(), file_key(path))
    texts = [p.text for p in passages(nodes).values()]
    load_spacy()
    extractions = timed(f"spaCy, {len(texts)} passages", lambda: SpacyExtractor().extract_sync(texts))
    names = list(dict.fromkeys(e.name for x in extractions for e in x.entities))
    embedder = rag.models.embedder
    await embedder.embed(["load the model"])
    model = embedder._model
    timed(f"MiniLM, {len(texts)} blocks", lambda: model.encode([t[:2000] for t in texts]))
    timed(f"MiniLM, {len(names)} names", lambda: model.encode(names))


asyncio.run(main(Path(sys.argv[1])))

"""Extraction for a whole document: what each tree node yields, in reading order, with bounded concurrency
and a per-node store so an interrupted run resumes and a re-run costs nothing.

    nodes = await load_tree_nodes(db, doc_key)
    extractions, failed = await extract_nodes(nodes, extractor, store=ExtractionStore(path), document="10-K 2018")

Per node kind (paper §4.3.1): a section gives its ``SECTION_TITLE`` entity; a table its ``TABLE`` entity, its
headers (``CONTAINED_IN`` the table) and the extractor's entities from its caption and body; an image its
``IMAGE`` entity and the entities the VLM sees (or, without a VLM, those in its caption and the text next to
it); an equation its formula entity; text the extractor's entities. Every entity extracted from a table or
image node is linked to that node's table/image entity (``RELATED``, weight 9, as in the reference code).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ..db.client import Neo4jClient
from ..errors import ModelError
from ..llm.reply_cache import ResponseCache, cache_key
from ..parsing.blocks import Block
from ..text.extraction import ExtractedRelation, Extraction, Passage
from ..tree.model import TreeNode
from .structural import structural_extraction

log = logging.getLogger(__name__)

STRUCTURAL_LINK_WEIGHT = 9.0
NEARBY_CHARS = 600
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


class Extractor(Protocol):
    """Extracts from passages: ``batch_size`` passages a call (an LLM extractor takes 1, so that one failed
    reply costs one node); ``fingerprint`` identifies its output in the store."""

    batch_size: int

    @property
    def fingerprint(self) -> str: ...

    async def extract(self, passages: Sequence[Passage]) -> list[Extraction]: ...


class ExtractionStore:
    """Extractions by (node key, extractor fingerprint), in a SQLite file."""

    def __init__(self, cache: ResponseCache) -> None:
        self.cache = cache

    @staticmethod
    def _key(node_key: str, fingerprint: str) -> str:
        return cache_key(node=node_key, extractor=fingerprint)

    def get(self, node_key: str, fingerprint: str) -> Extraction | None:
        hit = self.cache.get(self._key(node_key, fingerprint))
        return Extraction.model_validate_json(hit[0]) if hit else None

    def put(self, node_key: str, fingerprint: str, extraction: Extraction) -> None:
        self.cache.put(self._key(node_key, fingerprint), provider="extractor", model=fingerprint,
                       reply=extraction.model_dump_json(), prompt_tokens=0, completion_tokens=0)


def cells_from_markdown(markdown: str) -> list[list[str]]:
    """Table cells back from the Markdown that the tree stage wrote (header row first)."""
    rows = []
    for line in (markdown or "").splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in _CELL_SPLIT.split(line.strip("|"))]
        if all(set(c) <= {"-", ":"} for c in cells):
            continue
        rows.append(cells)
    return rows


def node_from_row(row: dict[str, Any]) -> TreeNode:
    """A tree node as read back from Neo4j (enough for extraction)."""
    kind = row["kind"]
    path = (row.get("section_path") or "").split(" > ") if row.get("section_path") else []
    if kind == "section":
        path = path[:-1]
    block = None
    if kind in ("table", "image"):
        block = Block(kind, row.get("text") or "", row.get("page_start") or 0, caption=row.get("caption") or "",
                      image_path=row.get("image_path") or "", cells=cells_from_markdown(row.get("table_markdown") or ""))
    return TreeNode(kind=kind, title=row.get("title") or "", text=row.get("text") or "", block=block,
                    page_start=row.get("page_start") or 0, page_end=row.get("page_end") or 0,
                    key=row["key"], order=row.get("order") or 0, path=path)


async def load_tree_nodes(db: Neo4jClient, doc_key: str) -> list[TreeNode]:
    return [node_from_row(r) for r in await db.read("kg/tree_nodes", doc_key=doc_key)]


def passages(nodes: Sequence[TreeNode], document: str = "") -> dict[int, Passage]:
    """The passage an extractor reads for each node that has one (by index into ``nodes``)."""
    out: dict[int, Passage] = {}
    for i, node in enumerate(nodes):
        section = " > ".join(node.path)
        caption = node.block.caption if node.block else ""
        if node.kind == "text" and node.text.strip():
            out[i] = Passage(node.text, "text", section, document)
        elif node.kind == "table" and node.text.strip():
            out[i] = Passage(node.text, "table", section, document, caption)
        elif node.kind == "image":
            nearby = [n.text for n in (nodes[i - 1] if i else None, nodes[i + 1] if i + 1 < len(nodes) else None)
                      if n is not None and n.kind == "text"]
            text = "\n".join([caption, *(t[:NEARBY_CHARS] for t in nearby)]).strip()
            if text or (node.block and node.block.image_path):
                out[i] = Passage(text, "image", section, document, caption, node.block.image_path if node.block else "")
    return out


def combine(structural: Extraction, extracted: Extraction) -> Extraction:
    """Structural entities first; a table's/image's own entity linked to everything else found in it."""
    entities = list(structural.entities)
    names = {e.name.lower() for e in entities}
    entities += [e for e in extracted.entities if e.name.lower() not in names]
    relations = [*structural.relations, *extracted.relations]
    if structural.entities and structural.entities[0].type in ("TABLE", "IMAGE"):
        hub = structural.entities[0].name
        linked = {r.source.lower() for r in structural.relations}
        relations += [ExtractedRelation(source=e.name, target=hub, description=f"appears in {hub}",
                                        weight=STRUCTURAL_LINK_WEIGHT)
                      for e in entities[1:] if e.name.lower() not in linked]
    return Extraction(entities=entities, relations=relations)


def _stored(store: ExtractionStore | None, extractor: Extractor | None, nodes: Sequence[TreeNode],
            positions: list[int]) -> dict[int, Extraction | None]:
    """The stored extractions of the nodes at ``positions`` (None where there is none)."""
    if store is None or extractor is None:
        return {}
    return {i: store.get(nodes[i].key, extractor.fingerprint) for i in positions}


async def extract_nodes(
    nodes: Sequence[TreeNode],
    extractor: Extractor | None,
    *,
    store: ExtractionStore | None = None,
    document: str = "",
    concurrency: int = 8,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[Extraction], dict[str, str]]:
    """One extraction per node (structural + extractor), and why it failed by node key, for the nodes whose
    extraction failed (those get their structural entities only and are not stored: the next run asks again)."""
    todo = passages(nodes, document) if extractor is not None else {}
    found: dict[int, Extraction] = {}
    failed: dict[str, str] = {}
    hits = await asyncio.to_thread(_stored, store, extractor, nodes, list(todo))  # SQLite: off the event loop
    found.update({i: hit for i, hit in hits.items() if hit is not None})
    missing = [i for i in todo if i not in found]
    if progress:
        progress(len(nodes) - len(missing))
    semaphore = asyncio.Semaphore(concurrency)
    batch = extractor.batch_size if extractor is not None else 1

    async def run(chunk: list[int]) -> None:
        assert extractor is not None
        async with semaphore:
            try:
                results: list[Extraction | None] = list(await extractor.extract([todo[i] for i in chunk]))
            except ModelError as exc:
                failed.update((nodes[i].key, str(exc)) for i in chunk)
                results = [None] * len(chunk)
        for i, result in zip(chunk, results, strict=True):
            if result is not None:
                found[i] = result
                if store:
                    store.put(nodes[i].key, extractor.fingerprint, result)
        if progress:
            progress(len(chunk))

    await asyncio.gather(*(run(missing[j:j + batch]) for j in range(0, len(missing), batch)))
    return [combine(structural_extraction(n), found.get(i, Extraction())) for i, n in enumerate(nodes)], failed

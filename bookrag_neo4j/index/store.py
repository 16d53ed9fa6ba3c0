"""Write a document tree to Neo4j: batched ``UNWIND`` writes, one transaction a batch, ``MERGE`` on
content-hash keys, so writing the same tree twice changes nothing and an interrupted write can be redone.

Graph shape::

    (:Document)-[:HAS_CHILD {order}]->(:Section:TreeNode)-[:HAS_CHILD {order}]->(:Text|Table|Image|Equation:TreeNode)
    (block)-[:NEXT]->(block)            reading order between content blocks
    (:Document)-[:HAS_PAGE]->(:Page)    (node)-[:ON_PAGE]->(:Page)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..db.batching import batches
from ..db.client import Neo4jClient
from ..keys import page_key
from ..library.documents import TreeStatus
from ..parsing.blocks import ParsedDocument
from ..tree.model import DocumentTree, TreeNode

log = logging.getLogger(__name__)

# Labels written from data go through this allow-list (Cypher cannot take a label as a plain parameter).
KIND_LABELS = {"section": "Section", "text": "Text", "table": "Table", "image": "Image", "equation": "Equation"}


@dataclass
class WriteStats:
    nodes: int = 0
    relationships: int = 0
    seconds: float = 0.0


def node_properties(node: TreeNode, doc_key: str) -> dict[str, Any]:
    """Plain properties a BI tool can read (no JSON blobs)."""
    props: dict[str, Any] = {
        "key": node.key, "doc_key": doc_key, "kind": node.kind, "order": node.order, "depth": node.depth,
        "title": node.title, "text": node.text, "page_start": node.page_start, "page_end": node.page_end,
        "section_path": " > ".join(node.path), "bbox": list(node.bbox) if node.bbox else None,
    }
    if node.kind == "section":
        props["level"] = node.level
        props["section_path"] = " > ".join([*node.path, node.title])
        props["descendants"] = sum(1 for _ in node.walk()) - 1  # subtree size, read by retrieval selectors
    block = node.block
    if block is not None and node.kind == "table":
        props |= {"table_markdown": block.table_markdown, "table_html": block.table_html,
                  "n_rows": block.table_rows, "n_cols": block.table_cols, "caption": block.caption}
    if block is not None and node.kind == "image":
        props |= {"image_path": block.image_path, "caption": block.caption, "image_text": block.image_text}
    return {k: v for k, v in props.items() if v is not None}


async def write_tree(
    db: Neo4jClient,
    tree: DocumentTree,
    parsed: ParsedDocument,
    document: dict[str, Any],
    *,
    progress: Callable[[int], None] | None = None,
) -> WriteStats:
    """Write the document node, tree nodes, tree/reading-order/page edges and pages. ``progress`` gets the
    number of rows written after each batch."""
    began = time.perf_counter()
    doc_key = tree.doc_key
    nodes = [n for n in tree.nodes() if n.kind != "document"]
    node_rows = [{"key": n.key, "label": KIND_LABELS[n.kind], "props": node_properties(n, doc_key)} for n in nodes]
    child_rows = [
        {"parent": parent.key, "child": child.key, "order": i}
        for parent in tree.nodes() for i, child in enumerate(parent.children)
    ]
    content = [n for n in nodes if n.kind != "section"]
    next_rows = [{"a": a.key, "b": b.key} for a, b in zip(content, content[1:], strict=False)]
    page_rows = [
        {"key": page_key(doc_key, number), "props": {"key": page_key(doc_key, number), "doc_key": doc_key,
                                                     "number": number, "width": w, "height": h}}
        for number, (w, h) in sorted(parsed.page_sizes.items())
    ] or [{"key": page_key(doc_key, p), "props": {"key": page_key(doc_key, p), "doc_key": doc_key, "number": p}}
          for p in range(1, parsed.page_count + 1)]
    on_page_rows = [
        {"node": n.key, "page": page_key(doc_key, p)}
        for n in nodes if n.page_start
        for p in (range(n.page_start, n.page_end + 1) if n.kind != "section" else [n.page_start])
    ]
    stats = WriteStats()
    await db.write("tree/merge_document", key=doc_key, props={**document, "status": TreeStatus.WRITING.value})
    steps: list[tuple[str, list[dict[str, Any]], dict[str, Any]]] = [
        ("tree/merge_nodes", node_rows, {}),
        ("tree/merge_pages", page_rows, {"doc_key": doc_key}),
        ("tree/link_children", child_rows, {}),
        ("tree/link_next", next_rows, {}),
        ("tree/link_pages", on_page_rows, {}),
    ]
    for query, rows, params in steps:
        for batch in batches(rows):
            await db.write(query, rows=list(batch), **params)
            if progress:
                progress(len(batch))
    stats.nodes = len(node_rows) + len(page_rows) + 1
    stats.relationships = len(child_rows) + len(next_rows) + len(page_rows) + len(on_page_rows)
    await db.write("tree/merge_document", key=doc_key,
                      props={"status": TreeStatus.COMPLETE.value, "tree_nodes": len(nodes)})
    stats.seconds = time.perf_counter() - began
    log.info("wrote %d nodes and %d relationships in %.2fs", stats.nodes, stats.relationships, stats.seconds)
    return stats


def row_count(tree: DocumentTree, parsed: ParsedDocument) -> int:
    """Rows ``write_tree`` will write (for progress bars)."""
    nodes = [n for n in tree.nodes() if n.kind != "document"]
    content = sum(1 for n in nodes if n.kind != "section")
    pages = sum(n.page_end - n.page_start + 1 if n.kind != "section" else 1 for n in nodes if n.page_start)
    return 2 * len(nodes) + max(content - 1, 0) + max(len(parsed.page_sizes), parsed.page_count) + pages

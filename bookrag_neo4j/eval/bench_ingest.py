"""``bookrag bench ingest``: tree-build throughput per stage on a set of PDFs, without an LLM.

Parsing runs in the benchmark's process (the slow part is PyMuPDF, whose table model already uses both
cores), then each tree is written to Neo4j in a separate timed step. Every document is deleted before it is
written, so the figures are for fresh writes.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from ..errors import DocumentError
from ..graph.client import GraphClient
from ..index.library import delete_document
from ..index.store import write_tree
from ..parsing.pymupdf_parser import parse_pdf
from ..tree.build import build_tree
from ..tree.headings import detect_headings


async def bench_ingest(graph: GraphClient, paths: list[Path], *, tables: str = "layout") -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for path in paths:
        began = time.perf_counter()
        try:
            parsed = await asyncio.to_thread(parse_pdf, path, tables=tables)
        except DocumentError as exc:
            rows.append({"document": path.name, "error": str(exc)})
            continue
        parse_s = time.perf_counter() - began
        began = time.perf_counter()
        headings, source, _ = await detect_headings(parsed)
        tree = build_tree(parsed, headings, source)
        tree_s = time.perf_counter() - began
        await delete_document(graph, tree.doc_key)
        stats = await write_tree(graph, tree, parsed, {"name": path.name, "title": tree.root.title})
        rows.append({
            "document": path.name, "pages": parsed.page_count, "blocks": len(parsed.blocks), "sections_from": source,
            "tables": sum(b.kind == "table" for b in parsed.blocks),
            "parse_s": round(parse_s, 2), "tree_s": round(tree_s, 3), "write_s": round(stats.seconds, 2),
            "nodes": stats.nodes, "relationships": stats.relationships,
        })
    ok = [r for r in rows if "error" not in r]
    pages = sum(r["pages"] for r in ok)
    parse = sum(r["parse_s"] for r in ok)
    tree = sum(r["tree_s"] for r in ok)
    write = sum(r["write_s"] for r in ok)
    written = sum(r["nodes"] + r["relationships"] for r in ok)
    return {
        "tables_mode": tables, "documents": len(ok), "failed": len(rows) - len(ok), "pages": pages,
        "tables": sum(r["tables"] for r in ok),
        "parse_pages_per_s": round(pages / parse, 1) if parse else None,
        "write_items_per_s": round(written / write) if write else None,
        "end_to_end_pages_per_s": round(pages / (parse + tree + write), 1) if pages else None,
        "seconds": {"parse": round(parse, 1), "tree": round(tree, 2), "write": round(write, 1)},
        "per_document": rows,
    }

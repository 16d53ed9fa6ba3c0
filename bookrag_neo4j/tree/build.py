"""Assemble blocks and detected headings into the tree: each section owns the blocks up to the next section
of the same or a higher level; blocks before the first section belong to the document itself."""

from __future__ import annotations

from ..keys import document_key
from ..parsing.blocks import ParsedDocument
from .model import LEAF_KIND, DocumentTree, Heading, TreeNode, finalize


def build_tree(doc: ParsedDocument, headings: list[Heading], source: str) -> DocumentTree:
    """``headings`` are sorted by position; a heading that ``consumes`` its block turns it into the section."""
    root = TreeNode(kind="document", title=doc.title, page_start=1, page_end=doc.page_count)
    stack: list[TreeNode] = [root]
    by_position: dict[int, list[Heading]] = {}
    for h in headings:
        by_position.setdefault(h.position, []).append(h)
    for i, block in enumerate([*doc.blocks, None]):
        consumed = False
        for h in by_position.get(i, []):
            while len(stack) > 1 and stack[-1].level >= h.level:
                stack.pop()
            anchor = block if block is not None and h.consumes else None
            section = TreeNode(
                kind="section", title=h.title, text=h.title, level=h.level,
                page_start=h.page, page_end=h.page, bbox=anchor.bbox if anchor else None,
            )
            stack[-1].children.append(section)
            stack.append(section)
            consumed = consumed or h.consumes
        if block is None or consumed:
            continue
        stack[-1].children.append(TreeNode(
            kind=LEAF_KIND[block.kind], text=block.text, title=block.caption,
            page_start=block.page, page_end=block.page_end or block.page, bbox=block.bbox, block=block,
        ))
    tree = DocumentTree(root=root, doc_key=document_key(doc.content_hash), heading_source=source)
    finalize(root, tree.doc_key)
    return tree

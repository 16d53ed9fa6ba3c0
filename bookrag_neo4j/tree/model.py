"""Tree nodes: what becomes ``(:Document)``, ``(:Section)``, ``(:Text)``, ``(:Table)``, ``(:Image)``,
``(:Equation)`` in Neo4j."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from ..keys import node_key
from ..parsing.blocks import BBox, Block

NodeKind = Literal["document", "section", "text", "table", "image", "equation"]
LEAF_KIND: dict[str, NodeKind] = {"text": "text", "list": "text", "caption": "text", "title": "text",
                                  "table": "table", "image": "image", "equation": "equation"}


@dataclass(frozen=True)
class Heading:
    """A section start: before block ``position``; ``consumes`` when that block is the heading's own text."""

    position: int
    level: int
    title: str
    page: int
    consumes: bool = True


@dataclass
class TreeNode:
    """A node of the document tree. ``order`` is the position in reading sequence (pre-order)."""

    kind: NodeKind
    title: str = ""
    text: str = ""
    level: int = 0
    page_start: int = 0
    page_end: int = 0
    bbox: BBox | None = None
    block: Block | None = None
    children: list[TreeNode] = field(default_factory=list)
    key: str = ""
    order: int = 0
    depth: int = 0
    path: list[str] = field(default_factory=list)

    def walk(self) -> Iterator[TreeNode]:
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass
class DocumentTree:
    """The root of a document with its key (content hash) and how its sections were found."""

    root: TreeNode
    doc_key: str
    heading_source: str  # "outline", "llm", the parser's levels ("mineru") or "heuristic"

    def nodes(self) -> Iterator[TreeNode]:
        return self.root.walk()

    def sections(self) -> list[TreeNode]:
        return [n for n in self.nodes() if n.kind == "section"]


def finalize(root: TreeNode, doc_key: str) -> None:
    """Number nodes in reading order; set depth, section path, page spans and content-hash keys."""
    counter = 0

    def visit(node: TreeNode, depth: int, path: list[str]) -> None:
        nonlocal counter
        node.order, node.depth, node.path = counter, depth, path
        counter += 1
        child_path = [*path, node.title] if node.kind == "section" else path
        for child in node.children:
            visit(child, depth + 1, child_path)
        pages = [p for c in node.children for p in (c.page_start, c.page_end) if p]
        if pages:
            node.page_start = min([node.page_start, *pages]) if node.page_start else min(pages)
            node.page_end = max([node.page_end, *pages])
        node.key = node_key(doc_key, node.order, node.kind, node.title, node.text)

    visit(root, 0, [])

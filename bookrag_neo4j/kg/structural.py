"""Entities that come from the tree itself, without a model (paper §4.3.1, modality-aware extraction):

- a section → one ``SECTION_TITLE`` entity (its title without numbering; the description gives its path);
- a table → one ``TABLE`` entity (its caption, or "Table on page N"), and its column headers (first row) and
  row headers (first column) as ``CONCEPT`` entities linked to it by ``CONTAINED_IN`` (the paper describes
  these links; its reference code lacks them);
- an image → one ``IMAGE`` entity (caption, or "Figure on page N");
- an equation → one ``EQUATION`` entity (the formula's text).

Entities inside text, captions and table bodies come from an extractor (LLM or offline) on top of these.
"""

from __future__ import annotations

from ..parsing.page_rules import strip_numbering
from ..text.extraction import ExtractedEntity, ExtractedRelation, Extraction
from ..tree.model import TreeNode

MAX_HEADERS = 30


def _header(text: str) -> str | None:
    text = " ".join(text.split()).strip(" :")
    if len(text) < 2 or len(text) > 80 or not any(c.isalpha() for c in text):
        return None
    return text


def structural_extraction(node: TreeNode) -> Extraction:
    """The structural entities (and CONTAINED_IN links) of one tree node; empty for plain text."""
    if node.kind == "section":
        name = strip_numbering(node.title) or node.title
        where = " > ".join([*node.path, node.title])
        return Extraction(entities=[ExtractedEntity(name=name, type="SECTION_TITLE",
                                                    description=f"Section '{where}', page {node.page_start}")])
    if node.kind == "table":
        block = node.block
        caption = (block.caption if block else "") or node.title
        table = ExtractedEntity(name=caption[:120] or f"Table on page {node.page_start}", type="TABLE",
                                description=(caption or node.text[:200]).strip())
        cells = block.cells if block else []
        headers = [h for h in (_header(c) for c in (cells[0] if cells else [])) if h]
        headers += [h for h in (_header(row[0]) for row in cells[1:] if row) if h]
        unique = list(dict.fromkeys(headers))[:MAX_HEADERS]
        return Extraction(
            entities=[table, *(ExtractedEntity(name=h, type="CONCEPT", description=f"a header of {table.name}")
                               for h in unique)],
            relations=[ExtractedRelation(source=h, target=table.name, description="header of the table",
                                         weight=9.0, kind="CONTAINED_IN") for h in unique],
        )
    if node.kind == "image":
        caption = (node.block.caption if node.block else "") or node.title
        return Extraction(entities=[ExtractedEntity(name=caption[:120] or f"Figure on page {node.page_start}",
                                                    type="IMAGE", description=caption)])
    if node.kind == "equation":
        formula = " ".join(node.text.split())
        if not formula:
            return Extraction()
        return Extraction(entities=[ExtractedEntity(name=formula[:120], type="EQUATION", description=formula[:300])])
    return Extraction()

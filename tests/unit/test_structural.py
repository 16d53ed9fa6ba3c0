"""Structural entities from tree nodes: sections, tables with CONTAINED_IN headers, images, equations."""

from __future__ import annotations

from bookrag_neo4j.kg.structural import structural_extraction
from bookrag_neo4j.parsing.blocks import Block
from bookrag_neo4j.parsing.tables import set_table
from bookrag_neo4j.tree.model import TreeNode


def test_section_title_entity_drops_numbering_and_keeps_the_path() -> None:
    node = TreeNode(kind="section", title="2.3 Vector arithmetic", path=["2 Simple manipulations"], page_start=15)
    (entity,) = structural_extraction(node).entities
    assert (entity.name, entity.type) == ("Vector arithmetic", "SECTION_TITLE")
    assert "2 Simple manipulations > 2.3 Vector arithmetic" in entity.description


def test_table_headers_are_contained_in_the_table() -> None:
    block = Block("table", "", page=40, caption="Table 3: Net sales by segment")
    set_table(block, [["Segment", "2016", "2017"], ["North America", "79,785", "106,110"],
                      ["International", "43,983", "54,297"], ["AWS", "12,219", "17,459"]])
    result = structural_extraction(TreeNode(kind="table", block=block, text=block.text, page_start=40))
    table = result.entities[0]
    assert (table.name, table.type) == ("Table 3: Net sales by segment", "TABLE")
    headers = [e.name for e in result.entities[1:]]
    assert headers == ["Segment", "North America", "International", "AWS"]  # years are not names
    assert all(r.kind == "CONTAINED_IN" and r.target == table.name for r in result.relations)
    assert {r.source for r in result.relations} == set(headers)


def test_images_equations_and_text() -> None:
    image = TreeNode(kind="image", block=Block("image", "", page=3, caption="Fig. 2: The RAG paradigms"), page_start=3)
    assert structural_extraction(image).entities[0].type == "IMAGE"
    bare = TreeNode(kind="image", block=Block("image", "", page=7), page_start=7)
    assert structural_extraction(bare).entities[0].name == "Figure on page 7"
    equation = TreeNode(kind="equation", text="E = m c^2", page_start=9)
    assert structural_extraction(equation).entities[0].name == "E = m c^2"
    assert structural_extraction(TreeNode(kind="text", text="Plain text.")).entities == []

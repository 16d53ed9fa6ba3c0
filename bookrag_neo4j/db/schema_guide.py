"""What each node label and relationship type of the BookIndex means, in one place: MCP's ``get_schema`` tool
shows it to agents next to what the database holds (properties, counts, indexes), and SuperRAG's text2Cypher
prompt lists the labels and patterns marked for it, so an agent and the planner read the same graph."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, Field

from .client import Neo4jClient
from .schema import IndexInfo

PROPERTY_SAMPLE = 1000  # nodes of a label whose property keys are listed (one code path writes each label)


@dataclass(frozen=True)
class LabelMeaning:
    label: str
    layer: str  # which part of the index writes it: tree, knowledge graph, layout layer, content graph, library
    meaning: str
    text2cypher: bool = True  # listed in SuperRAG's text2Cypher prompt


@dataclass(frozen=True)
class RelationshipMeaning:
    type: str
    patterns: tuple[str, ...]  # as text2Cypher shows them, e.g. "(:Section)-[:HAS_CHILD {order}]->(:Text)"
    meaning: str
    text2cypher: bool = True


LABELS = (
    LabelMeaning("Document", "tree", "One indexed PDF: name, path, title, pages, its card (card_title, card_issuer, "
                 "card_kind, card_period) and each layer's status and counts."),
    LabelMeaning("Page", "tree", "A page of a document (number: 1-based; label: as printed; header, footer)."),
    LabelMeaning("TreeNode", "tree", "Every node of a document's tree below the Document: Section, Text, Table, "
                 "Image and Equation nodes carry it too (doc_key, kind, order, depth, page_start, page_end, "
                 "section_path).", text2cypher=False),
    LabelMeaning("Section", "tree", "A section of the document's tree (title, level, section_path, page_start, page_end)."),
    LabelMeaning("MasterSection", "layout layer", "A top-level section, SuperRAG's unit of a cross-page merge.",
                 text2cypher=False),
    LabelMeaning("Text", "tree", "A paragraph or list block (text, section_path, page_start, bbox in points on its page)."),
    LabelMeaning("Table", "tree", "A table block (table_markdown, table_html, caption, n_rows, n_cols)."),
    LabelMeaning("Image", "tree", "A figure (caption, image_text: the words in it, image_path)."),
    LabelMeaning("Equation", "tree", "A formula block (text)."),
    LabelMeaning("Passage", "layout layer", "About 400 words of consecutive blocks, the baselines' and SuperRAG's "
                 "unit of search (text, heading, page_start, page_end)."),
    LabelMeaning("TableChunk", "layout layer", "One row of a table with its header (text, heading, table_key), "
                 "searched on its own."),
    LabelMeaning("TableOfContents", "layout layer", "A document's table of contents (title, entries)."),
    LabelMeaning("Entity", "knowledge graph", "A knowledge-graph entity after entity resolution (name, type, "
                 "description, aliases, mentions: how many tree nodes mention it)."),
    LabelMeaning("Keyword", "layout layer", "A keyword of a passage, table or figure (name; SuperRAG's keyword links)."),
    LabelMeaning("Stem", "layout layer", "A keyword's stem: keywords with one stem are one concept.",
                 text2cypher=False),
    LabelMeaning("ContentNode", "content graph", "G²-Reader's content-graph node: a Passage, Table or Image "
                 "that G2_LINK edges join.", text2cypher=False),
    LabelMeaning("IndexLease", "library", "Who is indexing a document now (writers take turns).", text2cypher=False),
)

RELATIONSHIPS = (
    RelationshipMeaning("HAS_PAGE", ("(:Document)-[:HAS_PAGE]->(:Page)",), "A document's pages."),
    RelationshipMeaning("HAS_CHILD", ("(:Document)-[:HAS_CHILD {order}]->(:Section)",
                                      "(:Section)-[:HAS_CHILD {order}]->(:Section|Text|Table|Image|Equation)"),
                        "The document tree: a parent and its children, in reading order."),
    RelationshipMeaning("ON_PAGE", ("(block)-[:ON_PAGE]->(:Page)", "(:Passage)-[:ON_PAGE]->(:Page)"),
                        "The pages a block or passage is on."),
    RelationshipMeaning("HAS_TOC", ("(:Document)-[:HAS_TOC]->(:TableOfContents)-[:HAS_ENTRY {order}]->(:Section)",),
                        "A document's table of contents and its entries."),
    RelationshipMeaning("HAS_ENTRY", (), "See HAS_TOC.", text2cypher=False),
    RelationshipMeaning("NEXT_SECTION", ("(:Section)-[:NEXT_SECTION]->(:Section)",), "Sections in reading order."),
    RelationshipMeaning("COVERS", ("(:Passage)-[:COVERS {order}]->(block)",), "The blocks a passage is made of."),
    RelationshipMeaning("NEXT", ("(:Passage)-[:NEXT]->(:Passage)",),
                        "Reading order: consecutive passages, and consecutive content blocks of the tree."),
    RelationshipMeaning("HAS_ROW", ("(:Table)-[:HAS_ROW {order}]->(:TableChunk)",), "A table's rows."),
    RelationshipMeaning("REFERS_TO", ("(:Text)-[:REFERS_TO]->(:Table|Image)",),
                        "A paragraph that names a table or figure (\"see Table 3\")."),
    RelationshipMeaning("HAS_KEYWORD", ("(:Passage)-[:HAS_KEYWORD]->(:Keyword)",), "A unit's keywords."),
    RelationshipMeaning("MENTIONED_IN", ("(:Entity)-[:MENTIONED_IN]->(block)",),
                        "GT-Links: where in the tree an entity is mentioned."),
    RelationshipMeaning("RELATED", ("(:Entity)-[:RELATED {weight, description}]-(:Entity)",),
                        "Two entities related in the text (undirected; weight: how strongly).", text2cypher=False),
    RelationshipMeaning("CONTAINED_IN", ("(:Entity)-[:CONTAINED_IN]->(:Entity)",),
                        "A table header contained in its table's entity.", text2cypher=False),
    RelationshipMeaning("SAME_AS", ("(:Entity)-[:SAME_AS]-(:Entity)",),
                        "One entity in two documents (with BOOKRAG_LINK_ACROSS_DOCUMENTS).", text2cypher=False),
    RelationshipMeaning("HAS_STEM", ("(:Keyword)-[:HAS_STEM]->(:Stem)",), "A keyword's stem.", text2cypher=False),
    RelationshipMeaning("SIMILAR", ("(unit)-[:SIMILAR {score}]->(unit)",),
                        "Layout-layer units whose embeddings are close.", text2cypher=False),
    RelationshipMeaning("G2_LINK", ("(:ContentNode)-[:G2_LINK {kind, weight}]->(:ContentNode)",),
                        "G²-Reader's content-graph edges (kind: window, knn or llm).", text2cypher=False),
)


def text2cypher_labels() -> list[str]:
    """The labels SuperRAG's text2Cypher prompt describes."""
    return [m.label for m in LABELS if m.text2cypher]


def text2cypher_patterns() -> list[str]:
    """The relationship patterns SuperRAG's text2Cypher prompt lists."""
    return [p for m in RELATIONSHIPS if m.text2cypher for p in m.patterns]


class LabelInfo(BaseModel):
    """A node label as the database holds it, with what it means in the BookIndex."""

    label: str
    meaning: str
    layer: str
    nodes: int | None = Field(None, description="How many nodes carry it (None: the server would not say).")
    properties: list[str] = Field(description="Its property keys, read from a sample of its nodes.")
    vector_properties: list[str] = Field(default_factory=list, description=(
        "Properties holding embeddings: read_cypher replaces them with a short note."))


class RelationshipInfo(BaseModel):
    type: str
    meaning: str
    patterns: list[str]
    relationships: int | None = None


class GraphSchema(BaseModel):
    """The BookIndex as this database holds it: labels, relationship types and indexes, each with its meaning."""

    labels: list[LabelInfo]
    relationships: list[RelationshipInfo]
    indexes: list[IndexInfo]


async def read_schema(db: Neo4jClient) -> GraphSchema:
    """What the database holds, with the meanings above; labels and types the BookIndex does not write are listed
    as such (another application's data in the same database)."""
    (counts,) = await db.read("schema/counts")
    nodes = {row["label"]: row["count"] for row in counts["labels"]}
    rels = {row["type"]: row["count"] for row in counts["relationships"]}
    meanings = {m.label: m for m in LABELS}
    labels = [m.label for m in LABELS if nodes.get(m.label)] + sorted(set(nodes) - set(meanings))
    sampled = {row["label"]: row["properties"] for row in await db.read(
        "superrag/schema_properties", labels=labels, hidden=[], sample=PROPERTY_SAMPLE)}
    indexes = await db.read_as(IndexInfo, "schema/indexes")
    vectors = {(label, p) for i in indexes if i.type == "VECTOR" for label in i.labels for p in i.properties}
    other = "Not written by bookrag-neo4j: another application's data in this database."
    return GraphSchema(
        labels=[LabelInfo(
            label=label, meaning=meanings[label].meaning if label in meanings else other,
            layer=meanings[label].layer if label in meanings else "", nodes=nodes.get(label),
            properties=sampled.get(label, []),
            vector_properties=[p for p in sampled.get(label, []) if (label, p) in vectors or re.search(r"embedding\d*$", p)],
        ) for label in labels],
        relationships=[RelationshipInfo(type=m.type, meaning=m.meaning, patterns=list(m.patterns),
                                        relationships=rels[m.type]) for m in RELATIONSHIPS if rels.get(m.type)]
        + [RelationshipInfo(type=t, meaning=other, patterns=[], relationships=rels[t])
           for t in sorted(set(rels) - {m.type for m in RELATIONSHIPS})],
        indexes=indexes)

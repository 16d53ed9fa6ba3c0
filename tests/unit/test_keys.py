"""Every stored key is pinned: the values below were computed with the code before the keys moved to
``bookrag_neo4j.keys``; a change here orphans every existing index. No server needed."""

from __future__ import annotations

import hashlib
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from bookrag_neo4j import keys
from bookrag_neo4j.index.store import write_tree
from bookrag_neo4j.parsing import pymupdf_parser
from bookrag_neo4j.parsing.blocks import Block, ParsedDocument
from bookrag_neo4j.tree.build import build_tree
from bookrag_neo4j.tree.headings import Heading

CONTENT = hashlib.sha256(b"bookrag keys").hexdigest()
DOC = "a6e781a4de83cd19673ee51a691c9740"
NODES = [
    ("document", DOC),
    ("section", "a6e781a4de83cd19-3dabb0d955c6e51dd2a1219b"),
    ("text", "a6e781a4de83cd19-bdb54483ddba4df952ae5e2b"),
    ("image", "a6e781a4de83cd19-5d477491e3f12ef717333daf"),
]


def parsed() -> ParsedDocument:
    return ParsedDocument(Path("doc.pdf"), CONTENT, "Doc", 2, blocks=[
        Block("title", "Intro", 1), Block("text", "Hello world.", 1), Block("image", "", 2, caption="Figure 1")],
        page_sizes={1: (600.0, 800.0), 2: (600.0, 800.0)})


def test_document_keys(tmp_path: Path) -> None:
    assert keys.document_key(CONTENT) == DOC
    pdf = tmp_path / "doc.pdf"
    pdf.write_bytes(b"%PDF-1.4 bookrag keys\n")
    assert keys.file_key(pdf) == "9cde8ac45948691ff85961d6c5acfd57"
    assert keys.key_prefix(keys.file_key(pdf)) == "9cde8ac45948691f"  # MinerU's output folder for this PDF


def test_tree_node_keys() -> None:
    tree = build_tree(parsed(), [Heading(0, 1, "Intro", 1)], "heuristic")
    assert tree.doc_key == DOC
    assert [(n.kind, n.key) for n in tree.nodes()] == NODES
    assert keys.node_key(DOC, 2, "text", "", "Hello world.") == NODES[2][1]


async def test_page_keys_as_written() -> None:
    class Recorder:
        def __init__(self) -> None:
            self.rows: dict[str, list[dict[str, Any]]] = {}

        async def write(self, query: str, **params: Any) -> list[dict[str, Any]]:
            self.rows.setdefault(query, []).extend(params.get("rows", []))
            return []

    recorder = Recorder()
    doc = parsed()
    await write_tree(recorder, build_tree(doc, [Heading(0, 1, "Intro", 1)], "heuristic"), doc,  # type: ignore[arg-type]
                     {"name": "doc.pdf"})
    assert [r["key"] for r in recorder.rows["tree/merge_pages"]] == ["a6e781a4de83cd19-p1", "a6e781a4de83cd19-p2"]
    assert [(r["node"], r["page"]) for r in recorder.rows["tree/link_pages"]] == [
        (NODES[1][1], "a6e781a4de83cd19-p1"), (NODES[2][1], "a6e781a4de83cd19-p1"), (NODES[3][1], "a6e781a4de83cd19-p2")]
    assert keys.page_key(DOC, 12) == "a6e781a4de83cd19-p12"


def test_entity_keys() -> None:
    assert keys.entity_key(DOC, "PERSON|ada lovelace") == "a6e781a4de83cd19-ecf8a11498143af84586f13c6"


def test_image_file_names(tmp_path: Path) -> None:
    names = ["a6e781a4de83cd19-p0003-0.png", "a6e781a4de83cd19-p0003-1.png"]
    for name in names:  # there already: the parser does not render them again (and needs no page)
        (tmp_path / name).touch()
    blocks = [Block("image", "", 3), Block("text", "x", 3), Block("image", "", 3)]
    pymupdf_parser._save_images(None, blocks, tmp_path, CONTENT)  # type: ignore[arg-type]
    assert [Path(b.image_path).name for b in blocks if b.kind == "image"] == names
    assert all(fnmatch(name, keys.image_file_glob(DOC)) for name in names)
    assert not fnmatch(keys.image_file_name("b" * 32, 3, 0), keys.image_file_glob(DOC))


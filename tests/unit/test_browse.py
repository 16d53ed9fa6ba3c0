"""Neo4j Browser links decode, the way Browser 5 decodes them, to one ``:param``-free statement; the ``--style``
link; answer-trace parameters. (The queries on a real document: ``tests/integration/test_browse_bi.py``.)"""

from __future__ import annotations

import pytest

from bookrag_neo4j.browse import answer_trace_params, browser_query, browser_url, style_url
from bookrag_neo4j.resources import resource_dir

from ..helpers.links import browser_editor_lines


def test_browser_urls_survive_browsers_decoding() -> None:
    url = browser_url("http://localhost:7474/browser/", "section_subtree", {"doc": "R&D #1 +x.pdf", "section": "a\"b"})
    (query,) = browser_editor_lines(url)
    first, rest = query.split("\n", 1)
    assert first == 'WITH "R\\u0026D \\u00231 +x.pdf" AS doc, "a\\"b" AS section'  # Cypher reads \\u0026 as '&'
    assert rest.startswith("MATCH (d:Document {name: doc})") and "//" not in query and "$" not in query
    assert browser_editor_lines(browser_url("http://h/browser", "library")) == ["MATCH (d:Document)\nRETURN d"]
    with pytest.raises(ValueError, match="takes parameters"):
        browser_query("toc", {"doc": "x", "doc}) DETACH DELETE (n": "x"})
    with pytest.raises(ValueError, match="takes parameters"):
        browser_query("toc")
    (style,) = browser_editor_lines(style_url("http://h/browser"))
    assert style.startswith(":style node {") and "node.Document {" in style and "rgb(31, 58, 95)" in style
    trace = {"evidence": [{"key": "n1"}, {"key": "n2"}], "seeds": ["e1", "e2"]}
    assert answer_trace_params(trace) == {"nodes": ["n1", "n2"], "seeds": ["e1", "e2"]}


def test_the_style_covers_every_layers_labels_and_edges() -> None:
    grass = (resource_dir("cypher") / "browser" / "bookindex.grass").read_text(encoding="utf-8")
    for label in ("Document", "Section", "Passage", "TableChunk", "Keyword", "ContentNode"):
        assert f"node.{label} {{" in grass, label
    for edge in ("HAS_CHILD", "NEXT", "SIMILAR", "REFERS_TO", "G2_LINK"):
        assert f"relationship.{edge} {{" in grass, edge
